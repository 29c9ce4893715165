/* stream: a one-way stream of small MPI_Send / MPI_Recv messages (8 bytes by
 * default), the finest-grained traffic there is and the first target of
 * aggregation (its targets: bench/results/log.md, 2026-11-26).
 *
 * Usage: stream [-n messages] [-w warmup] [-s bytes] [-H] [-B bytes] [-W ns]
 *               [-p pairs] [-L ms] [-M]
 *   -n  messages per pair in the timed section (default 2000000, or 20000
 *       when ranks outnumber cores)
 *   -w  untimed messages first, so connections exist (default 10000, or 100
 *       when ranks outnumber cores)
 *   -s  bytes per message, a multiple of 8, 8 .. 64M, K/M suffixes allowed
 *       (default 8)
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 8 .. 64M
 *       (default 16384); a buffer holds max(1, B / s) messages
 *   -W  nanoseconds the receiver works on each message after receiving it
 *       (plain variant; default 0), as a program that applies every update
 *       does: a receiver slower than its sender, the case flow control is
 *       for
 *   -p  how many pairs stream (default all); the other ranks wait in the
 *       barrier that ends the timed section, as the rest of a large job
 *       that leaves two ranks talking
 *   -L  milliseconds the receivers are busy when the stream starts: each
 *       first waits in MPI_Recv for a token that the last rank, which must
 *       be in no pair (an odd count, or -p), sends after sleeping that
 *       long; a receiver inside a call that waits for someone else when its
 *       sender's window fills
 *   -M  mirrored pairs (i, P-1-i) instead (not with -p or -L): on a grid of
 *       sides 2 every pair is as many hops apart as the grid has
 *       dimensions, so every message passes relays
 *
 * Ranks form pairs (i, i + P/2) and every pair streams at once.  Message i
 * (counting from 0 over the warmup and the timed run apart) holds i in its
 * first 8-byte word and i * 0x9e3779b97f4a7c15 + j in its word j, so every
 * byte is checked.  Plain: the sender posts N blocking sends of s bytes, the
 * receiver posts N blocking receives and checks each message in order
 * (MPI's non-overtaking rule).  Hand (-H): what a programmer gets by
 * aggregating by hand.  The sender writes the same messages one after the
 * other into a B-byte buffer and sends the buffer as one MPI message when it
 * is full and at the end; the receiver knows how many buffers come and how
 * full each is, keeps two receives posted and checks every message in each.
 * Either way the receiver answers with one ack at the end, which the sender
 * awaits so the timed section covers delivery.
 * rate = s-byte messages/s summed over pairs; bw = bytes/s of those
 * messages.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "stream"
#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_LATE 3
#define MAX_BYTES (64LL * 1024 * 1024)

/* -W: the receiver's work per message, in nanoseconds. */
static long long work_ns;

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
            bench_spin_ns(work_ns);
        }
        MPI_Send(&bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

/* Word j >= 1 of message i. */
static inline uint64_t payload(uint64_t i, uint64_t j)
{
    return i * 0x9e3779b97f4a7c15ULL + j;
}

static inline void fill(uint64_t *msg, long long words, uint64_t i)
{
    msg[0] = i;
    for (long long j = 1; j < words; j++)
        msg[j] = payload(i, (uint64_t)j);
}

/* 1 when message i is intact. */
static inline int intact(const uint64_t *msg, long long words, uint64_t i)
{
    int ok = msg[0] == i;
    for (long long j = 1; j < words; j++)
        ok &= msg[j] == payload(i, (uint64_t)j);
    return ok;
}

/* The plain variant for messages of more than 8 bytes; 8-byte messages keep
 * run() above, the baseline every figure so far was measured with.  `buf`
 * holds one message of `words` words. */
static long long run_sized(int peer, int sender, long long n, long long words,
                           uint64_t *buf)
{
    int count = (int)words;
    long long bad = 0;
    if (sender) {
        for (long long i = 0; i < n; i++) {
            fill(buf, words, (uint64_t)i);
            MPI_Send(buf, count, MPI_UINT64_T, peer, TAG_DATA, MPI_COMM_WORLD);
        }
        long long peer_bad;
        MPI_Recv(&peer_bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        for (long long i = 0; i < n; i++) {
            MPI_Recv(buf, count, MPI_UINT64_T, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            bad += !intact(buf, words, (uint64_t)i);
            bench_spin_ns(work_ns);
        }
        MPI_Send(&bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

/* The hand-aggregated variant: `per` messages of `words` words to a buffer,
 * buf[0] and buf[1] each of per * words words.
 *
 * The sender double-buffers with MPI_Isend: it fills one buffer while the
 * other is on its way, and waits for a buffer's previous send only when it
 * comes to refill it.  That is faster than the other straightforward choice,
 * a blocking MPI_Send of each full buffer (safe in this one-way stream):
 * measured here with 2 ranks, 8-byte messages in 16 KiB buffers, 50-52M
 * messages/s against 19-26M over shared memory and 43-45M against 38-40M
 * over TCP, since the blocking send leaves the sender idle while the
 * buffer's bytes are copied out.  The receiver likewise keeps two receives
 * posted, so a buffer lands in place, not in an unexpected-message queue,
 * while it checks the previous one. */
static long long run_hand(int peer, int sender, long long n, long long words,
                          long long per, uint64_t *buf[2])
{
    long long bad = 0;
    long long nbuf = (n + per - 1) / per; /* buffers sent, the last partial */
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (sender) {
        int cur = 0;
        long long used = 0; /* messages in buf[cur] */
        for (long long i = 0; i < n; i++) {
            fill(buf[cur] + used * words, words, (uint64_t)i);
            if (++used == per || i == n - 1) {
                int count = (int)(used * words);
                MPI_Isend(buf[cur], count, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &req[cur]);
                cur ^= 1;
                MPI_Wait(&req[cur], MPI_STATUS_IGNORE);
                used = 0;
            }
        }
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        long long peer_bad;
        MPI_Recv(&peer_bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        int cap = (int)(per * words);
        for (long long b = 0; b < nbuf && b < 2; b++)
            MPI_Irecv(buf[b], cap, MPI_UINT64_T, peer, TAG_DATA,
                      MPI_COMM_WORLD, &req[b]);
        for (long long b = 0; b < nbuf; b++) {
            int cur = (int)(b & 1), got;
            MPI_Status st;
            MPI_Wait(&req[cur], &st);
            MPI_Get_count(&st, MPI_UINT64_T, &got);
            long long first = b * per;
            long long want = n - first < per ? n - first : per;
            long long have = got / words;
            if (have != want || got % words != 0)
                bad += want; /* the buffer is not what was sent */
            else
                for (long long m = 0; m < have; m++)
                    bad += !intact(buf[cur] + m * words, words,
                                   (uint64_t)(first + m));
            if (b + 2 < nbuf)
                MPI_Irecv(buf[cur], cap, MPI_UINT64_T, peer, TAG_DATA,
                          MPI_COMM_WORLD, &req[cur]);
        }
        MPI_Send(&bad, 1, MPI_LONG_LONG, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

typedef struct {
    int peer, sender, hand;
    long long words, per;
    uint64_t *msg;    /* one message, plain variant with s > 8 */
    uint64_t *buf[2]; /* the two aggregation buffers of -H */
} stream_setup;

static long long run_variant(stream_setup *c, long long n)
{
    if (c->hand)
        return run_hand(c->peer, c->sender, n, c->words, c->per, c->buf);
    if (c->words == 1)
        return run(c->peer, c->sender, n);
    return run_sized(c->peer, c->sender, n, c->words, c->msg);
}

/* -L: the receivers wait for the last rank's token, which it sends after
 * sleeping ms milliseconds; the senders go on at once. */
static void wait_late(const stream_setup *c, int rank, int size, int pairs,
                      long long ms)
{
    uint64_t token = 0;
    if (c->peer >= 0 && !c->sender) {
        MPI_Recv(&token, 1, MPI_UINT64_T, size - 1, TAG_LATE, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else if (rank == size - 1) {
        usleep((useconds_t)(ms * 1000));
        for (int p = 0; p < pairs; p++)
            MPI_Send(&token, 1, MPI_UINT64_T, bench_pair_peer(p, size),
                     TAG_LATE, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n messages] [-w warmup] [-s bytes] [-H] "
                        "[-B bytes] [-W ns] [-p pairs] [-L ms] [-M]";
    long long n = -2, warm = -2; /* -2: not given; -1: malformed */
    long long bytes = 8, bufbytes = 16384, active = -2, late_ms = 0;
    int hand = 0, mirror = 0;
    int opt;
    while ((opt = getopt(argc, argv, "n:w:s:HB:W:p:L:M")) != -1) {
        if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 's')
            bytes = bench_parse_count(optarg, 8);
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 8);
        else if (opt == 'W')
            work_ns = bench_parse_count(optarg, 0);
        else if (opt == 'p')
            active = bench_parse_count(optarg, 1);
        else if (opt == 'L')
            late_ms = bench_parse_count(optarg, 0);
        else if (opt == 'M')
            mirror = 1;
        else
            bench_usage(KERNEL, usage);
        if (n == -1 || warm == -1 || bytes == -1 || bytes % 8 != 0 ||
            bytes > MAX_BYTES || bufbytes == -1 || work_ns == -1 ||
            active == -1 || late_ms == -1 ||
            (hand && work_ns > 0) || (mirror && (active > 0 || late_ms > 0)))
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
    stream_setup c = {0};
    c.peer = mirror ? (rank == size - 1 - rank ? -1 : size - 1 - rank)
                    : bench_pair_peer(rank, size);
    int pairs = size / 2;
    if (active > 0 && active < pairs) {
        pairs = (int)active;
        if (rank % (size / 2) >= pairs || rank >= 2 * (size / 2))
            c.peer = -1;
    }
    c.sender = rank < size / 2;
    c.hand = hand;
    c.words = bytes / 8;
    c.per = bufbytes / bytes > 0 ? bufbytes / bytes : 1;
    if (hand) {
        for (int b = 0; b < 2; b++)
            if (!(c.buf[b] = malloc((size_t)(c.per * bytes))))
                bench_fail(KERNEL, "out of memory for a buffer of %lld bytes",
                           c.per * bytes);
    } else if (c.words > 1 && !(c.msg = malloc((size_t)bytes))) {
        bench_fail(KERNEL, "out of memory for a message of %lld bytes",
                   bytes);
    }

    long long bad = 0;
    if (c.peer >= 0 && warm > 0)
        bad += run_variant(&c, warm);
    if (late_ms > 0 && bench_pair_peer(size - 1, size) >= 0 &&
        (size - 1) % (size / 2) < pairs)
        bench_fail(KERNEL, "-L needs a last rank in no pair (an odd count, "
                   "or -p)");
    bench_clock clk;
    bench_clock_start(&clk);
    if (late_ms > 0)
        wait_late(&c, rank, size, pairs, late_ms);
    if (c.peer >= 0)
        bad += run_variant(&c, n);
    double elapsed = bench_clock_stop(&clk);

    if (bad)
        bench_check_failed(KERNEL, "%lld of the messages from rank %d were "
                           "wrong or out of order", bad, c.peer);
    bench_verdict();
    double msgs = (double)pairs * (double)n;
    char extra[224 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, bench_pair_side(c.peer, c.sender), msgs);
    snprintf(extra, sizeof extra, " variant=%s pairs=%d n=%lld size=%lld%s "
             "work_ns=%lld bw=%.6g seconds=%.4f%s", hand ? "hand" : "plain",
             pairs, n, bytes,
             bench_agg_buffer_key(buffer, hand, c.per * bytes), work_ns,
             msgs * (double)bytes / elapsed, elapsed, cpu);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    free(c.msg);
    free(c.buf[0]);
    free(c.buf[1]);
    MPI_Finalize();
    return 0;
}
