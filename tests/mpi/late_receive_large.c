/* late_receive_large: a large message that arrived before its receive was
 * posted is received exactly as one that found its receive waiting.
 *
 * MPI 4.1 §3.5: a receive takes the earliest-sent matching message,
 * whenever it arrived; §3.2.4: it fills at most its buffer and reports
 * MPI_ERR_TRUNCATE for the rest; §3.3: a derived datatype places the bytes
 * as its type map says; §3.8: a probe reports the message's true size.
 * Omnibus receives the payload of such a message at once into a buffer of
 * its own (recv.c, "Early payloads", up to 64 KiB) and copies it over when
 * the receive comes; beyond that size the payload stays in MPICH.
 *
 * The ranks run in pairs (testlib.h); the leader sends seven messages above
 * the threshold, then a token, all on a duplicate of MPI_COMM_WORLD that
 * returns errors.  Every message travels its pair's one route, so once
 * the partner has the token every header is there.  The partner then:
 *   probes tag 13 (65537 bytes) and must see all of it;
 *   receives with MPI_ANY_TAG, which must take tag 10 (2000 bytes);
 *   receives tag 11 (8192 bytes) into a vector type of 64-byte blocks with
 *     64-byte gaps, which must stay untouched;
 *   receives tag 12 (65536 bytes) into 1000 bytes: MPI_ERR_TRUNCATE, and
 *     nothing written past them (MPI leaves the buffer's content open);
 *   receives tags 13 and 14 (300000 bytes) whole;
 *   takes tag 15 (30000 bytes) with MPI_Mprobe and MPI_Mrecv, and tag 16
 *     (40000 bytes) with MPI_Improbe and MPI_Imrecv (§3.8.2: a matched
 *     probe's message is received by exactly that receive, whole).
 */
#include "testlib.h"

#define TOKEN 99
#define GUARD 64
#define GUARD_BYTE 0xA5

static const int sizes[] = {2000, 8192, 65536, 65537, 300000, 30000, 40000};
#define NMSG ((int)(sizeof sizes / sizeof sizes[0]))

static MPI_Comm comm;
static int peer;

static void send_all(void)
{
    tl_send_then_token(peer, comm, sizes, NMSG, 10, TOKEN);
}

static void probe_sees_whole_size(void)
{
    MPI_Status st;
    CHECK_MPI(MPI_Probe(peer, 13, comm, &st));
    CHECK_STATUS(st, peer, 13, sizes[3],
                 "MPI_Probe of a 65537-byte message that arrived before any "
                 "receive");
}

static void any_tag_takes_oldest(void)
{
    unsigned char *buf = tl_malloc((size_t)sizes[0]);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, sizes[0], MPI_BYTE, peer, MPI_ANY_TAG, comm, &st));
    CHECK_STATUS(st, peer, 10, sizes[0],
                 "MPI_ANY_TAG receive after seven large messages arrived must "
                 "take the earliest sent (tag 10)");
    CHECK_PATTERN(buf, (size_t)sizes[0], peer, 10,
                  "the 2000-byte message received late");
    free(buf);
}

static void vector_type_places_blocks(void)
{
    enum { BLOCK = 64, NBLOCKS = 8192 / BLOCK, SPAN = 2 * BLOCK * NBLOCKS };
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(NBLOCKS, BLOCK, 2 * BLOCK, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    unsigned char *buf = tl_malloc(SPAN);
    unsigned char *want = tl_malloc((size_t)sizes[1]);
    memset(buf, GUARD_BYTE, SPAN);
    tl_fill(want, (size_t)sizes[1], peer, 11);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, 1, vec, peer, 11, comm, &st));
    CHECK_STATUS(st, peer, 11, sizes[1],
                 "the 8192-byte message received late into a vector type");
    for (int k = 0; k < NBLOCKS; k++) {
        CHECK(memcmp(buf + 2 * BLOCK * k, want + BLOCK * k, BLOCK) == 0,
              "vector receive: block %d must hold bytes %d..%d of the "
              "message", k, BLOCK * k, BLOCK * (k + 1) - 1);
        CHECK_FILLED(buf + 2 * BLOCK * k + BLOCK, BLOCK, GUARD_BYTE,
                     "vector receive: the gap after block %d must stay "
                     "untouched", k);
    }
    CHECK_MPI(MPI_Type_free(&vec));
    free(want);
    free(buf);
}

static void short_buffer_truncates(void)
{
    enum { SHORT = 1000 };
    unsigned char buf[SHORT + GUARD];
    memset(buf, GUARD_BYTE, sizeof buf);
    MPI_Status st;
    int rc = MPI_Recv(buf, SHORT, MPI_BYTE, peer, 12, comm, &st);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "a 65536-byte message received late into 1000 bytes must fail "
          "with MPI_ERR_TRUNCATE, got %s", tl_errstr(rc));
    CHECK_FILLED(buf + SHORT, GUARD, GUARD_BYTE,
                 "the bytes past a truncated receive's buffer");
}

/* Message i (tag 10 + i, sizes[i] bytes) as `call` completed it: its
 * status and every byte of it. */
static void check_whole(const MPI_Status *st, const unsigned char *buf, int i,
                        const char *call)
{
    CHECK_STATUS(*st, peer, 10 + i, sizes[i],
                 "%s of the %d-byte message received late", call, sizes[i]);
    CHECK_PATTERN(buf, (size_t)sizes[i], peer, 10 + i,
                  "the %d-byte message received late by %s", sizes[i], call);
}

static void receive_whole(int i)
{
    unsigned char *buf = tl_malloc((size_t)sizes[i]);
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(buf, sizes[i], MPI_BYTE, peer, 10 + i, comm, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    check_whole(&st, buf, i, "MPI_Irecv");
    free(buf);
}

static void matched_probe_receives(int i)
{
    unsigned char *buf = tl_malloc((size_t)sizes[i]);
    MPI_Message msg;
    MPI_Status st;
    CHECK_MPI(MPI_Mprobe(peer, 10 + i, comm, &msg, &st));
    CHECK_STATUS(st, peer, 10 + i, sizes[i],
                 "MPI_Mprobe of a %d-byte message that arrived before any "
                 "receive", sizes[i]);
    CHECK_MPI(MPI_Mrecv(buf, sizes[i], MPI_BYTE, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL,
          "MPI_Mrecv must set its message handle to MPI_MESSAGE_NULL");
    check_whole(&st, buf, i, "MPI_Mrecv after MPI_Mprobe");
    free(buf);
}

static void matched_probe_nonblocking(int i)
{
    unsigned char *buf = tl_malloc((size_t)sizes[i]);
    MPI_Message msg;
    MPI_Status st;
    MPI_Request req;
    int flag = 0;
    CHECK_MPI(MPI_Improbe(peer, 10 + i, comm, &flag, &msg, &st));
    CHECK(flag, "MPI_Improbe must find the %d-byte message: every header "
                "arrived before the token that was received first", sizes[i]);
    CHECK_STATUS(st, peer, 10 + i, sizes[i],
                 "MPI_Improbe of a %d-byte message that arrived before any "
                 "receive", sizes[i]);
    CHECK_MPI(MPI_Imrecv(buf, sizes[i], MPI_BYTE, &msg, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    check_whole(&st, buf, i, "MPI_Imrecv after MPI_Improbe");
    free(buf);
}

static void receive_all_late(void)
{
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TOKEN, comm, MPI_STATUS_IGNORE));
    probe_sees_whole_size();
    any_tag_takes_oldest();
    vector_type_places_blocks();
    short_buffer_truncates();
    receive_whole(3);
    receive_whole(4);
    matched_probe_receives(5);
    matched_probe_nonblocking(6);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    peer = tl_partner();
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    if (peer != MPI_PROC_NULL) {
        if (tl_leads())
            send_all();
        else
            receive_all_late();
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
