/* test_pool.c: the eager pool a memory budget leaves (router/pool.h),
 * without MPI.  The 10^6-rank figure is the one docs/planning.md quotes
 * for auto's grid. */
#include "router/pool.h"
#include "router/flow.h"
#include "router/relay.h"
#include "router/tables.h"
#include "config/config.h"
#include "check.h"

#include <stdint.h>

#define MiB ((uint64_t)1 << 20)
#define STEP ((uint64_t)CFG_MIN_EAGER_POOL)
#define MOST ((uint64_t)CFG_DEFAULT_EAGER_POOL)

static rt_grid grid_of(int P, int ndims, const int *dims)
{
    rt_grid g;
    rt_grid_init(&g, P, ndims, dims);
    return g;
}

/* The bound and tables of g's worst rank under pool `pool`, as the pool
 * rule weighs them. */
static uint64_t worst_memory(const rt_grid *g, int P, uint64_t block,
                             uint64_t pool)
{
    int hops = 0;
    for (int d = 0; d < g->ndims; d++)
        hops += g->dims[d] - 1;
    fl_params p = {.pool = pool, .block = block, .nranks = P,
                   .npeers = hops, .rx_blocks = PO_RX_BLOCKS,
                   .relay_pairs = rl_relay_pairs_max(g)};
    return fl_memory_bound(&p) + tb_table_bytes(P, 1);
}

static void test_the_pool_is_the_largest_step_that_fits_the_budget(void)
{
    int dims[3] = {2, 2, 2};
    rt_grid g = grid_of(8, 3, dims);
    fl_params job = {.block = 1024, .nranks = 8};
    uint64_t pool = po_pool_for_job(&g, &job, 256 * MiB, STEP, MOST);
    uint64_t at = worst_memory(&g, 8, 1024, pool);
    uint64_t next = worst_memory(&g, 8, 1024, pool + STEP);
    CHECK(pool % STEP == 0 && at <= 256 * MiB && next > 256 * MiB,
          "on 2x2x2 the pool must be the largest multiple of 64 KiB whose "
          "bound fits 256 MiB: pool %llu holds %llu, one step more %llu",
          (unsigned long long)pool, (unsigned long long)at,
          (unsigned long long)next);
}

static void test_the_pool_never_exceeds_its_most(void)
{
    rt_grid g = grid_of(2, 1, (int[]){2});
    fl_params job = {.block = 1024, .nranks = 2};
    uint64_t pool = po_pool_for_job(&g, &job, (uint64_t)1 << 40, STEP, MOST);
    CHECK(pool == MOST,
          "a budget of 1 TiB must give the most pool, 64 MiB, not %llu",
          (unsigned long long)pool);
}

static void test_a_budget_below_the_buffers_gives_no_pool(void)
{
    rt_grid g = grid_of(8, 1, (int[]){8});
    fl_params job = {.block = 256 << 10, .nranks = 8};
    uint64_t pool = po_pool_for_job(&g, &job, MiB, STEP, MOST);
    CHECK(pool == 0,
          "7 buffers of 256 KiB and 4 wire receives do not fit 1 MiB: the "
          "rule must say no pool fits (0), got %llu",
          (unsigned long long)pool);
}

static void test_a_budget_too_small_runs_with_the_least_pool_and_says_so(void)
{
    rt_grid g = grid_of(8, 1, (int[]){8});
    fl_params job = {.block = 256 << 10, .nranks = 8};
    int short_of_memory = 0;
    uint64_t pool = po_pool_in_force(&g, &job, 0, MiB, STEP, MOST,
                                     &short_of_memory);
    CHECK(pool == STEP && short_of_memory,
          "when no pool fits 1 MiB the job runs with the least pool (%llu) "
          "and is told so, got %llu (told: %d)",
          (unsigned long long)STEP, (unsigned long long)pool,
          short_of_memory);
    pool = po_pool_in_force(&g, &job, 3 * MiB, MiB, STEP, MOST,
                            &short_of_memory);
    CHECK(pool == 3 * MiB && !short_of_memory,
          "OMNIBUS_EAGER_POOL, when set, is the pool whatever the budget, "
          "got %llu (told: %d)", (unsigned long long)pool, short_of_memory);
}

static void test_a_million_ranks_fit_256_MiB_with_their_tables(void)
{
    int dims[4] = {32, 32, 32, 32};
    rt_grid g = grid_of(1 << 20, 4, dims);
    fl_params job = {.block = CFG_NETWORK_BUFFER_SIZE, .nranks = 1 << 20};
    uint64_t pool = po_pool_for_job(&g, &job, 256 * MiB, STEP, MOST);
    uint64_t held = worst_memory(&g, 1 << 20, CFG_NETWORK_BUFFER_SIZE, pool);
    CHECK(pool >= 8 * MiB && held <= 256 * MiB,
          "auto's 32x32x32x32 at 1,048,576 ranks must keep bound and tables "
          "within 256 MiB with a pool of at least 8 MiB: pool %llu, %llu "
          "held", (unsigned long long)pool, (unsigned long long)held);
}

static void test_the_budget_holds_at_every_size(void)
{
    uint64_t worst = 0;
    for (int P = 16; P <= (1 << 20); P *= 4) {
        int side = 1;
        while (side * side < P)
            side++;
        rt_grid g = grid_of(P, 2, (int[]){side, side});
        fl_params job = {.block = CFG_NETWORK_BUFFER_SIZE, .nranks = P};
        uint64_t pool = po_pool_for_job(&g, &job, 256 * MiB, STEP, MOST);
        uint64_t held = worst_memory(&g, P, CFG_NETWORK_BUFFER_SIZE, pool);
        if (held > worst)
            worst = held;
    }
    CHECK(worst <= 256 * MiB,
          "from 16 to 1,048,576 ranks on square grids no rank may hold more "
          "than the budget of 256 MiB; the most was %llu",
          (unsigned long long)worst);
}

int main(void)
{
    RUN(test_the_pool_is_the_largest_step_that_fits_the_budget);
    RUN(test_the_pool_never_exceeds_its_most);
    RUN(test_a_budget_below_the_buffers_gives_no_pool);
    RUN(test_a_budget_too_small_runs_with_the_least_pool_and_says_so);
    RUN(test_a_million_ranks_fit_256_MiB_with_their_tables);
    RUN(test_the_budget_holds_at_every_size);
    CHECK_MAIN_END();
}
