/* long_run_memory: memory stays flat over 10,000 communicators and 10
 * million messages.
 *
 * MPI 4.1 §7.4.3: MPI_Comm_free releases the communicator; a program that
 * creates and frees communicators (each used for traffic) and streams
 * messages for a long time must not grow.  The stream is paced (an answer
 * every 1,000 messages), so no queue grows with the run's length; the
 * workload runs in two equal halves, and the second may add at most 1 MiB
 * of resident memory on any rank.  Rank 0 reports both halves on stderr
 * ("long_run_memory: ...").
 * The pairs of testlib.h stream (the lower rank sends); all ranks create
 * and free.
 *
 * Usage: long_run_memory [communicators messages]; the defaults are 2,000
 * and 1 million, `make longrun` runs the full 10,000 and 10 million, and
 * the suite the counts tests.list gives (100 and 500,000: creating a
 * communicator costs ~8 ms at 8 ranks on 2 cores, and the suite runs this
 * test at up to 9 ranks under many configurations).
 */
#include "testlib.h"

#include <unistd.h>

#define COMMS 2000
#define MESSAGES 1000000L
#define PACE 1000

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void churn_comms(int n)
{
    int me = tl_rank(), size = tl_size();
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        int right = (me + 1) % size, left = (me + size - 1) % size, v = -1;
        CHECK_MPI(MPI_Sendrecv(&i, 1, MPI_INT, right, 1, &v, 1, MPI_INT, left, 1,
                            c, MPI_STATUS_IGNORE));
        CHECK(v == i, "communicator %d: the ring value must be %d, got %d", i,
              i, v);
        CHECK_MPI(MPI_Comm_free(&c));
    }
}

static void stream(long n)
{
    int me = tl_rank(), partner = tl_partner();
    if (partner == MPI_PROC_NULL)
        return;
    long bad = 0;
    int sender = me < partner;
    /* Paced by an answer every PACE messages, so that the depth of the
     * receiver's queue is the program's choice, not the transport's. */
    for (long i = 0; i < n; i++) {
        long v = i;
        if (sender) {
            MPI_Send(&v, 1, MPI_LONG, partner, 2, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&v, 1, MPI_LONG, partner, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            bad += v != i;
        }
        if (i % PACE == PACE - 1) {
            if (sender)
                MPI_Recv(&v, 1, MPI_LONG, partner, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            else
                MPI_Send(&v, 1, MPI_LONG, partner, 3, MPI_COMM_WORLD);
        }
    }
    CHECK(bad == 0, "%ld of %ld streamed messages arrived out of order", bad,
          n);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int comms = argc > 2 ? atoi(argv[1]) : COMMS;
    long messages = argc > 2 ? atol(argv[2]) : MESSAGES;
    long start = rss_kib();
    churn_comms(comms / 2);
    stream(messages / 2);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long half = rss_kib();
    churn_comms(comms - comms / 2);
    stream(messages - messages / 2);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long end = rss_kib();
    long grew[2] = {half - start, end - half}, worst[2] = {0, 0};
    CHECK_MPI(MPI_Allreduce(grew, worst, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    if (tl_rank() == 0)
        fprintf(stderr,
                "long_run_memory: %d communicators and %ld messages: resident "
                "memory grew by at most %ld KiB in the first half and %ld KiB "
                "in the second, on any rank\n",
                comms, messages, worst[0], worst[1]);
    CHECK(grew[1] < 1024,
          "resident memory must stay flat: the second half of the run (%d "
          "communicators, %ld messages) grew it by %ld KiB (from %ld to %ld "
          "KiB)",
          comms - comms / 2, messages - messages / 2, grew[1], half, end);
    return tl_finalize();
}
