/* learned_headers: one pair's blocking sends too large for a block keep
 * MPI's order, statuses and probes while they go with a header and
 * without one by turns.
 *
 * Under Omnibus a large standard send to a rank reached through the MPI
 * underneath goes without a header up to envelope_max and with one above;
 * a pair's blocking sends too large for a block learn that choice while
 * the job runs, trying the other way now and then
 * (docs/design/transport.md, Learning a pair's path while the job runs).
 * run-tests runs this test with OMNIBUS_SHM=off (enough sends of each
 * size class for the pair to try the other way, which the statistics
 * check counts) and under OMNIBUS_LEARN=alternate with OMNIBUS_FAKE_NODES=2,
 * where each such send takes the other way from the one before:
 *   - a stream of blocking sends of about 290 KiB (below envelope_max,
 *     above a block) and 580 KiB (above envelope_max), each followed by an
 *     8-byte one, arrives in the order sent at MPI_ANY_SOURCE /
 *     MPI_ANY_TAG receives (MPI 4.1 §3.5, non-overtaking), with source,
 *     tag and size in the status and the bytes intact; every tenth message
 *     is probed first (MPI_Probe), and the probe names the message the
 *     receive then gets.
 * The ranks run in pairs (testlib.h): the leader streams, its partner
 * receives.
 */
#include "testlib.h"

#define STREAM 400     /* messages: large at even k, 8 bytes at odd k */
#define BELOW 300000   /* above a block of 256 KiB, below envelope_max */
#define ABOVE 600000   /* above envelope_max (512 KiB) */
#define SMALL 8

enum { TAG_BELOW = 1, TAG_ABOVE = 2, TAG_SMALL = 3 };

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

static void stream_out(int peer)
{
    tl_stream_out(peer, STREAM, msg_len, msg_tag, ABOVE);
}

static void stream_in(int peer)
{
    tl_stream_in(peer, STREAM, msg_len, msg_tag, ABOVE,
                 "with a header or without");
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, stream_out, stream_in);
}
