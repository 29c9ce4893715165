/* burst_taken_in_order_then_searched: a burst of small messages that
 * arrived together is received in order part of the way, then searched by
 * tag, probed, matched and received again in order, and every message
 * comes out once, in its place.
 *
 * MPI 4.1 §3.5: a receive takes the oldest message that matches its
 * (source, tag, communicator); messages that do not match stay queued, in
 * their order, for later receives; a probe shows the message the matching
 * receive would take.  Under Omnibus such a burst is one queue record
 * that stands for many messages (shim/match/match.h, Runs) until a
 * search needs them one by one.  The ranks run in pairs (testlib.h): the
 * lower rank of a pair sends, its partner receives.
 */
#include "testlib.h"

#define N 64
#define TAG0 100

/* Message i carries the value i, with tag TAG0 + i % 4. */
static void expect(long got, const MPI_Status *st, int peer, long i,
                   const char *what)
{
    CHECK_STATUS(*st, peer, TAG0 + (int)(i % 4), (int)sizeof(long),
                 "%s (message #%ld)", what, i);
    CHECK(got == i, "%s: must take message #%ld (the oldest that matches), "
          "took #%ld", what, i, got);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (peer == MPI_PROC_NULL) { /* sits out, but joins the collectives */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Comm_free(&dup));
        return tl_finalize();
    }

    /* Part 1: one burst on one communicator. */
    if (tl_rank() < peer) {
        for (long i = 0; i < N; i++)
            CHECK_MPI(MPI_Send(&i, 1, MPI_LONG, peer, TAG0 + (int)(i % 4),
                            MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        long v;
        MPI_Status st;
        for (long i = 0; i < 10; i++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                            &st));
            expect(v, &st, peer, i, "a receive of any tag, in order");
        }
        CHECK_MPI(MPI_Probe(peer, TAG0 + 3, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG0 + 3, (int)sizeof(long),
                     "a probe of tag %d after 10 messages taken: it must "
                     "show message #11", TAG0 + 3);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, peer, TAG0 + 3, MPI_COMM_WORLD, &st));
        expect(v, &st, peer, 11, "the receive of the probed tag");
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, peer, TAG0 + 1, MPI_COMM_WORLD, &st));
        expect(v, &st, peer, 13, "a receive of one tag, past older messages");
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_LONG, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                         &r));
        CHECK_MPI(MPI_Wait(&r, &st));
        expect(v, &st, peer, 10, "an MPI_Irecv of any tag after the search");
        MPI_Message msg;
        CHECK_MPI(MPI_Mprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        CHECK_MPI(MPI_Mrecv(&v, 1, MPI_LONG, &msg, &st));
        expect(v, &st, peer, 12, "an MPI_Mprobe and MPI_Mrecv of any tag");
        for (long i = 14; i < N; i++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                            &st));
            expect(v, &st, peer, i, "the rest, any tag, in order");
        }
    }

    /* Part 2: the burst alternates between two communicators, three
     * messages at a time; the receiver takes the duplicate's first. */
    if (tl_rank() < peer) {
        for (long i = 0; i < N; i++)
            CHECK_MPI(MPI_Send(&i, 1, MPI_LONG, peer, TAG0 + (int)(i % 4),
                            (i / 3) % 2 ? dup : MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        long v;
        MPI_Status st;
        for (int odd = 1; odd >= 0; odd--)
            for (long i = 0; i < N; i++) {
                if ((i / 3) % 2 != odd)
                    continue;
                CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, peer, MPI_ANY_TAG,
                                odd ? dup : MPI_COMM_WORLD, &st));
                expect(v, &st, peer, i,
                       odd ? "a receive on the duplicate, skipping the "
                             "other communicator's messages"
                           : "a receive on MPI_COMM_WORLD after the "
                             "duplicate's");
            }
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    return tl_finalize();
}
