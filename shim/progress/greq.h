/* greq: the generalized requests Omnibus hands out for operations it runs
 * itself: synchronous and rendezvous sends, MPI_Isendrecv pairs and
 * neighbourhood collectives.
 *
 * The MPI library completes such a request only when Omnibus calls
 * MPI_Grequest_complete, which Omnibus's progress does.  So every class
 * (mpi/gclass.h) shares two callbacks: poll_fn runs one progress round when
 * The MPI underneath tests the request from outside Omnibus (inside Omnibus's
 * own loops progress is already running; Open MPI has no poll_fn), and
 * cancel_fn withdraws nothing (what these operations sent is on its way;
 * collectives cannot be cancelled).  A class gives its own query_fn, free_fn
 * and wait_fn.
 *
 * The error ledger.  MPI reports an operation's error through the
 * completion call, but a generalized request's query_fn can only fill a
 * status (an error it returns, MPICH 4.0.2 turns into MPI_ERR_OTHER on no
 * communicator: quirk Q7, mpi/quirks.h).  So query_fn records the error
 * with greq_ledger_add, and the
 * completion call that ran it (engine/request.c) raises what the ledger
 * holds as MPI would: the error itself from MPI_Wait/MPI_Test, or
 * MPI_ERR_IN_STATUS with each status's MPI_ERROR from the multiple
 * completions.  The ledger grows as needed and never drops an entry.
 */
#ifndef OMNIBUS_GREQ_H
#define OMNIBUS_GREQ_H

#include "shim/base/state.h"
#include "shim/mpi/gclass.h"

/* A class with the shared poll_fn and cancel_fn; returns an MPI code. */
int greq_class_create(MPI_Grequest_query_function *query_fn,
                      MPI_Grequest_free_function *free_fn,
                      omni_gclass_wait_fn *wait_fn, omni_gclass *cls);

/* query_fn of a send: an empty status (MPI_Get_count is 0, MPI_SOURCE and
 * MPI_TAG say nothing), never an error. */
int greq_query_send(void *extra, MPI_Status *st);

/* Records that request greq, completed on comm, failed with error. */
void greq_ledger_add(MPI_Request greq, MPI_Comm comm, int error);

/* Empties the ledger once a completion call has raised what it held (or
 * found it holds nothing of its own). */
static inline void greq_ledger_clear(void)
{
    omni.prog.ledger_n = 0;
}

/* Frees the ledger's storage (MPI_Finalize). */
void greq_finalize(void);

#endif
