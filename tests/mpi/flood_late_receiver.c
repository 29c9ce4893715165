/* flood_late_receiver: every rank floods one rank that starts receiving
 * late, and nothing is lost.
 *
 * MPI 4.1 §3.4 and §3.5: standard-mode sends may complete once buffered or
 * may wait for the receiver; either way every message is delivered, once,
 * in send order per sender.  Under Omnibus each sender here sends more than
 * its window towards the receiver (60,000 items of 64 bytes); past the
 * window its blocking sends go to MPICH as header and payload, as they
 * would without Omnibus, and what Omnibus holds stays bounded; the runner
 * checks from the statistics file that some sends went past the window
 * (totals.window_fallbacks > 0) and the bound (peak_buffer_bytes_per_rank
 * <= memory_bound_bytes, and no rank over its own bound), and at 3 ranks
 * that the senders took the sleeping receiver for silent (flow.silences).
 */
#include "testlib.h"

#define TAG 21
#define LEN 64
#define PER_SENDER 60000L

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size();
    unsigned char buf[LEN];
    if (me != 0) {
        for (long i = 0; i < PER_SENDER; i++) {
            tl_fill(buf, LEN, me, i);
            CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, 0, TAG, MPI_COMM_WORLD));
        }
        CHECK(1, "sender finished");
    } else {
        tl_sleep(1.0);
        long *next = calloc((size_t)size, sizeof *next);
        MPI_Status st;
        for (long n = 0; n < PER_SENDER * (size - 1); n++) {
            CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, MPI_ANY_SOURCE, TAG,
                            MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE;
            CHECK(src > 0 && src < size,
                  "a flood message must come from a sender 1..%d, got %d",
                  size - 1, src);
            if (src <= 0 || src >= size)
                continue;
            CHECK_PATTERN(buf, LEN, src, next[src],
                          "message %ld from rank %d must arrive in send order "
                          "and intact",
                          next[src], src);
            next[src]++;
        }
        for (int s = 1; s < size; s++)
            CHECK(next[s] == PER_SENDER,
                  "rank %d sent %ld messages, %ld arrived", s, PER_SENDER,
                  next[s]);
        free(next);
    }
    return tl_finalize();
}
