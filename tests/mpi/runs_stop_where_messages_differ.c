/* runs_stop_where_messages_differ: a burst of small messages is received
 * in order and intact wherever one message among them differs: in size,
 * in communicator, in mode (synchronous), or in destination.
 *
 * MPI 4.1 §3.5: messages from one sender on one communicator are received
 * in the order sent; a receive on another communicator matches only that
 * communicator's messages, whatever came before them.  Under Omnibus a
 * burst that arrives before its receives is queued by runs: the messages
 * of one size, for this rank, plain eager, on one communicator, that
 * follow each other in a block are one record, found several at a time
 * (shim/match/match.c, run_end).  Each round puts the odd message at
 * another of the burst's places, so that it falls at every place of such
 * a stride and after it; the lower rank of each pair (testlib.h) sends.
 * In the rounds whose odd messages go elsewhere, the burst's sender sends
 * one to every rank but its partner and itself instead: on 2x2 and 2x2x2
 * the pairs are 2 and 3 hops apart, so a relay of the burst gets a block
 * with its own message among messages it must pass on.
 */
#include "testlib.h"

#define TAG 9
#define TAG_ELSEWHERE 10
#define BURST 12
#define ROUNDS (4 * BURST)

enum odd { ODD_COMM, ODD_SIZE, ODD_SYNC, ODD_ELSEWHERE };

static const char *odd_name[] = {"on another communicator", "of 16 bytes",
                                 "synchronous", "for other ranks"};

/* The burst's messages are numbered by round and place; the messages sent
 * elsewhere by round, past every burst. */
static long seq_of(int round, int place)
{
    return (long)round * BURST + place;
}

static void send_burst(int r, int peer, MPI_Comm dup)
{
    enum odd kind = (enum odd)(r % 4);
    int me = tl_rank(), at = r % BURST;
    unsigned char buf[16], sync_buf[16]; /* the Issend's, until its wait */
    MPI_Request sync = MPI_REQUEST_NULL;
    for (int i = 0; i < BURST; i++) {
        int odd = i == at, len = odd && kind == ODD_SIZE ? 16 : 8;
        tl_fill(buf, (size_t)len, me, seq_of(r, i));
        if (odd && kind == ODD_COMM) {
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, peer, TAG, dup));
        } else if (odd && kind == ODD_SYNC) {
            tl_fill(sync_buf, (size_t)len, me, seq_of(r, i));
            CHECK_MPI(MPI_Issend(sync_buf, len, MPI_BYTE, peer, TAG,
                                 MPI_COMM_WORLD, &sync));
        } else {
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, peer, TAG,
                               MPI_COMM_WORLD));
        }
        if (odd && kind == ODD_ELSEWHERE) {
            tl_fill(buf, 8, me, seq_of(ROUNDS + r, 0));
            for (int other = 0; other < tl_size(); other++)
                if (other != me && other != peer)
                    CHECK_MPI(MPI_Send(buf, 8, MPI_BYTE, other,
                                       TAG_ELSEWHERE, MPI_COMM_WORLD));
        }
    }
    /* The burst is sent before its receiver posts a receive. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&sync, MPI_STATUS_IGNORE));
}

static void receive_burst(int r, int peer, MPI_Comm dup)
{
    enum odd kind = (enum odd)(r % 4);
    int at = r % BURST;
    unsigned char buf[16];
    MPI_Status st;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (kind == ODD_COMM) {
        CHECK_MPI(MPI_Recv(buf, 16, MPI_BYTE, peer, TAG, dup, &st));
        CHECK_STATUS(st, peer, TAG, 8,
                     "round %d: the message on the other communicator, sent "
                     "at place %d of %d, received first", r, at, BURST);
        CHECK_PATTERN(buf, 8, peer, seq_of(r, at),
                      "round %d: the message on the other communicator", r);
    }
    for (int i = 0; i < BURST; i++) {
        if (i == at && kind == ODD_COMM)
            continue;
        int len = i == at && kind == ODD_SIZE ? 16 : 8;
        memset(buf, 0xCC, sizeof buf);
        CHECK_MPI(MPI_Recv(buf, 16, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                           &st));
        CHECK_STATUS(st, peer, TAG, len,
                     "round %d: message %d of the burst, in send order, with "
                     "the one %s at place %d", r, i, odd_name[kind], at);
        CHECK_PATTERN(buf, (size_t)len, peer, seq_of(r, i),
                      "round %d: message %d of the burst, with the one %s at "
                      "place %d", r, i, odd_name[kind], at);
    }
}

/* In an ODD_ELSEWHERE round: the one message from each other pair's
 * sender, all but this rank's partner. */
static void receive_from_elsewhere(int r)
{
    int me = tl_rank();
    for (int s = 0; s < tl_size(); s++) {
        if (s == me || s == tl_partner() || !tl_leads_of(s))
            continue;
        unsigned char buf[16];
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, 16, MPI_BYTE, s, TAG_ELSEWHERE,
                           MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, s, TAG_ELSEWHERE, 8,
                     "round %d: the message rank %d sent this rank amid its "
                     "burst to rank %d", r, s, tl_partner_of(s));
        CHECK_PATTERN(buf, 8, s, seq_of(ROUNDS + r, 0),
                      "round %d: the message from rank %d amid its burst", r,
                      s);
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int r = 0; r < ROUNDS; r++) {
        if (peer == MPI_PROC_NULL) /* sits out of the bursts */
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        else if (tl_leads())
            send_burst(r, peer, dup);
        else
            receive_burst(r, peer, dup);
        if (r % 4 == ODD_ELSEWHERE)
            receive_from_elsewhere(r);
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK(1, "every round's messages were received");
    return tl_finalize();
}
