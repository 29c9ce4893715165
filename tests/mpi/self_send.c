/* self_send: a rank sending to itself is ordinary point-to-point traffic.
 *
 * MPI 4.1 §3.5 and §3.10: a process may send to itself; the messages obey
 * the same matching and non-overtaking rules as any others (it is only
 * unsafe to block in a send to oneself before the receive is posted, so
 * the sends here are MPI_Isend, or MPI_Send after the receive was posted).
 * On MPI_COMM_SELF the only rank is 0, and statuses report source 0.
 * Self traffic and traffic from other ranks with the same tag stay in their
 * own per-source order.
 */
#include "testlib.h"

#define MAXLEN 300000
#define TAG 4

static void self_round(MPI_Comm comm, int me_in_comm, int me_world,
                       const char *cname)
{
    static const int lens[] = {8, 1, 300000, 0, 100, 70000, 16};
    unsigned char *sb[7], *rb = tl_malloc(MAXLEN);
    MPI_Request req[7];
    MPI_Status st;

    /* MPI_Isend: a blocking send to oneself may wait for a receive that
     * this same process has not posted yet. */
    for (int i = 0; i < 7; i++) {
        sb[i] = tl_malloc((size_t)lens[i]);
        tl_fill(sb[i], (size_t)lens[i], me_world, i);
        CHECK_MPI(MPI_Isend(sb[i], lens[i], MPI_BYTE, me_in_comm, TAG, comm,
                         &req[i]));
    }
    for (int i = 0; i < 7; i++) {
        CHECK_MPI(MPI_Recv(rb, MAXLEN, MPI_BYTE,
                        i % 2 ? MPI_ANY_SOURCE : me_in_comm, TAG, comm, &st));
        CHECK_STATUS(st, me_in_comm, TAG, lens[i],
                     "self message %d on %s (in order)", i, cname);
        CHECK_PATTERN(rb, (size_t)lens[i], me_world, i, "self message %d on %s",
                      i, cname);
    }
    CHECK_MPI(MPI_Waitall(7, req, MPI_STATUSES_IGNORE));

    /* Receives posted first, then blocking MPI_Send, received by tag in
     * reverse order of sending. */
    unsigned char *rbs[3];
    for (int i = 0; i < 3; i++) {
        rbs[i] = tl_malloc(MAXLEN);
        CHECK_MPI(MPI_Irecv(rbs[i], MAXLEN, MPI_BYTE, me_in_comm, 30 - i, comm,
                         &req[i]));
    }
    for (int i = 0; i < 3; i++) {
        tl_fill(sb[i + 1], (size_t)lens[i + 1], me_world, 50 + i);
        CHECK_MPI(MPI_Send(sb[i + 1], lens[i + 1], MPI_BYTE, me_in_comm, 28 + i,
                        comm));
    }
    MPI_Status sts[3];
    CHECK_MPI(MPI_Waitall(3, req, sts));
    for (int i = 0; i < 3; i++) {
        /* Receive i has tag 30-i, which send 2-i carried. */
        int s = 2 - i;
        CHECK_STATUS(sts[i], me_in_comm, 30 - i, lens[s + 1],
                     "posted self receive for tag %d on %s", 30 - i, cname);
        CHECK_PATTERN(rbs[i], (size_t)lens[s + 1], me_world, 50 + s,
                      "posted self receive for tag %d on %s", 30 - i, cname);
        free(rbs[i]);
    }

    /* MPI_Sendrecv's two halves run as if concurrent: safe to oneself. */
    tl_fill(sb[2], 300000, me_world, 77);
    CHECK_MPI(MPI_Sendrecv(sb[2], 300000, MPI_BYTE, me_in_comm, 9, rb, MAXLEN,
                        MPI_BYTE, me_in_comm, 9, comm, &st));
    CHECK_STATUS(st, me_in_comm, 9, 300000, "MPI_Sendrecv to self on %s",
                 cname);
    CHECK_PATTERN(rb, 300000, me_world, 77, "MPI_Sendrecv to self on %s",
                  cname);
    for (int i = 0; i < 7; i++)
        free(sb[i]);
    free(rb);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int self_rank = -1;
    MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
    CHECK(self_rank == 0, "rank in MPI_COMM_SELF must be 0, got %d",
          self_rank);

    self_round(MPI_COMM_WORLD, me, me, "MPI_COMM_WORLD");
    self_round(MPI_COMM_SELF, 0, me, "MPI_COMM_SELF");

    /* Self and neighbour messages with one tag, interleaved: each source
     * keeps its own order. */
    int right = (me + 1) % size, left = (me + size - 1) % size;
    unsigned char s[6][64], r[64];
    MPI_Request req[6];
    for (int i = 0; i < 6; i++) {
        tl_fill(s[i], 64, me, 200 + i);
        CHECK_MPI(MPI_Isend(s[i], 64, MPI_BYTE, i % 2 ? right : me, TAG,
                         MPI_COMM_WORLD, &req[i]));
    }
    int next_self = 0, next_left = 0;
    for (int k = 0; k < 6; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(r, 64, MPI_BYTE, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD,
                        &st));
        int from_self = st.MPI_SOURCE == me;
        CHECK(from_self || st.MPI_SOURCE == left,
              "ANY_SOURCE receive must come from self or the left rank, got "
              "%d",
              st.MPI_SOURCE);
        int i = from_self ? 2 * next_self++ : 2 * next_left++ + 1;
        CHECK(i < 6, "too many messages from rank %d", st.MPI_SOURCE);
        CHECK_PATTERN(r, 64, st.MPI_SOURCE, 200 + i,
                      "message from rank %d in per-source order",
                      st.MPI_SOURCE);
    }
    CHECK_MPI(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
    return tl_finalize();
}
