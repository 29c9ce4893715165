/* stream: 8-byte MPI_Send / MPI_Recv stream, the finest-grained traffic there
 * is and the first target of aggregation (issue 2, targets).
 *
 * Usage: stream [-n messages] [-w warmup]
 *   -n  messages per pair in the timed section (default 2000000, or 20000
 *       when ranks outnumber cores)
 *   -w  untimed messages first, so connections exist (default 10000, or 100
 *       when ranks outnumber cores)
 *
 * Ranks form pairs (i, i + P/2) and every pair streams at once; the sender
 * posts N blocking sends of the values 0..N-1, the receiver checks each value
 * in order (MPI's non-overtaking rule) and answers with one ack, which the
 * sender awaits so the timed section covers delivery.  rate = messages/s
 * summed over pairs.
 */
#include "bench_common.h"

#include <unistd.h>

#define KERNEL "stream"
#define TAG_DATA 1
#define TAG_ACK 2

/* Returns how many values arrived out of order or wrong (0 on the sender). */
static long long run(int peer, int sender, long long n)
{
    long long bad = 0;
    if (sender) {
        for (long long i = 0; i < n; i++) {
            uint64_t v = (uint64_t)i;
            MPI_Send(&v, 1, MPI_UINT64_T, peer, TAG_DATA, MPI_COMM_WORLD);
        }
        long long peer_bad;
        MPI_Recv(&peer_bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        for (long long i = 0; i < n; i++) {
            uint64_t v;
            MPI_Recv(&v, 1, MPI_UINT64_T, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            bad += v != (uint64_t)i;
        }
        MPI_Send(&bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n messages] [-w warmup]";
    long long n = -2, warm = -2; /* -2: not given; -1: malformed */
    int opt;
    while ((opt = getopt(argc, argv, "n:w:")) != -1) {
        if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else
            bench_usage(KERNEL, usage);
        if (n == -1 || warm == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 20000 : 2000000;
        if (warm == -2)
            warm = over ? 100 : 10000;
    }
    int rank = bench_rank(), size = bench_size();
    bench_require_two_ranks(KERNEL);
    int peer = bench_pair_peer(rank, size);
    int sender = rank < size / 2;

    long long bad = 0;
    if (peer >= 0 && warm > 0)
        bad += run(peer, sender, warm);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (peer >= 0)
        bad += run(peer, sender, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - t0;

    if (bad)
        bench_check_failed(KERNEL, "%lld of the values from rank %d were "
                           "wrong or out of order", bad, peer);
    bench_verdict();
    int pairs = size / 2;
    char extra[96];
    snprintf(extra, sizeof extra, " pairs=%d n=%lld seconds=%.4f", pairs, n,
             elapsed);
    bench_result(KERNEL, (double)pairs * (double)n / elapsed, "msgs/s", extra);
    MPI_Finalize();
    return 0;
}
