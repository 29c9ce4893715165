/* flow: the arithmetic of Omnibus's flow control and of its memory bound,
 * with no MPI (the shim applies it in shim/progress/credit; tests/unit/
 * test_flow.c checks it; docs/design/flow-control.md proves the bound).
 *
 * The rule.  Every rank accepts at most `pool` bytes of eager items (header
 * included) that its application has not received yet.  It lends that pool
 * to the ranks that send to it, as windows:
 *   - every (source, destination) pair starts with a base window, half the
 *     pool shared by the P-1 possible sources, at most FL_WINDOW_MAX;
 *   - the other half is lent on demand: a source that ran out of window
 *     says so, and a destination that is consuming what it sent grows its
 *     window (fl_growth), up to FL_WINDOW_MAX, while the windows it lends
 *     sum to at most `pool`;
 *   - a source holds at most fl_sender_budget(pool) of grown window over
 *     all its destinations together, and a relay carries at most
 *     fl_relay_budget(pool) of grown window for the pairs whose route
 *     passes it: a STALL that passes a relay asks for no more growth than
 *     the relay has left (fl_relay_cap), so relayed pairs grow as one-hop
 *     pairs do while what a relay may hold stays independent of P;
 *   - a destination returns consumed bytes in steps of fl_step(window), so
 *     a stream is never more than a step away from more credit; a window
 *     below FL_GROW_MIN returns none unasked: its source stalls when it
 *     runs out, and the answer returns what was consumed and grows it, so
 *     control items never come one per consumed item, whatever P.
 * A source sends a message eagerly (copied into the aggregation buffers)
 * only while it fits the window; flow control decides the path, and which
 * sends may wait for credit is the shim's business (credit.h).
 *
 * The bound.  What one rank holds in Omnibus blocks is at most
 *   rx_blocks x B                      posted wire receives
 * + fill_cap x B                       partly filled outgoing buffers (their
 *                                      room, router/evict.h)
 * + 2 x pool                           unexpected eager items, and the blocks
 *                                      they arrived in while received in order
 * + 4 x pool                           its own eager items in flight: at most
 *                                      (P-1) base windows (pool/2) plus its
 *                                      grown windows (pool/2); a shipped block
 *                                      is cut to at most twice its content,
 *                                      and at most 4x for a block of one item
 * + 4 x (relay_pairs x base            items it relays for others: the base
 *        + relay budget)               windows of the pairs whose route
 *                                      passes it, and the growth it carried
 *                                      for them (none without relay_pairs)
 * where relay_pairs is the number of (source, destination) pairs whose route
 * passes this rank as an intermediate.  On a complete grid every rank relays
 * for the same number of pairs, sum over a of (a-1) e_a (e_a: destinations
 * a hops away), so relay_pairs x base <= (N-1) x pool/2 x P/(P-1): every
 * term is independent of P.
 */
#ifndef OMNIBUS_FLOW_H
#define OMNIBUS_FLOW_H

#include <stdint.h>
#include "router/grid.h"

/* The most one pair's window can be, whatever the pool. */
#define FL_WINDOW_MAX ((uint64_t)4 << 20)
/* The largest step in which consumed bytes go back to their source: a
 * stream of 32-byte items gets credit every 8,192 items at the most, while
 * a full window holds 16 steps, so the stream never waits on a step.
 * Smaller steps cost a stream over TCP much of its rate in credit messages
 * (docs/design/flow-control.md, Windows that follow demand). */
#define FL_STEP_MAX ((uint32_t)256 << 10)
/* The least a window grows by at once, so that a pair that starts from a
 * base of a few hundred bytes (65,536 ranks) reaches FL_WINDOW_MAX in a
 * handful of round trips. */
#define FL_GROW_MIN ((uint64_t)64 << 10)
/* The room of the partly filled outgoing buffers kept at once, in full
 * buffers; one that would open or grow past it ships the oldest
 * (router/evict.h).  A build may lower it (-DFL_FILL_CAP=2, make
 * smallcap-lib) so that the cap shows on a few ranks. */
#ifndef FL_FILL_CAP
#define FL_FILL_CAP 64
#endif
/* Smallest block a partly filled buffer is cut to when it ships. */
#define FL_MIN_SHIPPED 64

typedef struct {
    uint64_t pool;        /* OMNIBUS_EAGER_POOL */
    uint64_t block;       /* B, OMNIBUS_BUFFER_SIZE */
    int nranks;           /* P */
    int npeers;           /* distinct next hops of this rank */
    int rx_blocks;        /* wire receives kept posted */
    uint64_t relay_pairs; /* fl_relay_pairs_* */
    int fill_cap;         /* the build's cap in full buffers, FL_FILL_CAP
                             when 0 (omnibus-plan --cap weighs others) */
} fl_params;

/* The base window of one (source, destination) pair, in bytes: what every
 * pair holds before any demand, min(FL_WINDOW_MAX, pool / (2 (P-1))). */
uint64_t fl_window(uint64_t pool, int nranks);

/* The grown window (beyond its base windows) one source may hold over all
 * its destinations together. */
static inline uint64_t fl_sender_budget(uint64_t pool)
{
    return pool / 2;
}

/* The grown window a relay carries at once for all the pairs whose route
 * passes it. */
static inline uint64_t fl_relay_budget(uint64_t pool)
{
    return pool / 2;
}

/* The growth a STALL passing a relay may still ask for: what it asked
 * (`accept`), within what the relay's budget leaves once the growth it
 * carries (`carried`) and the growth earlier STALLs reserved there
 * (`reserved`) are counted. */
static inline uint64_t fl_relay_cap(uint64_t pool, uint64_t carried,
                                    uint64_t reserved, uint64_t accept)
{
    uint64_t budget = fl_relay_budget(pool), used = carried + reserved;
    uint64_t left = budget > used ? budget - used : 0;
    return accept < left ? accept : left;
}

/* A step that never comes: the window returns credit only when its source
 * stalls. */
#define FL_STEP_NONE UINT32_MAX

/* Consumed bytes a destination gathers before it returns them to the
 * source of a window of `window` bytes: a quarter window, at most
 * FL_STEP_MAX; FL_STEP_NONE for a window below FL_GROW_MIN, which a source
 * that keeps sending exhausts at once and grows by its STALL (a step of a
 * quarter of a few hundred bytes sent a CREDIT for every one or two items
 * consumed). */
static inline uint32_t fl_step(uint64_t window)
{
    if (window < FL_GROW_MIN)
        return FL_STEP_NONE;
    uint64_t q = window / 4;
    return q > FL_STEP_MAX ? FL_STEP_MAX : (uint32_t)q;
}

/* How many bytes a window of `window` bytes grows by when its source ran
 * out of it and its destination is consuming: it doubles (at least
 * FL_GROW_MIN), within FL_WINDOW_MAX, what the destination has left to
 * lend (`unlent`) and what the source can still take (`accept`). */
uint64_t fl_growth(uint64_t window, uint64_t unlent, uint64_t accept);

/* The bound above, in bytes. */
uint64_t fl_memory_bound(const fl_params *p);

/* The sender's silence (docs/design/flow-control.md, The clocks).  A
 * waiting send takes a destination that answered nothing for its silence
 * as not consuming; but on a virtual machine the host may take its cores
 * (steal time), and a destination that did not run for that long said
 * nothing because it could not.  The host's steal during the silence
 * excuses as much of it, each time the silence runs out: the excuse is
 * the steal since the last look, at most the time that passed (the
 * steal is summed over the machine's cores), and at most
 * FL_EXCUSE_MAX over one wait, so a destination that is silent for good
 * is still found out while the host keeps taking cores. */
#define FL_EXCUSE_MAX ((uint64_t)1000000000)

/* The nanoseconds of silence to excuse: `stolen` ns of steal since the
 * last look, `elapsed` ns since then, `excused` ns already excused in
 * this wait. */
static inline uint64_t fl_silence_excuse(uint64_t stolen, uint64_t elapsed,
                                         uint64_t excused)
{
    uint64_t left = excused < FL_EXCUSE_MAX ? FL_EXCUSE_MAX - excused : 0;
    uint64_t e = stolen < elapsed ? stolen : elapsed;
    return e < left ? e : left;
}

/* The steal column of /proc/stat's "cpu" line (the machine's cores
 * together), in the kernel's clock ticks, from the file's text; 0 where
 * the line or the column is missing or malformed (a kernel that does not
 * count steal, a machine that is not virtual). */
uint64_t fl_steal_ticks(const char *proc_stat);

/* Pairs whose route passes `me` as an intermediate, counted route by route:
 * exact for any grid, O(P^2 x N), for jobs up to a few thousand ranks. */
uint64_t fl_relay_pairs_counted(const rt_grid *g, int me);

/* The same for a complete grid (product of the sizes == P), where every
 * rank relays for sum over a of (a-1) e_a pairs: O(N^2). */
uint64_t fl_relay_pairs_complete(const rt_grid *g);

/* An upper bound for any grid, complete or not, and any rank:
 * prod (2 s_k - 1) - 2 prod s_k + 1, since a relay agrees with the source
 * or the destination in every coordinate (flow.c).  O(N), independent of
 * P; on a complete grid it is within 2^N of the exact count. */
uint64_t fl_relay_pairs_box(const rt_grid *g);

/* fl_relay_pairs_complete on a complete grid, fl_relay_pairs_counted on an
 * incomplete one up to FL_COUNTED_MAX ranks, and beyond that
 * fl_relay_pairs_box, or the trivial (P-1)(P-2) where that is fewer:
 * `auto` builds incomplete grids that large (11x10x10x10x10x10 at
 * 1,048,576 ranks). */
#define FL_COUNTED_MAX 4096
uint64_t fl_relay_pairs(const rt_grid *g, int me);

#endif
