/* posted_recv_order: a message goes to the earliest-posted receive that
 * matches it; a receive takes the earliest-sent message that matches it.
 *
 * MPI 4.1 §3.5: "if a receive matches two messages from the same sender,
 * the one sent first is received; if a message matches two posted
 * receives, the one posted first gets it".  Receives that do not match a
 * message are skipped over, whether they are wildcards or not.
 *   part 1 (posted first): receives (1, tag 6), (ANY, ANY), (1, tag 5);
 *     rank 1 then sends tag 5, tag 6, tag 5: they must land in the second,
 *     first and third receive respectively.
 *   part 2 (messages first): the same three messages, then receives posted
 *     as (1, tag 6), (ANY, ANY), (1, tag 5): the first gets the tag-6
 *     message, the wildcard the first tag-5 message, the last the second.
 *   part 3 (two sources): receives (2, tag 5) then (ANY, tag 5) are posted;
 *     ranks 1 and 2 each send one tag-5 message: rank 2's must land in the
 *     first receive even if rank 1's arrives earlier.
 */
#include "testlib.h"

#define N 48

static void send3(int me, long base)
{
    unsigned char b[3][N];
    static const int tags[3] = {5, 6, 5};
    MPI_Request r[3];
    for (int i = 0; i < 3; i++) {
        tl_fill(b[i], N, me, base + i);
        MPI_OK(MPI_Isend(b[i], N, MPI_BYTE, 0, tags[i], MPI_COMM_WORLD, &r[i]));
    }
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
}

/* Receive k (posted as (1,6), (ANY,ANY), (1,5)) must hold message msg. */
static void check3(unsigned char b[3][N], MPI_Status *st, long base,
                   const char *part)
{
    static const int msg_for_recv[3] = {1, 0, 2};
    static const int tag_of_msg[3] = {5, 6, 5};
    static const char *names[3] = {"(1, tag 6)", "(ANY_SOURCE, ANY_TAG)",
                                   "(1, tag 5)"};
    for (int k = 0; k < 3; k++) {
        int m = msg_for_recv[k];
        CHECK_STATUS(st[k], 1, tag_of_msg[m], N,
                     "%s: receive %s must get message %d (tag %d)", part,
                     names[k], m, tag_of_msg[m]);
        CHECK_PATTERN(b[k], N, 1, base + m, "%s: receive %s", part,
                      names[k]);
    }
}

static void post3(unsigned char b[3][N], MPI_Request *r)
{
    MPI_OK(MPI_Irecv(b[0], N, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(b[1], N, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Irecv(b[2], N, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r[2]));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 3, 4);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    unsigned char b[3][N];
    MPI_Request r[3];
    MPI_Status st[3];

    /* part 1 (see the header) */
    if (me == 0) {
        post3(b, r);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(3, r, st));
        check3(b, st, 10, "receives posted first");
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (me == 1)
            send3(me, 10);
    }

    /* part 2 (see the header) */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 1)
        send3(me, 20);
    if (me == 0) {
        /* Let the messages arrive first (the expected outcome is the same
         * if some have not: MPI's two rules give one answer). */
        MPI_Status ps;
        int flag = 0;
        double t0 = tl_now();
        while (!flag) {
            MPI_OK(MPI_Iprobe(1, 6, MPI_COMM_WORLD, &flag, &ps));
            CHECK(flag || tl_now() - t0 < 10,
                  "the tag-6 message from rank 1 never arrived");
        }
        tl_sleep(0.05);
        post3(b, r);
        MPI_OK(MPI_Waitall(3, r, st));
        check3(b, st, 20, "messages sent first");
    }

    /* part 3 (see the header) */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        MPI_OK(MPI_Irecv(b[0], N, MPI_BYTE, 2, 5, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(b[1], N, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
                         &r[1]));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(2, r, st));
        CHECK_STATUS(st[0], 2, 5, N, "receive (2, tag 5), posted first");
        CHECK_PATTERN(b[0], N, 2, 30, "receive (2, tag 5)");
        CHECK_STATUS(st[1], 1, 5, N,
                     "receive (ANY_SOURCE, tag 5), posted second, must get "
                     "rank 1's message");
        CHECK_PATTERN(b[1], N, 1, 30, "receive (ANY_SOURCE, tag 5)");
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (me <= 2) {
            unsigned char s[N];
            tl_fill(s, N, me, 30);
            /* Rank 1 first, so its message tends to arrive first. */
            if (me == 2)
                tl_sleep(0.05);
            MPI_OK(MPI_Send(s, N, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
        }
    }
    return tl_finalize();
}
