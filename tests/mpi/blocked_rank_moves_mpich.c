/* blocked_rank_moves_mpich: a rank waiting in MPI_Recv or an MPI_Test loop
 * keeps MPICH's own operations moving, even while all it waits for is
 * Omnibus traffic.
 *
 * MPI 4.1 §3.7.4 (progress): a nonblocking operation, once started, is
 * completed by the MPI library while the other ranks involved are inside
 * MPI calls; a rank blocked in MPI_Recv does not stop another rank's
 * MPI_Wait on a collective they share.  Under Omnibus, a receive on
 * MPI_COMM_WORLD waits on Omnibus's own transport, which between ranks of
 * one node is shared memory and calls no MPICH function at all; MPICH
 * moves a nonblocking barrier only from inside MPICH.
 *
 * Every rank but 0 starts an MPI_Ibarrier on a duplicate of
 * MPI_COMM_WORLD (MPICH's own) and then blocks in MPI_Recv for a message
 * from rank 0 on MPI_COMM_WORLD (Omnibus's).  Rank 0 starts its barrier
 * late, so that no other rank can finish its barrier's rounds inside
 * MPI_Ibarrier itself, and sends each rank its message only once its own
 * barrier has completed: with three or more ranks that needs the blocked
 * ranks to run MPICH's later rounds.  In odd rounds the other ranks poll
 * an MPI_Irecv with MPI_Test instead of blocking: repeated MPI_Test calls
 * owe the same progress (§3.7.4).  Repeated, with a large message first
 * (an MPICH rendezvous whose sender completes only once the receiver's
 * MPICH has answered), so a rank that receives it and then blocks on
 * Omnibus traffic must still let the sender's request complete.
 */
#include "testlib.h"

#define ROUNDS 4
#define LATE 0.2   /* seconds rank 0 waits before its MPI_Ibarrier */
#define LIMIT 10.0 /* seconds rank 0's MPI_Wait may take */
#define BIG (256 * 1024)

static MPI_Comm dup_world;

/* Rank 0's wait, polled, so that a missing progress is a FAIL line and not
 * the watchdog's. */
static void wait_within_limit(MPI_Request *req, const char *what, int round)
{
    int flag = 0;
    double t0 = tl_now();
    while (!flag) {
        CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
        CHECK(flag || tl_now() - t0 < LIMIT,
              "round %d: %s not complete after %.0f s while every other "
              "rank waited in MPI_Recv or an MPI_Test loop; MPI's progress "
              "rule promises that it completes",
              round, what, LIMIT);
    }
}

static void root_round(int round, char *big)
{
    MPI_Request bar, sends[TL_MAX_RANKS];
    for (int r = 1; r < tl_size(); r++)
        CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, r, 2 * round, MPI_COMM_WORLD,
                         &sends[r - 1]));
    for (int r = 1; r < tl_size(); r++)
        wait_within_limit(&sends[r - 1], "a large MPI_Isend to a rank that "
                                         "received it",
                          round);
    tl_sleep(LATE);
    CHECK_MPI(MPI_Ibarrier(dup_world, &bar));
    wait_within_limit(&bar, "rank 0's MPI_Ibarrier", round);
    for (int r = 1; r < tl_size(); r++)
        CHECK_MPI(MPI_Send(&round, 1, MPI_INT, r, 2 * round + 1, MPI_COMM_WORLD));
}

static void other_round(int round, char *big)
{
    MPI_Request bar;
    MPI_Status st;
    int got = -1;
    CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, 0, 2 * round, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, 0, 2 * round, BIG, "round %d: the large message", round);
    CHECK_MPI(MPI_Ibarrier(dup_world, &bar));
    if (round % 2 == 0) {
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 2 * round + 1, MPI_COMM_WORLD,
                        &st));
    } else {
        MPI_Request req;
        int flag = 0;
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, 0, 2 * round + 1, MPI_COMM_WORLD,
                         &req));
        while (!flag)
            CHECK_MPI(MPI_Test(&req, &flag, &st));
    }
    CHECK_STATUS(st, 0, 2 * round + 1, (int)sizeof(int),
                 "round %d: rank 0's message", round);
    CHECK(got == round, "round %d: rank 0's message must carry %d, got %d",
          round, round, got);
    CHECK_MPI(MPI_Wait(&bar, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    char *big = tl_malloc(BIG);
    memset(big, 7, BIG);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup_world));
    for (int round = 0; round < ROUNDS; round++) {
        if (tl_rank() == 0)
            root_round(round, big);
        else
            other_round(round, big);
    }
    CHECK_MPI(MPI_Comm_free(&dup_world));
    free(big);
    return tl_finalize();
}
