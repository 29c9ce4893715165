/* fail: how Omnibus gives up, or hands an error to the program.
 *
 * Apart from state.c so that the modules the state structure is made of
 * (handles, pending) can fail without including the state they are part
 * of: nothing here reads `omni`.
 */
#ifndef OMNIBUS_FAIL_H
#define OMNIBUS_FAIL_H

#include <mpi.h>

/* Ends the job: an allocation Omnibus cannot do without failed. */
_Noreturn void omni_out_of_memory(const char *what);

/* Raises err through the communicator's error handler, as MPI raises an
 * error of a call on that communicator; returns err. */
int omni_raise(MPI_Comm comm, int err);

#endif
