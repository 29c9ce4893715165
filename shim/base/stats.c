#include "shim/base/stats.h"
#include "shim/base/state.h"
#include "router/flow.h"
#include "router/relay.h"
#include "router/tables.h"
#include "shim/base/fail.h"
#include <stdio.h>
#include <stdlib.h>

/* The release, from the VERSION file (the Makefile passes it); a compile
 * outside the Makefile, such as scripts/test/check-layers's, says so
 * instead. */
#ifndef OMNIBUS_VERSION
#define OMNIBUS_VERSION "unknown (built outside the Makefile)"
#endif

/* One index per row of counters.def, into the vector the ranks reduce. */
enum {
#define STAT(FIELD, HOW, SECTION, KEY, DOC) S_##FIELD,
#include "shim/base/counters.def"
#undef STAT
    S_ROWS,
    S_DIM0 = S_ROWS, /* then the route lists, summed */
    S_HOP0 = S_DIM0 + RT_MAX_DIMS,
    S_COUNT = S_HOP0 + RT_MAX_DIMS + 1
};

enum stat_how { STATS_SUM, STATS_MAX };
enum stat_section {
    STATS_IN_totals, STATS_IN_flushes, STATS_IN_neighbor, STATS_IN_collectives,
    STATS_IN_flow, STATS_IN_top
};

/* The rows of counters.def as the file prints them. */
static const struct stat_row {
    enum stat_how how;
    enum stat_section section;
    const char *key;
} stat_rows[S_ROWS] = {
#define STAT(FIELD, HOW, SECTION, KEY, DOC)                                    \
    [S_##FIELD] = {STATS_##HOW, STATS_IN_##SECTION, #KEY},
#include "shim/base/counters.def"
#undef STAT
};

static const char *const section_names[] = {
    [STATS_IN_totals] = "totals", [STATS_IN_flushes] = "flushes",
    [STATS_IN_neighbor] = "neighbor", [STATS_IN_collectives] = "collectives",
    [STATS_IN_flow] = "flow"};

/* Sets the rows no module counts as it goes: what this rank's figures
 * come to when the job reports. */
static void settle(omni_counters *c)
{
    c->user_sends = 0;
    for (int r = 0; r < omni.job.size; r++)
        c->user_sends += omni.eng.sent_to[r];
    /* the program's sends only: a collective Omnibus runs is one call */
    c->user_sends -= c->coll_items;
    c->aggregated_items = c->user_sends - c->direct_sends - c->rndv_sends -
                          c->ring_alone - c->wire_alone;
    c->window_ranks = (uint64_t)omni.credit.ranks;
    /* the pool holds this rank's own record too (credit.c) */
    c->credit_records = omni.credit.pool_n > 0 ? (uint64_t)omni.credit.pool_n - 1 : 0;
    c->memory_bound = stats_memory_bound();
    c->table_bytes = tb_table_bytes(omni.job.size, omni.tx.read_pid != NULL);
    c->over_bound = c->peak_bytes > c->memory_bound;
    c->eager_pool = omni.job.cfg.eager_pool;
    c->memory_budget = omni.job.cfg.memory;
    c->window_base = omni.credit.window;
    c->copy_slow_skews = (uint64_t)__builtin_popcountll(omni.tx.copy_slow_skews);
    c->path_trials = omni.eng.lanes.trials;
    c->path_switches = omni.eng.lanes.switches;
    c->header_trials = omni.eng.header_lanes.trials;
    c->header_switches = omni.eng.header_lanes.switches;
#define STATS_CX(name, dflt)                                                   \
    c->cx_##name = omni.tx.paths.at[OMNI_CX_##name];                           \
    c->cx_##name##_source = (uint64_t)omni.tx.paths.source[OMNI_CX_##name];
    OMNI_CROSSOVERS(STATS_CX)
#undef STATS_CX
}

/* This rank's figures: sums[] for the rows the job adds up and the route
 * lists, most[] for the rows it takes the largest of (0 elsewhere). */
static void collect(uint64_t *sums, uint64_t *most)
{
    const omni_counters *c = &omni.stats;
    const uint64_t field[S_ROWS] = {
#define STAT(FIELD, HOW, SECTION, KEY, DOC) [S_##FIELD] = c->FIELD,
#include "shim/base/counters.def"
#undef STAT
    };
    for (int i = 0; i < S_COUNT; i++)
        sums[i] = most[i] = 0;
    for (int i = 0; i < S_ROWS; i++)
        (stat_rows[i].how == STATS_SUM ? sums : most)[i] = field[i];
    for (int r = 0; r < omni.job.size; r++)
        sums[S_HOP0 + omni.job.route_len[r]] += omni.eng.sent_to[r];
    for (int h = 0; h <= RT_MAX_DIMS; h++)
        sums[S_HOP0 + h] -= c->coll_by_hops[h];
    for (int d = 0; d < RT_MAX_DIMS; d++)
        sums[S_DIM0 + d] = c->wire_by_dim[d];
}

/* This rank's bound on the block bytes it holds (router/flow.h). */
uint64_t stats_memory_bound(void)
{
    fl_params p = {.pool = omni.job.cfg.eager_pool, .block = omni.job.block_cap,
                   .nranks = omni.credit.ranks, .npeers = omni.job.npeers,
                   .rx_blocks = omni.tx.rx_count,
                   .relay_pairs =
                       rl_relay_pairs(&omni.job.grid, omni.job.grid_pos)};
    return fl_memory_bound(&p);
}

static void print_list(FILE *f, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
}

/* Jobs up to this size list what each rank sent to each in the statistics
 * file (P lists of P counts), which omnibus-plan --histogram reads. */
#define STATS_PAIRS_MAX 256

/* The rows of one section, as `"key":value` pairs. */
static void print_rows(FILE *f, const uint64_t *t, enum stat_section section)
{
    const char *sep = "";
    for (int i = 0; i < S_ROWS; i++) {
        if (stat_rows[i].section != section)
            continue;
        fprintf(f, "%s\"%s\":%llu", sep, stat_rows[i].key,
                (unsigned long long)t[i]);
        sep = ",";
    }
}

/* t[]: every row's figure for the job (sums and maxima alike) and the
 * route lists; pairs: sends_by_pair's lists, or NULL. */
static void write_json(FILE *f, const uint64_t *t, const uint64_t *pairs)
{
    const rt_grid *g = &omni.job.grid;
    int maxhop = g->ndims;
    fprintf(f, "{\"version\":\"%s\",\"ranks\":%d,\"topology\":[",
            OMNIBUS_VERSION, omni.job.size);
    for (int d = 0; d < g->ndims; d++)
        fprintf(f, "%s%d", d ? "," : "", g->dims[d]);
    fprintf(f, "],\"buffer_size\":%zu,\"threshold\":%zu,\"yield\":%d,",
            omni.job.block_cap, omni.job.threshold, omni.job.yield);
    for (int s = STATS_IN_totals; s < STATS_IN_top; s++) {
        fprintf(f, "\"%s\":{", section_names[s]);
        print_rows(f, t, (enum stat_section)s);
        fprintf(f, "},");
    }
    fprintf(f, "\"hops_histogram\":[");
    print_list(f, t + S_HOP0, maxhop + 1);
    fprintf(f, "],\"wire_messages_per_dim\":[");
    print_list(f, t + S_DIM0, g->ndims);
    if (pairs) {
        fprintf(f, "],\"sends_to\":[");
        for (int r = 0; r < omni.job.size; r++) {
            fprintf(f, "%s[", r ? "," : "");
            print_list(f, pairs + (size_t)r * (size_t)omni.job.size, omni.job.size);
            fputc(']', f);
        }
    }
    fprintf(f, "],");
    print_rows(f, t, STATS_IN_top);
    fprintf(f, "}\n");
}

static void write_stats_file(const char *path, const uint64_t *t,
                             const uint64_t *pairs)
{
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return;
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "omnibus: cannot write OMNIBUS_STATS_FILE=%s\n", path);
        free(tmp);
        return;
    }
    write_json(f, t, pairs);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        fprintf(stderr, "omnibus: cannot write OMNIBUS_STATS_FILE=%s\n", path);
    free(tmp);
}

/* The summary line names each path a send took, and the paths add up to
 * the sends: a large message went alone (through a ring or in a block of
 * its own), by single-copy read, or as header and payload through the MPI
 * underneath; a send past its pair's window went to the MPI underneath (a
 * blocking one, counted in direct_sends) or by rendezvous (the rest of
 * rendezvous_sends, which also counts the single-copy reads). */
static void print_summary(const uint64_t *t)
{
    double per = t[S_user_sends]
                     ? (double)t[S_wire_messages] / (double)t[S_user_sends]
                     : 0.0;
    uint64_t alone = t[S_ring_alone] + t[S_wire_alone];
    uint64_t split = t[S_direct_sends] - t[S_window_fallbacks];
    uint64_t large = alone + t[S_read_sends] + split;
    uint64_t past = t[S_window_fallbacks] + (t[S_rndv_sends] - t[S_read_sends]);
    fprintf(stderr,
            "omnibus: %d ranks, topology", omni.job.size);
    for (int d = 0; d < omni.job.grid.ndims; d++)
        fprintf(stderr, "%s%d", d ? "x" : " ", omni.job.grid.dims[d]);
    fprintf(
        stderr,
        ": %llu sends (%llu aggregated; %llu large: %llu alone, %llu "
        "single-copy, %llu header+payload; %llu past the window), %llu "
        "forwarded, %llu wire messages (%.4f per send), %llu wire bytes, "
        "peak %llu KiB buffers per rank\n",
        (unsigned long long)t[S_user_sends],
        (unsigned long long)(t[S_user_sends] - large - past),
        (unsigned long long)large, (unsigned long long)alone,
        (unsigned long long)t[S_read_sends], (unsigned long long)split,
        (unsigned long long)past, (unsigned long long)t[S_forwarded_items],
        (unsigned long long)t[S_wire_messages], per,
        (unsigned long long)t[S_wire_bytes],
        (unsigned long long)(t[S_peak_bytes] / 1024));
    fprintf(stderr, "omnibus: large messages changed path at");
#define STATS_CX(name, dflt)                                                   \
    fprintf(stderr, " " #name " %llu (%s)",                                    \
            (unsigned long long)t[S_cx_##name],                                \
            pa_source_name((enum pa_source)t[S_cx_##name##_source]));
    OMNI_CROSSOVERS(STATS_CX)
#undef STATS_CX
    fprintf(stderr, "; pairs tried the other path %llu times, took it %llu\n",
            (unsigned long long)t[S_path_trials],
            (unsigned long long)t[S_path_switches]);
    fprintf(stderr,
            "omnibus: copies: %llu by Omnibus's own loop, at up to %llu page "
            "distances where memcpy was timed slower\n",
            (unsigned long long)t[S_skewed_copies],
            (unsigned long long)t[S_copy_slow_skews]);
}

/* What each rank sent to each rank, rows by sender, gathered at rank 0
 * (the collectives Omnibus runs as messages among them), for jobs of up
 * to STATS_PAIRS_MAX ranks; NULL elsewhere, and on every other rank. */
static uint64_t *sends_by_pair(void)
{
    int P = omni.job.size;
    if (P > STATS_PAIRS_MAX)
        return NULL;
    uint64_t *all = NULL;
    if (omni.job.rank == 0 &&
        !(all = malloc(sizeof *all * (size_t)P * (size_t)P)))
        omni_out_of_memory("the statistics file's sends by pair");
    PMPI_Gather(omni.eng.sent_to, P, MPI_UINT64_T, all, P, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    return all;
}

void stats_report(void)
{
    if (!omni.job.cfg.stats && !omni.job.cfg.stats_file)
        return;
    uint64_t sums[S_COUNT], most[S_COUNT], total[S_COUNT], largest[S_COUNT];
    settle(&omni.stats);
    collect(sums, most);
    PMPI_Reduce(sums, total, S_COUNT, MPI_UINT64_T, MPI_SUM, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(most, largest, S_COUNT, MPI_UINT64_T, MPI_MAX, 0,
                MPI_COMM_WORLD);
    for (int i = 0; i < S_ROWS; i++)
        if (stat_rows[i].how == STATS_MAX)
            total[i] = largest[i];
    uint64_t *pairs = sends_by_pair();
    if (omni.job.rank == 0 && omni.job.cfg.stats)
        print_summary(total);
    if (omni.job.rank == 0 && omni.job.cfg.stats_file)
        write_stats_file(omni.job.cfg.stats_file, total, pairs);
    free(pairs);
}
