/* test_plan_model: omnibus-plan's closed forms (plan/model.h) against
 * routes counted one by one with the library's router, on every small
 * grid; and the simulation's regimes (plan/sim.h) against their closed
 * forms. */
#include "plan/job.h"
#include "router/choose.h"
#include "router/evict.h"
#include "tests/unit/check.h"

#include <math.h>

static int close_to(double a, double b, double tol)
{
    return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Complete grids of up to 3 dimensions with sizes 1..5 (and up to 60
 * ranks), every one tried. */
static int next_grid(int *nd, int *dims)
{
    for (int d = *nd - 1; d >= 0; d--) {
        if (++dims[d] <= 5)
            return 1;
        dims[d] = 2;
    }
    if (*nd == 3)
        return 0;
    (*nd)++;
    for (int d = 0; d < *nd; d++)
        dims[d] = 2;
    return 1;
}

static void test_hop_counts_match_counted_routes_on_complete_grids(void)
{
    int nd = 1, dims[RT_MAX_DIMS] = {2}, grids = 0, bad = 0;
    do {
        int P = 1;
        for (int d = 0; d < nd; d++)
            P *= dims[d];
        rt_grid g;
        rt_grid_init(&g, P, nd, dims);
        double e[RT_MAX_DIMS + 1], counted[RT_MAX_DIMS + 1] = {0};
        pl_hop_counts(&g, e);
        for (int t = 0; t < P; t++)
            counted[rt_grid_route_length(&g, 0, t)]++;
        for (int a = 0; a <= nd; a++)
            bad += counted[a] != e[a];
        grids++;
    } while (next_grid(&nd, dims));
    CHECK(bad == 0, "on %d complete grids the destinations a hops away "
                    "must be the elementary symmetric polynomials of "
                    "s_d - 1; %d counts differed", grids, bad);
}

static void test_per_dimension_hops_match_counted_routes(void)
{
    int nd = 1, dims[RT_MAX_DIMS] = {2}, bad = 0, grids = 0;
    do {
        int P = 1;
        for (int d = 0; d < nd; d++)
            P *= dims[d];
        rt_grid g;
        rt_grid_init(&g, P, nd, dims);
        double all[RT_MAX_DIMS] = {0}, first[RT_MAX_DIMS] = {0};
        for (int s = 0; s < P; s++)
            for (int t = 0; t < P; t++)
                for (int at = s; at != t;) {
                    int next = rt_grid_next_hop(&g, at, t);
                    int d = rt_grid_hop_dim(&g, at, next);
                    all[d] += 1.0 / ((double)P * (P - 1));
                    if (at == s)
                        first[d] += 1.0 / ((double)P * (P - 1));
                    at = next;
                }
        for (int d = 0; d < nd; d++) {
            bad += !close_to(pl_dim_hops_per_send(&g, d), all[d], 1e-12);
            bad += !close_to(pl_dim_first_hops_per_send(&g, d), first[d],
                             1e-12);
        }
        grids++;
    } while (next_grid(&nd, dims));
    CHECK(bad == 0, "on %d complete grids hops and first hops per send "
                    "along each dimension must match the routes counted "
                    "pair by pair; %d differed", grids, bad);
}

/* The closed form a rank of a large complete grid uses, and the routes the
 * model counts on a small one, give every rank the same append rates. */
static void test_counted_rates_of_a_complete_grid_are_the_closed_forms(void)
{
    int dims[3] = {3, 4, 5};
    rt_grid g;
    rt_grid_init(&g, 60, 3, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_UNIFORM}, NULL, 17, &t);
    double per_dim[3] = {0};
    for (int i = 0; i < t.npeers; i++)
        per_dim[t.dim[i]] += t.own[i] + t.relay[i];
    int bad = 0;
    for (int d = 0; d < 3; d++)
        bad += !close_to(per_dim[d], pl_dim_hops_per_send(&g, d), 1e-12);
    CHECK(t.npeers == pl_complete_peers(&g) && bad == 0,
          "rank 17 of 3x4x5 must have sum(s_d - 1) = 9 peers (got %d) and "
          "append (P - P/s_d)/(P - 1) items per send along d (%d dims "
          "differed)", t.npeers, bad);
    pl_traffic_free(&t);
}

static void test_relay_shares_by_dimension_match_counted_routes(void)
{
    int dims[3] = {3, 4, 5};
    rt_grid g;
    rt_grid_init(&g, 60, 3, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_UNIFORM}, NULL, 0, &t);
    int bad = 0;
    for (int e = 0; e < 3; e++) {
        bad += !close_to(t.in_dim[e], pl_dim_hops_per_send(&g, e), 1e-12);
        for (int d = 0; d < 3; d++)
            bad += !close_to(t.relay_dim[e][d],
                             pl_relay_dim_per_send(&g, e, d), 1e-12);
    }
    CHECK(bad == 0, "on 3x4x5 the items a rank forwards along d of those "
                    "that came over e must be (s_e-1)(s_d-1) prod_{f>e} s_f "
                    "prod_{f<d} s_f / (P-1) for d < e and 0 otherwise, as "
                    "the routes counted pair by pair say; %d differed", bad);
    pl_traffic_free(&t);
}

static void test_incomplete_grid_routes_are_counted_exactly(void)
{
    int dims[2] = {3, 3};
    rt_grid g;
    rt_grid_init(&g, 7, 2, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_UNIFORM}, NULL, 0, &t);
    double fwd = 0;
    for (int a = 2; a <= 2; a++)
        fwd += (a - 1) * t.hops[a];
    int two = 0;
    for (int s = 0; s < 7; s++)
        for (int d = 0; d < 7; d++)
            two += s != d && rt_grid_route_length(&g, s, d) == 2;
    CHECK(t.exact && close_to(fwd, two / 42.0, 1e-12),
          "7 ranks on 3x3: forwarded items per send must be the share of "
          "two-hop routes, %d of 42, got %g", two, fwd);
    pl_traffic_free(&t);
}

/* One rank of `nranks` under `direct` with uniform traffic, simulated
 * with the library's own leaving rules. */
static void simulate_direct(int nranks, const pl_sim_params *p,
                            pl_sim_result *r)
{
    int dims[1] = {nranks};
    rt_grid g;
    rt_grid_init(&g, nranks, 1, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_UNIFORM}, NULL, 0, &t);
    pl_sim_rank(&t, p, r);
    pl_traffic_free(&t);
}

static void test_cap_regime_carries_k_over_k_minus_open_items(void)
{
    pl_sim_params p = {.block = 1 << 20, .item = 32, .cap = 64,
                       .idle_rounds = 1000000, .k = 0, .n = 200000};
    pl_sim_result r;
    simulate_direct(1001, &p, &r);
    double open = EV_START_SHARE * 64;
    double ipb = r.appended / r.blocks, want = 1000.0 / (1000 - open);
    CHECK(close_to(ipb, want, 0.02),
          "1,000 peers under a cap of 64 blocks of 1 MiB: each buffer opens "
          "with a quarter block, so %.0f fill at once and a block must carry "
          "about K/(K - %.0f) = %.3f items, got %.3f", open, open, want, ipb);
}

static void test_peers_within_the_open_buffers_are_not_capped(void)
{
    pl_sim_params p = {.block = 1 << 20, .item = 32, .cap = 64,
                       .idle_rounds = 1000000, .k = 0, .n = 200000};
    pl_sim_result r;
    simulate_direct(201, &p, &r);
    CHECK(r.cap == 0,
          "200 peers under a cap of 64 blocks of 1 MiB open 256 KiB each, "
          "51 MiB in all: none may ship for the cap, got %.0f", r.cap);
}

static void test_full_regime_fills_every_block(void)
{
    pl_sim_params p = {.block = 1024, .item = 32, .cap = 64,
                       .idle_rounds = 16, .k = 64, .n = 96000};
    pl_sim_result r;
    simulate_direct(4, &p, &r);
    CHECK(r.full >= r.blocks - 3 && close_to(r.appended / r.blocks, 32, 0.01),
          "3 peers, 1 KiB buffers of 32-byte items, polls every 64 sends: "
          "every block but the last ones must leave full with 32 items, got "
          "%.0f full of %.0f blocks", r.full, r.blocks);
}

static void test_idle_regime_matches_its_closed_form(void)
{
    pl_sim_params p = {.block = 1 << 20, .item = 32, .cap = 64,
                       .idle_rounds = 4, .k = 1, .n = 400000};
    pl_sim_result r;
    simulate_direct(4, &p, &r);
    rc_rule rule = {.block = 1 << 20, .item = 32, .idle_rounds = 4,
                    .cap = 64, .poll = 1};
    int dims[1] = {4};
    double want = 1 / rc_score(&rule, 4, 1, dims);
    CHECK(close_to(r.appended / r.blocks, want, 0.05),
          "4 ranks direct polling after every send, OMNIBUS_IDLE_ROUNDS=4: "
          "3 buffers of which a round writes one wait 4 x 3 rounds, so a "
          "block must carry about 1/q^12 = %.2f items (q = 2/3), got %.2f",
          want, r.appended / r.blocks);
}

static void test_stencil_grid_is_mpi_dims_create(void)
{
    static const int cases[][3] = {{4, 2, 2}, {6, 3, 2}, {8, 4, 2},
                                   {12, 4, 3}, {7, 7, 1}, {1000000, 1000,
                                   1000}};
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int dims[2];
        pl_stencil_dims(cases[i][0], dims);
        bad += dims[0] != cases[i][1] || dims[1] != cases[i][2];
    }
    CHECK(bad == 0, "the stencil's process grid must be MPI_Dims_create(P, "
                    "2)'s (4: 2x2, 6: 3x2, 8: 4x2, 12: 4x3, 7: 7x1, 10^6: "
                    "1000x1000); %d differed", bad);
}

/* Rank 0's own sends per send under `pat`, on `direct` of P ranks. */
static void own_shares(int P, const pl_pattern *pat, double *own)
{
    int dims[1] = {P};
    rt_grid g;
    rt_grid_init(&g, P, 1, dims);
    pl_traffic t;
    pl_traffic_of(&g, pat, NULL, 0, &t);
    for (int i = 0; i < t.npeers; i++)
        own[t.peer[i]] = t.own[i];
    pl_traffic_free(&t);
}

static void test_moore_stencil_on_a_grid_two_wide_repeats_neighbours(void)
{
    double own[4] = {0};
    own_shares(4, &(pl_pattern){.kind = PL_MOORE2D}, own);
    CHECK(close_to(own[1], 2.0 / 8, 1e-12) && close_to(own[2], 2.0 / 8, 1e-12)
              && close_to(own[3], 4.0 / 8, 1e-12),
          "on the 2x2 process grid of 4 ranks, rank 0's 8 neighbours are "
          "rank 1 twice, rank 2 twice and rank 3 (the diagonal) four times "
          "(halo -g moore2d sends to each); got shares %g, %g, %g",
          own[1], own[2], own[3]);
}

static void test_measured_sends_set_each_rank_s_shares(void)
{
    double sends[25] = {0};
    sends[0 * 5 + 1] = 3; /* rank 0: three to rank 1, one to rank 4 */
    sends[0 * 5 + 4] = 1;
    sends[0 * 5 + 0] = 7; /* to itself: no share of the routes */
    double own[5] = {0};
    own_shares(5, &(pl_pattern){.kind = PL_MEASURED, .sends = sends}, own);
    CHECK(close_to(own[1], 0.75, 1e-12) && close_to(own[4], 0.25, 1e-12) &&
              own[2] == 0 && own[3] == 0,
          "a statistics file in which rank 0 sent 3 messages to rank 1 and "
          "1 to rank 4 must give rank 0's sends 3/4 to rank 1 and 1/4 to "
          "rank 4, none elsewhere; got %g, %g, %g, %g",
          own[1], own[2], own[3], own[4]);
}

static void test_blocking_calls_ship_one_block_per_neighbour(void)
{
    int dims[1] = {4};
    rt_grid g;
    rt_grid_init(&g, 4, 1, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_MOORE2D}, NULL, 0, &t);
    pl_sim_params p = {.block = 16384, .item = 32, .cap = 64,
                       .idle_rounds = 16, .k = 0, .n = 8000,
                       .blocking = 8, .ordered = 1};
    pl_sim_result r;
    pl_sim_rank(&t, &p, &r);
    pl_traffic_free(&t);
    CHECK(r.blocks == 3000 && r.end == 3000,
          "a stencil rank of 4 that sends to its 8 neighbours (3 ranks) and "
          "then blocks, 1,000 times, ships every buffer at each blocking "
          "call: 3,000 blocks before blocking, got %.0f (%.0f before "
          "blocking)", r.blocks, r.end);
}

/* Forwarded items the job's own hop histogram implies: every send a hops
 * away is forwarded a - 1 times. */
static double forwarded_by_hops(const pl_job *j, int ndims)
{
    double f = 0;
    for (int a = 2; a <= ndims; a++)
        f += (a - 1) * j->hops[a];
    return f;
}

static void predict_pairs(int P, int ndims, const int *dims, pl_job *j)
{
    rt_grid g;
    rt_grid_init(&g, P, ndims, dims);
    pl_sim_params p = {.block = 16384, .item = 32, .cap = 64,
                       .idle_rounds = 16, .k = 0, .n = 20000,
                       .ordered = 1};
    pl_job_predict(&g, &(pl_pattern){.kind = PL_PAIRS}, NULL, &p, j);
}

static void test_a_stream_through_a_relay_that_sends_nothing_is_forwarded(void)
{
    /* 8 ranks on 3x3: 3 -> 7 goes through 4, which only receives; 0 -> 4
     * through 1 and 2 -> 6 through 0, which send too. */
    pl_job j;
    predict_pairs(8, 2, (int[]){3, 3}, &j);
    double want = forwarded_by_hops(&j, 2);
    CHECK(want == 80000 && j.forwarded == want,
          "4 streams of 20,000 sends, each 2 hops on 3x3 (one relayed by a "
          "rank that sends nothing): every item is forwarded once, %.0f "
          "forwarded items by the hop histogram; the plan forwarded %.0f",
          want, j.forwarded);
}

static void test_a_sampled_job_forwards_what_its_hop_histogram_implies(void)
{
    /* Above PL_EACH_MAX ranks some ranks stand for all: rank 0 alone,
     * which relays more than most, forwarded twice the histogram's. */
    pl_job j;
    predict_pairs(128, 3, (int[]){6, 5, 5}, &j);
    double want = forwarded_by_hops(&j, 3);
    CHECK(j.nsim == PL_EACH_MAX && close_to(j.forwarded, want, 0.05),
          "128 ranks streaming in pairs on 6x5x5: the plan's forwarded items "
          "must be within 5%% of the %.0f its hop histogram implies, got "
          "%.0f (from %d simulated ranks)", want, j.forwarded, j.nsim);
}

/* One rank of `dims` under `pat`, with 512-byte base windows (the rule
 * of 65,536 ranks and a 64 MiB pool). */
static void simulate_windows(int P, int ndims, const int *dims,
                             pl_pattern_kind kind, long k, long n,
                             pl_sim_result *r)
{
    rt_grid g;
    rt_grid_init(&g, P, ndims, dims);
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = kind}, NULL, 0, &t);
    pl_sim_params p = {.block = 16384, .item = 32, .cap = 64,
                       .idle_rounds = 16, .k = k, .n = n,
                       .ordered = kind == PL_PAIRS, .window = 512};
    pl_sim_rank(&t, &p, r);
    pl_traffic_free(&t);
}

static void test_a_stream_that_never_polls_stalls_at_every_window(void)
{
    /* 640,000 bytes: stalls at 512, then at each window sent since, as it
     * doubles from 66,048 (512 + FL_GROW_MIN): 66,560, 198,656, 462,848. */
    pl_sim_result r;
    simulate_windows(4, 2, (int[]){2, 2}, PL_PAIRS, 0, 20000, &r);
    CHECK(r.stalls == 4 && r.grants == 4 && r.window_max == 528384,
          "a stream of 20,000 32-byte items that never polls, from a "
          "512-byte window: 4 stalls, each answered by a grant, to a window "
          "of 528,384 bytes; got %.0f stalls, %.0f grants, %.0f bytes",
          r.stalls, r.grants, r.window_max);
}

static void test_a_polling_sender_stalls_once_per_destination(void)
{
    /* 10,000 sends to 7 others polling every 64: 1,428 items each, past
     * the 512-byte window once; from 66,048 bytes on, credit steps keep
     * up. */
    pl_sim_result r;
    simulate_windows(8, 1, (int[]){8}, PL_UNIFORM, 64, 10000, &r);
    CHECK(r.stalls == 7 && r.window_max == 66048,
          "a rank sending 10,000 items at random to 7 others and polling "
          "every 64 sends stalls once per destination, growing each window "
          "to 66,048 bytes; got %.0f stalls, %.0f bytes", r.stalls,
          r.window_max);
}

static void test_alltoall_rounds_keep_every_buffer_open_under_a_small_cap(
    void)
{
    /* alltoall_items sends to each of 7 others once per round, in a fresh
     * order: within a round no destination repeats.  When the cap counted
     * buffers, 2 filling at once meant the next send almost never found its
     * buffer open (about 1 item a block; 0.391 wire messages per send
     * measured on 2x2x2).  Counted in bytes, the cap of two 1 KiB blocks
     * holds 7 buffers that open with a quarter block each (router/evict.h),
     * so every buffer stays open and leaves only when it must grow past the
     * cap: at least the 4 items of 56 bytes a quarter block holds. */
    rt_grid g;
    rt_grid_init(&g, 8, 1, (int[]){8});
    pl_traffic t;
    pl_traffic_of(&g, &(pl_pattern){.kind = PL_ALLTOALL}, NULL, 0, &t);
    pl_sim_params p = {.block = 1024, .item = 56, .cap = 2,
                       .idle_rounds = 16, .k = 64, .n = 19999, .rounds = 1};
    pl_sim_result r;
    pl_sim_rank(&t, &p, &r);
    pl_traffic_free(&t);
    double ipb = r.appended / r.blocks;
    CHECK(ipb >= 4 && r.full == 0,
          "rounds of one send to each of 7 others under a cap of two 1 KiB "
          "blocks: all 7 buffers open with 256 bytes and a block carries at "
          "least the 4 items that room holds, none leaving full; got %.3f "
          "items a block and %.0f full", ipb, r.full);
}

int main(void)
{
    RUN(test_hop_counts_match_counted_routes_on_complete_grids);
    RUN(test_per_dimension_hops_match_counted_routes);
    RUN(test_counted_rates_of_a_complete_grid_are_the_closed_forms);
    RUN(test_relay_shares_by_dimension_match_counted_routes);
    RUN(test_incomplete_grid_routes_are_counted_exactly);
    RUN(test_cap_regime_carries_k_over_k_minus_open_items);
    RUN(test_peers_within_the_open_buffers_are_not_capped);
    RUN(test_full_regime_fills_every_block);
    RUN(test_idle_regime_matches_its_closed_form);
    RUN(test_stencil_grid_is_mpi_dims_create);
    RUN(test_moore_stencil_on_a_grid_two_wide_repeats_neighbours);
    RUN(test_measured_sends_set_each_rank_s_shares);
    RUN(test_blocking_calls_ship_one_block_per_neighbour);
    RUN(test_a_stream_through_a_relay_that_sends_nothing_is_forwarded);
    RUN(test_a_sampled_job_forwards_what_its_hop_histogram_implies);
    RUN(test_a_stream_that_never_polls_stalls_at_every_window);
    RUN(test_a_polling_sender_stalls_once_per_destination);
    RUN(test_alltoall_rounds_keep_every_buffer_open_under_a_small_cap);
    CHECK_MAIN_END();
}
