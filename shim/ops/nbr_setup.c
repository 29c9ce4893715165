/* nbr_setup: the schedule of a topology communicator, built when the
 * communicator is made, and its life until the last user lets it go (see
 * neighbor.h). */
#include "shim/ops/neighbor.h"
#include "shim/ops/nbr_exec.h"
#include "shim/progress/progress.h"
#include "shim/base/fail.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void *nbr_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p)
        omni_out_of_memory("a neighbourhood schedule");
    return p;
}

static int proc_or_none(int r)
{
    return r == MPI_PROC_NULL ? -1 : r;
}

/* This rank's source and destination lists, in the order MPI defines the
 * collectives' buffers: the distributed graph's as stored, the graph's
 * neighbours both ways, and for a Cartesian communicator, per dimension,
 * the neighbour at -1 then at +1. */
static void topo_lists(MPI_Comm comm, int kind, int rank, int *indeg,
                       int **in, int *outdeg, int **out)
{
    if (kind == MPI_DIST_GRAPH) {
        int weighted;
        PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &weighted);
        *in = nbr_alloc(sizeof(int) * (size_t)*indeg);
        *out = nbr_alloc(sizeof(int) * (size_t)*outdeg);
        int *wi = weighted ? nbr_alloc(sizeof(int) * (size_t)*indeg) : NULL;
        int *wo = weighted ? nbr_alloc(sizeof(int) * (size_t)*outdeg) : NULL;
        PMPI_Dist_graph_neighbors(comm, *indeg, *in,
                                  weighted ? wi : MPI_UNWEIGHTED, *outdeg, *out,
                                  weighted ? wo : MPI_UNWEIGHTED);
        free(wi);
        free(wo);
        return;
    }
    if (kind == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, rank, indeg);
        *outdeg = *indeg;
        *in = nbr_alloc(sizeof(int) * (size_t)*indeg);
        *out = nbr_alloc(sizeof(int) * (size_t)*outdeg);
        PMPI_Graph_neighbors(comm, rank, *indeg, *in);
        memcpy(*out, *in, sizeof(int) * (size_t)*indeg);
        return;
    }
    int nd;
    PMPI_Cartdim_get(comm, &nd);
    *indeg = *outdeg = 2 * nd;
    *in = nbr_alloc(sizeof(int) * (size_t)*indeg);
    *out = nbr_alloc(sizeof(int) * (size_t)*outdeg);
    for (int d = 0; d < nd; d++) {
        int lo, hi;
        PMPI_Cart_shift(comm, d, 1, &lo, &hi);
        (*in)[2 * d] = (*out)[2 * d] = proc_or_none(lo);
        (*in)[2 * d + 1] = (*out)[2 * d + 1] = proc_or_none(hi);
    }
}

/* For each source slot, the slot of the same source's occurrence at the
 * same distance from the end of the list. */
static int *mirror_of(const int *in, int indeg)
{
    int *m = nbr_alloc(sizeof(int) * (size_t)(indeg + 1));
    for (int j = 0; j < indeg; j++) {
        int after = 0;
        for (int i = j + 1; i < indeg; i++)
            after += in[i] == in[j];
        for (int i = 0; i < indeg; i++)
            if (in[i] == in[j] && after-- == 0)
                m[j] = i;
    }
    return m;
}

static nbr_module *module_get(void)
{
    if (!omni.ops.nbr) {
        omni.ops.nbr = nbr_alloc(sizeof *omni.ops.nbr);
        if (nbr_exec_init(omni.ops.nbr) != MPI_SUCCESS)
            omni_out_of_memory("a generalized-request class");
    }
    return omni.ops.nbr;
}

/* Every member learns every list (one allgather of degrees and ids, one
 * of the lists) and computes the same pattern.  That costs O(edges) memory
 * per rank; exchanging lists only between neighbours and friends would
 * cost a round of messages per pairing step instead
 * (docs/design/neighbourhood.md, How it runs).  Members agree that all
 * built a plan before any uses it. */
int nbr_comm_created(comm_rec *c)
{
    cfg_neighbor mode = omni.job.nbr_mode;
    int kind = MPI_UNDEFINED;
    if (mode == CFG_NEIGHBOR_PLAIN ||
        PMPI_Topo_test(c->handle, &kind) != MPI_SUCCESS ||
        (kind != MPI_DIST_GRAPH && kind != MPI_CART && kind != MPI_GRAPH))
        return MPI_SUCCESS;
    MPI_Comm comm = c->handle;
    int n = c->size, indeg, outdeg, *in, *out;
    topo_lists(comm, kind, c->rank, &indeg, &in, &outdeg, &out);

    int mine[3] = {outdeg, indeg, (int)omni.match.next_comm_id};
    int *all = nbr_alloc(sizeof(int) * 3 * (size_t)n);
    MPI_Request req;
    int rc = prog_wait_started(
        PMPI_Iallgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm, &req), &req);
    int *counts = nbr_alloc(sizeof(int) * (size_t)n);
    int *displs = nbr_alloc(sizeof(int) * (size_t)n);
    int *out_off = nbr_alloc(sizeof(int) * (size_t)(n + 1));
    int *in_off = nbr_alloc(sizeof(int) * (size_t)(n + 1));
    uint32_t id = 0;
    int total = 0, tout = 0, tin = 0;
    for (int p = 0; p < n && rc == MPI_SUCCESS; p++) {
        counts[p] = all[3 * p] + all[3 * p + 1];
        displs[p] = total;
        total += counts[p];
        out_off[p] = tout;
        in_off[p] = tin;
        tout += all[3 * p];
        tin += all[3 * p + 1];
        if ((uint32_t)all[3 * p + 2] > id)
            id = (uint32_t)all[3 * p + 2];
    }
    out_off[n] = tout;
    in_off[n] = tin;
    int *lists = nbr_alloc(sizeof(int) * (size_t)(total + 1));
    int *mylist = nbr_alloc(sizeof(int) * (size_t)(indeg + outdeg + 1));
    memcpy(mylist, out, sizeof(int) * (size_t)outdeg);
    memcpy(mylist + outdeg, in, sizeof(int) * (size_t)indeg);
    if (rc == MPI_SUCCESS)
        rc = prog_wait_started(PMPI_Iallgatherv(mylist, outdeg + indeg, MPI_INT,
                                                lists, counts, displs, MPI_INT,
                                                comm, &req),
                               &req);
    int *gout = nbr_alloc(sizeof(int) * (size_t)(tout + 1));
    int *gin = nbr_alloc(sizeof(int) * (size_t)(tin + 1));
    for (int p = 0; p < n && rc == MPI_SUCCESS; p++) {
        memcpy(gout + out_off[p], lists + displs[p],
               sizeof(int) * (size_t)all[3 * p]);
        memcpy(gin + in_off[p], lists + displs[p] + all[3 * p],
               sizeof(int) * (size_t)all[3 * p + 1]);
    }
    ns_graph g = {n, out_off, gout, in_off, gin};
    ns_plan plan;
    int theta = mode == CFG_NEIGHBOR_GRID ? INT_MAX : omni.job.cfg.neighbor_theta;
    int flags = mode == CFG_NEIGHBOR_GRID ? 0 : NS_TRY_DIMS;
    int ok = rc == MPI_SUCCESS &&
             ns_build(&g, theta, flags, c->rank, 1, &plan) == 0;
    int all_ok = 0;
    if (rc == MPI_SUCCESS)
        rc = prog_wait_started(
            PMPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm, &req),
            &req);
    free(all), free(counts), free(displs), free(out_off), free(in_off);
    free(lists), free(mylist), free(gout), free(gin);
    if (rc != MPI_SUCCESS || !all_ok) {
        /* An inconsistent graph (or a failed collective) leaves the
         * communicator to the underlying MPI's neighbourhood collectives, on
         * every member alike. */
        if (ok)
            ns_plan_free(&plan);
        free(in);
        free(out);
        return rc;
    }
    nbr_module *mod = module_get();
    nbr_topo *t = nbr_alloc(sizeof *t);
    t->refs = 1;
    t->user = comm;
    t->rank = c->rank;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->in = in;
    t->out = out;
    t->plan = plan;
    t->mirror = mirror_of(in, indeg);
    t->shadow = comm_add_shadow(c, id);
    if (!t->shadow)
        omni_out_of_memory("a neighbourhood schedule");
    t->next = mod->topos;
    mod->topos = t;
    c->nbr = t;
    return MPI_SUCCESS;
}

void nbr_comm_freed(comm_rec *c)
{
    nbr_topo *t = c->nbr;
    c->nbr = NULL;
    t->user = MPI_COMM_NULL;
    nbr_topo_unref(t);
}

void nbr_finalize(void)
{
    nbr_module *mod = omni.ops.nbr;
    if (!mod)
        return;
    while (mod->topos) {
        nbr_topo *t = mod->topos;
        mod->topos = t->next;
        nbr_topo_destroy(t); /* the shadow records go with the table */
    }
    free(mod);
    omni.ops.nbr = NULL;
}

