/* init: Omnibus's start and end (init.c).  MPI_Init, MPI_Init_thread and
 * MPI_Finalize are written there by hand; what the generated wrappers call
 * is declared here.
 */
#ifndef OMNIBUS_INIT_H
#define OMNIBUS_INIT_H

#include <mpi.h>

/* MPI_Query_thread: what the application was told it got. */
int impl_Query_thread(int *provided);

#endif
