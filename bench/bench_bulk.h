/* bench_bulk.h: what the kernels that aggregate by themselves share
 * (ra_buckets, ra_testany, conveyor).
 *
 * Each is shaped like a third-party program that already packs its random
 * 8-byte updates into large per-destination messages: HPCC's
 * MPIRandomAccess and bale's histogram over Conveyors.  Under Omnibus such
 * messages are above the aggregation threshold, so these kernels measure
 * what Omnibus costs a program it cannot speed up: the target is that it
 * costs nothing (at least 0.95x of MPICH; docs/performance.md, What the
 * benchmarks show).  They have no hand-aggregated variant; the
 * runner skips mode hand for them.
 *
 * An update is an index into the destination's table, drawn uniformly;
 * destinations are the other ranks, drawn uniformly (HPCC and bale also
 * update their own rank's table, without MPI: left out here, so that every
 * update crosses MPI and the rate is a message rate).  The checks are
 * bench_check_updates's.  Termination: having sent its last update message,
 * a rank sends a zero-byte done marker, with its own tag, to every other
 * rank; its receives match any tag from that source, so MPI's non-overtaking
 * rule puts the marker behind the updates.
 *
 * Options, the same for the three (-r only where bench_bulk_options is told
 * so):
 *   -n  updates each rank sends in the timed section
 *   -w  untimed updates per rank first, so connections exist
 *   -s  bytes per update message (a multiple of 8, 8 .. 64M, K/M suffixes)
 *   -t  table entries per rank, K/M suffixes allowed
 *   -r  receives kept posted
 * RESULT: rate = updates/s over all ranks; msg_bytes = mean bytes of an
 * update message; messages = update messages over all ranks.
 */
#ifndef BENCH_BULK_H
#define BENCH_BULK_H

#include "bench_agg.h"

#define BENCH_BULK_TAG_UPDATE 1
#define BENCH_BULK_TAG_DONE 2

typedef struct {
    long long n, warm; /* -2: not given, for the kernel to size */
    long long bytes, table, recvs;
} bench_bulk_opts;

/* Parses the options above into o, whose fields hold the defaults; ends the
 * job with the usage line on anything malformed or out of range. */
static inline void bench_bulk_options(int argc, char **argv,
                                      const char *kernel, const char *usage,
                                      int with_recvs, bench_bulk_opts *o)
{
    int opt;
    while ((opt = getopt(argc, argv, with_recvs ? "n:w:s:t:r:"
                                                : "n:w:s:t:")) != -1) {
        if (opt == 'n')
            o->n = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            o->warm = bench_parse_count(optarg, 0);
        else if (opt == 's')
            o->bytes = bench_agg_parse_buffer(optarg, 8);
        else if (opt == 't')
            o->table = bench_parse_count(optarg, 1);
        else if (opt == 'r')
            o->recvs = bench_parse_count(optarg, 1);
        else
            bench_usage(kernel, usage);
        if (o->n == -1 || o->warm == -1 || o->bytes == -1 ||
            o->bytes % 8 != 0 || o->table == -1 || o->table > (1LL << 31) ||
            o->recvs == -1 || o->recvs > 1024)
            bench_usage(kernel, usage);
    }
    if (optind != argc)
        bench_usage(kernel, usage);
}

/* Sizes -n and -w where they were left to their defaults: the first of
 * each pair when ranks fit the cores, the second when they outnumber them
 * (bench_oversubscribed). */
static inline void bench_bulk_sizes(bench_bulk_opts *o, long long n_fit,
                                    long long n_over, long long warm_fit,
                                    long long warm_over)
{
    if (o->n != -2 && o->warm != -2)
        return;
    int over = bench_oversubscribed();
    if (o->n == -2)
        o->n = over ? n_over : n_fit;
    if (o->warm == -2)
        o->warm = over ? warm_over : warm_fit;
}

/* The updates of one rank: its table, and what it sent and received. */
typedef struct {
    const char *kernel;
    int rank, size;
    uint64_t table_size;
    uint64_t *table;
    long long *sent_to, *recv_from; /* per rank, over every run */
    uint64_t index_sum_sent;        /* mod 2^64, like the table's sums */
    long long bad_index;
    long long messages, bytes;      /* update messages sent, timed run */
    uint64_t rng;
} bench_upd;

static inline void bench_upd_init(bench_upd *u, const char *kernel,
                                  long long table, uint64_t seed)
{
    *u = (bench_upd){0};
    u->kernel = kernel;
    u->rank = bench_rank();
    u->size = bench_size();
    u->table_size = (uint64_t)table;
    u->table = calloc((size_t)table, sizeof *u->table);
    u->sent_to = calloc((size_t)u->size, sizeof *u->sent_to);
    u->recv_from = calloc((size_t)u->size, sizeof *u->recv_from);
    if (!u->table || !u->sent_to || !u->recv_from)
        bench_fail(kernel, "out of memory for a table of %lld entries",
                   table);
    u->rng = seed ^ ((uint64_t)u->rank << 32);
}

/* Draws the next update: returns its index and sets *dest, another rank. */
static inline uint64_t bench_upd_draw(bench_upd *u, int *dest)
{
    int d = (int)bench_rng_below(&u->rng, (uint64_t)u->size - 1);
    d += d >= u->rank;
    uint64_t idx = bench_rng_below(&u->rng, u->table_size);
    u->sent_to[d]++;
    u->index_sum_sent += idx;
    *dest = d;
    return idx;
}

/* Applies the `count` updates of a message from src. */
static inline void bench_upd_apply(bench_upd *u, const uint64_t *v,
                                   int count, int src)
{
    for (int i = 0; i < count; i++) {
        if (v[i] < u->table_size)
            u->table[v[i]]++;
        else
            u->bad_index++;
    }
    u->recv_from[src] += count;
}

/* Counts an update message of `words` 8-byte words about to be sent. */
static inline void bench_upd_sent(bench_upd *u, int words)
{
    u->messages++;
    u->bytes += 8LL * words;
}

/* Posts a zero-byte done marker to every other rank, reqs[r] for rank r
 * (MPI_REQUEST_NULL for this one); MPI_Waitall them once this rank has
 * every marker of its own. */
static inline void bench_upd_markers(const bench_upd *u, MPI_Request *reqs)
{
    for (int r = 0; r < u->size; r++) {
        reqs[r] = MPI_REQUEST_NULL;
        if (r != u->rank)
            MPI_Isend(NULL, 0, MPI_BYTE, r, BENCH_BULK_TAG_DONE,
                      MPI_COMM_WORLD, &reqs[r]);
    }
}

/* Collective, after the timed section `clk` of n updates per rank: checks
 * the tables (bench_check_updates, bench_verdict) and prints the RESULT
 * line; `more` is " key=value ..." of the kernel's own, or "". */
static inline void bench_upd_finish(bench_upd *u, const bench_clock *clk,
                                    long long n, const char *more)
{
    bench_check_updates(u->kernel, u->sent_to, u->recv_from, u->bad_index,
                        u->table, u->table_size, u->index_sum_sent);
    bench_verdict();
    long long mine[2] = {u->messages, u->bytes}, all[2] = {0, 0};
    MPI_Reduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double total = (double)u->size * (double)n;
    char extra[320], cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, clk, BENCH_SIDE_BOTH, total);
    snprintf(extra, sizeof extra, " ranks=%d n=%lld table=%llu%s "
             "msg_bytes=%.0f messages=%lld seconds=%.4f%s", u->size, n,
             (unsigned long long)u->table_size, more,
             all[0] ? (double)all[1] / (double)all[0] : 0.0, all[0],
             clk->seconds, cpu);
    bench_result(u->kernel, total / clk->seconds, "msgs/s", extra);
}

/* Collective, the whole measurement: `warm` untimed updates per rank, then
 * the timed section of n, each one call of run(state, updates), then
 * bench_upd_finish's checks and RESULT line (`more` as there). */
static inline void bench_upd_measure(bench_upd *u,
                                     void (*run)(void *, long long),
                                     void *state, long long warm,
                                     long long n, const char *more)
{
    if (warm > 0)
        run(state, warm);
    u->messages = u->bytes = 0;
    bench_clock clk;
    bench_clock_start(&clk);
    run(state, n);
    bench_clock_stop(&clk);
    bench_upd_finish(u, &clk, n, more);
}

static inline void bench_upd_free(bench_upd *u)
{
    free(u->table);
    free(u->sent_to);
    free(u->recv_from);
}

#endif
