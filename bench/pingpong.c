/* pingpong: one-way latency of blocking MPI_Send / MPI_Recv round trips.
 *
 * Usage: pingpong [-s size] [-n round trips] [-t milliseconds] [-b batches]
 *                 [-w warmup round trips] [-R] [-H] [-B bytes]
 *   -s  message size in bytes, K/M suffixes allowed, 1 .. 64M (default 8)
 *   -n  least round trips per batch (default 100, or 1 when ranks outnumber
 *       cores)
 *   -t  least milliseconds per batch (default 20)
 *   -b  timed batches; the figure is their median (default 9, or 5 when
 *       ranks outnumber cores)
 *   -w  untimed round trips first (default 100, or 4 when ranks outnumber
 *       cores: then a round trip can cost two scheduler time slices)
 *   -R  osu_latency's shape: each side sends from one buffer and receives
 *       into another, and neither is touched between round trips, so the
 *       data sent is never freshly written (by default each side sends on
 *       what it just received, as a program forwards data it was given);
 *       the receive buffers are checked in full after the last round trip
 *   -H  the "hand-aggregated" variant, accepted so that every kernel takes
 *       the same options, and run exactly as the plain one (the RESULT line
 *       says variant=hand): a round trip waits for its one message before
 *       the next is written, so there is never a second message to put in
 *       the same buffer, and aggregating by hand would change nothing
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 8 .. 64M
 *       (default 16384); checked and otherwise ignored, for the same reason
 *
 * A batch lasts for at least -n round trips and -t milliseconds, whichever
 * ends later, so one setting fits a 0.2 us shared-memory round trip and a
 * 10 ms one between oversubscribed ranks alike: a fixed count would either
 * take minutes there or, here, end inside one scheduler time slice and
 * measure the scheduler's luck.  The active side decides, looking at the
 * clock every 16 round trips (so the clock costs nothing measurable), and
 * sends the batch's last message with its own tag; the passive side
 * receives with MPI_ANY_TAG and echoes with the tag it got.
 *
 * Ranks form pairs (i, i + P/2) that all ping-pong at once.  Each pair takes
 * the median over batches of batch time / (2 * round trips); the figure, in
 * microseconds, is the slowest pair's, since with more ranks than cores one
 * pair can be fast while the others wait for the scheduler (pair0_us is pair
 * 0's, min_us the fastest batch of any pair).  Every message carries its
 * round-trip number in its first and last 8 bytes (or in all of its bytes
 * when it is shorter), checked at both ends; the bytes between carry a fixed
 * pattern, checked in full after the last round trip (under -R every byte
 * carries the pattern, and only that check is made).
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "pingpong"
#define TAG_PING 1
#define TAG_LAST 2
#define CLOCK_EVERY 16
#define MAX_SIZE (64LL * 1024 * 1024)

static unsigned char pattern_byte(size_t i)
{
    return (unsigned char)(i * 131 + 7);
}

typedef struct {
    int peer, active;
    int osu;            /* -R: send from buf, receive into rbuf, unstamped */
    unsigned char *buf;
    unsigned char *rbuf; /* buf, or under -R a buffer of its own */
    size_t size;
    long long it;  /* round trips so far, the stamp of the next one */
    long long bad; /* round trips that arrived with the wrong stamp */
} pp_state;

/* Runs one batch of at least min_n round trips lasting at least min_seconds
 * (as the active side decides); returns one-way latency in microseconds. */
static double batch(pp_state *s, long long min_n, double min_seconds)
{
    int count = (int)s->size;
    long long done = 0;
    double t0 = MPI_Wtime();
    for (int last = 0; !last;) {
        if (s->active) {
            int tag = TAG_PING;
            long long next = done + 1;
            if (next >= min_n &&
                (min_seconds <= 0 ||
                 (next % CLOCK_EVERY == 0 && MPI_Wtime() - t0 >= min_seconds)))
                tag = TAG_LAST;
            if (!s->osu)
                bench_stamp(s->buf, s->size, (uint64_t)s->it);
            MPI_Send(s->buf, count, MPI_BYTE, s->peer, tag, MPI_COMM_WORLD);
            MPI_Recv(s->rbuf, count, MPI_BYTE, s->peer, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            last = tag == TAG_LAST;
        } else {
            MPI_Status st;
            MPI_Recv(s->rbuf, count, MPI_BYTE, s->peer, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &st);
            MPI_Send(s->buf, count, MPI_BYTE, s->peer, st.MPI_TAG,
                     MPI_COMM_WORLD);
            last = st.MPI_TAG == TAG_LAST;
        }
        if (!s->osu)
            s->bad += !bench_stamped(s->buf, s->size, (uint64_t)s->it);
        s->it++;
        done++;
    }
    return (MPI_Wtime() - t0) / (2.0 * (double)done) * 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-s size] [-n round trips] [-t milliseconds] "
                        "[-b batches] [-w warmup round trips] [-R] [-H] "
                        "[-B bytes]";
    /* -2: not given; -1: malformed */
    long long size = 8, n = -2, ms = 20, batches = -2, warm = -2;
    long long bufbytes = 16384;
    int hand = 0, osu = 0;
    int opt;
    while ((opt = getopt(argc, argv, "s:n:t:b:w:RHB:")) != -1) {
        if (opt == 's')
            size = bench_parse_count(optarg, 1);
        else if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 't')
            ms = bench_parse_count(optarg, 0);
        else if (opt == 'b')
            batches = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'R')
            osu = 1;
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 8);
        else
            bench_usage(KERNEL, usage);
        if (size == -1 || size > MAX_SIZE || n == -1 || ms == -1 ||
            batches == -1 || batches > 1000 || warm == -1 || bufbytes == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    if (n == -2 || batches == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 1 : 100;
        if (batches == -2)
            batches = over ? 5 : 9;
        if (warm == -2)
            warm = over ? 4 : 100;
    }
    int rank = bench_rank(), nranks = bench_size();
    bench_require_two_ranks(KERNEL);

    pp_state s = {0};
    s.peer = bench_pair_peer(rank, nranks);
    s.active = rank < nranks / 2;
    s.size = (size_t)size;
    s.osu = osu;
    s.buf = malloc(s.size);
    s.rbuf = osu ? malloc(s.size) : s.buf;
    double *lat = malloc((size_t)batches * sizeof *lat);
    if (!s.buf || !s.rbuf || !lat)
        bench_fail(KERNEL, "out of memory for %lld bytes", size);
    /* The passive side starts from zeros, so its final check of the pattern
     * sees bytes that travelled, not its own initial fill; under -R both
     * send the pattern and both receive into zeros. */
    for (size_t i = 0; i < s.size; i++) {
        s.buf[i] = s.active || osu ? pattern_byte(i) : 0;
        if (osu)
            s.rbuf[i] = 0;
    }

    if (s.peer >= 0 && warm > 0)
        batch(&s, warm, 0);
    long long trips_warm = s.it;
    bench_clock clk;
    bench_clock_start(&clk);
    /* Only the active side's clock counts: the passive side's batches end
     * half a round trip early. */
    double my_median = 0, my_min = 1e300;
    if (s.peer >= 0) {
        for (long long b = 0; b < batches; b++)
            lat[b] = batch(&s, n, (double)ms / 1000.0);
        qsort(lat, (size_t)batches, sizeof *lat, cmp_double);
        if (s.active) {
            my_median = lat[batches / 2];
            my_min = lat[0];
        }
        size_t lo = osu ? 0 : s.size < 8 ? s.size : 8;
        size_t hi = osu ? s.size : s.size < 16 ? s.size : s.size - 8;
        for (size_t i = lo; i < hi; i++)
            s.bad += s.rbuf[i] != pattern_byte(i);
    }
    bench_clock_stop(&clk);

    if (s.bad)
        bench_check_failed(KERNEL, "%lld messages or bytes from rank %d were "
                           "wrong", s.bad, s.peer);
    bench_verdict();
    double max_median, min_batch;
    MPI_Reduce(&my_median, &max_median, 1, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(&my_min, &min_batch, 1, MPI_DOUBLE, MPI_MIN, 0,
               MPI_COMM_WORLD);
    /* Messages: two per round trip of the active sides, all pairs. */
    double trips = s.active ? (double)(s.it - trips_warm) : 0, all_trips;
    MPI_Allreduce(&trips, &all_trips, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    char extra[192 + BENCH_CPU_KEY], cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, s.peer < 0 ? BENCH_SIDE_IDLE : BENCH_SIDE_BOTH,
                  2 * all_trips);
    snprintf(extra, sizeof extra, " variant=%s size=%lld pairs=%d "
             "batches=%lld min_n=%lld min_ms=%lld pair0_us=%.4g min_us=%.4g%s",
             hand ? "hand" : "plain", size, nranks / 2, batches, n, ms,
             my_median, min_batch, cpu);
    bench_result(KERNEL, max_median, "us", extra);
    if (s.rbuf != s.buf)
        free(s.rbuf);
    free(s.buf);
    free(lat);
    MPI_Finalize();
    return 0;
}
