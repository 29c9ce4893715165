/* histogram: bale's histo, one 8-byte MPI_Send per update.
 *
 * Usage: histogram [-n updates per rank] [-k drain interval]
 *                  [-t table entries] [-w warmup updates per rank]
 *                  [-H] [-B bytes]
 *   -n  updates each rank sends in the timed section (default 5000000, or
 *       3000 when ranks outnumber cores)
 *   -k  sends between two drains of incoming updates (default 64)
 *   -t  table entries per rank, K/M suffixes allowed (default 1000, bale's)
 *   -w  untimed updates per rank first, so connections exist (default 1000,
 *       or 100 when ranks outnumber cores)
 *   -H  hand-aggregated variant (below) instead of one message per update
 *   -B  bytes of a hand-aggregation buffer, 8 .. 64M (default 16K); only
 *       with -H
 *
 * Each update is the index of an entry in the receiver's table, sent to a
 * uniformly random rank, this one included as in bale, with a blocking
 * MPI_Send.  Unlike gups (MPI_Iprobe + MPI_Recv), a rank drains through one
 * posted MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG): every k sends it calls
 * MPI_Test on it, and while that completes it applies the update and posts
 * the receive again.  Termination: having sent its updates, a rank sends a
 * "done" marker (its own tag) to every rank, itself included, and waits on
 * the posted receive until it holds P markers.  MPI's non-overtaking rule
 * puts a source's marker behind all its updates, since the receive matches
 * any tag: once a rank has every marker, it has every update.
 *
 * Hand variant (-H), what a programmer gets by rewriting the loop: updates
 * are appended to a per-destination buffer of B bytes, which leaves with
 * MPI_Isend when full; the last, partly filled (perhaps empty) buffer of
 * each destination leaves with its own tag and serves as the done marker.
 * A buffer is reused once its send has completed (MPI_Testsome at each
 * drain; a new one is allocated when none is free), so a rank never blocks
 * in a send while a peer waits for it (the pooled buffers of bench_agg.h).
 * The posted receive is B bytes and the receiver applies every update in
 * it.
 *
 * Checks: per (source, destination) the number of updates received equals
 * the number sent (exchanged with MPI_Alltoall after the timed section), and
 * over all ranks the sum of the table entries and the sum of index x entry
 * equal the number of updates and the sum of the indices sent.
 * rate = updates/s over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "histogram"
#define TAG_UPDATE 1
#define TAG_DONE 2 /* plain: the marker; hand: the last buffer */

typedef struct {
    int rank, size;
    int hand;
    uint64_t table_size;
    uint64_t *table;
    long long *sent_to, *recv_from; /* per rank, over warmup and timed runs */
    uint64_t index_sum_sent;        /* mod 2^64, like the table's sums */
    long long bad_index;
    uint64_t rng;
    /* the posted receive */
    MPI_Request recv_req;
    int posted;
    int markers;     /* done markers (hand: last buffers) this run */
    uint64_t *rbuf;  /* plain: one update; hand: B bytes */
    int rcount;      /* elements the posted receive can hold */
    /* hand variant: the buffer being filled per destination, from the pool */
    bench_pool pool;
    bench_outbox out;
} histo_state;

static void apply_update(histo_state *s, uint64_t v, int src)
{
    if (v < s->table_size)
        s->table[v]++;
    else
        s->bad_index++;
    s->recv_from[src]++;
}

static void post_receive(histo_state *s)
{
    MPI_Irecv(s->rbuf, s->rcount, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG,
              MPI_COMM_WORLD, &s->recv_req);
    s->posted = 1;
}

/* Applies what the completed receive holds and posts it again unless every
 * marker is in. */
static void apply_received(histo_state *s, const MPI_Status *st)
{
    int src = st->MPI_SOURCE, count;
    s->posted = 0;
    if (s->hand) {
        MPI_Get_count(st, MPI_UINT64_T, &count);
        for (int i = 0; i < count; i++)
            apply_update(s, s->rbuf[i], src);
    } else if (st->MPI_TAG == TAG_UPDATE) {
        apply_update(s, s->rbuf[0], src);
    }
    if (st->MPI_TAG == TAG_DONE)
        s->markers++;
    if (s->markers < s->size)
        post_receive(s);
}

/* MPI_Test on the posted receive until it finds nothing more. */
static void drain(histo_state *s)
{
    if (s->hand)
        bench_pool_reap(&s->pool);
    while (s->posted) {
        int flag;
        MPI_Status st;
        MPI_Test(&s->recv_req, &flag, &st);
        if (!flag)
            return;
        apply_received(s, &st);
    }
}

static void run(histo_state *s, long long n, long long k)
{
    s->markers = 0;
    post_receive(s);
    for (long long i = 0; i < n; i++) {
        int dest = (int)bench_rng_below(&s->rng, (uint64_t)s->size);
        uint64_t idx = bench_rng_below(&s->rng, s->table_size);
        if (s->hand) {
            *bench_outbox_item(&s->out, dest) = idx;
            bench_outbox_commit(&s->out, dest);
        } else {
            MPI_Send(&idx, 1, MPI_UINT64_T, dest, TAG_UPDATE,
                     MPI_COMM_WORLD);
        }
        s->sent_to[dest]++;
        s->index_sum_sent += idx;
        if ((i + 1) % k == 0)
            drain(s);
    }
    for (int r = 0; r < s->size; r++) {
        if (s->hand) {
            bench_outbox_flush(&s->out, r, TAG_DONE);
        } else {
            uint64_t marker = 0;
            MPI_Send(&marker, 1, MPI_UINT64_T, r, TAG_DONE, MPI_COMM_WORLD);
        }
    }
    /* A blocking wait on the posted receive once there is nothing left to
     * send: that is what a programmer writes for the final wait.  The hand
     * variant's own sends complete once their receivers take them; every
     * rank receives until it has every marker, so they all do. */
    while (s->posted) {
        MPI_Status st;
        MPI_Wait(&s->recv_req, &st);
        apply_received(s, &st);
    }
    if (s->hand)
        bench_pool_complete(&s->pool);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n updates per rank] [-k drain interval] "
                        "[-t table entries] [-w warmup updates per rank] "
                        "[-H] [-B bytes]";
    bench_access_opts o = {.n = -2, .k = 64, .t = 1000, .warm = -2,
                           .buffer = 16384};
    bench_access_options(argc, argv, KERNEL, usage, 8, &o);
    long long n = o.n, k = o.k, t = o.t, warm = o.warm, bbytes = o.buffer;
    int hand = o.hand;
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 3000 : 5000000;
        if (warm == -2)
            warm = over ? 100 : 1000;
    }

    histo_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    s.hand = hand;
    s.table_size = (uint64_t)t;
    s.table = calloc((size_t)t, sizeof *s.table);
    s.sent_to = calloc((size_t)s.size, sizeof *s.sent_to);
    s.recv_from = calloc((size_t)s.size, sizeof *s.recv_from);
    if (!s.table || !s.sent_to || !s.recv_from)
        bench_fail(KERNEL, "out of memory for a table of %lld entries", t);
    int per_buf = (int)(bbytes / (long long)sizeof(uint64_t));
    s.rcount = hand ? per_buf : 1;
    s.rbuf = bench_xmalloc(KERNEL, (size_t)s.rcount * sizeof *s.rbuf);
    if (hand) {
        bench_pool_init(&s.pool, KERNEL, (size_t)per_buf * sizeof(uint64_t));
        bench_outbox_init(&s.out, &s.pool, s.size, 1, TAG_UPDATE);
    }
    s.rng = 0x3c6ef372fe94f82bULL ^ ((uint64_t)s.rank << 32);

    if (warm > 0)
        run(&s, warm, k);
    bench_clock clk;
    bench_clock_start(&clk);
    run(&s, n, k);
    double elapsed = bench_clock_stop(&clk);

    bench_check_updates(KERNEL, s.sent_to, s.recv_from, s.bad_index,
                        s.table, s.table_size, s.index_sum_sent);
    bench_verdict();

    double total = (double)s.size * (double)n;
    char extra[200 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, total);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d n=%lld k=%lld "
             "table=%lld%s seconds=%.4f%s", hand ? "hand" : "plain", s.size, n,
             k, t, bench_agg_buffer_key(buffer, hand, (long long)s.pool.bytes),
             elapsed, cpu);
    bench_result(KERNEL, total / elapsed, "msgs/s", extra);
    if (hand) {
        bench_pool_free(&s.pool);
        bench_outbox_free(&s.out);
    }
    free(s.rbuf);
    free(s.table);
    free(s.sent_to);
    free(s.recv_from);
    MPI_Finalize();
    return 0;
}
