/* flow: the arithmetic of Omnibus's flow control and of its memory bound,
 * with no MPI (the shim applies it; tests/unit/test_flow.c checks it).
 *
 * The rule.  Every rank accepts at most `pool` bytes of eager items (header
 * included) that its application has not received yet, shared evenly among
 * the P-1 ranks that may send to it: each (source, destination) pair has a
 * window of min(window_max, pool / (P-1)) bytes.  A source sends a message
 * eagerly (copied into the aggregation buffers) only while it fits the
 * window; a message that does not fit takes another path at once: a
 * blocking standard send MPICH's own (its header along the ordered route,
 * its payload straight to the destination, exactly as a message above the
 * threshold does), any other send a rendezvous whose request the program
 * holds.  So no send ever waits for credit: flow control decides the path,
 * never whether to wait.  The
 * destination returns a pair's bytes to its source as its application
 * receives them.
 *
 * The bound.  What one rank holds in Omnibus blocks is at most
 *   rx_blocks x B                      posted wire receives
 * + fill_cap x B                       partly filled outgoing buffers
 * + 2 x pool                           unexpected eager items, and the blocks
 *                                      they arrived in while received in order
 * + 4 x pool                           its own eager items in flight (at most
 *                                      P-1 windows); a shipped block is cut to
 *                                      at most twice its content, and at most
 *                                      4x for a block of one small item
 * + 4 x relay_pairs x window           items it relays for others
 * where relay_pairs is the number of (source, destination) pairs whose route
 * passes this rank as an intermediate.  On a complete grid every rank relays
 * for the same number of pairs, sum over a of (a-1) e_a (e_a: destinations
 * a hops away), so relay_pairs x window <= (N-1) x pool x P/(P-1): every term
 * is independent of P.
 */
#ifndef OMNIBUS_FLOW_H
#define OMNIBUS_FLOW_H

#include <stdint.h>
#include "router/grid.h"

/* The most one pair's window can be, whatever the pool. */
#define FL_WINDOW_MAX ((uint64_t)4 << 20)
/* Partly filled outgoing buffers kept at once; a new one ships the oldest
 * (router/evict.h).  A build may lower it (-DFL_FILL_CAP=4) so that the cap
 * shows on a few ranks. */
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
} fl_params;

/* The window of one (source, destination) pair, in bytes. */
uint64_t fl_window(uint64_t pool, int nranks);

/* The bound above, in bytes. */
uint64_t fl_memory_bound(const fl_params *p);

/* Pairs whose route passes `me` as an intermediate, counted route by route:
 * exact for any grid, O(P^2 x N), for jobs up to a few thousand ranks. */
uint64_t fl_relay_pairs_counted(const rt_grid *g, int me);

/* The same for a complete grid (product of the sizes == P), where every
 * rank relays for sum over a of (a-1) e_a pairs: O(N^2). */
uint64_t fl_relay_pairs_complete(const rt_grid *g);

/* fl_relay_pairs_complete on a complete grid, fl_relay_pairs_counted on an
 * incomplete one up to FL_COUNTED_MAX ranks, and beyond that the trivial
 * (P-1)(P-2) (an incomplete grid that large is never built by `auto`). */
#define FL_COUNTED_MAX 4096
uint64_t fl_relay_pairs(const rt_grid *g, int me);

#endif
