/* cancel_recv: cancelling a receive.
 *
 * MPI 4.1 §3.8.4: MPI_Cancel marks a pending receive for cancellation; it
 * must then be completed (MPI_Wait), and MPI_Test_cancelled on the returned
 * status says whether it was cancelled.  A receive that can never match is
 * cancelled (true), and takes no later message: a message sent after the
 * cancellation goes to the next matching receive.  A receive that already
 * matched a message completes normally: MPI_Test_cancelled says false and
 * the data is there.  Works for named and MPI_ANY_SOURCE receives, and for
 * receives posted for large messages.
 *
 * The ranks run in pairs (testlib.h), all pairs at once: the leader of a
 * pair cancels, its partner sends; nobody else sends to either of them, so
 * the ANY_SOURCE receives can only ever match the partner's messages.
 */
#include "testlib.h"

#define GO 90

static void cancel_unmatched(int source, int tag, int n, const char *what)
{
    unsigned char *b = tl_malloc((size_t)n);
    MPI_Request req;
    MPI_Status st;
    int cancelled = -1;
    memset(b, 0x11, (size_t)n);
    CHECK_MPI(MPI_Irecv(b, n, MPI_BYTE, source, tag, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL,
          "%s: MPI_Wait on a cancelled receive must free the request", what);
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled,
          "%s: a receive nobody sends to, cancelled, must report "
          "MPI_Test_cancelled true",
          what);
    CHECK_FILLED(b, (size_t)n, 0x11, "%s: buffer of the cancelled receive",
                 what);
    free(b);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    MPI_Status st;
    MPI_Request req;
    int cancelled = -1;

    if (peer == MPI_PROC_NULL) {
        /* sits out */
    } else if (tl_leads()) {
        cancel_unmatched(peer, 99, 8, "named small receive");
        cancel_unmatched(MPI_ANY_SOURCE, 98, 8, "ANY_SOURCE receive");
        cancel_unmatched(MPI_ANY_SOURCE, MPI_ANY_TAG, 100000,
                         "large ANY_SOURCE/ANY_TAG receive");

        /* A cancelled receive must not take a message sent afterwards. */
        unsigned char b[64];
        memset(b, 0x22, sizeof b);
        CHECK_MPI(MPI_Irecv(b, 64, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Cancel(&req));
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled, "receive for tag 7 cancelled before anything was "
                         "sent must report cancelled");
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
        unsigned char c[64];
        CHECK_MPI(MPI_Recv(c, 64, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 7, 64,
                     "the message sent after a cancelled receive");
        CHECK_PATTERN(c, 64, peer, 7,
                      "message sent after a cancelled receive");
        CHECK_FILLED(b, 64, 0x22,
                     "buffer of the cancelled receive (the later message "
                     "must not land there)");

        /* A receive that has matched completes normally. */
        for (int large = 0; large < 2; large++) {
            int n = large ? 60000 : 32;
            unsigned char *d = tl_malloc((size_t)n);
            int flag = 0;
            CHECK_MPI(MPI_Irecv(d, n, MPI_BYTE, MPI_ANY_SOURCE, 8,
                             MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
            double t0 = tl_now();
            while (!flag) {
                CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
                CHECK(flag || tl_now() - t0 < 10,
                      "a receive of a message already sent never completed "
                      "(10 s of MPI_Request_get_status)");
            }
            CHECK_MPI(MPI_Cancel(&req));
            CHECK_MPI(MPI_Wait(&req, &st));
            CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
            CHECK(!cancelled,
                  "a %d-byte receive that had completed before MPI_Cancel "
                  "must report MPI_Test_cancelled false",
                  n);
            CHECK_STATUS(st, peer, 8, n,
                         "receive cancelled after it matched");
            CHECK_PATTERN(d, (size_t)n, peer, 8 + large,
                          "receive cancelled after it matched (%d bytes)", n);
            free(d);
        }
    } else {
        unsigned char c[64];
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        tl_fill(c, 64, me, 7);
        CHECK_MPI(MPI_Send(c, 64, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
        for (int large = 0; large < 2; large++) {
            int n = large ? 60000 : 32;
            unsigned char *d = tl_malloc((size_t)n);
            tl_fill(d, (size_t)n, me, 8 + large);
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(d, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD));
            free(d);
        }
    }
    return tl_finalize();
}
