/* alltoallvw_empty_pieces_complete: MPI_Alltoallv and MPI_Alltoallw
 * complete when one side describes an empty piece as 0 elements of a
 * datatype and the other as elements of an empty datatype.
 *
 * MPI 4.1 §6.8: the type signature of what rank i sends to rank j must
 * equal that of what j receives from i.  0 MPI_INTs and 1 element of a
 * datatype of no elements (MPI_Type_contiguous(0, ...)) have the same,
 * empty, signature, so they match, the call completes on every rank, and
 * nothing is written into the receive buffer.  Every rank sends 0 MPI_INTs
 * to every rank and receives 1 empty element from each, then the reverse,
 * with MPI_Alltoallv and MPI_Alltoallw on MPI_COMM_WORLD, and with
 * MPI_Alltoallw on an intercommunicator between the even and the odd
 * ranks.  (Open MPI 4.1's nonblocking forms, which Omnibus runs blocking
 * collectives as, never complete the first direction: quirk Q8,
 * shim/mpi/quirks.h.  Its own blocking MPI_Alltoallv never completes it on
 * an intercommunicator either, so that case is not here: every test must
 * pass without Omnibus.)
 */
#include "testlib.h"

#define GUARD 0xCC

/* One direction: what every rank sends to every rank, and receives. */
typedef struct {
    const char *name;
    int scount;
    MPI_Datatype stype;
    int rcount;
    MPI_Datatype rtype;
} direction;

static int remote_size(MPI_Comm c)
{
    int inter, n;
    CHECK_MPI(MPI_Comm_test_inter(c, &inter));
    CHECK_MPI(inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n));
    return n;
}

/* The arrays of a call on c: every peer gets d's counts and types, at
 * displacement 0 of buffers that must stay as they are. */
typedef struct {
    int n;
    int *scounts, *rcounts, *displs;
    MPI_Datatype *stypes, *rtypes;
    unsigned char sbuf[16], rbuf[16];
} call_args;

static void args_of(call_args *a, MPI_Comm c, const direction *d)
{
    a->n = remote_size(c);
    a->scounts = tl_malloc(sizeof(int) * (size_t)a->n);
    a->rcounts = tl_malloc(sizeof(int) * (size_t)a->n);
    a->displs = tl_malloc(sizeof(int) * (size_t)a->n);
    a->stypes = tl_malloc(sizeof(MPI_Datatype) * (size_t)a->n);
    a->rtypes = tl_malloc(sizeof(MPI_Datatype) * (size_t)a->n);
    for (int i = 0; i < a->n; i++) {
        a->scounts[i] = d->scount;
        a->rcounts[i] = d->rcount;
        a->displs[i] = 0;
        a->stypes[i] = d->stype;
        a->rtypes[i] = d->rtype;
    }
    memset(a->sbuf, GUARD, sizeof a->sbuf);
    memset(a->rbuf, GUARD, sizeof a->rbuf);
}

static void args_free(call_args *a)
{
    free(a->scounts);
    free(a->rcounts);
    free(a->displs);
    free(a->stypes);
    free(a->rtypes);
}

static void alltoallv(MPI_Comm c, const char *comm, const direction *d)
{
    call_args a;
    args_of(&a, c, d);
    CHECK_MPI(MPI_Alltoallv(a.sbuf, a.scounts, a.displs, d->stype, a.rbuf,
                         a.rcounts, a.displs, d->rtype, c));
    CHECK_FILLED(a.rbuf, sizeof a.rbuf, GUARD,
                 "MPI_Alltoallv on %s, %s: an empty piece writes nothing",
                 comm, d->name);
    args_free(&a);
}

static void alltoallw(MPI_Comm c, const char *comm, const direction *d)
{
    call_args a;
    args_of(&a, c, d);
    CHECK_MPI(MPI_Alltoallw(a.sbuf, a.scounts, a.displs, a.stypes, a.rbuf,
                         a.rcounts, a.displs, a.rtypes, c));
    CHECK_FILLED(a.rbuf, sizeof a.rbuf, GUARD,
                 "MPI_Alltoallw on %s, %s: an empty piece writes nothing",
                 comm, d->name);
    args_free(&a);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    MPI_Datatype empty;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    const direction dirs[2] = {
        {"0 MPI_INT sent, 1 empty element received", 0, MPI_INT, 1, empty},
        {"1 empty element sent, 0 MPI_INT received", 1, empty, 0, MPI_INT},
    };

    MPI_Comm half, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7,
                                &inter));

    for (int k = 0; k < 2; k++) {
        alltoallv(MPI_COMM_WORLD, "MPI_COMM_WORLD", &dirs[k]);
        alltoallw(MPI_COMM_WORLD, "MPI_COMM_WORLD", &dirs[k]);
        alltoallw(inter, "an intercommunicator", &dirs[k]);
    }

    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK_MPI(MPI_Type_free(&empty));
    return tl_finalize();
}
