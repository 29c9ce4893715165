/* relay_forwards_then_waits: a gather-scatter exchange in which every rank
 * waits in MPI_Waitall (or MPI_Wait) for its partners' messages while it
 * relays other ranks' messages.
 *
 * MPI 4.1 §3.7.3 and §3.5: every receive of the exchange completes with the
 * partner's data, whatever topology carries it.  Under a multi-hop grid
 * (2x2 at 4 ranks, 2x2x2 at 8) the messages between ranks of different
 * rows and columns are forwarded by ranks that are themselves inside a
 * Wait call, with nothing of their own left to send.  Such a relay ships
 * what it forwards in the same progress round (router/adapt.h),
 * as a source ships its own sends when it starts to wait; before, those
 * items sat in a partly filled buffer until OMNIBUS_FLUSH_US passed, one
 * flush timer per relay hop and exchange.  scripts/test/run-tests also runs this
 * test with OMNIBUS_STATS_FILE and OMNIBUS_FLUSH_US at its maximum (10 s)
 * and checks, without timing anything, that items were forwarded, that no
 * buffer left by age, and that no buffer holding a forwarded item stayed
 * more than one progress round (totals.forwarded_held == 0).
 *
 * Round k: every rank posts MPI_Irecv from, and MPI_Isend to, every other
 * rank (tags 100 + k), SIZES[k % NSIZES] bytes each, then completes them
 * with MPI_Waitall (even k) or one MPI_Wait per request (odd k), and checks
 * every payload.
 */
#include "testlib.h"

#define ROUNDS 40
#define NSIZES 4

static const int SIZES[NSIZES] = {8, 40, 200, 24};

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), n = tl_size();
    int npeers = n - 1, maxsize = 200;
    unsigned char *sbuf = tl_malloc((size_t)npeers * (size_t)maxsize);
    unsigned char *rbuf = tl_malloc((size_t)npeers * (size_t)maxsize);
    MPI_Request *req = tl_malloc(2 * (size_t)npeers * sizeof *req);
    for (int k = 0; k < ROUNDS; k++) {
        int bytes = SIZES[k % NSIZES], tag = 100 + k;
        for (int i = 0; i < npeers; i++) {
            int from = tl_left(i + 1);
            CHECK_MPI(MPI_Irecv(rbuf + (size_t)i * (size_t)maxsize, bytes,
                             MPI_BYTE, from, tag, MPI_COMM_WORLD, &req[i]));
        }
        for (int i = 0; i < npeers; i++) {
            int to = tl_right(i + 1);
            unsigned char *out = sbuf + (size_t)i * (size_t)maxsize;
            tl_fill(out, (size_t)bytes, me, (long)k * n + to);
            CHECK_MPI(MPI_Isend(out, bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD,
                             &req[npeers + i]));
        }
        if (k % 2 == 0) {
            CHECK_MPI(MPI_Waitall(2 * npeers, req, MPI_STATUSES_IGNORE));
        } else {
            for (int i = 0; i < 2 * npeers; i++)
                CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < npeers; i++) {
            int from = tl_left(i + 1);
            CHECK_PATTERN(rbuf + (size_t)i * (size_t)maxsize, (size_t)bytes,
                          from, (long)k * n + me,
                          "round %d: the receive from rank %d", k, from);
        }
    }
    free(sbuf);
    free(rbuf);
    free(req);
    return tl_finalize();
}
