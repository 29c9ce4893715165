/* bsend_buffered: buffered-mode sends and the attach/detach contract.
 *
 * MPI 4.1 §3.6: MPI_Bsend/MPI_Ibsend copy the message into the buffer the
 * user attached and complete locally, whether or not a receive is posted
 * (here: a 100 KB MPI_Bsend returns while the receiver is still asleep);
 * without enough buffer space they fail with MPI_ERR_BUFFER.
 * MPI_Buffer_detach blocks until every message in the buffer has been
 * transmitted, then returns the attached address and size.  Buffered
 * messages keep their order with standard-mode messages on the same tag.
 *
 * The ranks run in pairs (testlib.h): the leader of each pair sends, its
 * partner receives, all pairs at once.
 */
#include "testlib.h"

#define TAG 3
#define BIG 100000
#define NMSG 8
#define TIME_TAG 901

static int len_of(int i)
{
    static const int s[] = {8, BIG, 1, 500, 0, 30000, 16, 8};
    return s[i % NMSG];
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    MPI_Status st;

    if (peer == MPI_PROC_NULL) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* sits out */
    } else if (tl_leads()) {
        int one, need;
        /* Room for every buffered message at once, the first one too. */
        CHECK_MPI(MPI_Pack_size(BIG, MPI_BYTE, MPI_COMM_WORLD, &one));
        need = one + MPI_BSEND_OVERHEAD;
        for (int i = 0; i < NMSG; i++) {
            CHECK_MPI(MPI_Pack_size(len_of(i), MPI_BYTE, MPI_COMM_WORLD, &one));
            need += one + MPI_BSEND_OVERHEAD;
        }
        char *attached = tl_malloc((size_t)need);
        unsigned char *b = tl_malloc(BIG);
        CHECK_MPI(MPI_Buffer_attach(attached, need));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

        /* 1: a large Bsend completes while no receive is posted. */
        tl_fill(b, BIG, me, 100);
        CHECK_MPI(MPI_Bsend(b, BIG, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD));
        double done = tl_now();
        memset(b, 0, BIG); /* the buffer is ours again once Bsend returns */

        /* 2: Bsend, Ibsend and standard sends, interleaved on one tag. */
        for (int i = 0; i < NMSG; i++) {
            tl_fill(b, (size_t)len_of(i), me, i);
            if (i % 3 == 0) {
                CHECK_MPI(MPI_Send(b, len_of(i), MPI_BYTE, peer, TAG,
                                MPI_COMM_WORLD));
            } else if (i % 3 == 1) {
                CHECK_MPI(MPI_Bsend(b, len_of(i), MPI_BYTE, peer, TAG,
                                 MPI_COMM_WORLD));
            } else {
                MPI_Request r;
                CHECK_MPI(MPI_Ibsend(b, len_of(i), MPI_BYTE, peer, TAG,
                                  MPI_COMM_WORLD, &r));
                CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            memset(b, 0xFF, (size_t)len_of(i));
        }
        void *addr = NULL;
        int size = -1;
        CHECK_MPI(MPI_Buffer_detach(&addr, &size));
        CHECK(addr == attached && size == need,
              "MPI_Buffer_detach must return the attached buffer %p and "
              "size %d, got %p and %d",
              (void *)attached, need, addr, size);
        free(attached);

        double posted;
        CHECK_MPI(MPI_Recv(&posted, 1, MPI_DOUBLE, peer, TIME_TAG,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(done < posted,
              "a %d-byte MPI_Bsend must complete without waiting for the "
              "receive; it returned %.3f s after the receive was posted",
              BIG, done - posted);

        /* 3: no buffer attached any more: MPI_ERR_BUFFER. */
        CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int rc = MPI_Bsend(b, 64, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
        CHECK(tl_class(rc) == MPI_ERR_BUFFER,
              "MPI_Bsend after MPI_Buffer_detach must fail with class "
              "MPI_ERR_BUFFER, returned %s",
              rc == MPI_SUCCESS ? "MPI_SUCCESS" : tl_errstr(rc));
        CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD,
                                       MPI_ERRORS_ARE_FATAL));
        free(b);
    } else {
        unsigned char *b = tl_malloc(BIG);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        tl_sleep(0.5);
        double posted = tl_now();
        CHECK_MPI(MPI_Recv(b, BIG, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD,
                        &st));
        CHECK_STATUS(st, peer, TAG + 1, BIG, "the large buffered message");
        CHECK_PATTERN(b, BIG, peer, 100, "the large buffered message");
        for (int i = 0; i < NMSG; i++) {
            CHECK_MPI(MPI_Recv(b, BIG, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                            &st));
            CHECK_STATUS(st, peer, TAG, len_of(i),
                         "message %d of a buffered/standard mix, in order", i);
            CHECK_PATTERN(b, (size_t)len_of(i), peer, i,
                          "message %d of a buffered/standard mix (the sender "
                          "overwrote its buffer after each send)",
                          i);
        }
        CHECK_MPI(MPI_Send(&posted, 1, MPI_DOUBLE, peer, TIME_TAG,
                        MPI_COMM_WORLD));
        free(b);
    }
    return tl_finalize();
}
