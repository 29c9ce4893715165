/* finalize_mark: a preload that records when each rank enters MPICH's own
 * MPI_Finalize.  MPICH 4.0.2 ch4:ucx over TCP hangs there in a fraction of
 * multi-rank runs, after all the work is done (docs/cluster.md, The
 * finalize hang; fixed in MPICH 4.2).  scripts/emulate/cluster reads the marks to
 * tell such a job from one that never finished its work.
 *
 * Contract: with CLUSTER_FINALIZE_DIR set, the file
 * $CLUSTER_FINALIZE_DIR/rank-R exists before rank R of MPI_COMM_WORLD runs
 * any of MPICH's finalize; without it, nothing happens.  Preload it after
 * libomnibus.so: Omnibus's MPI_Finalize then drains all traffic and writes
 * its statistics first, and its call to PMPI_Finalize reaches the mark.
 * Without Omnibus, the program's MPI_Finalize reaches it directly.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void mark(void)
{
    const char *dir = getenv("CLUSTER_FINALIZE_DIR");
    int rank = -1;
    if (!dir || !*dir)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static int real_finalize(void)
{
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "PMPI_Finalize");
    if (!next) {
        fprintf(stderr, "finalize_mark: PMPI_Finalize not found\n");
        return MPI_ERR_INTERN;
    }
    return next();
}

EXPORT int PMPI_Finalize(void)
{
    mark();
    return real_finalize();
}

EXPORT int MPI_Finalize(void)
{
    mark();
    return real_finalize();
}
