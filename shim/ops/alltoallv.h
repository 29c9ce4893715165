/* alltoallv: MPI_Alltoallv and MPI_Alltoallw (and their large-count
 * forms), called by the generated wrappers.
 *
 * Contract: each runs as the MPI library's nonblocking form plus Omnibus
 * progress, on any communicator, as a blocking collective must
 * (docs/design/progress.md), and completes wherever the library's blocking
 * form does: every positive count whose datatype is empty (of size 0) is
 * passed as 0 (quirk Q8, mpi/quirks.h).  A count of an empty datatype
 * carries nothing, and MPI matches type signatures, which both describe as
 * empty, so the zero changes no outcome.  The program's arrays are only
 * read; a negative count is passed as it is, for MPI to refuse.
 */
#ifndef OMNIBUS_ALLTOALLV_H
#define OMNIBUS_ALLTOALLV_H

#include <mpi.h>

int impl_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                   MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int rdispls[], MPI_Datatype rtype, MPI_Comm comm);
int impl_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf,
                   const int rcounts[], const int rdispls[],
                   const MPI_Datatype rtypes[], MPI_Comm comm);
int impl_Alltoallv_c(const void *sbuf, const MPI_Count scounts[],
                     const MPI_Aint sdispls[], MPI_Datatype stype, void *rbuf,
                     const MPI_Count rcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype rtype, MPI_Comm comm);
int impl_Alltoallw_c(const void *sbuf, const MPI_Count scounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype stypes[],
                     void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
                     MPI_Comm comm);

#endif
