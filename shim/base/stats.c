#include "shim/base/stats.h"
#include "shim/base/state.h"
#include "router/flow.h"
#include "shim/base/fail.h"
#include <stdio.h>
#include <stdlib.h>

/* The release, from the VERSION file (the Makefile passes it); a compile
 * outside the Makefile, such as scripts/test/check-layers's, says so
 * instead. */
#ifndef OMNIBUS_VERSION
#define OMNIBUS_VERSION "unknown (built outside the Makefile)"
#endif

enum {
    S_USER, S_DIRECT, S_FORWARDED, S_FWD_CONTROL, S_WIRE_MSGS, S_WIRE_BYTES, S_DELIVERED,
    S_ACKS, S_WINDOW_FULL, S_RNDV, S_FULL, S_IDLE, S_AGE, S_BLOCK, S_URGENT,
    S_QUIET, S_ANSWER, S_FWD_HELD,
    S_OFF_NODE, S_OFF_NODE_BYTES, S_RING, S_RING_ALONE, S_WIRE_ALONE, S_EARLY,
    S_FALLBACK, S_READ, S_STALLS, S_REFUSALS, S_SILENCES, S_HOLDS, S_GRANTS,
    S_RECLAIMS,
    S_NBR_COLLS, S_NBR_MSGS, S_NBR_UNDER, S_COLL_ITEMS,
    S_DIM0, S_HOP0 = S_DIM0 + RT_MAX_DIMS, S_COUNT = S_HOP0 + RT_MAX_DIMS + 1
};

static void collect(uint64_t *v)
{
    const omni_counters *c = &omni.stats;
    for (int i = 0; i < S_COUNT; i++)
        v[i] = 0;
    for (int r = 0; r < omni.job.size; r++) {
        v[S_USER] += omni.eng.sent_to[r];
        v[S_HOP0 + omni.job.route_len[r]] += omni.eng.sent_to[r];
    }
    /* the program's sends only: a collective Omnibus runs is one call */
    v[S_USER] -= c->coll_items;
    for (int h = 0; h <= RT_MAX_DIMS; h++)
        v[S_HOP0 + h] -= c->coll_by_hops[h];
    v[S_DIRECT] = c->direct_sends;
    v[S_FORWARDED] = c->forwarded_items;
    v[S_FWD_CONTROL] = c->forwarded_control;
    v[S_WIRE_MSGS] = c->wire_messages;
    v[S_WIRE_BYTES] = c->wire_bytes;
    v[S_DELIVERED] = c->delivered;
    v[S_ACKS] = c->acks_sent;
    v[S_WINDOW_FULL] = c->window_full;
    v[S_RNDV] = c->rndv_sends;
    v[S_FULL] = c->flush_full;
    v[S_IDLE] = c->flush_idle;
    v[S_AGE] = c->flush_age;
    v[S_BLOCK] = c->flush_block;
    v[S_URGENT] = c->flush_urgent;
    v[S_QUIET] = c->flush_quiet;
    v[S_ANSWER] = c->flush_answer;
    v[S_FWD_HELD] = c->forwarded_held;
    v[S_OFF_NODE] = c->wire_off_node;
    v[S_OFF_NODE_BYTES] = c->wire_bytes_off_node;
    v[S_RING] = c->wire_ring;
    v[S_RING_ALONE] = c->ring_alone;
    v[S_WIRE_ALONE] = c->wire_alone;
    v[S_EARLY] = c->early_payloads;
    v[S_FALLBACK] = c->window_fallbacks;
    v[S_READ] = c->read_sends;
    v[S_STALLS] = c->credit_stalls;
    v[S_REFUSALS] = c->credit_refusals;
    v[S_SILENCES] = c->credit_silences;
    v[S_HOLDS] = c->credit_holds;
    v[S_GRANTS] = c->window_grants;
    v[S_RECLAIMS] = c->window_reclaims;
    for (int d = 0; d < RT_MAX_DIMS; d++)
        v[S_DIM0 + d] = c->wire_by_dim[d];
    v[S_NBR_COLLS] = c->nbr_collectives;
    v[S_NBR_MSGS] = c->nbr_messages;
    v[S_NBR_UNDER] = c->nbr_under;
    v[S_COLL_ITEMS] = c->coll_items;
}

/* This rank's bound on the block bytes it holds (router/flow.h). */
uint64_t stats_memory_bound(void)
{
    fl_params p = {.pool = omni.job.cfg.eager_pool, .block = omni.job.block_cap,
                   .nranks = omni.credit.ranks, .npeers = omni.job.npeers,
                   .rx_blocks = omni.tx.rx_count,
                   .relay_pairs = fl_relay_pairs(&omni.job.grid, omni.job.grid_pos)};
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

/* The job's largest, over ranks, of each rank's figure (MPI_MAX). */
enum { M_PEAK, M_BOUND, M_WINDOW, M_FILL, M_RELAY, M_COUNT };

/* most[]: the maxima above; over: how many ranks held more than their own
 * bound. */
static void write_json(FILE *f, const uint64_t *t, const uint64_t *most,
                       uint64_t over,
                       const uint64_t *pairs)
{
    const rt_grid *g = &omni.job.grid;
    int maxhop = g->ndims;
    fprintf(f, "{\"version\":\"%s\",\"ranks\":%d,\"topology\":[",
            OMNIBUS_VERSION, omni.job.size);
    for (int d = 0; d < g->ndims; d++)
        fprintf(f, "%s%d", d ? "," : "", g->dims[d]);
    fprintf(f, "],\"buffer_size\":%zu,\"threshold\":%zu,\"yield\":%d,",
            omni.job.block_cap, omni.job.threshold, omni.job.yield);
    fprintf(f, "\"totals\":{\"user_sends\":%llu,\"aggregated_items\":%llu,"
               "\"forwarded_items\":%llu,\"wire_messages\":%llu,"
               "\"wire_bytes\":%llu,\"direct_sends\":%llu,"
               "\"delivered_items\":%llu,\"sync_acks\":%llu,"
               "\"rendezvous_sends\":%llu,\"wire_messages_off_node\":%llu,"
               "\"wire_bytes_off_node\":%llu,\"wire_messages_ring\":%llu,"
               "\"ring_alone_sends\":%llu,\"wire_alone_sends\":%llu,"
               "\"early_payloads\":%llu,\"forwarded_held\":%llu,"
               "\"window_fallbacks\":%llu,\"single_copy_sends\":%llu,"
               "\"forwarded_control_items\":%llu},",
            (unsigned long long)t[S_USER],
            (unsigned long long)(t[S_USER] - t[S_DIRECT] - t[S_RNDV] -
                                 t[S_RING_ALONE] - t[S_WIRE_ALONE]),
            (unsigned long long)t[S_FORWARDED],
            (unsigned long long)t[S_WIRE_MSGS],
            (unsigned long long)t[S_WIRE_BYTES],
            (unsigned long long)t[S_DIRECT],
            (unsigned long long)t[S_DELIVERED],
            (unsigned long long)t[S_ACKS], (unsigned long long)t[S_RNDV],
            (unsigned long long)t[S_OFF_NODE],
            (unsigned long long)t[S_OFF_NODE_BYTES],
            (unsigned long long)t[S_RING], (unsigned long long)t[S_RING_ALONE],
            (unsigned long long)t[S_WIRE_ALONE],
            (unsigned long long)t[S_EARLY],
            (unsigned long long)t[S_FWD_HELD],
            (unsigned long long)t[S_FALLBACK],
            (unsigned long long)t[S_READ],
            (unsigned long long)t[S_FWD_CONTROL]);
    fprintf(f, "\"flushes\":{\"full\":%llu,\"idle\":%llu,\"age\":%llu,"
               "\"before_blocking\":%llu,\"urgent\":%llu,\"quiet\":%llu,"
               "\"answer\":%llu},",
            (unsigned long long)t[S_FULL], (unsigned long long)t[S_IDLE],
            (unsigned long long)t[S_AGE], (unsigned long long)t[S_BLOCK],
            (unsigned long long)t[S_URGENT], (unsigned long long)t[S_QUIET],
            (unsigned long long)t[S_ANSWER]);
    fprintf(f, "\"neighbor\":{\"collectives\":%llu,\"messages\":%llu,"
               "\"under_collectives\":%llu},",
            (unsigned long long)t[S_NBR_COLLS],
            (unsigned long long)t[S_NBR_MSGS],
            (unsigned long long)t[S_NBR_UNDER]);
    fprintf(f, "\"collectives\":{\"messages\":%llu},",
            (unsigned long long)t[S_COLL_ITEMS]);
    fprintf(f, "\"flow\":{\"stalls\":%llu,\"refusals\":%llu,"
               "\"silences\":%llu,\"holds\":%llu,\"grants\":%llu,"
               "\"reclaims\":%llu,"
               "\"window_max_bytes\":%llu,\"window_ranks\":%d,"
               "\"relay_growth_max_bytes\":%llu},",
            (unsigned long long)t[S_STALLS], (unsigned long long)t[S_REFUSALS],
            (unsigned long long)t[S_SILENCES], (unsigned long long)t[S_HOLDS],
            (unsigned long long)t[S_GRANTS],
            (unsigned long long)t[S_RECLAIMS],
            (unsigned long long)most[M_WINDOW],
            omni.credit.ranks, (unsigned long long)most[M_RELAY]);
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
    fprintf(f, "],\"peak_buffer_bytes_per_rank\":%llu,"
               "\"peak_fill_bytes_per_rank\":%llu,"
               "\"memory_bound_bytes\":%llu,\"eager_pool_bytes\":%zu,"
               "\"ranks_over_memory_bound\":%llu,"
               "\"window_bytes\":%u,\"window_full_sends\":%llu}\n",
            (unsigned long long)most[M_PEAK], (unsigned long long)most[M_FILL],
            (unsigned long long)most[M_BOUND],
            omni.job.cfg.eager_pool, (unsigned long long)over, omni.credit.window,
            (unsigned long long)t[S_WINDOW_FULL]);
}

static void write_stats_file(const char *path, const uint64_t *t,
                             const uint64_t *most, uint64_t over,
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
    write_json(f, t, most, over, pairs);
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
static void print_summary(const uint64_t *t, const uint64_t *most)
{
    double per = t[S_USER] ? (double)t[S_WIRE_MSGS] / (double)t[S_USER] : 0.0;
    uint64_t alone = t[S_RING_ALONE] + t[S_WIRE_ALONE];
    uint64_t split = t[S_DIRECT] - t[S_FALLBACK];
    uint64_t large = alone + t[S_READ] + split;
    uint64_t past = t[S_FALLBACK] + (t[S_RNDV] - t[S_READ]);
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
        (unsigned long long)t[S_USER],
        (unsigned long long)(t[S_USER] - large - past),
        (unsigned long long)large, (unsigned long long)alone,
        (unsigned long long)t[S_READ], (unsigned long long)split,
        (unsigned long long)past, (unsigned long long)t[S_FORWARDED],
        (unsigned long long)t[S_WIRE_MSGS], per,
        (unsigned long long)t[S_WIRE_BYTES],
        (unsigned long long)(most[M_PEAK] / 1024));
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
    uint64_t mine[S_COUNT], total[S_COUNT];
    /* Each rank's peak and bound; the file shows the largest of each, and
     * every rank's peak is within its own bound. */
    uint64_t mine_most[M_COUNT] = {
        [M_PEAK] = omni.stats.peak_bytes,
        [M_BOUND] = stats_memory_bound(),
        [M_WINDOW] = omni.stats.window_max,
        [M_RELAY] = omni.stats.relay_carried_max,
        [M_FILL] = omni.stats.peak_filling *
                   (sizeof(omni_block) + omni.job.block_cap)};
    uint64_t most[M_COUNT], over = 0;
    uint64_t over_mine = mine_most[M_PEAK] > mine_most[M_BOUND];
    collect(mine);
    PMPI_Reduce(mine, total, S_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(mine_most, most, M_COUNT, MPI_UINT64_T, MPI_MAX, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(&over_mine, &over, 1, MPI_UINT64_T, MPI_SUM, 0,
                MPI_COMM_WORLD);
    uint64_t *pairs = sends_by_pair();
    if (omni.job.rank == 0 && omni.job.cfg.stats)
        print_summary(total, most);
    if (omni.job.rank == 0 && omni.job.cfg.stats_file)
        write_stats_file(omni.job.cfg.stats_file, total, most, over, pairs);
    free(pairs);
}
