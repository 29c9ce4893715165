/* head_to_head_blocking_sends: ranks that all send with blocking MPI_Send
 * to each other before any of them receives still finish, whatever
 * Omnibus's per-pair window holds.
 *
 * MPI 4.1 §3.5 calls such a program unsafe: it relies on the system
 * buffering standard-mode sends.  MPICH's eager protocol buffers small
 * messages at the receiver, so these programs exist and run under plain
 * MPICH; under Omnibus a blocking standard send past its pair's window
 * goes to MPICH as it would without Omnibus (docs/design/flow-control.md)
 * and never waits for a receive MPICH would not have waited for.  Every
 * rank MPI_Sends N messages of LEN bytes (the argument) to every other
 * rank, then receives all of them with MPI_ANY_SOURCE and checks each
 * message's content and that each sender's messages arrive in the order
 * sent.  N is three windows' worth per pair, with OMNIBUS_EAGER_POOL at
 * 256 KiB unless the runner sets it, so that most of each exchange is past
 * the window.
 *
 * Messages of 16 KiB and more go to MPICH's rendezvous under plain MPICH
 * 4.0.2 (over TCP from 8 KiB; under Open MPI 4.1 from 4 KiB over shared
 * memory), which deadlocks on this pattern by itself:
 * there MPI's own rule holds (an unsafe program may hang), and Omnibus,
 * which receives such payloads early within OMNIBUS_EAGER_POOL, is only
 * asked to finish a volume within its pool (8 messages per pair, with the
 * default pool).  Without Omnibus that size runs the same exchange in a
 * safe order instead, so the test still checks every message.
 */
#include "testlib.h"

#define TAG 61
#define POOL (256L << 10)
#define ITEM_HDR 24
/* The smallest message the plain MPI sends by rendezvous on some
 * transport of one machine: MPICH 4.0.2 over TCP, Open MPI 4.1's shared
 * memory (its 4 KiB eager limit counts its own header too). */
#ifdef OPEN_MPI
#define RENDEZVOUS_FROM 4096
#else
#define RENDEZVOUS_FROM 8192
#endif


static void send_all(unsigned char *buf, int len, long n)
{
    int me = tl_rank(), size = tl_size();
    for (long i = 0; i < n; i++)
        for (int k = 1; k < size; k++) {
            int to = (me + k) % size;
            tl_fill(buf, (size_t)len, me, i);
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, to, TAG, MPI_COMM_WORLD));
        }
}

static void receive_all(unsigned char *buf, int len, long n)
{
    int size = tl_size();
    long *next = calloc((size_t)size, sizeof *next);
    for (long got = 0; got < n * (size - 1); got++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, len, MPI_BYTE, MPI_ANY_SOURCE, TAG,
                        MPI_COMM_WORLD, &st));
        int from = st.MPI_SOURCE;
        CHECK(from >= 0 && from < size && from != tl_rank() &&
                  next[from] < n,
              "MPI_Recv(MPI_ANY_SOURCE) must match a message some other rank "
              "sent, got source %d", from);
        CHECK_PATTERN(buf, (size_t)len, from, next[from],
                      "message %ld of %ld from rank %d, sent by blocking "
                      "MPI_Send before any receive was posted, must arrive "
                      "intact and in its sender's order",
                      next[from], n, from);
        next[from]++;
    }
    free(next);
}

int main(int argc, char **argv)
{
    int len = argc > 1 ? atoi(argv[1]) : 256;
    int rendezvous = len >= RENDEZVOUS_FROM;
    if (!rendezvous)
        setenv("OMNIBUS_EAGER_POOL", "256K", 0);
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int size = tl_size();
    long n = rendezvous ? 8 : 3 * (POOL / (size - 1)) / (len + ITEM_HDR) + 64;
    unsigned char *buf = tl_malloc((size_t)len);
    if (rendezvous && !tl_omnibus_active()) {
        /* Plain MPICH: a safe order, one sender at a time. */
        for (int r = 0; r < size; r++) {
            if (r == tl_rank())
                send_all(buf, len, n);
            else
                for (long i = 0; i < n; i++) {
                    MPI_Status st;
                    CHECK_MPI(MPI_Recv(buf, len, MPI_BYTE, r, TAG,
                                    MPI_COMM_WORLD, &st));
                    CHECK_PATTERN(buf, (size_t)len, r, i,
                                  "message %ld of %ld from rank %d", i, n, r);
                }
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
    } else {
        send_all(buf, len, n);
        receive_all(buf, len, n);
    }
    free(buf);
    return tl_finalize();
}
