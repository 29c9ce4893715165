/* stalled_pair_only: a stream that outruns its window and a few messages
 * that fit theirs both arrive complete and in order.
 *
 * MPI 4.1 §3.5: non-overtaking.  Rank 0 sends NSTREAM 8-byte messages to
 * rank 1 with blocking MPI_Send while rank 1 receives them; rank 2 sends
 * NFEW to rank 3.  Under a small window (tests/stats-checks.tbl runs this
 * with the window rule of 65,536 ranks: 512 bytes, 16 such items) the
 * stream stalls and its pair exchanges flow-control items, while the few
 * messages fit their window: the statistics file then counts one
 * flow-control record at each end of the stalled pair and none for the
 * other (docs/design/flow-control.md, Sparse records).
 */
#include "testlib.h"

#define NSTREAM 2000
#define NFEW 4
#define TAG 21

static uint64_t value(int src, long i)
{
    return ((uint64_t)src << 56) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull);
}

/* n messages from `from` to `to`, checked in order at `to`. */
static void stream(int from, int to, int me, long n)
{
    uint64_t v;
    MPI_Status st;
    for (long i = 0; i < n; i++) {
        if (me == from) {
            v = value(from, i);
            CHECK_MPI(MPI_Send(&v, 8, MPI_BYTE, to, TAG, MPI_COMM_WORLD));
        } else if (me == to) {
            v = 0;
            CHECK_MPI(MPI_Recv(&v, 8, MPI_BYTE, from, TAG, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, from, TAG, 8, "message %ld from rank %d", i, from);
            CHECK(v == value(from, i),
                  "message %ld from rank %d carries %016llx, sent %016llx "
                  "(non-overtaking: messages arrive in send order)",
                  i, from, (unsigned long long)v,
                  (unsigned long long)value(from, i));
        }
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 4, TL_MAX_RANKS); /* ranks past 3 only watch */
    int me = tl_rank();
    stream(0, 1, me, NSTREAM);
    stream(2, 3, me, NFEW);
    return tl_finalize();
}
