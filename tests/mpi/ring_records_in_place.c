/* ring_records_in_place: messages a little above the threshold, written
 * straight into a node ring, arrive whole, with their statuses, in the
 * order sent, wherever their record starts within a cache line.
 *
 * MPI 4.1 §3.5: one sender's messages that match the same receives match
 * in the order sent; §3.2.5: the status names the source, tag and size.
 * Under Omnibus a message above the threshold to a rank of its node goes
 * alone through the node ring, its item written straight into the ring's
 * shared memory (docs/design/transport.md, Messages above the threshold).
 * The sizes here step by 8 bytes, so
 * that successive records start at every 8-byte offset of a line; every
 * fifth message is a vector of ints (packed in place, not copied), and a
 * few are odd sizes or several kilobytes.  The ranks run in pairs
 * (testlib.h); the leader sends, the partner receives with MPI_ANY_TAG:
 *   late:   every message sent (MPI_Isend), then a token; the partner
 *           takes the token first, then the messages;
 *   posted: the partner posts every receive, then tells the leader to
 *           send (MPI_Send), whose records are written with the bytes on
 *           the line their receiver polls last.
 */
#include "testlib.h"

#define NMSG 40
#define TAG0 100
#define TOKEN 99
#define CAP 8192

static const MPI_Comm comm = MPI_COMM_WORLD;

static int is_vector(int k) { return k % 5 == 4; }

/* Bytes of message k (a multiple of 4 for the vectors). */
static int bytes_of(int k)
{
    int n = 520 + 8 * k;
    if (k % 7 == 6)
        n += 3000;
    if (k % 7 == 3 && !is_vector(k))
        n += 1;
    return n;
}

static int ints_of(int k) { return bytes_of(k) / 4; }

/* The ints a vector message carries: those at even places of its
 * source, which holds twice as many. */
static int vector_value(int phase, int k, int i)
{
    return phase * 1000003 + k * 10007 + i * 2 + 1;
}

/* Message k's send buffer and datatype, ready to go; *type is
 * MPI_DATATYPE_NULL for a byte message, else a committed vector to free. */
static void *message_out(int phase, int k, MPI_Datatype *type, int *count)
{
    if (!is_vector(k)) {
        unsigned char *b = tl_malloc((size_t)bytes_of(k));
        tl_fill(b, (size_t)bytes_of(k), tl_rank(), phase * 1000 + k);
        *type = MPI_DATATYPE_NULL;
        *count = bytes_of(k);
        return b;
    }
    int n = ints_of(k);
    int *src = tl_malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < 2 * n; i++)
        src[i] = i % 2 ? -1 : vector_value(phase, k, i / 2);
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, type));
    CHECK_MPI(MPI_Type_commit(type));
    *count = 1;
    return src;
}

static void send_message(int peer, int phase, int k, int blocking,
                         MPI_Request *req, void **buf)
{
    MPI_Datatype type;
    int count;
    *buf = message_out(phase, k, &type, &count);
    MPI_Datatype t = type == MPI_DATATYPE_NULL ? MPI_BYTE : type;
    if (blocking)
        CHECK_MPI(MPI_Send(*buf, count, t, peer, TAG0 + k, comm));
    else
        CHECK_MPI(MPI_Isend(*buf, count, t, peer, TAG0 + k, comm, req));
    if (type != MPI_DATATYPE_NULL)
        CHECK_MPI(MPI_Type_free(&type));
}

/* Message k as received into `buf` with status st, in `phase`. */
static void check_message(int peer, int phase, int k, const void *buf,
                          MPI_Status *st, const char *when)
{
    CHECK_STATUS(*st, peer, TAG0 + k, bytes_of(k),
                 "%s: receive #%d with MPI_ANY_TAG must get message #%d, "
                 "the next one sent", when, k, k);
    if (!is_vector(k)) {
        CHECK_PATTERN(buf, (size_t)bytes_of(k), peer, phase * 1000 + k,
                      "%s: message #%d (%d bytes)", when, k, bytes_of(k));
        return;
    }
    const int *v = buf;
    int bad = -1;
    for (int i = 0; i < ints_of(k) && bad < 0; i++)
        if (v[i] != vector_value(phase, k, i))
            bad = i;
    CHECK(bad < 0, "%s: message #%d, a vector of %d ints packed from every "
          "other int, must arrive as those ints in order; int %d differs",
          when, k, ints_of(k), bad);
}

static MPI_Datatype recv_type(int k)
{
    return is_vector(k) ? MPI_INT : MPI_BYTE;
}

static int recv_count(int k) { return is_vector(k) ? CAP / 4 : CAP; }

static void lead(int peer)
{
    MPI_Request req[NMSG];
    void *buf[NMSG];
    for (int k = 0; k < NMSG; k++)
        send_message(peer, 0, k, 0, &req[k], &buf[k]);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TOKEN, comm));
    CHECK_MPI(MPI_Waitall(NMSG, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NMSG; k++)
        free(buf[k]);

    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TOKEN, comm,
                       MPI_STATUS_IGNORE));
    for (int k = 0; k < NMSG; k++) {
        send_message(peer, 1, k, 1, NULL, &buf[k]);
        free(buf[k]);
    }
}

static void follow(int peer)
{
    unsigned char *late = tl_malloc(CAP);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TOKEN, comm,
                       MPI_STATUS_IGNORE));
    for (int k = 0; k < NMSG; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(late, recv_count(k), recv_type(k), peer,
                           MPI_ANY_TAG, comm, &st));
        check_message(peer, 0, k, late, &st, "late receiver");
    }
    free(late);

    MPI_Request req[NMSG];
    MPI_Status st[NMSG];
    unsigned char *posted[NMSG];
    for (int k = 0; k < NMSG; k++) {
        posted[k] = tl_malloc(CAP);
        CHECK_MPI(MPI_Irecv(posted[k], recv_count(k), recv_type(k), peer,
                            MPI_ANY_TAG, comm, &req[k]));
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TOKEN, comm));
    CHECK_MPI(MPI_Waitall(NMSG, req, st));
    for (int k = 0; k < NMSG; k++) {
        check_message(peer, 1, k, posted[k], &st[k], "posted receive");
        free(posted[k]);
    }
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, lead, follow);
}
