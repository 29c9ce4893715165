/* test_learn: a pair's path learned from the time between its sends
 * (router/learn.h), on machines made of injected costs: each send takes
 * the cost of the path it was given, on a clock of the test's own. */
#include "router/learn.h"
#include "router/paths.h"
#include "tests/unit/check.h"

/* A machine: what one send costs, in ns, on each path; `until` sends in,
 * the costs become `later` (a machine that changes state).  `partner`
 * ns more go into every interval whatever the path (the reply of a
 * ping-pong), and each interval varies by up to `jitter` of itself
 * either way (a fixed pseudo-random sequence). */
typedef struct {
    uint64_t cost[PA_PATHS];
    uint64_t later[PA_PATHS];
    long until;
    uint64_t partner;
    double jitter;
} machine;

typedef struct {
    long sends[PA_PATHS];      /* over the whole run */
    long tail[PA_PATHS];       /* over its last quarter */
} tally;

/* Runs `n` sends of one lane (peer 3, 64 KiB) on machine m, starting from
 * `prior`; `spike` > 0 makes that send take a second. */
static tally run(ln_table *t, machine m, enum pa_path prior, long n,
                 long spike)
{
    tally y = {{0}, {0}};
    ln_lane *l = ln_lane_of(t, 3, ln_class(65536), prior);
    uint64_t now = 1000;
    uint32_t seed = 12345;
    for (long i = 0; i < n; i++) {
        enum pa_path p = ln_pick(t, l, now);
        y.sends[p]++;
        if (i >= n - n / 4)
            y.tail[p]++;
        uint64_t d = m.partner + (i < m.until || m.until < 0 ? m.cost[p]
                                                             : m.later[p]);
        seed = seed * 1664525u + 1013904223u;
        d = (uint64_t)((double)d *
                       (1.0 + m.jitter * ((double)(seed >> 8) / (1 << 23) - 1.0)));
        now += i == spike ? 1000000000u : d;
    }
    return y;
}

static ln_table fresh(enum ln_mode mode)
{
    ln_table t;
    ln_init(&t, mode);
    return t;
}

static void test_a_right_prior_is_kept_and_the_other_path_seldom_tried(void)
{
    ln_table t = fresh(LN_LEARN);
    machine alone_wins = {{5000, 12000}, {0, 0}, -1, 0, 0};
    tally y = run(&t, alone_wins, PA_ALONE, 200000, -1);
    CHECK(t.switches == 0,
          "a lane whose first path is 2.4x faster keeps it; switched %llu "
          "times", (unsigned long long)t.switches);
    CHECK(y.tail[PA_APART] * 1000 < y.tail[PA_ALONE] * 2,
          "once settled, at most LN_EPOCH sends in LN_KEEP_MAX go on the "
          "slower path to look again (under 0.2%%); got %ld of %ld",
          y.tail[PA_APART], y.tail[PA_ALONE] + y.tail[PA_APART]);
}

static void test_a_wrong_prior_is_left_after_the_first_cycle(void)
{
    ln_table t = fresh(LN_LEARN);
    machine apart_wins = {{20000, 12000}, {0, 0}, -1, 0, 0};
    tally y = run(&t, apart_wins, PA_ALONE, 20000, -1);
    CHECK(t.switches == 1,
          "the first trial of the faster path takes it, once; switched "
          "%llu times", (unsigned long long)t.switches);
    CHECK(y.sends[PA_ALONE] <= (long)LN_KEEP_MIN + 10 * LN_EPOCH,
          "after the first KEEP and BASE only the TRY of each later cycle "
          "(9 at most in 20000 sends) goes the slow way; "
          "%ld of 20000 sends did", y.sends[PA_ALONE]);
}

static void test_a_path_a_little_faster_does_not_win(void)
{
    ln_table t = fresh(LN_LEARN);
    machine near = {{10000, 9700}, {0, 0}, -1, 0, 0};
    run(&t, near, PA_ALONE, 50000, -1);
    CHECK(t.trials > 0 && t.switches == 0,
          "a path 3%% faster is within the smaller margin (%.0f%%) and "
          "never replaces the lane's; %llu switches in %llu trials",
          LN_MARGIN_STEADY * 100, (unsigned long long)t.switches,
          (unsigned long long)t.trials);
}

static void test_a_steady_path_a_tenth_faster_wins(void)
{
    ln_table t = fresh(LN_LEARN);
    machine steady = {{10000, 9000}, {0, 0}, -1, 0, 0.01};
    run(&t, steady, PA_ALONE, 50000, -1);
    CHECK(t.switches == 1,
          "a path 10%% faster, within the median margin (%.0f%%) but with "
          "intervals that vary by 1%%, is taken at the first trial and "
          "kept; %llu switches in %llu trials",
          LN_MARGIN * 100, (unsigned long long)t.switches,
          (unsigned long long)t.trials);
}

static void test_a_ping_pong_takes_the_path_that_shortens_its_half(void)
{
    /* The partner's send, 9.3 us, is in every interval: the read path
     * (6.7 us against the ring's 9.3) shortens the interval by 14%. */
    ln_table t = fresh(LN_LEARN);
    machine pingpong = {{9300, 6700}, {0, 0}, -1, 9300, 0.02};
    tally y = run(&t, pingpong, PA_ALONE, 20000, -1);
    CHECK(t.switches == 1 && y.tail[PA_APART] > 0 &&
              y.tail[PA_ALONE] * 100 < y.tail[PA_APART],
          "a path that cuts one direction of a ping-pong from 9.3 to 6.7 "
          "us, the other direction unchanged, is taken once and kept; "
          "%llu switches, the last quarter alone %ld, apart %ld",
          (unsigned long long)t.switches, y.tail[PA_ALONE],
          y.tail[PA_APART]);
}

static void test_equal_paths_that_vary_seldom_switch(void)
{
    ln_table t = fresh(LN_LEARN);
    machine equal = {{10000, 10000}, {0, 0}, -1, 0, 0.10};
    run(&t, equal, PA_ALONE, 200000, -1);
    CHECK(t.trials > 0 && t.switches * 10 <= t.trials,
          "two equal paths whose intervals vary by 10%% either way switch "
          "in at most a tenth of the trials; %llu switches in %llu trials",
          (unsigned long long)t.switches, (unsigned long long)t.trials);
}

static void test_a_machine_that_changes_state_is_followed(void)
{
    ln_table t = fresh(LN_LEARN);
    machine turns = {{5000, 12000}, {20000, 12000}, 100000, 0, 0};
    tally y = run(&t, turns, PA_ALONE, 200000, -1);
    CHECK(t.switches == 1,
          "a ring that turns 4x slower halfway is left once; %llu "
          "switches", (unsigned long long)t.switches);
    CHECK(y.tail[PA_ALONE] * 100 < y.tail[PA_ALONE] + y.tail[PA_APART],
          "within a cycle of the change the lane takes the faster path, "
          "and the last quarter goes the slower one under 1%% of its sends; "
          "alone %ld, apart %ld",
          y.tail[PA_ALONE], y.tail[PA_APART]);
}

static void test_one_preempted_send_does_not_decide(void)
{
    /* Send 66 (from 0) is BASE's third: KEEP takes sends 0 to 63. */
    ln_table t = fresh(LN_LEARN);
    machine equal = {{10000, 10000}, {0, 0}, -1, 0, 0};
    run(&t, equal, PA_ALONE, (long)LN_KEEP_MIN + 2 * LN_EPOCH + 1,
        (long)LN_KEEP_MIN + 2);
    CHECK(t.trials == 1 && t.switches == 0,
          "a BASE send that took a second, among equal ones, makes no "
          "path look faster (medians); %llu switches in %llu trials",
          (unsigned long long)t.switches, (unsigned long long)t.trials);
}

static void test_the_first_keep_is_the_prior_alone(void)
{
    ln_table t = fresh(LN_LEARN);
    ln_lane *l = ln_lane_of(&t, 1, 16, PA_APART);
    int others = 0;
    for (unsigned i = 0; i < LN_KEEP_MIN + LN_EPOCH; i++)
        others += ln_pick(&t, l, 1000 + 1000 * i) != PA_APART;
    CHECK(others == 0,
          "the first LN_KEEP_MIN + LN_EPOCH sends of a lane take its prior, "
          "so a program of few large messages sends as the crossovers say; "
          "%d went the other way", others);
}

static void test_lanes_of_two_pairs_are_apart(void)
{
    ln_table t = fresh(LN_LEARN);
    ln_lane *a = ln_lane_of(&t, 1, 16, PA_ALONE);
    ln_lane *b = ln_lane_of(&t, 2, 16, PA_APART);
    ln_lane *c = ln_lane_of(&t, 1, 15, PA_APART);
    CHECK(a != b && a != c && b != c &&
              ln_pick(&t, a, 1) == PA_ALONE &&
              ln_pick(&t, b, 1) == PA_APART && ln_pick(&t, c, 1) == PA_APART,
          "each (peer, size class) has its lane and its own prior");
}

static void test_a_lane_taken_by_another_pair_restarts_from_its_prior(void)
{
    ln_table t = fresh(LN_LEARN);
    machine apart_wins = {{20000, 12000}, {0, 0}, -1, 0, 0};
    run(&t, apart_wins, PA_ALONE, 1000, -1);
    ln_lane *l = ln_lane_of(&t, 3, ln_class(65536), PA_ALONE);
    int learned = ln_pick(&t, l, 1u << 30) == PA_APART;
    int peer = 4;
    while (ln_lane_of(&t, peer, ln_class(65536), PA_APART) != l)
        peer++;
    l = ln_lane_of(&t, 3, ln_class(65536), PA_ALONE);
    CHECK(learned && ln_pick(&t, l, 1u << 31) == PA_ALONE,
          "a lane that another pair (peer %d) took over starts again from "
          "its prior; learned %d", peer, learned);
}

static void test_alternate_takes_the_paths_in_turns_from_the_prior(void)
{
    ln_table t = fresh(LN_ALTERNATE);
    ln_lane *l = ln_lane_of(&t, 1, 14, PA_APART);
    enum pa_path got[4];
    for (int i = 0; i < 4; i++)
        got[i] = ln_pick(&t, l, 0);
    CHECK(got[0] == PA_APART && got[1] == PA_ALONE && got[2] == PA_APART &&
              got[3] == PA_ALONE,
          "LN_ALTERNATE answers the prior, then each path in turn; got "
          "%d %d %d %d", got[0], got[1], got[2], got[3]);
}

static void test_a_class_is_a_power_of_two(void)
{
    CHECK(ln_class(1) == 0 && ln_class(8191) == 12 && ln_class(8192) == 13 &&
              ln_class(131071) == 16 && ln_class(131072) == 17,
          "sizes within a power of two share a lane: floor(log2 bytes); got "
          "%d %d %d %d %d", ln_class(1), ln_class(8191), ln_class(8192),
          ln_class(131071), ln_class(131072));
}

int main(void)
{
    RUN(test_a_right_prior_is_kept_and_the_other_path_seldom_tried);
    RUN(test_a_wrong_prior_is_left_after_the_first_cycle);
    RUN(test_a_path_a_little_faster_does_not_win);
    RUN(test_a_steady_path_a_tenth_faster_wins);
    RUN(test_a_ping_pong_takes_the_path_that_shortens_its_half);
    RUN(test_equal_paths_that_vary_seldom_switch);
    RUN(test_a_machine_that_changes_state_is_followed);
    RUN(test_one_preempted_send_does_not_decide);
    RUN(test_the_first_keep_is_the_prior_alone);
    RUN(test_lanes_of_two_pairs_are_apart);
    RUN(test_a_lane_taken_by_another_pair_restarts_from_its_prior);
    RUN(test_alternate_takes_the_paths_in_turns_from_the_prior);
    RUN(test_a_class_is_a_power_of_two);
    CHECK_MAIN_END();
}
