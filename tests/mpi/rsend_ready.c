/* rsend_ready: ready-mode sends to receives that are already posted.
 *
 * MPI 4.1 §3.4: MPI_Rsend/MPI_Irsend may be started only when the matching
 * receive is already posted; then they behave like standard sends: the
 * message lands in that receive, with the right status, in order with
 * other sends on the same tag.  The receiver posts its receives (some
 * MPI_ANY_SOURCE) and then tells the sender, who only then sends.
 */
#include "testlib.h"

#define TAG 4
#define NMSG 8
#define MAXLEN 70000

static int len_of(int i)
{
    static const int s[] = {8, 70000, 1, 0, 2000, 64, 40000, 16};
    return s[i % NMSG];
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);

    /* One sender at a time, so every receive is posted before its
     * ready-mode send starts, as MPI_Rsend requires. */
    for (int s = 1; s < size; s++) {
        if (me == 0) {
            MPI_Request r[NMSG];
            MPI_Status st[NMSG];
            unsigned char *b = tl_malloc((size_t)NMSG * MAXLEN);
            for (int i = 0; i < NMSG; i++)
                CHECK_MPI(MPI_Irecv(b + (size_t)i * MAXLEN, MAXLEN, MPI_BYTE,
                                 i % 2 ? MPI_ANY_SOURCE : s, TAG,
                                 MPI_COMM_WORLD, &r[i]));
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, s, 99, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Waitall(NMSG, r, st));
            for (int i = 0; i < NMSG; i++) {
                CHECK_STATUS(st[i], s, TAG, len_of(i),
                             "ready-mode message %d from rank %d", i, s);
                CHECK_PATTERN(b + (size_t)i * MAXLEN, (size_t)len_of(i), s, i,
                              "ready-mode message %d from rank %d", i, s);
            }
            free(b);
        } else if (me == s) {
            unsigned char *b = tl_malloc(MAXLEN);
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            for (int i = 0; i < NMSG; i++) {
                tl_fill(b, (size_t)len_of(i), me, i);
                if (i % 3 == 2) {
                    MPI_Request r;
                    CHECK_MPI(MPI_Irsend(b, len_of(i), MPI_BYTE, 0, TAG,
                                      MPI_COMM_WORLD, &r));
                    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
                } else if (i % 3 == 1) {
                    CHECK_MPI(MPI_Rsend(b, len_of(i), MPI_BYTE, 0, TAG,
                                     MPI_COMM_WORLD));
                } else {
                    CHECK_MPI(MPI_Send(b, len_of(i), MPI_BYTE, 0, TAG,
                                    MPI_COMM_WORLD));
                }
            }
            free(b);
        }
    }
    return tl_finalize();
}
