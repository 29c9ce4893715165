/* ssend_waits_for_receive: a synchronous send completes only after the
 * matching receive has started.
 *
 * MPI 4.1 §3.4: MPI_Ssend (and MPI_Issend's request, §3.7.2) completes only
 * once a matching receive has been posted and has started to receive the
 * message; buffering never lets it complete earlier, whatever its size.  A
 * probe is not a receive, so a probed but unreceived message keeps its
 * synchronous send pending.
 *
 * How it is observed: all ranks share one host, so CLOCK_MONOTONIC is one
 * clock for both processes.  The receiver notes the time just before it
 * calls the receive and sends that time afterwards; the sender notes when
 * its send completed.  Completion before the receive was posted is the
 * broken promise.  The receiver waits 0.3 s after a barrier before posting,
 * calling MPI_Iprobe for another tag all the while, so that its MPI makes
 * progress and the message arrives and waits unexpected (Omnibus receives
 * some unexpected payloads early, never a synchronous one), and the sender calls MPI_Test for the first 0.2 s and requires "not
 * complete" throughout, then MPI_Wait; whichever reports completion must
 * do so after the receive was posted.  The ranks run in pairs (testlib.h),
 * all at once: the lower rank of a pair sends, its partner receives.
 */
#include "testlib.h"

#define TIME_TAG 900

static int peer; /* this rank's partner */

static void sender_issend(int n, long id, int use_probe)
{
    unsigned char *b = tl_malloc((size_t)n);
    tl_fill(b, (size_t)n, tl_rank(), id);
    MPI_Request req;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = tl_now();
    CHECK_MPI(MPI_Issend(b, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req));
    int flag = 0;
    double done = 0;
    while (tl_now() - t0 < 0.2) {
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (flag) {
            done = tl_now();
            break;
        }
    }
    if (!flag) {
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        done = tl_now();
    }
    double posted;
    CHECK_MPI(MPI_Recv(&posted, 1, MPI_DOUBLE, peer, TIME_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK(done >= posted,
          "MPI_Issend of %d bytes%s was reported complete by %s %.3f s "
          "before the receiver posted the matching receive (%.3f s after "
          "the send started; the receiver waits 0.3 s before posting)",
          n, use_probe ? " (probed by the receiver)" : "",
          flag ? "MPI_Test" : "MPI_Wait", posted - done, done - t0);
    free(b);
}

static void sender_ssend(int n, long id)
{
    unsigned char *b = tl_malloc((size_t)n);
    tl_fill(b, (size_t)n, tl_rank(), id);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(b, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
    double done = tl_now();
    double posted;
    CHECK_MPI(MPI_Recv(&posted, 1, MPI_DOUBLE, peer, TIME_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK(done >= posted,
          "MPI_Ssend of %d bytes returned %.3f s before the receiver posted "
          "the matching receive",
          n, posted - done);
    free(b);
}

/* Waits `delay` seconds driving progress, as a program polling for other
 * work would. */
static void poll_for(double delay)
{
    double t0 = tl_now();
    int flag = 0;
    while (tl_now() - t0 < delay) {
        CHECK_MPI(MPI_Iprobe(peer, TIME_TAG + 1, MPI_COMM_WORLD, &flag,
                          MPI_STATUS_IGNORE));
        CHECK(!flag, "no message with tag %d was sent", TIME_TAG + 1);
    }
}

static void receiver(int n, long id, int use_probe, double delay)
{
    unsigned char *b = tl_malloc((size_t)n);
    MPI_Status st;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (use_probe) {
        CHECK_MPI(MPI_Probe(peer, 3, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 3, n, "probe of the synchronous message");
    }
    poll_for(delay);
    double posted = tl_now();
    CHECK_MPI(MPI_Recv(b, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, 3, n, "receive of the synchronous message");
    CHECK_PATTERN(b, (size_t)n, peer, id, "synchronous message");
    CHECK_MPI(MPI_Send(&posted, 1, MPI_DOUBLE, peer, TIME_TAG, MPI_COMM_WORLD));
    free(b);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    peer = tl_partner();
    static const int sizes[] = {8, 65536};
    long id = 0;
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        for (int use_probe = 0; use_probe < 2; use_probe++, id++) {
            if (peer == MPI_PROC_NULL) /* sits out, joins the barrier */
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            else if (me < peer)
                sender_issend(n, id, use_probe);
            else
                receiver(n, id, use_probe, 0.3);
        }
        id++;
        if (peer == MPI_PROC_NULL)
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        else if (me < peer)
            sender_ssend(n, id);
        else
            receiver(n, id, 0, 0.2);
    }
    return tl_finalize();
}
