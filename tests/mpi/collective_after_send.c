/* collective_after_send: point-to-point messages sent before blocking
 * collectives are still delivered when the receive is posted after them.
 *
 * MPI 4.1 §3.4 and §6.1: a standard-mode send may complete as soon as the
 * message is buffered, and collectives and point-to-point traffic on a
 * communicator do not interfere: a collective neither consumes nor loses
 * pending point-to-point messages, and its result is unaffected by them.
 * Each rank sends small messages (8-64 bytes, which MPI implementations
 * buffer eagerly, so MPI_Send returns at once) to other ranks, then enters
 * MPI_Barrier, MPI_Allreduce, MPI_Bcast, MPI_Alltoall, MPI_Gather, and only
 * then receives; every message must arrive, in order, and every collective
 * must give the right answer.  Then the same with MPI_Isend, which needs no
 * buffering assumption, and with messages between collectives.
 */
#include "testlib.h"

#define TAG 3
#define NSTREAM 20

static int len_of(int i) { return 8 + (i * 8) % 57; }

static void collectives(int me, int size, int round)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long in = me + round, out = -1, expect = 0;
    for (int k = 0; k < size; k++)
        expect += k + round;
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out == expect, "MPI_Allreduce(SUM) after sends must give %ld, got %ld",
          expect, out);
    int b[4] = {0, 0, 0, 0};
    int root = round % size;
    if (me == root)
        for (int k = 0; k < 4; k++)
            b[k] = 100 * round + k;
    CHECK_MPI(MPI_Bcast(b, 4, MPI_INT, root, MPI_COMM_WORLD));
    for (int k = 0; k < 4; k++)
        CHECK(b[k] == 100 * round + k,
              "MPI_Bcast from %d: element %d must be %d, got %d", root, k,
              100 * round + k, b[k]);
    int sa[TL_MAX_RANKS], ra[TL_MAX_RANKS];
    for (int k = 0; k < size; k++) {
        sa[k] = me * 10 + k + round;
        ra[k] = -1;
    }
    CHECK_MPI(MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, MPI_COMM_WORLD));
    for (int k = 0; k < size; k++)
        CHECK(ra[k] == k * 10 + me + round,
              "MPI_Alltoall: element from rank %d must be %d, got %d", k,
              k * 10 + me + round, ra[k]);
    int g[TL_MAX_RANKS], mine = me * me + round;
    for (int k = 0; k < size; k++)
        g[k] = -1;
    CHECK_MPI(MPI_Gather(&mine, 1, MPI_INT, g, 1, MPI_INT, root,
                      MPI_COMM_WORLD));
    for (int k = 0; me == root && k < size; k++)
        CHECK(g[k] == k * k + round,
              "MPI_Gather at %d: element %d must be %d, got %d", root, k,
              k * k + round, g[k]);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    int far = (me + size / 2) % size, from_far = (me + size - size / 2) % size;
    unsigned char buf[64];
    MPI_Status st;
    int round = 0;

    /* 1: one small MPI_Send, the collectives, then the receive. */
    tl_fill(buf, 8, me, 1);
    CHECK_MPI(MPI_Send(buf, 8, MPI_BYTE, right, TAG, MPI_COMM_WORLD));
    collectives(me, size, round++);
    CHECK_MPI(MPI_Recv(buf, 64, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, left, TAG, 8,
                 "8-byte message sent before the collectives");
    CHECK_PATTERN(buf, 8, left, 1, "message sent before the collectives");

    /* 2: a stream of small messages to two peers, then collectives. */
    for (int i = 0; i < NSTREAM; i++) {
        unsigned char b[64];
        tl_fill(b, (size_t)len_of(i), me, 100 + i);
        CHECK_MPI(MPI_Send(b, len_of(i), MPI_BYTE, i % 2 ? far : right, TAG,
                        MPI_COMM_WORLD));
    }
    collectives(me, size, round++);
    for (int i = 0; i < NSTREAM; i++) {
        int src = i % 2 ? from_far : left;
        if (src == left && left == from_far)
            src = MPI_ANY_SOURCE;
        CHECK_MPI(MPI_Recv(buf, 64, MPI_BYTE, src, TAG, MPI_COMM_WORLD, &st));
        int expect_src = i % 2 ? from_far : left;
        CHECK_STATUS(st, expect_src, TAG, len_of(i),
                     "message %d of the stream sent before the collectives",
                     i);
        CHECK_PATTERN(buf, (size_t)len_of(i), expect_src, 100 + i,
                      "message %d of the stream", i);
    }

    /* 3: a message before each collective, all received at the end. */
    for (int c = 0; c < 5; c++) {
        unsigned char b[64];
        tl_fill(b, 16, me, 200 + c);
        CHECK_MPI(MPI_Send(b, 16, MPI_BYTE, right, TAG + 1 + c, MPI_COMM_WORLD));
        collectives(me, size, round++);
    }
    for (int c = 4; c >= 0; c--) {
        CHECK_MPI(MPI_Recv(buf, 64, MPI_BYTE, left, TAG + 1 + c, MPI_COMM_WORLD,
                        &st));
        CHECK_STATUS(st, left, TAG + 1 + c, 16,
                     "message sent before collective round %d", c);
        CHECK_PATTERN(buf, 16, left, 200 + c,
                      "message sent before collective round %d", c);
    }

    /* 4: MPI_Isend (no buffering assumed), collectives, receive, wait. */
    MPI_Request req;
    unsigned char big[3000];
    tl_fill(big, sizeof big, me, 300);
    CHECK_MPI(MPI_Isend(big, (int)sizeof big, MPI_BYTE, right, TAG,
                     MPI_COMM_WORLD, &req));
    collectives(me, size, round++);
    unsigned char rbig[3000];
    CHECK_MPI(MPI_Recv(rbig, (int)sizeof rbig, MPI_BYTE, left, TAG,
                    MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_STATUS(st, left, TAG, 3000, "Isend before the collectives");
    CHECK_PATTERN(rbig, 3000, left, 300, "Isend before the collectives");

    return tl_finalize();
}
