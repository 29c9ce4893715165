/* single_copy_reads: a large nonblocking or synchronous send between ranks
 * of one node keeps every MPI promise when its receiver copies it straight
 * from the sender's buffer.
 *
 * Under Omnibus such a send (16 KiB and more, a builtin datatype, to a rank
 * of the node) sends only a header; the receiver, once a receive matched
 * it, reads the message from the sender's memory and then tells the sender
 * that its send is complete (docs/design/transport.md, Single-copy reads).
 * Each behaviour below is one thing that path could break:
 *   - a receive posted before the header arrives gets the whole message,
 *     from MPI_Isend and from a blocking MPI_Send (which takes this path
 *     above 128 KiB);
 *   - so does one posted after it arrived (MPI_Iprobe saw it first), and
 *     the probe's status gives the message's size (MPI 4.1 §3.8.1);
 *   - a receive too short for the message fails with MPI_ERR_TRUNCATE
 *     (§3.2.4) and writes nothing past its buffer, and the sender's
 *     request still completes;
 *   - a receive with a derived datatype gets the bytes laid out by it;
 *   - MPI_Issend completes only once a receive matched (§3.4);
 *   - small and large messages from one sender arrive in order at
 *     MPI_ANY_SOURCE / MPI_ANY_TAG receives (§3.5, non-overtaking);
 *   - the send completes only when the data is taken: a sender that
 *     overwrites its buffer right after MPI_Wait does not change what a
 *     receive posted later gets.
 * The ranks run in pairs (testlib.h): the leader sends, its partner
 * receives.  run-tests also checks, from the statistics file, that these
 * sends took the single-copy path.
 */
#include "testlib.h"

#define BIG (256 * 1024)
#define MID (64 * 1024)
#define SHORT (32 * 1024)

enum { TAG_POSTED = 1, TAG_BLOCKING, TAG_LATE, TAG_TRUNC, TAG_VECTOR, TAG_SYNC, TAG_GO,
       TAG_ORDER, TAG_REUSE, TAG_DONE };

#define ORDER_N 12

static size_t order_size(int k)
{
    return k % 3 == 0 ? 8 : k % 3 == 1 ? (size_t)MID : (size_t)20000;
}

static void leader(int peer)
{
    unsigned char *buf = tl_malloc(BIG);
    MPI_Request req;

    tl_fill(buf, BIG, tl_rank(), TAG_POSTED);
    CHECK_MPI(MPI_Isend(buf, BIG, MPI_BYTE, peer, TAG_POSTED, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    tl_fill(buf, BIG, tl_rank(), TAG_BLOCKING);
    CHECK_MPI(MPI_Send(buf, BIG, MPI_BYTE, peer, TAG_BLOCKING, MPI_COMM_WORLD));

    tl_fill(buf, MID, tl_rank(), TAG_LATE);
    CHECK_MPI(MPI_Isend(buf, MID, MPI_BYTE, peer, TAG_LATE, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    tl_fill(buf, MID, tl_rank(), TAG_TRUNC);
    CHECK_MPI(MPI_Isend(buf, MID, MPI_BYTE, peer, TAG_TRUNC, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    int *ints = (int *)buf;
    for (int i = 0; i < MID / 4; i++)
        ints[i] = i * 7 + 1;
    CHECK_MPI(MPI_Isend(ints, MID / 4, MPI_INT, peer, TAG_VECTOR, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* The partner posts its receive only after TAG_GO, which is sent only
     * after these tests: until then the synchronous send cannot complete. */
    tl_fill(buf, MID, tl_rank(), TAG_SYNC);
    CHECK_MPI(MPI_Issend(buf, MID, MPI_BYTE, peer, TAG_SYNC, MPI_COMM_WORLD,
                      &req));
    for (int i = 0; i < 50; i++) {
        int flag = 1;
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "MPI_Issend of %d bytes completed before any receive "
              "was posted for it (MPI_Test call %d); a synchronous send "
              "completes only once a receive matched", MID, i);
        tl_sleep(0.001);
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    unsigned char *order[ORDER_N];
    MPI_Request reqs[ORDER_N];
    for (int k = 0; k < ORDER_N; k++) {
        order[k] = tl_malloc(order_size(k));
        tl_fill(order[k], order_size(k), tl_rank(), 100 + k);
        CHECK_MPI(MPI_Isend(order[k], (int)order_size(k), MPI_BYTE, peer,
                         TAG_ORDER + k % 2, MPI_COMM_WORLD, &reqs[k]));
    }
    CHECK_MPI(MPI_Waitall(ORDER_N, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < ORDER_N; k++)
        free(order[k]);

    tl_fill(buf, MID, tl_rank(), TAG_REUSE);
    CHECK_MPI(MPI_Isend(buf, MID, MPI_BYTE, peer, TAG_REUSE, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    memset(buf, 0xEE, MID);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
    free(buf);
}

static void partner(int peer)
{
    unsigned char *buf = tl_malloc(BIG);
    MPI_Status st;
    MPI_Request req;

    CHECK_MPI(MPI_Irecv(buf, BIG, MPI_BYTE, peer, TAG_POSTED, MPI_COMM_WORLD,
                     &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_STATUS(st, peer, TAG_POSTED, BIG, "a receive posted before a "
                 "%d-byte send", BIG);
    CHECK_PATTERN(buf, BIG, peer, TAG_POSTED, "a receive posted before a "
                  "%d-byte send", BIG);

    CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, peer, TAG_BLOCKING, MPI_COMM_WORLD,
                    &st));
    CHECK_STATUS(st, peer, TAG_BLOCKING, BIG, "the receive of a %d-byte "
                 "blocking MPI_Send", BIG);
    CHECK_PATTERN(buf, BIG, peer, TAG_BLOCKING, "the receive of a %d-byte "
                  "blocking MPI_Send", BIG);

    tl_await_arrival(peer, TAG_LATE, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Probe(peer, TAG_LATE, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, TAG_LATE, MID, "MPI_Probe of a %d-byte message "
                 "that arrived before its receive", MID);
    CHECK_MPI(MPI_Recv(buf, MID, MPI_BYTE, peer, TAG_LATE, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, TAG_LATE, MID, "a receive posted after its "
                 "%d-byte message arrived", MID);
    CHECK_PATTERN(buf, MID, peer, TAG_LATE, "a receive posted after its "
                  "%d-byte message arrived", MID);

    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    memset(buf, 0x5A, BIG);
    int rc = MPI_Recv(buf, SHORT, MPI_BYTE, peer, TAG_TRUNC, MPI_COMM_WORLD,
                      &st);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE, "a %d-byte receive of a %d-byte "
          "message must fail with MPI_ERR_TRUNCATE, returned %s", SHORT, MID,
          tl_errstr(rc));
    CHECK_FILLED(buf + SHORT, BIG - SHORT, 0x5A, "past a %d-byte receive "
                 "buffer that a %d-byte message overflowed", SHORT, MID);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* Int i of the message into int slot 2i. */
    MPI_Datatype spread;
    CHECK_MPI(MPI_Type_vector(MID / 4, 1, 2, MPI_INT, &spread));
    CHECK_MPI(MPI_Type_commit(&spread));
    int *ints = (int *)buf;
    for (int i = 0; i < BIG / 4; i++)
        ints[i] = -1;
    CHECK_MPI(MPI_Recv(ints, 1, spread, peer, TAG_VECTOR, MPI_COMM_WORLD, &st));
    int bad = -1;
    for (int i = 0; i < MID / 2 && bad < 0; i++)
        if (ints[i] != (i % 2 ? -1 : (i / 2) * 7 + 1))
            bad = i;
    CHECK(bad < 0, "a %d-int message received with a vector type (int i "
          "into slot 2i) must fill the even slots and leave the odd ones; "
          "slot %d is %d", MID / 4, bad, bad < 0 ? 0 : ints[bad]);
    CHECK_MPI(MPI_Type_free(&spread));

    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(buf, MID, MPI_BYTE, peer, TAG_SYNC, MPI_COMM_WORLD, &st));
    CHECK_PATTERN(buf, MID, peer, TAG_SYNC, "the message of an MPI_Issend");

    for (int k = 0; k < ORDER_N; k++) {
        CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG_ORDER + k % 2, (int)order_size(k),
                     "MPI_ANY_SOURCE/MPI_ANY_TAG receive %d of small and "
                     "large messages sent in order", k);
        CHECK_PATTERN(buf, order_size(k), peer, 100 + k, "MPI_ANY_SOURCE "
                      "receive %d of small and large messages sent in order",
                      k);
    }

    /* Posted late: a send that completed before its data was taken would
     * let the sender overwrite the buffer first. */
    tl_sleep(0.05);
    CHECK_MPI(MPI_Recv(buf, MID, MPI_BYTE, peer, TAG_REUSE, MPI_COMM_WORLD,
                    &st));
    CHECK_PATTERN(buf, MID, peer, TAG_REUSE, "a %d-byte message whose "
                  "sender overwrote its buffer right after MPI_Wait "
                  "completed the send", MID);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    free(buf);
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, leader, partner);
}
