/* abort_midway: one rank calls MPI_Abort while the others wait inside MPI.
 *
 * MPI 4.1 §11.9 (MPI_Abort): the implementation makes a best attempt to
 * abort all processes of the communicator's group.  Under Omnibus the job
 * must still end (no rank may be left spinning in a progress loop) and a
 * statistics file must never be left half written.  Not in tests.list: the
 * runner's start-up checks run it and expect a non-zero exit within the
 * timeout.  Rank 0 sends a few messages and then aborts; the other ranks
 * wait for a message that never comes.
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == 0) {
        long v = 1;
        for (int r = 1; r < n; r++)
            MPI_Send(&v, 1, MPI_LONG, r, 1, MPI_COMM_WORLD);
        usleep(300000);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
        long v;
        MPI_Recv(&v, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
