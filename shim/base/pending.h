/* pending: a set of requests of the MPI underneath that progress tests, each
 * with the Omnibus record that owns it (a receive waiting for its payload, a
 * rendezvous send whose payload the MPI underneath is sending).
 *
 * Contract: pending_poll tests at most PENDING_BUDGET requests per call,
 * with one PMPI_Testsome (the requests are real requests of the MPI
 * underneath, never generalized ones), starting where the previous call
 * stopped, so a progress round costs the same whether ten or ten thousand
 * payloads are in flight, and every request is still tested every few rounds.
 * A set of one is looked at instead of tested: the engine of the MPI
 * underneath turns only while that request is incomplete.
 * A completed request leaves the set before its owner's callback runs; the
 * callback may add to the set.
 */
#ifndef OMNIBUS_PENDING_H
#define OMNIBUS_PENDING_H

#include <mpi.h>

#define PENDING_BUDGET 256

typedef struct {
    MPI_Request *reqs;
    void **owners;
    int n, cap, cursor;
} pending_set;

void pending_add(pending_set *s, void *owner, MPI_Request req);

/* Whether *req, a request of the MPI underneath, is complete; if it is,
 * frees it, with its status in *st and what the MPI underneath returned for
 * it in *rc (both may be ignored: MPI_STATUS_IGNORE, NULL).  MPICH 4.0
 * turns its progress engine in every PMPI_Test and PMPI_Testsome, even of a
 * complete request (534 ns over TCP), while PMPI_Request_get_status turns
 * it only for an incomplete one and PMPI_Wait of a complete one does not:
 * measured over TCP, 42 ns for a complete request against 544, and the same
 * turn as PMPI_Test (482 ns) for an incomplete one.  So what completed in
 * an earlier turn is taken without another. */
int pending_take_if_done(MPI_Request *req, MPI_Status *st, int *rc);

/* Calls done(owner, status, rc) for each request found complete; rc is
 * the error the MPI underneath reported for it (MPI_SUCCESS normally). */
void pending_poll(pending_set *s,
                  void (*done)(void *owner, const MPI_Status *st, int rc));

static inline int pending_any(const pending_set *s)
{
    return s->n > 0;
}

void pending_free(pending_set *s);

#endif
