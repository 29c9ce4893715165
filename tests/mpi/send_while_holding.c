/* send_while_holding: a rank that holds many messages it has not received
 * yet can still send.
 *
 * MPI 4.1 §3.5: a correct program may send before it receives what was
 * sent to it, as long as the messages fit the implementation's buffering;
 * MPI lets standard sends block, but only until the matching receive is
 * posted, and here every receive is posted right after the sends.  Rank 1
 * sends a burst to rank 0 (2.6 MB of 64-byte messages) and then receives;
 * rank 0 lets that burst arrive, sends its own burst to rank 1, and only
 * then receives.  An implementation that throttled rank 0's sends on the
 * memory its unreceived messages occupy would hang here.  With more ranks,
 * every pair of testlib.h does the same at once (the lower rank of a pair
 * plays rank 0), so that the bursts cross multi-hop routes.
 */
#include "testlib.h"

#define TAG 31
#define LEN 64
#define COUNT 30000L

static void burst_send(int to, int me)
{
    unsigned char buf[LEN];
    for (long i = 0; i < COUNT; i++) {
        tl_fill(buf, LEN, me, i);
        CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, to, TAG, MPI_COMM_WORLD));
    }
}

static void burst_recv(int from)
{
    unsigned char buf[LEN];
    MPI_Status st;
    for (long i = 0; i < COUNT; i++) {
        CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, from, TAG, MPI_COMM_WORLD, &st));
        CHECK_PATTERN(buf, LEN, from, i,
                      "message %ld of rank %d's burst, in order", i, from);
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), partner = tl_partner();
    if (partner == MPI_PROC_NULL) {
        CHECK(1, "odd rank out");
        return tl_finalize();
    }
    if (me > partner) {
        burst_send(partner, me);
        burst_recv(partner);
    } else {
        tl_sleep(0.5);
        burst_send(partner, me);
        burst_recv(partner);
    }
    return tl_finalize();
}
