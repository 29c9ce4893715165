/* order_mixed_sizes: MPI non-overtaking across message sizes.
 *
 * MPI 4.1 §3.5: if a sender sends two messages in succession to the same
 * destination on the same communicator and both match the same receive, the
 * receive cannot get the second while the first is pending.  Here every
 * message has the same tag and every receive matches all of them, so the
 * receiver must see the messages exactly in send order, whatever their sizes
 * (1 B to 64 KB, small ones aggregated and large ones sent directly under
 * Omnibus) and whether they went by MPI_Send or MPI_Isend.  Checked with the
 * receives found unexpected (receiver late) and already posted (receiver
 * early), in both directions of each pair.
 */
#include "testlib.h"

#define TAG 42
#define NMSG 48
#define MAXSZ 65536

static const int sizes[] = {1,     65536, 2,    8,  4096, 3,    16384, 64,
                            1024,  65535, 7,    256, 32768, 17, 8192,  128,
                            1025,  4,     2048, 5,  60000, 33, 1,     512};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int size_of(int src, int i) { return sizes[(i + src) % NSIZES]; }

static void send_all(int dest, int me, int phase)
{
    MPI_Request reqs[NMSG];
    int nreq = 0;
    unsigned char *bufs[NMSG];
    for (int i = 0; i < NMSG; i++) {
        long id = phase * 1000 + i;
        int n = size_of(me, i);
        bufs[i] = tl_malloc((size_t)n);
        tl_fill(bufs[i], (size_t)n, me, id);
        /* Blocking sends are safe: the peer only receives in this phase. */
        if (i % 3 == 0)
            CHECK_MPI(MPI_Send(bufs[i], n, MPI_BYTE, dest, TAG, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Isend(bufs[i], n, MPI_BYTE, dest, TAG, MPI_COMM_WORLD,
                             &reqs[nreq++]));
    }
    CHECK_MPI(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
}

/* The receiver is late: every message may already be waiting unexpected. */
static void recv_late(int src, int phase)
{
    unsigned char *buf = tl_malloc(MAXSZ);
    tl_sleep(0.05);
    for (int i = 0; i < NMSG; i++) {
        MPI_Status st;
        long id = phase * 1000 + i;
        int n = size_of(src, i);
        CHECK_MPI(MPI_Recv(buf, MAXSZ, MPI_BYTE, src, TAG, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, src, TAG, n,
                     "receive #%d (late receiver, phase %d) must get message "
                     "#%d, the next one sent",
                     i, phase, i);
        CHECK_PATTERN(buf, (size_t)n, src, id, "receive #%d phase %d", i,
                      phase);
    }
    free(buf);
}

/* The receiver is early: every receive is posted before the first send. */
static void recv_posted_then_sync(int src, int phase)
{
    MPI_Request reqs[NMSG];
    MPI_Status st[NMSG];
    unsigned char *bufs[NMSG];
    for (int i = 0; i < NMSG; i++) {
        bufs[i] = tl_malloc(MAXSZ);
        CHECK_MPI(MPI_Irecv(bufs[i], MAXSZ, MPI_BYTE, src, TAG, MPI_COMM_WORLD,
                         &reqs[i]));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(NMSG, reqs, st));
    for (int i = 0; i < NMSG; i++) {
        long id = phase * 1000 + i;
        int n = size_of(src, i);
        CHECK_STATUS(st[i], src, TAG, n,
                     "posted receive #%d (phase %d) must get message #%d", i,
                     phase, i);
        CHECK_PATTERN(bufs[i], (size_t)n, src, id, "posted receive #%d", i);
        free(bufs[i]);
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    /* Pairs (testlib.h): each phase one side only sends, the other only
     * receives, so blocking sends of any size cannot deadlock.  The rank
     * without a partner (odd counts) only joins the barriers. */
    int lower = me < peer;

    for (int dir = 0; peer != MPI_PROC_NULL && dir < 2; dir++) {
        int sender = (dir == 0) == lower;
        if (sender)
            send_all(peer, me, dir);
        else
            recv_late(peer, dir);
    }
    for (int dir = 0; dir < 2; dir++) {
        int sender = (dir == 0) == lower;
        if (peer == MPI_PROC_NULL) {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        } else if (sender) {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            send_all(peer, me, 10 + dir);
        } else {
            recv_posted_then_sync(peer, 10 + dir);
        }
    }
    return tl_finalize();
}
