/* collective_owes_progress: a rank inside a blocking collective still
 * answers for the receives it posted and still sends what its started sends
 * owe, however much they carry.
 *
 * MPI 4.1 §3.7.4 (progress): a posted receive lets a matching send
 * complete, and a started send completes once its receive is posted, even
 * while the other rank is blocked in another call.  Omnibus runs a blocking
 * collective as MPICH's own blocking call only when no other rank can wait
 * on this one; these two exchanges each leave one side owing progress.
 * Each pair moves 20,000 messages of 256 B (more than the 4 MiB per-pair
 * window, so part of them goes by rendezvous, which needs both sides).
 *
 *  1. The receiver posts every MPI_Irecv and enters MPI_Barrier; the sender
 *     sends with blocking MPI_Send, then enters the barrier.  The sends can
 *     complete only if the receiver, in the barrier, answers them.
 *  2. The sender starts every MPI_Isend and enters MPI_Barrier; the
 *     receiver posts its receives, waits for all of them, then enters the
 *     barrier.  The receives complete only if the sender, in the barrier,
 *     sends what the rendezvous asks for.
 */
#include "testlib.h"

#define LEN 256
#define N 20000L
#define TAG 41

static void posted_receives_answered(int peer, int me, unsigned char *buf,
                                     MPI_Request *req)
{
    if (tl_leads()) {
        for (long i = 0; i < N; i++) {
            tl_fill(buf + i * LEN, LEN, me, i);
            CHECK_MPI(MPI_Send(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                            MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "every blocking send completed while the receiver sat in "
                 "the barrier with its receives posted");
        return;
    }
    for (long i = 0; i < N; i++)
        CHECK_MPI(MPI_Irecv(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                         MPI_COMM_WORLD, &req[i]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
    for (long i = 0; i < N; i++)
        CHECK_PATTERN(buf + i * LEN, LEN, peer, i,
                      "message %ld of %ld, received into a receive posted "
                      "before the barrier, must arrive intact and in order",
                      i, N);
}

static void started_sends_delivered(int peer, int me, unsigned char *buf,
                                    MPI_Request *req)
{
    if (tl_leads()) {
        for (long i = 0; i < N; i++) {
            tl_fill(buf + i * LEN, LEN, me, N + i);
            CHECK_MPI(MPI_Isend(buf + i * LEN, LEN, MPI_BYTE, peer, TAG + 1,
                             MPI_COMM_WORLD, &req[i]));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
        CHECK(1, "the sender's barrier completed while its sends were owed");
        return;
    }
    for (long i = 0; i < N; i++)
        CHECK_MPI(MPI_Irecv(buf + i * LEN, LEN, MPI_BYTE, peer, TAG + 1,
                         MPI_COMM_WORLD, &req[i]));
    CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
    for (long i = 0; i < N; i++)
        CHECK_PATTERN(buf + i * LEN, LEN, peer, N + i,
                      "message %ld of %ld, sent before the sender's barrier, "
                      "must arrive intact and in order while the sender "
                      "waits in the barrier",
                      i, N);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), me = tl_rank();
    unsigned char *buf = tl_malloc((size_t)LEN * N);
    MPI_Request *req = tl_malloc(sizeof *req * N);
    if (peer != MPI_PROC_NULL) {
        posted_receives_answered(peer, me, buf, req);
        started_sends_delivered(peer, me, buf, req);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barriers");
    }
    free(buf);
    free(req);
    return tl_finalize();
}
