/* copied_send_free: MPI_Request_free of a small send's request does not
 * stop the send, and leaves other requests alone.
 *
 * MPI 4.1 §3.7.3: MPI_Request_free marks the request for deallocation and
 * sets it to MPI_REQUEST_NULL; an ongoing send completes.  The leader makes
 * N small MPI_Isend, frees every other request, completes the rest with
 * MPI_Test each (they must all be found done, with MPI_Test never
 * touching a freed one) and its partner must receive all N in order.
 */
#include "testlib.h"

#define N 10

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL && tl_leads()) {
        MPI_Request req[N];
        int vals[N];
        for (int i = 0; i < N; i++) {
            vals[i] = 1000 + i;
            CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, peer, 6, MPI_COMM_WORLD,
                             &req[i]));
            if (i % 2) {
                CHECK_MPI(MPI_Request_free(&req[i]));
                CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Request_free must "
                      "set send request %d to MPI_REQUEST_NULL", i);
            }
        }
        for (int i = 0; i < N; i += 2) {
            int flag = 0;
            double t0 = tl_now();
            while (!flag) {
                CHECK_MPI(MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE));
                CHECK(flag || tl_now() - t0 < 10, "send request %d must "
                      "complete under MPI_Test; 10 s without", i);
            }
            CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Test must set completed "
                  "send request %d to MPI_REQUEST_NULL", i);
        }
    } else if (peer != MPI_PROC_NULL) {
        for (int i = 0; i < N; i++) {
            int v = -1;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == 1000 + i, "send %d must arrive (freed request or "
                  "not) and in order: expected %d, got %d", i, 1000 + i, v);
        }
    }
    return tl_finalize();
}
