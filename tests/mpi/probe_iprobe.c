/* probe_iprobe: probes report the message a receive would get, without
 * receiving it.
 *
 * MPI 4.1 §3.8.1: MPI_Probe blocks and MPI_Iprobe tests until a message
 * matching (source, tag, comm) is available; the status gives its source,
 * tag and length (MPI_Get_count), and the message stays queued.  A receive
 * with the source and tag the probe returned gets the probed message.
 * Probes respect the same per-source order as receives.  MPI_Iprobe returns
 * false while nothing matches and true once a message sent later arrives
 * (progress: repeated Iprobe must eventually see it).
 */
#include "testlib.h"

#define NMSG 10
#define GO_TAG 77
#define LATE_TAG 7

static int size_of(int src, int i)
{
    static const int s[] = {100, 1, 30000, 8, 0, 4096, 17};
    return s[(src + i) % 7];
}

static void recv_probed(const MPI_Status *pst, int expect_src, int expect_tag,
                        int expect_n, long expect_id, const char *what)
{
    int n = -1;
    CHECK_MPI(MPI_Get_count(pst, MPI_BYTE, &n));
    CHECK(pst->MPI_SOURCE == expect_src && pst->MPI_TAG == expect_tag &&
              n == expect_n,
          "%s: probe must report source %d tag %d count %d, got source %d "
          "tag %d count %d",
          what, expect_src, expect_tag, expect_n, pst->MPI_SOURCE,
          pst->MPI_TAG, n);
    unsigned char *buf = tl_malloc((size_t)n);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, pst->MPI_SOURCE, pst->MPI_TAG,
                    MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, expect_src, expect_tag, n,
                 "%s: the receive after the probe must get the probed message",
                 what);
    CHECK_PATTERN(buf, (size_t)n, expect_src, expect_id,
                  "%s: receive after probe", what);
    free(buf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int flag;
    MPI_Status pst;

    /* Part 1: named probes; a second probe sees the same message again. */
    if (me == 1) {
        unsigned char a[100], b[64];
        tl_fill(a, sizeof a, 1, 1);
        tl_fill(b, sizeof b, 1, 2);
        CHECK_MPI(MPI_Send(a, 100, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
        int ints[16];
        for (int i = 0; i < 16; i++)
            ints[i] = 1000 + i;
        CHECK_MPI(MPI_Send(ints, 16, MPI_INT, 0, 6, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(b, 64, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
    } else if (me == 0) {
        CHECK_MPI(MPI_Probe(1, 6, MPI_COMM_WORLD, &pst));
        int n = -1;
        CHECK_MPI(MPI_Get_count(&pst, MPI_INT, &n));
        CHECK(pst.MPI_SOURCE == 1 && pst.MPI_TAG == 6 && n == 16,
              "MPI_Probe(1, tag 6) must report source 1 tag 6 and 16 "
              "MPI_INTs, got source %d tag %d count %d",
              pst.MPI_SOURCE, pst.MPI_TAG, n);
        CHECK_MPI(MPI_Probe(1, 5, MPI_COMM_WORLD, &pst));
        recv_probed(&pst, 1, 5, 100, 1, "MPI_Probe(1, 5), first of two");
        CHECK_MPI(MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, &pst));
        if (!flag)
            CHECK_MPI(MPI_Probe(1, 5, MPI_COMM_WORLD, &pst));
        recv_probed(&pst, 1, 5, 64, 2, "probe (1, 5), second of two");
        CHECK_MPI(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, &pst));
        CHECK(flag, "MPI_Iprobe(1, 6) must find the tag-6 message that an "
                    "earlier MPI_Probe saw and nobody received");
        CHECK_MPI(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, &pst));
        CHECK(flag, "a second MPI_Iprobe(1, 6) must still find the message: "
                    "probes do not consume");
        int ints[16];
        MPI_Status st;
        CHECK_MPI(MPI_Recv(ints, 16, MPI_INT, 1, 6, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 16; i++)
            CHECK(ints[i] == 1000 + i, "tag-6 int %d must be %d, got %d", i,
                  1000 + i, ints[i]);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Part 2: wildcard probe + receive with the returned source and tag,
     * message by message, must walk every source in send order. */
    if (me != 0) {
        MPI_Request r[NMSG];
        unsigned char *b[NMSG];
        for (int i = 0; i < NMSG; i++) {
            int n = size_of(me, i);
            b[i] = tl_malloc((size_t)n);
            tl_fill(b[i], (size_t)n, me, 100 + i);
            CHECK_MPI(MPI_Isend(b[i], n, MPI_BYTE, 0, 20 + i % 3, MPI_COMM_WORLD,
                             &r[i]));
        }
        CHECK_MPI(MPI_Waitall(NMSG, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NMSG; i++)
            free(b[i]);
    } else {
        int next[TL_MAX_RANKS] = {0};
        for (int k = 0; k < (size - 1) * NMSG; k++) {
            if (k % 2) {
                CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                                 &pst));
            } else {
                do
                    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG,
                                      MPI_COMM_WORLD, &flag, &pst));
                while (!flag);
            }
            int src = pst.MPI_SOURCE;
            CHECK(src >= 1 && src < size,
                  "wildcard probe must report a sending rank, got %d", src);
            int i = next[src]++;
            recv_probed(&pst, src, 20 + i % 3, size_of(src, i), 100 + i,
                        k % 2 ? "MPI_Probe(ANY_SOURCE, ANY_TAG)"
                              : "MPI_Iprobe(ANY_SOURCE, ANY_TAG)");
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Part 3: Iprobe is false before the message is sent, then becomes true
     * through repeated Iprobe alone.  Rank `late` (2, or 1 at 2 ranks) sends
     * only when told to. */
    int late = size > 2 ? 2 : 1;
    if (me == 0) {
        CHECK_MPI(MPI_Iprobe(late, LATE_TAG, MPI_COMM_WORLD, &flag, &pst));
        CHECK(!flag, "MPI_Iprobe(%d, %d) must be false: rank %d has not sent "
                     "that message yet",
              late, LATE_TAG, late);
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                          &pst));
        CHECK(!flag, "MPI_Iprobe(ANY, ANY) must be false: no message is in "
                     "flight, found source %d tag %d",
              pst.MPI_SOURCE, pst.MPI_TAG);
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, late, GO_TAG, MPI_COMM_WORLD));
        double t0 = tl_now();
        int calls = 0;
        do {
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              &flag, &pst));
            calls++;
            CHECK(flag || tl_now() - t0 < 10.0,
                  "MPI_Iprobe(ANY, ANY) was called %d times over 10 s and "
                  "never saw the message rank %d sent",
                  calls, late);
        } while (!flag);
        recv_probed(&pst, late, LATE_TAG, 12, 500,
                    "late message found by Iprobe");
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                          &pst));
        CHECK(!flag, "after receiving the only message, MPI_Iprobe(ANY, ANY) "
                     "must be false");
    } else if (me == late) {
        unsigned char b[12];
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        tl_fill(b, 12, late, 500);
        CHECK_MPI(MPI_Send(b, 12, MPI_BYTE, 0, LATE_TAG, MPI_COMM_WORLD));
    }

    /* Part 4: a probe with ANY_SOURCE for a tag only one message carries,
     * then a receive with ANY_SOURCE for that tag gets the probed message. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == size - 1) {
        unsigned char b[50000];
        tl_fill(b, sizeof b, me, 600);
        CHECK_MPI(MPI_Send(b, (int)sizeof b, MPI_BYTE, 0, 33, MPI_COMM_WORLD));
    } else if (me == 0) {
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 33, MPI_COMM_WORLD, &pst));
        int n = -1;
        CHECK_MPI(MPI_Get_count(&pst, MPI_BYTE, &n));
        CHECK(pst.MPI_SOURCE == size - 1 && n == 50000,
              "MPI_Probe(ANY_SOURCE, 33) of a 50000-byte message must report "
              "source %d count 50000, got source %d count %d",
              size - 1, pst.MPI_SOURCE, n);
        unsigned char *buf = tl_malloc(50000);
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, 50000, MPI_BYTE, MPI_ANY_SOURCE, 33,
                        MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, size - 1, 33, 50000,
                     "ANY_SOURCE receive after ANY_SOURCE probe");
        CHECK_PATTERN(buf, 50000, size - 1, 600, "large probed message");
        free(buf);
    }
    return tl_finalize();
}
