/* incast: every rank but rank 0 streams small blocking MPI_Sends to rank 0,
 * which receives them all with MPI_ANY_SOURCE: many senders sharing one
 * receiver's pool, the pattern flow control must keep aggregated.
 *
 * Usage: incast [-n messages] [-w warmup] [-W ns]
 *   -n  messages each sender sends in the timed section (default 500000,
 *       or 5000 when ranks outnumber cores)
 *   -w  untimed messages each sender sends first (default 1000, or 100
 *       when ranks outnumber cores)
 *   -W  nanoseconds rank 0 works on each message after receiving it
 *       (default 0)
 *
 * Message i of a sender holds i (8 bytes).  Rank 0 receives (P-1) n
 * messages with MPI_ANY_SOURCE and checks, by the status's source, that
 * each sender's messages arrive in the order sent (MPI's non-overtaking
 * rule holds per sender, whatever the interleaving).
 * rate = messages/s received by rank 0.
 */
#include "bench_common.h"

#include <unistd.h>

#define KERNEL "incast"
#define TAG 1

/* Returns how many messages arrived out of order or wrong (0 on senders).
 * next[s] is the value expected next from sender s. */
static long long run(int rank, int size, long long n, long long work_ns,
                     long long *next)
{
    if (rank != 0) {
        for (long long i = 0; i < n; i++) {
            uint64_t v = (uint64_t)i;
            MPI_Send(&v, 1, MPI_UINT64_T, 0, TAG, MPI_COMM_WORLD);
        }
        return 0;
    }
    long long bad = 0, total = (long long)(size - 1) * n;
    for (int s = 0; s < size; s++)
        next[s] = 0;
    for (long long k = 0; k < total; k++) {
        uint64_t v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_UINT64_T, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD,
                 &st);
        bad += v != (uint64_t)next[st.MPI_SOURCE]++;
        bench_spin_ns(work_ns);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n messages] [-w warmup] [-W ns]";
    long long n = -2, warm = -2, work_ns = 0;
    int opt;
    while ((opt = getopt(argc, argv, "n:w:W:")) != -1) {
        if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'W')
            work_ns = bench_parse_count(optarg, 0);
        else
            bench_usage(KERNEL, usage);
        if (n == -1 || warm == -1 || work_ns == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    int over = bench_oversubscribed();
    if (n == -2)
        n = over ? 5000 : 500000;
    if (warm == -2)
        warm = over ? 100 : 1000;
    int rank = bench_rank(), size = bench_size();
    if (size < 2)
        bench_fail(KERNEL, "needs at least 2 ranks");
    long long *next = malloc(sizeof *next * (size_t)size);
    if (!next)
        bench_fail(KERNEL, "out of memory");

    long long bad = 0;
    if (warm > 0)
        bad += run(rank, size, warm, work_ns, next);
    bench_clock clk;
    bench_clock_start(&clk);
    bad += run(rank, size, n, work_ns, next);
    double elapsed = bench_clock_stop(&clk);

    if (bad)
        bench_check_failed(KERNEL, "%lld messages arrived out of order or "
                           "wrong", bad);
    bench_verdict();
    double msgs = (double)(size - 1) * (double)n;
    char extra[160 + BENCH_CPU_KEY], cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk,
                  rank == 0 ? BENCH_SIDE_RECV : BENCH_SIDE_SEND, msgs);
    snprintf(extra, sizeof extra, " senders=%d n=%lld work_ns=%lld "
             "seconds=%.4f%s", size - 1, n, work_ns, elapsed, cpu);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    free(next);
    MPI_Finalize();
    return 0;
}
