/* yield: the yield-only preload library (build/libyieldonly.so), a
 * benchmark baseline.
 *
 * Omnibus gains on two counts: it aggregates small messages, and its wait
 * loops sched_yield() when the node runs more ranks than it has cores, where
 * MPICH busy-polls.  This library does the second and nothing else, so the
 * benchmark table can tell the two gains apart.  Every blocking call it
 * wraps runs as its nonblocking form (or, for Probe and Wait*, as its Test
 * form) in a loop of PMPI tests that spins and then yields, with Omnibus's
 * policy (shim/progress/progress.c, shim/entry/init.c):
 *
 *   - whether to yield is decided once, at MPI_Init: OMNIBUS_YIELD=on|off,
 *     or auto (the default): yield when this rank's node (the
 *     MPI_COMM_TYPE_SHARED split of MPI_COMM_WORLD) has more ranks than this
 *     process may run on (sched_getaffinity, else the online CPUs);
 *   - a wait loop makes YO_SPINS_BEFORE_YIELD failed tests without yielding,
 *     then yields after every further failed test;
 *   - a nonblocking poll the application makes (Test*, Iprobe,
 *     Request_get_status) that finds nothing counts as one empty poll; after
 *     YO_SPINS_BEFORE_YIELD consecutive empty polls each further one yields
 *     (the program is evidently waiting in a loop); one that finds something
 *     resets the run;
 *   - a program initialized with MPI_THREAD_MULTIPLE gets pure pass-through
 *     (Omnibus does the same, so it never yields there either).
 *
 * Nothing else changes: the same MPICH calls move the same data, statuses
 * and return codes are those the blocking call would give.
 */
#ifndef YIELDONLY_YIELD_H
#define YIELDONLY_YIELD_H

#include <mpi.h>

/* Omnibus's PROG_SPINS_BEFORE_YIELD (shim/progress/progress.c). */
#define YO_SPINS_BEFORE_YIELD 64u

/* The library's only mutable global state. */
typedef struct yo_state {
    int on;               /* MPI is initialized and the wrappers act */
    int yield;            /* failed tests sched_yield() after the spin */
    unsigned empty_polls; /* consecutive application polls that found nothing */
} yo_state;

extern yo_state yieldonly;

/* The library is built with -fvisibility=hidden: only the MPI_ entry points
 * are exported, so that they override MPICH's. */
#define YO_EXPORT __attribute__((visibility("default")))

/* One failed test in a wait loop (*spins starts at 0 for each wait). */
void yo_pause(unsigned *spins);

/* An application poll returned: `found` is its flag (or outcount != 0), or
 * true when it failed. */
void yo_polled(int found);

/* Tests *request until it completes; returns what the completing PMPI_Test
 * returned, which filled status (MPI_STATUS_IGNORE allowed). */
int yo_wait(MPI_Request *request, MPI_Status *status);

/* Hand-written bodies of the table's "impl" rows (calls.tbl).  Counts are
 * MPI_Count so that MPI_X and MPI_X_c share one body. */
int yo_sendrecv(const void *sendbuf, MPI_Count sendcount,
                MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Status *status);
int yo_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype,
                        int dest, int sendtag, int source, int recvtag,
                        MPI_Comm comm, MPI_Status *status);
int yo_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);

#endif
