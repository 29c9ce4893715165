/* progress: the engine that moves Omnibus traffic while the application is
 * inside MPI (DESIGN §3).
 *
 * Contract: Omnibus moves items only while a rank is inside one of its
 * wrappers.  Every wrapper of a call that can wait on another rank calls
 * prog_block_enter() first (every partly filled buffer goes out, so no rank
 * waits on an item still sitting here) and then waits with prog_wait*(),
 * which keeps polling, forwarding and flushing until the real MPICH request
 * completes, spinning briefly and then yielding when the node is
 * oversubscribed.  Nothing in this module calls an MPI_ entry point (only
 * PMPI_), so it never re-enters a wrapper.
 */
#ifndef OMNIBUS_PROGRESS_H
#define OMNIBUS_PROGRESS_H

#include <mpi.h>

/* True once MPI_Init has set Omnibus up and until MPI_Finalize tears it
 * down, unless OMNIBUS_DISABLE=1: wrappers pass straight to PMPI otherwise. */
int omni_enabled(void);

/* Sends every partly filled buffer; called before any call that may wait. */
void prog_block_enter(void);

/* One round of progress: poll arrivals, forward, flush aged or idle buffers. */
void prog_poll(void);

/* Drives progress until *req (a real MPICH request, or a generalized one that
 * Omnibus completes) is complete; returns what PMPI_Test returned, with the
 * status filled as PMPI_Test fills it. */
int prog_wait(MPI_Request *req, MPI_Status *status);

#endif
