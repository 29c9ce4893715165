/* request_free_then_finalize: sends whose requests were freed are still
 * delivered, even when the sender goes straight to MPI_Finalize.
 *
 * MPI 4.1 §3.7.3 (MPI_Request_free): freeing an active send request only
 * marks it for deallocation; the send still proceeds and completes.
 * §11.2.2 (MPI_Finalize): communication a process started completes; a
 * message sent is delivered to its receiver even if the sender finalizes
 * before the receiver has received it.
 *
 * Phase 1: every rank MPI_Isends small (8, 100 bytes) and large (100 KB)
 * messages to every other rank and frees each request at once; every rank
 * then receives everything, in order, and checks it.
 * Phase 2: rank 0 MPI_Isends small messages to every other rank, frees the
 * requests and calls MPI_Finalize with no other MPI call in between; the
 * others wait 0.2 s before receiving, so rank 0 is already finalizing.
 * (Only small messages here: with large freed sends, plain MPICH over UCX
 * prints "was not returned to mpool" warnings on stdout when the sender
 * finalizes first, which the harness would count as a failure.)
 *
 * Send buffers stay allocated to the end: MPI gives no way to know when a
 * freed send is done with its buffer.
 */
#include "testlib.h"

#define TAG 8
#define NPER 6
#define NSMALL 5
#define MAXLEN 100000

static int len_of(int i)
{
    static const int s[] = {8, 100, 100000, 8, 8, 100000};
    return s[i % 6];
}

static int small_len(int i)
{
    static const int s[] = {8, 100, 1, 1000, 8};
    return s[i % 5];
}

static void isend_and_free(int len, int dest, int tag, int me, long id)
{
    /* Never freed: see above. */
    unsigned char *b = tl_malloc((size_t)len);
    MPI_Request req;
    tl_fill(b, (size_t)len, me, id);
    CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL,
          "MPI_Request_free must set the handle to MPI_REQUEST_NULL");
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    unsigned char *buf = tl_malloc(MAXLEN);
    MPI_Status st;

    for (int d = 0; d < size; d++)
        for (int i = 0; d != me && i < NPER; i++)
            isend_and_free(len_of(i), d, TAG, me, d * 100 + i);
    tl_sleep(0.05);
    for (int s = 0; s < size; s++)
        for (int i = 0; s != me && i < NPER; i++) {
            CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_BYTE, s, TAG, MPI_COMM_WORLD,
                            &st));
            CHECK_STATUS(st, s, TAG, len_of(i),
                         "message %d from rank %d, whose request was freed",
                         i, s);
            CHECK_PATTERN(buf, (size_t)len_of(i), s, me * 100 + i,
                          "message %d from rank %d (request freed)", i, s);
        }
    /* Lets plain MPICH finish the large sends' handshakes (see above). */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    if (me == 0) {
        for (int d = 1; d < size; d++)
            for (int i = 0; i < NSMALL; i++)
                isend_and_free(small_len(i), d, TAG + 1, me, 1000 + i);
        free(buf);
        return tl_finalize_now(0);
    }
    tl_sleep(0.2);
    for (int i = 0; i < NSMALL; i++) {
        CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD,
                        &st));
        CHECK_STATUS(st, 0, TAG + 1, small_len(i),
                     "message %d from rank 0, sent just before it finalized",
                     i);
        CHECK_PATTERN(buf, (size_t)small_len(i), 0, 1000 + i,
                      "message %d from rank 0 (sent before its finalize)", i);
    }
    free(buf);
    return tl_finalize_now(0);
}
