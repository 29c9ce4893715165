/* comm_calls: the MPI calls that make and free communicators, and the
 * registration they lead to (comm.h holds the table itself).  A
 * constructor's members first drain Omnibus traffic among themselves, then
 * agree on the new record's id; freeing drops what no handle can receive
 * any more. */
#include "shim/match/comm.h"
#include "shim/match/match.h"
#include "shim/progress/progress.h"
#include "shim/entry/comm_calls.h"
#include "shim/ops/neighbor.h"
#include "shim/ops/drain.h"
#include <stdlib.h>

/* Registers a communicator just made by a constructor; collective over its
 * members. Intercommunicators and MPI_COMM_NULL are left unmanaged. */
static int comm_register_new(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return MPI_SUCCESS;
    /* Every member proposes its next free id; the largest is free on all of
     * them, since each rank's ids only grow. */
    uint32_t mine = omni.match.next_comm_id, id = 0;
    MPI_Request req;
    int rc = PMPI_Iallreduce(&mine, &id, 1, MPI_UINT32_T, MPI_MAX, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = prog_wait(&req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm_add(comm, id) != 0)
        return PMPI_Comm_call_errhandler(comm, MPI_ERR_NO_MEM), MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* Forgets a communicator the user frees; its record lives on while posted
 * receives still refer to it. */
static void comm_forget(MPI_Comm comm)
{
    comm_rec *c = comm_unregister(comm);
    if (!c)
        return;
    if (c->nbr)
        nbr_comm_freed(c);
    if (c->coll)
        comm_drop_shadow(c->coll);
    match_drop_unexpected(c);
    comm_release_if_idle(c);
}

/* --- constructors ----------------------------------------------------- */

/* A constructor's result is managed when its parent is: the members of a
 * managed communicator all take the same branch, so a communicator is
 * managed on all of its ranks or on none. */
static int comm_made(int rc, MPI_Comm parent, MPI_Comm *newcomm)
{
    if (rc != MPI_SUCCESS || !comm_lookup(parent))
        return rc;
    rc = comm_register_new(*newcomm);
    comm_rec *c = rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL
                      ? comm_lookup(*newcomm) : NULL;
    return c ? nbr_comm_created(c) : rc;
}

int impl_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    if (!comm_lookup(comm))
        return PMPI_Comm_dup(comm, newcomm);
    MPI_Request req;
    int rc = PMPI_Comm_idup(comm, newcomm, &req);
    if (rc == MPI_SUCCESS)
        rc = prog_wait(&req, MPI_STATUS_IGNORE);
    return comm_made(rc, comm, newcomm);
}

int impl_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Comm_dup_with_info(comm, info, newcomm), comm,
                     newcomm);
}

int impl_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm);
}

int impl_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Comm_split_type(comm, split_type, key, info, newcomm),
                     comm, newcomm);
}

int impl_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Comm_create(comm, group, newcomm), comm, newcomm);
}

/* MPI_Comm_create_group is collective over its group only, so its members
 * drain among themselves: a dissemination barrier (round k: send to the
 * member 2^k ahead, receive from the one 2^k behind; the distances differ,
 * so each round has its own partner) of PMPI messages on Omnibus's private
 * wire communicator, under a tag apart from the blocks' own, waited for
 * with progress. */
#define COMM_DRAIN_TAG 2

static void comm_drain_group(MPI_Comm parent, MPI_Group group)
{
    prog_block_enter();
    int n, me;
    PMPI_Group_size(group, &n);
    PMPI_Group_rank(group, &me);
    if (me == MPI_UNDEFINED || n < 2 || !comm_lookup(parent))
        return;
    int *members = malloc(sizeof(int) * (size_t)n * 2);
    if (!members)
        return;
    MPI_Group world;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++)
        members[n + i] = i;
    PMPI_Group_translate_ranks(group, n, members + n, world, members);
    PMPI_Group_free(&world);
    for (int dist = 1; dist < n; dist *= 2) {
        char out = 0, in;
        MPI_Request req[2];
        PMPI_Irecv(&in, 1, MPI_CHAR, members[(me + n - dist) % n],
                   COMM_DRAIN_TAG, omni.job.wire_comm, &req[0]);
        PMPI_Isend(&out, 1, MPI_CHAR, members[(me + dist) % n], COMM_DRAIN_TAG,
                   omni.job.wire_comm, &req[1]);
        prog_wait(&req[0], MPI_STATUS_IGNORE);
        prog_wait(&req[1], MPI_STATUS_IGNORE);
    }
    free(members);
}

int impl_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    comm_drain_group(comm, group);
    return comm_made(PMPI_Comm_create_group(comm, group, tag, newcomm), comm,
                     newcomm);
}

int impl_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(
        PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), comm,
        newcomm);
}

int impl_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
}

int impl_Graph_create(MPI_Comm comm, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(
        PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), comm,
        newcomm);
}

int impl_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Dist_graph_create(comm, n, sources, degrees,
                                            destinations, weights, info,
                                            reorder, newcomm),
                     comm, newcomm);
}

int impl_Dist_graph_create_adjacent(MPI_Comm comm, int indegree,
                                    const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[],
                                    const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *newcomm)
{
    drain_comm(comm);
    return comm_made(PMPI_Dist_graph_create_adjacent(
                         comm, indegree, sources, sourceweights, outdegree,
                         destinations, destweights, info, reorder, newcomm),
                     comm, newcomm);
}

/* Freeing is local in MPI: receives already posted on the communicator
 * still complete (their record outlives the handle); messages nobody can
 * receive any more are dropped. */
int impl_Comm_free(MPI_Comm *comm)
{
    MPI_Comm old = *comm;
    if (comm_lookup(old))
        prog_block_enter();
    int rc = PMPI_Comm_free(comm);
    if (rc == MPI_SUCCESS)
        comm_forget(old);
    return rc;
}
