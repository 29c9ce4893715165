#include "shim/base/fail.h"
#include <stdio.h>
#include <stdlib.h>

_Noreturn void omni_out_of_memory(const char *what)
{
    /* The rank in MPI_COMM_WORLD, as omni.job.rank holds it once MPI_Init ran;
     * asked of the MPI underneath so that this module needs no state. */
    int rank = -1, up = 0, down = 0;
    PMPI_Initialized(&up);
    PMPI_Finalized(&down);
    if (up && !down)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "omnibus: rank %d: out of memory allocating %s\n",
            rank, what);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

int omni_raise(MPI_Comm comm, int err)
{
    PMPI_Comm_call_errhandler(comm, err);
    return err;
}
