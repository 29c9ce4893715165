/* self_issend: a synchronous send to oneself whose receive is already
 * posted completes.
 *
 * MPI 4.1 §3.4: MPI_Issend completes once the matching receive has
 * started; a process may send to itself.  Found by the stress generator:
 * the answer to a self-send arrived before its request existed.  Also the
 * persistent form (MPI_Ssend_init + MPI_Start), and sizes on both sides of
 * the aggregation threshold.
 */
#include "testlib.h"

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 1, TL_MAX_RANKS);
    int me = tl_rank();
    static const int lens[] = {0, 8, 42, 1024, 1025, 20000};
    static unsigned char s[20000], r[20000];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        int len = lens[i];
        MPI_Request q[2];
        MPI_Status st;
        tl_fill(s, (size_t)len, me, i);
        for (int persistent = 0; persistent < 2; persistent++) {
            int src = persistent ? MPI_ANY_SOURCE : me;
            CHECK_MPI(MPI_Irecv(r, len, MPI_BYTE, src, 3, MPI_COMM_WORLD, &q[0]));
            if (persistent) {
                CHECK_MPI(MPI_Ssend_init(s, len, MPI_BYTE, me, 3, MPI_COMM_WORLD,
                                      &q[1]));
                CHECK_MPI(MPI_Start(&q[1]));
            } else {
                CHECK_MPI(MPI_Issend(s, len, MPI_BYTE, me, 3, MPI_COMM_WORLD,
                                  &q[1]));
            }
            CHECK_MPI(MPI_Wait(&q[0], &st));
            CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
            CHECK_STATUS(st, me, 3, (long)len,
                         "self %s of %d bytes", persistent ? "Ssend_init" : "Issend",
                         len);
            CHECK_PATTERN(r, (size_t)len, me, i, "self %s of %d bytes",
                          persistent ? "Ssend_init" : "Issend", len);
            if (persistent)
                CHECK_MPI(MPI_Request_free(&q[1]));
        }
    }
    return tl_finalize();
}
