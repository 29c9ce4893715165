/* late_truncation_without_header: a large message that arrived before its
 * receive and is received into too short a buffer fails with
 * MPI_ERR_TRUNCATE, writes nothing past the buffer, and leaves the
 * sender's other messages to match in the order sent.
 *
 * MPI 4.1 §3.2.4: a message longer than the receive buffer is an
 * overflow, MPI_ERR_TRUNCATE, and nothing is written past the buffer;
 * the status names the message's source and tag.  §3.5: one sender's
 * messages match in the order sent.  Under Omnibus the second large
 * message of a pair reached through the MPI underneath goes without a
 * header, and one that the MPI underneath sent at once stays in it until
 * its receive comes (docs/design/transport.md, What the MPI underneath
 * sent at once stays there); the receive that truncates it must take it
 * from there.  The ranks run in pairs (testlib.h): the leader sends a
 * 20,000-byte message (its pair's first large one, with a header), a
 * 30,000-byte one, an 8-byte one and a token; its partner, once it has
 * the token (every message came before it on the pair's route):
 *   receives tag 21 (30,000 bytes) into 15,000: MPI_ERR_TRUNCATE;
 *   receives with MPI_ANY_TAG twice: tag 20 whole, then tag 22 whole.
 */
#include "testlib.h"

#define TOKEN 99
#define GUARD 64
#define GUARD_BYTE 0xA5

static const int sizes[] = {20000, 30000, 8};
#define NMSG ((int)(sizeof sizes / sizeof sizes[0]))

static const MPI_Comm comm = MPI_COMM_WORLD;
static int peer;

/* Errors on comm are returned (MPI_ERR_TRUNCATE), set on this rank alone:
 * a collective duplicate would need the rank that sits out at odd
 * counts (tl_run_pairs). */
static void open_comm(int partner)
{
    peer = partner;
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
}

static void send_all(int partner)
{
    open_comm(partner);
    tl_send_then_token(peer, comm, sizes, NMSG, 20, TOKEN);
}

static void short_buffer_truncates(void)
{
    enum { SHORT = 15000 };
    unsigned char *buf = tl_malloc(SHORT + GUARD);
    memset(buf, GUARD_BYTE, SHORT + GUARD);
    MPI_Status st;
    int rc = MPI_Recv(buf, SHORT, MPI_BYTE, peer, 21, comm, &st);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "a 30000-byte message received late into 15000 bytes must fail "
          "with MPI_ERR_TRUNCATE, got %s", tl_errstr(rc));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 21,
          "the truncated receive's status must name source %d and tag 21, "
          "named source %d and tag %d", peer, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_FILLED(buf + SHORT, GUARD, GUARD_BYTE,
                 "the bytes past a truncated receive's buffer");
    free(buf);
}

/* The oldest message left must match an MPI_ANY_TAG receive: message i. */
static void any_tag_takes(int i)
{
    unsigned char *buf = tl_malloc((size_t)sizes[0]);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, sizes[0], MPI_BYTE, peer, MPI_ANY_TAG, comm, &st));
    CHECK_STATUS(st, peer, 20 + i, sizes[i],
                 "MPI_ANY_TAG receive after the truncated one must take the "
                 "earliest-sent message left (tag %d)", 20 + i);
    CHECK_PATTERN(buf, (size_t)sizes[i], peer, 20 + i,
                  "the %d-byte message received after a truncated one",
                  sizes[i]);
    free(buf);
}

static void receive_all_late(int partner)
{
    open_comm(partner);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TOKEN, comm, MPI_STATUS_IGNORE));
    short_buffer_truncates();
    any_tag_takes(0);
    any_tag_takes(2);
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, send_all, receive_all_late);
}
