/* blocking_sends_then_barrier: blocking standard sends past the window,
 * then a barrier that the receiver entered first, complete as under plain
 * MPICH.
 *
 * MPI 4.1 §3.5 calls this program unsafe: the lower rank of each pair
 * MPI_Sends 20,000 messages of 256 B (more than Omnibus's 4 MiB per-pair
 * window) and then enters MPI_Barrier, while its partner enters the
 * barrier first and receives only after it.  MPICH buffers the sends
 * eagerly, so the program runs; under Omnibus the receiver, waiting in the
 * barrier, holds its answer to the sender's STALL (its barrier might still
 * end and a receive take the messages) and tells the sender so (HOLD),
 * then refuses once the wait has lasted long enough of its own running
 * time, and the rest of the sends go to MPICH
 * (docs/design/flow-control.md, A small message past its window).  Every
 * message must arrive intact and in order.
 */
#include "testlib.h"

#define LEN 256
#define N 20000L
#define TAG 37

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), me = tl_rank();
    unsigned char *buf = tl_malloc((size_t)LEN * N);
    if (peer != MPI_PROC_NULL && tl_leads()) {
        for (long i = 0; i < N; i++) {
            tl_fill(buf + i * LEN, LEN, me, i);
            CHECK_MPI(MPI_Send(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                            MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the sender finished its blocking sends and the barrier");
    } else if (peer != MPI_PROC_NULL) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (long i = 0; i < N; i++)
            CHECK_MPI(MPI_Recv(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (long i = 0; i < N; i++)
            CHECK_PATTERN(buf + i * LEN, LEN, peer, i,
                          "message %ld of %ld sent before the barrier must "
                          "arrive intact and in order",
                          i, N);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barrier");
    }
    free(buf);
    return tl_finalize();
}
