#include "shim/mpi/family.h"
#include <string.h>

int mpi_family_matches(const char *library_version)
{
#ifdef MPI_FAMILY_MPICH
    return strncmp(library_version, "MPICH", 5) == 0 ||
           strncmp(library_version, "Intel(R) MPI", 12) == 0 ||
           strstr(library_version, "MVAPICH") != NULL ||
           strstr(library_version, "CRAY MPICH") != NULL;
#else
    return strncmp(library_version, "Open MPI", 8) == 0;
#endif
}
