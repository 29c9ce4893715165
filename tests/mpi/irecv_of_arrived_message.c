/* irecv_of_arrived_message: an MPI_Irecv whose message is already there is
 * an ordinary request.
 *
 * MPI 4.1 §3.7: a nonblocking receive returns a request whatever the state
 * of its message; §3.5: it takes the earliest-sent message that matches;
 * §3.7.3 and §3.8.4: MPI_Request_get_status reports a completed receive
 * without freeing it, MPI_Cancel on a receive that has matched does
 * nothing (MPI_Test_cancelled false, the data there), MPI_Request_free lets
 * it complete on its own, and the completion calls give each request of a
 * mixed array its own status.  Omnibus completes such a receive as it is
 * posted; this pins down that the program cannot tell.
 *
 * The ranks run in pairs (testlib.h), all pairs at once; the partner sends,
 * the leader receives, and the leader posts each receive only once
 * MPI_Iprobe has seen the last message of its round arrive:
 *   round 1: tags 1, 2, 3, 4.  (ANY_SOURCE, ANY_TAG) gets tag 1, looked at
 *     with MPI_Request_get_status, then cancelled and waited for; (partner,
 *     tag 3) is freed at once; a blocking (partner, ANY_TAG) receive then
 *     gets tag 2, and the next one tag 4.
 *   round 2: tags 5, 6.  (partner, 6) and (partner, 5) posted in that order,
 *     with a small MPI_Isend to the partner, complete in one MPI_Waitall.
 */
#include "testlib.h"

#define N 8 /* bytes per message */
#define GO 90

static int peer;

static void check_msg(const unsigned char *b, const MPI_Status *st, int tag,
                      const char *what)
{
    CHECK_STATUS(*st, peer, tag, N, "%s: must get the tag-%d message", what,
                 tag);
    CHECK_PATTERN(b, N, peer, tag, "%s", what);
}

static void leader(void)
{
    unsigned char a[N], b[N], c[N];
    MPI_Request req;
    MPI_Status st;
    int flag = 0, cancelled = -1;

    /* round 1 (see the header) */
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
    tl_await_arrival(peer, 4, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Irecv(a, N, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &req));
    double t0 = tl_now();
    while (!flag) {
        CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
        CHECK(flag || tl_now() - t0 < 10,
              "a receive of a message already there never completed");
    }
    CHECK(req != MPI_REQUEST_NULL,
          "MPI_Request_get_status must not free the request");
    check_msg(a, &st, 1, "MPI_Request_get_status of (ANY_SOURCE, ANY_TAG)");
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled, "a receive that had its message before MPI_Cancel must "
                      "report MPI_Test_cancelled false");
    check_msg(a, &st, 1, "(ANY_SOURCE, ANY_TAG) waited for after MPI_Cancel");

    CHECK_MPI(MPI_Irecv(b, N, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free must set the handle to "
                                   "MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Recv(c, N, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_msg(c, &st, 2, "(partner, ANY_TAG) after the freed tag-3 receive");
    CHECK_MPI(MPI_Recv(c, N, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_msg(c, &st, 4, "the next (partner, ANY_TAG)");

    /* round 2 (see the header) */
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD));
    tl_await_arrival(peer, 6, MPI_COMM_WORLD);
    MPI_Request r[3];
    MPI_Status sts[3];
    unsigned char out[N];
    tl_fill(out, N, tl_rank(), 7);
    CHECK_MPI(MPI_Irecv(a, N, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Irecv(b, N, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Isend(out, N, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &r[2]));
    CHECK_MPI(MPI_Waitall(3, r, sts));
    for (int i = 0; i < 3; i++)
        CHECK(r[i] == MPI_REQUEST_NULL,
              "MPI_Waitall must free request %d of the mixed array", i);
    check_msg(a, &sts[0], 6, "Waitall entry 0, (partner, 6)");
    check_msg(b, &sts[1], 5, "Waitall entry 1, (partner, 5)");
}

/* Sends tags first..last, nonblocking: the leader posts its receives
 * only once they have arrived, so no send relies on buffering. */
static void send_round(unsigned char (*s)[N], MPI_Request *r, int first,
                       int last)
{
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    for (int tag = first; tag <= last; tag++) {
        tl_fill(s[tag], N, tl_rank(), tag);
        CHECK_MPI(MPI_Isend(s[tag], N, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                         &r[tag]));
    }
}

static void partner(void)
{
    unsigned char s[8][N];
    MPI_Request r[8];
    send_round(s, r, 1, 4);
    send_round(s, r, 5, 6);
    CHECK_MPI(MPI_Waitall(6, r + 1, MPI_STATUSES_IGNORE));
    MPI_Status st;
    CHECK_MPI(MPI_Recv(s[7], N, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, 7, N, "the leader's MPI_Isend of the mixed array");
    CHECK_PATTERN(s[7], N, peer, 7, "the leader's MPI_Isend of the mixed array");
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    peer = tl_partner();
    if (peer != MPI_PROC_NULL) {
        if (tl_leads())
            leader();
        else
            partner();
    }
    return tl_finalize();
}
