#include "shim/ops/alltoallv.h"
#include "shim/progress/progress.h"
#include "shim/base/dtype.h"
#include "shim/base/fail.h"
#include "omni_have.h"
#include <stdlib.h>
#include <string.h>

/* The counts of one side of a call: n of them, each `width` bytes (an int
 * or an MPI_Count), and their datatypes, one per count or one for all. */
typedef struct {
    const void *counts;
    size_t width;
    const MPI_Datatype *types;
    int per_count;
} a2av_side;

static MPI_Count count_at(const a2av_side *s, int i)
{
    if (s->width == sizeof(int))
        return ((const int *)s->counts)[i];
    return ((const MPI_Count *)s->counts)[i];
}

/* How many counts each side has: the communicator's size, or the remote
 * group's on an intercommunicator; -1 for a communicator MPI refuses. */
static int counts_of(MPI_Comm comm)
{
    int inter, n;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return -1;
    int rc = inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n);
    return rc == MPI_SUCCESS ? n : -1;
}

/* The side's counts with every positive count of an empty datatype made 0
 * (quirk Q8), in memory the caller frees, or NULL when none is. */
static void *zeroed(const a2av_side *s, int n)
{
    if (!s->counts || !s->types || n <= 0)
        return NULL;
    char *copy = NULL;
    for (int i = 0; i < n; i++) {
        if (count_at(s, i) <= 0 || dtype_size(s->types[s->per_count ? i : 0]) != 0)
            continue;
        if (!copy) {
            copy = malloc((size_t)n * s->width);
            if (!copy)
                omni_out_of_memory("the counts of an all-to-all");
            memcpy(copy, s->counts, (size_t)n * s->width);
        }
        memset(copy + (size_t)i * s->width, 0, s->width);
    }
    return copy;
}

/* The counts a call passes on: each side's own, or its zeroed copy. */
typedef struct {
    void *send, *recv;
} a2av_counts;

/* Whether some count of the side may be of an empty datatype. */
static int may_be_empty(const a2av_side *s)
{
    return s->per_count || dtype_size(s->types[0]) == 0;
}

static a2av_counts counts_passed(const void *sbuf, const a2av_side *send,
                                 const a2av_side *recv, MPI_Comm comm)
{
    a2av_counts c = {NULL, NULL};
    int sends = sbuf != MPI_IN_PLACE && may_be_empty(send);
    if (!sends && !may_be_empty(recv))
        return c;
    int n = counts_of(comm);
    if (sends)
        c.send = zeroed(send, n);
    if (may_be_empty(recv))
        c.recv = zeroed(recv, n);
    return c;
}

/* The arrays to pass: the zeroed copy where there is one. */
#define PASSED(copy, own) ((copy) ? (const void *)(copy) : (const void *)(own))

/* Starts `start` (which names c's arrays through PASSED) into `req`, waits
 * for it with progress, frees c's copies and returns the result. */
#define RUN(c, start)                                                          \
    do {                                                                       \
        MPI_Request req;                                                       \
        prog_block_enter();                                                    \
        int rc = prog_wait_started(start, &req);                               \
        free((c).send);                                                        \
        free((c).recv);                                                        \
        return rc;                                                             \
    } while (0)

int impl_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                   MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    a2av_side s = {scounts, sizeof(int), &stype, 0};
    a2av_side r = {rcounts, sizeof(int), &rtype, 0};
    a2av_counts c = counts_passed(sbuf, &s, &r, comm);
    RUN(c, PMPI_Ialltoallv(sbuf, PASSED(c.send, scounts), sdispls, stype, rbuf,
                           PASSED(c.recv, rcounts), rdispls, rtype, comm,
                           &req));
}

int impl_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf,
                   const int rcounts[], const int rdispls[],
                   const MPI_Datatype rtypes[], MPI_Comm comm)
{
    a2av_side s = {scounts, sizeof(int), stypes, 1};
    a2av_side r = {rcounts, sizeof(int), rtypes, 1};
    a2av_counts c = counts_passed(sbuf, &s, &r, comm);
    RUN(c, PMPI_Ialltoallw(sbuf, PASSED(c.send, scounts), sdispls, stypes, rbuf,
                           PASSED(c.recv, rcounts), rdispls, rtypes, comm,
                           &req));
}

#if OMNI_HAVE_MPI_Alltoallv_c
int impl_Alltoallv_c(const void *sbuf, const MPI_Count scounts[],
                     const MPI_Aint sdispls[], MPI_Datatype stype, void *rbuf,
                     const MPI_Count rcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype rtype, MPI_Comm comm)
{
    a2av_side s = {scounts, sizeof(MPI_Count), &stype, 0};
    a2av_side r = {rcounts, sizeof(MPI_Count), &rtype, 0};
    a2av_counts c = counts_passed(sbuf, &s, &r, comm);
    RUN(c, PMPI_Ialltoallv_c(sbuf, PASSED(c.send, scounts), sdispls, stype,
                             rbuf, PASSED(c.recv, rcounts), rdispls, rtype,
                             comm, &req));
}
#endif

#if OMNI_HAVE_MPI_Alltoallw_c
int impl_Alltoallw_c(const void *sbuf, const MPI_Count scounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype stypes[],
                     void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
                     MPI_Comm comm)
{
    a2av_side s = {scounts, sizeof(MPI_Count), stypes, 1};
    a2av_side r = {rcounts, sizeof(MPI_Count), rtypes, 1};
    a2av_counts c = counts_passed(sbuf, &s, &r, comm);
    RUN(c, PMPI_Ialltoallw_c(sbuf, PASSED(c.send, scounts), sdispls, stypes,
                             rbuf, PASSED(c.recv, rcounts), rdispls, rtypes,
                             comm, &req));
}
#endif
