/* choose: the grid `auto` builds for a job, from the planning model's
 * closed forms (docs/design/routing.md, Choosing the grid: auto;
 * docs/planning.md).  No MPI: the shim (shim/entry/topology.c) and
 * omnibus-plan call the same function.  tests/unit/test_choose.c.
 *
 * The score of a candidate grid is its wire messages per send for uniform
 * traffic from a program that polls every RC_POLL sends: along dimension d
 * a rank appends h_d items per send (routing.md, How many hops) over its
 * s_d - 1 buffers there, and a buffer carries the fewest of
 *  - full:  the items one buffer holds, B / item;
 *  - idle:  a buffer leaves after R sending rounds without an append,
 *           router/adapt.h's wait: OMNIBUS_IDLE_ROUNDS x F / w (at least
 *           OMNIBUS_IDLE_ROUNDS) for F = min(K, cap) buffers filling, of
 *           which a round writes w = sum over d of (s_d - 1) p_d (p_d
 *           below); rc_score
 *           passes rc_items_per_block a rule whose idle_rounds is that R.
 *           A round of `poll` sends appends x = poll h_d
 *           / (s_d - 1) items to it on average, and any with chance p =
 *           1 - (1 - h_d / (s_d - 1))^poll; after each round that appends,
 *           the next R all miss with chance q^R (q = 1 - p), so a block
 *           gets 1 / q^R appending rounds of x / p items each: (x / p) /
 *           q^R items (1 / q^R for a program that polls after every send);
 *  - age:   a buffer leaves OMNIBUS_FLUSH_US after its first item, by
 *           when the rank made age_sends sends, h_d / (s_d - 1) of them per
 *           send for this buffer;
 *  - cap:   K / (K - F) when the rank's K peers exceed the F buffers the
 *           cap holds at once (rc_open_buffers: the cap counts bytes, and
 *           a buffer carrying n items under the rules above needs the room
 *           router/evict.h opens and grows it to for n items): a buffer
 *           then ships when a newer one opens, and an item finds its
 *           buffer open with chance F / K.
 * `direct` is taken unless a grid at least halves its score: a relay hop
 * costs a latency-bound exchange one more message's time.  Candidates are
 * tried fewest hops first, and the first that halves direct's score is
 * taken: the node grid (on nodes of equal size), then, only where direct's
 * P - 1 peers exceed the cap, balanced grids of 2 to RC_MAX_BALANCED
 * dimensions (placed node by node).  Counting wire messages alone would
 * always favour more dimensions, each cutting a rank's peers further; the
 * order charges the hops instead.  With the age
 * term this is the rule `auto` followed before the model (the node grid
 * where it halves a rank's peers) on every layout the benchmarks cover:
 * direct on 2 x 2, 4 x 2 and 3 x 2, the node grid on 3 x 3 and 4 x 4
 * (docs/design/routing.md).  On one node
 * with at most cap + 1 ranks every candidate fills its buffers, and
 * `direct` is taken: on shared memory a relay hop is a copy and saves no
 * network message.
 */
#ifndef OMNIBUS_CHOOSE_H
#define OMNIBUS_CHOOSE_H

#include <stdint.h>
#include "router/grid.h"

/* Sends between two polls the score assumes (the benchmarks' drain
 * interval). */
#define RC_POLL 64
/* Sends per microsecond per rank the score assumes for the age flush: a
 * fine-grained kernel's order of magnitude (a send costs about 0.2 to 1 us,
 * bench/results/report.md). */
#define RC_SENDS_PER_US 1.0
/* Dimensions tried beyond direct and the node grid. */
#define RC_MAX_BALANCED 6

typedef struct {
    uint64_t block;       /* B */
    uint64_t item;        /* bytes of one item, header included */
    uint64_t idle_rounds; /* R */
    int cap;              /* FL_FILL_CAP, in full buffers */
    long poll;            /* sends between polls, RC_POLL for `auto` */
    double age_sends;     /* sends a rank makes in OMNIBUS_FLUSH_US:
                             flush_us x RC_SENDS_PER_US for `auto`; 0
                             leaves the age flush out */
} rc_rule;

typedef enum {
    RC_DIRECT_ONE_NODE,  /* one node, cap not reached: direct */
    RC_DIRECT_BEST,      /* no grid halves direct's score */
    RC_NODE_GRID_HALVES, /* the node grid's score is at most half
                            direct's */
    RC_GRID_HALVES       /* direct exceeds the cap, and this balanced grid,
                            the fewest dimensions that do, scores at most
                            half direct's */
} rc_reason;

typedef struct {
    int ndims;
    int dims[RT_MAX_DIMS];
    int node_grid;       /* dims = {nodes, ranks per node} */
    double score;        /* wire messages per send */
    double direct_score;
    rc_reason reason;
} rc_choice;

/* The buffers that fill at once under the cap on a rank of K peers whose
 * blocks would carry `items` items were it not for the cap: the cap's
 * bytes over the room such a buffer needs (router/evict.h). */
double rc_open_buffers(const rc_rule *r, int K, double items);

/* Items per block along one dimension of s ranks, for a rank of K peers in
 * all that appends h items along it per send (closed form above). */
double rc_items_per_block(const rc_rule *r, int s, double h, int K);

/* Wire messages per send of a complete or incomplete grid, by the closed
 * forms (incomplete grids are scored as if complete). */
double rc_score(const rc_rule *r, int nranks, int ndims, const int *dims);

/* The grid for P ranks on `nnodes` nodes (equal: every node holds P/nnodes
 * ranks, placed node by node); the node grid is a candidate only then. */
void rc_choose(const rc_rule *r, int nranks, int nnodes, int equal,
               rc_choice *out);

/* One line saying why, for the docs and omnibus-plan. */
const char *rc_reason_text(rc_reason why);

#endif
