#include "shim/engine/send.h"
#include "shim/transport/transport.h"
#include "shim/progress/credit.h"
#include "shim/progress/progress.h"
#include "shim/engine/request.h"
#include "shim/base/dtype.h"
#include "shim/engine/preq.h"
#include "shim/engine/rndv.h"
#include "shim/engine/envelope.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include "router/ring.h"
#include <stdint.h>
#include <stdlib.h>

/* A synchronous send waiting for its ACK; ids are slot indices, recycled
 * through a free list threaded by `next_free`. */
typedef struct sync_slot {
    int next_free;
    int done;
    MPI_Request greq;   /* MPI_REQUEST_NULL for a blocking MPI_Ssend */
} sync_slot;

static uint32_t sync_slot_get(void)
{
    if (omni.eng.sync_free < 0) {
        int cap = omni.eng.sync_cap ? omni.eng.sync_cap * 2 : 64;
        sync_slot *s = realloc(omni.eng.sync, sizeof *s * (size_t)cap);
        if (!s || (uint32_t)cap > RT_META_MAX)
            omni_out_of_memory("a synchronous-send slot");
        for (int i = omni.eng.sync_cap; i < cap; i++)
            s[i].next_free = i + 1 < cap ? i + 1 : -1;
        omni.eng.sync_free = omni.eng.sync_cap;
        omni.eng.sync = s;
        omni.eng.sync_cap = cap;
    }
    uint32_t id = (uint32_t)omni.eng.sync_free;
    omni.eng.sync_free = omni.eng.sync[id].next_free;
    omni.eng.sync[id].done = 0;
    omni.eng.sync[id].greq = MPI_REQUEST_NULL;
    return id;
}

static void sync_slot_put(uint32_t id)
{
    omni.eng.sync[id].next_free = omni.eng.sync_free;
    omni.eng.sync_free = (int)id;
}

void send_sync_acked(uint32_t id)
{
    sync_slot *s = &omni.eng.sync[id];
    s->done = 1;
    if (s->greq != MPI_REQUEST_NULL) {
        MPI_Request greq = s->greq;
        sync_slot_put(id);
        PMPI_Grequest_complete(greq);
    }
}

void send_ack(uint32_t src_world, uint32_t id)
{
    rt_item_hdr h = {.dst = src_world, .src = (uint32_t)omni.job.rank, .comm = 0,
                     .tag = 0, .len = 0, .meta = rt_meta(RT_ACK, id)};
    rt_hdr_write(transport_reserve((int)src_world, RT_HDR_SIZE), &h);
    omni.stats.acks_sent++;
    transport_push_soon((int)src_world);
}

/* A send whose arguments MPI rejects (send_args_valid) goes to the MPI
 * underneath, which reports the error exactly as MPI defines it (and sends
 * nothing). */
static int send_rejected(const void *buf, MPI_Count count, MPI_Datatype dtype,
                         int dest, int tag, comm_rec *c, MPI_Request *req)
{
    if (req)
        return omni_Isend_c(buf, count, dtype, dest, tag, c->handle, req);
    return omni_Send_c(buf, count, dtype, dest, tag, c->handle);
}

/* Writes an eager item, header and data, at `at`; returns MPI_SUCCESS or
 * the error packing the data gave. */
static inline int item_write(char *at, const void *buf, MPI_Count count,
                             MPI_Datatype dtype, int builtin, uint32_t bytes,
                             int dst, int tag, comm_rec *c, uint32_t meta)
{
    if (builtin) {
        send_item_write_builtin(at, buf, bytes, dst, tag, c, meta);
        return MPI_SUCCESS;
    }
    send_item_hdr_write(at, bytes, dst, tag, c, meta);
    if (bytes == 0)
        return MPI_SUCCESS;
    MPI_Count pos = 0;
    return dtype_pack(buf, count, dtype, at + RT_HDR_SIZE, bytes, &pos);
}

/* Copies a message of `bytes` (<= threshold) into its next hop's buffer,
 * within its pair's window (credit.h).  Returns 1 when it went, 0 when the
 * window is full (nothing was sent: the caller takes the underlying MPI's
 * path), or -1 with *rc set when packing the data failed (nothing was sent
 * either).  Forced inline: it is most of every small send. */
static inline __attribute__((always_inline)) int
send_eager(const void *buf, MPI_Count count, MPI_Datatype dtype, int builtin,
           uint32_t bytes, int dst, int tag, comm_rec *c, uint32_t meta,
           int *rc)
{
    uint32_t size = RT_HDR_SIZE + bytes;
    if (!credit_try_take(dst, size))
        return 0;
    char *at = transport_reserve(dst, size);
    *rc = item_write(at, buf, count, dtype, builtin, bytes, dst, tag, c, meta);
    if (*rc != MPI_SUCCESS) {
        transport_unreserve(dst, size);
        credit_refund(dst, size);
        return -1;
    }
    omni.eng.sent_to[dst]++;
    return 1;
}

/* Whether a send goes by single-copy read (rndv.h) to a rank of the node
 * that can read this rank's memory: its receiver copies it once, straight
 * from the sender's buffer, where a node ring copies twice.  A
 * nonblocking or synchronous one from the crossover read_from
 * (omni.tx.paths).  A blocking standard send waits for its receiver on
 * this path (unless the receiver reads it early, within its pool), so it
 * takes it only where the underlying MPI's own MPI_Send would have waited
 * too, from under_wait_from (probed at MPI_Init), and where the ring is
 * not its path (`path`, send_blocking_path: PA_APART; -1 when it does not
 * fit a ring record); or when it is too large for a ring record.  Below,
 * what the ring does not take goes as header and payload, and the MPI
 * underneath decides whether it waits (docs/design/transport.md,
 * Single-copy reads). */
static inline int send_by_read_ok(MPI_Count bytes, int builtin, int dst,
                                  enum send_mode mode, int blocking, int path)
{
    const uint64_t *at = omni.tx.paths.at;
    if (!builtin || !omni.tx.read_pid || !omni.tx.read_pid[dst] ||
        omni.job.route_len[dst] != 1)
        return 0;
    if (mode == SEND_SYNC || (mode == SEND_STANDARD && !blocking))
        return (uint64_t)bytes >= at[OMNI_CX_read_from];
    return mode == SEND_STANDARD &&
           (!transport_ring_fits(dst, (size_t)bytes) ||
            ((uint64_t)bytes >= at[OMNI_CX_under_wait_from] &&
             path == PA_APART));
}

/* Whether a pair's blocking standard sends of `bytes` learn what the
 * crossover cx decides for them (router/learn.h): not where a setting
 * pinned it, under OMNIBUS_PATHS=default or OMNIBUS_LEARN=off, nor on a
 * crowded node: with more ranks than cores the time between sends is the
 * scheduler's, as it is for the timing at MPI_Init (calib.h); nor, for
 * wire_alone_max, above TRANSPORT_WIRE_TRIAL_MAX, where a trial of the
 * alone path would slow the pair's sockets for good.
 * OMNIBUS_LEARN=alternate learns everywhere, taking the two ways in
 * turns. */
static int send_learns(enum omni_crossover cx, MPI_Count bytes)
{
    const cfg_settings *cfg = &omni.job.cfg;
    if (cfg->learn != CFG_LEARN_ON)
        return cfg->learn == CFG_LEARN_ALTERNATE;
    return cfg->paths == CFG_PATHS_MEASURED && !omni.job.crowded &&
           omni.tx.paths.source[cx] != PA_SET &&
           (cx != OMNI_CX_wire_alone_max ||
            bytes <= TRANSPORT_WIRE_TRIAL_MAX);
}

/* The way of the lane (dst, size class of `bytes`) in table t, started
 * from `prior`. */
static int send_lane_pick(ln_table *t, int dst, MPI_Count bytes, int prior)
{
    return ln_pick(t, ln_lane_of(t, dst, ln_class((uint64_t)bytes), prior),
                   omni_now_ns());
}

/* The path of a blocking standard send of `bytes` above the threshold to
 * dst that fits both (transport_alone_fits): learned by its pair while the
 * job runs, starting from the crossover in force (send_learns says
 * where).  Either path waits only where the MPI underneath's own
 * send would (send_by_read_ok), and the receiver takes either in its
 * place in the pair's order, so the choice changes the time a send takes,
 * nothing a program can see (docs/design/transport.md, Learning a pair's
 * path while the job runs). */
static enum pa_path send_blocking_path(int dst, MPI_Count bytes)
{
    enum pa_path prior = transport_alone_by_crossover(dst, (size_t)bytes)
                             ? PA_ALONE
                             : PA_APART;
    if (!send_learns(transport_blocking_crossover(dst), bytes))
        return prior;
    return (enum pa_path)send_lane_pick(&omni.eng.lanes, dst, bytes, prior);
}

/* The two ways of a lane of omni.eng.header_lanes. */
enum { SEND_BARE, SEND_WITH_HEADER };

/* Whether a standard send of `bytes` to dst that can go without a header
 * (env_possible) does: up to the crossover envelope_max, with a header
 * above.  A blocking one too large for a block, which has no alone path
 * to learn, has the choice learned by its pair instead, starting from
 * envelope_max: which of the two costs less over a network is the
 * network's and its MPI's (a 1 MiB ping-pong over TCP loopback took a
 * third longer without a header on one machine and was no slower on
 * another; docs/design/transport.md, Messages whose envelope is their
 * header).  The receiver takes either in its place in the pair's order. */
static int send_goes_bare(int dst, MPI_Count bytes, int blocking)
{
    int prior = (uint64_t)bytes <= omni.tx.paths.at[OMNI_CX_envelope_max]
                    ? SEND_BARE
                    : SEND_WITH_HEADER;
    if (!blocking || transport_alone_fits(dst, (size_t)bytes, 1) ||
        !send_learns(OMNI_CX_envelope_max, bytes))
        return prior == SEND_BARE;
    return send_lane_pick(&omni.eng.header_lanes, dst, bytes, prior) ==
           SEND_BARE;
}

/* item_write for a blocking send's item of a builtin datatype that
 * rg_reserve placed in a node ring: the bytes that share the line its
 * consumer polls go last (rg_polled_bytes), so that the line moves to a
 * consumer waiting for it once, with the commit, and not also in the
 * middle of the copy.  On an Intel Xeon VM a 1 KiB ping-pong over shared
 * memory took 0.551 us so, 0.601 written front to back; but osu_bw's
 * window of 1 KiB nonblocking sends, whose consumer reads the records
 * before it, ran 10% slower so, and nonblocking sends keep the front to
 * back order (bench/results/log.md, 2026-12-05, a blocking send's record
 * with its polled line last).  Returns MPI_SUCCESS, as item_write.  Out
 * of line: inlined into send_alone it moved the library's hot code, and
 * the 8-byte stream over shared memory, which never calls it, ran 7%
 * slower on that VM. */
static __attribute__((noinline)) int
item_write_in_ring(char *at, const void *buf, uint32_t bytes, int dst,
                   int tag, comm_rec *c)
{
    uint32_t size = RT_HDR_SIZE + bytes, split = rg_polled_bytes(at);
    if (size <= RG_LAST_LINE_FROM || split >= size) {
        send_item_write_builtin(at, buf, bytes, dst, tag, c,
                                rt_meta(RT_EAGER, 0));
        return MPI_SUCCESS;
    }
    if (split < RT_HDR_SIZE)
        split = RT_HDR_SIZE;
    uint32_t early = split - RT_HDR_SIZE;
    transport_copy(at + split, (const char *)buf + early, bytes - early);
    send_item_hdr_write(at, bytes, dst, tag, c, rt_meta(RT_EAGER, 0));
    transport_copy(at + RT_HDR_SIZE, buf, early);
    return MPI_SUCCESS;
}

/* A message above the threshold to a peer that is its own next hop
 * (transport_alone_ok): one eager item alone in a block or ring record of
 * its own, so the threshold still bounds what is aggregated; written
 * straight into a node ring when it has room, saving the copy through a
 * block (docs/design/transport.md, Messages above the threshold).
 * Returns as send_eager does. */
static int send_alone(const void *buf, MPI_Count count, MPI_Datatype dtype,
                      int builtin, uint32_t bytes, int dst, int tag,
                      comm_rec *c, int blocking, int *rc)
{
    uint32_t size = RT_HDR_SIZE + bytes;
    if (!credit_try_take(dst, size))
        return 0;
    int ring = transport_by_ring(dst);
    char *at = ring ? transport_ring_reserve(dst, size) : NULL;
    omni_block *b = at ? NULL : transport_block_for_item(dst, size);
    *rc = at && builtin && blocking
              ? item_write_in_ring(at, buf, bytes, dst, tag, c)
              : item_write(at ? at : b->data, buf, count, dtype, builtin,
                           bytes, dst, tag, c, rt_meta(RT_EAGER, 0));
    if (*rc != MPI_SUCCESS) {
        if (b)
            transport_block_drop(b);
        credit_refund(dst, size);
        return -1;
    }
    if (b) {
        transport_ship_block(dst, b);
    } else {
        transport_ring_commit(dst, size);
        omni.stats.ring_in_place++;
    }
    omni.eng.sent_to[dst]++;
    if (ring)
        omni.stats.ring_alone++;
    else
        omni.stats.wire_alone++;
    return 1;
}

/* A buffered send's payload that Omnibus holds until the MPI underneath has
 * sent it. */
typedef struct bsend_copy {
    struct bsend_copy *next;
    MPI_Request req;
    void *data;
    MPI_Count charge;   /* bytes it takes from the attached buffer */
} bsend_copy;

/* Buffered large payloads are copied and sent by Omnibus, not by the
 * underlying MPI's MPI_Bsend: the underlying MPI's MPI_Buffer_detach would
 * block, without Omnibus progress, until the payload is sent, and the payload
 * waits for its header, which may need a relay that is itself in
 * MPI_Buffer_detach.  The copy is charged against the attached size, as
 * MPI_Bsend would. */
static int send_bsend_payload(const void *buf, MPI_Count count,
                              MPI_Datatype dtype, int dst, uint32_t ptag,
                              comm_rec *c)
{
    MPI_Count packed = 0, pos = 0;
    int rc = omni_Pack_size_c(count, dtype, c->handle, &packed);
    if (rc != MPI_SUCCESS)
        return omni_raise(c->handle, rc);
    bsend_copy *b = malloc(sizeof *b);
    void *data = malloc(packed > 0 ? (size_t)packed : 1);
    if (!b || !data)
        omni_out_of_memory("a buffered send");
    rc = dtype_pack(buf, count, dtype, data, packed, &pos);
    b->data = data;
    b->charge = packed + MPI_BSEND_OVERHEAD;
    if (rc == MPI_SUCCESS)
        rc = omni_Isend_c(data, pos, MPI_PACKED, dst, (int)ptag,
                          omni.job.payload_comm, &b->req);
    if (rc != MPI_SUCCESS) {
        free(data);
        free(b);
        return omni_raise(c->handle, rc);
    }
    omni.eng.bsend_used += (size_t)b->charge;
    b->next = omni.eng.bsends;
    omni.eng.bsends = b;
    prog_has_work(omni.eng.bsend_poller);
    return MPI_SUCCESS;
}

/* Returns whether any buffered-send payload is left. */
static int send_poll_bsends(void)
{
    bsend_copy **link = (bsend_copy **)&omni.eng.bsends;
    while (*link) {
        bsend_copy *b = *link;
        int done = 0;
        prog_test(&b->req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            link = &b->next;
            continue;
        }
        *link = b->next;
        omni.eng.bsend_used -= (size_t)b->charge;
        free(b->data);
        free(b);
    }
    return omni.eng.bsends != NULL;
}

/* A message above the threshold: a LARGE header along the ordered route and
 * the payload straight to the destination under a tag of its own, which the
 * receiver posts once the header has matched.  The MPI underneath chooses how
 * to carry the payload (eager or rendezvous), so the send waits for the
 * receiver exactly where the MPI underneath itself would.  The payload is
 * started first, so a payload the MPI underneath refuses leaves no header
 * behind that nothing would follow. */
static int send_large(const void *buf, MPI_Count count, MPI_Datatype dtype,
                      MPI_Count bytes, int dst, int tag, comm_rec *c,
                      enum send_mode mode, MPI_Request *req, int user_req,
                      int blocking)
{
    if (mode == SEND_STANDARD && env_possible(dst, tag, c) &&
        send_goes_bare(dst, bytes, blocking))
        return env_send(buf, count, dtype, dst, tag, c, req, user_req);
    uint32_t ptag = omni.eng.next_payload_tag;
    omni.eng.next_payload_tag =
        ptag >= (uint32_t)omni.job.payload_tag_max ? 0 : ptag + 1;
    MPI_Request preq = MPI_REQUEST_NULL;
    int rc;
    if (mode == SEND_BUFFERED)
        rc = send_bsend_payload(buf, count, dtype, dst, ptag, c);
    else if (mode == SEND_SYNC)
        rc = omni_Issend_c(buf, count, dtype, dst, (int)ptag,
                           omni.eng.inbox.sync_comm, &preq);
    else
        rc = omni_Isend_c(buf, count, dtype, dst, (int)ptag, omni.job.payload_comm,
                          &preq);
    if (rc != MPI_SUCCESS)
        return mode == SEND_BUFFERED ? rc : omni_raise(c->handle, rc);

    rt_item_hdr h = {.dst = (uint32_t)dst, .src = (uint32_t)omni.job.rank,
                     .comm = c->id, .tag = tag, .len = RT_LARGE_BODY,
                     .meta = rt_meta(mode == SEND_SYNC ? RT_LARGE_SYNC
                                                       : RT_LARGE,
                                     ptag)};
    char *at = transport_reserve(dst, RT_HDR_SIZE + RT_LARGE_BODY);
    rt_hdr_write(at, &h);
    uint64_t size = (uint64_t)bytes;
    memcpy(at + RT_HDR_SIZE, &size, sizeof size);
    omni.eng.sent_to[dst]++;
    omni.stats.direct_sends++;
    env_sent_header(dst);
    /* Not pushed: a blocking send flushes before it waits, and a burst of
     * nonblocking ones aggregates its headers like any other items. */

    if (mode == SEND_BUFFERED)
        return req ? request_complete_send(c->handle, req) : MPI_SUCCESS;
    if (req) {
        *req = user_req ? preq_wrap_send(preq, c->handle) : preq;
        return MPI_SUCCESS;
    }
    return prog_wait(&preq, MPI_STATUS_IGNORE);
}

/* A synchronous send copied into the buffers: its item asks for an ACK,
 * and the send is complete once the ACK is back.  Returns as send_eager;
 * on 1, *rc is the send's result. */
static int send_sync_eager(const void *buf, MPI_Count count,
                           MPI_Datatype dtype, int builtin, uint32_t bytes,
                           int dst, int tag, comm_rec *c, MPI_Request *req,
                           int *rc)
{
    uint32_t id = sync_slot_get();
    int went = send_eager(buf, count, dtype, builtin, bytes, dst, tag, c,
                          rt_meta(RT_EAGER_SYNC, id), rc);
    if (went != 1) {
        sync_slot_put(id);
        return went;
    }
    *rc = MPI_SUCCESS;
    if (req) {
        /* Nobody waits on the item until the request is waited on, which
         * flushes: a burst of MPI_Issend aggregates like any other. */
        omni.eng.sync[id].greq = request_start_sync(id);
        *req = omni.eng.sync[id].greq;
        return 1;
    }
    unsigned spins = 0;
    while (!omni.eng.sync[id].done)
        prog_wait_step(&spins);
    sync_slot_put(id);
    return 1;
}

/* A send whose data is copied is complete: its request, if it has one. */
static inline int send_copied(comm_rec *c, MPI_Request *req, int user_req)
{
    if (!req)
        return MPI_SUCCESS;
    return user_req ? request_give_sent(req)
                    : request_complete_send(c->handle, req);
}

/* A message that does not fit its pair's window (credit.h).  A blocking
 * standard send (MPI_Send, and the send half of MPI_Sendrecv) waits for
 * credit while its receiver consumes (credit_wait) and is then copied like
 * any other; a receiver that is not consuming (it answered REFUSED, or is
 * silent) gets what plain MPI would have sent it: the header along the
 * ordered route, so order and wildcards hold, the payload to the MPI
 * underneath, and the send returns when the MPI underneath says the buffer is
 * free.  The MPI underneath buffers a small payload eagerly at the receiver
 * exactly as it would without Omnibus, so a program that sends before it
 * receives, unsafe but run by every MPI, never waits for a receive under
 * Omnibus that the MPI underneath would not have waited for; a large payload
 * waits for its receive where the underlying MPI's rendezvous would.  Every
 * other send, a nonblocking or persistent one whose request lets the program
 * go on, or a synchronous or ready one, asks for more window without waiting
 * (credit_stall) and goes by rendezvous (rndv.h), so that Omnibus never hands
 * the MPI underneath an unbounded volume of unreceived messages the program
 * has not asked to block on.  Returns as send_dispatch. */
static int send_past_window(const void *buf, MPI_Count count,
                            MPI_Datatype dtype, int builtin, MPI_Count bytes,
                            int dst, int tag, comm_rec *c, enum send_mode mode,
                            MPI_Request *req, int blocking)
{
    uint32_t size = RT_HDR_SIZE + (uint32_t)bytes;
    if (!blocking || mode != SEND_STANDARD) {
        credit_stall(dst, size);
        return rndv_start(buf, count, dtype, bytes, dst, tag, c, mode, req);
    }
    if (credit_wait(dst, size)) {
        int rc = MPI_SUCCESS;
        int went = send_eager(buf, count, dtype, builtin, (uint32_t)bytes,
                              dst, tag, c, rt_meta(RT_EAGER, 0), &rc);
        if (went < 0)
            return omni_raise(c->handle, rc);
        if (went > 0)
            return send_copied(c, req, 0);
    }
    omni.stats.window_fallbacks++;
    return send_large(buf, count, dtype, bytes, dst, tag, c, mode, req, 0,
                      blocking);
}

/* A message above the threshold that could go alone (send_alone) but does
 * not fit its pair's window: a blocking standard send waits for credit as
 * a small one does (send_past_window); failing that, and for any other
 * send, it goes as header and payload through the MPI underneath (send_large),
 * which takes no window.  Returns as send_alone; 0 means send_large's turn. */
static int send_alone_past_window(const void *buf, MPI_Count count,
                                  MPI_Datatype dtype, int builtin,
                                  uint32_t bytes, int dst, int tag,
                                  comm_rec *c, enum send_mode mode,
                                  int blocking, int *rc)
{
    uint32_t size = RT_HDR_SIZE + bytes;
    if (!blocking || mode != SEND_STANDARD) {
        credit_stall(dst, size);
        return 0;
    }
    if (credit_wait(dst, size))
        return send_alone(buf, count, dtype, builtin, bytes, dst, tag, c, 1,
                          rc);
    omni.stats.window_fallbacks++;
    return 0;
}

/* Inlined into every entry point: send_start is every user send's path, and
 * user_req only matters on the underlying MPI's path.  `blocking` says the
 * caller waits for the send before it returns to the program (req is then
 * NULL, or the caller's own).  No branch waits for the receiver except where
 * MPI lets the call wait: a blocking send until its data is on its way (the
 * underlying MPI's own criterion on its path), a synchronous one until it is
 * matched. */
static inline __attribute__((always_inline)) int
send_dispatch(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
              int tag, comm_rec *c, enum send_mode mode, MPI_Request *req,
              int user_req, int blocking)
{
    if (dest == MPI_PROC_NULL)
        return req ? PMPI_Isend(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, c->handle,
                                req)
                   : MPI_SUCCESS;
    int builtin = dtype_builtin_size(dtype);
    MPI_Count esize = builtin ? builtin : dtype_size(dtype);
    if (esize < 0 || !send_args_valid(count, dest, tag, c))
        return send_rejected(buf, count, dtype, dest, tag, c, req);
    int dst = comm_to_world(c, dest);
    MPI_Count bytes = esize * count;
    if (mode == SEND_BUFFERED &&
        (MPI_Count)(omni.eng.bsend_size - omni.eng.bsend_used) <
            bytes + MPI_BSEND_OVERHEAD)
        /* No room left in the attached buffer: MPI refuses the send
         * (MPI_ERR_BUFFER through the communicator) and nothing is sent. */
        return omni_raise(c->handle, MPI_ERR_BUFFER);
    int rc = MPI_SUCCESS;
    if ((size_t)bytes > omni.job.threshold) {
        /* a blocking standard send that fits both paths has one chosen
         * for it; every other send follows the crossovers (-1) */
        int path = mode == SEND_STANDARD && blocking &&
                           transport_alone_fits(dst, (size_t)bytes, 1)
                       ? (int)send_blocking_path(dst, bytes)
                       : -1;
        int alone = path >= 0 ? path == PA_ALONE
                              : mode != SEND_SYNC &&
                                    transport_alone_ok(dst, (size_t)bytes,
                                                       blocking);
        if (send_by_read_ok(bytes, builtin, dst, mode, blocking, path))
            return rndv_start_read(buf, bytes, dst, tag, c, mode, req);
        int went = alone
                       ? send_alone(buf, count, dtype, builtin, (uint32_t)bytes,
                                    dst, tag, c, blocking, &rc)
                       : 0;
        if (alone && went == 0)
            went = send_alone_past_window(buf, count, dtype, builtin,
                                          (uint32_t)bytes, dst, tag, c, mode,
                                          blocking, &rc);
        if (went < 0)
            return omni_raise(c->handle, rc);
        if (went == 0)
            return send_large(buf, count, dtype, bytes, dst, tag, c, mode,
                              req, user_req, blocking);
        return send_copied(c, req, user_req);
    }
    int went = mode == SEND_SYNC
                   ? send_sync_eager(buf, count, dtype, builtin,
                                     (uint32_t)bytes, dst, tag, c, req, &rc)
                   : send_eager(buf, count, dtype, builtin, (uint32_t)bytes,
                                dst, tag, c, rt_meta(RT_EAGER, 0), &rc);
    if (went < 0)
        return omni_raise(c->handle, rc);
    if (went == 0)
        return send_past_window(buf, count, dtype, builtin, bytes, dst, tag,
                                c, mode, req, blocking);
    if (mode == SEND_SYNC)
        return rc;
    return send_copied(c, req, user_req);
}

__attribute__((noinline)) int
send_small_opening(const void *buf, uint32_t size, int dst, int tag,
                   comm_rec *c)
{
    credit_take(dst, size);
    send_small_put(transport_reserve_past_fill(dst, size), buf, size, dst, tag,
                   c);
    return MPI_SUCCESS;
}

int send_start_general(const void *buf, MPI_Count count, MPI_Datatype dtype,
                       int dest, int tag, comm_rec *c, enum send_mode mode,
                       MPI_Request *req)
{
    return send_dispatch(buf, count, dtype, dest, tag, c, mode, req, 1,
                         req == NULL);
}

int send_start_inner(const void *buf, MPI_Count count, MPI_Datatype dtype,
                     int dest, int tag, comm_rec *c, enum send_mode mode,
                     MPI_Request *req)
{
    return send_dispatch(buf, count, dtype, dest, tag, c, mode, req, 0, 0);
}

int send_start_blocking_half(const void *buf, MPI_Count count,
                             MPI_Datatype dtype, int dest, int tag,
                             comm_rec *c, MPI_Request *req)
{
    return send_dispatch(buf, count, dtype, dest, tag, c, SEND_STANDARD, req,
                         0, 1);
}

int send_init(void)
{
    omni.eng.sync = NULL;
    omni.eng.sync_cap = 0;
    omni.eng.sync_free = -1;
    omni.eng.sent_to = calloc((size_t)omni.job.size, sizeof *omni.eng.sent_to);
    enum ln_mode learn = omni.job.cfg.learn == CFG_LEARN_ALTERNATE
                             ? LN_ALTERNATE
                             : LN_LEARN;
    ln_init(&omni.eng.lanes, learn);
    ln_init(&omni.eng.header_lanes, learn);
    return omni.eng.sent_to ? 0 : -1;
}

void send_finalize(void)
{
    free(omni.eng.sync);
    omni.eng.sync = NULL;
    free(omni.eng.sent_to);
    omni.eng.sent_to = NULL;
}

/* --- the buffered-send buffer ------------------------------------------ */

/* Omnibus copies every buffered send at once (small ones into its blocks,
 * large payloads aside until sent), so the attached buffer is an account:
 * a send that does not fit what is left of it gets MPI_ERR_BUFFER. */
int impl_Buffer_attach(void *buffer, MPI_Count size)
{
    int rc = omni_Buffer_attach_c(buffer, size);
    if (rc == MPI_SUCCESS)
        omni.eng.bsend_size = (size_t)size;
    return rc;
}

/* Detach returns once buffered messages are on their way: the small ones
 * go now; the copies Omnibus holds (large payloads, and rendezvous sends
 * whose receiver has not matched yet) are waited for with progress. */
static void bsends_drain(void)
{
    prog_block_enter(); /* for PMPI_Buffer_detach too, which may wait */
    unsigned spins = 0;
    while (omni.eng.bsends || rndv_bsends_pending())
        prog_wait_step(&spins);
}

int impl_Buffer_detach(void *buffer_addr, int *size)
{
    bsends_drain();
    int rc = PMPI_Buffer_detach(buffer_addr, size);
    if (rc == MPI_SUCCESS)
        omni.eng.bsend_size = 0;
    return rc;
}

int impl_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    bsends_drain();
    int rc = omni_Buffer_detach_c(buffer_addr, size);
    if (rc == MPI_SUCCESS)
        omni.eng.bsend_size = 0;
    return rc;
}

void send_add_poller(void)
{
    omni.eng.bsend_poller = prog_add_poller(send_poll_bsends, 0);
}
