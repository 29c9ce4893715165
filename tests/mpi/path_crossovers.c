/* path_crossovers: messages of every size around the sizes where a large
 * message changes path between two ranks of a node keep MPI's order,
 * statuses and truncation, whichever path each size takes.
 *
 * Under Omnibus a blocking send to a rank of the node goes alone through
 * the node ring below the crossover OMNIBUS_RING_MPI_FROM (measured at
 * MPI_Init unless set), as header and payload through the MPI underneath
 * from there up to a ring record's size, and by single-copy read above
 * it; a nonblocking one by single-copy read from 16 KiB where the kernel
 * allows (docs/design/transport.md, Choosing a path by measurement).
 * run-tests runs this test with the crossover pinned at 1 byte (every
 * large message through the MPI underneath) and at 1 MiB (the ring
 * wherever a record holds the message), so consecutive messages of one
 * sender take different paths:
 *   - blocking sends of each size, each followed by an 8-byte message,
 *     arrive in the order sent at MPI_ANY_SOURCE / MPI_ANY_TAG receives
 *     (MPI 4.1 §3.5, non-overtaking), with their source, tag and size in
 *     the status and their bytes intact;
 *   - the same for nonblocking sends all started before any completes;
 *   - a receive half as long as the message fails with MPI_ERR_TRUNCATE
 *     (§3.2.4) and writes nothing past its buffer, at every size.
 * The ranks run in pairs (testlib.h): the leader sends, its partner
 * receives.
 */
#include "testlib.h"

/* Around 16 KiB (the single-copy read's start and a crossover a machine
 * may measure), 64 KiB, and a ring record's end (128 KiB less the 8-byte
 * record and 24-byte item headers). */
static const int sizes[] = {16383, 16384, 16385, 32768, 65535, 65536,
                            100000, 131040, 131041, 200000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define BIG 200000
#define SMALL 8

enum { TAG_BLOCKING = 1, TAG_NONBLOCKING = 3, TAG_TRUNC = 5, TAG_DONE = 6 };

/* Message k of a phase: the large ones at even k, 8 bytes at odd k; the
 * tag alternates between two so that the status must carry the right one. */
static int msg_len(int k) { return k % 2 ? SMALL : sizes[k / 2]; }
static int msg_tag(int phase, int k) { return phase + k % 2; }

static void leader(int peer)
{
    unsigned char *bufs[2 * NSIZES];
    MPI_Request reqs[2 * NSIZES];
    for (int k = 0; k < 2 * NSIZES; k++) {
        bufs[k] = tl_malloc((size_t)msg_len(k));
        tl_fill(bufs[k], (size_t)msg_len(k), tl_rank(), k);
    }
    for (int k = 0; k < 2 * NSIZES; k++)
        CHECK_MPI(MPI_Send(bufs[k], msg_len(k), MPI_BYTE, peer,
                           msg_tag(TAG_BLOCKING, k), MPI_COMM_WORLD));
    for (int k = 0; k < 2 * NSIZES; k++) {
        tl_fill(bufs[k], (size_t)msg_len(k), tl_rank(), 1000 + k);
        CHECK_MPI(MPI_Isend(bufs[k], msg_len(k), MPI_BYTE, peer,
                            msg_tag(TAG_NONBLOCKING, k), MPI_COMM_WORLD,
                            &reqs[k]));
    }
    CHECK_MPI(MPI_Waitall(2 * NSIZES, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NSIZES; i++)
        CHECK_MPI(MPI_Send(bufs[2 * i], sizes[i], MPI_BYTE, peer, TAG_TRUNC,
                           MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    for (int k = 0; k < 2 * NSIZES; k++)
        free(bufs[k]);
}

/* Receives a phase's messages with wildcards and checks each in order. */
static void receive_in_order(int peer, int phase, long first_msg,
                             const char *how, unsigned char *buf)
{
    for (int k = 0; k < 2 * NSIZES; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, msg_tag(phase, k), msg_len(k),
                     "message %d (%d bytes) of the %s sends at an "
                     "MPI_ANY_SOURCE/MPI_ANY_TAG receive: one sender's "
                     "messages match in the order sent",
                     k, msg_len(k), how);
        CHECK_PATTERN(buf, (size_t)msg_len(k), peer, first_msg + k,
                      "message %d (%d bytes) of the %s sends", k, msg_len(k),
                      how);
    }
}

static void partner(int peer)
{
    unsigned char *buf = tl_malloc(BIG + 64);
    receive_in_order(peer, TAG_BLOCKING, 0, "blocking", buf);
    receive_in_order(peer, TAG_NONBLOCKING, 1000, "nonblocking", buf);

    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < NSIZES; i++) {
        int half = sizes[i] / 2;
        memset(buf, 0x5A, BIG + 64);
        int rc = MPI_Recv(buf, half, MPI_BYTE, peer, TAG_TRUNC,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
              "a %d-byte receive of a %d-byte message must fail with "
              "MPI_ERR_TRUNCATE, returned %s", half, sizes[i],
              tl_errstr(rc));
        CHECK_FILLED(buf + half, (size_t)(BIG + 64 - half), 0x5A,
                     "past a %d-byte receive buffer that a %d-byte message "
                     "overflowed", half, sizes[i]);
    }
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DONE, MPI_COMM_WORLD));
    free(buf);
}

int main(int argc, char **argv)
{
    return tl_run_pairs(&argc, &argv, leader, partner);
}
