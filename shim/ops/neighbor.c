/* neighbor.c: a neighbourhood collective's run by its communicator's
 * schedule (nbr_run, neighbor.h), from the arguments its generated wrapper
 * collected; what it does not take goes back to the wrapper. */
#include "shim/ops/neighbor.h"
#include "shim/ops/nbr_exec.h"
#include "shim/ops/nbr_plain.h"
#include "shim/engine/preq.h"
#include "shim/base/dtype.h"
#include "omni_have.h"
#include "shim/base/fail.h"
#include <stdlib.h>

static int slot(MPI_Datatype type, MPI_Count cnt, MPI_Aint *ext,
                MPI_Count *bytes)
{
    int builtin = dtype_builtin_size(type);
    if (builtin && cnt >= 0) {
        /* contiguous: the extent is the size, no call needed */
        *ext = builtin;
        *bytes = cnt * builtin;
        return 0;
    }
    MPI_Count size = dtype_size(type), lb, extent;
    if (size < 0 || cnt < 0 ||
        PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS)
        return -1;
    *ext = (MPI_Aint)extent;
    *bytes = cnt * size;
    return 0;
}

/* Fills op's slots from the call; -1 when an argument is one MPI rejects
 * (the MPI underneath then reports it). */
static int fill_slots(nbr_op *op, const nbr_args *a)
{
    nbr_topo *t = op->t;
    int w = a->kind == NBR_ALLTOALLW, aint = a->large || w;
    op->sbuf = a->sbuf;
    op->rbuf = a->rbuf;
    op->variable = a->kind != NBR_ALLGATHER && a->kind != NBR_ALLTOALL;
    op->reversed = a->kind == NBR_ALLTOALL;
    op->piece_bytes = 0;
    if (!op->variable) {
        MPI_Aint ext;
        if (slot(a->stype, a->scount, &ext, &op->piece_bytes) != 0)
            return -1;
    }
    for (int k = 0; k < t->outdeg; k++) {
        MPI_Datatype type = w ? a->stypes[k] : a->stype;
        MPI_Count cnt = a->kind == NBR_ALLTOALLV || w
                            ? arg_count(a->scounts, a->large, k) : a->scount;
        MPI_Aint ext;
        if (slot(type, cnt, &ext, &op->s_bytes[k]) != 0)
            return -1;
        op->s_type[k] = type;
        op->s_cnt[k] = cnt;
        op->s_off[k] =
            a->kind == NBR_ALLTOALL    ? (MPI_Aint)k * (MPI_Aint)cnt * ext
            : a->kind == NBR_ALLTOALLV ? arg_disp(a->sdispls, aint, k) * ext
            : w                        ? arg_disp(a->sdispls, 1, k)
                                       : 0;
    }
    for (int j = 0; j < t->indeg; j++) {
        MPI_Datatype type = w ? a->rtypes[j] : a->rtype;
        int per_slot =
            a->kind == NBR_ALLGATHERV || a->kind == NBR_ALLTOALLV || w;
        MPI_Count cnt =
            per_slot ? arg_count(a->rcounts, a->large, j) : a->rcount;
        MPI_Aint ext;
        if (slot(type, cnt, &ext, &op->r_bytes[j]) != 0)
            return -1;
        op->r_type[j] = type;
        op->r_cnt[j] = cnt;
        op->r_off[j] = w ? arg_disp(a->rdispls, 1, j)
                       : per_slot ? arg_disp(a->rdispls, aint, j) * ext
                       : (MPI_Aint)j * (MPI_Aint)cnt * ext;
    }
    return 0;
}

/* Nonblocking and persistent runs outlive the call, and the program may
 * free its datatypes as soon as it returns (MPI-4.1 §5.1.9): the slots take
 * references of their own (one for the send type and one for the receive
 * type, alltoallw one per slot).  Returns an MPI error code. */
static int hold_types(nbr_op *op, const nbr_args *a)
{
    nbr_topo *t = op->t;
    if (!op->types_held) {
        op->types_held = calloc((size_t)(t->outdeg + t->indeg) + 2,
                                sizeof *op->types_held);
        if (!op->types_held)
            return MPI_ERR_NO_MEM;
    }
    int per_slot = a->kind == NBR_ALLTOALLW;
    for (int side = 0; side < 2; side++) {
        MPI_Datatype *types = side ? op->r_type : op->s_type;
        int n = side ? t->indeg : t->outdeg;
        MPI_Datatype shared = MPI_DATATYPE_NULL;
        if (!per_slot) {
            MPI_Datatype orig = side ? a->rtype : a->stype;
            int rc = dtype_hold(orig, &shared);
            if (rc != MPI_SUCCESS)
                return rc;
            if (shared != orig)
                op->types_held[op->ntypes_held++] = shared;
        }
        for (int k = 0; k < n; k++) {
            if (!per_slot) {
                types[k] = shared;
                continue;
            }
            MPI_Datatype held;
            int rc = dtype_hold(types[k], &held);
            if (rc != MPI_SUCCESS)
                return rc;
            if (held != types[k])
                op->types_held[op->ntypes_held++] = held;
            types[k] = held;
        }
    }
    return MPI_SUCCESS;
}

/* Runs of one communicator are told apart by their tags: one per phase
 * (nphase is the same on every member). */
static int next_tag(nbr_topo *t)
{
    uint32_t nph = (uint32_t)(t->plan.nphase > 0 ? t->plan.nphase : 1);
    uint32_t range = (uint32_t)omni.job.tag_ub / nph;
    return (int)(nph * (t->seq++ % range));
}

static int persist_start_fn(void *state, MPI_Request *inner)
{
    return nbr_op_start(state, inner);
}

/* Freeing a persistent request that is still active is erroneous; the run
 * is let finish before its operation goes. */
static void persist_release_fn(void *state)
{
    nbr_op *op = state;
    op->persistent = 0;
    if (op->done)
        nbr_op_put(op);
    else
        op->orphan = 1;
}

static const preq_ops nbr_persist_ops = {persist_start_fn,
                                        persist_release_fn};

int nbr_run(const nbr_args *a, MPI_Comm comm, enum nbr_how how,
                   MPI_Request *req, int *handled)
{
    comm_rec *c = comm_lookup(comm);
    nbr_topo *t = c ? c->nbr : NULL;
    *handled = 0;
    if (!c || a->sbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    if (!t) {
        int kind = MPI_UNDEFINED;
        if (how != NBR_PERSISTENT) {
            /* The underlying MPI's result or error; counted in plain mode only
             * (no call to find the topology on every collective) */
            if (omni.job.nbr_mode == CFG_NEIGHBOR_PLAIN)
                omni.stats.nbr_under++;
            return MPI_SUCCESS;
        }
#if OMNI_HAVE_MPI_Neighbor_allgather_init
        if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind == MPI_UNDEFINED)
            return MPI_SUCCESS; /* the underlying MPI's error */
        *handled = 1;
        return nbr_plain_init(a, comm, req);
#else
        (void)kind; /* no persistent form without MPI-4.0's calls */
        return MPI_SUCCESS;
#endif
    }
    nbr_op *op = nbr_op_get(t);
    if (fill_slots(op, a) != 0) {
        nbr_op_put(op);
        return MPI_SUCCESS;
    }
    *handled = 1;
    if (how != NBR_BLOCKING) {
        int rc = hold_types(op, a);
        if (rc != MPI_SUCCESS) {
            nbr_op_put(op);
            return omni_raise(comm, rc);
        }
    }
    op->tag = next_tag(t);
    op->persistent = how == NBR_PERSISTENT;
    if (how == NBR_PERSISTENT) {
        op->done = 1;
        *req = preq_new_custom(&nbr_persist_ops, op, comm);
        return MPI_SUCCESS;
    }
    int rc = nbr_op_start(op, how == NBR_NONBLOCKING ? req : NULL);
    if (how == NBR_NONBLOCKING || rc != MPI_SUCCESS)
        return rc;
    rc = nbr_op_wait(op);
    nbr_op_put(op);
    return rc == MPI_SUCCESS ? rc : omni_raise(comm, rc);
}
