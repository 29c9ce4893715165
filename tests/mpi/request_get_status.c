/* request_get_status: MPI_Request_get_status reports completion without
 * freeing the request.
 *
 * MPI 4.1 §3.7.3: MPI_Request_get_status sets flag true iff the request is
 * complete and then fills the status, but neither frees nor deactivates the
 * request; a later MPI_Wait/MPI_Test completes it as usual, frees it and
 * gives the status again.  It must also make progress: called in a loop, it
 * eventually sees a message sent later.  A receive is not complete before
 * its message is sent; an MPI_Issend is not complete before its receive is
 * posted.  On MPI_REQUEST_NULL it returns flag true and an empty status.
 * The ranks run in pairs (testlib.h), all at once: the lower rank of a pair
 * tests, its partner sends and receives when told to.
 */
#include "testlib.h"

#define GO 90

static void wait_flag(MPI_Request req, MPI_Status *st, const char *what)
{
    int flag = 0;
    double t0 = tl_now();
    while (!flag) {
        CHECK_MPI(MPI_Request_get_status(req, &flag, st));
        CHECK(flag || tl_now() - t0 < 10,
              "%s: MPI_Request_get_status called for 10 s never reported "
              "completion",
              what);
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    MPI_Status st;
    MPI_Request req;
    int flag = -1;

    /* MPI_REQUEST_NULL is complete, with an empty status. */
    req = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    CHECK(flag, "MPI_Request_get_status(MPI_REQUEST_NULL) must give flag "
                "true");
    CHECK_STATUS(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0,
                 "MPI_Request_get_status(MPI_REQUEST_NULL): empty status");

    for (int large = 0; peer != MPI_PROC_NULL && large < 2; large++) {
        int n = large ? 80000 : 24;
        long id = 10 + large;
        unsigned char *b = tl_malloc((size_t)n);
        if (me < peer) {
            CHECK_MPI(MPI_Irecv(b, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req));
            for (int k = 0; k < 50; k++) {
                CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
                CHECK(!flag,
                      "MPI_Request_get_status on a %d-byte receive reported "
                      "complete before the sender was told to send",
                      n);
            }
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
            wait_flag(req, &st, "receive");
            CHECK(req != MPI_REQUEST_NULL,
                  "MPI_Request_get_status must not free the request");
            CHECK_STATUS(st, peer, 3, n,
                         "status from MPI_Request_get_status of a receive");
            CHECK_PATTERN(b, (size_t)n, peer, id,
                          "data once MPI_Request_get_status said complete");
            CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
            CHECK(flag, "a second MPI_Request_get_status must still say "
                        "complete");
            memset(&st, 0, sizeof st);
            CHECK_MPI(MPI_Wait(&req, &st));
            CHECK(req == MPI_REQUEST_NULL, "MPI_Wait must free the request");
            CHECK_STATUS(st, peer, 3, n,
                         "status from MPI_Wait after MPI_Request_get_status");
        } else {
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            tl_fill(b, (size_t)n, me, id);
            CHECK_MPI(MPI_Send(b, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        }

        /* An Issend is incomplete until the receiver posts. */
        if (me < peer) {
            tl_fill(b, (size_t)n, me, id + 100);
            CHECK_MPI(MPI_Issend(b, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req));
            for (int k = 0; k < 50; k++) {
                CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag,
                      "MPI_Request_get_status on a %d-byte MPI_Issend "
                      "reported complete before the receiver was told to "
                      "post its receive",
                      n);
            }
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
            wait_flag(req, MPI_STATUS_IGNORE, "MPI_Issend");
            CHECK(req != MPI_REQUEST_NULL,
                  "MPI_Request_get_status must not free a send request");
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(req == MPI_REQUEST_NULL, "MPI_Wait must free the request");
        } else {
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(b, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, peer, 4, n, "receive of the MPI_Issend");
            CHECK_PATTERN(b, (size_t)n, peer, id + 100, "MPI_Issend data");
        }

        /* A standard send: get_status eventually true, then Test frees. */
        if (me < peer) {
            CHECK_MPI(MPI_Isend(b, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &req));
            wait_flag(req, MPI_STATUS_IGNORE, "MPI_Isend");
            CHECK(req != MPI_REQUEST_NULL,
                  "MPI_Request_get_status must not free a send request");
            CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK(flag && req == MPI_REQUEST_NULL,
                  "MPI_Test after MPI_Request_get_status said complete must "
                  "complete and free the request");
        } else {
            CHECK_MPI(MPI_Recv(b, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, peer, 5, n, "receive of the MPI_Isend");
        }
        free(b);
    }
    return tl_finalize();
}
