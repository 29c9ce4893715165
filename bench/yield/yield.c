/* yield: the hand-written core of the yield-only library (see yield.h): the
 * yield decision at MPI_Init, the spin-then-yield step, the request wait
 * loop, and the calls that need more than a generated loop (MPI_Sendrecv
 * and MPI_Sendrecv_replace, because MPICH 4.0.2's MPI_Isendrecv leaves the
 * request's status zeroed; MPI_Waitall, because of MPICH's Testall batch
 * bug).  The other wrappers are generated at build time from calls.tbl (build/gen/yield_wrappers_gen.c).
 */
#include "bench/yield/yield.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

yo_state yieldonly;

/* --- the decision, once, at MPI_Init -------------------------------------- */

/* As Omnibus counts them (shim/entry/init.c): the CPUs this process may
 * run on. */
static int cores_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

enum { YO_AUTO, YO_ON, YO_OFF, YO_BAD };

static int parse_yield(const char *v)
{
    if (!v || strcmp(v, "auto") == 0)
        return YO_AUTO;
    if (strcmp(v, "on") == 0)
        return YO_ON;
    if (strcmp(v, "off") == 0)
        return YO_OFF;
    return YO_BAD;
}

/* Called right after PMPI_Init*, on every rank (it is collective).
 * `required` is the thread level the application asked for. */
static void yo_setup(int required)
{
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *verbose = getenv("YIELDONLY_VERBOSE");
    int chatty = rank == 0 && verbose && strcmp(verbose, "1") == 0;

    /* Omnibus runs pass-through under MPI_THREAD_MULTIPLE, never yielding. */
    if (required == MPI_THREAD_MULTIPLE) {
        if (chatty)
            fprintf(stderr, "yieldonly: MPI_THREAD_MULTIPLE: pass-through\n");
        return;
    }

    const char *text = getenv("OMNIBUS_YIELD");
    int mode = parse_yield(text);
    /* The lowest rank with a bad value explains, then the job stops. */
    int mine = mode == YO_BAD ? rank : size, first;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < size) {
        if (rank == first)
            fprintf(stderr, "yieldonly: OMNIBUS_YIELD=%s is not valid: "
                            "expected auto, on or off\n", text);
        fflush(stderr);
        PMPI_Barrier(MPI_COMM_WORLD);
        PMPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }

    MPI_Comm shared;
    int local = 1;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                         MPI_INFO_NULL, &shared);
    PMPI_Comm_size(shared, &local);
    PMPI_Comm_free(&shared);
    int cores = cores_available();
    yieldonly.yield = mode == YO_ON || (mode == YO_AUTO && local > cores);
    yieldonly.empty_polls = 0;
    yieldonly.on = 1;
    if (chatty)
        fprintf(stderr, "yieldonly: OMNIBUS_YIELD=%s: %s (%d ranks on this "
                        "node, %d cores)\n", text ? text : "auto",
                yieldonly.yield ? "yielding" : "not yielding", local, cores);
}

YO_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        yo_setup(MPI_THREAD_SINGLE);
    return rc;
}

YO_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                              int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        yo_setup(required);
    return rc;
}

/* --- the loop -------------------------------------------------------------- */

void yo_pause(unsigned *spins)
{
    if (++*spins > YO_SPINS_BEFORE_YIELD && yieldonly.yield)
        sched_yield();
}

void yo_polled(int found)
{
    if (found)
        yieldonly.empty_polls = 0;
    else if (++yieldonly.empty_polls > YO_SPINS_BEFORE_YIELD && yieldonly.yield)
        sched_yield();
}

int yo_wait(MPI_Request *request, MPI_Status *status)
{
    unsigned spins = 0;
    for (;;) {
        int flag = 0;
        int rc = PMPI_Test(request, &flag, status);
        if (flag || rc != MPI_SUCCESS)
            return rc;
        yo_pause(&spins);
    }
}

/* MPICH 4.0.2's Testall decides per batch of 64 requests whether all are
 * plain sends and receives, but applies the last batch's answer to the whole
 * array when statuses are ignored: a generalized request (ROMIO's, say) in
 * an earlier batch then fails an assertion.  MPI_Waitall has no such bug, so
 * the loop that replaces it passes real statuses (as Omnibus does). */
#define YO_MPICH_TESTALL_BATCH 64

int yo_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    MPI_Status *tmp = NULL;
    if (statuses == MPI_STATUSES_IGNORE) {
        if (count > YO_MPICH_TESTALL_BATCH) {
            tmp = malloc(sizeof *tmp * (size_t)count);
            if (!tmp) /* correct, only without yielding */
                return PMPI_Waitall(count, requests, statuses);
            statuses = tmp;
        }
    } else {
        /* MPICH's MPI_Waitall sets MPI_ERROR to MPI_SUCCESS in the status
         * of every request that was not MPI_REQUEST_NULL; PMPI_Testall
         * leaves the field alone on success (and sets all of them when it
         * returns MPI_ERR_IN_STATUS). */
        for (int i = 0; i < count; i++)
            if (requests[i] != MPI_REQUEST_NULL)
                statuses[i].MPI_ERROR = MPI_SUCCESS;
    }
    unsigned spins = 0;
    int rc;
    for (;;) {
        int flag = 0;
        rc = PMPI_Testall(count, requests, &flag, statuses);
        if (flag || rc != MPI_SUCCESS)
            break;
        yo_pause(&spins);
    }
    free(tmp);
    return rc;
}

/* --- MPI_Sendrecv and MPI_Sendrecv_replace --------------------------------- */

/* Waits for the pair {receive, send} and returns MPI_Sendrecv's code; the
 * status is the receive's, with the caller's MPI_ERROR field left alone (as
 * MPICH's MPI_Sendrecv leaves it). */
static int pair_wait(MPI_Request pair[2], MPI_Status *status)
{
    MPI_Status sts[2];
    int rc = yo_waitall(2, pair, sts);
    if (rc == MPI_ERR_IN_STATUS)
        rc = sts[0].MPI_ERROR != MPI_SUCCESS && sts[0].MPI_ERROR != MPI_ERR_PENDING
                 ? sts[0].MPI_ERROR : sts[1].MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) {
        int err = status->MPI_ERROR;
        *status = sts[0];
        status->MPI_ERROR = err;
    }
    return rc;
}

/* The receive is posted; the send could not start: take the receive back. */
static int pair_abandon(MPI_Request *recv, int rc)
{
    PMPI_Cancel(recv);
    PMPI_Wait(recv, MPI_STATUS_IGNORE);
    return rc;
}

/* A receive half from MPI_PROC_NULL: wait for the send half, then let
 * MPI_Recv, which returns at once, give the status (an MPI_Irecv request's
 * would have source and tag 0, see calls.tbl). */
static int null_pair(MPI_Request *send, int rc, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int recvtag,
                     MPI_Comm comm, MPI_Status *status)
{
    if (rc == MPI_SUCCESS)
        rc = yo_wait(send, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv_c(recvbuf, recvcount, recvtype, MPI_PROC_NULL, recvtag,
                         comm, status);
    return rc;
}

int yo_sendrecv(const void *sendbuf, MPI_Count sendcount,
                MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request pair[2]; /* receive, send */
    if (source == MPI_PROC_NULL)
        return null_pair(&pair[1],
                         PMPI_Isend_c(sendbuf, sendcount, sendtype, dest,
                                      sendtag, comm, &pair[1]),
                         recvbuf, recvcount, recvtype, recvtag, comm, status);
    int rc = PMPI_Irecv_c(recvbuf, recvcount, recvtype, source, recvtag, comm,
                          &pair[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Isend_c(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                      &pair[1]);
    if (rc != MPI_SUCCESS)
        return pair_abandon(&pair[0], rc);
    return pair_wait(pair, status);
}

/* The outgoing data is packed aside first, as MPICH does, so the receive
 * may land in the same buffer.  MPICH's MPI_Sendrecv_replace, unlike
 * MPI_Sendrecv, also sets the status's MPI_ERROR field: so does this. */
static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status)
{
    MPI_Request pair[2]; /* receive, send */
    if (source == MPI_PROC_NULL) /* nothing lands in buf: no copy needed */
        return null_pair(&pair[1],
                         PMPI_Isend_c(buf, count, datatype, dest, sendtag,
                                      comm, &pair[1]),
                         buf, count, datatype, recvtag, comm, status);
    MPI_Count bytes = 0, used = 0;
    int rc = PMPI_Pack_size_c(count, datatype, comm, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    void *packed = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!packed) /* correct, only without yielding */
        return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag,
                                       source, recvtag, comm, status);
    rc = PMPI_Pack_c(buf, count, datatype, packed, bytes, &used, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Irecv_c(buf, count, datatype, source, recvtag, comm, &pair[0]);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Isend_c(packed, used, MPI_PACKED, dest, sendtag, comm,
                          &pair[1]);
        rc = rc == MPI_SUCCESS ? pair_wait(pair, status)
                               : pair_abandon(&pair[0], rc);
    }
    free(packed);
    return rc;
}

int yo_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype,
                        int dest, int sendtag, int source, int recvtag,
                        MPI_Comm comm, MPI_Status *status)
{
    int rc = sendrecv_replace(buf, count, datatype, dest, sendtag, source,
                              recvtag, comm, status);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = rc;
    return rc;
}
