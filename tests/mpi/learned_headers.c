/* learned_headers: one pair's blocking sends too large for a block keep
 * MPI's order, statuses, probes and truncation while they go with a
 * header and without one by turns, among nonblocking sends that follow
 * the crossover.
 *
 * Under Omnibus a large standard send to a rank reached through the MPI
 * underneath goes without a header up to envelope_max and with one above;
 * a pair's blocking sends too large for a block learn that choice while
 * the job runs, trying the other way now and then, and nonblocking ones
 * keep the crossover (docs/design/transport.md, Learning a pair's path
 * while the job runs).  run-tests runs this test with OMNIBUS_SHM=off
 * (enough sends of each size class for the pair to try the other way,
 * which the statistics check counts) and under OMNIBUS_LEARN=alternate
 * with OMNIBUS_FAKE_NODES=2, where each learned send takes the other way
 * from the one before:
 *   - a stream of sends of about 290 KiB (below envelope_max, above a
 *     block) and 580 KiB (above envelope_max), each followed by an 8-byte
 *     one, one large send in five by MPI_Isend and MPI_Wait, the rest by
 *     MPI_Send, arrives in the order sent at MPI_ANY_SOURCE / MPI_ANY_TAG
 *     receives (MPI 4.1 §3.5, non-overtaking), with source, tag and size
 *     in the status and the bytes intact; every tenth message is probed
 *     first (MPI_Probe), and the probe names the message the receive then
 *     gets;
 *   - then two blocking sends of each size into receives half as long
 *     fail with MPI_ERR_TRUNCATE (§3.2.4) and write nothing past their
 *     buffers: under alternate, one of each pair goes with a header and
 *     one without.
 * The ranks run in pairs (testlib.h): the leader sends, its partner
 * receives.
 */
#include "testlib.h"

#define STREAM 400     /* messages: large at even k, 8 bytes at odd k */
#define BELOW 300000   /* above a block of 256 KiB, below envelope_max */
#define ABOVE 600000   /* above envelope_max (512 KiB) */
#define SMALL 8
#define NTRUNC 4       /* BELOW, ABOVE, BELOW, ABOVE */

enum { TAG_BELOW = 1, TAG_ABOVE = 2, TAG_SMALL = 3, TAG_TRUNC = 4,
       TAG_DONE = 5 };

static int msg_len(int k)
{
    if (k % 2)
        return SMALL;
    return (k % 4 ? ABOVE : BELOW) - k;
}

static int msg_tag(int k)
{
    if (k % 2)
        return TAG_SMALL;
    return k % 4 ? TAG_ABOVE : TAG_BELOW;
}

/* Large messages 2, 12, 22, ...: both sizes in turn. */
static int by_request(int k) { return k % 10 == 2; }

static int trunc_len(int i) { return i % 2 ? ABOVE : BELOW; }

static void leader(int peer)
{
    tl_stream_out(peer, STREAM, msg_len, msg_tag, ABOVE, by_request);
    unsigned char *buf = tl_malloc(ABOVE);
    for (int i = 0; i < NTRUNC; i++) {
        tl_fill(buf, (size_t)trunc_len(i), tl_rank(), STREAM + i);
        CHECK_MPI(MPI_Send(buf, trunc_len(i), MPI_BYTE, peer, TAG_TRUNC,
                           MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    free(buf);
}

static void partner(int peer)
{
    tl_stream_in(peer, STREAM, msg_len, msg_tag, ABOVE,
                 "with a header or without, by request or not");
    unsigned char *buf = tl_malloc(ABOVE + 64);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < NTRUNC; i++) {
        int half = trunc_len(i) / 2;
        memset(buf, 0x5A, ABOVE + 64);
        int rc = MPI_Recv(buf, half, MPI_BYTE, peer, TAG_TRUNC,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
              "a %d-byte receive of a %d-byte message must fail with "
              "MPI_ERR_TRUNCATE, returned %s", half, trunc_len(i),
              tl_errstr(rc));
        CHECK_FILLED(buf + half, (size_t)(ABOVE + 64 - half), 0x5A,
                     "past a %d-byte receive buffer that a %d-byte message "
                     "overflowed", half, trunc_len(i));
    }
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
    free(buf);
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, leader, partner);
}
