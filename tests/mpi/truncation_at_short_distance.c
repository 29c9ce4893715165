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

static void receive_case(unsigned char *page, int peer, const char *how,
                         const trunc_case *c, int distance, long msg)
{
    size_t total = (size_t)MAXSIZE + TL_PAGE - OFFSET - (size_t)distance;
    unsigned char *buf = page + OFFSET + distance;
    MPI_Status st;
    memset(buf, 0xCC, total);
    int rc = MPI_Recv(buf, (int)c->capacity, MPI_BYTE, peer, (int)msg,
                      MPI_COMM_WORLD, &st);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "a %zu-byte receive of a %zu-byte %s, %d bytes past its send "
          "buffer modulo a page, must fail with MPI_ERR_TRUNCATE; it "
          "returned %s",
          c->capacity, c->size, how, distance, tl_errstr(rc));
    CHECK_FILLED(buf + c->capacity, total - c->capacity, 0xCC,
                 "past a %zu-byte receive buffer that a %zu-byte %s "
                 "overflowed at distance %d",
                 c->capacity, c->size, how, distance);
    uint64_t after = 0;
    CHECK_MPI(MPI_Recv(&after, 1, MPI_UINT64_T, peer, TAG_AFTER,
                       MPI_COMM_WORLD, &st));
    CHECK(after == (uint64_t)msg,
          "the 8-byte message sent after a truncated %zu-byte %s must "
          "arrive whole: it held %llu, not %ld",
          c->size, how, (unsigned long long)after, msg);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner_or_finish();
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    unsigned char *page = tl_page_buffer(MAXSIZE + 2 * TL_PAGE);
    for (int blocking = 0; blocking < 2; blocking++)
        for (int c = 0; c < NCASES; c++)
            for (int d = 0; d < NDIST; d++) {
                long msg = (blocking * NCASES + c) * NDIST + d;
                if (tl_leads())
                    send_case(page, peer, blocking, cases[c].size, msg);
                else
                    receive_case(page, peer,
                                 blocking ? "MPI_Send" : "MPI_Isend",
                                 &cases[c], distances[d], msg);
            }
    free(page);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
