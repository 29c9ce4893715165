/* gups: GUPS-like random updates, one 8-byte MPI_Send per update.
 *
 * Usage: gups [-n updates per rank] [-k drain interval] [-t table entries]
 *             [-w warmup updates per rank] [-H] [-B bytes]
 *   -n  updates each rank sends in the timed section (default 500000, or
 *       5000 when ranks outnumber cores)
 *   -k  sends between two drains of incoming updates (default 64)
 *   -t  table entries per rank, K/M suffixes allowed (default 64K)
 *   -w  untimed updates per rank first, so connections exist (default 1000,
 *       or 100 when ranks outnumber cores)
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 8 .. 64M
 *       (default 16384); a buffer holds B / 8 updates
 *
 * Each update is the index of an entry in the receiver's table, sent to a
 * uniformly random rank other than the sender (so every update is a message
 * between processes and the rate measures messaging, not local memory).
 * Every k sends a rank drains what has arrived with MPI_Iprobe(MPI_ANY_SOURCE)
 * + MPI_Recv and increments the entries.  Termination: having sent its
 * updates, a rank sends a "done" marker (its own tag) to every other rank and
 * receives until it holds P-1 markers.  Probes and receives match any tag, so
 * MPI's non-overtaking rule puts a source's marker behind all its updates:
 * once a rank has every marker, it has every update.
 *
 * Hand (-H): what a programmer gets by aggregating by hand.  A rank writes
 * each update into a buffer per destination and sends the buffer as one
 * MPI_Isend when it holds B bytes; every k updates it drains whole buffers
 * (MPI_Iprobe, then MPI_Recv of up to B bytes, the length from
 * MPI_Get_count) and applies every update in them.  Each destination has two
 * buffers (bench_agg.h's double buffers), so one fills while the other is on
 * its way; before refilling a buffer whose send has not completed, the rank
 * drains while it tests that send.  Blocking MPI_Send of full buffers would
 * be simpler, but it is not safe here: above the eager limit a send waits
 * for its receive, and two ranks sending to each other would wait for ever;
 * the double buffers cost one wait in the rare case that both are busy.  At
 * the end a rank sends every partly filled buffer, then its done markers (so
 * non-overtaking still puts each marker behind that source's last buffer),
 * and receives with a blocking MPI_Recv until it holds P-1 markers; only
 * then does it wait for its own sends, which by then are being received.
 *
 * Checks: per (source, destination) the number of updates received equals
 * the number sent (exchanged with MPI_Alltoall after the timed section), and
 * over all ranks the sum of the table entries and the sum of index x entry
 * equal the number of updates and the sum of the indices sent.
 * rate = updates/s over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "gups"
#define TAG_UPDATE 1
#define TAG_DONE 2

typedef struct {
    int rank, size;
    uint64_t table_size;
    uint64_t *table;
    long long *sent_to, *recv_from; /* per rank, over warmup and timed runs */
    uint64_t index_sum_sent;        /* mod 2^64, like the table's sums */
    long long bad_index;
    uint64_t rng;
} gups_state;

/* Applies one received message; returns 1 for a done marker. */
static int apply(gups_state *s, uint64_t v, const MPI_Status *st)
{
    if (st->MPI_TAG == TAG_DONE)
        return 1;
    if (v < s->table_size)
        s->table[v]++;
    else
        s->bad_index++;
    s->recv_from[st->MPI_SOURCE]++;
    return 0;
}

/* Returns the number of done markers found among what had arrived. */
static int drain(gups_state *s)
{
    int done = 0;
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return done;
        uint64_t v;
        MPI_Recv(&v, 1, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG,
                 MPI_COMM_WORLD, &st);
        done += apply(s, v, &st);
    }
}

static void run(gups_state *s, long long n, long long k)
{
    int done = 0;
    for (long long i = 0; i < n; i++) {
        int dest = (int)bench_rng_below(&s->rng, (uint64_t)s->size - 1);
        dest += dest >= s->rank;
        uint64_t idx = bench_rng_below(&s->rng, s->table_size);
        MPI_Send(&idx, 1, MPI_UINT64_T, dest, TAG_UPDATE, MPI_COMM_WORLD);
        s->sent_to[dest]++;
        s->index_sum_sent += idx;
        if ((i + 1) % k == 0)
            done += drain(s);
    }
    uint64_t marker = 0;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            MPI_Send(&marker, 1, MPI_UINT64_T, r, TAG_DONE, MPI_COMM_WORLD);
    /* A blocking receive, not a probe loop, once there is nothing left to
     * send: that is what a programmer writes for the final wait. */
    while (done < s->size - 1) {
        uint64_t v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
        done += apply(s, v, &st);
    }
}

/* The hand-aggregated variant: per destination two buffers of updates. */
typedef struct {
    bench_dbuf buf;
    int done; /* markers received in the current run */
} gups_hand;

/* Receives one buffer of updates or a done marker from `src` (or any
 * source) with tag `tag` (or any tag) and applies it. */
static void receive_hand(gups_state *s, gups_hand *h, int src, int tag)
{
    MPI_Status st;
    int got = bench_dbuf_recv(&h->buf, src, tag, &st);
    if (st.MPI_TAG == TAG_DONE) {
        h->done++;
        return;
    }
    for (int i = 0; i < got; i++)
        apply(s, h->buf.in[i], &st);
}

/* Receives and applies whatever has arrived: whole buffers of updates and
 * done markers. */
static void drain_hand(gups_state *s, gups_hand *h)
{
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        receive_hand(s, h, st.MPI_SOURCE, st.MPI_TAG);
    }
}

/* Sends dest's current buffer if it holds anything and makes the other one
 * current, draining until that one's previous send has completed. */
static void flush_hand(gups_state *s, gups_hand *h, int dest)
{
    if (bench_dbuf_send(&h->buf, dest, TAG_UPDATE))
        while (!bench_dbuf_ready(&h->buf, dest))
            drain_hand(s, h);
}

static void run_hand(gups_state *s, gups_hand *h, long long n, long long k)
{
    h->done = 0;
    for (long long i = 0; i < n; i++) {
        int dest = (int)bench_rng_below(&s->rng, (uint64_t)s->size - 1);
        dest += dest >= s->rank;
        uint64_t idx = bench_rng_below(&s->rng, s->table_size);
        *bench_dbuf_item(&h->buf, dest) = idx;
        if (bench_dbuf_commit(&h->buf, dest))
            flush_hand(s, h, dest);
        s->sent_to[dest]++;
        s->index_sum_sent += idx;
        if ((i + 1) % k == 0)
            drain_hand(s, h);
    }
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            flush_hand(s, h, r);
    uint64_t marker = 0;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            MPI_Send(&marker, 1, MPI_UINT64_T, r, TAG_DONE, MPI_COMM_WORLD);
    while (h->done < s->size - 1)
        receive_hand(s, h, MPI_ANY_SOURCE, MPI_ANY_TAG);
    bench_dbuf_wait(&h->buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n updates per rank] [-k drain interval] "
                        "[-t table entries] [-w warmup updates per rank] "
                        "[-H] [-B bytes]";
    bench_access_opts o = {.n = -2, .k = 64, .t = 64 * 1024, .warm = -2,
                           .buffer = 16384};
    bench_access_options(argc, argv, KERNEL, usage, 8, &o);
    long long n = o.n, k = o.k, t = o.t, warm = o.warm, bufbytes = o.buffer;
    int hand = o.hand;
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 5000 : 500000;
        if (warm == -2)
            warm = over ? 100 : 1000;
    }

    gups_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    s.table_size = (uint64_t)t;
    s.table = calloc((size_t)t, sizeof *s.table);
    s.sent_to = calloc((size_t)s.size, sizeof *s.sent_to);
    s.recv_from = calloc((size_t)s.size, sizeof *s.recv_from);
    if (!s.table || !s.sent_to || !s.recv_from)
        bench_fail(KERNEL, "out of memory for a table of %lld entries", t);
    s.rng = 0x6a09e667f3bcc908ULL ^ ((uint64_t)s.rank << 32);
    gups_hand h = {0};
    if (hand)
        bench_dbuf_init(&h.buf, KERNEL, s.rank, s.size, (int)(bufbytes / 8),
                        1);

    if (warm > 0) {
        if (hand)
            run_hand(&s, &h, warm, k);
        else
            run(&s, warm, k);
    }
    bench_clock clk;
    bench_clock_start(&clk);
    if (hand)
        run_hand(&s, &h, n, k);
    else
        run(&s, n, k);
    double elapsed = bench_clock_stop(&clk);

    bench_check_updates(KERNEL, s.sent_to, s.recv_from, s.bad_index,
                        s.table, s.table_size, s.index_sum_sent);
    bench_verdict();

    double total = (double)s.size * (double)n;
    char extra[224 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, total);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d n=%lld k=%lld "
             "table=%lld%s seconds=%.4f%s", hand ? "hand" : "plain", s.size, n,
             k, t, bench_agg_buffer_key(buffer, hand,
                                        bench_dbuf_bytes(&h.buf)),
             elapsed, cpu);
    bench_result(KERNEL, total / elapsed, "msgs/s", extra);
    free(s.table);
    free(s.sent_to);
    free(s.recv_from);
    if (hand)
        bench_dbuf_free(&h.buf);
    MPI_Finalize();
    return 0;
}
