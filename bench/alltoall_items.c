/* alltoall_items: a streaming fine-grained all-to-all of 32-byte items, as
 * TRAM's all-to-all benchmark runs it (docs/performance.md, Kernels).
 *
 * Usage: alltoall_items [-m items per destination] [-k drain interval]
 *                       [-w warmup items per destination] [-H] [-B bytes]
 *   -m  32-byte items each rank sends to each other rank (default: 500000
 *       items per rank in all, or 4000 when ranks outnumber cores, divided
 *       among the P-1 destinations)
 *   -k  sends between two drains of incoming items (default 64)
 *   -w  untimed items per destination first (default 8, or 1 when ranks
 *       outnumber cores)
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 32 .. 64M
 *       (default 16384); a buffer holds B / 32 items
 *
 * Sends go in rounds, as in TRAM's benchmark: in each round a rank sends one
 * item to every other rank, in a fresh random order of destinations, with a
 * blocking MPI_Send each.  Every k sends it drains what has arrived with
 * MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv; once it has sent everything it
 * receives until it holds (P-1) * m items.
 *
 * Hand (-H): what a programmer gets by aggregating by hand.  The same items
 * in the same order are written into a buffer per destination, sent as one
 * MPI_Isend when it holds B bytes; every k items a rank drains whole buffers
 * (MPI_Iprobe, then MPI_Recv of up to B bytes, the length from
 * MPI_Get_count) and checks every item in them.  Each destination has two
 * buffers (bench_agg.h's double buffers), so one fills while the other is on
 * its way; before refilling a buffer whose send has not completed, the rank
 * drains while it tests that send.  Blocking MPI_Send of full buffers would
 * be simpler, but it is not safe here: above the eager limit a send waits
 * for its receive, and two ranks sending to each other would wait for ever;
 * the double buffers cost one wait in the rare case that both are
 * busy.  Having written its last item a rank sends every partly filled
 * buffer, receives with a blocking MPI_Recv until it holds its (P-1) * m
 * items, and only then waits for its own sends, which their receivers are by
 * then receiving.
 *
 * An item is {source, destination, round, mix(source, destination, round)}.
 * Checks: each item names this rank as its destination and the status's
 * source as its source, items from one source arrive in round order (MPI's
 * non-overtaking rule), the mixed word matches, and the sums of the mixed
 * words sent and received over all ranks agree.
 * rate = items/s over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "alltoall_items"
#define TAG_ITEM 1

typedef struct {
    int rank, size;
    int *order;           /* the other ranks, shuffled every round */
    long long *next_from; /* per source: the round expected next */
    long long received;
    long long bad;
    uint64_t sum_sent, sum_received;
    uint64_t rng;
} a2a_state;

static uint64_t item_word(uint64_t src, uint64_t dst, uint64_t round)
{
    return bench_mix((src << 44) ^ (dst << 24) ^ round);
}

static void apply(a2a_state *s, const uint64_t item[4], const MPI_Status *st)
{
    int src = st->MPI_SOURCE;
    s->bad += item[0] != (uint64_t)src || item[1] != (uint64_t)s->rank ||
              item[2] != (uint64_t)s->next_from[src] ||
              item[3] != item_word(item[0], item[1], item[2]);
    s->next_from[src]++;
    s->sum_received += item[3];
    s->received++;
}

static void drain(a2a_state *s)
{
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ITEM, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        uint64_t item[4];
        MPI_Recv(item, 4, MPI_UINT64_T, st.MPI_SOURCE, TAG_ITEM,
                 MPI_COMM_WORLD, &st);
        apply(s, item, &st);
    }
}

/* The hand-aggregated variant keeps per destination two buffers of 4-word
 * items (bench_dbuf, bench_agg.h).  Receives one buffer from src (or any
 * source) and checks every item in it. */
static void receive_hand(a2a_state *s, bench_dbuf *h, int src)
{
    MPI_Status st;
    int got = bench_dbuf_recv(h, src, TAG_ITEM, &st);
    for (int i = 0; i + 4 <= got; i += 4)
        apply(s, &h->in[i], &st);
    s->bad += got % 4 != 0; /* a torn item */
}

static void drain_hand(a2a_state *s, bench_dbuf *h)
{
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ITEM, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        receive_hand(s, h, st.MPI_SOURCE);
    }
}

/* Sends dest's current buffer if it holds anything and makes the other one
 * current, draining until that one's previous send has completed. */
static void flush_hand(a2a_state *s, bench_dbuf *h, int dest)
{
    if (bench_dbuf_send(h, dest, TAG_ITEM))
        while (!bench_dbuf_ready(h, dest))
            drain_hand(s, h);
}

static void run_hand(a2a_state *s, bench_dbuf *h, long long m, long long k,
                     long long first)
{
    long long target = s->received + (long long)(s->size - 1) * m;
    long long sends = 0;
    for (long long round = first; round < first + m; round++) {
        for (int i = s->size - 2; i > 0; i--) {
            int j = (int)bench_rng_below(&s->rng, (uint64_t)i + 1);
            int tmp = s->order[i];
            s->order[i] = s->order[j];
            s->order[j] = tmp;
        }
        for (int i = 0; i < s->size - 1; i++) {
            int dest = s->order[i];
            uint64_t *item = bench_dbuf_item(h, dest);
            item[0] = (uint64_t)s->rank;
            item[1] = (uint64_t)dest;
            item[2] = (uint64_t)round;
            item[3] = item_word(item[0], item[1], item[2]);
            s->sum_sent += item[3];
            if (bench_dbuf_commit(h, dest))
                flush_hand(s, h, dest);
            if (++sends % k == 0)
                drain_hand(s, h);
        }
    }
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            flush_hand(s, h, r);
    while (s->received < target)
        receive_hand(s, h, MPI_ANY_SOURCE);
    bench_dbuf_wait(h);
}

/* Runs one all-to-all of m items per destination; per-source round numbers
 * continue across calls, so the warmup and the timed run check as one. */
static void run(a2a_state *s, long long m, long long k, long long first)
{
    long long target = s->received + (long long)(s->size - 1) * m;
    long long sends = 0;
    for (long long round = first; round < first + m; round++) {
        for (int i = s->size - 2; i > 0; i--) {
            int j = (int)bench_rng_below(&s->rng, (uint64_t)i + 1);
            int tmp = s->order[i];
            s->order[i] = s->order[j];
            s->order[j] = tmp;
        }
        for (int i = 0; i < s->size - 1; i++) {
            int dest = s->order[i];
            uint64_t item[4] = {(uint64_t)s->rank, (uint64_t)dest,
                                (uint64_t)round, 0};
            item[3] = item_word(item[0], item[1], item[2]);
            MPI_Send(item, 4, MPI_UINT64_T, dest, TAG_ITEM, MPI_COMM_WORLD);
            s->sum_sent += item[3];
            if (++sends % k == 0)
                drain(s);
        }
    }
    /* A blocking receive for the final wait, as a programmer would write. */
    while (s->received < target) {
        uint64_t item[4];
        MPI_Status st;
        MPI_Recv(item, 4, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_ITEM,
                 MPI_COMM_WORLD, &st);
        apply(s, item, &st);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-m items per destination] [-k drain interval] "
                        "[-w warmup items per destination] [-H] "
                        "[-B bytes]";
    /* -2: not given; -1: malformed */
    long long m = -2, k = 64, warm = -2, bufbytes = 16384;
    int hand = 0;
    int opt;
    while ((opt = getopt(argc, argv, "m:k:w:HB:")) != -1) {
        if (opt == 'm')
            m = bench_parse_count(optarg, 1);
        else if (opt == 'k')
            k = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 32);
        else
            bench_usage(KERNEL, usage);
        if (m == -1 || k == -1 || warm == -1 || bufbytes == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);

    a2a_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    if (m == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (m == -2) {
            m = (over ? 4000 : 500000) / (s.size - 1);
            m = m > 0 ? m : 1;
        }
        if (warm == -2)
            warm = over ? 1 : 8;
    }
    s.order = malloc((size_t)s.size * sizeof *s.order);
    s.next_from = calloc((size_t)s.size, sizeof *s.next_from);
    if (!s.order || !s.next_from)
        bench_fail(KERNEL, "out of memory for %d ranks", s.size);
    for (int r = 0, i = 0; r < s.size; r++)
        if (r != s.rank)
            s.order[i++] = r;
    s.rng = 0xbb67ae8584caa73bULL ^ ((uint64_t)s.rank << 32);
    bench_dbuf h = {0};
    if (hand)
        bench_dbuf_init(&h, KERNEL, s.rank, s.size, (int)(bufbytes / 32), 4);

    if (warm > 0) {
        if (hand)
            run_hand(&s, &h, warm, k, 0);
        else
            run(&s, warm, k, 0);
    }
    bench_clock clk;
    bench_clock_start(&clk);
    if (hand)
        run_hand(&s, &h, m, k, warm);
    else
        run(&s, m, k, warm);
    double elapsed = bench_clock_stop(&clk);

    if (s.bad)
        bench_check_failed(KERNEL, "%lld items were wrong, misaddressed or "
                           "out of order", s.bad);
    for (int r = 0; r < s.size; r++)
        if (r != s.rank && s.next_from[r] != warm + m)
            bench_check_failed(KERNEL, "%lld items arrived from rank %d, "
                               "expected %lld", s.next_from[r], r, warm + m);
    uint64_t local[2] = {s.sum_sent, s.sum_received}, global[2];
    MPI_Reduce(local, global, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s.rank == 0 && global[0] != global[1])
        bench_check_failed(KERNEL, "checksum of items received %llu, of "
                           "items sent %llu", (unsigned long long)global[1],
                           (unsigned long long)global[0]);
    bench_verdict();

    double total = (double)s.size * (double)(s.size - 1) * (double)m;
    char extra[224 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, total);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d m=%lld k=%lld "
             "item=32%s seconds=%.4f%s", hand ? "hand" : "plain", s.size, m, k,
             bench_agg_buffer_key(buffer, hand, bench_dbuf_bytes(&h)),
             elapsed, cpu);
    bench_result(KERNEL, total / elapsed, "msgs/s", extra);
    free(s.order);
    free(s.next_from);
    if (hand)
        bench_dbuf_free(&h);
    MPI_Finalize();
    return 0;
}
