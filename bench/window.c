/* window: osu_mbw_mr-style message rate, nonblocking sends in windows.
 *
 * Usage: window [-n windows] [-W window] [-w warmup windows] [-H] [-B bytes]
 *   -n  windows per pair in the timed section (default 50000, or 50 when
 *       ranks outnumber cores)
 *   -W  messages per window (default 64, as in osu_mbw_mr)
 *   -w  untimed windows first (default 100, or 2 when ranks outnumber cores)
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 8 .. 64M
 *       (default 16384); a chunk holds min(W, B / 8) values
 *
 * Ranks form pairs (i, i + P/2).  Plain: per window the sender posts W
 * MPI_Isend of 8 bytes and waits for all; the receiver posts W MPI_Irecv,
 * waits for all, checks that message j of window k holds k*W + j and answers
 * with a 4-byte ack that the sender receives before its next window.
 * Hand (-H): what a programmer gets by aggregating by hand.  The sender
 * writes the W values of a window one after the other into its buffer and
 * sends every B bytes of it (and the rest at the end of the window) as one
 * MPI_Isend, so the default window of 64 values goes as one 512-byte message;
 * the receiver posts the matching MPI_Irecv, checks each chunk's length and
 * the same values, and answers with the same ack per window.  All the chunks
 * of a window are in flight at once, as the plain variant's W messages are:
 * a window needs them all before its ack, so there is nothing to gain from
 * blocking sends or from reusing a smaller buffer.
 * rate = 8-byte values (messages of the plain variant)/s summed over pairs.
 */
#include "bench_agg.h"

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

/* The hand-aggregated variant: chunks of `per` values; reqs and sts have
 * room for the ceil(w / per) chunks of a window. */
static long long run_hand(int peer, int sender, long long windows, int w,
                          int per, uint64_t *buf, MPI_Request *reqs,
                          MPI_Status *sts)
{
    long long bad = 0;
    int chunks = (w + per - 1) / per;
    for (long long k = 0; k < windows; k++) {
        int32_t ack = 0;
        if (sender) {
            for (int c = 0; c < chunks; c++) {
                int first = c * per, len = w - first < per ? w - first : per;
                for (int j = first; j < first + len; j++)
                    buf[j] = (uint64_t)(k * w + j);
                MPI_Isend(&buf[first], len, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[c]);
            }
            MPI_Waitall(chunks, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            for (int c = 0; c < chunks; c++) {
                int first = c * per, len = w - first < per ? w - first : per;
                MPI_Irecv(&buf[first], len, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[c]);
            }
            MPI_Waitall(chunks, reqs, sts);
            for (int c = 0; c < chunks; c++) {
                int first = c * per, len = w - first < per ? w - first : per;
                int got;
                MPI_Get_count(&sts[c], MPI_UINT64_T, &got);
                if (got != len) {
                    bad += len; /* a chunk is not what was sent */
                    continue;
                }
                for (int j = first; j < first + len; j++)
                    bad += buf[j] != (uint64_t)(k * w + j);
            }
            MPI_Send(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n windows] [-W window] [-w warmup windows] [-H] "
                        "[-B bytes]";
    /* -2: not given; -1: malformed */
    long long windows = -2, warm = -2, w = 64, bufbytes = 16384;
    int hand = 0;
    int opt;
    while ((opt = getopt(argc, argv, "n:W:w:HB:")) != -1) {
        if (opt == 'n')
            windows = bench_parse_count(optarg, 1);
        else if (opt == 'W')
            w = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 8);
        else
            bench_usage(KERNEL, usage);
        if (windows == -1 || w == -1 || w > 1 << 20 || warm == -1 ||
            bufbytes == -1)
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
    /* Values per chunk of -H: never more than a window. */
    int per = bufbytes / 8 < w ? (int)(bufbytes / 8) : (int)w;
    MPI_Status *sts = hand ? malloc((size_t)w * sizeof *sts) : NULL;
    if (!buf || !reqs || (hand && !sts))
        bench_fail(KERNEL, "out of memory for a window of %lld", w);

    long long bad = 0;
    if (peer >= 0 && warm > 0)
        bad += hand ? run_hand(peer, sender, warm, (int)w, per, buf, reqs, sts)
                    : run(peer, sender, warm, (int)w, buf, reqs);
    bench_clock clk;
    bench_clock_start(&clk);
    if (peer >= 0)
        bad += hand ? run_hand(peer, sender, windows, (int)w, per, buf, reqs,
                               sts)
                    : run(peer, sender, windows, (int)w, buf, reqs);
    double elapsed = bench_clock_stop(&clk);

    if (bad)
        bench_check_failed(KERNEL, "%lld of the values from rank %d were "
                           "wrong or out of order", bad, peer);
    bench_verdict();
    int pairs = size / 2;
    double msgs = (double)pairs * (double)windows * (double)w;
    char extra[192 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, bench_pair_side(peer, sender), msgs);
    snprintf(extra, sizeof extra, " variant=%s pairs=%d windows=%lld "
             "window=%lld%s seconds=%.4f%s", hand ? "hand" : "plain", pairs,
             windows, w,
             bench_agg_buffer_key(buffer, hand, (long long)per * 8), elapsed,
             cpu);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    free(buf);
    free(reqs);
    free(sts);
    MPI_Finalize();
    return 0;
}
