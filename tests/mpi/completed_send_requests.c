/* completed_send_requests: requests of small nonblocking sends are
 * independent requests, whatever handle value they carry.
 *
 * MPI 4.1 §3.7: every MPI_Isend returns its own request; a completion call
 * completes each active request exactly once and sets it to
 * MPI_REQUEST_NULL, MPI_Request_free releases one request and the send
 * still happens, and a completed send's status says it was not cancelled.
 * Under Omnibus every small send is complete when MPI_Isend returns, and
 * all such requests share one handle value (request.h): this pins that no
 * call can tell.  The ranks run in pairs (testlib.h): the leader sends
 * NSEND messages in each of three rounds, its partner receives them all and
 * checks their order and contents.
 */
#include "testlib.h"

#define NSEND 50
#define ROUNDS 3
#define TAG 7

static void waitany_round(int peer, int *vals, MPI_Request *req)
{
    int seen[NSEND] = {0};
    for (int i = 0; i < NSEND; i++)
        CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                         &req[i]));
    for (int k = 0; k < NSEND; k++) {
        int idx = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Waitany(NSEND, req, &idx, &st));
        CHECK(idx >= 0 && idx < NSEND && !seen[idx],
              "MPI_Waitany over %d send requests must complete each exactly "
              "once; call %d returned index %d%s", NSEND, k, idx,
              idx >= 0 && idx < NSEND ? " a second time" : "");
        if (idx >= 0 && idx < NSEND) {
            seen[idx] = 1;
            CHECK(req[idx] == MPI_REQUEST_NULL, "MPI_Waitany must set the "
                  "completed send request %d to MPI_REQUEST_NULL", idx);
        }
        int cancelled = 1;
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "a completed send's status must say not cancelled");
    }
    int idx = 0;
    CHECK_MPI(MPI_Waitany(NSEND, req, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "MPI_Waitany over requests that are all "
          "MPI_REQUEST_NULL must return MPI_UNDEFINED, got %d", idx);
}

static void free_round(int peer, int *vals, MPI_Request *req)
{
    for (int i = 0; i < NSEND; i++) {
        CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                         &req[i]));
        if (i % 2 == 0) {
            CHECK_MPI(MPI_Request_free(&req[i]));
            CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Request_free must set "
                  "send request %d to MPI_REQUEST_NULL", i);
        }
    }
    for (int i = 1; i < NSEND; i += 2) {
        CHECK(req[i] != MPI_REQUEST_NULL, "freeing other send requests "
              "must leave request %d active", i);
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Request_get_status(req[i], &flag, MPI_STATUS_IGNORE));
        CHECK(req[i] != MPI_REQUEST_NULL, "MPI_Request_get_status must not "
              "free send request %d", i);
        CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Wait must set send request "
              "%d to MPI_REQUEST_NULL", i);
    }
}

static void testsome_round(int peer, int *vals, MPI_Request *req)
{
    int seen[NSEND] = {0}, done = 0;
    for (int i = 0; i < NSEND; i++)
        CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                         &req[i]));
    while (done < NSEND) {
        int n = 0, idx[NSEND];
        CHECK_MPI(MPI_Testsome(NSEND, req, &n, idx, MPI_STATUSES_IGNORE));
        CHECK(n != MPI_UNDEFINED, "MPI_Testsome returned MPI_UNDEFINED with "
              "%d send requests still active", NSEND - done);
        if (n == MPI_UNDEFINED)
            break;
        for (int k = 0; k < n; k++) {
            CHECK(!seen[idx[k]] && req[idx[k]] == MPI_REQUEST_NULL,
                  "MPI_Testsome must report send request %d once and set it "
                  "to MPI_REQUEST_NULL", idx[k]);
            seen[idx[k]] = 1;
        }
        done += n;
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner_or_finish();
    int vals[ROUNDS][NSEND];
    MPI_Request req[NSEND];
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < NSEND; i++)
            vals[r][i] = r * 1000 + i;
    if (tl_leads()) {
        waitany_round(peer, vals[0], req);
        free_round(peer, vals[1], req);
        testsome_round(peer, vals[2], req);
    } else {
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < NSEND; i++) {
                int v = -1;
                CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, TAG, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
                CHECK(v == vals[r][i], "round %d message %d must arrive in "
                      "send order with its value %d, got %d", r, i,
                      vals[r][i], v);
            }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
