/* large_send_request: the request of a large nonblocking send behaves as
 * any MPI request.
 *
 * MPI 4.1 §3.7.3: MPI_Request_free on an active send marks the request for
 * deallocation and sets the handle to MPI_REQUEST_NULL; the send still
 * completes, so its receiver gets the whole message.  §3.7.6:
 * MPI_Request_get_status reports completion without freeing the request,
 * which a later MPI_Wait completes and sets to MPI_REQUEST_NULL.  A
 * completed send found by MPI_Testany is freed and its index returned.
 *
 * Under Omnibus a send above the threshold goes as a header plus a payload,
 * and the request the program holds stands for that payload (send.h), so
 * these are the calls that could lose or leak it.  The ranks run in pairs
 * (testlib.h): the partner posts its receives first, the leader sends.
 */
#include "testlib.h"

#define LARGE 60000
#define NSENDS 3

static void leader(int peer)
{
    unsigned char *buf[NSENDS];
    MPI_Request req;
    for (int k = 0; k < NSENDS; k++) {
        buf[k] = tl_malloc(LARGE);
        tl_fill(buf[k], LARGE, tl_rank(), k);
    }

    CHECK_MPI(MPI_Isend(buf[0], LARGE, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free on an active large send "
          "must set the handle to MPI_REQUEST_NULL");

    CHECK_MPI(MPI_Isend(buf[1], LARGE, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req));
    int flag = 0;
    double t0 = tl_now();
    while (!flag) {
        MPI_Status st;
        CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
        CHECK(flag || tl_now() - t0 < 10, "a large send whose receive is "
              "posted never completed (10 s of MPI_Request_get_status)");
    }
    CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status must not free the "
          "request of a large send");
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait after MPI_Request_get_status "
          "must free the large send's request");

    CHECK_MPI(MPI_Isend(buf[2], LARGE, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req));
    int index = -1;
    flag = 0;
    t0 = tl_now();
    while (!flag) {
        CHECK_MPI(MPI_Testany(1, &req, &index, &flag, MPI_STATUS_IGNORE));
        CHECK(flag || tl_now() - t0 < 10, "a large send whose receive is "
              "posted never completed (10 s of MPI_Testany)");
    }
    CHECK(index == 0 && req == MPI_REQUEST_NULL, "MPI_Testany that completes "
          "a large send must return index 0 and free it, got index %d and "
          "%s", index, req == MPI_REQUEST_NULL ? "a freed request"
                                               : "a live request");
    /* The buffer of the freed send may be reused only once the partner
     * says the message arrived. */
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    for (int k = 0; k < NSENDS; k++)
        free(buf[k]);
}

static void partner(int peer)
{
    unsigned char *buf[NSENDS];
    MPI_Request req[NSENDS];
    MPI_Status st[NSENDS];
    for (int k = 0; k < NSENDS; k++) {
        buf[k] = tl_malloc(LARGE);
        CHECK_MPI(MPI_Irecv(buf[k], LARGE, MPI_BYTE, peer, k, MPI_COMM_WORLD,
                         &req[k]));
    }
    CHECK_MPI(MPI_Waitall(NSENDS, req, st));
    for (int k = 0; k < NSENDS; k++) {
        CHECK_STATUS(st[k], peer, k, LARGE, "large send %d", k);
        CHECK_PATTERN(buf[k], LARGE, peer, k, "large send %d (%s)", k,
                      k == 0 ? "its request freed while active"
                      : k == 1 ? "completed through Request_get_status"
                               : "completed through Testany");
        free(buf[k]);
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD));
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
