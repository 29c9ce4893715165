/* persistent_coll_any_order: persistent collective requests started in
 * different orders on different ranks complete through any completion call.
 *
 * MPI 4.1 §6.13: persistent collective operations match in the order they
 * were initialized, not started, so ranks may start them in any order; a
 * started persistent collective request completes through every completion
 * call, and after completion it is inactive and still allocated (its handle
 * is not MPI_REQUEST_NULL).  Each rank makes an MPI_Bcast_init, an
 * MPI_Barrier_init and an MPI_Allreduce_init, starts them in a rank-dependent
 * order, and completes them with the call named by argv[1]:
 *   waitall  waitany  waitsome  wait  test  testany  testsome  get_status
 *   waitall1 (one MPI_Barrier_init request alone, by MPI_Waitall of 1)
 *   waitall+p2p (the three with a receive and a send in one MPI_Waitall)
 * MPI_Testall is not among them: MPICH 4.0.2's own MPI_Testall reports
 * MPI_ERR_IN_STATUS for completed persistent collective requests, so no
 * correct answer can be asked of it here (completion_calls_agree.c).  Nor
 * does MPICH 4.0.2 make a persistent collective request inactive when
 * MPI_Waitany, MPI_Testany, MPI_Waitsome or MPI_Testsome completes it: the
 * next such call returns the same index again.  So these calls are asked
 * only what MPICH answers correctly, their first completion (an index, or
 * indices, of started requests, at least one for the waits), and
 * MPI_Waitall completes the rest.
 */
#include "testlib.h"

#define ROUNDS 20
#define NREQ 3

static const char *call;

/* Completes every active request of reqs[0..n) with the call under test. */
static void complete_all(int n, MPI_Request reqs[], int round)
{
    MPI_Status st[8];
    int left = n, flag, idx, oc, ind[8];
    if (!strcmp(call, "waitall") || !strcmp(call, "waitall1") ||
        !strcmp(call, "waitall+p2p")) {
        CHECK_MPI(MPI_Waitall(n, reqs, st));
        return;
    }
    for (int guard = 0; left > 0; guard++) {
        CHECK(guard < 50000000, "round %d: %s never completed the %d "
              "started persistent collectives (%d left)", round, call, n, left);
        if (!strcmp(call, "waitany") || !strcmp(call, "testany")) {
            if (call[0] == 'w')
                CHECK_MPI(MPI_Waitany(n, reqs, &idx, st));
            else
                CHECK_MPI(MPI_Testany(n, reqs, &idx, &flag, st));
            if (call[0] == 'w' || flag) {
                CHECK(idx >= 0 && idx < n, "round %d: %s over %d started "
                      "requests must return one of their indices, "
                      "returned %d", round, call, n, idx);
                break;
            }
        } else if (!strcmp(call, "waitsome") || !strcmp(call, "testsome")) {
            if (call[0] == 'w')
                CHECK_MPI(MPI_Waitsome(n, reqs, &oc, ind, st));
            else
                CHECK_MPI(MPI_Testsome(n, reqs, &oc, ind, st));
            CHECK(oc != MPI_UNDEFINED && oc >= 0 && oc <= n, "round %d: %s "
                  "over %d started requests returned outcount %d", round,
                  call, n, oc);
            CHECK(call[0] != 'w' || oc > 0, "round %d: MPI_Waitsome must "
                  "complete at least one request, completed %d", round, oc);
            for (int j = 0; j < oc; j++)
                CHECK(ind[j] >= 0 && ind[j] < n, "round %d: %s returned "
                      "index %d of %d requests", round, call, ind[j], n);
            if (oc > 0)
                break;
        } else if (!strcmp(call, "wait")) {
            CHECK_MPI(MPI_Wait(&reqs[n - left], &st[0]));
            left--;
        } else if (!strcmp(call, "test")) {
            CHECK_MPI(MPI_Test(&reqs[n - left], &flag, &st[0]));
            left -= flag;
        } else if (!strcmp(call, "get_status")) {
            CHECK_MPI(MPI_Request_get_status(reqs[n - left], &flag, &st[0]));
            if (flag) /* get_status leaves it active: Wait makes it inactive */
                CHECK_MPI(MPI_Wait(&reqs[n - left], &st[0]));
            left -= flag;
        } else {
            FAIL("unknown completion call '%s'", call);
        }
    }
    if (left > 0) /* after the first answer of an -any or -some call */
        CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    call = argc > 1 ? argv[1] : "waitall";
    int me = tl_rank(), size = tl_size();
    int one = !strcmp(call, "waitall1"), p2p = !strcmp(call, "waitall+p2p");
    int value = 0, sum = 0, contrib = 0;
    MPI_Request reqs[NREQ + 2];
    CHECK_MPI(MPI_Bcast_init(&value, 1, MPI_INT, 0, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &reqs[0]));
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    CHECK_MPI(MPI_Allreduce_init(&contrib, &sum, 1, MPI_INT, MPI_SUM,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    unsigned char out[64], in[64];
    for (int round = 0; round < ROUNDS; round++) {
        if (one) {
            CHECK_MPI(MPI_Start(&reqs[1]));
            complete_all(1, &reqs[1], round);
            CHECK(reqs[1] != MPI_REQUEST_NULL, "round %d: a completed "
                  "persistent request must stay allocated, MPI_Waitall set "
                  "it to MPI_REQUEST_NULL", round);
            continue;
        }
        value = me == 0 ? 1000 + round : -1;
        contrib = me + round;
        /* Rank-dependent start order: the three rotations, and reversed. */
        int order[NREQ];
        for (int k = 0; k < NREQ; k++)
            order[k] = (me % 2 ? NREQ - 1 - k : k + me) % NREQ;
        for (int k = 0; k < NREQ; k++)
            CHECK_MPI(MPI_Start(&reqs[order[k]]));
        int n = NREQ;
        if (p2p) {
            tl_fill(out, sizeof out, me, round);
            CHECK_MPI(MPI_Irecv(in, sizeof in, MPI_BYTE, tl_left(1), 7,
                             MPI_COMM_WORLD, &reqs[n++]));
            CHECK_MPI(MPI_Isend(out, sizeof out, MPI_BYTE, tl_right(1), 7,
                             MPI_COMM_WORLD, &reqs[n++]));
        }
        complete_all(n, reqs, round);
        CHECK(value == 1000 + round, "round %d: the persistent MPI_Bcast "
              "from rank 0 must deliver %d, got %d", round, 1000 + round,
              value);
        int want = size * (size - 1) / 2 + size * round;
        CHECK(sum == want, "round %d: the persistent MPI_Allreduce must sum "
              "to %d, got %d", round, want, sum);
        for (int k = 0; k < NREQ; k++)
            CHECK(reqs[k] != MPI_REQUEST_NULL, "round %d: a completed "
                  "persistent collective request must stay allocated; %s "
                  "set request %d to MPI_REQUEST_NULL", round, call, k);
        if (p2p) {
            CHECK_PATTERN(in, sizeof in, tl_left(1), round,
                          "round %d: the receive completed in the same "
                          "MPI_Waitall", round);
            CHECK(reqs[3] == MPI_REQUEST_NULL && reqs[4] == MPI_REQUEST_NULL,
                  "round %d: MPI_Waitall must free the completed "
                  "nonpersistent requests", round);
        }
    }
    for (int k = 0; k < NREQ; k++)
        CHECK_MPI(MPI_Request_free(&reqs[k]));
    return tl_finalize();
}
