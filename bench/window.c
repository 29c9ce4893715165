/* window: osu_mbw_mr-style message rate, nonblocking sends in windows.
 *
 * Usage: window [-n windows] [-W window] [-w warmup windows]
 *   -n  windows per pair in the timed section (default 50000, or 50 when
 *       ranks outnumber cores)
 *   -W  messages per window (default 64, as in osu_mbw_mr)
 *   -w  untimed windows first (default 100, or 2 when ranks outnumber cores)
 *
 * Ranks form pairs (i, i + P/2).  Per window the sender posts W MPI_Isend of
 * 8 bytes and waits for all; the receiver posts W MPI_Irecv, waits for all,
 * checks that message j of window k holds k*W + j and answers with a 4-byte
 * ack that the sender receives before its next window.  rate = messages/s
 * summed over pairs.
 */
#include "bench_common.h"

#include <unistd.h>

#define KERNEL "window"
#define TAG_DATA 1
#define TAG_ACK 2

static long long run(int peer, int sender, long long windows, int w,
                     uint64_t *buf, MPI_Request *reqs)
{
    long long bad = 0;
    for (long long k = 0; k < windows; k++) {
        int32_t ack = 0;
        if (sender) {
            for (int j = 0; j < w; j++) {
                buf[j] = (uint64_t)(k * w + j);
                MPI_Isend(&buf[j], 1, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[j]);
            }
            MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < w; j++)
                MPI_Irecv(&buf[j], 1, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[j]);
            MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
            for (int j = 0; j < w; j++)
                bad += buf[j] != (uint64_t)(k * w + j);
            MPI_Send(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n windows] [-W window] [-w warmup windows]";
    /* -2: not given; -1: malformed */
    long long windows = -2, warm = -2, w = 64;
    int opt;
    while ((opt = getopt(argc, argv, "n:W:w:")) != -1) {
        if (opt == 'n')
            windows = bench_parse_count(optarg, 1);
        else if (opt == 'W')
            w = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else
            bench_usage(KERNEL, usage);
        if (windows == -1 || w == -1 || w > 1 << 20 || warm == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    if (windows == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (windows == -2)
            windows = over ? 50 : 50000;
        if (warm == -2)
            warm = over ? 2 : 100;
    }
    int rank = bench_rank(), size = bench_size();
    bench_require_two_ranks(KERNEL);
    int peer = bench_pair_peer(rank, size);
    int sender = rank < size / 2;
    uint64_t *buf = malloc((size_t)w * sizeof *buf);
    MPI_Request *reqs = malloc((size_t)w * sizeof *reqs);
    if (!buf || !reqs)
        bench_fail(KERNEL, "out of memory for a window of %lld", w);

    long long bad = 0;
    if (peer >= 0 && warm > 0)
        bad += run(peer, sender, warm, (int)w, buf, reqs);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (peer >= 0)
        bad += run(peer, sender, windows, (int)w, buf, reqs);
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - t0;

    if (bad)
        bench_check_failed(KERNEL, "%lld of the values from rank %d were "
                           "wrong or out of order", bad, peer);
    bench_verdict();
    int pairs = size / 2;
    double msgs = (double)pairs * (double)windows * (double)w;
    char extra[128];
    snprintf(extra, sizeof extra, " pairs=%d windows=%lld window=%lld "
             "seconds=%.4f", pairs, windows, w, elapsed);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    free(buf);
    free(reqs);
    MPI_Finalize();
    return 0;
}
