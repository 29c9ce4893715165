/* relay_in_collectives: two ranks talk while every other rank waits inside
 * a blocking collective that they join only afterwards.
 *
 * MPI 4.1 §6.1 and §3.5: a process blocked in a collective does not stop
 * point-to-point traffic between others.  Under a multi-hop topology the
 * waiting ranks are the relays of that traffic, so a correct program hangs
 * unless they keep forwarding while inside the collective.  One phase per
 * collective; each phase checks the talk (content and order) and the
 * collective's own result.  The talking pair is the first pair of
 * testlib.h, (0, P-1) with an even count and (1, P-1) with an odd one:
 * multi-hop on every grid Omnibus builds for 3 to 9 ranks.  At 2 ranks
 * there are no relays; the test still checks the talk and collectives.
 */
#include "testlib.h"

#define BURST 300

/* The talkers exchange a burst each way and a ping-pong. */
static void talk(int me, int other, int phase)
{
    long out[BURST], in[BURST];
    MPI_Request req[2 * BURST];
    for (int i = 0; i < BURST; i++) {
        out[i] = phase * 100000L + me * 1000L + i;
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_LONG, other, phase, MPI_COMM_WORLD,
                         &req[i]));
    }
    for (int i = 0; i < BURST; i++)
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_LONG, other, phase, MPI_COMM_WORLD,
                         &req[BURST + i]));
    CHECK_MPI(MPI_Waitall(2 * BURST, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < BURST; i++)
        CHECK(in[i] == phase * 100000L + other * 1000L + i,
              "phase %d: item %d from rank %d must be %ld, got %ld", phase, i,
              other, phase * 100000L + other * 1000L + i, in[i]);
    long v = phase;
    if (me < other) {
        CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, other, 99, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, other, 99, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, other, 99, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, other, 99, MPI_COMM_WORLD));
    }
    CHECK(v == phase, "phase %d: the ping-pong must carry %d, got %ld", phase,
          phase, v);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size(), last = size - 1;
    int first = size % 2; /* the talkers: first and last */
    int talker = me == first || me == last;
    int other = me == first ? last : first;
    long *all = tl_malloc(sizeof(long) * (size_t)size);
    long *got = tl_malloc(sizeof(long) * (size_t)size);
    long x, sum;

    /* Phase 1: MPI_Bcast from rank 0. */
    if (talker)
        talk(me, other, 1);
    x = me == 0 ? 4242 : -1;
    CHECK_MPI(MPI_Bcast(&x, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    CHECK(x == 4242, "MPI_Bcast after the talk must give 4242, got %ld", x);

    /* Phase 2: MPI_Alltoall. */
    if (talker)
        talk(me, other, 2);
    for (int r = 0; r < size; r++)
        all[r] = me * 100 + r;
    CHECK_MPI(MPI_Alltoall(all, 1, MPI_LONG, got, 1, MPI_LONG, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(got[r] == r * 100 + me,
              "MPI_Alltoall: entry %d must be %d, got %ld", r, r * 100 + me,
              got[r]);

    /* Phase 3: MPI_Reduce to the last rank. */
    if (talker)
        talk(me, other, 3);
    x = me + 1;
    sum = 0;
    CHECK_MPI(MPI_Reduce(&x, &sum, 1, MPI_LONG, MPI_SUM, last, MPI_COMM_WORLD));
    if (me == last)
        CHECK(sum == (long)size * (size + 1) / 2,
              "MPI_Reduce must give %ld, got %ld", (long)size * (size + 1) / 2,
              sum);

    /* Phase 4: MPI_Allgather. */
    if (talker)
        talk(me, other, 4);
    x = me * 7;
    CHECK_MPI(MPI_Allgather(&x, 1, MPI_LONG, got, 1, MPI_LONG, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(got[r] == r * 7L, "MPI_Allgather: entry %d must be %d, got %ld",
              r, r * 7, got[r]);

    /* Phase 5: MPI_Scan. */
    if (talker)
        talk(me, other, 5);
    x = 1;
    CHECK_MPI(MPI_Scan(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == me + 1, "MPI_Scan must give %d, got %ld", me + 1, sum);

    free(all);
    free(got);
    return tl_finalize();
}
