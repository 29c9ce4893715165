/* persist: persistent point-to-point requests on managed communicators.
 *
 * MPI_Send_init and friends return an Omnibus request handle
 * (engine/preq.h) that remembers the arguments.  MPI_Start starts an
 * ordinary Omnibus send or receive and keeps its request as the record's
 * `inner` one; the persistent request is active while inner is not
 * MPI_REQUEST_NULL.  MPI_Start, MPI_Request_free, MPI_Cancel and
 * MPI_Request_get_status look through every handle of that pool here.
 */
#ifndef OMNIBUS_PERSIST_H
#define OMNIBUS_PERSIST_H

#include <mpi.h>
#include "shim/engine/send_mode.h"

/* MPI_Send_init and its modes on a managed communicator; the arguments are
 * checked when the send starts, as for its nonblocking form. */
int persist_send_init(const void *buf, MPI_Count count, MPI_Datatype dtype,
                      int dest, int tag, MPI_Comm comm, enum send_mode mode,
                      MPI_Request *request);

/* The calls on persistent requests (and MPI_Request_get_status, which
 * looks through a persistent request first), called by the generated
 * wrappers. */
int impl_Recv_init(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request);
int impl_Start(MPI_Request *request);
int impl_Startall(int count, MPI_Request requests[]);
int impl_Request_free(MPI_Request *request);
int impl_Cancel(MPI_Request *request);
int impl_Request_get_status(MPI_Request request, int *flag,
                            MPI_Status *status);

#endif
