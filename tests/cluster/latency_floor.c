/* latency_floor: a message between two emulated nodes takes at least the
 * link delay scripts/emulate/cluster was asked for (`up --delay`).
 *
 * usage: latency_floor MIN_US
 * Rank 0 and the last rank ping-pong 8 bytes 200 times after 20 warm-up
 * round trips; the one-way time (half the mean round trip) must be at least
 * MIN_US microseconds.  Only a floor: the emulated delay can be late, never
 * early, so the check holds however busy the machine is.
 */
#include "../mpi/testlib.h"

enum { WARMUP = 20, ROUND_TRIPS = 200 };

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    if (argc < 2)
        FAIL("usage: latency_floor MIN_US");
    double min_us = atof(argv[1]);
    int me = tl_rank(), last = tl_size() - 1;
    char buf[8] = {0};
    double t0 = 0;
    if (me == 0 || me == last) {
        int peer = me == 0 ? last : 0;
        for (int i = 0; i < WARMUP + ROUND_TRIPS; i++) {
            if (i == WARMUP)
                t0 = tl_now();
            if (me == 0) {
                CHECK_MPI(MPI_Send(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Recv(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Send(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD));
            }
        }
        double one_way_us = (tl_now() - t0) / ROUND_TRIPS / 2 * 1e6;
        if (me == 0)
            CHECK(one_way_us >= min_us,
                  "a link delay of %g us was asked for: a one-way message "
                  "between nodes must take at least that, it took %.1f us",
                  min_us, one_way_us);
    }
    return tl_finalize();
}
