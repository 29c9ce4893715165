/* nbr_plain: persistent neighbourhood collectives that the MPI underneath runs
 * (mode plain, or a communicator without a schedule), under an Omnibus handle.
 *
 * Why not the underlying MPI's own persistent request (quirk Q3,
 * mpi/quirks.h): MPICH 4.0.2's MPI_Testall fails
 * (MPI_ERR_IN_STATUS) on an array holding an active persistent collective
 * request and any other request, and Omnibus completes every Waitall with
 * Testall rounds so that it keeps forwarding.  So MPI_*_init keeps a copy
 * of the arguments and each MPI_Start is the underlying MPI's nonblocking form
 * (engine/preq.h, preq_ops), whose requests Testall handles. */
#ifndef OMNIBUS_NBR_PLAIN_H
#define OMNIBUS_NBR_PLAIN_H

#include "shim/ops/nbr_call.h"

/* An Omnibus persistent request for the call on comm, a managed
 * communicator with a topology. */
int nbr_plain_init(const nbr_args *a, MPI_Comm comm, MPI_Request *request);

#endif
