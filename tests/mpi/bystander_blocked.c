/* bystander_blocked: traffic between two ranks completes while the other
 * ranks sit in blocking calls.
 *
 * MPI 4.1 §3.5 (progress) and §6.1: a blocking call on one process never
 * stops two other processes from communicating; a correct program whose
 * ranks 1..P-2 are blocked in MPI_Recv, MPI_Barrier, MPI_Allreduce or
 * MPI_Probe (waiting for something that comes only after rank 0 and rank
 * P-1 have talked) completes.  An implementation that routes or forwards
 * messages through intermediate ranks must keep forwarding while those
 * ranks are blocked.  Each stream is checked for order and content.
 */
#include "testlib.h"

#define NSMALL 200
#define NPINGS 40
#define BIG 50000

/* Ranks 0 and last: a burst each way, ping-pongs, and large messages. */
static void talk(int me, int other, int phase)
{
    long *out = tl_malloc(sizeof(long) * NSMALL);
    long *in = tl_malloc(sizeof(long) * NSMALL);
    MPI_Request *req = tl_malloc(sizeof(MPI_Request) * 2 * NSMALL);
    for (int i = 0; i < NSMALL; i++) {
        out[i] = me * 1000000L + phase * 10000L + i;
        MPI_OK(MPI_Irecv(&in[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD,
                         &req[i]));
    }
    for (int i = 0; i < NSMALL; i++)
        MPI_OK(MPI_Isend(&out[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD,
                         &req[NSMALL + i]));
    MPI_OK(MPI_Waitall(2 * NSMALL, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NSMALL; i++)
        CHECK(in[i] == other * 1000000L + phase * 10000L + i,
              "phase %d: message %d from rank %d must be %ld, got %ld", phase,
              i, other, other * 1000000L + phase * 10000L + i, in[i]);
    for (int i = 0; i < NPINGS; i++) {
        long v = i;
        if (me == 0) {
            MPI_OK(MPI_Send(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i + 1, "phase %d: pong %d must be %d, got %ld", phase,
                  i, i + 1, v);
        } else {
            MPI_OK(MPI_Recv(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i, "phase %d: ping %d must be %d, got %ld", phase, i,
                  i, v);
            v++;
            MPI_OK(MPI_Send(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD));
        }
    }
    unsigned char *bs = tl_malloc(BIG), *br = tl_malloc(BIG);
    MPI_Status st;
    tl_fill(bs, BIG, me, phase);
    MPI_OK(MPI_Sendrecv(bs, BIG, MPI_BYTE, other, 3, br, BIG, MPI_BYTE, other,
                        3, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, other, 3, BIG, "phase %d: large exchange", phase);
    CHECK_PATTERN(br, BIG, other, phase, "phase %d: large exchange", phase);
    free(bs);
    free(br);
    free(out);
    free(in);
    free(req);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 3, 4);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int last = size - 1;
    int active = me == 0 || me == last;
    long v = -1;
    MPI_Status st;

    /* Phase 0: bystanders blocked in MPI_Recv from rank 0 (ranks 1..) and
     * in MPI_Probe for a message from the last rank. */
    if (active) {
        talk(me, me == 0 ? last : 0, 0);
        for (int b = 1; b < last; b++) {
            v = 100 + b + me;
            MPI_OK(MPI_Send(&v, 1, MPI_LONG, b, 9, MPI_COMM_WORLD));
        }
    } else {
        MPI_OK(MPI_Recv(&v, 1, MPI_LONG, 0, 9, MPI_COMM_WORLD, &st));
        CHECK(v == 100 + me, "bystander: release from rank 0 must be %d, got "
                             "%ld",
              100 + me, v);
        MPI_OK(MPI_Probe(last, 9, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Recv(&v, 1, MPI_LONG, last, 9, MPI_COMM_WORLD, &st));
        CHECK(v == 100 + me + last,
              "bystander: release from rank %d must be %d, got %ld", last,
              100 + me + last, v);
    }

    /* Phase 1: bystanders wait in MPI_Barrier, the others talk first. */
    if (active)
        talk(me, me == 0 ? last : 0, 1);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Phase 2: bystanders wait in MPI_Allreduce. */
    if (active)
        talk(me, me == 0 ? last : 0, 2);
    long in = me, sum = -1;
    MPI_OK(MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == (long)size * (size - 1) / 2,
          "MPI_Allreduce after the talk must give %ld, got %ld",
          (long)size * (size - 1) / 2, sum);
    return tl_finalize();
}
