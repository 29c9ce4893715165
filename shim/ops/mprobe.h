/* mprobe: matched probes on messages Omnibus holds (see mprobe.c). */
#ifndef OMNIBUS_MPROBE_H
#define OMNIBUS_MPROBE_H

#include <mpi.h>

void mprobe_init(void);
void mprobe_finalize(void);

/* The matched-probe calls, called by the generated wrappers. */
int impl_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status);
int impl_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status);
int impl_Mrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
               MPI_Message *message, MPI_Status *status);
int impl_Imrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
                MPI_Message *message, MPI_Request *request);

#endif
