/* truncation_at_short_distance: a receive too short for its message, whose
 * buffer lies a few bytes past the send buffer modulo a page, fails with
 * MPI_ERR_TRUNCATE, writes nothing past its buffer, and the pair's next
 * message still arrives.
 *
 * At such distances Omnibus may copy with a loop of its own, and a
 * single-copy read goes through a buffer of its own 64 KiB at a time
 * (docs/design/transport.md, Copies and alignment): the capacities below
 * end inside a piece, one byte short of a piece and past the first piece,
 * so every way the last piece can be cut is tried.  Under
 * OMNIBUS_COPIES=loop (matrix entry copies-loop) those paths are taken at
 * every distance, and run-tests checks from the statistics file that the
 * reads went through the buffer.  MPI's promise (MPI 4.1 §3.2.4, §3.7.3):
 * the receive returns MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, only the
 * receive buffer may be written, and the error does not cost the sender
 * its later messages.
 *
 * The leader of each pair (testlib.h) sends each message, first with
 * MPI_Isend, then with MPI_Send, followed each time by an 8-byte message
 * on another tag; its partner receives the first into a buffer too short
 * by the case's amount, with a guard after it, then the second whole.
 * Each message is received twice over: once by MPI_Recv naming its source
 * and tag, once by an MPI_Irecv of any source and any tag completed with
 * the second message's receive in one MPI_Waitall, which must return
 * MPI_ERR_IN_STATUS with MPI_ERR_TRUNCATE, the sender and the tag in the
 * first status, and in the second MPI_SUCCESS or MPI_ERR_PENDING, a
 * request it has not completed yet (MPI 4.1 §3.7.5: MPICH stops at the
 * error, Omnibus completes both; either is MPI).
 */
#include "testlib.h"
#include <stdint.h>

typedef struct {
    size_t size;     /* the message */
    size_t capacity; /* the receive buffer, smaller */
} trunc_case;

static const trunc_case cases[] = {
    {16384, 16384 - 1},          /* a ring record or a read of one piece */
    {65536, 65536 - 5},          /* one byte short of a piece, nearly */
    {200 * 1024, 65536 + 17},    /* past the first piece, inside the next */
    {2 * 65536 + 5, 2 * 65536},  /* every whole piece, not the tail */
};
static const int distances[] = {16, 31};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))
#define NDIST ((int)(sizeof distances / sizeof distances[0]))
#define MAXSIZE (200 * 1024) /* the largest message of cases[] */
#define OFFSET 64            /* the send buffer's offset in its page */
#define TAG_AFTER 1000000

static void send_case(unsigned char *page, int peer, int blocking,
                      size_t n, long msg)
{
    unsigned char *buf = page + OFFSET;
    tl_fill(buf, n, tl_rank(), msg);
    if (blocking) {
        CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, peer, (int)msg,
                           MPI_COMM_WORLD));
    } else {
        MPI_Request req;
        CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, peer, (int)msg,
                            MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    uint64_t after = (uint64_t)msg;
    CHECK_MPI(MPI_Send(&after, 1, MPI_UINT64_T, peer, TAG_AFTER,
                       MPI_COMM_WORLD));
}

/* The truncated message by MPI_Recv, then the 8-byte one. */
static int receive_named(unsigned char *buf, int capacity, int peer,
                         long msg, uint64_t *after)
{
    MPI_Status st;
    int rc = MPI_Recv(buf, capacity, MPI_BYTE, peer, (int)msg,
                      MPI_COMM_WORLD, &st);
    CHECK_MPI(MPI_Recv(after, 1, MPI_UINT64_T, peer, TAG_AFTER,
                       MPI_COMM_WORLD, &st));
    return rc;
}

/* Both at once: the truncated message by a receive of any source and any
 * tag, posted first so that it is the one the message matches, and the
 * 8-byte one, completed together by MPI_Waitall. */
static int receive_wild(unsigned char *buf, int capacity, int peer,
                        long msg, uint64_t *after, const char *how)
{
    MPI_Request reqs[2];
    MPI_Status st[2];
    CHECK_MPI(MPI_Irecv(buf, capacity, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Irecv(after, 1, MPI_UINT64_T, peer, TAG_AFTER,
                        MPI_COMM_WORLD, &reqs[1]));
    int rc = MPI_Waitall(2, reqs, st);
    CHECK(rc == MPI_ERR_IN_STATUS,
          "MPI_Waitall over a truncated wildcard receive of a %s must "
          "return MPI_ERR_IN_STATUS; it returned %s",
          how, tl_errstr(rc));
    CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == (int)msg,
          "a wildcard receive truncating a %s from rank %d, tag %ld, must "
          "still name them in its status; it named rank %d, tag %d",
          how, peer, msg, st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS || st[1].MPI_ERROR == MPI_ERR_PENDING,
          "the receive beside a truncated one in MPI_Waitall must say "
          "MPI_SUCCESS (completed) or MPI_ERR_PENDING (not yet) in its "
          "status; it said %s",
          tl_errstr(st[1].MPI_ERROR));
    if (st[1].MPI_ERROR == MPI_ERR_PENDING)
        CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    return st[0].MPI_ERROR;
}

static void receive_case(unsigned char *page, int peer, const char *how,
                         const trunc_case *c, int distance, int wild,
                         long msg)
{
    size_t total = (size_t)MAXSIZE + TL_PAGE - OFFSET - (size_t)distance;
    unsigned char *buf = page + OFFSET + distance;
    const char *by = wild ? "MPI_Waitall" : "MPI_Recv";
    uint64_t after = 0;
    memset(buf, 0xCC, total);
    int rc = wild ? receive_wild(buf, (int)c->capacity, peer, msg, &after,
                                 how)
                  : receive_named(buf, (int)c->capacity, peer, msg, &after);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "a %zu-byte receive (by %s) of a %zu-byte %s, %d bytes past its "
          "send buffer modulo a page, must fail with MPI_ERR_TRUNCATE; it "
          "returned %s",
          c->capacity, by, c->size, how, distance, tl_errstr(rc));
    CHECK_FILLED(buf + c->capacity, total - c->capacity, 0xCC,
                 "past a %zu-byte receive buffer (by %s) that a %zu-byte %s "
                 "overflowed at distance %d",
                 c->capacity, by, c->size, how, distance);
    CHECK(after == (uint64_t)msg,
          "the 8-byte message sent after a truncated %zu-byte %s (by %s) "
          "must arrive whole: it held %llu, not %ld",
          c->size, how, by, (unsigned long long)after, msg);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner_or_finish();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    unsigned char *page = tl_page_buffer(MAXSIZE + 2 * TL_PAGE);
    long msg = 0;
    for (int wild = 0; wild < 2; wild++)
        for (int blocking = 0; blocking < 2; blocking++)
            for (int c = 0; c < NCASES; c++)
                for (int d = 0; d < NDIST; d++, msg++) {
                    if (tl_leads())
                        send_case(page, peer, blocking, cases[c].size, msg);
                    else
                        receive_case(page, peer,
                                     blocking ? "MPI_Send" : "MPI_Isend",
                                     &cases[c], distances[d], wild, msg);
                }
    free(page);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
