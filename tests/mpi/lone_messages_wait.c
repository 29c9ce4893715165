/* lone_messages_wait: messages that arrive one at a time, long before
 * their receives are posted, are all kept, in order and intact.
 *
 * MPI 4.1 §3.5: a standard send may complete before its receive is
 * posted, and messages from one sender on one communicator that match the
 * same receive are received in the order they were sent.  Here the leader
 * of each pair sends NMSG small messages, each followed by an
 * MPI_Barrier that every rank joins, so each leaves alone (Omnibus flushes
 * before a collective) and reaches its destination while that rank sits in
 * the barrier, with no receive posted.  Only then does the partner receive
 * them all.  scripts/test/run-tests also runs this test with buffers of 1 MiB
 * and checks that the memory held stays within the documented bound:
 * a lone message that waits must not pin the whole wire receive it came
 * in (transport.h, transport_hold_item).
 */
#include "testlib.h"

#define NMSG 128
#define LEN 8
#define TAG 7

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), lead = tl_leads();
    unsigned char buf[LEN];
    for (long k = 0; k < NMSG; k++) {
        if (lead) {
            tl_fill(buf, LEN, tl_rank(), k);
            CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, peer, TAG, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (peer != MPI_PROC_NULL && !lead) {
        for (long k = 0; k < NMSG; k++) {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &st));
            long bad = tl_mismatch(buf, LEN, peer, k);
            CHECK(bad < 0,
                  "message %ld, sent alone before its receive was posted, "
                  "must arrive intact and in order; byte %ld differs", k, bad);
        }
    }
    return tl_finalize();
}
