/* many_small_stream: a long stream of small messages arrives complete and
 * in order.
 *
 * MPI 4.1 §3.5: non-overtaking: 100000 8-byte messages from one rank to
 * another with one tag are received in send order, each with its own value,
 * no matter how the implementation batches or buffers them; then a shorter
 * stream runs the other way, and an ANY_SOURCE/ANY_TAG stream interleaves
 * two tags.  Blocking MPI_Send/MPI_Recv only: a receiver that never runs
 * ahead of the sender, the common case aggregation is built for.
 *
 * The ranks run in pairs (testlib.h), all streaming at once; "forward" is
 * from the lower rank of a pair to the higher.
 */
#include "testlib.h"

#define NFWD 100000
#define NBACK 5000
#define TAG 12

static uint64_t value(int src, long i)
{
    return ((uint64_t)src << 56) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull);
}

static void stream(int from, int to, int me, long n, int two_tags)
{
    uint64_t v;
    MPI_Status st;
    if (me == from) {
        for (long i = 0; i < n; i++) {
            v = value(from, i);
            CHECK_MPI(MPI_Send(&v, 8, MPI_BYTE, to, two_tags ? TAG + (int)(i % 2)
                                                          : TAG,
                            MPI_COMM_WORLD));
        }
    } else if (me == to) {
        for (long i = 0; i < n; i++) {
            v = 0;
            if (two_tags)
                CHECK_MPI(MPI_Recv(&v, 8, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &st));
            else
                CHECK_MPI(MPI_Recv(&v, 8, MPI_BYTE, from, TAG, MPI_COMM_WORLD,
                                &st));
            tl_asserts++;
            if (v != value(from, i)) {
                long j = -1;
                for (long k = 0; k < n && j < 0; k++)
                    if (value(from, k) == v)
                        j = k;
                FAIL("message %ld of %ld from rank %d must hold value %#llx; "
                     "got %#llx, which is message %ld (-1: none)",
                     i, n, from, (unsigned long long)value(from, i),
                     (unsigned long long)v, j);
            }
            if (two_tags || i % 1000 == 0)
                CHECK_STATUS(st, from, two_tags ? TAG + (int)(i % 2) : TAG, 8,
                             "status of message %ld from rank %d", i, from);
        }
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    if (peer == MPI_PROC_NULL) /* sits out */
        return tl_finalize();
    int lo = me < peer ? me : peer, hi = me < peer ? peer : me;
    stream(lo, hi, me, NFWD, 0);
    stream(hi, lo, me, NBACK, 0);
    stream(lo, hi, me, NBACK, 1);
    /* A last exchange that proves both sides got to the end. */
    long done = me, other = -1;
    CHECK_MPI(MPI_Sendrecv(&done, 1, MPI_LONG, peer, 99, &other, 1, MPI_LONG,
                        peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(other == peer, "final exchange: got %ld", other);
    return tl_finalize();
}
