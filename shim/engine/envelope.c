#include "shim/engine/envelope.h"
#include "shim/engine/inbox.h"
#include "shim/engine/preq.h"
#include "shim/transport/transport.h"
#include "shim/progress/progress.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include "router/envelope.h"
#include "router/wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages one poll takes at most before it lets the round go on. */
#define ENV_POLL_TAKES 4

_Static_assert(INBOX_BARE_KEYS > RT_META_MAX >> 1 &&
                   INBOX_BARE_KEYS <= RT_META_MAX,
               "keys sit above the header path's payload tags, within an "
               "item's value");

/* The engine's delivery of an item (env_init). */
static env_deliver_fn env_deliver;

void env_init(env_deliver_fn deliver)
{
    omni_envelopes *e = &omni.eng.env;
    env_deliver = deliver;
    size_t slots = (size_t)omni.job.self_slot + 1;
    e->layout = ev_layout_for(omni.job.tag_ub);
    if (omni.job.cfg.envelopes == CFG_ENVELOPES_OFF)
        e->layout.ok = 0;
    e->ready = calloc(slots, sizeof *e->ready);
    e->sent = calloc(slots, sizeof *e->sent);
    e->taken = calloc(slots, sizeof *e->taken);
    e->blocks_done = calloc(slots, sizeof *e->blocks_done);
    if (!e->ready || !e->sent || !e->taken || !e->blocks_done)
        omni_out_of_memory("the links' counts of messages without header");
    e->polling = 0;
}

void env_finalize(void)
{
    omni_envelopes *e = &omni.eng.env;
    free(e->ready);
    free(e->sent);
    free(e->taken);
    free(e->blocks_done);
    e->ready = NULL;
    e->sent = e->taken = e->blocks_done = NULL;
}

/* Whether world rank r is a neighbour reached through the MPI underneath:
 * its own next hop, and not through a node ring. */
static int env_wire_neighbour(int r)
{
    return r != omni.job.rank && omni.job.route_len[r] == 1 &&
           !transport_by_ring(r);
}

int env_possible(int dst, int tag, const comm_rec *c)
{
    const omni_envelopes *e = &omni.eng.env;
    return e->layout.ok && env_wire_neighbour(dst) &&
           e->ready[omni.job.hop_slot[dst]] &&
           ev_tag(&e->layout, c->id, tag, 0) >= 0;
}

int env_send(const void *buf, MPI_Count count, MPI_Datatype dtype, int dst,
             int tag, comm_rec *c, MPI_Request *req, int user_req)
{
    omni_envelopes *e = &omni.eng.env;
    transport_push_towards(dst);
    int t = ev_tag(&e->layout, c->id, tag, transport_blocks_out(dst));
    MPI_Request sent;
    int err = omni_Isend_c(buf, count, dtype, dst, t, omni.job.wire_comm, &sent);
    if (err != MPI_SUCCESS)
        return omni_raise(c->handle, err);
    transport_mark_next(dst, ++e->sent[omni.job.hop_slot[dst]]);
    omni.eng.sent_to[dst]++;
    omni.stats.direct_sends++;
    omni.stats.envelope_sends++;
    if (req) {
        *req = user_req ? preq_wrap_send(sent, c->handle) : sent;
        return MPI_SUCCESS;
    }
    return prog_wait(&sent, MPI_STATUS_IGNORE);
}

void env_sent_header(int dst)
{
    if (omni.eng.env.layout.ok && env_wire_neighbour(dst))
        omni.eng.env.ready[omni.job.hop_slot[dst]] = 1;
}

void env_heard_header(int src)
{
    omni_envelopes *e = &omni.eng.env;
    if (!e->polling && e->layout.ok && env_wire_neighbour(src)) {
        e->polling = 1;
        prog_has_work(e->poller);
    }
}

void env_block_done(int src)
{
    omni.eng.env.blocks_done[omni.job.hop_slot[src]]++;
}

/* Whether the message st describes comes next in its pair's order. */
static int env_next(const MPI_Status *st)
{
    const omni_envelopes *e = &omni.eng.env;
    if (!ev_is_envelope(&e->layout, st->MPI_TAG))
        return 0;
    ev_fields f = ev_fields_of(&e->layout, st->MPI_TAG);
    return ev_in_order(f.seq, e->blocks_done[omni.job.hop_slot[st->MPI_SOURCE]]);
}

/* Takes the message st describes (env_next) out of the MPI underneath
 * into the inbox, and delivers the LARGE header it would have had. */
static void env_take(const MPI_Status *st)
{
    omni_envelopes *e = &omni.eng.env;
    int src = st->MPI_SOURCE, p = omni.job.hop_slot[src], flag = 0;
    MPI_Message msg;
    MPI_Status got;
    /* The probe that found it matches nothing in between: one thread. */
    PMPI_Improbe(src, st->MPI_TAG, omni.job.wire_comm, &flag, &msg, &got);
    if (!flag) {
        fprintf(stderr, "omnibus: rank %d: a message without header from "
                        "rank %d, just probed, could not be matched; this "
                        "is a bug\n", omni.job.rank, src);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(&got, MPI_BYTE, &bytes);
    uint32_t key = INBOX_BARE_KEYS | (e->taken[p] & (INBOX_BARE_KEYS - 1u));
    e->taken[p]++;
    inbox_hold((uint32_t)src, key, msg, bytes);
    ev_fields f = ev_fields_of(&e->layout, st->MPI_TAG);
    char item[RT_HDR_SIZE + RT_LARGE_BODY];
    rt_item_hdr h = {.dst = (uint32_t)omni.job.rank, .src = (uint32_t)src,
                     .comm = f.comm, .tag = f.tag, .len = RT_LARGE_BODY,
                     .meta = rt_meta(RT_LARGE, key)};
    rt_hdr_write(item, &h);
    uint64_t size = (uint64_t)bytes;
    memcpy(item + RT_HDR_SIZE, &size, sizeof size);
    const char *at = item;
    omni_block *b = transport_hold_copy(&at, sizeof item);
    env_deliver(&h, at + RT_HDR_SIZE, b);
    transport_block_unref(b);
}

int env_take_due(int src, uint32_t count)
{
    const omni_envelopes *e = &omni.eng.env;
    int p = omni.job.hop_slot[src];
    while ((e->taken[p] & RT_META_MAX) != count) {
        int flag = 0;
        MPI_Status st;
        PMPI_Iprobe(src, MPI_ANY_TAG, omni.job.wire_comm, &flag, &st);
        if (!flag || !env_next(&st))
            return 0;
        env_take(&st);
    }
    return 1;
}

int env_poll(void)
{
    /* Behind a parked block a link's processed blocks lag by more than
     * the posted receives, and a tag's count of blocks modulo EV_SEQ_MOD
     * could read as in order when it is not: the marks take what is due
     * meanwhile (deliver.c). */
    if (omni.eng.env.parked)
        return 1;
    unsigned long done = omni.eng.payloads_done;
    for (int i = 0; i < ENV_POLL_TAKES; i++) {
        int flag = 0;
        MPI_Status st;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, omni.job.wire_comm, &flag,
                    &st);
        if (!flag || !env_next(&st))
            break;
        env_take(&st);
        /* A receive is complete, which the program may be waiting for:
         * one more probe would turn the engine of the MPI underneath
         * before its wait can see it. */
        if (omni.eng.payloads_done != done)
            break;
    }
    return 1;
}

void env_add_poller(void)
{
    omni.eng.env.poller = prog_add_poller(env_poll, 0);
}
