/* selective_recv_by_tag: a receive takes the first message that matches it,
 * skipping messages with other tags.
 *
 * MPI 4.1 §3.5: a receive matches by (source, tag, communicator); messages
 * that do not match stay queued for later receives, and among the messages
 * that do match, the first sent is received first.  The sender sends tags
 * 1, 2, 3 in that order (MPI_Isend, so no buffering is assumed); the receiver
 * takes tag 3, then 2, then 1.  Then several messages per tag, small and
 * large interleaved, taken tag by tag in reverse: each tag's messages must
 * come in their own send order.  Then the same with the receives posted
 * before anything is sent.  The ranks run in pairs (testlib.h), all at
 * once: the lower rank of a pair sends, its partner receives.
 */
#include "testlib.h"

#define NTAGS 5
#define PER_TAG 6
#define MAXSZ 20000

static int size_of(int tag, int j)
{
    static const int s[] = {8, 20000, 1, 300, 16, 5000, 2};
    return s[(tag + j) % 7];
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    if (peer == MPI_PROC_NULL) { /* sits out, but joins the barrier */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        return tl_finalize();
    }

    /* Part 1: tags 1,2,3 received as 3,2,1, small then large. */
    for (int large = 0; large < 2; large++) {
        int n = large ? 32768 : 16;
        if (me < peer) {
            unsigned char *b[3];
            MPI_Request r[3];
            for (int t = 1; t <= 3; t++) {
                b[t - 1] = tl_malloc((size_t)n);
                tl_fill(b[t - 1], (size_t)n, me, large * 10 + t);
                CHECK_MPI(MPI_Isend(b[t - 1], n, MPI_BYTE, peer, t, MPI_COMM_WORLD,
                                 &r[t - 1]));
            }
            CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
            for (int t = 0; t < 3; t++)
                free(b[t]);
        } else {
            unsigned char *buf = tl_malloc((size_t)n);
            for (int t = 3; t >= 1; t--) {
                MPI_Status st;
                CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, peer, t, MPI_COMM_WORLD,
                                &st));
                CHECK_STATUS(st, peer, t, n,
                             "receive for tag %d (%d-byte messages) must skip "
                             "the earlier tags",
                             t, n);
                CHECK_PATTERN(buf, (size_t)n, peer, large * 10 + t,
                              "receive for tag %d (%d bytes)", t, n);
            }
            free(buf);
        }
    }

    /* Part 2: PER_TAG messages on each of NTAGS tags, interleaved by tag. */
    for (int posted = 0; posted < 2; posted++) {
        if (me < peer) {
            MPI_Request r[NTAGS * PER_TAG];
            unsigned char *b[NTAGS * PER_TAG];
            if (posted)
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            for (int j = 0; j < PER_TAG; j++)
                for (int t = 0; t < NTAGS; t++) {
                    int k = j * NTAGS + t, n = size_of(t, j);
                    b[k] = tl_malloc((size_t)n);
                    tl_fill(b[k], (size_t)n, me, 1000 * posted + 100 * t + j);
                    CHECK_MPI(MPI_Isend(b[k], n, MPI_BYTE, peer, 50 + t,
                                     MPI_COMM_WORLD, &r[k]));
                }
            CHECK_MPI(MPI_Waitall(NTAGS * PER_TAG, r, MPI_STATUSES_IGNORE));
            for (int k = 0; k < NTAGS * PER_TAG; k++)
                free(b[k]);
        } else if (!posted) {
            unsigned char *buf = tl_malloc(MAXSZ);
            tl_sleep(0.05);
            for (int t = NTAGS - 1; t >= 0; t--)
                for (int j = 0; j < PER_TAG; j++) {
                    MPI_Status st;
                    int n = size_of(t, j);
                    CHECK_MPI(MPI_Recv(buf, MAXSZ, MPI_BYTE, peer, 50 + t,
                                    MPI_COMM_WORLD, &st));
                    CHECK_STATUS(st, peer, 50 + t, n,
                                 "message #%d of tag %d, taken after the "
                                 "higher tags",
                                 j, 50 + t);
                    CHECK_PATTERN(buf, (size_t)n, peer, 100 * t + j,
                                  "message #%d of tag %d", j, 50 + t);
                }
            free(buf);
        } else {
            MPI_Request r[NTAGS * PER_TAG];
            MPI_Status st[NTAGS * PER_TAG];
            unsigned char *bufs = tl_malloc((size_t)NTAGS * PER_TAG * MAXSZ);
            for (int t = NTAGS - 1, k = 0; t >= 0; t--)
                for (int j = 0; j < PER_TAG; j++, k++)
                    CHECK_MPI(MPI_Irecv(bufs + (size_t)k * MAXSZ, MAXSZ,
                                     MPI_BYTE, peer, 50 + t, MPI_COMM_WORLD,
                                     &r[k]));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPI_Waitall(NTAGS * PER_TAG, r, st));
            for (int t = NTAGS - 1, k = 0; t >= 0; t--)
                for (int j = 0; j < PER_TAG; j++, k++) {
                    int n = size_of(t, j);
                    CHECK_STATUS(st[k], peer, 50 + t, n,
                                 "posted receive for message #%d of tag %d", j,
                                 50 + t);
                    CHECK_PATTERN(bufs + (size_t)k * MAXSZ, (size_t)n, peer,
                                  1000 + 100 * t + j,
                                  "posted receive for message #%d of tag %d",
                                  j, 50 + t);
                }
            free(bufs);
        }
    }
    return tl_finalize();
}
