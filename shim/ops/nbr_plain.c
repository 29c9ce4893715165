#include "shim/ops/nbr_plain.h"
#include "shim/engine/preq.h"
#include "shim/transport/transport.h"
#include "shim/base/dtype.h"
#include <stdlib.h>
#include <string.h>
#include "omni_have.h"
#include "shim/base/fail.h"

/* Only a persistent neighbourhood collective comes here (MPI-4.0; none in
 * Open MPI 4.1, whose programs cannot make one). */
#if OMNI_HAVE_MPI_Neighbor_allgather_init

typedef struct {
    nbr_args a;               /* arrays point into the copies below */
    MPI_Comm comm;
    MPI_Count *counts;        /* send counts, then receive counts */
    MPI_Aint *displs;         /* likewise */
    MPI_Datatype *types;      /* alltoallw: likewise */
    MPI_Datatype *held;       /* our references (dtype_hold) */
    int nheld;
} plain_op;

static int degrees(MPI_Comm comm, int *indeg, int *outdeg)
{
    int kind, rank, w, rc = PMPI_Topo_test(comm, &kind);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == MPI_DIST_GRAPH)
        return PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
    if (kind == MPI_CART) {
        rc = PMPI_Cartdim_get(comm, indeg);
        *indeg *= 2;
        *outdeg = *indeg;
        return rc;
    }
    if (kind == MPI_GRAPH) {
        PMPI_Comm_rank(comm, &rank);
        rc = PMPI_Graph_neighbors_count(comm, rank, indeg);
        *outdeg = *indeg;
        return rc;
    }
    return MPI_ERR_TOPOLOGY;
}

static int plain_start(void *state, MPI_Request *inner)
{
    omni.stats.nbr_under++;
    plain_op *p = state;
    const nbr_args *a = &p->a;
    switch (a->kind) {
    case NBR_ALLGATHER:
        return PMPI_Ineighbor_allgather_c(a->sbuf, a->scount, a->stype, a->rbuf,
                                          a->rcount, a->rtype, p->comm, inner);
    case NBR_ALLGATHERV:
        return PMPI_Ineighbor_allgatherv_c(a->sbuf, a->scount, a->stype,
                                           a->rbuf, a->rcounts, a->rdispls,
                                           a->rtype, p->comm, inner);
    case NBR_ALLTOALL:
        return PMPI_Ineighbor_alltoall_c(a->sbuf, a->scount, a->stype, a->rbuf,
                                         a->rcount, a->rtype, p->comm, inner);
    case NBR_ALLTOALLV:
        return PMPI_Ineighbor_alltoallv_c(a->sbuf, a->scounts, a->sdispls,
                                          a->stype, a->rbuf, a->rcounts,
                                          a->rdispls, a->rtype, p->comm, inner);
    default:
        return PMPI_Ineighbor_alltoallw_c(
            a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts,
            a->rdispls, a->rtypes, p->comm, inner);
    }
}

static void plain_release(void *state)
{
    plain_op *p = state;
    for (int i = 0; i < p->nheld; i++)
        dtype_release(p->held[i]);
    free(p->held);
    free(p->counts);
    free(p->displs);
    free(p->types);
    free(p);
}

static const preq_ops plain_ops = {plain_start, plain_release};

static void *copy_or_die(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p)
        omni_out_of_memory("a persistent neighbourhood collective");
    return p;
}

int nbr_plain_init(const nbr_args *a, MPI_Comm comm, MPI_Request *request)
{
    int indeg, outdeg, rc = degrees(comm, &indeg, &outdeg);
    if (rc != MPI_SUCCESS)
        return rc;
    plain_op *p = copy_or_die(sizeof *p);
    size_t n = (size_t)indeg + (size_t)outdeg;
    p->a = *a;
    p->comm = comm;
    p->counts = copy_or_die(sizeof(MPI_Count) * n);
    p->displs = copy_or_die(sizeof(MPI_Aint) * n);
    int w = a->kind == NBR_ALLTOALLW;
    int aint = a->large || w;
    if (a->kind == NBR_ALLTOALLV || w)
        for (int k = 0; k < outdeg; k++) {
            p->counts[k] = arg_count(a->scounts, a->large, k);
            p->displs[k] = arg_disp(a->sdispls, aint, k);
        }
    if (a->kind != NBR_ALLGATHER && a->kind != NBR_ALLTOALL)
        for (int j = 0; j < indeg; j++) {
            p->counts[outdeg + j] = arg_count(a->rcounts, a->large, j);
            p->displs[outdeg + j] = arg_disp(a->rdispls, aint, j);
        }
    p->a.large = 1;
    p->a.scounts = p->counts;
    p->a.sdispls = p->displs;
    p->a.rcounts = p->counts + outdeg;
    p->a.rdispls = p->displs + outdeg;
    if (w) {
        p->types = copy_or_die(sizeof(MPI_Datatype) * n);
        memcpy(p->types, a->stypes, sizeof(MPI_Datatype) * (size_t)outdeg);
        memcpy(p->types + outdeg, a->rtypes,
               sizeof(MPI_Datatype) * (size_t)indeg);
        p->a.stypes = p->types;
        p->a.rtypes = p->types + outdeg;
    }
    /* Every start uses the types, which the program may free right after
     * this call (MPI-4.1 §5.1.9): references of our own. */
    p->held = copy_or_die(sizeof(MPI_Datatype) * (n + 2));
    MPI_Datatype *slots[2] = {&p->a.stype, &p->a.rtype};
    size_t nslots = 2;
    for (size_t i = 0; i < (w ? n : nslots); i++) {
        MPI_Datatype *at = w ? &p->types[i] : slots[i];
        MPI_Datatype held;
        rc = dtype_hold(*at, &held);
        if (rc != MPI_SUCCESS) {
            plain_release(p);
            return rc;
        }
        if (held != *at)
            p->held[p->nheld++] = held;
        *at = held;
    }
    *request = preq_new_custom(&plain_ops, p, comm);
    return MPI_SUCCESS;
}

#endif
