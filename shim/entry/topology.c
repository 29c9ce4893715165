#include "shim/entry/topology.h"
#include "shim/base/state.h"
#include "router/choose.h"
#include "router/flow.h"
#include "shim/base/fail.h"
#include <stdio.h>
#include <stdlib.h>

/* Node layout: which node each world rank is on, and its rank within it.
 * OMNIBUS_FAKE_NODES=k (for tests; 1 <= k <= ranks, cfg_check_job) pretends
 * rank r is on node r % k, a placement that is deliberately not in
 * blocks. */
static void node_layout(int *node_of, int *local_of, int *nnodes)
{
    int my_node, my_local, k = omni.job.cfg.fake_nodes;
    if (k > 0) {
        my_node = omni.job.rank % k;
        my_local = omni.job.rank / k;
    } else {
        MPI_Comm shared;
        PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &shared);
        PMPI_Comm_rank(shared, &my_local);
        /* A node is named by its lowest world rank. */
        int leader = omni.job.rank;
        PMPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared);
        PMPI_Comm_free(&shared);
        my_node = leader;
    }
    int mine[2] = {my_node, my_local};
    int *all = malloc(sizeof(int) * 2 * (size_t)omni.job.size);
    int *dense = malloc(sizeof(int) * (size_t)omni.job.size);
    if (!all || !dense)
        omni_out_of_memory("the node layout");
    PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    /* Number nodes densely in order of their first rank. */
    for (int r = 0; r < omni.job.size; r++)
        dense[r] = -1;
    *nnodes = 0;
    for (int r = 0; r < omni.job.size; r++) {
        int n = all[2 * r];
        if (dense[n] < 0)
            dense[n] = (*nnodes)++;
        node_of[r] = dense[n];
        local_of[r] = all[2 * r + 1];
    }
    free(dense);
    free(all);
}

/* Chooses the grid for `auto` and the rank -> position map: the planning
 * model's pick (router/choose.h; docs/design/routing.md, Choosing the
 * grid: auto), scored with the buffer size the job will use (the network
 * default across nodes).  `always` (the `nodes` topology) builds the node
 * grid whatever it saves.  Positions go node by node, so that the last,
 * fastest varying dimensions stay inside a node where the sizes allow;
 * unequal nodes would leave holes inside the node grid, which the router
 * does not allow, so only a balanced grid in rank order or direct is
 * chosen for them. */
static void auto_grid(const int *node_of, const int *local_of, int nnodes,
                      int always, int *pos_of, int *dims, int *ndims)
{
    int per = (omni.job.size + nnodes - 1) / nnodes;
    /* P = nnodes x per with no node above per ranks means every node has
     * exactly per: a count that merely divides (3, 2, 1 on three nodes)
     * would put two ranks on one position. */
    int equal = nnodes > 1 && omni.job.size % nnodes == 0;
    for (int r = 0; equal && r < omni.job.size; r++)
        if (local_of[r] >= per)
            equal = 0;
    cfg_settings cfg = omni.job.cfg;
    if (nnodes > 1)
        cfg_use_network_defaults(&cfg);
    rc_rule rule = {.block = cfg.buffer_size, .item = RT_HDR_SIZE + 8,
                    .idle_rounds = (uint64_t)cfg.idle_rounds,
                    .cap = FL_FILL_CAP, .poll = RC_POLL,
                    .age_sends = (double)cfg.flush_us * RC_SENDS_PER_US};
    rc_choice pick;
    rc_choose(&rule, omni.job.size, nnodes, equal, &pick);
    if (always && equal) {
        pick.ndims = 2;
        pick.dims[0] = nnodes;
        pick.dims[1] = per;
    }
    *ndims = pick.ndims;
    for (int d = 0; d < pick.ndims; d++)
        dims[d] = pick.dims[d];
    for (int r = 0; pick.ndims > 1 && equal && r < omni.job.size; r++)
        pos_of[r] = node_of[r] * per + local_of[r];
}

/* omni.job.nodes and omni.job.off_node, for every topology (the defaults depend on
 * the one, the statistics on the other), and for `auto` the grid. */
static void node_grid(int *pos_of, int *dims, int *ndims)
{
    int *node_of = malloc(sizeof(int) * (size_t)omni.job.size);
    int *local_of = malloc(sizeof(int) * (size_t)omni.job.size);
    int nnodes = 1;
    if (!node_of || !local_of)
        omni_out_of_memory("the node layout");
    node_layout(node_of, local_of, &nnodes);
    omni.job.nodes = nnodes;
    for (int r = 0; r < omni.job.size; r++)
        omni.job.off_node[r] = node_of[r] != node_of[omni.job.rank];
    if (omni.job.cfg.topo_kind == CFG_TOPO_AUTO ||
        omni.job.cfg.topo_kind == CFG_TOPO_NODES)
        auto_grid(node_of, local_of, nnodes,
                  omni.job.cfg.topo_kind == CFG_TOPO_NODES, pos_of, dims, ndims);
    free(node_of);
    free(local_of);
}

/* The grid and this rank's routes, with pos_of and rank_at as scratch of
 * omni.job.size entries each; 0, or -1 with err set. */
static int routes_build(int *pos_of, int *rank_at, char *err, size_t errlen)
{
    int dims[RT_MAX_DIMS], ndims = 1, P = omni.job.size;
    for (int r = 0; r < P; r++)
        pos_of[r] = r;
    dims[0] = P;
    node_grid(pos_of, dims, &ndims);
    switch (omni.job.cfg.topo_kind) {
    case CFG_TOPO_DIRECT:
    case CFG_TOPO_AUTO:
    case CFG_TOPO_NODES:
        break;
    case CFG_TOPO_BALANCED:
        ndims = omni.job.cfg.ndims;
        rt_grid_balanced_dims(P, ndims, dims);
        break;
    case CFG_TOPO_EXPLICIT:
        ndims = omni.job.cfg.ndims;
        for (int d = 0; d < ndims; d++)
            dims[d] = omni.job.cfg.dims[d];
        break;
    }
    if (rt_grid_init(&omni.job.grid, P, ndims, dims) != 0) {
        snprintf(err, errlen, "the grid of %d dimensions cannot hold %d ranks",
                 ndims, P);
        return -1;
    }
    for (int r = 0; r < P; r++)
        rank_at[pos_of[r]] = r;
    int me = pos_of[omni.job.rank];
    omni.job.grid_pos = me;
    /* A rank is a next hop when it is its own next hop; the next hops take
     * slots 0, 1, ... in world rank order, this rank the slot after them.
     * hop_slot holds the next hop's world rank until every slot is known. */
    omni.job.npeers = 0;
    for (int r = 0; r < P; r++) {
        int pos = pos_of[r];
        omni.job.hop_slot[r] = rank_at[rt_grid_next_hop(&omni.job.grid, me, pos)];
        omni.job.route_len[r] = rt_grid_route_length(&omni.job.grid, me, pos);
        if (r != omni.job.rank && omni.job.hop_slot[r] == r)
            omni.job.npeers++;
    }
    omni.job.self_slot = omni.job.npeers;
    omni.job.hop_rank = malloc(sizeof(int) * (size_t)(omni.job.npeers + 1));
    omni.job.hop_dim = malloc(sizeof(int) * (size_t)(omni.job.npeers + 1));
    if (!omni.job.hop_rank || !omni.job.hop_dim)
        omni_out_of_memory("the route table");
    for (int r = 0, slot = 0; r < P; r++) {
        if (r == omni.job.rank || omni.job.hop_slot[r] != r)
            continue;
        omni.job.hop_rank[slot] = r;
        omni.job.hop_dim[slot] = rt_grid_hop_dim(&omni.job.grid, me, pos_of[r]);
        rank_at[pos_of[r]] = -1 - slot; /* r's slot, for the pass below */
        slot++;
    }
    omni.job.hop_rank[omni.job.self_slot] = omni.job.rank;
    omni.job.hop_dim[omni.job.self_slot] = -1;
    for (int r = 0; r < P; r++) {
        int next = omni.job.hop_slot[r];
        int slot = next == omni.job.rank ? omni.job.self_slot
                                         : -1 - rank_at[pos_of[next]];
        if (slot < 0 || slot > omni.job.self_slot) {
            snprintf(err, errlen, "the grid routes rank %d through rank %d, "
                     "which is not one hop away", r, next);
            return -1;
        }
        omni.job.hop_slot[r] = slot;
    }
    return 0;
}

int topology_setup(char *err, size_t errlen)
{
    size_t P = (size_t)omni.job.size;
    int *pos_of = malloc(sizeof(int) * P);
    int *rank_at = malloc(sizeof(int) * P);
    omni.job.hop_slot = malloc(sizeof(int) * P);
    omni.job.route_len = malloc(sizeof(int) * P);
    omni.job.off_node = calloc(P, 1);
    if (!pos_of || !rank_at || !omni.job.hop_slot || !omni.job.route_len ||
        !omni.job.off_node)
        omni_out_of_memory("the route table");
    int rc = routes_build(pos_of, rank_at, err, errlen);
    free(pos_of);
    free(rank_at);
    return rc;
}

void topology_free(void)
{
    free(omni.job.hop_slot);
    free(omni.job.hop_rank);
    free(omni.job.hop_dim);
    free(omni.job.route_len);
    free(omni.job.off_node);
    omni.job.hop_slot = omni.job.hop_rank = omni.job.hop_dim = NULL;
    omni.job.route_len = NULL;
    omni.job.off_node = NULL;
}
