/* zero_byte: zero-byte messages are real messages.
 *
 * MPI 4.1 §3.2.2 and §3.5: a message of count 0 has an envelope like any
 * other; it matches one receive, keeps its place in the per-pair order, is
 * seen by probes with count 0, and its receive status has the right source
 * and tag and count 0 (for any datatype).  The buffer may be NULL when the
 * count is 0, and the receive buffer is not written.  The ranks run in
 * pairs (testlib.h), all at once: the lower rank of a pair sends.
 */
#include "testlib.h"

#define TAG 6
#define MAXLEN 70000

static const int lens[] = {0, 5, 0, 0, 100, 0, 70000, 0, 8, 0};
#define NMSG ((int)(sizeof lens / sizeof lens[0]))

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    if (peer == MPI_PROC_NULL) { /* sits out, but joins the barrier */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        return tl_finalize();
    }
    unsigned char *buf = tl_malloc(MAXLEN);
    MPI_Status st;

    /* 1: a mixed stream with one tag; blocking sends, late receiver. */
    if (me < peer) {
        for (int i = 0; i < NMSG; i++) {
            tl_fill(buf, (size_t)lens[i], me, i);
            CHECK_MPI(MPI_Send(lens[i] ? buf : NULL, lens[i], MPI_BYTE, peer,
                            TAG, MPI_COMM_WORLD));
        }
    } else {
        tl_sleep(0.05);
        for (int i = 0; i < NMSG; i++) {
            memset(buf, 0xCC, 16);
            CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                            &st));
            CHECK_STATUS(st, peer, TAG, lens[i],
                         "message %d (%d bytes) of a stream with zero-byte "
                         "messages, in send order",
                         i, lens[i]);
            if (lens[i])
                CHECK_PATTERN(buf, (size_t)lens[i], peer, i, "message %d", i);
            else
                CHECK_FILLED(buf, 16, 0xCC,
                             "receive buffer of zero-byte message %d", i);
        }
    }

    /* 2: zero-byte messages with different tags, taken by ANY_TAG, by
     * probe, into count-0 and NULL buffers, and with a derived type. */
    if (me < peer) {
        MPI_Datatype vec;
        CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
        CHECK_MPI(MPI_Type_commit(&vec));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, peer, 11, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(NULL, 0, vec, peer, 12, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 13, MPI_COMM_WORLD));
        MPI_Request r;
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, peer, 14, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Ssend(NULL, 0, MPI_BYTE, peer, 15, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Type_free(&vec));
    } else {
        CHECK_MPI(MPI_Recv(buf, 10, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                        &st));
        CHECK_STATUS(st, peer, 11, 0, "first zero-byte message by ANY_TAG");
        int c = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
        CHECK(c == 0, "zero-byte message: MPI_Get_count(MPI_INT) must be 0, "
                      "got %d",
              c);
        CHECK_MPI(MPI_Probe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 12, 0,
                     "MPI_Probe of a zero-count derived-type message");
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 12, 0, "receive into a NULL, count-0 buffer");
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, peer, 14, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 14, 0, "zero-byte MPI_Isend taken by tag 14");
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, peer, 13, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 13, 0, "zero-byte message tag 13 taken last");
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 15, MPI_COMM_WORLD,
                        &st));
        CHECK_STATUS(st, peer, 15, 0, "zero-byte MPI_Ssend");
    }

    /* 3: receives posted before the messages: each zero-byte message takes
     * one posted receive, so the one 1-byte message lands in receive #2. */
    if (me > peer) {
        MPI_Request r[4];
        MPI_Status sts[4];
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Irecv(buf + i, 1, MPI_BYTE, peer, 20, MPI_COMM_WORLD,
                             &r[i]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(4, r, sts));
        for (int i = 0; i < 4; i++)
            CHECK_STATUS(sts[i], peer, 20, i == 2 ? 1 : 0,
                         "posted receive %d of zero/one-byte messages", i);
        CHECK(buf[2] == 0x42, "the one 1-byte message must land in receive "
                              "#2, got 0x%02x",
              buf[2]);
    } else {
        unsigned char one = 0x42;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Send(&one, i == 2, MPI_BYTE, peer, 20, MPI_COMM_WORLD));
    }
    free(buf);
    return tl_finalize();
}
