/* testall_persistent_colls: MPI_Testall over started persistent collective
 * requests, then MPI_Finalize, ends the job cleanly.
 *
 * MPI 4.1 §3.7.5 and §6.13: MPI_Testall completes started persistent
 * collective requests like any others, leaving them inactive; the program
 * then frees them and finalizes.  MPICH 4.0.2's own MPI_Testall reports
 * MPI_ERR_IN_STATUS for such requests, done or not (quirk Q2,
 * shim/mpi/quirks.h), which a program under MPI_ERRORS_RETURN survives:
 * this test accepts that answer from the MPI, completes the requests with
 * MPI_Waitall then, and asks that the sums are right and the job
 * finishes, under
 * Omnibus as under plain MPICH, whose MPI_Finalize once crashed in
 * Omnibus's own closing MPI_Iallreduce after it.  Every rank makes an
 * MPI_Barrier_init and an MPI_Allreduce_init, starts both, tests them with
 * MPI_Testall until the flag is set, checks the sum, and finalizes.
 */
#include "testlib.h"

#define ROUNDS 10

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me = tl_rank(), size = tl_size(), in = me + 1, sum = 0;
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_MPI(MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &reqs[1]));
    for (int round = 0; round < ROUNDS; round++) {
        sum = -1;
        CHECK_MPI(MPI_Startall(2, reqs));
        int flag = 0;
        double t0 = tl_now();
        while (!flag) {
            MPI_Status st[2];
            int rc = MPI_Testall(2, reqs, &flag, st);
            CHECK(rc == MPI_SUCCESS || tl_class(rc) == MPI_ERR_IN_STATUS,
                  "MPI_Testall over two started persistent collectives "
                  "must succeed (or, as MPICH 4.0.2 does, report "
                  "MPI_ERR_IN_STATUS), got %s", tl_errstr(rc));
            if (rc != MPI_SUCCESS) {
                /* MPICH 4.0.2's false error, which it gives before the
                 * requests are done too: MPI_Waitall completes them. */
                CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
                flag = 1;
            }
            CHECK(flag || tl_now() - t0 < 10,
                  "round %d: MPI_Testall never found the two collectives "
                  "complete", round);
            if (!flag && tl_now() - t0 >= 10)
                break;
        }
        CHECK(sum == size * (size + 1) / 2,
              "round %d: the persistent MPI_Allreduce must give the sum %d, "
              "got %d", round, size * (size + 1) / 2, sum);
    }
    CHECK_MPI(MPI_Request_free(&reqs[0]));
    CHECK_MPI(MPI_Request_free(&reqs[1]));
    return tl_finalize();
}
