/* posted_recv_order: a message goes to the earliest-posted receive that
 * matches it; a receive takes the earliest-sent message that matches it.
 *
 * MPI 4.1 §3.5: "if a receive matches two messages from the same sender,
 * the one sent first is received; if a message matches two posted
 * receives, the one posted first gets it".  Receives that do not match a
 * message are skipped over, whether they are wildcards or not.
 *
 * Every rank R plays the receiver at once, with A = its right neighbour
 * and B = the rank two places to its right (R itself at 2 ranks, where B's
 * messages are sends to self); every rank therefore also sends, as A to
 * its left neighbour and as B to the rank two places to its left.
 *   part 1 (posted first): R posts receives (A, tag 6), (ANY, ANY),
 *     (A, tag 5); A then sends tag 5, tag 6, tag 5: they must land in the
 *     second, first and third receive respectively.
 *   part 2 (messages first): the same three messages, then R posts
 *     (A, tag 6), (ANY, ANY), (A, tag 5) once they have arrived: the first
 *     gets the tag-6 message, the wildcard the first tag-5 message, the last
 *     the second.
 *   part 3 (two sources): R posts (B, tag 5) then (ANY, tag 5); A and B
 *     each send one tag-5 message, A first: B's must land in the first
 *     receive even if A's arrives earlier.
 * Sends are nonblocking and completed after the rank's own receives, so no
 * rank relies on buffering.
 */
#include "testlib.h"

#define N 48

static int me, A, B; /* this rank, its senders A and B */

/* Starts the three messages of parts 1 and 2 to this rank's receiver. */
static void send3(unsigned char b[3][N], MPI_Request *r, long base)
{
    static const int tags[3] = {5, 6, 5};
    for (int i = 0; i < 3; i++) {
        tl_fill(b[i], N, me, base + i);
        CHECK_MPI(MPI_Isend(b[i], N, MPI_BYTE, tl_left(1), tags[i],
                         MPI_COMM_WORLD, &r[i]));
    }
}

/* Receive k (posted as (A,6), (ANY,ANY), (A,5)) must hold message msg. */
static void check3(unsigned char b[3][N], MPI_Status *st, long base,
                   const char *part)
{
    static const int msg_for_recv[3] = {1, 0, 2};
    static const int tag_of_msg[3] = {5, 6, 5};
    static const char *names[3] = {"(A, tag 6)", "(ANY_SOURCE, ANY_TAG)",
                                   "(A, tag 5)"};
    for (int k = 0; k < 3; k++) {
        int m = msg_for_recv[k];
        CHECK_STATUS(st[k], A, tag_of_msg[m], N,
                     "%s: receive %s (A = rank %d) must get message %d "
                     "(tag %d)",
                     part, names[k], A, m, tag_of_msg[m]);
        CHECK_PATTERN(b[k], N, A, base + m, "%s: receive %s", part,
                      names[k]);
    }
}

static void post3(unsigned char b[3][N], MPI_Request *r)
{
    CHECK_MPI(MPI_Irecv(b[0], N, MPI_BYTE, A, 6, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Irecv(b[1], N, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Irecv(b[2], N, MPI_BYTE, A, 5, MPI_COMM_WORLD, &r[2]));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    me = tl_rank();
    A = tl_right(1);
    B = tl_right(2);
    unsigned char b[3][N], s[3][N];
    MPI_Request r[3], sr[3];
    MPI_Status st[3];

    /* part 1 (see the header) */
    post3(b, r);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    send3(s, sr, 10);
    CHECK_MPI(MPI_Waitall(3, r, st));
    check3(b, st, 10, "receives posted first");
    CHECK_MPI(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));

    /* part 2 (see the header) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    send3(s, sr, 20);
    {
        /* Let the messages arrive first (the expected outcome is the same
         * if some have not: MPI's two rules give one answer). */
        MPI_Status ps;
        int flag = 0;
        double t0 = tl_now();
        while (!flag) {
            CHECK_MPI(MPI_Iprobe(A, 6, MPI_COMM_WORLD, &flag, &ps));
            CHECK(flag || tl_now() - t0 < 10,
                  "the tag-6 message from rank %d never arrived", A);
        }
        tl_sleep(0.05);
        post3(b, r);
        CHECK_MPI(MPI_Waitall(3, r, st));
        check3(b, st, 20, "messages sent first");
    }
    CHECK_MPI(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));

    /* part 3 (see the header) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Irecv(b[0], N, MPI_BYTE, B, 5, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Irecv(b[1], N, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
                     &r[1]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* As A first, so that A's message tends to arrive first; then as B. */
    tl_fill(s[0], N, me, 30);
    CHECK_MPI(MPI_Send(s[0], N, MPI_BYTE, tl_left(1), 5, MPI_COMM_WORLD));
    tl_sleep(0.05);
    CHECK_MPI(MPI_Send(s[0], N, MPI_BYTE, tl_left(2), 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, r, st));
    CHECK_STATUS(st[0], B, 5, N,
                 "receive (B = rank %d, tag 5), posted first", B);
    CHECK_PATTERN(b[0], N, B, 30, "receive (B = rank %d, tag 5)", B);
    CHECK_STATUS(st[1], A, 5, N,
                 "receive (ANY_SOURCE, tag 5), posted second, must get "
                 "A's (rank %d's) message",
                 A);
    CHECK_PATTERN(b[1], N, A, 30, "receive (ANY_SOURCE, tag 5)");
    return tl_finalize();
}
