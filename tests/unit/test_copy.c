/* test_copy: payload copies chosen by their measured cost at each offset
 * of destination to source (router/copy.h), from injected costs, and the
 * skew-proof loop's bytes. */
#include "router/copy.h"
#include "tests/unit/check.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Costs where memcpy takes `slow` ns at the skews in `mask` and 100 ns
 * elsewhere, and the loop 120 ns everywhere. */
static void costs(uint64_t mask, double slow, double m[CP_SKEWS],
                  double l[CP_SKEWS])
{
    for (int k = 0; k < CP_SKEWS; k++) {
        m[k] = (mask >> k) & 1 ? slow : 100;
        l[k] = 120;
    }
}

static void test_a_machine_where_memcpy_is_never_slower_keeps_memcpy(void)
{
    double m[CP_SKEWS], l[CP_SKEWS];
    costs(0, 0, m, l);
    uint64_t got = cp_slow_skews(m, l);
    CHECK(got == 0,
          "memcpy at 100 ns and the loop at 120 ns at every skew: no skew "
          "takes the loop; got mask %#llx",
          (unsigned long long)got);
}

static void test_the_skews_where_memcpy_is_slow_take_the_loop(void)
{
    /* The AMD EPYC VM's pattern: 1 to 31 bytes past, modulo a page. */
    uint64_t amd = 0xfffffffeull;
    double m[CP_SKEWS], l[CP_SKEWS];
    costs(amd, 2000, m, l);
    uint64_t got = cp_slow_skews(m, l);
    CHECK(got == amd,
          "memcpy 2000 ns at skews 1..31 against a 120 ns loop: exactly "
          "those skews take the loop (%#llx); got %#llx",
          (unsigned long long)amd, (unsigned long long)got);
}

static void test_a_loop_barely_cheaper_is_not_worth_leaving_memcpy(void)
{
    double m[CP_SKEWS], l[CP_SKEWS];
    costs(0, 0, m, l);
    for (int k = 0; k < CP_SKEWS; k++)
        l[k] = 90; /* 10% cheaper: inside the margin */
    l[5] = 70;     /* 30% cheaper: outside it */
    uint64_t got = cp_slow_skews(m, l);
    CHECK(got == (uint64_t)1 << 5,
          "the loop 10%% cheaper leaves memcpy in place, 30%% cheaper "
          "takes the skew (only skew 5); got %#llx",
          (unsigned long long)got);
}

static void test_a_skew_not_measured_keeps_memcpy(void)
{
    double m[CP_SKEWS], l[CP_SKEWS];
    costs(~(uint64_t)0, 2000, m, l);
    m[3] = 0;
    l[4] = -1;
    m[6] = NAN;
    l[7] = NAN;
    uint64_t got = cp_slow_skews(m, l);
    uint64_t want = ~(uint64_t)0 & ~(((uint64_t)1 << 3) | ((uint64_t)1 << 4) |
                                    ((uint64_t)1 << 6) | ((uint64_t)1 << 7));
    CHECK(got == want,
          "costs of 0, below 0 or NaN are unmeasured and never slow: "
          "%#llx; got %#llx",
          (unsigned long long)want, (unsigned long long)got);
}

static void test_a_copys_skew_is_its_destination_past_its_source_mod_a_page(void)
{
    static char buf[3 * CP_PAGE];
    uint64_t only17 = (uint64_t)1 << 17;
    CHECK(cp_skew_slow(only17, buf + 17, buf) &&
              cp_skew_slow(only17, buf + CP_PAGE + 17, buf) &&
              cp_skew_slow(only17, buf + 3, buf + 2 * CP_PAGE + 50 - 64) &&
              !cp_skew_slow(only17, buf + 64 + 17, buf) &&
              !cp_skew_slow(only17, buf, buf + 17),
          "skew 17 is to - from = 17 modulo 4096 (17, 4113, and 3 - "
          "8178 = 17 mod 4096), not 81 or -17");
}

static void test_a_copy_below_cp_min_keeps_memcpy_at_any_skew(void)
{
    static char buf[3 * CP_PAGE];
    uint64_t all = ~(uint64_t)0;
    CHECK(!cp_takes_loop(all, buf + 17, buf, CP_MIN - 1) &&
              cp_takes_loop(all, buf + 17, buf, CP_MIN) &&
              !cp_takes_loop(0, buf + 17, buf, 4 * CP_MIN),
          "a copy takes the loop only at a slow skew and from CP_MIN (%d) "
          "bytes on: %d below it, %d at it, %d with no skew slow",
          (int)CP_MIN, cp_takes_loop(all, buf + 17, buf, CP_MIN - 1),
          cp_takes_loop(all, buf + 17, buf, CP_MIN),
          cp_takes_loop(0, buf + 17, buf, 4 * CP_MIN));
}

/* cp_copy copies the same bytes whichever way it goes, and says the loop
 * only where cp_takes_loop does (the statistic skewed_copies counts it). */
static void test_a_copy_says_whether_it_took_the_loop(void)
{
    static char src[3 * CP_PAGE], dst[3 * CP_PAGE];
    uint64_t all = ~(uint64_t)0;
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (char)(i * 13 + 5);
    int looped = cp_copy(all, dst + 17, src, CP_MIN);
    int same = memcmp(dst + 17, src, CP_MIN) == 0;
    int small = cp_copy(all, dst, src + 40, CP_MIN - 1);
    same &= memcmp(dst, src + 40, CP_MIN - 1) == 0;
    int fast = cp_copy(0, dst + 17, src + 9, 2 * CP_MIN);
    same &= memcmp(dst + 17, src + 9, 2 * CP_MIN) == 0;
    CHECK(looped == 1 && small == 0 && fast == 0 && same,
          "cp_copy should take the loop (1) at a slow skew from CP_MIN "
          "bytes, memcpy (0) below CP_MIN or with no skew slow, and copy "
          "every byte either way: got %d, %d, %d, bytes %s",
          looped, small, fast, same ? "equal" : "differ");
}

static void test_the_loop_copies_every_byte_and_nothing_else(void)
{
    enum { MAX = 3000, PAD = 64 };
    char *src = malloc(MAX + 2 * PAD), *dst = malloc(MAX + 2 * PAD);
    for (int i = 0; i < MAX + 2 * PAD; i++)
        src[i] = (char)(i * 7 + 1);
    int bad = 0;
    for (size_t n = 16; n <= MAX && !bad; n += n < 100 ? 1 : 61)
        for (int so = 0; so < 16 && !bad; so += 3)
            for (int d = 0; d < 16 && !bad; d++) {
                memset(dst, 0x55, MAX + 2 * PAD);
                cp_loop(dst + PAD + d, src + PAD + so, n);
                bad = memcmp(dst + PAD + d, src + PAD + so, n) != 0;
                for (int i = 0; i < PAD + d && !bad; i++)
                    bad = dst[i] != 0x55;
                for (size_t i = PAD + d + n; i < MAX + 2 * PAD && !bad; i++)
                    bad = dst[i] != 0x55;
                if (bad)
                    CHECK(0,
                          "cp_loop of %zu bytes, source +%d, destination "
                          "+%d: the bytes equal, none outside written",
                          n, so, d);
            }
    CHECK(!bad, "every length 16..3000 at 16 x 6 offsets copied exactly");
    free(src);
    free(dst);
}

/* Every pass at every size: memcpy `slow` ns at the skews in masks[size]
 * and 100 ns elsewhere, the loop 120 ns. */
static void timings(const uint64_t masks[CP_TIMED_SIZES], double slow,
                    cp_timing t[CP_PASSES][CP_TIMED_SIZES])
{
    for (int pass = 0; pass < CP_PASSES; pass++)
        for (int size = 0; size < CP_TIMED_SIZES; size++)
            costs(masks[size], slow, t[pass][size].memcpy_ns,
                  t[pass][size].loop_ns);
}

/* What the choice makes of memcpy slow at `small` at the smallest size
 * timed and at `large` at the largest, in every pass. */
static uint64_t slow_at(uint64_t small, uint64_t large)
{
    uint64_t masks[CP_TIMED_SIZES] = {0};
    masks[0] = small;
    masks[CP_TIMED_SIZES - 1] |= large;
    cp_timing t[CP_PASSES][CP_TIMED_SIZES];
    timings(masks, 2000, t);
    return cp_slow_skews_timed(t);
}

static void test_a_skew_slow_only_at_the_larger_size_takes_the_loop(void)
{
    /* A memcpy that moves to a slow strategy only past the small size, as
     * glibc with 512-bit vectors does from 16 KiB. */
    uint64_t got = slow_at(0, 0xffff0ull);
    CHECK(got == 0xffff0ull,
          "skews 4..19 slow at %zu bytes and at no skew at %zu bytes: those "
          "skews take the loop (0xffff0); got %#llx",
          cp_timed_sizes[CP_TIMED_SIZES - 1], cp_timed_sizes[0],
          (unsigned long long)got);
}

static void test_the_skews_slow_at_either_size_take_the_loop(void)
{
    uint64_t got = slow_at(0x6ull, 0x30ull);
    CHECK(got == 0x36ull,
          "skews 1, 2 slow at the small size and 4, 5 at the large one: all "
          "four take the loop (0x36); got %#llx",
          (unsigned long long)got);
}

static void test_a_skew_slow_in_one_pass_only_keeps_memcpy(void)
{
    uint64_t amd[CP_TIMED_SIZES];
    for (int size = 0; size < CP_TIMED_SIZES; size++)
        amd[size] = 0xfffffffeull;
    cp_timing t[CP_PASSES][CP_TIMED_SIZES];
    timings(amd, 2000, t);
    /* Skew 40 preempted in every trial of the first pass, at both sizes;
     * skew 3 fast at both sizes in the last pass. */
    for (int size = 0; size < CP_TIMED_SIZES; size++) {
        t[0][size].memcpy_ns[40] = 5000;
        t[CP_PASSES - 1][size].memcpy_ns[3] = 100;
    }
    uint64_t got = cp_slow_skews_timed(t);
    uint64_t want = 0xfffffffeull & ~((uint64_t)1 << 3);
    CHECK(got == want,
          "a skew slow in one pass and not in another keeps memcpy (skew 40 "
          "slow only in the first, 3 not in the last): %#llx; got %#llx",
          (unsigned long long)want, (unsigned long long)got);
}

static void test_timing_gives_a_cost_at_every_skew_and_size(void)
{
    static char scratch[CP_SCRATCH];
    int all = 1;
    for (int size = 0; size < CP_TIMED_SIZES; size++) {
        double m[CP_SKEWS], l[CP_SKEWS];
        cp_time_skews(scratch, cp_timed_sizes[size], 0, m, l);
        for (int k = 0; k < CP_SKEWS; k++)
            all = all && m[k] > 0 && l[k] > 0;
    }
    CHECK(all, "both copies timed above 0 ns at all 64 skews, at every "
          "size timed");
}

static void test_a_skew_skipped_is_not_timed(void)
{
    static char scratch[CP_SCRATCH];
    double m[CP_SKEWS], l[CP_SKEWS];
    uint64_t skip = 0xf0f0ull;
    cp_time_skews(scratch, cp_timed_sizes[0], skip, m, l);
    int right = 1;
    for (int k = 0; k < CP_SKEWS; k++)
        right = right && ((skip >> k) & 1u ? m[k] == 0 && l[k] == 0
                                            : m[k] > 0 && l[k] > 0);
    CHECK(right, "the skews in the skip mask (%#llx) cost 0, not measured, "
          "and every other skew a time above 0 ns",
          (unsigned long long)skip);
}

int main(void)
{
    RUN(test_a_machine_where_memcpy_is_never_slower_keeps_memcpy);
    RUN(test_the_skews_where_memcpy_is_slow_take_the_loop);
    RUN(test_a_loop_barely_cheaper_is_not_worth_leaving_memcpy);
    RUN(test_a_skew_not_measured_keeps_memcpy);
    RUN(test_a_copys_skew_is_its_destination_past_its_source_mod_a_page);
    RUN(test_a_copy_below_cp_min_keeps_memcpy_at_any_skew);
    RUN(test_a_copy_says_whether_it_took_the_loop);
    RUN(test_the_loop_copies_every_byte_and_nothing_else);
    RUN(test_a_skew_slow_only_at_the_larger_size_takes_the_loop);
    RUN(test_the_skews_slow_at_either_size_take_the_loop);
    RUN(test_a_skew_slow_in_one_pass_only_keeps_memcpy);
    RUN(test_timing_gives_a_cost_at_every_skew_and_size);
    RUN(test_a_skew_skipped_is_not_timed);
    CHECK_MAIN_END();
}
