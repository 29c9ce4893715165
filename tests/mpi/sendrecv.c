/* sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace in a ring shift.
 *
 * MPI 4.1 §3.10: MPI_Sendrecv performs a send and a receive as if by two
 * concurrent threads, so a ring in which every rank sends right and
 * receives from the left cannot deadlock, whatever the size; the receive
 * part is an ordinary receive (wildcards allowed, status filled, matched
 * against any send).  MPI_Sendrecv_replace sends the buffer's content and
 * replaces it with the received message.  MPI_PROC_NULL as source or
 * destination makes that half a no-op (status source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0, buffer untouched).
 */
#include "testlib.h"

#define MAXLEN 200000

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    static const int lens[] = {1, 8, 1000, 65536, 200000, 0};
    unsigned char *sb = tl_malloc(MAXLEN), *rb = tl_malloc(MAXLEN);
    MPI_Status st;
    long id = 0;

    for (int l = 0; l < 6; l++, id++) {
        int n = lens[l];
        tl_fill(sb, (size_t)n, me, id);
        CHECK_MPI(MPI_Sendrecv(sb, n, MPI_BYTE, right, 10 + l, rb, MAXLEN,
                            MPI_BYTE, left, 10 + l, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, left, 10 + l, n, "MPI_Sendrecv ring shift of %d bytes",
                     n);
        CHECK_PATTERN(rb, (size_t)n, left, id, "MPI_Sendrecv of %d bytes", n);
    }

    /* Different send and receive tags, wildcard source and tag. */
    for (int l = 0; l < 5; l++, id++) {
        int n = lens[l];
        tl_fill(sb, (size_t)n, me, id);
        CHECK_MPI(MPI_Sendrecv(sb, n, MPI_BYTE, right, 100 + me, rb, MAXLEN,
                            MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                            MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, left, 100 + left, n,
                     "MPI_Sendrecv with ANY_SOURCE/ANY_TAG, %d bytes", n);
        CHECK_PATTERN(rb, (size_t)n, left, id,
                      "MPI_Sendrecv wildcard, %d bytes", n);
    }

    /* Sendrecv_replace shifts the buffer around the whole ring. */
    for (int l = 0; l < 5; l++, id++) {
        int n = lens[l];
        tl_fill(sb, (size_t)n, me, id);
        for (int step = 1; step <= size; step++) {
            CHECK_MPI(MPI_Sendrecv_replace(sb, n, MPI_BYTE, right, 20 + l, left,
                                        20 + l, MPI_COMM_WORLD, &st));
            int origin = (me + size - step) % size;
            CHECK_STATUS(st, left, 20 + l, n,
                         "MPI_Sendrecv_replace step %d of %d bytes", step, n);
            CHECK_PATTERN(sb, (size_t)n, origin, id,
                          "MPI_Sendrecv_replace step %d: the buffer must "
                          "hold rank %d's original data",
                          step, origin);
        }
    }

    /* Typed Sendrecv_replace: ints, counted in ints. */
    {
        int v[3000];
        for (int k = 0; k < 3000; k++)
            v[k] = me * 100000 + k;
        CHECK_MPI(MPI_Sendrecv_replace(v, 3000, MPI_INT, right, 30, left, 30,
                                    MPI_COMM_WORLD, &st));
        int c = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
        CHECK(c == 3000, "MPI_Sendrecv_replace of 3000 ints: count must be "
                         "3000 MPI_INTs, got %d",
              c);
        for (int k = 0; k < 3000; k++)
            CHECK(v[k] == left * 100000 + k,
                  "MPI_Sendrecv_replace ints: v[%d] must be %d, got %d", k,
                  left * 100000 + k, v[k]);
    }

    /* A non-periodic shift: the ends talk to MPI_PROC_NULL. */
    {
        int dst = me == size - 1 ? MPI_PROC_NULL : me + 1;
        int src = me == 0 ? MPI_PROC_NULL : me - 1;
        tl_fill(sb, 500, me, id);
        memset(rb, 0x3C, 500);
        CHECK_MPI(MPI_Sendrecv(sb, 500, MPI_BYTE, dst, 40, rb, 500, MPI_BYTE, src,
                            40, MPI_COMM_WORLD, &st));
        if (src == MPI_PROC_NULL) {
            CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, 0,
                         "MPI_Sendrecv receiving from MPI_PROC_NULL");
            CHECK_FILLED(rb, 500, 0x3C,
                         "buffer of a receive from MPI_PROC_NULL");
        } else {
            CHECK_STATUS(st, src, 40, 500, "non-periodic MPI_Sendrecv shift");
            CHECK_PATTERN(rb, 500, src, id, "non-periodic shift");
        }
    }
    free(sb);
    free(rb);
    return tl_finalize();
}
