#include "shim/base/state.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

omni_state omni;

uint64_t omni_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

_Noreturn void omni_out_of_memory(const char *what)
{
    fprintf(stderr, "omnibus: rank %d: out of memory allocating %s\n",
            omni.rank, what);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

int omni_raise(MPI_Comm comm, int err)
{
    PMPI_Comm_call_errhandler(comm, err);
    return err;
}
