/* model: what Omnibus's routes do to a job's traffic, in closed form where
 * it is exact and by counting routes where it is not (docs/planning.md).
 * No MPI: it links router/ and config/, the code the library itself routes
 * and sizes its memory with, so the model follows the library.
 *
 * Contract.  pl_traffic_of() fills, for one representative rank `me` of a
 * grid and a traffic pattern, the items it appends to each of its peers per
 * send of a sending rank (its own first hops and the hops it relays), the
 * job's hop shares, and which peers are on another node.  On a complete
 * grid under uniform traffic every rank is alike and the figures are the
 * closed forms below; on any grid up to PL_COUNT_MAX ranks they are counted
 * route by route (exact); beyond that an incomplete grid is estimated from
 * sampled routes.
 */
#ifndef OMNIBUS_PLAN_MODEL_H
#define OMNIBUS_PLAN_MODEL_H

#include <stdint.h>
#include "router/grid.h"

/* Above this many ranks, routes are no longer counted pair by pair. */
#define PL_COUNT_MAX 2048

typedef enum {
    PL_UNIFORM,  /* each send to a uniformly random other rank (gups) */
    PL_ALLTOALL, /* rounds of one send to every other rank, each round in a
                    fresh random order (alltoall_items): the rates of
                    PL_UNIFORM, dealt in rounds by the simulation
                    (pl_sim_params.rounds) */
    PL_PAIRS,    /* rank i < P/2 sends to i + P/2 only (stream) */
    PL_MIRROR,   /* rank i < P/2 sends to P-1-i only (stream -M): on a grid
                    of sides 2 every pair is N hops apart */
    PL_MOORE2D,  /* an 8-point stencil: the ranks on a periodic process
                    grid of MPI_Dims_create(P, 2)'s sizes, row-major, each
                    sending alike to its 8 neighbours (halo -g moore2d -H);
                    on a grid 2 wide, neighbours repeat */
    PL_MEASURED  /* a small run's statistics file (its sends_to): what
                    each rank sent to each */
} pl_pattern_kind;

typedef struct {
    pl_pattern_kind kind;
    const double *sends; /* PL_MEASURED: sends[s * P + d], what rank s sent
                            to rank d, any scale (sends to self unused);
                            owned by the caller */
} pl_pattern;

/* One rank's view.  Peers are listed in `peer` (grid positions); for each,
 * own[i] and relay[i] are the items appended to its buffer per send of a
 * sending rank, final[i] the share of them that end at that peer. */
typedef struct {
    int me;
    int npeers;
    int *peer;
    int *dim;          /* the dimension a hop to peer[i] corrects */
    double *own, *relay, *final;
    unsigned char *off_node;
    double sends;      /* this rank's sends per send of a sending rank: 1,
                          or less for a rank that receives only */
    double senders;    /* share of ranks that send (1, or 1/2 for pairs) */
    double hops[RT_MAX_DIMS + 1]; /* job's sends by route length, shares */
    /* Items that reach this rank over dimension e (in_dim[e]), and those of
     * them it forwards along dimension d (relay_dim[e][d]), per send of a
     * sending rank: a block that arrives is what a neighbour shipped, and
     * the simulation lets its items out in these shares. */
    double in_dim[RT_MAX_DIMS];
    double relay_dim[RT_MAX_DIMS][RT_MAX_DIMS];
    int exact;         /* counted or closed form (1), or sampled (0) */
    /* The rank's destinations, in groups of alike ones: grp_count of them,
     * each taking grp_share of its sends, grp_hops away (flow control
     * counts windows per destination, not per peer). */
    int ngroups;
    double *grp_count, *grp_share;
    int *grp_hops;
} pl_traffic;

/* Which grid positions share a node: `nodes` nodes of `per_node`
 * consecutive positions, or, with round_robin, position p on node p % nodes
 * (OMNIBUS_FAKE_NODES under a topology that keeps ranks in place). */
typedef struct {
    int nodes, per_node, round_robin;
} pl_layout;

/* Fills t for position me of g (nodes NULL: one node).  Patterns whose
 * senders have few destinations (pairs, stencils) are counted route by
 * route at any size, in time linear in P; a histogram is counted pair by
 * pair.  0, or -1 when out of memory. */
int pl_traffic_of(const rt_grid *g, const pl_pattern *pat,
                  const pl_layout *nodes, int me, pl_traffic *t);

/* The sizes of the stencil's process grid, as MPI_Dims_create(P, 2) gives
 * them: a product of exactly P, as square as possible, non-increasing. */
/* The same for the n positions me[0..n-1] at once (one pass over the
 * senders), into ts[0..n-1]; 0, or -1 when out of memory (free each t
 * either way). */
int pl_traffic_of_ranks(const rt_grid *g, const pl_pattern *pat,
                        const pl_layout *nodes, int n, const int *me,
                        pl_traffic *ts);

void pl_stencil_dims(int P, int dims[2]);
void pl_traffic_free(pl_traffic *t);

/* The closed forms on a complete grid, uniform traffic (exported so the unit
 * tests pin them against counted routes). */
/* Destinations exactly a hops away (the elementary symmetric polynomials of
 * s_d - 1), for a = 0..N. */
void pl_hop_counts(const rt_grid *g, double *e);
/* Hops along dimension d per send, over all ranks' sends: (P - P/s_d) /
 * (P - 1). */
double pl_dim_hops_per_send(const rt_grid *g, int d);
/* First hops along dimension d per send (the highest differing dimension is
 * d): (s_d - 1) x prod over e < d of s_e / (P - 1). */
double pl_dim_first_hops_per_send(const rt_grid *g, int d);
/* Items a rank forwards along d of those that reached it over e, per send:
 * d is the highest differing dimension below e, so (s_e - 1)(s_d - 1) x
 * prod_{f>e} s_f x prod_{f<d} s_f over P - 1 (0 unless d < e). */
double pl_relay_dim_per_send(const rt_grid *g, int e, int d);
/* Peers of a rank of a complete grid: sum of (s_d - 1). */
int pl_complete_peers(const rt_grid *g);
int pl_grid_complete(const rt_grid *g);

#endif
