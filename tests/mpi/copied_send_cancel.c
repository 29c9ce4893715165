/* copied_send_cancel: MPI_Cancel of a small send that has completed does
 * not undo it.
 *
 * MPI 4.1 §3.8.4: cancel either succeeds (the send never happens and
 * MPI_Test_cancelled says true) or the operation completes normally; the
 * request must still be completed (here with MPI_Test, which must find it
 * done).  Omnibus has copied such a send when MPI_Isend returns, so the
 * cancel fails: the status says not cancelled and the message arrives.
 * Each of N sends is cancelled and completed before the next one is made.
 */
#include "testlib.h"

#define N 8

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL && tl_leads()) {
        int ncancelled = 0;
        for (int i = 0; i < N; i++) {
            MPI_Request req;
            MPI_Status st;
            int flag = 0, cancelled = -1;
            CHECK_MPI(MPI_Isend(&i, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Cancel(&req));
            double t0 = tl_now();
            while (!flag) {
                CHECK_MPI(MPI_Test(&req, &flag, &st));
                CHECK(flag || tl_now() - t0 < 10, "a cancelled send must "
                      "complete (MPI_Test); 10 s without");
            }
            CHECK(req == MPI_REQUEST_NULL, "MPI_Test that completed the "
                  "cancelled send must set it to MPI_REQUEST_NULL");
            CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
            ncancelled += cancelled;
            int sent = !cancelled;
            CHECK_MPI(MPI_Send(&sent, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
        }
        (void)ncancelled;
    } else if (peer != MPI_PROC_NULL) {
        for (int i = 0; i < N; i++) {
            int sent = -1, v = -1;
            CHECK_MPI(MPI_Recv(&sent, 1, MPI_INT, peer, 3, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            if (!sent)
                continue;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i, "a send whose cancel failed must arrive whole "
                  "(payload %d); got %d", i, v);
        }
    }
    return tl_finalize();
}
