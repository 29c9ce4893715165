/* hello: MPI_Init and MPI_Finalize, nothing else.
 *
 * Not a regression test of its own (it is not in tests.list): the program
 * scripts/test/run-tests starts to check what Omnibus does at start-up, where
 * the program itself must not matter (a bad OMNIBUS_* setting stops the
 * job at MPI_Init with one line from rank 0; an unknown OMNIBUS_ variable
 * gives a warning; a good setting says nothing).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
