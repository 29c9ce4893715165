#include "shim/engine/deliver.h"
#include "shim/transport/transport.h"
#include "shim/engine/recv.h"
#include "shim/engine/send.h"
#include "shim/progress/credit.h"
#include "shim/engine/rndv.h"
#include "shim/engine/envelope.h"
#include "shim/progress/progress.h"
#include <string.h>

/* Next hops that an urgent forwarded item must flush, collected while a
 * block is parsed and shipped at its end, so that a block's worth of them
 * still travels together. */
typedef struct {
    int peers[8];
    int n, overflow;
} urgent_set;

static void urgent_note(urgent_set *u, uint32_t dst)
{
    int p = omni.job.hop_slot[dst];
    if (u->n < 8)
        u->peers[u->n++] = p;
    else
        u->overflow = 1;
}

/* Inline: almost every block asks for nothing, and a call to find that
 * out cost a lone message more than the test. */
static inline void urgent_ship(const urgent_set *u)
{
    if (!u->n && !u->overflow)
        return;
    if (u->overflow)
        transport_flush_all(&omni.stats.flush_urgent);
    else
        for (int i = 0; i < u->n; i++)
            transport_ship(u->peers[i], &omni.stats.flush_urgent);
}

/* A message for this rank (or a large message's header), matched or
 * queued; with b NULL only if a posted receive takes it at once, and 0
 * returned otherwise. */
static inline int deliver_message(const rt_item_hdr *h, const char *body,
                                  omni_block *b)
{
    if (!b)
        return recv_arrived_if_taken(h, body);
    recv_arrived(h, body, b);
    return 1;
}

/* One item at `at`: delivered here or appended to its next hop's buffer;
 * returns its size.  With b NULL the bytes are not ours to keep
 * (deliver_in_place): then a message that would have to wait in the
 * unexpected queue, which points into a block, is left untouched and 0
 * returned. */
static inline __attribute__((always_inline)) uint32_t
deliver_item(const char *at, omni_block *b, urgent_set *u)
{
    rt_item_hdr h;
    rt_hdr_read(at, &h);
    const char *body = at + RT_HDR_SIZE;
    uint32_t size = rt_item_size(&h);
    if ((int)h.dst != omni.job.rank) {
        char *copy = transport_reserve_forward((int)h.dst, size);
        memcpy(copy, at, size);
        omni.stats.forwarded_items++;
        enum rt_kind kind = rt_meta_kind(h.meta);
        if (rt_kind_is_urgent(kind)) {
            urgent_note(u, h.dst);
            if (rt_kind_is_control(kind)) {
                omni.stats.forwarded_control++;
                credit_relaying(copy, &h);
            }
        }
        return size;
    }
    switch (rt_meta_kind(h.meta)) {
    case RT_ACK:
        send_sync_acked(rt_meta_value(h.meta));
        break;
    case RT_CREDIT:
        credit_returned(h.src, rt_meta_value(h.meta));
        break;
    case RT_STALL:
        credit_stalled(h.src, rt_meta_value(h.meta), (uint32_t)h.tag);
        break;
    case RT_GRANT:
        credit_granted(h.src, rt_meta_value(h.meta), (uint32_t)h.tag);
        break;
    case RT_REFUSED:
        credit_refused(h.src);
        break;
    case RT_RECLAIM:
        credit_reclaimed(h.src, rt_meta_value(h.meta));
        break;
    case RT_RELEASE:
        credit_released(h.src, rt_meta_value(h.meta), h.tag);
        break;
    case RT_HOLD:
        credit_held(h.src);
        break;
    case RT_CTS:
        rndv_clear_to_send(rt_meta_value(h.meta), body);
        break;
    case RT_RNDV_DATA:
        recv_rndv_data(rt_meta_value(h.meta), body, h.len);
        break;
    case RT_LARGE:
        if (h.len == 0) /* a link's mark, already honoured (deliver_block) */
            return size;
        /* fall through */
    case RT_LARGE_SYNC:
        env_heard_header((int)h.src);
        if (!deliver_message(&h, body, b))
            return 0;
        break;
    case RT_EAGER:
        if (b) {
            uint32_t items;
            size = (uint32_t)recv_arrived_eager(&h, at, b, &items);
            omni.stats.delivered += items;
            return size;
        }
        /* fall through */
    default:
        if (!deliver_message(&h, body, b))
            return 0;
    }
    omni.stats.delivered++;
    return size;
}

/* Whether wire block b may be processed now: it does not start with a
 * link's mark (a LARGE item with no body, which a block of its own
 * carries), or the messages the mark counts have been taken in
 * (envelope.h). */
static int deliver_mark_met(const omni_block *b)
{
    rt_item_hdr h;
    if (b->len < RT_HDR_SIZE)
        return 1;
    rt_hdr_read(b->data, &h);
    return rt_meta_kind(h.meta) != RT_LARGE || h.len != 0 ||
           env_take_due(b->from, rt_meta_value(h.meta));
}

static void deliver_items(omni_block *b)
{
    urgent_set u = {.n = 0, .overflow = 0};
    b->refs++; /* held while parsing, so delivery cannot free it under us */
    for (size_t at = 0; at < b->len;)
        at += deliver_item(b->data + at, b, &u);
    if (b->from >= 0)
        env_block_done(b->from);
    transport_block_unref(b);
    urgent_ship(&u);
}

/* A wire block behind a mark not yet met waits, and every wire block
 * after it, in arrival order: a link's blocks are processed in the order
 * sent, and the posted wire receives mix the links. */
static void deliver_park(omni_block *b)
{
    omni_envelopes *e = &omni.eng.env;
    b->refs++;
    b->next = NULL;
    if (e->parked)
        e->parked_tail->next = b;
    else
        e->parked = b;
    e->parked_tail = b;
    prog_has_work(omni.eng.parked_poller);
}

void deliver_block(omni_block *b)
{
    if (b->from >= 0 &&
        (omni.eng.env.parked || !deliver_mark_met(b))) {
        deliver_park(b);
        return;
    }
    deliver_items(b);
}

void deliver_header(const rt_item_hdr *h, const char *body, omni_block *b)
{
    recv_arrived(h, body, b);
    omni.stats.delivered++;
}

static int deliver_poll_parked(void);

void deliver_add_poller(void)
{
    omni.eng.parked_poller = prog_add_poller(deliver_poll_parked, 0);
}

static int deliver_poll_parked(void)
{
    omni_envelopes *e = &omni.eng.env;
    while (e->parked && deliver_mark_met(e->parked)) {
        omni_block *b = e->parked;
        e->parked = b->next;
        deliver_items(b);
        transport_block_unref(b); /* the reference parking took */
    }
    return e->parked != NULL;
}

size_t deliver_in_place(const char *data, size_t len)
{
    urgent_set u = {.n = 0, .overflow = 0};
    size_t at = 0;
    for (uint32_t size = 1; at < len && size; at += size)
        size = deliver_item(data + at, NULL, &u);
    urgent_ship(&u);
    return at;
}
