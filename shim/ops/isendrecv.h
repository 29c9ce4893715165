/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace on managed
 * communicators (isendrecv.c says how), called by the generated wrappers.
 */
#ifndef OMNIBUS_ISENDRECV_H
#define OMNIBUS_ISENDRECV_H

#include <mpi.h>

int impl_Isendrecv(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request);
int impl_Isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request);
/* Registers the progress poller that completes the pairs whose two halves
 * are done (omni.ops.pair_poller). */
void isendrecv_add_poller(void);

#endif
