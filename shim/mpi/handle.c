#include "shim/mpi/handle.h"

#ifndef MPI_FAMILY_MPICH
#include <sys/mman.h>

/* Page-aligned so that all of it can be made inaccessible; never read or
 * written, only its addresses are used (handle.h). */
_Alignas(4096) char mpi_handle_space[MPI_HANDLE_SPAN];

int mpi_handles_reserve(void)
{
    return mprotect(mpi_handle_space, MPI_HANDLE_SPAN, PROT_NONE);
}
#else
/* MPICH needs nothing here (handle.h); ISO C wants a declaration. */
typedef int mpi_handle_nothing;
#endif
