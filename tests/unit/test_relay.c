/* test_relay: router/relay.h's relayed pairs, counted by classes of pairs,
 * against the routes counted one by one (router/flow.h's
 * fl_relay_pairs_counted) on every rank of every grid of 2 and 3
 * dimensions of sizes 1 to 4 and 4 dimensions of 1 to 3, complete and
 * with its last row 1, half and all but 1 full; and the memory bound they
 * give omnibus-plan at scale, against the box bound it replaces. */
#include "router/flow.h"
#include "router/relay.h"
#include "tests/unit/check.h"

/* Every sizes vector of nd dimensions of 1..max, in turn; 0 after the
 * last. */
static int next_sizes(int nd, int max, int *dims)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (++dims[d] <= max)
            return 1;
        dims[d] = 1;
    }
    return 0;
}

static void test_every_rank_relays_the_pairs_its_routes_pass(void)
{
    int grids = 0, bad = 0, bad_max = 0;
    for (int nd = 2; nd <= 4; nd++) {
        int dims[RT_MAX_DIMS] = {1, 1, 1, 1};
        do {
            int box = 1;
            for (int d = 0; d < nd; d++)
                box *= dims[d];
            int row = box / dims[0];
            int counts[] = {box, box - row + 1, box - row / 2, box - 1};
            for (int c = 0; c < 4; c++) {
                int P = counts[c];
                rt_grid g;
                if (rt_grid_init(&g, P, nd, dims) != 0)
                    continue;
                uint64_t most = 0;
                for (int me = 0; me < P; me++) {
                    uint64_t counted = fl_relay_pairs_counted(&g, me);
                    bad += rl_relay_pairs(&g, me) != counted;
                    most = counted > most ? counted : most;
                }
                bad_max += rl_relay_pairs_max(&g) != most;
                grids++;
            }
        } while (next_sizes(nd, nd < 4 ? 4 : 3, dims));
    }
    CHECK(bad == 0 && bad_max == 0,
          "on each of %d grids (2 and 3 dimensions of 1 to 4, 4 of 1 to 3; "
          "complete or with a partial last row), every rank must relay "
          "exactly the pairs whose routes pass it, and the most any rank "
          "relays must be the largest: %d ranks and %d grids differed",
          grids, bad, bad_max);
}

static void test_the_bound_of_auto_s_incomplete_grids_stays_near_complete_ones(
    void)
{
    /* auto's grid at 2^20 ranks, one short of its 11 x 10^5 box, against
     * the complete grid of 10^6: the box bound made its relay term up to
     * 2^6 times the exact count. */
    rt_grid big, complete;
    rt_grid_init(&big, 1 << 20, 6, (int[]){11, 10, 10, 10, 10, 10});
    rt_grid_init(&complete, 1000000, 6, (int[]){10, 10, 10, 10, 10, 10});
    fl_params a = {.pool = 64 << 20, .block = 1024, .nranks = 1 << 20,
                   .npeers = 55, .relay_pairs = rl_relay_pairs_max(&big)};
    fl_params b = {.pool = 64 << 20, .block = 1024, .nranks = 1000000,
                   .npeers = 54,
                   .relay_pairs = rl_relay_pairs_max(&complete)};
    double ratio = (double)fl_memory_bound(&a) / (double)fl_memory_bound(&b);
    CHECK(ratio >= 1 && ratio < 1.1,
          "2^20 ranks on 11x10x10x10x10x10 relay about what 10^6 do on "
          "10^6: the memory bound must be at least the smaller job's and "
          "within 10%% of it, got %.3f times", ratio);
}

int main(void)
{
    RUN(test_every_rank_relays_the_pairs_its_routes_pass);
    RUN(test_the_bound_of_auto_s_incomplete_grids_stays_near_complete_ones);
    CHECK_MAIN_END();
}
