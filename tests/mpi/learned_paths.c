/* learned_paths: one pair's blocking sends keep MPI's order, statuses and
 * probes while the path they take changes from send to send.
 *
 * Under Omnibus a pair's large blocking sends learn their path while the
 * job runs: after a few dozen sends of one size class they try the other
 * path for a few sends, and keep the faster (docs/design/transport.md,
 * Learning a pair's path while the job runs).  run-tests runs this test
 * under the default (enough sends of one class for the pair to try the
 * other path, which the statistics check counts) and under
 * OMNIBUS_LEARN=alternate, where every large send takes the other path
 * from the one before, to a rank of the node and, with OMNIBUS_SHM=off, to
 * one reached through the MPI underneath:
 *   - a stream of 24 KiB blocking sends, each followed by an 8-byte one,
 *     arrives in the order sent at MPI_ANY_SOURCE / MPI_ANY_TAG receives
 *     (MPI 4.1 §3.5, non-overtaking), with source, tag and size in the
 *     status and the bytes intact; every tenth message is probed first
 *     (MPI_Probe), and the probe names the message the receive then gets;
 *   - a ping-pong of 40 KiB blocking sends, both ranks sending, delivers
 *     every message intact to a receive of a named source and tag.
 * The ranks run in pairs (testlib.h): the leader streams, its partner
 * receives; both ping-pong.
 */
#include "testlib.h"

#define STREAM 400     /* messages: large at even k, 8 bytes at odd k */
#define LARGE 24576
#define SMALL 8
#define ROUNDS 200
#define PING 40960

enum { TAG_LARGE = 1, TAG_SMALL = 2, TAG_PING = 3, TAG_PONG = 4 };

static int msg_len(int k) { return k % 2 ? SMALL : LARGE; }
static int msg_tag(int k) { return k % 2 ? TAG_SMALL : TAG_LARGE; }

static void stream_out(int peer)
{
    tl_stream_out(peer, STREAM, msg_len, msg_tag, LARGE, NULL);
}

static void stream_in(int peer)
{
    tl_stream_in(peer, STREAM, msg_len, msg_tag, LARGE,
                 "whatever path each took");
}

/* ROUNDS round trips of PING bytes; the leader starts each. */
static void ping_pong(int peer, int leads)
{
    unsigned char *out = tl_malloc(PING), *in = tl_malloc(PING);
    for (int r = 0; r < ROUNDS; r++) {
        long msg = 10000 + 2L * r + !leads;
        tl_fill(out, PING, tl_rank(), msg);
        if (leads)
            CHECK_MPI(MPI_Send(out, PING, MPI_BYTE, peer, TAG_PING,
                               MPI_COMM_WORLD));
        MPI_Status st;
        CHECK_MPI(MPI_Recv(in, PING, MPI_BYTE, peer,
                           leads ? TAG_PONG : TAG_PING, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, leads ? TAG_PONG : TAG_PING, PING,
                     "round trip %d of the ping-pong", r);
        CHECK_PATTERN(in, PING, peer, 10000 + 2L * r + leads,
                      "round trip %d of the ping-pong", r);
        if (!leads)
            CHECK_MPI(MPI_Send(out, PING, MPI_BYTE, peer, TAG_PONG,
                               MPI_COMM_WORLD));
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL) {
        if (tl_leads())
            stream_out(peer);
        else
            stream_in(peer);
        ping_pong(peer, tl_leads());
    }
    return tl_finalize();
}
