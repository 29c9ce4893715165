/* ring_sends_before_receives: a ring in which every rank blocking-sends to
 * its right neighbour before it receives from its left one still turns,
 * past Omnibus's per-pair window.
 *
 * MPI 4.1 §3.5: unsafe, since it relies on buffering, but plain MPICH runs
 * it for small messages, so Omnibus must too: a blocking standard send
 * past its pair's window goes to MPICH as it would without Omnibus
 * (docs/design/flow-control.md).  Each rank MPI_Sends N messages of 256 B
 * to rank+1 (three windows' worth, with OMNIBUS_EAGER_POOL at 256 KiB
 * unless the runner sets it), then receives N from rank-1 and checks each
 * message's content and order.  Then MPI_Sendrecv's send half past the
 * window: each rank MPI_Sends N more messages (tag TAG+2) to its right,
 * which fill the window again and stay unreceived, then makes N
 * MPI_Sendrecv calls (send right and receive left, tag TAG+1) whose
 * receives must pick their tag past the queued TAG+2 messages, and only
 * then receives the TAG+2 messages, still in their send order.
 */
#include "testlib.h"

#define LEN 256
#define TAG 62
#define POOL (256L << 10)

int main(int argc, char **argv)
{
    setenv("OMNIBUS_EAGER_POOL", "256K", 0);
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), right = tl_right(1), left = tl_left(1);
    long n = 3 * POOL / (LEN + 24) + 64;
    unsigned char buf[LEN];
    for (long i = 0; i < n; i++) {
        tl_fill(buf, LEN, me, i);
        CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, right, TAG, MPI_COMM_WORLD));
    }
    for (long i = 0; i < n; i++) {
        CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, left, TAG, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        CHECK_PATTERN(buf, LEN, left, i,
                      "message %ld of %ld from the left neighbour %d, sent "
                      "before any receive was posted, must arrive intact "
                      "and in order", i, n, left);
    }
    /* MPI_Sendrecv past the window: the TAG+2 messages fill the window
     * towards the right and wait unreceived, so every Sendrecv's send half
     * finds the window full. */
    for (long i = 0; i < n; i++) {
        tl_fill(buf, LEN, me, 2 * n + i);
        CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, right, TAG + 2, MPI_COMM_WORLD));
    }
    unsigned char in[LEN];
    for (long i = 0; i < n; i++) {
        tl_fill(buf, LEN, me, n + i);
        CHECK_MPI(MPI_Sendrecv(buf, LEN, MPI_BYTE, right, TAG + 1, in, LEN,
                            MPI_BYTE, left, TAG + 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        CHECK_PATTERN(in, LEN, left, n + i,
                      "MPI_Sendrecv %ld of %ld must receive the left "
                      "neighbour %d's tag %d message %ld, past its %ld "
                      "earlier unreceived messages of tag %d",
                      i, n, left, TAG + 1, i, n, TAG + 2);
    }
    for (long i = 0; i < n; i++) {
        CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, left, TAG + 2, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        CHECK_PATTERN(buf, LEN, left, 2 * n + i,
                      "message %ld of %ld of tag %d from the left neighbour "
                      "%d, left unreceived while MPI_Sendrecv ran, must "
                      "arrive intact and in order", i, n, TAG + 2, left);
    }
    return tl_finalize();
}
