/* bsend_never_waits: a buffered send returns once its data is in the
 * attached buffer, however long the receiver takes.
 *
 * MPI 4.1 §3.4 and §3.6: MPI_Bsend (and MPI_Ibsend) is local; it may fail
 * only with MPI_ERR_BUFFER when the attached buffer is too small, and never
 * waits for a matching receive.  The lower rank of each pair attaches a
 * buffer large enough for everything, buffers 20,000 messages of 256 B
 * (more than Omnibus's per-pair window) and 20 of 64 KiB, and only then
 * enters MPI_Barrier; its partner receives after the barrier.  A send that
 * waited for the receiver would hang the job.
 */
#include "testlib.h"

#define SMALL 256
#define NSMALL 20000L
#define BIG 65536
#define NBIG 20L
#define TAG 41

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), me = tl_rank();
    unsigned char small[SMALL], *big = tl_malloc(BIG);
    if (peer != MPI_PROC_NULL && tl_leads()) {
        int need = (int)(NSMALL * (SMALL + MPI_BSEND_OVERHEAD) +
                         NBIG * (BIG + MPI_BSEND_OVERHEAD));
        char *attached = tl_malloc((size_t)need);
        CHECK_MPI(MPI_Buffer_attach(attached, need));
        for (long i = 0; i < NSMALL; i++) {
            tl_fill(small, SMALL, me, i);
            CHECK_MPI(MPI_Bsend(small, SMALL, MPI_BYTE, peer, TAG, MPI_COMM_WORLD));
        }
        for (long i = 0; i < NBIG; i++) {
            MPI_Request r;
            tl_fill(big, BIG, me, NSMALL + i);
            CHECK_MPI(MPI_Ibsend(big, BIG, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        void *addr;
        int size;
        CHECK_MPI(MPI_Buffer_detach(&addr, &size));
        CHECK(addr == attached && size == need,
              "MPI_Buffer_detach must return the attached buffer (%p, %d), "
              "got (%p, %d)", (void *)attached, need, addr, size);
        free(attached);
    } else if (peer != MPI_PROC_NULL) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (long i = 0; i < NSMALL; i++) {
            CHECK_MPI(MPI_Recv(small, SMALL, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK_PATTERN(small, SMALL, peer, i,
                          "buffered message %ld must arrive intact and in order",
                          i);
        }
        for (long i = 0; i < NBIG; i++) {
            CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK_PATTERN(big, BIG, peer, NSMALL + i,
                          "buffered 64 KiB message %ld must arrive intact and "
                          "in order", i);
        }
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barrier");
    }
    free(big);
    return tl_finalize();
}
