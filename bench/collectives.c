/* collectives: the latency of a small blocking collective, as solvers call
 * them (HPCG's dot products: an MPI_Allreduce of one double per call).
 *
 * Usage: collectives [-b | -S] [-s bytes] [-n iterations] [-w warmup] [-N]
 *   -b  MPI_Barrier instead of MPI_Allreduce
 *   -S  MPI_Scan(MPI_SUM) of s / 8 64-bit integers instead (the prefix
 *       sums that place each rank's share of a distributed array)
 *   -s  bytes reduced per call, a multiple of 8, 8 .. 1M (default 8): an
 *       MPI_Allreduce(MPI_SUM) of s / 8 doubles
 *   -n  timed calls (default 20000; 200 when ranks outnumber cores)
 *   -w  untimed calls first (default 1000; 20 when oversubscribed)
 *   -N  the nonblocking form and MPI_Wait (MPI_Iallreduce, MPI_Ibarrier,
 *       MPI_Iscan):
 *       under plain MPICH it shows what that form costs, which is what
 *       Omnibus paid for every blocking collective before it ran the small
 *       ones itself
 *
 * Checks: every call's result is the sum over ranks of what each put in
 * (rank r's element k of call i is r + k + i, exact in a double), over
 * ranks 0..me for a scan, checked element by element on every rank.  rate = microseconds per call (the
 * timed loop between barriers, divided by -n).  The RESULT line also gives
 * colls= (calls run, warm-up included), from which scripts/measure/bench computes
 * Omnibus's wire messages per rank per call.
 */
#include "bench_common.h"

#define KERNEL "collectives"
#define MAX_BYTES (1LL << 20)

static int barrier_only, scan, nonblocking;

static void one_call(double *in, double *out, int n)
{
    MPI_Request req;
    if (scan && nonblocking) {
        MPI_Iscan(in, out, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (scan) {
        MPI_Scan(in, out, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    } else if (barrier_only && nonblocking) {
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (barrier_only) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (nonblocking) {
        MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* Call i's inputs, and a check of its result on this rank: the sum over
 * `size` ranks (for a scan, ranks 0..me, so size is me + 1).  A scan's
 * buffers hold int64_t in the same 8 bytes per element. */
static void fill(double *in, int n, int me, long long i)
{
    for (int k = 0; k < n; k++) {
        if (scan)
            ((int64_t *)in)[k] = me + k + i % 1000;
        else
            in[k] = (double)(me + k + i % 1000);
    }
}

static void check(const double *out, int n, int size, long long i)
{
    for (int k = 0; k < n; k++) {
        double want = (double)size * (size - 1) / 2 +
                      (double)size * (double)(k + i % 1000);
        double got = scan ? (double)((const int64_t *)out)[k] : out[k];
        if (got != want) {
            bench_check_failed(KERNEL, "call %lld, element %d: the sum over "
                               "ranks should be %g, got %g", i, k, want,
                               got);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_require_two_ranks(KERNEL);
    int me = bench_rank(), size = bench_size();
    const char *usage = "[-b | -S] [-s bytes] [-n iterations] [-w warmup] [-N]";
    long long bytes = 8, iters = -1, warm = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-b"))
            barrier_only = 1;
        else if (!strcmp(argv[i], "-S"))
            scan = 1;
        else if (!strcmp(argv[i], "-N"))
            nonblocking = 1;
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            bytes = bench_parse_count(argv[++i], 8);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            iters = bench_parse_count(argv[++i], 1);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc)
            warm = bench_parse_count(argv[++i], 0);
        else
            bench_usage(KERNEL, usage);
    }
    if (bytes < 8 || bytes > MAX_BYTES || bytes % 8 || iters == 0 ||
        (scan && barrier_only))
        bench_usage(KERNEL, usage);
    int over = bench_oversubscribed();
    if (iters < 0)
        iters = over ? 200 : 20000;
    if (warm < 0)
        warm = over ? 20 : 1000;
    int n = (int)(bytes / 8);
    double *in = malloc(sizeof(double) * (size_t)n);
    double *out = malloc(sizeof(double) * (size_t)n);
    if (!in || !out)
        bench_fail(KERNEL, "out of memory");

    for (long long i = 0; i < warm; i++) {
        fill(in, n, me, i);
        one_call(in, out, n);
        if (!barrier_only)
            check(out, n, scan ? me + 1 : size, i);
    }
    bench_clock c;
    bench_clock_start(&c);
    for (long long i = 0; i < iters; i++) {
        fill(in, n, me, warm + i);
        one_call(in, out, n);
        if (!barrier_only)
            check(out, n, scan ? me + 1 : size, warm + i);
    }
    double seconds = bench_clock_stop(&c);
    char cpu[BENCH_CPU_KEY], extra[160];
    bench_cpu_key(cpu, &c, BENCH_SIDE_BOTH, (double)iters);
    bench_verdict();
    snprintf(extra, sizeof extra, " form=%s%s bytes=%lld colls=%lld%s",
             barrier_only ? "barrier" : scan ? "scan" : "allreduce",
             nonblocking ? "-nonblocking" : "", barrier_only ? 0 : bytes,
             warm + iters, cpu);
    bench_result(KERNEL, seconds / (double)iters * 1e6, "us", extra);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
