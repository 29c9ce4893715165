#include "shim/transport/transport.h"
#include "router/envelope.h"
#include "shim/transport/shm.h"
#include "router/evict.h"
#include "router/flow.h"
#include "router/pool.h"
#include "shim/base/fail.h"
#include "shim/base/pending.h"
#include <stdio.h>
#include <stdlib.h>

/* The memory bound, and the pool it leaves, count this many. */
#define RX_SLOTS PO_RX_BLOCKS
/* A message sent without a header names the blocks before it on its link
 * modulo EV_SEQ_MOD, which is exact only while fewer blocks than that can
 * have been matched and not yet processed (router/envelope.h). */
_Static_assert(EV_SEQ_MOD > RX_SLOTS,
               "the block count of a link must outrun the posted receives");
#define INFLIGHT_INITIAL 64

static void bytes_out_add(size_t n)
{
    omni.tx.bytes_out += n;
    if (omni.tx.bytes_out > omni.stats.peak_bytes)
        omni.stats.peak_bytes = omni.tx.bytes_out;
}

static size_t block_alloc_size(int cls)
{
    return sizeof(omni_block) + transport_class_room(cls);
}

static __attribute__((noinline)) omni_block *block_new(int cls)
{
    omni_block *b = malloc(block_alloc_size(cls));
    if (!b)
        omni_out_of_memory("a buffer block");
    return b;
}

/* Inline: a ping-pong's every send opens a buffer, and a free one is
 * almost always at hand. */
static inline omni_block *block_of_class(int cls)
{
    omni_block **list = cls < 0 ? &omni.tx.free_blocks : &omni.tx.free_cut[cls];
    omni_block *b = *list;
    if (b)
        *list = b->next;
    else
        b = block_new(cls);
    b->next = NULL;
    b->refs = 0;
    b->cls = cls;
    b->len = 0;
    b->from = -1;
    bytes_out_add(block_alloc_size(cls));
    return b;
}

omni_block *transport_block_get(void)
{
    return block_of_class(-1);
}

/* The smallest class that holds `len` bytes and no less than
 * FL_MIN_SHIPPED, or -1 (a full-size block) when `len` fits one and the
 * class would not be smaller. */
static int block_class_for(size_t len)
{
    size_t need = len > FL_MIN_SHIPPED ? len : FL_MIN_SHIPPED;
    /* every fill opens through here: a count of leading zeros, not a loop */
    int cls = need <= 64 ? 6 : 64 - __builtin_clzll((unsigned long long)need - 1);
    return len <= omni.job.block_cap &&
                   ((size_t)1 << cls) >= omni.job.block_cap
               ? -1
               : cls;
}

/* A block that holds `len` bytes and pins at most about twice that: of the
 * smallest class that holds them, or full-size. */
static omni_block *block_holding(size_t len)
{
    return block_of_class(block_class_for(len));
}

static void block_put(omni_block *b)
{
    omni.tx.bytes_out -= block_alloc_size(b->cls);
    omni_block **list = b->cls < 0 ? &omni.tx.free_blocks : &omni.tx.free_cut[b->cls];
    b->next = *list;
    *list = b;
}

void transport_block_drop(omni_block *b)
{
    block_put(b);
}

void transport_block_unref(omni_block *b)
{
    if (--b->refs == 0)
        block_put(b);
}

/* A new block of class cls holding a copy of `len` bytes at data. */
static omni_block *block_copy(int cls, const char *data, size_t len)
{
    omni_block *b = block_of_class(cls);
    memcpy(b->data, data, len);
    b->len = len;
    return b;
}

omni_block *transport_hold_copy(const char **data, size_t len)
{
    omni_block *own = block_copy(block_class_for(len), *data, len);
    own->refs = 1;
    *data = own->data;
    return own;
}

/* A block about to ship that is at most half full, copied into the
 * smallest class that holds it when that is smaller, the block going back
 * to its free list; any other block is returned as it is.  A copy of at
 * most half a buffer is cheap next to a wire message, and it keeps what is
 * in flight proportional to what it carries (router/flow.h). */
static omni_block *block_cut(omni_block *b)
{
    if (b->len > transport_class_room(b->cls) / 2)
        return b;
    int cls = block_class_for(b->len);
    if (cls < 0 || block_alloc_size(cls) >= block_alloc_size(b->cls))
        return b;
    omni_block *cut = block_copy(cls, b->data, b->len);
    block_put(b);
    return cut;
}

#define DIRTY_LINKS                                                            \
    &omni.tx.peers[0].dirty_next, &omni.tx.peers[0].dirty_prev, sizeof(omni_peer)

static void dirty_add(int p)
{
    omni.tx.peers[p].dirty = 1;
    ev_push(&omni.tx.dirty, DIRTY_LINKS, p);
}

/* The buffers filling hold at most fill_cap_bytes of room together; which
 * ones leave to make `add` bytes more is router/evict.h's rule. */
static __attribute__((noinline)) void fill_cap_evict(int keep, uint64_t add)
{
    while (ev_must_make_room(omni.tx.fill_bytes, add, omni.tx.fill_cap_bytes)) {
        int oldest = ev_victim(&omni.tx.dirty, &omni.tx.peers[0].dirty_prev,
                               sizeof(omni_peer), keep, omni.job.self_slot);
        if (oldest < 0)
            return;
        transport_ship(oldest, &omni.stats.flush_full);
    }
}

/* Inline: a buffer opens for every send of a ping-pong, and the cap is
 * rarely what stops it. */
static inline void fill_cap_make_room(int keep, uint64_t add)
{
    if (ev_must_make_room(omni.tx.fill_bytes, add, omni.tx.fill_cap_bytes))
        fill_cap_evict(keep, add);
}

/* The cap's count grows by `bytes` of room and `blocks` new fills; only a
 * growth can set a new peak. */
static void fill_room_grow(uint64_t bytes, int blocks)
{
    omni.tx.fill_bytes += bytes;
    omni.tx.fill_blocks += blocks;
    uint64_t held = omni.tx.fill_bytes +
                    (uint64_t)omni.tx.fill_blocks * sizeof(omni_block);
    if (held > omni.stats.peak_fill_bytes)
        omni.stats.peak_fill_bytes = held;
}

/* Peer p's fill opens with, or grows to, `room` bytes, keeping what it
 * holds; the cap is made room for first. */
static void fill_set_room(int p, uint64_t room)
{
    omni_peer *peer = &omni.tx.peers[p];
    omni_block *old = peer->fill;
    uint64_t had = old ? peer->room : 0;
    fill_cap_make_room(p, room - had);
    /* a room is a power of two of at least EV_ROOM_MIN (FL_MIN_SHIPPED)
     * below block_cap, or block_cap: its class is exactly that room */
    omni_block *b = block_of_class(block_class_for(room));
    if (old) {
        memcpy(b->data, old->data, old->len);
        b->len = old->len;
        block_put(old);
    }
    peer->fill = b;
    peer->room = (uint32_t)room;
    fill_room_grow(room - had, old ? 0 : 1);
}

/* Peer p, which has no fill, opens one of the starting room: the common
 * case of every item that finds its buffer shipped, so its class is the one
 * computed at start-up. */
static void fill_open(int p)
{
    omni_peer *peer = &omni.tx.peers[p];
    fill_cap_make_room(p, omni.tx.start_room);
    peer->fill = block_of_class(omni.tx.start_cls);
    peer->room = omni.tx.start_room;
    fill_room_grow(omni.tx.start_room, 1);
}

/* Peer p's fill, shipped or emptied, leaves the cap's count. */
static void fill_release(omni_peer *peer)
{
    omni.tx.fill_bytes -= peer->room;
    omni.tx.fill_blocks--;
    peer->fill = NULL;
    peer->room = 0;
}

char *transport_reserve_slow(int p, uint32_t size)
{
    omni_peer *peer = &omni.tx.peers[p];
    /* Shipping this rank's own buffer delivers it in place, and delivery
     * may append to this very buffer again (an ACK to itself): re-check. */
    while (peer->fill && peer->fill->len > 0 &&
           peer->fill->len + size > omni.job.block_cap)
        transport_ship(p, &omni.stats.flush_full);
    if (!peer->fill && size <= omni.tx.start_room)
        fill_open(p);
    else if (!peer->fill || peer->fill->len + size > peer->room)
        fill_set_room(p, ev_grown_room(peer->fill ? peer->room
                                                  : omni.tx.start_room,
                                       (peer->fill ? peer->fill->len : 0) + size,
                                       omni.job.block_cap));
    omni_block *b = peer->fill;
    if (!peer->dirty) {
        dirty_add(p);
        peer->first_ns = 0; /* stamped by the next progress round */
    }
    char *at = b->data + b->len;
    b->len += size;
    peer->stamp = omni.tx.epoch;
    return at;
}

/* --- shipping -------------------------------------------------------- */

static void inflight_push(MPI_Request req, omni_block *b)
{
    if (omni.tx.inflight_count == omni.tx.inflight_cap) {
        int cap = omni.tx.inflight_cap * 2;
        omni_inflight *ring = malloc(sizeof *ring * (size_t)cap);
        if (!ring)
            omni_out_of_memory("the in-flight ring");
        for (int i = 0; i < omni.tx.inflight_count; i++)
            ring[i] =
                omni.tx.inflight[(omni.tx.inflight_head + i) % omni.tx.inflight_cap];
        free(omni.tx.inflight);
        omni.tx.inflight = ring;
        omni.tx.inflight_cap = cap;
        omni.tx.inflight_head = 0;
    }
    int tail = (omni.tx.inflight_head + omni.tx.inflight_count) % omni.tx.inflight_cap;
    omni.tx.inflight[tail].req = req;
    omni.tx.inflight[tail].block = b;
    omni.tx.inflight_count++;
}

static inline void dirty_remove(int p)
{
    ev_unlink(&omni.tx.dirty, DIRTY_LINKS, p);
    omni.tx.peers[p].dirty = 0;
}

/* A block for a node-ring peer goes into its ring at once, or, while the
 * ring is full or earlier blocks wait, to the end of the peer's backlog,
 * cut to its content (it may wait a while): the ring and the backlog
 * together are that link's one FIFO. */
static void ring_ship(omni_peer *peer, omni_block *b)
{
    omni.stats.wire_ring++;
    if (!peer->backlog && rg_put(peer->ring, b->data, (uint32_t)b->len)) {
        block_put(b);
        return;
    }
    b = block_cut(b);
    b->next = NULL;
    if (peer->backlog)
        peer->backlog_tail->next = b;
    else
        peer->backlog = b;
    peer->backlog_tail = b;
    omni.tx.ring_backlogs++;
}

/* Moves waiting blocks into their rings while there is room. */
static void ring_push_backlogs(void)
{
    for (int i = 0; i < omni.tx.ring_npeers && omni.tx.ring_backlogs > 0; i++) {
        omni_peer *peer = &omni.tx.peers[omni.tx.ring_peers[i]];
        omni_block *b;
        while ((b = peer->backlog) &&
               rg_put(peer->ring, b->data, (uint32_t)b->len)) {
            peer->backlog = b->next;
            omni.tx.ring_backlogs--;
            block_put(b);
        }
    }
}

void transport_unreserve(int dst, uint32_t size)
{
    int p = omni.job.hop_slot[dst];
    omni_peer *peer = &omni.tx.peers[p];
    peer->fill->len -= size;
    if (peer->fill->len == 0) {
        if (peer->dirty)
            dirty_remove(p);
        block_put(peer->fill);
        fill_release(peer);
    }
}

/* The statistics of a wire message of `len` bytes to the next hop of
 * slot p. */
static void count_wire_message(int p, size_t len)
{
    const omni_peer *peer = &omni.tx.peers[p];
    uint64_t off = peer->off_node;
    omni.stats.wire_messages++;
    omni.stats.wire_bytes += len;
    omni.stats.wire_by_dim[peer->dim]++;
    omni.stats.wire_off_node += off;
    omni.stats.wire_bytes_off_node += off * len;
}

static void wire_send(int p, omni_block *b);

/* The mark due before the next block to slot p: a block of one LARGE
 * item with no body, whose value is the count of messages sent to that
 * rank without a header so far (router/wire.h). */
static void ship_mark(int p)
{
    omni_block *b = block_of_class(block_class_for(RT_HDR_SIZE));
    rt_item_hdr h = {.dst = (uint32_t)omni.job.hop_rank[p],
                     .src = (uint32_t)omni.job.rank, .comm = 0, .tag = 0,
                     .len = 0,
                     .meta = rt_meta(RT_LARGE, omni.tx.mark_due[p] & RT_META_MAX)};
    rt_hdr_write(b->data, &h);
    b->len = RT_HDR_SIZE;
    omni.tx.mark_due[p] = 0;
    count_wire_message(p, b->len);
    wire_send(p, b);
}

/* Block b leaves for the next hop of slot p (not this rank's own). */
static void ship_block(int p, omni_block *b)
{
    omni_peer *peer = &omni.tx.peers[p];
    if (peer->ring) {
        count_wire_message(p, b->len);
        ring_ship(peer, b);
        return;
    }
    if (omni.tx.mark_due[p])
        ship_mark(p);
    count_wire_message(p, b->len);
    wire_send(p, b);
}

/* `len` bytes at `data` leave for world rank `to` as one message of the
 * MPI underneath; `owner` (or NULL) goes back to its free list once it has
 * left. */
static void wire_isend(int to, const char *data, size_t len, omni_block *owner)
{
    MPI_Request req;
    int rc = PMPI_Isend(data, (int)len, MPI_BYTE, to, TRANSPORT_WIRE_TAG,
                        omni.job.wire_comm, &req);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "omnibus: rank %d: sending a block to rank %d failed "
                        "(MPI error %d)\n", omni.job.rank, to, rc);
        PMPI_Abort(MPI_COMM_WORLD, rc);
    }
    inflight_push(req, owner);
}

/* Block b leaves for world rank `to` in pieces of at most `piece` bytes
 * (transport_in_pieces): first a head, a PIECES header and the block's
 * first bytes copied after it, then the rest of the block where it lies,
 * piece by piece.  Nothing else is sent to `to` in between, so the pieces
 * follow each other on the link; b goes back to its free list with its
 * last piece, since the in-flight ring is reaped in order. */
static void wire_send_pieces(int to, omni_block *b, uint32_t piece)
{
    omni_block *head = block_holding(piece);
    rt_item_hdr h = rt_pieces_head((uint32_t)to, (uint32_t)omni.job.rank,
                                   b->len, piece);
    rt_hdr_write(head->data, &h);
    memcpy(head->data + RT_HDR_SIZE, b->data, h.len);
    head->len = piece;
    wire_isend(to, head->data, head->len, head);
    for (size_t at = h.len; at < b->len; at += piece) {
        size_t len = b->len - at < piece ? b->len - at : piece;
        wire_isend(to, b->data + at, len, at + len == b->len ? b : NULL);
    }
    omni.stats.wire_pieces++;
}

/* Block b leaves through the MPI underneath, counted on its link: whole,
 * or in pieces (transport_in_pieces), which count as one block. */
static void wire_send(int p, omni_block *b)
{
    omni.tx.blocks_out[p]++;
    int to = omni.job.hop_rank[p];
    if (transport_in_pieces(b->len)) {
        wire_send_pieces(to, b, (uint32_t)omni.tx.paths.at[OMNI_CX_wire_piece]);
        return;
    }
    b = block_cut(b);
    wire_isend(to, b->data, b->len, b);
}

void transport_ship(int p, uint64_t *reason)
{
    omni_peer *peer = &omni.tx.peers[p];
    omni_block *b = peer->fill;
    if (!b || b->len == 0)
        return;
    fill_release(peer);
    if (peer->dirty)
        dirty_remove(p);
    if (peer->soon) {
        peer->soon = 0;
        omni.tx.soon_count--;
    }
    (*reason)++;
    if (peer->fwd_round) {
        if (omni.tx.rounds + 1 - peer->fwd_round > 1)
            omni.stats.forwarded_held++;
        peer->fwd_round = 0;
    }
    if (p == omni.job.self_slot) {
        omni.tx.on_block(b);
        return;
    }
    ship_block(p, b);
}

void transport_ship_block(int dst, omni_block *b)
{
    ship_block(omni.job.hop_slot[dst], b);
}

char *transport_ring_reserve(int dst, uint32_t size)
{
    int p = omni.job.hop_slot[dst];
    transport_ship(p, &omni.stats.flush_urgent);
    omni_peer *peer = &omni.tx.peers[p];
    return peer->backlog ? NULL : rg_reserve(peer->ring, size);
}

void transport_ring_commit(int dst, uint32_t size)
{
    int p = omni.job.hop_slot[dst];
    count_wire_message(p, size);
    omni.stats.wire_ring++;
    rg_commit(omni.tx.peers[p].ring, size);
}

omni_block *transport_block_for_item(int dst, uint32_t size)
{
    transport_ship(omni.job.hop_slot[dst], &omni.stats.flush_urgent);
    omni_block *b = block_holding(size);
    b->len = size;
    return b;
}

void transport_push_soon(int dst)
{
    if (!omni.prog.in_progress) {
        transport_push_towards(dst);
        return;
    }
    omni_peer *peer = &omni.tx.peers[omni.job.hop_slot[dst]];
    if (!peer->soon) {
        peer->soon = 1;
        omni.tx.soon_count++;
    }
}

/* A marked peer is always on the dirty list (it was marked right after an
 * item went into its buffer), and shipping clears its mark.  The scan starts
 * again after each ship: shipping this rank's own buffer delivers in place,
 * which may ship or add other buffers and so change the list under it. */
void transport_ship_soon(void)
{
    while (omni.tx.soon_count > 0) {
        int p = omni.tx.dirty.head;
        while (p >= 0 && !omni.tx.peers[p].soon)
            p = omni.tx.peers[p].dirty_next;
        if (p < 0)
            break;
        transport_ship(p, &omni.stats.flush_urgent);
    }
}

void transport_flush_all(uint64_t *reason)
{
    while (omni.tx.dirty.head >= 0)
        transport_ship(omni.tx.dirty.head, reason);
}

/* Whether the rank appended since the previous round, read off the stamps
 * of the buffers still filling (so the per-item path stores nothing more).
 * An item whose buffer has shipped since (full, or pushed at once) leaves no
 * stamp; missing it only makes the round look quiet, which ships sooner. */
int transport_sent_since_round(void)
{
    for (int p = omni.tx.dirty.head; p >= 0; p = omni.tx.peers[p].dirty_next)
        if (omni.tx.peers[p].stamp == omni.tx.epoch)
            return 1;
    return 0;
}

void transport_flush_stale(int sent, int waiting)
{
    int appended = sent || transport_sent_since_round();
    uint64_t idle_after =
        ad_idle_after(&omni.tx.adapt, &omni.tx.rate, omni.tx.dirty.count);
    int written = 0;
    uint64_t now = 0;
    int p = omni.tx.dirty.head;
    while (p >= 0) {
        omni_peer *peer = &omni.tx.peers[p];
        int next = peer->dirty_next;
        written += peer->stamp == omni.tx.epoch;
        switch (ad_at_round(idle_after, omni.tx.epoch, sent, peer->stamp,
                            waiting)) {
        case AD_SHIP_QUIET:
            transport_ship(p, &omni.stats.flush_quiet);
            break;
        case AD_SHIP_IDLE:
            transport_ship(p, &omni.stats.flush_idle);
            break;
        case AD_KEEP:
            if (!now)
                now = omni_now_ns();
            if (!peer->first_ns)
                peer->first_ns = now;
            else if (ad_is_old(&omni.tx.adapt, (int64_t)(now - peer->first_ns)))
                transport_ship(p, &omni.stats.flush_age);
            break;
        }
        p = next;
    }
    if (appended) {
        ad_rate_round(&omni.tx.rate, written);
        omni.tx.epoch++;
    }
    omni.tx.rounds++;
}

void transport_reap_sends(void)
{
    if (omni.tx.ring_backlogs > 0)
        ring_push_backlogs();
    while (omni.tx.inflight_count > 0) {
        omni_inflight *f = &omni.tx.inflight[omni.tx.inflight_head];
        if (!pending_take_if_done(&f->req, MPI_STATUS_IGNORE, NULL))
            return;
        if (f->block)
            block_put(f->block);
        omni.tx.inflight_head = (omni.tx.inflight_head + 1) % omni.tx.inflight_cap;
        omni.tx.inflight_count--;
        omni.tx.inflight_done++;
    }
}


/* --- receiving ------------------------------------------------------- */

static void rx_post(omni_inflight *slot, omni_block *b)
{
    slot->block = b;
    int rc = PMPI_Irecv(b->data, (int)omni.job.block_cap, MPI_BYTE, MPI_ANY_SOURCE,
                        TRANSPORT_WIRE_TAG, omni.job.wire_comm, &slot->req);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "omnibus: rank %d: posting a block receive failed "
                        "(MPI error %d)\n", omni.job.rank, rc);
        PMPI_Abort(MPI_COMM_WORLD, rc);
    }
}

/* A slot whose block was taken is posted again at the start of the next
 * round, not at once: the reply a delivered message provokes then leaves
 * before the PMPI_Irecv is paid, which moves it off the latency path.  The
 * other slots stay posted meanwhile, and the MPI underneath keeps a block that
 * finds none.  A round takes at most one block and first posts the slot the
 * previous one took, so only the slot just before rx_head is ever
 * unposted, and slots are still posted in the order blocks are taken. */
static void rx_repost_taken(void)
{
    int i = omni.tx.rx_head > 0 ? omni.tx.rx_head - 1 : omni.tx.rx_count - 1;
    rx_post(&omni.tx.rx[i], transport_block_get());
    omni.tx.rx_taken = 0;
}

/* Blocks taken from one node ring per call at most, for the reason below. */
#define RING_TURN 8

/* A ring's record is delivered in place for as long as its items are done
 * with at once (omni.tx.on_record: a posted receive copies its data straight
 * from the ring); from the first item that must wait in the unexpected
 * queue on, the rest is copied into a block, since the matching engine
 * keeps pointing into that, and a ring's room must come back in order. */
static void rings_poll(void)
{
    for (int i = 0; i < omni.tx.ring_nrx; i++) {
        rg_rx *r = &omni.tx.ring_rx[i];
        const void *rec;
        uint32_t len;
        for (int k = 0; k < RING_TURN && (rec = rg_peek(r, &len)); k++) {
            size_t done = omni.tx.on_record(rec, len);
            omni_block *b = NULL;
            if (done < len) {
                b = block_holding(len - done);
                memcpy(b->data, (const char *)rec + done, len - done);
                b->len = len - done;
            }
            rg_pop(r);
            if (b)
                omni.tx.on_block(b);
        }
    }
}

/* Block b, just taken from a wire receive, as the block its sender
 * shipped: b itself; or, when b is a piece of a block sent in pieces
 * (wire_send_pieces), NULL while pieces are still due, and the block put
 * together from them with its last.  A link carries a block's pieces one
 * after the other, so while one is being put together everything its
 * sender's link brings is its next piece. */
static omni_block *rx_joined(omni_block *b)
{
    omni_peer *peer = &omni.tx.peers[omni.job.hop_slot[b->from]];
    omni_block *whole = peer->joining;
    if (!whole) {
        rt_item_hdr h;
        if (b->len < RT_HDR_SIZE)
            return b;
        rt_hdr_read(b->data, &h);
        if (rt_meta_kind(h.meta) != RT_PIECES)
            return b;
        whole = block_holding((size_t)h.tag);
        whole->from = b->from;
        memcpy(whole->data, b->data + RT_HDR_SIZE, h.len);
        whole->len = h.len;
        peer->joining = whole;
        peer->pieces_left = rt_meta_value(h.meta);
    } else {
        memcpy(whole->data + whole->len, b->data, b->len);
        whole->len += b->len;
        peer->pieces_left--;
    }
    block_put(b);
    if (peer->pieces_left > 0)
        return NULL;
    peer->joining = NULL;
    return whole;
}

/* At most one block per call, from the oldest posted receive: every test
 * call turns the progress engine, even of a request already complete
 * (pending_take_if_done; an epoll_wait over TCP), so testing
 * the next slot after taking a block paid a second turn on the latency
 * path of every reply, and PMPI_Testsome over all slots costs twice a
 * PMPI_Test over shared memory (40 ns against 20).  A round makes one turn
 * and takes what it found; the next block waits for the next round, which
 * a wait loop runs at once.  Taking one block per call also keeps blocks
 * that keep arriving from starving the rest of progress (payload
 * completions, reaping, flushing).  Blocks are delivered in the order
 * their receives were posted, the order the MPI underneath matched them in.
 * The pieces of a block sent in pieces are taken in one call, each slot
 * posted again at once, until the block is whole or its next piece has
 * not come: a piece provokes no reply, and the block is what counts. */
void transport_poll_arrivals(void)
{
    if (omni.tx.ring_nrx)
        rings_poll();
    if (!omni.tx.rx_count)
        return;
    for (;;) {
        if (omni.tx.rx_taken)
            rx_repost_taken();
        omni_inflight *slot = &omni.tx.rx[omni.tx.rx_head];
        int bytes = 0;
        MPI_Status st;
        if (!pending_take_if_done(&slot->req, &st, NULL))
            return;
        PMPI_Get_count(&st, MPI_BYTE, &bytes);
        omni_block *b = slot->block;
        b->len = (size_t)bytes;
        b->from = st.MPI_SOURCE;
        slot->block = NULL;
        omni.tx.rx_taken = 1;
        omni.tx.rx_head = (omni.tx.rx_head + 1) % omni.tx.rx_count;
        if ((b = rx_joined(b))) {
            omni.tx.on_block(b);
            return;
        }
    }
}

/* transport_copy above RT_COPY_INLINE bytes. */
void transport_copy_long(void *to, const void *from, size_t n)
{
    if (cp_copy(omni.tx.copy_slow_skews, to, from, n))
        omni.stats.skewed_copies++;
}

/* --- life cycle ------------------------------------------------------ */

/* Which page distances transport_copy leaves memcpy at, timed on this
 * rank: every rank copies its own messages, so nothing is agreed. */
static void transport_time_copies(void)
{
    if (omni.job.cfg.copies != CFG_COPIES_TIMED) {
        omni.tx.copy_slow_skews =
            omni.job.cfg.copies == CFG_COPIES_LOOP ? ~(uint64_t)0 : 0;
        return;
    }
    char *scratch = malloc(CP_SCRATCH);
    if (!scratch)
        return;
    omni.tx.copy_slow_skews = cp_find_slow_skews(scratch);
    free(scratch);
}

int transport_init(transport_block_fn on_block, transport_record_fn on_record)
{
    transport_time_copies();
    omni.tx.on_block = on_block;
    omni.tx.on_record = on_record;
    omni.tx.adapt = (ad_policy){.idle_rounds = (uint64_t)omni.job.cfg.idle_rounds,
                                .flush_ns = omni.job.cfg.flush_us * 1000L};
    omni.tx.rate = ad_rate_start();
    omni.tx.fill_cap_bytes = (uint64_t)FL_FILL_CAP * omni.job.block_cap;
    omni.tx.start_room = (uint32_t)ev_start_room(omni.job.block_cap,
                                                 omni.job.npeers, FL_FILL_CAP);
    omni.tx.start_cls = block_class_for(omni.tx.start_room);
    omni.tx.peers = calloc((size_t)omni.job.self_slot + 1, sizeof *omni.tx.peers);
    omni.tx.inflight_cap = INFLIGHT_INITIAL;
    omni.tx.inflight = malloc(sizeof *omni.tx.inflight * (size_t)omni.tx.inflight_cap);
    omni.tx.rx = malloc(sizeof *omni.tx.rx * RX_SLOTS);
    omni.tx.blocks_out = calloc((size_t)omni.job.self_slot + 1, sizeof *omni.tx.blocks_out);
    omni.tx.mark_due = calloc((size_t)omni.job.self_slot + 1, sizeof *omni.tx.mark_due);
    if (!omni.tx.peers || !omni.tx.inflight || !omni.tx.rx ||
        !omni.tx.blocks_out || !omni.tx.mark_due || shm_init() != 0)
        return -1;
    for (int p = 0; p <= omni.job.self_slot; p++) {
        omni_peer *peer = &omni.tx.peers[p];
        peer->dirty_next = peer->dirty_prev = -1;
        peer->off_node = omni.job.off_node[omni.job.hop_rank[p]];
        peer->dim = (uint8_t)(omni.job.hop_dim[p] < 0 ? 0 : omni.job.hop_dim[p]);
    }
    ev_list_init(&omni.tx.dirty);
    /* Wire receives only when some rank sends here through the MPI
     * underneath. */
    omni.tx.rx_count = omni.tx.ring_nrx < omni.job.size - 1 ? RX_SLOTS : 0;
    for (int i = 0; i < omni.tx.rx_count; i++)
        rx_post(&omni.tx.rx[i], transport_block_get());
    return 0;
}

/* Called once the job is quiescent: nothing more can arrive. */
void transport_finalize(void)
{
    if (omni.tx.rx_taken)
        rx_repost_taken();
    for (int i = 0; i < omni.tx.rx_count; i++) {
        PMPI_Cancel(&omni.tx.rx[i].req);
        PMPI_Wait(&omni.tx.rx[i].req, MPI_STATUS_IGNORE);
        block_put(omni.tx.rx[i].block);
    }
    while (omni.tx.inflight_count > 0) {
        omni_inflight *f = &omni.tx.inflight[omni.tx.inflight_head];
        PMPI_Wait(&f->req, MPI_STATUS_IGNORE);
        if (f->block)
            block_put(f->block);
        omni.tx.inflight_head = (omni.tx.inflight_head + 1) % omni.tx.inflight_cap;
        omni.tx.inflight_count--;
    }
    for (int p = 0; omni.tx.peers && p <= omni.job.self_slot; p++)
        if (omni.tx.peers[p].joining)
            block_put(omni.tx.peers[p].joining);
    shm_finalize();
    for (int cls = -1; cls < OMNI_BLOCK_CLASSES; cls++) {
        omni_block **list = cls < 0 ? &omni.tx.free_blocks : &omni.tx.free_cut[cls];
        while (*list) {
            omni_block *b = *list;
            *list = b->next;
            free(b);
        }
    }
    free(omni.tx.rx);
    free(omni.tx.inflight);
    free(omni.tx.peers);
    free(omni.tx.blocks_out);
    free(omni.tx.mark_due);
    omni.tx.blocks_out = omni.tx.mark_due = NULL;
    omni.tx.rx = NULL;
    omni.tx.inflight = NULL;
    omni.tx.peers = NULL;
}
