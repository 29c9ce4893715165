/* sends_before_receives: an exchange that starts every send before it posts
 * any receive completes, however much it sends.
 *
 * MPI 4.1 §3.7: MPI_Isend, MPI_Issend and MPI_Start are local; they return
 * whatever the receiver does, and by §3.7.4's progress rule a started send
 * and a posted matching receive always complete.  So a ring in which every
 * rank starts all its sends to its right neighbour before it posts its
 * receives from its left neighbour must finish.  Each pass sends more than
 * Omnibus's per-pair window (4 MiB at these job sizes), so the tail of the
 * exchange finds the window full.  Passes: 20,000 small (256 B) standard
 * sends, 1,200 large (4 KiB) ones (on one node they go alone through the
 * node rings and take window like small ones, so their tail switches to a
 * header and an MPICH payload), 20,000 small persistent sends started
 * with MPI_Startall, and 20,000 small synchronous sends.  Every message must
 * arrive intact, in order.  Each pass is a whole exchange of its own and
 * gets the whole watchdog time: at 4 ranks on 2 cores with 256-byte buffers
 * over MPICH one pass can take up to 20 s (docs/design/transport.md, Early
 * payloads).
 */
#include "testlib.h"

enum pass { SMALL, LARGE, PERSISTENT, SYNCHRONOUS };
static const char *const pass_name[] = {"MPI_Isend 256 B", "MPI_Isend 4 KiB",
                                        "MPI_Startall of MPI_Send_init 256 B",
                                        "MPI_Issend 256 B"};

static void exchange(enum pass p, int len, long n)
{
    tl_watchdog_rearm();
    int right = tl_right(1), left = tl_left(1), me = tl_rank();
    unsigned char *out = tl_malloc((size_t)len * (size_t)n);
    unsigned char *in = tl_malloc((size_t)len * (size_t)n);
    MPI_Request *sreq = tl_malloc(sizeof *sreq * (size_t)n);
    MPI_Request *rreq = tl_malloc(sizeof *rreq * (size_t)n);
    for (long i = 0; i < n; i++) {
        unsigned char *b = out + (size_t)i * (size_t)len;
        tl_fill(b, (size_t)len, me, i);
        switch (p) {
        case SMALL:
        case LARGE:
            CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, right, p, MPI_COMM_WORLD,
                             &sreq[i]));
            break;
        case PERSISTENT:
            CHECK_MPI(MPI_Send_init(b, len, MPI_BYTE, right, p, MPI_COMM_WORLD,
                                 &sreq[i]));
            break;
        case SYNCHRONOUS:
            CHECK_MPI(MPI_Issend(b, len, MPI_BYTE, right, p, MPI_COMM_WORLD,
                              &sreq[i]));
            break;
        }
    }
    if (p == PERSISTENT)
        CHECK_MPI(MPI_Startall((int)n, sreq));
    for (long i = 0; i < n; i++)
        CHECK_MPI(MPI_Irecv(in + (size_t)i * (size_t)len, len, MPI_BYTE, left, p,
                         MPI_COMM_WORLD, &rreq[i]));
    CHECK_MPI(MPI_Waitall((int)n, rreq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall((int)n, sreq, MPI_STATUSES_IGNORE));
    for (long i = 0; i < n; i++)
        CHECK_PATTERN(in + (size_t)i * (size_t)len, (size_t)len, left, i,
                      "%s: message %ld of %ld from rank %d must arrive intact "
                      "and in send order",
                      pass_name[p], i, n, left);
    if (p == PERSISTENT)
        for (long i = 0; i < n; i++)
            CHECK_MPI(MPI_Request_free(&sreq[i]));
    free(out);
    free(in);
    free(sreq);
    free(rreq);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    exchange(SMALL, 256, 20000);
    exchange(LARGE, 4096, 1200);
    exchange(PERSISTENT, 256, 20000);
    exchange(SYNCHRONOUS, 256, 20000);
    return tl_finalize();
}
