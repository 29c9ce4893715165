/* burst_of_sizes_counted_and_truncated: a burst of messages of different
 * sizes that arrived together is received with MPI_ANY_SOURCE and
 * MPI_ANY_TAG, each with its own status; one receive in the middle of it
 * is too short, fails with MPI_ERR_TRUNCATE, and the burst goes on in
 * order after it.
 *
 * MPI 4.1 §3.2.4: the status of a receive names the message's source and
 * tag, and MPI_Get_count its length in the receive's datatype; a message
 * longer than the buffer is an overflow, MPI_ERR_TRUNCATE, and nothing is
 * written past the buffer.  §3.5: messages from one sender are received
 * in the order sent.  Under Omnibus such a burst waits as one queue record
 * that describes one message at a time (shim/match/match.h, Runs): each
 * message's envelope and size must come from its own header, and the too
 * short receive, which the inline path leaves to the general one, must
 * take that message and no other.  The ranks run in pairs (testlib.h): the
 * lower rank of a pair sends, its partner receives.
 */
#include "testlib.h"

#define N 40
#define MAXLEN 8 /* longs */
#define SHORT_AT 20
#define TAG0 300
#define GUARD 4
#define GUARD_VALUE (-7L)

/* Message i: (i % 7) + 1 longs, word k holding i * 100 + k, tag TAG0 + i % 3. */
static int len_of(int i) { return i % 7 + 1; }

static void send_burst(int peer)
{
    long buf[MAXLEN];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < len_of(i); k++)
            buf[k] = i * 100L + k;
        CHECK_MPI(MPI_Send(buf, len_of(i), MPI_LONG, peer, TAG0 + i % 3,
                        MPI_COMM_WORLD));
    }
}

static void receive_burst(int peer)
{
    long buf[MAXLEN + GUARD];
    MPI_Status st;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < MAXLEN + GUARD; k++)
            buf[k] = GUARD_VALUE;
        if (i == SHORT_AT) {
            int rc = MPI_Recv(buf, len_of(i) - 1, MPI_LONG, MPI_ANY_SOURCE,
                              MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
                  "a receive of %d longs for message #%d of %d longs must "
                  "fail with class MPI_ERR_TRUNCATE (%d), got %s",
                  len_of(i) - 1, i, len_of(i), MPI_ERR_TRUNCATE,
                  tl_errstr(rc));
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == TAG0 + i % 3,
                  "the truncated receive's status must name message #%d "
                  "(source %d, tag %d), got source %d tag %d", i, peer,
                  TAG0 + i % 3, st.MPI_SOURCE, st.MPI_TAG);
            for (int k = len_of(i) - 1; k < MAXLEN + GUARD; k++)
                CHECK(buf[k] == GUARD_VALUE, "the truncated receive of %d "
                      "longs wrote word %d past its buffer", len_of(i) - 1,
                      k);
            continue;
        }
        CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, TAG0 + i % 3, len_of(i) * (int)sizeof(long),
                     "message #%d of a burst of sizes, received with "
                     "MPI_ANY_SOURCE and MPI_ANY_TAG", i);
        int count = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
        CHECK(count == len_of(i), "MPI_Get_count of message #%d must be %d "
              "longs, got %d", i, len_of(i), count);
        for (int k = 0; k < len_of(i); k++)
            CHECK(buf[k] == i * 100L + k, "message #%d, word %d: must be %ld "
                  "(messages in the order sent, each whole), got %ld", i, k,
                  i * 100L + k, buf[k]);
        CHECK(buf[len_of(i)] == GUARD_VALUE, "message #%d of %d longs wrote "
              "past its own length", i, len_of(i));
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    /* MPICH raises an error a receive finds through the world
     * communicator's handler. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = tl_partner();
    /* The burst is all sent before the barrier, which flushes it, and
     * received after it: it arrives while no receive is posted. */
    if (peer != MPI_PROC_NULL && tl_rank() < peer)
        send_burst(peer);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (peer != MPI_PROC_NULL && tl_rank() > peer)
        receive_burst(peer);
    return tl_finalize();
}
