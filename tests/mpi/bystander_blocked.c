/* bystander_blocked: traffic between two ranks completes while the other
 * ranks sit in blocking calls.
 *
 * MPI 4.1 §3.5 (progress) and §6.1: a blocking call on one process never
 * stops two other processes from communicating; a correct program whose
 * other ranks are blocked in MPI_Recv, MPI_Barrier, MPI_Allreduce or
 * MPI_Probe (waiting for something that comes only after the two have
 * talked) completes.  An implementation that routes or forwards messages
 * through intermediate ranks must keep forwarding while those ranks are
 * blocked.  Each stream is checked for order and content.
 *
 * Two rounds with different talking pairs, (0, P-1) and then (1, P-1), so
 * that on every grid Omnibus builds for 3 to 9 ranks at least one of them
 * is a multi-hop route through a blocked bystander.  At 2 ranks there are
 * no bystanders and one round.
 */
#include "testlib.h"

#define NSMALL 200
#define NPINGS 40
#define BIG 50000

/* The talking pair: a burst each way, ping-pongs (the lower rank pings),
 * and large messages. */
static void talk(int me, int other, int phase)
{
    long *out = tl_malloc(sizeof(long) * NSMALL);
    long *in = tl_malloc(sizeof(long) * NSMALL);
    MPI_Request *req = tl_malloc(sizeof(MPI_Request) * 2 * NSMALL);
    for (int i = 0; i < NSMALL; i++) {
        out[i] = me * 1000000L + phase * 10000L + i;
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD,
                         &req[i]));
    }
    for (int i = 0; i < NSMALL; i++)
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_LONG, other, 1, MPI_COMM_WORLD,
                         &req[NSMALL + i]));
    CHECK_MPI(MPI_Waitall(2 * NSMALL, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NSMALL; i++)
        CHECK(in[i] == other * 1000000L + phase * 10000L + i,
              "phase %d: message %d from rank %d must be %ld, got %ld", phase,
              i, other, other * 1000000L + phase * 10000L + i, in[i]);
    for (int i = 0; i < NPINGS; i++) {
        long v = i;
        if (me < other) {
            CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i + 1, "phase %d: pong %d must be %d, got %ld", phase,
                  i, i + 1, v);
        } else {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            CHECK(v == i, "phase %d: ping %d must be %d, got %ld", phase, i,
                  i, v);
            v++;
            CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, other, 2, MPI_COMM_WORLD));
        }
    }
    unsigned char *bs = tl_malloc(BIG), *br = tl_malloc(BIG);
    MPI_Status st;
    tl_fill(bs, BIG, me, phase);
    CHECK_MPI(MPI_Sendrecv(bs, BIG, MPI_BYTE, other, 3, br, BIG, MPI_BYTE, other,
                        3, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, other, 3, BIG, "phase %d: large exchange", phase);
    CHECK_PATTERN(br, BIG, other, phase, "phase %d: large exchange", phase);
    free(bs);
    free(br);
    free(out);
    free(in);
    free(req);
}

/* One round: ranks a < b talk in three phases while the others wait. */
static void round_of(int a, int b, int round)
{
    int me = tl_rank(), size = tl_size();
    int active = me == a || me == b, other = me == a ? b : a;
    int phase = 3 * round;
    long v = -1;
    MPI_Status st;

    /* Phase 0: bystanders blocked in MPI_Recv from rank a and in MPI_Probe
     * for a message from rank b. */
    if (active) {
        talk(me, other, phase);
        for (int x = 0; x < size; x++) {
            if (x == a || x == b)
                continue;
            v = 100 + x + me;
            CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, x, 9, MPI_COMM_WORLD));
        }
    } else {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, a, 9, MPI_COMM_WORLD, &st));
        CHECK(v == 100 + me + a,
              "round %d: bystander: release from rank %d must be %d, got %ld",
              round, a, 100 + me + a, v);
        CHECK_MPI(MPI_Probe(b, 9, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Recv(&v, 1, MPI_LONG, b, 9, MPI_COMM_WORLD, &st));
        CHECK(v == 100 + me + b,
              "round %d: bystander: release from rank %d must be %d, got %ld",
              round, b, 100 + me + b, v);
    }

    /* Phase 1: bystanders wait in MPI_Barrier, the others talk first. */
    if (active)
        talk(me, other, phase + 1);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Phase 2: bystanders wait in MPI_Allreduce. */
    if (active)
        talk(me, other, phase + 2);
    long in = me, sum = -1;
    CHECK_MPI(MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == (long)size * (size - 1) / 2,
          "round %d: MPI_Allreduce after the talk must give %ld, got %ld",
          round, (long)size * (size - 1) / 2, sum);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int size = tl_size();
    round_of(0, size - 1, 0);
    if (size >= 3)
        round_of(1, size - 1, 1);
    return tl_finalize();
}
