/* learned_paths_large: one pair's stream of blocking sends of 96 KiB
 * keeps MPI's order, statuses and probes, whichever path each takes.
 *
 * Under Omnibus a pair's large blocking sends that fit a block learn
 * whether they go alone in a block or apart while the job runs
 * (docs/design/transport.md, Learning a pair's path while the job runs),
 * but towards a rank reached through the MPI underneath only up to
 * 64 KiB: a trial of the alone path above that sends blocks that leave
 * the pair's TCP sockets slower for the rest of the job.  run-tests runs
 * this test on one node (where the pair learns at 96 KiB, which the
 * statistics check counts), with OMNIBUS_FAKE_NODES=2 (where it does
 * not: every message goes apart, as the crossover says) and under
 * OMNIBUS_LEARN=alternate with OMNIBUS_FAKE_NODES=2 (where the messages
 * go alone and apart by turns):
 *   - a stream of 96 KiB blocking sends, each followed by an 8-byte one,
 *     arrives in the order sent at MPI_ANY_SOURCE / MPI_ANY_TAG receives
 *     (MPI 4.1 §3.5, non-overtaking), with source, tag and size in the
 *     status and the bytes intact; every tenth message is probed first
 *     (MPI_Probe), and the probe names the message the receive then gets.
 * The ranks run in pairs (testlib.h): the leader sends, its partner
 * receives.
 */
#include "testlib.h"

#define STREAM 400     /* messages: large at even k, 8 bytes at odd k */
#define LARGE 98304    /* above 64 KiB, within a block of 256 KiB */
#define SMALL 8

enum { TAG_LARGE = 1, TAG_SMALL = 2 };

static int msg_len(int k) { return k % 2 ? SMALL : LARGE; }
static int msg_tag(int k) { return k % 2 ? TAG_SMALL : TAG_LARGE; }

static void leader(int peer)
{
    tl_stream_out(peer, STREAM, msg_len, msg_tag, LARGE, NULL);
}

static void partner(int peer)
{
    tl_stream_in(peer, STREAM, msg_len, msg_tag, LARGE,
                 "whatever path each took");
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, leader, partner);
}
