/* grid: the virtual N-dimensional grid of ranks and its routes
 * (docs/design/routing.md).
 *
 * A job of P ranks occupies the first P positions, in row-major order, of a
 * grid of sizes dims[0] x ... x dims[N-1] whose product is at least P (the
 * grid may be incomplete: its last positions may be empty).  The last
 * dimension varies fastest.  A route corrects one coordinate per hop, the
 * highest dimension first, so with dims = {nodes, ranks_per_node} items
 * gather inside a node before they cross the network.
 *
 * Contract of rt_grid_next_hop(): deterministic per (me, dst); every hop
 * lands on an existing position (< P); a route has one hop per coordinate in
 * which source and destination differ, so at most N, also on incomplete grids
 * (the rule and its proof are in grid.c); the link dependencies of all routes
 * are acyclic.  These are checked exhaustively by tests/unit/test_grid.c.
 * Positions outside 0..P-1 are not routed: next_hop, hop_dim and
 * route_length return -1 for them, peers returns 0.  Nothing here knows
 * about MPI: positions are plain integers, and the shim maps them to ranks.
 */
#ifndef OMNIBUS_GRID_H
#define OMNIBUS_GRID_H

#define RT_MAX_DIMS 8

typedef struct {
    int nranks;               /* P: positions 0..P-1 exist */
    int ndims;                /* N */
    int dims[RT_MAX_DIMS];    /* sizes, dims[N-1] varies fastest */
    int stride[RT_MAX_DIMS];  /* stride[N-1] == 1 */
} rt_grid;

/* 0 on success; -1 when nranks < 1, ndims is out of 1..RT_MAX_DIMS, a size
 * is < 1, or the product of the sizes is smaller than nranks (or overflows
 * int).  A refused call leaves *g unchanged. */
int rt_grid_init(rt_grid *g, int nranks, int ndims, const int *dims);

/* The balanced sizes for "Nd": N sizes, as equal as possible, whose product
 * is the smallest one >= nranks among such choices; sizes are non-increasing.
 * Fills dims[0..ndims-1]. */
void rt_grid_balanced_dims(int nranks, int ndims, int *dims);

/* Coordinate of position pos in dimension d. */
int rt_grid_coord(const rt_grid *g, int pos, int d);

/* The next position on the route from me to dst; dst itself when one hop
 * remains; me when me == dst. */
int rt_grid_next_hop(const rt_grid *g, int me, int dst);

/* The dimension a hop from me to next corrects (the one coordinate in which
 * they differ); -1 when me == next or when they differ in several. */
int rt_grid_hop_dim(const rt_grid *g, int me, int next);

/* Number of hops on the route from src to dst (0 when equal). */
int rt_grid_route_length(const rt_grid *g, int src, int dst);

/* 1 when every route between the job's positions takes at most one hop
 * (at most one dimension in which their coordinates differ: `direct`,
 * nodes x 1 rank, or a grid whose ranks fill less than its last row),
 * else 0.  What the shim's
 * collectives ask before they run as Omnibus messages: then no message of
 * theirs waits at a relay. */
int rt_grid_one_hop(const rt_grid *g);

/* The distinct positions that me sends to directly over all destinations,
 * ascending; returns how many there are (at most max are written, so a
 * result > max means the array was too small). */
int rt_grid_peers(const rt_grid *g, int me, int *peers, int max);

#endif
