/* family: which MPI implementation this copy of Omnibus is compiled for.
 *
 * The MPI layer (shim/mpi/) is everything Omnibus assumes about the MPI
 * library beneath it that the standard leaves to the implementation: what
 * a handle is, how a status stores its count, how a predefined datatype's
 * size is found, how generalized requests are made.  It is chosen here, at
 * compile time, from mpi.h, so that every hot path stays a header-only
 * inline with no test at run time.  Two families:
 *  - MPICH and its ABI (Intel MPI, Cray MPICH, MVAPICH): handles are
 *    integers, and MPICH's extensions (MPIX_Grequest_class) are there;
 *  - Open MPI: handles are pointers to the library's objects, only the
 *    standard's generalized requests exist.
 * A library compiled for one family refuses to start under the other
 * (omni_family_check, entry/init.c), since every constant of mpi.h differs.
 */
#ifndef OMNIBUS_MPI_FAMILY_H
#define OMNIBUS_MPI_FAMILY_H

#include <mpi.h>

#if defined(OPEN_MPI)
#define OMNI_FAMILY_OPENMPI 1
#define OMNI_FAMILY_NAME "Open MPI"
#elif defined(MPICH) || defined(MPICH_NAME)
#define OMNI_FAMILY_MPICH 1
#define OMNI_FAMILY_NAME "MPICH"
#else
#error "Omnibus knows MPICH's and Open MPI's mpi.h; this one is neither"
#endif

/* Returns when the MPI library beneath is of this family (by what
 * MPI_Get_library_version says, which MPI allows before MPI_Init); else
 * prints one line naming both, from the first rank as the launchers of
 * both families number it, and exits 1 before MPI_Init. */
void omni_family_check(void);

#endif
