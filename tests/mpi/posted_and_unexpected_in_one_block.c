/* posted_and_unexpected_in_one_block: a run of small messages that some
 * posted receives match and others wait for still lands by MPI's two
 * matching rules, message by message.
 *
 * MPI 4.1 §3.5: a message goes to the earliest-posted receive that matches
 * it, and a receive takes the earliest-sent message that matches it.  The
 * messages below are small and sent back to back, so Omnibus carries each
 * part's messages together, and takes in the first of them straight into
 * the posted receives while the rest wait as unexpected messages.  Every
 * rank R receives from A = its right neighbour and sends to its left one:
 *   part 1 (posted head): R posts K receives (A, tag 7); A then sends 2K
 *     tag-7 messages.  The receives get messages 0..K-1 in order; K
 *     blocking receives posted afterwards get K..2K-1 in order.
 *   part 2 (unexpected head): R posts K receives (A, tag 9); A then sends
 *     K tag-8 messages and K tag-9 messages.  The posted receives get the
 *     tag-9 messages in order, although the tag-8 messages before them had
 *     to wait; K blocking tag-8 receives get those in order.
 * Sends are nonblocking and completed after the rank's own receives, so no
 * rank relies on buffering.
 */
#include "testlib.h"

#define K 16
#define N 8 /* bytes per message */

static int me, A;

/* Starts `count` messages to the left neighbour, numbered from `first`. */
static void send_run(unsigned char (*s)[N], MPI_Request *r, int count,
                     long first, int tag)
{
    for (int i = 0; i < count; i++) {
        tl_fill(s[i], N, me, first + i);
        CHECK_MPI(MPI_Isend(s[i], N, MPI_BYTE, tl_left(1), tag, MPI_COMM_WORLD,
                         &r[i]));
    }
}

static void post_run(unsigned char (*b)[N], MPI_Request *r, int tag)
{
    for (int i = 0; i < K; i++)
        CHECK_MPI(MPI_Irecv(b[i], N, MPI_BYTE, A, tag, MPI_COMM_WORLD, &r[i]));
}

/* Receive i of a run must hold message first + i, with tag `tag`. */
static void check_run(unsigned char (*b)[N], const MPI_Status *st, long first,
                      int tag, const char *what)
{
    for (int i = 0; i < K; i++) {
        CHECK_STATUS(st[i], A, tag, N,
                     "%s: receive %d of the run from rank %d must get its "
                     "message %ld (tag %d)", what, i, A, first + i, tag);
        CHECK_PATTERN(b[i], N, A, first + i, "%s: receive %d of the run",
                      what, i);
    }
}

/* K blocking receives of tag `tag`, checked as a run from `first`. */
static void recv_run(unsigned char (*b)[N], long first, int tag,
                     const char *what)
{
    MPI_Status st[K];
    for (int i = 0; i < K; i++)
        CHECK_MPI(MPI_Recv(b[i], N, MPI_BYTE, A, tag, MPI_COMM_WORLD, &st[i]));
    check_run(b, st, first, tag, what);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    me = tl_rank();
    A = tl_right(1);
    unsigned char b[K][N], s[2 * K][N];
    MPI_Request r[K], sr[2 * K];
    MPI_Status st[K];

    /* part 1 (see the header) */
    post_run(b, r, 7);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    send_run(s, sr, 2 * K, 100, 7);
    CHECK_MPI(MPI_Waitall(K, r, st));
    check_run(b, st, 100, 7, "posted head: the posted receives");
    recv_run(b, 100 + K, 7, "posted head: the receives posted after");
    CHECK_MPI(MPI_Waitall(2 * K, sr, MPI_STATUSES_IGNORE));

    /* part 2 (see the header) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    post_run(b, r, 9);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    send_run(s, sr, K, 200, 8);
    send_run(s + K, sr + K, K, 200 + K, 9);
    CHECK_MPI(MPI_Waitall(K, r, st));
    check_run(b, st, 200 + K, 9, "unexpected head: the posted tag-9 receives");
    recv_run(b, 200, 8, "unexpected head: the tag-8 receives posted after");
    CHECK_MPI(MPI_Waitall(2 * K, sr, MPI_STATUSES_IGNORE));
    return tl_finalize();
}
