#include "shim/stats.h"
#include "shim/state.h"
#include <stdio.h>
#include <stdlib.h>

enum {
    S_USER, S_DIRECT, S_FORWARDED, S_WIRE_MSGS, S_WIRE_BYTES, S_DELIVERED,
    S_ACKS, S_CREDIT_WAITS, S_FULL, S_IDLE, S_AGE, S_BLOCK, S_URGENT,
    S_DIM0, S_HOP0 = S_DIM0 + RT_MAX_DIMS, S_COUNT = S_HOP0 + RT_MAX_DIMS + 1
};

static void collect(uint64_t *v)
{
    const omni_counters *c = &omni.stats;
    for (int i = 0; i < S_COUNT; i++)
        v[i] = 0;
    for (int r = 0; r < omni.size; r++) {
        v[S_USER] += omni.sent_to[r];
        v[S_HOP0 + omni.route_len[r]] += omni.sent_to[r];
    }
    v[S_DIRECT] = c->direct_sends;
    v[S_FORWARDED] = c->forwarded_items;
    v[S_WIRE_MSGS] = c->wire_messages;
    v[S_WIRE_BYTES] = c->wire_bytes;
    v[S_DELIVERED] = c->delivered;
    v[S_ACKS] = c->acks_sent;
    v[S_CREDIT_WAITS] = c->credit_waits;
    v[S_FULL] = c->flush_full;
    v[S_IDLE] = c->flush_idle;
    v[S_AGE] = c->flush_age;
    v[S_BLOCK] = c->flush_block;
    v[S_URGENT] = c->flush_urgent;
    for (int d = 0; d < RT_MAX_DIMS; d++)
        v[S_DIM0 + d] = c->wire_by_dim[d];
}

/* The documented bound on the blocks one rank holds (README, "Memory"):
 * injection stops above max_inflight blocks in flight (plus one fill block
 * per peer); the receive ring holds RX blocks; items
 * waiting to be received come from at most P-1 senders, one window each,
 * and pin at most twice their size in blocks while they are received in
 * order (a block is freed when its last item is received). */
uint64_t stats_memory_bound(void)
{
    uint64_t B = omni.block_cap;
    uint64_t waiting = (uint64_t)(omni.size - 1) * omni.window;
    uint64_t blocks = (uint64_t)omni.max_inflight + (uint64_t)omni.npeers +
                      (uint64_t)omni.rx_count + 1 +
                      2 * ((waiting + B - 1) / B);
    return blocks * B;
}

static void print_list(FILE *f, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
}

static void write_json(FILE *f, const uint64_t *t, uint64_t peak_blocks)
{
    const rt_grid *g = &omni.grid;
    int maxhop = g->ndims;
    fprintf(f, "{\"ranks\":%d,\"topology\":[", omni.size);
    for (int d = 0; d < g->ndims; d++)
        fprintf(f, "%s%d", d ? "," : "", g->dims[d]);
    fprintf(f, "],\"buffer_size\":%zu,\"threshold\":%zu,",
            omni.block_cap, omni.threshold);
    fprintf(f, "\"totals\":{\"user_sends\":%llu,\"aggregated_items\":%llu,"
               "\"forwarded_items\":%llu,\"wire_messages\":%llu,"
               "\"wire_bytes\":%llu,\"direct_sends\":%llu,"
               "\"delivered_items\":%llu,\"sync_acks\":%llu},",
            (unsigned long long)t[S_USER],
            (unsigned long long)(t[S_USER] - t[S_DIRECT]),
            (unsigned long long)t[S_FORWARDED],
            (unsigned long long)t[S_WIRE_MSGS],
            (unsigned long long)t[S_WIRE_BYTES],
            (unsigned long long)t[S_DIRECT],
            (unsigned long long)t[S_DELIVERED],
            (unsigned long long)t[S_ACKS]);
    fprintf(f, "\"flushes\":{\"full\":%llu,\"idle\":%llu,\"age\":%llu,"
               "\"before_blocking\":%llu,\"urgent\":%llu},",
            (unsigned long long)t[S_FULL], (unsigned long long)t[S_IDLE],
            (unsigned long long)t[S_AGE], (unsigned long long)t[S_BLOCK],
            (unsigned long long)t[S_URGENT]);
    fprintf(f, "\"hops_histogram\":[");
    print_list(f, t + S_HOP0, maxhop + 1);
    fprintf(f, "],\"wire_messages_per_dim\":[");
    print_list(f, t + S_DIM0, g->ndims);
    fprintf(f, "],\"peak_buffer_bytes_per_rank\":%llu,"
               "\"memory_bound_bytes\":%llu,\"window_bytes\":%u,"
               "\"credit_waits\":%llu}\n",
            (unsigned long long)(peak_blocks * omni.block_cap),
            (unsigned long long)stats_memory_bound(), omni.window,
            (unsigned long long)t[S_CREDIT_WAITS]);
}

static void write_stats_file(const char *path, const uint64_t *t,
                             uint64_t peak_blocks)
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
    write_json(f, t, peak_blocks);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        fprintf(stderr, "omnibus: cannot write OMNIBUS_STATS_FILE=%s\n", path);
    free(tmp);
}

static void print_summary(const uint64_t *t, uint64_t peak_blocks)
{
    double per = t[S_USER] ? (double)t[S_WIRE_MSGS] / (double)t[S_USER] : 0.0;
    fprintf(stderr,
            "omnibus: %d ranks, topology", omni.size);
    for (int d = 0; d < omni.grid.ndims; d++)
        fprintf(stderr, "%s%d", d ? "x" : " ", omni.grid.dims[d]);
    fprintf(stderr,
            ": %llu sends (%llu large), %llu forwarded, %llu wire messages "
            "(%.4f per send), %llu wire bytes, peak %llu KiB buffers per rank\n",
            (unsigned long long)t[S_USER], (unsigned long long)t[S_DIRECT],
            (unsigned long long)t[S_FORWARDED],
            (unsigned long long)t[S_WIRE_MSGS], per,
            (unsigned long long)t[S_WIRE_BYTES],
            (unsigned long long)(peak_blocks * omni.block_cap / 1024));
}

void stats_report(void)
{
    if (!omni.cfg.stats && !omni.cfg.stats_file)
        return;
    uint64_t mine[S_COUNT], total[S_COUNT], peak = 0;
    collect(mine);
    PMPI_Reduce(mine, total, S_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&omni.stats.peak_blocks, &peak, 1, MPI_UINT64_T, MPI_MAX, 0,
                MPI_COMM_WORLD);
    if (omni.rank != 0)
        return;
    if (omni.cfg.stats)
        print_summary(total, peak);
    if (omni.cfg.stats_file)
        write_stats_file(omni.cfg.stats_file, total, peak);
}
