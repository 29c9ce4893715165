/* unsafe_sends_first: a program that blocking-sends a few thousand small
 * messages to every peer before it receives any still runs.
 *
 * MPI 4.1 §3.5 calls such a program unsafe: it relies on the system
 * buffering standard-mode sends.  MPICH's eager protocol does buffer them,
 * so such programs exist and run; Omnibus must run them too, within its
 * per-pair windows and past them (docs/design/flow-control.md, A small
 * message past its window; head_to_head_blocking_sends goes past them on
 * purpose).  Every rank MPI_Sends
 * 3,000 messages of 64 B to each other rank, then receives everything sent
 * to it, checking content and per-sender order.
 */
#include "testlib.h"

#define LEN 64
#define N 3000L
#define TAG 51

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size();
    unsigned char buf[LEN];
    for (long i = 0; i < N; i++)
        for (int k = 1; k < size; k++) {
            int to = (me + k) % size;
            tl_fill(buf, LEN, me, i);
            CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, to, TAG, MPI_COMM_WORLD));
        }
    for (int k = 1; k < size; k++) {
        int from = (me - k + size) % size;
        for (long i = 0; i < N; i++) {
            CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, from, TAG, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK_PATTERN(buf, LEN, from, i,
                          "message %ld of %ld from rank %d, sent before any "
                          "receive was posted, must arrive intact and in order",
                          i, N, from);
        }
    }
    return tl_finalize();
}
