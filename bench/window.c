/* window: osu_mbw_mr / osu_bw-style message rate, nonblocking sends in
 * windows.
 *
 * Usage: window [-s bytes] [-n windows] [-W window] [-w warmup windows] [-H]
 *               [-B bytes]
 *   -s  bytes per message, a multiple of 8, 8 .. 64M, K/M suffixes allowed
 *       (default 8)
 *   -n  windows per pair in the timed section (default 50000 for 8-byte
 *       messages, fewer for larger ones so that a run moves about 2 GiB, at
 *       least 20; 50 when ranks outnumber cores)
 *   -W  messages per window (default 64, as in osu_mbw_mr and osu_bw)
 *   -w  untimed windows first (default 100, or 2 when ranks outnumber cores;
 *       at most -n for messages from 64 KiB)
 *   -R  every message of a window from one send slot into one receive slot,
 *       as osu_bw does (caches then hold the slots from 16 KiB to about
 *       1 MiB); only the last message of a window is checked
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 8 .. 64M
 *       (default 16384); a chunk holds max(1, min(W, B / s)) messages
 *
 * Ranks form pairs (i, i + P/2).  Plain: per window the sender posts W
 * MPI_Isend of s bytes, each from its own slot of a W * s buffer, and waits
 * for all; the receiver posts W MPI_Irecv into its own slots, waits for
 * all, checks that message j of window k holds k*W + j in its first and
 * last 8-byte words and answers with a 4-byte ack that the sender receives
 * before its next window.  The words between carry a fixed pattern, checked
 * in full in the last window.
 * Hand (-H): what a programmer gets by aggregating by hand.  The sender
 * writes the W messages of a window one after the other into its buffer and
 * sends every chunk of them (and the rest at the end of the window) as one
 * MPI_Isend, so the default window of 64 8-byte values goes as one 512-byte
 * message; the receiver posts the matching MPI_Irecv, checks each chunk's
 * length and the same values, and answers with the same ack per window.
 * All the chunks of a window are in flight at once, as the plain variant's
 * W messages are: a window needs them all before its ack, so there is
 * nothing to gain from blocking sends or from reusing a smaller buffer.
 * From B / s < 2 on a chunk is one message and -H runs the plain exchange.
 * rate = messages of the plain variant/s summed over pairs; bw = their
 * bytes/s.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "window"
#define TAG_DATA 1
#define TAG_ACK 2

#define MAX_BYTES (64LL * 1024 * 1024)

/* The fixed pattern of word i (not the first or last) of message slot j. */
static uint64_t pattern(long long j, long long i)
{
    return (uint64_t)j * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
}

static void fill_patterns(unsigned char *buf, int w, long long s)
{
    long long words = s / 8;
    for (int j = 0; j < w; j++)
        for (long long i = 1; i + 1 < words; i++) {
            uint64_t v = pattern(j, i);
            memcpy(buf + j * s + i * 8, &v, 8);
        }
}

/* Returns how many words of message slot j are wrong, counting a wrong
 * stamp (bench_stamp: v at both ends) as one; the pattern words between
 * only when `full`. */
static long long check(const unsigned char *msg, long long s, int j,
                       uint64_t v, int full)
{
    long long bad = !bench_stamped(msg, (size_t)s, v), words = s / 8;
    uint64_t got;
    for (long long i = 1; full && i + 1 < words; i++) {
        memcpy(&got, msg + i * 8, 8);
        bad += got != pattern(j, i);
    }
    return bad;
}

/* `windows` windows of w messages of s bytes in chunks of `per` messages
 * (1 for the plain variant); reqs and sts have room for a window's
 * ceil(w / per) chunks.  Returns the number of wrong words (0 on the
 * sender); the last window is checked in full. */
static long long run(int peer, int sender, long long windows, int w, int per,
                     long long s, int reuse, unsigned char *buf,
                     MPI_Request *reqs, MPI_Status *sts)
{
    long long bad = 0;
    int chunks = (w + per - 1) / per;
    for (long long k = 0; k < windows; k++) {
        int32_t ack = 0;
        for (int c = 0; c < chunks; c++) {
            int first = c * per, len = w - first < per ? w - first : per;
            unsigned char *at = reuse ? buf : buf + first * s;
            if (sender) {
                for (int j = first; j < first + len; j++)
                    if (!reuse || j + 1 == w)
                        bench_stamp(reuse ? buf : buf + j * s, (size_t)s,
                                    (uint64_t)(k * w + j));
                MPI_Isend(at, (int)(len * s), MPI_BYTE, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[c]);
            } else {
                MPI_Irecv(at, (int)(len * s), MPI_BYTE, peer, TAG_DATA,
                          MPI_COMM_WORLD, &reqs[c]);
            }
        }
        MPI_Waitall(chunks, reqs, sender ? MPI_STATUSES_IGNORE : sts);
        if (sender) {
            MPI_Recv(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            continue;
        }
        for (int c = 0; c < chunks; c++) {
            int first = c * per, len = w - first < per ? w - first : per;
            int got;
            MPI_Get_count(&sts[c], MPI_BYTE, &got);
            if (got != len * s) {
                bad += len; /* a chunk is not what was sent */
                continue;
            }
            for (int j = reuse ? w - 1 : first; j < first + len; j++)
                bad += check(reuse ? buf : buf + j * s, s, reuse ? 0 : j,
                             (uint64_t)(k * w + j), k + 1 == windows);
        }
        MPI_Send(&ack, 1, MPI_INT32_T, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-s bytes] [-n windows] [-W window] "
                        "[-w warmup windows] [-R] [-H] [-B bytes]";
    /* -2: not given; -1: malformed */
    long long windows = -2, warm = -2, w = 64, bufbytes = 16384, s = 8;
    int hand = 0, reuse = 0;
    int opt;
    while ((opt = getopt(argc, argv, "s:n:W:w:RHB:")) != -1) {
        if (opt == 's')
            s = bench_parse_count(optarg, 8);
        else if (opt == 'n')
            windows = bench_parse_count(optarg, 1);
        else if (opt == 'W')
            w = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'R')
            reuse = 1;
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 8);
        else
            bench_usage(KERNEL, usage);
        if (windows == -1 || w == -1 || w > 1 << 20 || warm == -1 ||
            bufbytes == -1 || s == -1 || s % 8 || s > MAX_BYTES)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc || w * s > (1LL << 31) - 1 || (reuse && hand))
        bench_usage(KERNEL, usage);
    int over = bench_oversubscribed();
    if (windows == -2) {
        long long fit = (2LL << 30) / (w * s);
        windows = over ? 50 : fit > 50000 ? 50000 : fit < 20 ? 20 : fit;
    }
    if (warm == -2) {
        warm = over ? 2 : 100;
        if (s >= 65536 && warm > windows)
            warm = windows;
    }
    int rank = bench_rank(), size = bench_size();
    bench_require_two_ranks(KERNEL);
    int peer = bench_pair_peer(rank, size);
    int sender = rank < size / 2;
    /* Messages per chunk: one for the plain variant, never more than a
     * window for -H. */
    int per = 1;
    if (hand)
        per = bufbytes / s < w ? (int)(bufbytes / s) : (int)w;
    if (per < 1)
        per = 1;
    unsigned char *buf = malloc((size_t)(w * s));
    MPI_Request *reqs = malloc((size_t)w * sizeof *reqs);
    MPI_Status *sts = malloc((size_t)w * sizeof *sts);
    if (!buf || !reqs || !sts)
        bench_fail(KERNEL, "out of memory for a window of %lld messages of "
                   "%lld bytes", w, s);
    memset(buf, 0, (size_t)(w * s));
    if (sender)
        fill_patterns(buf, reuse ? 1 : (int)w, s);

    long long bad = 0;
    if (peer >= 0 && warm > 0)
        bad += run(peer, sender, warm, (int)w, per, s, reuse, buf, reqs, sts);
    bench_clock clk;
    bench_clock_start(&clk);
    if (peer >= 0)
        bad += run(peer, sender, windows, (int)w, per, s, reuse, buf, reqs,
                   sts);
    double elapsed = bench_clock_stop(&clk);

    if (bad)
        bench_check_failed(KERNEL, "%lld of the words from rank %d were "
                           "wrong or out of order", bad, peer);
    bench_verdict();
    int pairs = size / 2;
    double msgs = (double)pairs * (double)windows * (double)w;
    char extra[224 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, bench_pair_side(peer, sender), msgs);
    snprintf(extra, sizeof extra, " variant=%s%s size=%lld pairs=%d "
             "windows=%lld window=%lld bw=%.4g%s seconds=%.4f%s",
             hand ? "hand" : "plain", reuse ? " slots=one" : "", s, pairs,
             windows, w,
             msgs * (double)s / elapsed,
             bench_agg_buffer_key(buffer, hand, (long long)per * s), elapsed,
             cpu);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    free(buf);
    free(reqs);
    free(sts);
    MPI_Finalize();
    return 0;
}
