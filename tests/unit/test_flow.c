/* test_flow.c: the flow-control rule and memory bound of router/flow.h,
 * without MPI.  The figures asserted here for 16, 1,024 and 65,536 ranks
 * are the ones docs/design/flow-control.md quotes (The memory bound). */
#include "router/flow.h"
#include "config/config.h"
#include "check.h"

#include <stdint.h>

#define MiB ((uint64_t)1 << 20)
#define KiB ((uint64_t)1 << 10)

/* The defaults on one node: `auto` is direct, so every other rank is a
 * peer and nothing is relayed. */
static fl_params one_node(int P)
{
    fl_params p = {.pool = CFG_DEFAULT_EAGER_POOL,
                   .block = CFG_DEFAULT_BUFFER_SIZE, .nranks = P,
                   .npeers = P - 1, .rx_blocks = 4, .relay_pairs = 0};
    return p;
}

/* The defaults across nodes of 16 ranks: `auto` builds nodes x 16. */
static fl_params across_nodes(int P)
{
    rt_grid g;
    int dims[2] = {P / 16, 16};
    rt_grid_init(&g, P, 2, dims);
    fl_params p = {.pool = CFG_DEFAULT_EAGER_POOL,
                   .block = CFG_NETWORK_BUFFER_SIZE, .nranks = P,
                   .npeers = dims[0] - 1 + dims[1] - 1, .rx_blocks = 4,
                   .relay_pairs = fl_relay_pairs(&g, 0)};
    return p;
}

static void test_base_window_is_half_the_pool_shared_by_the_other_ranks(void)
{
    uint64_t pool = CFG_DEFAULT_EAGER_POOL;
    CHECK(fl_window(pool, 1025) == 32 * KiB,
          "at 1,025 ranks half a 64 MiB pool gives each sender a base of "
          "32 KiB, got %llu", (unsigned long long)fl_window(pool, 1025));
    CHECK(fl_window(pool, 65537) == 512,
          "at 65,537 ranks half a 64 MiB pool gives each sender a base of "
          "512 bytes, got %llu", (unsigned long long)fl_window(pool, 65537));
    CHECK(fl_window(pool, 1000) * 999 <= pool / 2,
          "the base windows of all senders together must fit half the pool, "
          "leaving the other half to lend on demand");
}

static void test_base_window_is_capped_for_small_jobs(void)
{
    CHECK(fl_window(CFG_DEFAULT_EAGER_POOL, 2) == FL_WINDOW_MAX,
          "two ranks get the largest window, 4 MiB, not half the pool; got "
          "%llu", (unsigned long long)fl_window(CFG_DEFAULT_EAGER_POOL, 2));
    CHECK(fl_window(CFG_DEFAULT_EAGER_POOL, 9) == FL_WINDOW_MAX,
          "9 ranks: 32 MiB / 8 is the cap, 4 MiB; got %llu",
          (unsigned long long)fl_window(CFG_DEFAULT_EAGER_POOL, 9));
}

static void test_credit_goes_back_in_steps_of_at_most_256_KiB(void)
{
    CHECK(fl_step(4 * MiB) == 256 * KiB,
          "a 4 MiB window gets its credit back every 256 KiB consumed, not "
          "every quarter window; got %u", fl_step(4 * MiB));
    CHECK(fl_step(FL_GROW_MIN) == FL_GROW_MIN / 4,
          "a window of FL_GROW_MIN gets credit back every quarter; got %u",
          fl_step(FL_GROW_MIN));
}

/* A base window of a few hundred bytes (65,536 ranks and more) returned
 * a CREDIT for every item or two its destination consumed; such a window
 * now returns credit only in the answer to its source's STALL, which
 * grows it. */
static void test_a_window_below_the_least_growth_returns_no_steps(void)
{
    CHECK(fl_step(512) == FL_STEP_NONE && fl_step(33) == FL_STEP_NONE &&
              fl_step(FL_GROW_MIN - 1) == FL_STEP_NONE,
          "windows below FL_GROW_MIN (%llu bytes) must return no CREDIT "
          "steps; got %u for 512 bytes, %u for 33",
          (unsigned long long)FL_GROW_MIN, fl_step(512), fl_step(33));
}

/* What a STALL passing a relay may ask for: never more than it asked,
 * never more than the relay's budget leaves, nothing once it is spent. */
static void test_a_relay_caps_the_growth_a_stall_asks_for(void)
{
    uint64_t pool = CFG_DEFAULT_EAGER_POOL, budget = fl_relay_budget(pool);
    CHECK(fl_relay_cap(pool, 0, 0, 4 * MiB) == 4 * MiB,
          "an idle relay lets a STALL ask for all it asked");
    CHECK(fl_relay_cap(pool, budget - MiB, 0, 4 * MiB) == MiB,
          "a relay carrying all but 1 MiB of its budget lets a STALL ask "
          "for 1 MiB; got %llu",
          (unsigned long long)fl_relay_cap(pool, budget - MiB, 0, 4 * MiB));
    CHECK(fl_relay_cap(pool, budget / 2, budget / 2, 64 * KiB) == 0 &&
              fl_relay_cap(pool, budget, MiB, 64 * KiB) == 0,
          "a relay whose budget is carried or reserved lets no growth pass");
}

static void test_a_demanding_pair_grows_to_the_largest_window_in_few_steps(void)
{
    uint64_t w = fl_window(CFG_DEFAULT_EAGER_POOL, 65536);
    int steps = 0;
    while (w < FL_WINDOW_MAX && steps < 64) {
        w += fl_growth(w, UINT64_MAX, UINT64_MAX);
        steps++;
    }
    CHECK(w == FL_WINDOW_MAX && steps <= 8,
          "from the 512-byte base of 65,536 ranks a pair whose destination "
          "keeps consuming reaches 4 MiB within 8 growths; got %llu after %d",
          (unsigned long long)w, steps);
    CHECK(fl_growth(FL_WINDOW_MAX, UINT64_MAX, UINT64_MAX) == 0,
          "a window of 4 MiB never grows");
}

static void test_growth_stays_within_what_is_unlent_and_accepted(void)
{
    CHECK(fl_growth(64 * KiB, 10 * KiB, UINT64_MAX) == 10 * KiB,
          "a destination lends no more than it has unlent (10 KiB); got %llu",
          (unsigned long long)fl_growth(64 * KiB, 10 * KiB, UINT64_MAX));
    CHECK(fl_growth(64 * KiB, UINT64_MAX, 1000) == 1000,
          "a source takes no more than its budget allows (1000 bytes); got "
          "%llu", (unsigned long long)fl_growth(64 * KiB, UINT64_MAX, 1000));
    CHECK(fl_growth(3 * MiB, UINT64_MAX, UINT64_MAX) == 1 * MiB,
          "growth stops at 4 MiB (3 MiB grows by 1 MiB); got %llu",
          (unsigned long long)fl_growth(3 * MiB, UINT64_MAX, UINT64_MAX));
    CHECK(fl_sender_budget(CFG_DEFAULT_EAGER_POOL) == 32 * MiB,
          "a source holds at most half its pool, 32 MiB, of grown window");
}

/* Grid k of a table of rows {P (0: the product of the sizes), N, sizes}. */
static rt_grid grid_of_row(const int row[5], int k)
{
    int n = row[1], product = 1, dims[3];
    for (int d = 0; d < n; d++)
        product *= dims[d] = row[d + 2];
    rt_grid g;
    CHECK(rt_grid_init(&g, row[0] ? row[0] : product, n, dims) == 0,
          "grid %d must be valid", k);
    return g;
}

/* Every rank of grid k relays, counted route by route, for lo to hi pairs,
 * which `what` predicts. */
static void check_every_rank_relays(const rt_grid *g, int k, uint64_t lo,
                                    uint64_t hi, const char *what)
{
    for (int me = 0; me < g->nranks; me++) {
        uint64_t counted = fl_relay_pairs_counted(g, me);
        CHECK(counted >= lo && counted <= hi,
              "grid %d (%d ranks in %d dims), rank %d relays for %llu pairs; "
              "%s says %llu to %llu",
              k, g->nranks, g->ndims, me, (unsigned long long)counted, what,
              (unsigned long long)lo, (unsigned long long)hi);
    }
}

static void test_relay_pairs_formula_matches_counting_on_complete_grids(void)
{
    static const int grids[][5] = {{0, 2, 3, 4, 0}, {0, 2, 4, 4, 0},
                                   {0, 3, 2, 2, 2}, {0, 2, 3, 5, 0},
                                   {0, 3, 2, 3, 4}};
    for (int k = 0; k < (int)(sizeof grids / sizeof grids[0]); k++) {
        rt_grid g = grid_of_row(grids[k], k);
        uint64_t formula = fl_relay_pairs_complete(&g);
        check_every_rank_relays(&g, k, formula, formula,
                                "the complete-grid formula");
    }
}

static void test_relay_pairs_on_incomplete_grids_are_counted(void)
{
    rt_grid g;
    int dims[2] = {3, 3};
    rt_grid_init(&g, 7, 2, dims);
    uint64_t most = 0;
    for (int me = 0; me < 7; me++) {
        uint64_t n = fl_relay_pairs(&g, me);
        CHECK(n == fl_relay_pairs_counted(&g, me),
              "an incomplete grid's relay count must be the counted one");
        most = n > most ? n : most;
    }
    CHECK(most > 0, "on a 3x3 grid with 7 ranks some rank relays");
}

/* The box bound holds for every rank of complete and incomplete grids,
 * whatever detours the hops take around empty positions. */
static void test_relay_pairs_box_bounds_every_rank(void)
{
    static const int grids[][5] = {{7, 2, 3, 3, 0},   {11, 2, 4, 3, 0},
                                   {23, 3, 3, 3, 3},  {17, 3, 2, 3, 3},
                                   {30, 3, 4, 3, 3},  {24, 3, 2, 3, 4},
                                   {61, 2, 8, 8, 0}};
    for (int k = 0; k < (int)(sizeof grids / sizeof grids[0]); k++) {
        rt_grid g = grid_of_row(grids[k], k);
        check_every_rank_relays(&g, k, 0, fl_relay_pairs_box(&g),
                                "the box bound");
    }
}

/* Above FL_COUNTED_MAX an incomplete grid's count is the box bound: for
 * the grid auto builds at 1,048,576 ranks, P-free, not (P-1)(P-2). */
static void test_relay_pairs_of_a_large_incomplete_grid_do_not_grow_with_p(void)
{
    rt_grid g;
    int dims[6] = {11, 10, 10, 10, 10, 10};
    CHECK(rt_grid_init(&g, 1048576, 6, dims) == 0, "11x10^5 holds 2^20 ranks");
    uint64_t n = fl_relay_pairs(&g, 0);
    CHECK(n == fl_relay_pairs_box(&g),
          "above %d ranks an incomplete grid counts the box bound", FL_COUNTED_MAX);
    CHECK(n == 21ull * 19 * 19 * 19 * 19 * 19 - 2ull * 1100000 + 1,
          "the box bound of 11x10x10x10x10x10 is 21 x 19^5 - 2 x 1,100,000 + 1, "
          "got %llu", (unsigned long long)n);
}

static void test_direct_topology_relays_nothing(void)
{
    rt_grid g;
    int dims[1] = {64};
    rt_grid_init(&g, 64, 1, dims);
    CHECK(fl_relay_pairs(&g, 5) == 0, "one hop: nothing is relayed");
}

/* The figures of docs/design/flow-control.md: the bound at 16, 1,024 and
 * 65,536 ranks.  A rank's own eager items in flight are at most P-1 base
 * windows (half the pool) and its grown windows (the other half). */
static void test_bound_on_one_node_does_not_grow_with_ranks(void)
{
    fl_params p16 = one_node(16), p1k = one_node(1024), p64k = one_node(65536);
    uint64_t b16 = fl_memory_bound(&p16), b1k = fl_memory_bound(&p1k),
             b64k = fl_memory_bound(&p64k);
    uint64_t pool = CFG_DEFAULT_EAGER_POOL, top = 384 * MiB + 68 * KiB;
    CHECK(b16 == 19 * KiB + 2 * pool +
                     4 * (15 * (pool / 2 / 15) + pool / 2),
          "16 ranks, one node: 4 + 15 blocks of 1 KiB + 2 pools + 4 x (15 "
          "base windows of 32 MiB / 15 + 32 MiB); got %llu",
          (unsigned long long)b16);
    CHECK(b16 <= top && b1k <= top && b64k <= top,
          "the bound must not grow with the number of ranks (at most 384 MiB "
          "+ 68 KiB): %llu at 16, %llu at 1,024, %llu at 65,536",
          (unsigned long long)b16, (unsigned long long)b1k,
          (unsigned long long)b64k);
    CHECK(b64k >= 384 * MiB && b1k >= 384 * MiB,
          "every rank count pays the same 2 + 4 pools: %llu at 1,024, %llu "
          "at 65,536", (unsigned long long)b1k, (unsigned long long)b64k);
}

static void test_bound_across_nodes_does_not_grow_with_ranks(void)
{
    fl_params p16 = across_nodes(32), p1k = across_nodes(1024),
              p64k = across_nodes(65536);
    uint64_t b = fl_memory_bound(&p16), b1k = fl_memory_bound(&p1k),
             b64k = fl_memory_bound(&p64k);
    /* 2 + 4 pools, the relay term 4 x (N-1) x pool x P/(P-1) with N = 2,
     * and the fixed buffers. */
    uint64_t fixed = (4 + FL_FILL_CAP) * CFG_NETWORK_BUFFER_SIZE;
    uint64_t limit = 10 * CFG_DEFAULT_EAGER_POOL + CFG_DEFAULT_EAGER_POOL / 8 +
                     fixed;
    CHECK(b <= limit && b1k <= limit && b64k <= limit,
          "across nodes (nodes x 16) the bound must stay under 10 pools and "
          "the fixed buffers (%llu): got %llu at 32, %llu at 1,024, %llu at "
          "65,536", (unsigned long long)limit, (unsigned long long)b,
          (unsigned long long)b1k, (unsigned long long)b64k);
    CHECK(b64k < b1k + b1k / 100,
          "from 1,024 to 65,536 ranks the bound must not grow: %llu, %llu",
          (unsigned long long)b1k, (unsigned long long)b64k);
}

#define MS ((uint64_t)1000000)

static void test_silence_without_steal_is_not_excused(void)
{
    CHECK(fl_silence_excuse(0, 90 * MS, 0) == 0,
          "a receiver silent while the host took nothing is silent: "
          "excused %llu ns", (unsigned long long)fl_silence_excuse(0, 90 * MS, 0));
}

static void test_steal_during_the_silence_is_excused(void)
{
    uint64_t e = fl_silence_excuse(40 * MS, 90 * MS, 0);
    CHECK(e == 40 * MS,
          "40 ms taken by the host during a 90 ms silence must excuse 40 ms, "
          "got %llu ns", (unsigned long long)e);
}

static void test_steal_summed_over_cores_excuses_no_more_than_the_time_passed(void)
{
    uint64_t e = fl_silence_excuse(180 * MS, 90 * MS, 0);
    CHECK(e == 90 * MS,
          "180 ms of steal over two cores in 90 ms must excuse 90 ms, the "
          "time that passed, got %llu ns", (unsigned long long)e);
}

static void test_a_wait_excuses_at_most_a_second_in_all(void)
{
    uint64_t excused = 0, looks = 0;
    while (looks < 100) {
        uint64_t e = fl_silence_excuse(100 * MS, 100 * MS, excused);
        if (!e)
            break;
        excused += e;
        looks++;
    }
    CHECK(excused == FL_EXCUSE_MAX && looks == 10,
          "a host that takes every core for good must excuse 1 s (10 "
          "silences of 100 ms) and then none: excused %llu ns in %llu looks",
          (unsigned long long)excused, (unsigned long long)looks);
}

static void test_steal_is_the_eighth_column_of_the_cpu_line(void)
{
    const char *stat =
        "cpu  2255 34 2290 22625563 6290 127 456 731 0 0\n"
        "cpu0 1132 34 1441 11311718 3675 127 438 400 0 0\n"
        "intr 114930548 113199788 6 0 1 1 0 0 0\n";
    CHECK(fl_steal_ticks(stat) == 731,
          "steal of /proc/stat's cpu line (731 ticks) read as %llu",
          (unsigned long long)fl_steal_ticks(stat));
}

static void test_a_cpu_line_without_steal_reads_as_none(void)
{
    const char *old_kernel = "cpu  2255 34 2290 22625563 6290 127 456\n";
    const char *no_cpu = "intr 114930548 113199788 6 0 1 1 0 0 0\n";
    const char *garbled = "cpu  2255 34 x 22625563 6290 127 456 731\n";
    CHECK(fl_steal_ticks(old_kernel) == 0 && fl_steal_ticks(no_cpu) == 0 &&
              fl_steal_ticks(garbled) == 0 && fl_steal_ticks("") == 0,
          "a kernel that counts no steal must read as 0: got %llu, %llu, "
          "%llu", (unsigned long long)fl_steal_ticks(old_kernel),
          (unsigned long long)fl_steal_ticks(no_cpu),
          (unsigned long long)fl_steal_ticks(garbled));
}

int main(void)
{
    RUN(test_base_window_is_half_the_pool_shared_by_the_other_ranks);
    RUN(test_base_window_is_capped_for_small_jobs);
    RUN(test_credit_goes_back_in_steps_of_at_most_256_KiB);
    RUN(test_a_window_below_the_least_growth_returns_no_steps);
    RUN(test_a_relay_caps_the_growth_a_stall_asks_for);
    RUN(test_a_demanding_pair_grows_to_the_largest_window_in_few_steps);
    RUN(test_growth_stays_within_what_is_unlent_and_accepted);
    RUN(test_relay_pairs_formula_matches_counting_on_complete_grids);
    RUN(test_relay_pairs_on_incomplete_grids_are_counted);
    RUN(test_relay_pairs_box_bounds_every_rank);
    RUN(test_relay_pairs_of_a_large_incomplete_grid_do_not_grow_with_p);
    RUN(test_direct_topology_relays_nothing);
    RUN(test_bound_on_one_node_does_not_grow_with_ranks);
    RUN(test_bound_across_nodes_does_not_grow_with_ranks);
    RUN(test_silence_without_steal_is_not_excused);
    RUN(test_steal_during_the_silence_is_excused);
    RUN(test_steal_summed_over_cores_excuses_no_more_than_the_time_passed);
    RUN(test_a_wait_excuses_at_most_a_second_in_all);
    RUN(test_steal_is_the_eighth_column_of_the_cpu_line);
    RUN(test_a_cpu_line_without_steal_reads_as_none);
    CHECK_MAIN_END();
}
