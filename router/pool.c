/* pool.c: the eager pool that fits a memory budget (pool.h). */
#include "router/pool.h"
#include "router/relay.h"
#include "router/tables.h"

static int fits(fl_params *p, uint64_t pool, uint64_t tables, uint64_t memory)
{
    p->pool = pool;
    uint64_t bound = fl_memory_bound(p);
    return bound <= memory && tables <= memory - bound;
}

uint64_t po_pool_for_memory(const fl_params *worst, uint64_t tables,
                            uint64_t memory, uint64_t step, uint64_t most)
{
    fl_params p = *worst;
    /* fl_memory_bound never falls as the pool grows, so the multiples of
     * step that fit are a prefix: lo x step fits, hi x step does not or
     * lies past `most`. */
    uint64_t lo = 1, hi = most / step + 1;
    if (!fits(&p, step, tables, memory))
        return 0;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (fits(&p, mid * step, tables, memory))
            lo = mid;
        else
            hi = mid;
    }
    return lo * step;
}

/* Next hops of the rank with the most: one per other coordinate value in
 * each dimension, which no rank of an incomplete grid exceeds. */
static int most_next_hops(const rt_grid *g)
{
    int n = 0;
    for (int d = 0; d < g->ndims; d++)
        n += g->dims[d] - 1;
    return n;
}

uint64_t po_pool_for_job(const rt_grid *g, const fl_params *job,
                         uint64_t memory, uint64_t step, uint64_t most)
{
    fl_params worst = *job;
    worst.npeers = most_next_hops(g);
    worst.rx_blocks = PO_RX_BLOCKS;
    worst.relay_pairs = rl_relay_pairs_max(g);
    return po_pool_for_memory(&worst, tb_table_bytes(job->nranks, 1), memory,
                              step, most);
}

uint64_t po_pool_in_force(const rt_grid *g, const fl_params *job, uint64_t set,
                          uint64_t memory, uint64_t least, uint64_t most,
                          int *short_of_memory)
{
    uint64_t pool = set ? set : po_pool_for_job(g, job, memory, least, most);
    if (short_of_memory)
        *short_of_memory = !pool;
    return pool ? pool : least;
}
