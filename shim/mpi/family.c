#include "shim/mpi/family.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether MPI_Get_library_version's text names this family: MPICH and
 * the libraries of its ABI, or Open MPI. */
static int family_matches(const char *library_version)
{
#ifdef OMNI_FAMILY_MPICH
    return strncmp(library_version, "MPICH", 5) == 0 ||
           strncmp(library_version, "Intel(R) MPI", 12) == 0 ||
           strstr(library_version, "MVAPICH") != NULL ||
           strstr(library_version, "CRAY MPICH") != NULL;
#else
    return strncmp(library_version, "Open MPI", 8) == 0;
#endif
}

/* The rank number the launcher gives this process: Open MPI's and
 * Hydra's names for it; NULL when neither is set. */
static const char *launcher_rank(void)
{
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    return rank ? rank : getenv("PMI_RANK");
}

void omni_family_check(void)
{
    /* MPICH's maximum, the larger of the two families'. */
    char version[8192] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len);
    if (family_matches(version))
        return;
    const char *rank = launcher_rank();
    if (!rank || strcmp(rank, "0") == 0) {
        char first[64];
        snprintf(first, sizeof first, "%s", version);
        first[strcspn(first, "\n,")] = '\0';
        for (char *t = first; (t = strchr(t, '\t')) != NULL;)
            *t = ' ';
        fprintf(stderr,
                "omnibus: this library was built for %s, but the program "
                "runs under %s: preload the Omnibus library built for it "
                "(omnibus-run chooses it)\n",
                OMNI_FAMILY_NAME, first);
    }
    exit(1);
}
