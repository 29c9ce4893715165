/* progress_test_loops: nonblocking completion calls alone make progress.
 *
 * MPI 4.1 §3.7.4 (progress): a program that only polls (MPI_Test,
 * MPI_Testany, MPI_Testall, MPI_Iprobe, MPI_Request_get_status) until a
 * matching message arrives must eventually see it; repeated calls to these
 * functions "eventually" complete an operation whose peer has started its
 * counterpart.  A ping-pong in which neither side ever makes a blocking
 * call therefore finishes, whatever buffering the implementation does
 * behind the scenes (a small message left sitting in a send buffer would
 * hang it).  Each round trip checks the payload.  The ranks run in pairs
 * (testlib.h), all at once: the lower rank of a pair pings.
 */
#include "testlib.h"

/* Round trips per completion call: ROUNDS at 2 ranks.  With more, all
 * pairs spin at once and the ranks outnumber the cores; a round trip then
 * waits for the scheduler (tens of ms under Omnibus, whose MPI_Test does
 * not yield), so 120 / P of them, 15 at 8 ranks. */
#define ROUNDS 150

static int nrounds(void)
{
    int n = tl_size();
    return n <= 2 ? ROUNDS : 120 / n;
}
#define N 8

static int peer; /* this rank's partner */

typedef int (*poll_fn)(MPI_Request *req, int *flag, MPI_Status *st);

static int poll_test(MPI_Request *req, int *flag, MPI_Status *st)
{
    return MPI_Test(req, flag, st);
}
static int poll_testany(MPI_Request *req, int *flag, MPI_Status *st)
{
    MPI_Request arr[3] = {MPI_REQUEST_NULL, *req, MPI_REQUEST_NULL};
    int idx = -1;
    int rc = MPI_Testany(3, arr, &idx, flag, st);
    *req = arr[1];
    if (rc == MPI_SUCCESS && *flag && idx != 1)
        FAIL("MPI_Testany completed index %d, only index 1 is active", idx);
    return rc;
}
static int poll_testall(MPI_Request *req, int *flag, MPI_Status *st)
{
    return MPI_Testall(1, req, flag, st);
}
static int poll_get_status(MPI_Request *req, int *flag, MPI_Status *st)
{
    int rc = MPI_Request_get_status(*req, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    return rc;
}

static void spin(poll_fn poll, MPI_Request *req, MPI_Status *st,
                 const char *how, int round)
{
    int flag = 0;
    double t0 = tl_now();
    while (!flag) {
        CHECK_MPI(poll(req, &flag, st));
        CHECK(flag || tl_now() - t0 < 10,
              "%s: round %d not complete after 10 s of polling", how, round);
    }
}

/* Ping-pong rounds: the lower rank pings, its partner answers value+1. */
static void rounds(poll_fn poll, const char *how, int me, int use_iprobe)
{
    for (int i = 0, n = nrounds(); i < n; i++) {
        long out[N / sizeof(long) + 1], in[N / sizeof(long) + 1];
        MPI_Request sreq, rreq;
        MPI_Status st;
        if (me < peer) {
            out[0] = 1000L * i;
            CHECK_MPI(MPI_Irecv(in, 1, MPI_LONG, peer, 2, MPI_COMM_WORLD,
                             &rreq));
            CHECK_MPI(MPI_Isend(out, 1, MPI_LONG, peer, 1, MPI_COMM_WORLD,
                             &sreq));
            spin(poll, &rreq, &st, how, i);
            spin(poll, &sreq, MPI_STATUS_IGNORE, how, i);
            CHECK(in[0] == 1000L * i + 1,
                  "%s: round %d: reply must be %ld, got %ld", how, i,
                  1000L * i + 1, in[0]);
        } else {
            if (use_iprobe) {
                int flag = 0;
                double t0 = tl_now();
                while (!flag) {
                    CHECK_MPI(MPI_Iprobe(peer, 1, MPI_COMM_WORLD, &flag, &st));
                    CHECK(flag || tl_now() - t0 < 10,
                          "MPI_Iprobe: ping %d not seen after 10 s", i);
                }
                CHECK_MPI(MPI_Irecv(in, 1, MPI_LONG, peer, 1, MPI_COMM_WORLD,
                                 &rreq));
            } else {
                CHECK_MPI(MPI_Irecv(in, 1, MPI_LONG, peer, 1, MPI_COMM_WORLD,
                                 &rreq));
            }
            spin(poll, &rreq, &st, how, i);
            CHECK(in[0] == 1000L * i,
                  "%s: round %d: ping must be %ld, got %ld", how, i,
                  1000L * i, in[0]);
            out[0] = in[0] + 1;
            CHECK_MPI(MPI_Isend(out, 1, MPI_LONG, peer, 2, MPI_COMM_WORLD,
                             &sreq));
            spin(poll, &sreq, MPI_STATUS_IGNORE, how, i);
        }
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    peer = tl_partner();
    if (peer == MPI_PROC_NULL) /* sits out */
        return tl_finalize();
    rounds(poll_test, "MPI_Test", me, 0);
    rounds(poll_testany, "MPI_Testany", me, 1);
    rounds(poll_testall, "MPI_Testall", me, 0);
    rounds(poll_get_status, "MPI_Request_get_status", me, 1);
    return tl_finalize();
}
