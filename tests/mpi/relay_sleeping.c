/* relay_sleeping: two ranks talk while every other rank computes (here:
 * sleeps) for 2 seconds without calling MPI.
 *
 * MPI 4.1 §3.5 (progress): communication between two processes completes
 * whatever a third one does.  Under a multi-hop topology the sleeping
 * ranks are relays: without a progress thread the traffic waits until they
 * call MPI again (it must still complete, in order, intact); with
 * OMNIBUS_PROGRESS=thread it moves while they sleep.  The runner runs this
 * test both ways; no timing is asserted.  The talking pair is the first
 * pair of testlib.h, (0, P-1) with an even count and (1, P-1) with an odd
 * one: multi-hop on every grid Omnibus builds for 3 to 9 ranks.  At 2 ranks
 * there are no relays and nobody sleeps.
 */
#include "testlib.h"

#define N 500
#define BIG 40000

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size(), last = size - 1;
    int first = size % 2; /* the talkers: first and last */
    if (me != first && me != last) {
        tl_sleep(2.0);
        CHECK(1, "relay woke up");
        return tl_finalize();
    }
    int other = me == first ? last : first;
    long out[N], in[N];
    MPI_Request req[2 * N + 2];
    unsigned char *bs = tl_malloc(BIG), *br = tl_malloc(BIG);
    tl_fill(bs, BIG, me, 7);
    for (int i = 0; i < N; i++) {
        out[i] = me * 10000L + i;
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD, &req[i]));
    }
    CHECK_MPI(MPI_Irecv(br, BIG, MPI_BYTE, other, 2, MPI_COMM_WORLD, &req[2 * N]));
    for (int i = 0; i < N; i++)
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD,
                         &req[N + i]));
    CHECK_MPI(MPI_Isend(bs, BIG, MPI_BYTE, other, 2, MPI_COMM_WORLD, &req[2 * N + 1]));
    CHECK_MPI(MPI_Waitall(2 * N + 2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == other * 10000L + i,
              "item %d from rank %d must be %ld, got %ld", i, other,
              other * 10000L + i, in[i]);
    CHECK_PATTERN(br, BIG, other, 7, "the large message from rank %d", other);
    free(bs);
    free(br);
    return tl_finalize();
}
