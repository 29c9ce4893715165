/* drain: the members of a call Omnibus cannot drive meet first (drain.h). */
#include "shim/ops/drain.h"
#include "shim/match/comm.h"
#include "shim/progress/progress.h"
#include "shim/base/fail.h"
#include "shim/base/state.h"
#include <stdlib.h>

/* A file or window made on a managed communicator, and the private
 * duplicate of that communicator its members meet on. */
struct drain_rec {
    enum drain_kind kind;
    uintptr_t handle;
    MPI_Comm comm;
    struct drain_rec *next;
};

/* Routes pass through a third rank only when two dimensions or more of the
 * grid are longer than one. */
static int drain_relays_exist(void)
{
    int long_dims = 0;
    for (int d = 0; d < omni.job.grid.ndims; d++)
        long_dims += omni.job.grid.dims[d] > 1;
    return long_dims > 1;
}

/* Whether the members of `comm` must meet before a call Omnibus cannot
 * drive: relays exist, Omnibus manages it and it has another member. */
static int drain_needed(MPI_Comm comm)
{
    if (!drain_relays_exist() || !comm_lookup(comm))
        return 0;
    int size = 1;
    PMPI_Comm_size(comm, &size);
    return size > 1;
}

static struct drain_rec **drain_find(enum drain_kind kind, uintptr_t handle)
{
    struct drain_rec **at = &omni.ops.drains;
    while (*at && ((*at)->kind != kind || (*at)->handle != handle))
        at = &(*at)->next;
    return at;
}

/* The members of comm meet: a barrier Omnibus progress drives. */
static void drain_meet(MPI_Comm comm)
{
    MPI_Request req;
    if (PMPI_Ibarrier(comm, &req) == MPI_SUCCESS)
        prog_wait(&req, MPI_STATUS_IGNORE);
}

void drain_comm(MPI_Comm comm)
{
    prog_block_enter();
    if (drain_needed(comm))
        drain_meet(comm);
}

MPI_Comm drain_before_make(MPI_Comm comm)
{
    prog_block_enter();
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req;
    if (!drain_needed(comm) || PMPI_Comm_idup(comm, &dup, &req) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    if (prog_wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    return dup;
}

void drain_made(enum drain_kind kind, uintptr_t handle, MPI_Comm dup, int rc)
{
    if (dup == MPI_COMM_NULL)
        return;
    struct drain_rec *r = rc == MPI_SUCCESS ? malloc(sizeof *r) : NULL;
    if (!r) {
        if (rc == MPI_SUCCESS)
            omni_out_of_memory("the record of a file or window");
        PMPI_Comm_free(&dup);
        return;
    }
    *r = (struct drain_rec){kind, handle, dup, omni.ops.drains};
    omni.ops.drains = r;
}

void drain_object(enum drain_kind kind, uintptr_t handle)
{
    prog_block_enter();
    struct drain_rec *r = *drain_find(kind, handle);
    if (r)
        drain_meet(r->comm);
}

void drain_forget(enum drain_kind kind, uintptr_t handle)
{
    struct drain_rec **at = drain_find(kind, handle), *r = *at;
    if (!r)
        return;
    *at = r->next;
    PMPI_Comm_free(&r->comm);
    free(r);
}

void drain_finalize(void)
{
    while (omni.ops.drains)
        drain_forget(omni.ops.drains->kind, omni.ops.drains->handle);
}
