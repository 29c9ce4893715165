/* transport: blocks, peer buffers and wire messages on the private
 * communicator.
 *
 * Send side: an item for world rank d is appended to the fill block of
 * its next hop, omni.tx.peers[hop_slot[d]] (only next hops have slots,
 * topology.h); a block ships when the next item does not fit, when
 * progress finds it idle or too old (router/adapt.h), before any call that
 * can wait, and at once after an urgent item.  A block for this rank itself
 * never leaves: shipping it delivers it in place (deliver.h).  A block for
 * a rank of this node goes into the node ring to it (shm.h), or, while
 * that ring is full, to the end of the peer's backlog, which progress
 * moves into the ring in order; any other block goes to the MPI underneath
 * (PMPI_Isend on wire_comm).  Each link uses one of the two paths for the
 * whole job, so it stays FIFO.  A link through the MPI underneath counts
 * its blocks, and the first block after a large message sent on it
 * without a header goes after a mark (transport_mark_next): both are what
 * the receiver orders such messages by (router/envelope.h).
 *
 * Receive side: the node rings, each read in order, and, when some rank
 * sends here through the MPI underneath, a ring of PMPI_Irecv(MPI_ANY_SOURCE)
 * on wire_comm, processed strictly in posting order.  MPI matches one sender's
 * messages to identical receives in posting order, so processing the ring
 * in order keeps every link FIFO.  Each block taken in goes, in that order,
 * to the delivery function the engine gave transport_init (deliver.h),
 * which hands each item addressed here to the engine and appends every
 * other item to the buffer of its next hop.
 *
 * Nothing here ever waits: forwarding and delivery never refuse, and the
 * send path never stalls on the wire (flow control chooses a message's
 * path instead, credit.h).  Memory stays bounded by router/flow.h's rule:
 * the buffers filling hold at most FL_FILL_CAP full blocks' worth of room
 * (router/evict.h: on a rank of many next hops a buffer opens small and
 * grows as it fills), and a partly filled buffer is cut to the size of its
 * content when it ships.
 */
#ifndef OMNIBUS_TRANSPORT_H
#define OMNIBUS_TRANSPORT_H

#include "shim/base/state.h"
#include "router/copy.h"
#include "router/wire.h"
#include <string.h>

/* Copies a message's bytes into or out of a block or node-ring record, or
 * between the program's buffers and Omnibus's own: with memcpy (or
 * rt_copy's inline moves), except at the page distances where this rank
 * timed memcpy slower than cp_loop at transport_init (router/copy.h);
 * those copies take cp_loop and count in `skewed_copies`.  The two
 * ranges never overlap. */
void transport_copy_long(void *to, const void *from, size_t n);

/* Forced inline: a fine-grained payload pays rt_copy's one size test, no
 * more, and no call.  Left to the compiler, the whole copy went out of
 * line once the skew test joined it, and the 8-byte ping-pong over shared
 * memory took 0.195 us one way against 0.190 inline on an Intel Xeon VM
 * (10 alternating runs; bench/results/log.md, 2026-12-05, the small-message
 * cases against 3bbd19c on the Intel Xeon VM). */
static inline __attribute__((always_inline)) void
transport_copy(void *to, const void *from, size_t n)
{
    if (n <= RT_COPY_INLINE) {
        rt_copy(to, from, n);
        return;
    }
    transport_copy_long(to, from, n);
}

/* The copy transport_copy makes, not counted in the statistics: for the
 * start-up timing of the paths (calib.h), whose copies must cost what the
 * transport's do but are not the program's.  Timed with plain memcpy at a
 * page distance where it is slow, a path costs more than the transport
 * makes it cost (docs/design/transport.md, Choosing a path by
 * measurement). */
static inline void transport_copy_uncounted(void *to, const void *from,
                                            size_t n)
{
    (void)cp_copy(omni.tx.copy_slow_skews, to, from, n);
}

/* Tags on wire_comm: blocks use 1; comm.c's group drain uses 2. */
#define TRANSPORT_WIRE_TAG 1

/* What the transport does with each block it takes in: the function is
 * the engine's (deliver.h), so that the transport calls nothing above it. */
typedef void (*transport_block_fn)(omni_block *b);
/* What the transport does first with a node-ring record, whose bytes it
 * must not keep: returns the bytes done with; the rest is copied into a
 * block for the first function. */
typedef size_t (*transport_record_fn)(const char *data, size_t len);
int transport_init(transport_block_fn on_block, transport_record_fn on_record);
void transport_finalize(void);

omni_block *transport_block_get(void);
void transport_block_unref(omni_block *b);
/* One more reference on arrived block b, which already holds one. */
static inline omni_block *transport_block_ref(omni_block *b)
{
    b->refs++;
    return b;
}
/* transport_block_unref of a reference that is not b's last: drops it and
 * returns 1; for the last one returns 0 having done nothing (the caller
 * calls transport_block_unref, out of line). */
static inline int transport_block_unref_unless_last(omni_block *b)
{
    if (b->refs == 1)
        return 0;
    b->refs--;
    return 1;
}
/* The data bytes a block of class cls holds (-1: a full-size block). */
static inline size_t transport_class_room(int cls)
{
    return cls < 0 ? omni.job.block_cap : (size_t)1 << cls;
}

/* The copying half of transport_hold_item: a block of `len` bytes' own
 * size holding a copy of them, one reference taken. */
omni_block *transport_hold_copy(const char **data, size_t len);

/* The block an eager item that must wait (the unexpected queue) holds, with
 * a reference taken for it: the arrived block b itself when its content
 * fills at least half of it, otherwise a block of the item's own size with
 * a copy of its `len` payload bytes, and *data then points at the copy.
 * So an item that waits pins at most about twice its size, however little
 * the block it came in carried: a wire receive is always a full-size
 * block, and a lone message in one would pin all of it. */
static inline omni_block *transport_hold_item(omni_block *b, const char **data,
                                              size_t len)
{
    if (2 * b->len >= transport_class_room(b->cls)) {
        b->refs++;
        return b;
    }
    return transport_hold_copy(data, len);
}

/* Room for an item of `size` bytes (header included) in the buffer towards
 * world rank dst; ships the buffer first when the item does not fit.  The
 * caller writes the item at the returned address before anything else
 * touches the transport. */
static inline char *transport_reserve(int dst, uint32_t size);
/* transport_reserve for an item that another rank sent through this one:
 * the buffer it goes into also notes the round of its first forwarded item
 * (omni_peer.fwd_round), which router/adapt.h's rule for relays reads. */
static inline char *transport_reserve_forward(int dst, uint32_t size);
/* The same without ever shipping: NULL, and nothing reserved, when the
 * buffer now filling towards dst's next hop has no room for the item (or
 * none is filling). */
static inline char *transport_reserve_in_fill(int dst, uint32_t size);
/* transport_reserve when transport_reserve_in_fill has just found no room:
 * the buffer ships, or one opens, first. */
static inline char *transport_reserve_past_fill(int dst, uint32_t size);

/* Withdraws the last reservation, of `size` bytes towards world rank dst,
 * when the item could not be written after all (nothing else may have
 * touched the transport since the reservation). */
void transport_unreserve(int dst, uint32_t size);

/* Whether the MPI underneath sends a message of `len` bytes to a rank
 * reached through it at once, before its receive is posted, as far as
 * the piece in force says (wire_piece, probed at MPI_Init or set; 0, the
 * built-in value, says nothing is). */
static inline int transport_wire_at_once(uint64_t len)
{
    uint64_t piece = omni.tx.paths.at[OMNI_CX_wire_piece];
    return piece > 0 && len <= piece;
}

/* Whether a block of `len` bytes to a rank reached through the MPI
 * underneath leaves in pieces: it is larger than the piece in force, a
 * piece holding more than an item header, and no larger than a message
 * alone with its item header (wire_alone_max).  Each piece is small
 * enough for the MPI underneath to send it at once, where it would make
 * the whole block wait for its receive (docs/design/transport.md, Blocks
 * in pieces). */
static inline int transport_in_pieces(size_t len)
{
    const uint64_t *at = omni.tx.paths.at;
    return at[OMNI_CX_wire_piece] > RT_HDR_SIZE &&
           !transport_wire_at_once(len) &&
           len <= at[OMNI_CX_wire_alone_max] + RT_HDR_SIZE;
}

/* Whether world rank dst, its own next hop, is reached through a node
 * ring (shm.h). */
static inline int transport_by_ring(int dst)
{
    return omni.tx.peers[omni.job.hop_slot[dst]].ring != NULL;
}

/* Whether an item of `bytes` payload bytes fits one record of the node
 * ring to world rank dst, its own next hop, as a message alone
 * (omni.tx.ring_alone_max): 0 for a rank reached through the MPI
 * underneath. */
static inline int transport_ring_fits(int dst, size_t bytes)
{
    return transport_by_ring(dst) &&
           bytes + RT_HDR_SIZE <= omni.tx.ring_alone_max;
}

/* Whether a message of `bytes` above the threshold can go eagerly, as one
 * item alone, to world rank dst: dst is another rank and its own next hop,
 * and the item fits a ring record (transport_ring_fits) for a node-ring
 * peer, or one block and, unless `blocking`, wire_alone_nb_max for a peer
 * reached through the MPI underneath (omni.tx.paths, set at MPI_Init by
 * calib.h; docs/design/transport.md, Messages above the threshold). */
static inline int transport_alone_fits(int dst, size_t bytes, int blocking)
{
    if (omni.job.route_len[dst] != 1)
        return 0;
    if (transport_by_ring(dst))
        return transport_ring_fits(dst, bytes);
    return (blocking ||
            bytes <= omni.tx.paths.at[OMNI_CX_wire_alone_nb_max]) &&
           bytes + RT_HDR_SIZE <= omni.job.block_cap;
}

/* The largest message Omnibus itself chooses to send alone in a block to
 * a rank reached through the MPI underneath, to time or to try that path
 * (calib_wire.c's timing at start-up, a pair's learning in send.c): over
 * TCP a few blocks above 64 KiB let the kernel grow the pair's socket
 * buffers for the rest of the job, and every later large message of the
 * pair then took a few percent longer (docs/design/transport.md, What a
 * start-up leaves in the sockets).  The program's own messages, and the
 * crossovers, may still make larger blocks. */
#define TRANSPORT_WIRE_TRIAL_MAX 65536

/* The crossover that says whether a blocking send to dst that fits both
 * paths goes alone: ring_mpi_from to a node-ring peer, wire_alone_max to
 * one reached through the MPI underneath. */
static inline enum omni_crossover transport_blocking_crossover(int dst)
{
    return transport_by_ring(dst) ? OMNI_CX_ring_mpi_from
                                  : OMNI_CX_wire_alone_max;
}

/* Whether that crossover sends a blocking send of `bytes` alone. */
static inline int transport_alone_by_crossover(int dst, size_t bytes)
{
    const uint64_t *at = omni.tx.paths.at;
    return transport_by_ring(dst) ? bytes < at[OMNI_CX_ring_mpi_from]
                                  : bytes <= at[OMNI_CX_wire_alone_max];
}

/* Whether a message of `bytes` above the threshold goes alone to dst by
 * the crossovers in force: it fits (transport_alone_fits) and, when the
 * caller waits for the send (`blocking`), its crossover says so. */
static inline int transport_alone_ok(int dst, size_t bytes, int blocking)
{
    return transport_alone_fits(dst, bytes, blocking) &&
           (!blocking || transport_alone_by_crossover(dst, bytes));
}

/* A block of its own for one item of `size` bytes towards world rank dst
 * (transport_alone_ok): the buffer filling for dst ships first, so
 * the item keeps its place in the pair's order.  The caller writes the
 * item at its data and passes the block to transport_ship_block, or to
 * transport_block_drop when the item could not be written; nothing else
 * may touch the transport meanwhile. */
omni_block *transport_block_for_item(int dst, uint32_t size);
/* The same item straight in dst's node ring, without the copy through a
 * block (an 8 KiB ping-pong paid that copy at each end): the room for it,
 * once the buffer filling for dst has shipped, or NULL, with nothing
 * reserved, while the ring has a backlog or no room (then the caller takes
 * transport_block_for_item).  The caller writes the item there and calls
 * transport_ring_commit, or nothing when the item could not be written;
 * nothing else may touch the transport meanwhile. */
char *transport_ring_reserve(int dst, uint32_t size);
void transport_ring_commit(int dst, uint32_t size);
void transport_block_drop(omni_block *b);
/* A block leaves for world rank dst, its own next hop (not this rank):
 * counted in the statistics, then into dst's node ring (or its backlog) or
 * to the MPI underneath. */
void transport_ship_block(int dst, omni_block *b);

/* Ships the buffer of next-hop slot p now (reason counted in the stats). */
void transport_ship(int p, uint64_t *reason);
/* Ships the buffer that carries items for world rank dst. */
static inline void transport_push_towards(int dst)
{
    transport_ship(omni.job.hop_slot[dst], &omni.stats.flush_urgent);
}
/* Blocks shipped so far through the MPI underneath to world rank dst, its
 * own next hop: what a message sent to it without a header names as the
 * blocks before it (router/envelope.h). */
static inline uint32_t transport_blocks_out(int dst)
{
    return omni.tx.blocks_out[omni.job.hop_slot[dst]];
}

/* The next block to world rank dst, its own next hop through the MPI
 * underneath, goes after a mark saying that `count` messages were sent to
 * it without a header before that block (cumulative, modulo 2^28). */
static inline void transport_mark_next(int dst, uint32_t count)
{
    omni.tx.mark_due[omni.job.hop_slot[dst]] = (count & RT_META_MAX) | 1u << 31;
}

/* Ships the buffer that carries items for world rank dst now, or, inside a
 * progress round, once the round has handled everything that arrived: the
 * answers (ACK, CREDIT, CTS) that one round produces travel together. */
void transport_push_soon(int dst);
/* Ships the buffers marked by transport_push_soon. */
void transport_ship_soon(void);

/* Ships every non-empty buffer. */
void transport_flush_all(uint64_t *reason);
/* The messages handed to the MPI underneath so far (a block, or each
 * piece of a block in pieces), as a mark: once transport_wire_done()
 * reaches it, the MPI underneath has completed every one of them.  They
 * complete in the order they left (the in-flight ring is reaped in
 * order), and a send the MPI underneath moves by rendezvous completes only
 * when its receiver has taken it in, so a waiting sender can tell a
 * receiver that has not yet had its words from one that is silent.  An
 * eager send, a small block or a piece, completes once it has left, as
 * it does without pieces. */
static inline uint64_t transport_wire_mark(void)
{
    return omni.tx.inflight_done + (uint64_t)omni.tx.inflight_count;
}
static inline uint64_t transport_wire_done(void)
{
    return omni.tx.inflight_done;
}
/* Whether any buffer holds items: every one that does is on the list that
 * transport_flush_all ships. */
static inline int transport_any_filling(void)
{
    return omni.tx.dirty.head >= 0;
}

/* A Wait call (MPI_Wait, Waitall, Waitany, Waitsome) found a receive
 * from world rank src already done, so it waits for nothing and ships
 * nothing before it returns: ships the buffer towards src.  A program that
 * waits for a partner's message is in an exchange, and the partner, having
 * sent, is likely waiting for what this rank holds for it; left to the
 * next wait, that item goes a step late and two ride in one block from
 * then on (a neighbour exchange ran at 0.87x of MPICH so).  Buffers
 * towards other ranks keep filling, so a rank that receives from one side
 * and sends to another keeps its aggregation.  MPI_Recv does not answer:
 * after a probe it is how a program drains what arrived, and answering
 * there cut gups over TCP by 6%. */
static inline void transport_answer(uint32_t src)
{
    int p = omni.job.hop_slot[src];
    if (p != omni.job.self_slot && omni.tx.peers[p].fill)
        transport_ship(p, &omni.stats.flush_answer);
}

/* Whether anything was appended since the previous round's verdicts: at
 * the start of a round, before arrivals are forwarded, whether the program
 * sent. */
int transport_sent_since_round(void);
/* A progress round's verdicts on the partly filled buffers
 * (router/adapt.h): ships those of a rank that waits (`waiting`) and sent
 * nothing of its own since the previous round (`sent`, taken before the
 * round forwarded anything), those idle (unwritten for OMNIBUS_IDLE_ROUNDS
 * times the rounds between appends their share of the rank's rate
 * predicts, ad_idle_after) and those older than OMNIBUS_FLUSH_US; after a
 * sending round, feeds the rate and advances the epoch; counts the
 * round. */
void transport_flush_stale(int sent, int waiting);

/* Processes arrived blocks in order: up to a turn of each node ring, and
 * at most one wire block, with one test of one request of the MPI underneath
 * (transport.c says why). */
void transport_poll_arrivals(void);
/* Moves blocks waiting for room into their node rings, and returns
 * completed outgoing blocks to the free list. */
void transport_reap_sends(void);

/* --- inline hot path ------------------------------------------------- */
char *transport_reserve_slow(int p, uint32_t size);

static inline char *transport_reserve_in_fill(int dst, uint32_t size)
{
    omni_peer *peer = &omni.tx.peers[omni.job.hop_slot[dst]];
    omni_block *b = peer->fill;
    if (!b || b->len + size > peer->room)
        return NULL;
    char *at = b->data + b->len;
    b->len += size;
    peer->stamp = omni.tx.epoch;
    return at;
}

static inline char *transport_reserve_past_fill(int dst, uint32_t size)
{
    return transport_reserve_slow(omni.job.hop_slot[dst], size);
}

static inline char *transport_reserve(int dst, uint32_t size)
{
    char *at = transport_reserve_in_fill(dst, size);
    return at ? at : transport_reserve_slow(omni.job.hop_slot[dst], size);
}

static inline char *transport_reserve_forward(int dst, uint32_t size)
{
    char *at = transport_reserve(dst, size);
    omni_peer *next = &omni.tx.peers[omni.job.hop_slot[dst]];
    if (!next->fwd_round)
        next->fwd_round = omni.tx.rounds + 1;
    return at;
}

/* Whether a progress round would find nothing to do in the transport: no
 * wire receives to test (every peer is a node ring), nothing buffered,
 * in flight, backlogged or marked to ship, and no record in any ring.
 * Inline: the polling calls (Iprobe, Test) that find nothing ask it before
 * each round (progress.h, prog_poll). */
static inline int transport_quiet(void)
{
    if (omni.tx.rx_count | omni.tx.inflight_count | omni.tx.ring_backlogs |
        omni.tx.soon_count | (omni.tx.dirty.head >= 0))
        return 0;
    for (int i = 0; i < omni.tx.ring_nrx; i++)
        if (rg_ready(&omni.tx.ring_rx[i]))
            return 0;
    return 1;
}

#endif
