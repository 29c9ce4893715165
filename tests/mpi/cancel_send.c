/* cancel_send: cancelling a send reports what MPICH itself reports.
 *
 * MPI 4.1 §3.8.4 lets a send cancel either succeed (the message is never
 * received) or fail (the send completes normally); MPI-4.0 deprecates
 * cancelling sends.  MPICH 4 over ch4 never cancels a send: after
 * MPI_Cancel + MPI_Wait, MPI_Test_cancelled says false and the receiver gets
 * the message.  Omnibus must report the same for every kind of send it
 * manages, including a large one whose header has already left before its
 * payload (cancelling that payload would leave the receiver waiting for
 * ever) and an active persistent send.
 *
 * The ranks run in pairs (testlib.h): the leader starts each send, cancels
 * it before its partner has posted anything, then tells the partner to
 * receive them all; nobody else sends to the partner.
 */
#include "testlib.h"

#define GO 90
#define NSENDS 6
#define LARGE 60000

/* Send k: its size, and whether it is synchronous. */
static const int sizes[NSENDS] = {8, LARGE, 8, LARGE, LARGE, 0};
static const char *const names[NSENDS] = {
    "small MPI_Isend", "large MPI_Isend", "small MPI_Issend",
    "large MPI_Issend", "active persistent large MPI_Send_init",
    "zero-byte MPI_Isend"};

static void start_send(int k, void *buf, int peer, MPI_Request *req)
{
    tl_fill(buf, (size_t)sizes[k], tl_rank(), k);
    if (k == 2 || k == 3)
        CHECK_MPI(MPI_Issend(buf, sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD,
                          req));
    else if (k == 4) {
        CHECK_MPI(MPI_Send_init(buf, sizes[k], MPI_BYTE, peer, k,
                             MPI_COMM_WORLD, req));
        CHECK_MPI(MPI_Start(req));
    } else
        CHECK_MPI(MPI_Isend(buf, sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD,
                         req));
}

static void leader(int peer)
{
    unsigned char *buf[NSENDS];
    MPI_Request req[NSENDS];
    for (int k = 0; k < NSENDS; k++) {
        buf[k] = tl_malloc(LARGE);
        start_send(k, buf[k], peer, &req[k]);
        CHECK_MPI(MPI_Cancel(&req[k]));
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
    for (int k = 0; k < NSENDS; k++) {
        MPI_Status st;
        int cancelled = -1;
        CHECK_MPI(MPI_Wait(&req[k], &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "%s cancelled before the receiver posted: MPICH "
              "reports a send cancel as failed (Test_cancelled false), "
              "Omnibus reported it cancelled", names[k]);
        if (k == 4) {
            CHECK(req[k] != MPI_REQUEST_NULL, "MPI_Wait on a persistent "
                  "request must leave it allocated (inactive)");
            CHECK_MPI(MPI_Request_free(&req[k]));
        } else {
            CHECK(req[k] == MPI_REQUEST_NULL, "MPI_Wait on the %s must free "
                  "its request", names[k]);
        }
        free(buf[k]);
    }
}

static void partner(int peer)
{
    unsigned char *b = tl_malloc(LARGE);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    /* In reverse order, by tag: each must be there however it was sent. */
    for (int k = NSENDS - 1; k >= 0; k--) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(b, LARGE, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, k, sizes[k], "the %s whose cancel failed",
                     names[k]);
        CHECK_PATTERN(b, (size_t)sizes[k], peer, k,
                      "the %s whose cancel failed must arrive intact",
                      names[k]);
    }
    free(b);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer == MPI_PROC_NULL)
        ; /* sits out */
    else if (tl_leads())
        leader(peer);
    else
        partner(peer);
    return tl_finalize();
}
