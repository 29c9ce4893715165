/* finalize_then_stall: a job that does not end on its own, for the checks
 * of scripts/emulate/cluster's own contract (tests/cluster/run).
 *
 * usage: finalize_then_stall after|before
 *   after   every rank returns from MPI_Finalize and then sleeps: from the
 *           outside this is MPICH 4.0.2's finalize hang, which scripts/emulate/cluster
 *           must end after its grace period and count as a finished job;
 *   before  the last rank sleeps before MPI_Finalize while the others
 *           finalize: a job that never finished its work, which
 *           scripts/emulate/cluster must report as a timeout naming that rank.
 * It asserts nothing itself and prints nothing.
 */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int before = argc > 1 && strcmp(argv[1], "before") == 0;
    if (before && me == size - 1)
        sleep(600);
    MPI_Finalize();
    if (!before)
        sleep(600);
    return 0;
}
