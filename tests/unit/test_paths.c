/* test_paths: the choice of where a large message leaves one path for
 * another, from injected costs (router/paths.h). */
#include "router/paths.h"
#include "tests/unit/check.h"

#define KIB ((uint64_t)1024)
/* The default the shim starts from for the ring: the ring's whole record. */
#define DFLT (128 * KIB)

/* A table of the sizes 8 KiB to 256 KiB, ring and MPI costs in µs. */
static pa_table table(const double ring[6], const double mpi[6])
{
    pa_table t = {.nsizes = 6};
    for (int i = 0; i < 6; i++) {
        t.size[i] = (8 * KIB) << i;
        t.cost[i][PA_ALONE] = ring[i];
        t.cost[i][PA_APART] = mpi[i];
    }
    return t;
}

/* Checks that the ring and MPI costs give the crossover `from` (source
 * `source`); `promise` says why, for the failure message. */
static void expect_crossover(const double ring[6], const double mpi[6],
                             uint64_t from, enum pa_source source,
                             const char *promise)
{
    pa_table t = table(ring, mpi);
    pa_choice c = pa_crossover(&t, PA_ALONE, PA_APART, DFLT);
    CHECK(c.from == from && c.source == source,
          "%s: MPI from %llu (%s); got from %llu (%s)", promise,
          (unsigned long long)from, pa_source_name(source),
          (unsigned long long)c.from, pa_source_name(c.source));
}

static void test_ring_cheaper_everywhere_keeps_the_ring_past_the_largest(void)
{
    expect_crossover((double[]){1, 2, 4, 6, 22, 42},
                     (double[]){1.5, 7, 9, 15, 30, 60}, 256 * KIB + 1,
                     PA_MEASURED,
                     "the ring cheaper at every size up to 256 KiB must "
                     "keep it up to 256 KiB");
}

static void test_mpi_cheaper_from_16k_moves_the_crossover_down_to_16k(void)
{
    expect_crossover((double[]){1.1, 2.8, 4.8, 8.2, 22, 42},
                     (double[]){1.1, 1.9, 2.7, 3.8, 22, 42}, 16 * KIB,
                     PA_MEASURED,
                     "MPI cheaper from 16 KiB must take over from 16 KiB");
}

static void test_mpi_cheaper_everywhere_takes_over_from_the_smallest(void)
{
    expect_crossover((double[]){2, 4, 8, 16, 32, 64},
                     (double[]){1, 2, 4, 8, 16, 32}, 8 * KIB, PA_MEASURED,
                     "MPI cheaper at every size must take over from the "
                     "smallest measured");
}

static void test_crossover_between_sizes_lands_at_the_first_size_mpi_wins(void)
{
    expect_crossover((double[]){1, 2, 4, 9, 30, 60},
                     (double[]){2, 3, 5, 6, 20, 40}, 64 * KIB, PA_MEASURED,
                     "the ring cheaper up to 16 KiB, neither at 32 KiB and "
                     "MPI from 64 KiB must put the crossover at 64 KiB");
}

static void test_default_inside_the_measured_interval_stays(void)
{
    /* Any crossover in (64 KiB, 256 KiB] fits; the default does. */
    expect_crossover((double[]){1, 2, 4, 6, 22, 60},
                     (double[]){2, 4, 8, 12, 22, 40}, DFLT, PA_MEASURED,
                     "ring cheaper up to 64 KiB, equal at 128 KiB, MPI "
                     "cheaper at 256 KiB must keep the default, which fits");
}

static void test_equal_costs_keep_the_default(void)
{
    expect_crossover((double[]){1, 2, 4, 8, 16, 32},
                     (double[]){1.05, 1.9, 4.2, 7.7, 16.5, 31}, DFLT,
                     PA_DEFAULT,
                     "costs equal within the margin at every size must "
                     "keep the default");
}

static void test_a_path_a_little_cheaper_does_not_win(void)
{
    expect_crossover((double[]){1, 2, 4, 8, 16, 32},
                     (double[]){1, 1.7, 3.4, 6.8, 13.6, 27.2}, DFLT,
                     PA_DEFAULT,
                     "MPI 15% cheaper from 16 KiB, less than PA_MARGIN "
                     "(25%), must not move the crossover");
}

static void test_costs_that_cross_back_keep_the_default(void)
{
    expect_crossover((double[]){1, 4, 4, 6, 22, 42},
                     (double[]){1, 2, 4, 9, 22, 42}, DFLT, PA_DEFAULT,
                     "MPI cheaper at 16 KiB and the ring again at 64 KiB "
                     "(noise) must keep the default");
}

static void test_unmeasured_sizes_say_nothing(void)
{
    expect_crossover((double[]){0, 0, 0, 0, 0, 0},
                     (double[]){1, 2, 4, 8, 16, 32}, DFLT, PA_DEFAULT,
                     "a path never measured must leave the default");
}

static void test_a_cost_is_the_least_of_timings_that_agree(void)
{
    uint64_t t[5] = {900, 410, 2000, 400, 5000};
    double c = pa_cost(t, 5);
    CHECK(c == 400,
          "timings whose two least (400, 410) agree within the margin must "
          "cost the least, 400; got %g", c);
}

static void test_timings_that_disagree_are_not_a_cost(void)
{
    /* A busy node: every round trip met a preemption of its own size. */
    uint64_t t[5] = {6000000, 3306, 5200000, 4100, 9000};
    double c = pa_cost(t, 5);
    CHECK(c == 0,
          "timings whose two least (3306, 4100) differ by more than the "
          "margin must not count as a cost (0); got %g", c);
    uint64_t one[1] = {400};
    CHECK(pa_cost(one, 1) == 0,
          "a single timing must not count as a cost: nothing confirms it");
}

static const uint64_t probed[] = {8192, 16384, 32768, 65536, 122880};

static void test_the_mpi_waits_from_the_first_size_of_its_rendezvous(void)
{
    int waits[] = {0, 1, 1, 1, 1};
    pa_choice c = pa_wait_from(probed, waits, 5, 131072);
    CHECK(c.from == 16384 && c.source == PA_MEASURED,
          "8 KiB went eagerly and 16 KiB up waited: blocking sends may wait "
          "from 16 KiB (measured), got %llu (%s)",
          (unsigned long long)c.from, pa_source_name(c.source));
}

static void test_an_eager_size_above_a_waiting_one_moves_the_start_up(void)
{
    int waits[] = {1, 0, 1, 1, 1};
    pa_choice c = pa_wait_from(probed, waits, 5, 131072);
    CHECK(c.from == 32768 && c.source == PA_MEASURED,
          "16 KiB went eagerly: a program may rely on it, so waiting starts "
          "at 32 KiB, got %llu", (unsigned long long)c.from);
}

static void test_an_mpi_eager_at_the_largest_size_keeps_the_default(void)
{
    int waits[] = {1, 1, 1, 1, 0};
    pa_choice c = pa_wait_from(probed, waits, 5, 131072);
    CHECK(c.from == 131072 && c.source == PA_DEFAULT,
          "the largest size probed went eagerly: nothing is known to wait, "
          "the default stays, got %llu (%s)", (unsigned long long)c.from,
          pa_source_name(c.source));
}

static void test_an_unprobed_size_stops_the_waiting_run(void)
{
    int waits[] = {1, 1, -1, 1, 1};
    pa_choice c = pa_wait_from(probed, waits, 5, 131072);
    CHECK(c.from == 65536 && c.source == PA_MEASURED,
          "32 KiB was not probed: waiting is known only from 64 KiB, got %llu",
          (unsigned long long)c.from);
    int none[] = {-1, -1, -1, -1, -1};
    c = pa_wait_from(probed, none, 5, 131072);
    CHECK(c.from == 131072 && c.source == PA_DEFAULT,
          "nothing probed keeps the default, got %llu (%s)",
          (unsigned long long)c.from, pa_source_name(c.source));
}

static void test_a_piece_is_the_largest_size_sent_at_once(void)
{
    int waits[] = {0, 0, 1, 1, 1};
    pa_choice c = pa_piece(probed, waits, 5);
    CHECK(c.from == 16384 && c.source == PA_MEASURED,
          "8 and 16 KiB went at once, 32 KiB up waited: pieces of 16 KiB "
          "(measured), got %llu (%s)",
          (unsigned long long)c.from, pa_source_name(c.source));
}

static void test_a_piece_stops_below_the_first_size_that_waited(void)
{
    int waits[] = {0, 1, 0, 1, 1};
    pa_choice c = pa_piece(probed, waits, 5);
    CHECK(c.from == 8192 && c.source == PA_MEASURED,
          "16 KiB waited: a piece of 32 KiB is not known to go at once, "
          "pieces of 8 KiB, got %llu", (unsigned long long)c.from);
    int unprobed[] = {0, -1, 0, 0, 0};
    c = pa_piece(probed, unprobed, 5);
    CHECK(c.from == 8192,
          "16 KiB was not probed: pieces stay at 8 KiB, got %llu",
          (unsigned long long)c.from);
}

static void test_no_piece_where_the_smallest_size_waits(void)
{
    int waits[] = {1, 1, 1, 1, 1}, none[] = {-1, 0, 0, 0, 0};
    pa_choice c = pa_piece(probed, waits, 5);
    CHECK(c.from == 0 && c.source == PA_DEFAULT,
          "every size waited: no pieces (0, default), got %llu (%s)",
          (unsigned long long)c.from, pa_source_name(c.source));
    c = pa_piece(probed, none, 5);
    CHECK(c.from == 0 && c.source == PA_DEFAULT,
          "the smallest size was not probed: no pieces, got %llu (%s)",
          (unsigned long long)c.from, pa_source_name(c.source));
}

/* Checks pa_alone_nb_max's answer for a blocking size `max` (source
 * `src`) against the built-in 16 KiB. */
static void expect_nb(uint64_t max, enum pa_source src, uint64_t want,
                      enum pa_source want_src, const char *promise)
{
    pa_choice c = pa_alone_nb_max((pa_choice){max, src}, 16 * KIB);
    CHECK(c.from == want && c.source == want_src,
          "%s: %llu (%s); got %llu (%s)", promise, (unsigned long long)want,
          pa_source_name(want_src), (unsigned long long)c.from,
          pa_source_name(c.source));
}

static void test_a_blocking_size_above_the_nonblocking_one_leaves_it(void)
{
    expect_nb(64 * KIB, PA_MEASURED, 16 * KIB, PA_DEFAULT,
              "a blocking send alone up to 64 KiB must leave the "
              "nonblocking size at its built-in 16 KiB");
    expect_nb(16 * KIB, PA_SET, 16 * KIB, PA_DEFAULT,
              "a blocking size equal to the nonblocking one must leave it "
              "built-in");
}

static void test_a_blocking_size_below_the_nonblocking_one_lowers_it(void)
{
    expect_nb(8 * KIB - 1, PA_MEASURED, 8 * KIB - 1, PA_MEASURED,
              "a blocking send measured apart from 8 KiB must send "
              "nonblocking ones of 8 KiB apart too, and say it was "
              "measured");
    expect_nb(1, PA_SET, 1, PA_SET,
              "a blocking size pinned at 1 byte must keep every nonblocking "
              "send out of a block, and say it was set");
}

static void test_sources_have_names(void)
{
    CHECK(pa_source_name(PA_DEFAULT)[0] == 'd' &&
              pa_source_name(PA_MEASURED)[0] == 'm' &&
              pa_source_name(PA_SET)[0] == 's',
          "the statistics name where a crossover came from: default, "
          "measured, set; got %s, %s, %s", pa_source_name(PA_DEFAULT),
          pa_source_name(PA_MEASURED), pa_source_name(PA_SET));
}

int main(void)
{
    RUN(test_ring_cheaper_everywhere_keeps_the_ring_past_the_largest);
    RUN(test_mpi_cheaper_from_16k_moves_the_crossover_down_to_16k);
    RUN(test_mpi_cheaper_everywhere_takes_over_from_the_smallest);
    RUN(test_crossover_between_sizes_lands_at_the_first_size_mpi_wins);
    RUN(test_default_inside_the_measured_interval_stays);
    RUN(test_equal_costs_keep_the_default);
    RUN(test_a_path_a_little_cheaper_does_not_win);
    RUN(test_costs_that_cross_back_keep_the_default);
    RUN(test_unmeasured_sizes_say_nothing);
    RUN(test_a_cost_is_the_least_of_timings_that_agree);
    RUN(test_timings_that_disagree_are_not_a_cost);
    RUN(test_the_mpi_waits_from_the_first_size_of_its_rendezvous);
    RUN(test_an_eager_size_above_a_waiting_one_moves_the_start_up);
    RUN(test_an_mpi_eager_at_the_largest_size_keeps_the_default);
    RUN(test_an_unprobed_size_stops_the_waiting_run);
    RUN(test_a_piece_is_the_largest_size_sent_at_once);
    RUN(test_a_piece_stops_below_the_first_size_that_waited);
    RUN(test_no_piece_where_the_smallest_size_waits);
    RUN(test_a_blocking_size_above_the_nonblocking_one_leaves_it);
    RUN(test_a_blocking_size_below_the_nonblocking_one_lowers_it);
    RUN(test_sources_have_names);
    CHECK_MAIN_END();
}
