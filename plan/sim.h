/* sim: one rank's buffers under Omnibus's own leaving rules, event by
 * event (docs/planning.md).  The rank appends the items the model says it
 * appends (model.h: its own first hops and what it relays), in rounds of
 * `k` sends between two polls, and its buffers leave by the library's
 * rules: full (the next item does not fit), the cap (router/evict.h, the
 * very functions the transport calls), idle (router/adapt.h's verdict), and
 * before a blocking call (every `blocking` sends, and the one that ends the
 * run).  The age flush
 * (OMNIBUS_FLUSH_US) depends on time, not counts: the model leaves it out,
 * which is exact when rounds come faster than it (docs/planning.md).
 */
#ifndef OMNIBUS_PLAN_SIM_H
#define OMNIBUS_PLAN_SIM_H

#include <stdint.h>
#include "plan/model.h"

typedef struct {
    uint64_t block;     /* B, OMNIBUS_BUFFER_SIZE */
    uint64_t item;      /* bytes of one item: header and message */
    int cap;            /* the cap, in full buffers (FL_FILL_CAP):
                           router/evict.h counts it in bytes */
    uint64_t idle_rounds;
    long k;             /* sends between two polls; 0: none until the end */
    long n;             /* sends of a sending rank */
    long blocking;      /* sends between two blocking calls, each of which
                           ships every buffer; 0: only the call that ends
                           the run */
    int rx_blocks;      /* wire receives kept posted */
    int rounds;         /* the rank's own sends come in rounds of one to
                           every destination, each round in a fresh random
                           order (alltoall_items) */
    int ordered;        /* the rank's own sends go to their destinations in
                           turn (a stencil), not drawn at random (gups) */
    uint64_t window;    /* each pair's base window (router/flow.h's
                           fl_window, for OMNIBUS_FLOW_RANKS or P ranks);
                           0: flow control left out */
    uint64_t seed;
} pl_sim_params;

typedef struct {
    double appended;                 /* items into buffers */
    double own;                      /* of which the rank's own */
    double blocks;                   /* wire messages */
    double blocks_dim[RT_MAX_DIMS];
    double items_dim[RT_MAX_DIMS];
    double blocks_off_node;
    double full, cap, idle, end;     /* why they left; cap is counted as
                                        `full` by the library */
    double urgent;                   /* shipped for a STALL or its GRANT */
    double stalls, grants;           /* flow control's (flow.h) */
    double window_max;               /* the largest window a pair grew to */
    double peak_bytes;               /* blocks held at once, at most */
    double peak_fill_bytes;          /* of which the buffers filling, with
                                        their headers */
    int peak_filling;
} pl_sim_result;

/* Flow control (router/flow.h), for a receiver that consumes what
 * arrives: a pair whose window is below FL_GROW_MIN gets no credit unasked,
 * so its source stalls each time it has sent a window, and the GRANT
 * doubles it (fl_growth); from a window of FL_GROW_MIN on, credit comes
 * back in steps of a quarter window, and a source stalls again only while
 * a window is less than what it can have unanswered: a buffer filling, a
 * block travelling, a step not yet returned and what it sends the pair
 * between two polls (2 B + window / 4 + k x share x item); a source that
 * never polls (a stream of blocking sends) reads the steps only in its
 * stalls, and stalls at every window it has sent.  Each
 * stall ships the buffer it went into and every other one (the send waits
 * in a blocking call for the GRANT), and urgent wire messages along its
 * route (the STALL and the GRANT, sim.c's URGENT_PER_HOP).  Fallbacks to
 * MPI happen only when a receiver does not consume: none here. */

/* Runs one rank; 0, or -1 when out of memory. */
int pl_sim_rank(const pl_traffic *t, const pl_sim_params *p,
                pl_sim_result *r);

/* Bytes of the block a record of `len` bytes is held in (the transport's
 * block classes: the smallest power of two of at least 64 bytes, or a full
 * buffer when that is not smaller), with its 24-byte header. */
uint64_t pl_block_bytes(uint64_t len, uint64_t block);

#endif
