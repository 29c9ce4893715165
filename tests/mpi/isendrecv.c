/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace.
 *
 * MPI 4.1 §3.10.1: one request covers a send and a receive; it completes
 * when both have, and its status is the receive's (source, tag, count).
 * The replace form sends the buffer's old content and receives into it.
 * A ring shift, small and large, completed alone and in arrays with other
 * requests; content and request completion are checked.  Statuses are not:
 * MPICH 4.0.2 itself leaves an Isendrecv request's status unset (seen here:
 * source 2, tag 14, count 16 for a 0-byte receive from rank 0), and every
 * test must also pass with OMNIBUS_DISABLE=1.
 */
#include "testlib.h"

#define BIG 60000

static void shift(size_t len, int replace, int in_array)
{
    int me = tl_rank(), n = tl_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *s = tl_malloc(len ? len : 1), *r = tl_malloc(len ? len : 1);
    tl_fill(s, len, me, (long)len);
    MPI_Request req[2];
    MPI_Status st[2];
    long token = me, got = -1;
    if (replace) {
        memcpy(r, s, len);
        CHECK_MPI(MPI_Isendrecv_replace(r, (int)len, MPI_BYTE, right, 5, left, 5,
                                     MPI_COMM_WORLD, &req[0]));
    } else {
        CHECK_MPI(MPI_Isendrecv(s, (int)len, MPI_BYTE, right, 5, r, (int)len,
                             MPI_BYTE, left, 5, MPI_COMM_WORLD, &req[0]));
    }
    if (in_array) {
        CHECK_MPI(MPI_Isendrecv(&token, 1, MPI_LONG, left, 6, &got, 1, MPI_LONG,
                             right, 6, MPI_COMM_WORLD, &req[1]));
        CHECK_MPI(MPI_Waitall(2, req, st));
        CHECK(got == right, "the second Isendrecv must bring %d, got %ld",
              right, got);
    } else {
        CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    }
    CHECK(req[0] == MPI_REQUEST_NULL,
          "a completed Isendrecv request must become MPI_REQUEST_NULL");
    CHECK_PATTERN(r, len, left, (long)len,
                  "Isendrecv%s of %zu bytes from rank %d",
                  replace ? "_replace" : "", len, left);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    static const size_t lens[] = {0, 8, 1000, BIG};
    for (int replace = 0; replace < 2; replace++)
        for (int in_array = 0; in_array < 2; in_array++)
            for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
                shift(lens[i], replace, in_array);
    return tl_finalize();
}
