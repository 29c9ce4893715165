/* sends_then_collective: nonblocking sends started before a blocking
 * collective do not hold the collective up, however much they carry.
 *
 * MPI 4.1 §3.7: MPI_Isend is local.  Here the lower rank of each pair starts
 * 20,000 sends of 256 B (more than Omnibus's 4 MiB per-pair window) and
 * then enters MPI_Barrier; its partner enters the barrier first and posts
 * its receives only after it.  If a send waited for the receiver, the
 * sender would never reach the barrier and the job would hang.  Afterwards
 * every message must arrive intact and in order.
 */
#include "testlib.h"

#define LEN 256
#define N 20000L
#define TAG 31

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), me = tl_rank();
    unsigned char *buf = tl_malloc((size_t)LEN * N);
    MPI_Request *req = tl_malloc(sizeof *req * N);
    if (peer != MPI_PROC_NULL && tl_leads()) {
        for (long i = 0; i < N; i++) {
            tl_fill(buf + i * LEN, LEN, me, i);
            CHECK_MPI(MPI_Isend(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                             MPI_COMM_WORLD, &req[i]));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
        CHECK(1, "the sender reached the barrier and completed its sends");
    } else if (peer != MPI_PROC_NULL) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (long i = 0; i < N; i++)
            CHECK_MPI(MPI_Irecv(buf + i * LEN, LEN, MPI_BYTE, peer, TAG,
                             MPI_COMM_WORLD, &req[i]));
        CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
        for (long i = 0; i < N; i++)
            CHECK_PATTERN(buf + i * LEN, LEN, peer, i,
                          "message %ld of %ld sent before the barrier must "
                          "arrive intact and in order",
                          i, N);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barrier");
    }
    free(buf);
    free(req);
    return tl_finalize();
}
