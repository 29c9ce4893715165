/* envelope_paths: large messages that travel without a header keep MPI's
 * order, statuses, probes and truncation among the messages around them.
 *
 * Under Omnibus a large standard send to a rank reached through the MPI
 * underneath (OMNIBUS_SHM=off here) goes without a header once that rank
 * has had one, its MPI tag naming its communicator, tag and place in the
 * pair's order; a tag or communicator that does not fit, and a synchronous
 * send, keep the header (docs/design/transport.md, Messages whose envelope
 * is their header).  The leader of each pair sends, its partner receives:
 *   - large messages between 8-byte ones, with a tag too large for the
 *     envelope, a synchronous send and a second communicator among them,
 *     arrive in the order sent at MPI_ANY_SOURCE / MPI_ANY_TAG receives
 *     (MPI 4.1 §3.5, non-overtaking), with their source, tag and size in
 *     the status and their bytes intact;
 *   - MPI_Probe and MPI_Mprobe see a large message's source, tag and size
 *     before it is received (§3.8), and MPI_Mrecv receives it;
 *   - a receive half as long fails with MPI_ERR_TRUNCATE (§3.2.4) and
 *     writes nothing past its buffer.
 */
#include "testlib.h"

#define BIG 200000
#define SMALL 8
#define NMSG 24
/* Above 2^16 - 1: no room for it in the tag under MPICH's tag bound of
 * 2^28 - 1 (MPI_TAG_UB when that is smaller, which only MPI's least bound
 * would be). */
static int tag_wide = 70001;
enum { TAG_ORDER = 1, TAG_PROBE = 3, TAG_TRUNC = 4, TAG_DONE = 6 };

/* Message k of the ordered phase: large at even k, 8 bytes at odd k; the
 * large ones cycle through a plain send, one with a wide tag, one on the
 * duplicate communicator and a synchronous one. */
static int msg_len(int k) { return k % 2 ? SMALL : BIG - k; }
static int msg_tag(int k) { return k % 8 == 2 ? tag_wide : TAG_ORDER + k % 2; }
static int on_dup(int k) { return k % 8 == 4; }
static int synchronous(int k) { return k % 8 == 6; }

static void leader(int peer, MPI_Comm dup)
{
    unsigned char *buf = tl_malloc(BIG);
    for (int k = 0; k < NMSG; k++) {
        tl_fill(buf, (size_t)msg_len(k), tl_rank(), k);
        MPI_Comm c = on_dup(k) ? dup : MPI_COMM_WORLD;
        if (synchronous(k))
            CHECK_MPI(MPI_Ssend(buf, msg_len(k), MPI_BYTE, peer, msg_tag(k),
                                c));
        else
            CHECK_MPI(MPI_Send(buf, msg_len(k), MPI_BYTE, peer, msg_tag(k),
                               c));
    }
    tl_fill(buf, BIG, tl_rank(), 500);
    CHECK_MPI(MPI_Send(buf, BIG, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD));
    tl_fill(buf, BIG, tl_rank(), 501);
    CHECK_MPI(MPI_Send(buf, BIG, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, BIG, MPI_BYTE, peer, TAG_TRUNC, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    free(buf);
}

static void receive_in_order(int peer, MPI_Comm dup, unsigned char *buf)
{
    for (int k = 0; k < NMSG; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           on_dup(k) ? dup : MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, msg_tag(k), msg_len(k),
                     "message %d (%d bytes, tag %d%s%s) at an "
                     "MPI_ANY_SOURCE/MPI_ANY_TAG receive: one sender's "
                     "messages match in the order sent",
                     k, msg_len(k), msg_tag(k), on_dup(k) ? ", duplicate" : "",
                     synchronous(k) ? ", synchronous" : "");
        CHECK_PATTERN(buf, (size_t)msg_len(k), peer, k, "message %d", k);
    }
}

static void probe_then_receive(int peer, unsigned char *buf)
{
    MPI_Status st;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, peer, TAG_PROBE, BIG,
                 "MPI_Probe of a large message must give its envelope");
    CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD,
                       &st));
    CHECK_PATTERN(buf, BIG, peer, 500, "the probed message");
    MPI_Message msg;
    CHECK_MPI(MPI_Mprobe(peer, TAG_PROBE, MPI_COMM_WORLD, &msg, &st));
    CHECK_STATUS(st, peer, TAG_PROBE, BIG,
                 "MPI_Mprobe of a large message must give its envelope");
    CHECK_MPI(MPI_Mrecv(buf, BIG, MPI_BYTE, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv must free the message handle");
    CHECK_PATTERN(buf, BIG, peer, 501, "the message received by MPI_Mrecv");
}

static void receive_truncated(int peer, unsigned char *buf)
{
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    memset(buf, 0x5A, BIG);
    int rc = MPI_Recv(buf, BIG / 2, MPI_BYTE, peer, TAG_TRUNC, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "a %d-byte receive of a %d-byte message must fail with "
          "MPI_ERR_TRUNCATE, returned %s", BIG / 2, BIG, tl_errstr(rc));
    CHECK_FILLED(buf + BIG / 2, BIG / 2, 0x5A,
                 "past a %d-byte receive buffer that a %d-byte message "
                 "overflowed", BIG / 2, BIG);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void partner(int peer, MPI_Comm dup)
{
    unsigned char *buf = tl_malloc(BIG);
    receive_in_order(peer, dup, buf);
    probe_then_receive(peer, buf);
    receive_truncated(peer, buf);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
    free(buf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    int *ub, found = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found));
    if (found && *ub < tag_wide)
        tag_wide = *ub;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (peer != MPI_PROC_NULL) {
        if (tl_leads())
            leader(peer, dup);
        else
            partner(peer, dup);
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    return tl_finalize();
}
