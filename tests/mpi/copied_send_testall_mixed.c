/* copied_send_testall_mixed: MPI_Testall over completed small sends and a
 * receive still pending leaves every request active until all are done.
 *
 * MPI 4.1 §3.7.5: MPI_Testall returns flag = false and changes no request
 * while any is incomplete; once all are, it completes every one, sets them
 * to MPI_REQUEST_NULL and fills each status.  The leader makes N small
 * MPI_Isend (which Omnibus completes as it copies them) and one MPI_Irecv
 * its partner answers only after a go-ahead; Testall before the answer
 * must say false and leave the send requests active; after it, true.
 */
#include "testlib.h"

#define N 6

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL && tl_leads()) {
        MPI_Request req[N + 1];
        MPI_Status st[N + 1];
        int vals[N], answer = -1, flag = 1;
        for (int i = 0; i < N; i++) {
            vals[i] = i;
            CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, peer, 3, MPI_COMM_WORLD,
                             &req[i < N / 2 ? i : i + 1]));
        }
        CHECK_MPI(MPI_Irecv(&answer, 1, MPI_INT, peer, 4, MPI_COMM_WORLD,
                         &req[N / 2]));
        for (int k = 0; k < 10; k++) {
            CHECK_MPI(MPI_Testall(N + 1, req, &flag, st));
            CHECK(!flag, "MPI_Testall must say false while the receive in "
                  "the array is pending (nothing was sent to it)");
        }
        for (int i = 0; i <= N; i++)
            CHECK(req[i] != MPI_REQUEST_NULL, "MPI_Testall that returned "
                  "false must leave request %d active", i);
        int go = 1;
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
        double t0 = tl_now();
        while (!flag) {
            CHECK_MPI(MPI_Testall(N + 1, req, &flag, st));
            CHECK(flag || tl_now() - t0 < 10, "MPI_Testall must complete "
                  "once the answer was sent; 10 s without");
        }
        for (int i = 0; i <= N; i++)
            CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Testall that returned "
                  "true must set request %d to MPI_REQUEST_NULL", i);
        CHECK(answer == 42 && st[N / 2].MPI_SOURCE == peer &&
              st[N / 2].MPI_TAG == 4, "the receive's status must name rank "
              "%d, tag 4, and its buffer hold 42; got source %d, tag %d, "
              "value %d", peer, st[N / 2].MPI_SOURCE, st[N / 2].MPI_TAG,
              answer);
    } else if (peer != MPI_PROC_NULL) {
        int v, go, answer = 42;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 8, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i, "small send %d must arrive in order; got %d", i, v);
        }
        CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
    }
    return tl_finalize();
}
