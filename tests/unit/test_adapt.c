/* test_adapt: when a partly filled buffer leaves (router/adapt.h). */
#include "router/adapt.h"
#include "tests/unit/check.h"

static const ad_policy policy = {.idle_rounds = 16, .flush_ns = 500000};

static void test_draining_rank_is_not_waiting(void)
{
    CHECK(ad_at_round(16, 10, 0, 9, 0) == AD_KEEP,
          "a rank whose last poll found a message is draining, not waiting: "
          "its buffers must keep filling, got verdict %d",
          ad_at_round(16, 10, 0, 9, 0));
    CHECK(ad_at_round(16, 100, 0, 70, 0) == AD_SHIP_IDLE,
          "a draining rank still ships a buffer idle for idle_rounds");
}

static void test_quiet_rank_ships_every_buffer(void)
{
    CHECK(ad_at_round(16, 10, 0, 9, 1) == AD_SHIP_QUIET,
          "a rank that appended nothing since the previous round and polled "
          "in vain is waiting: its buffers must leave at once, got verdict %d",
          ad_at_round(16, 10, 0, 9, 1));
    CHECK(ad_at_round(16, 10, 0, 2, 1) == AD_SHIP_QUIET,
          "a quiet rank ships old and young buffers alike");
}

/* A relay's forwarded items are not its program's sends: the caller passes
 * sent = 0 for a round that only forwarded, although the buffer it
 * forwarded into was stamped in this very round (stamp == epoch). */
static void test_waiting_relay_ships_what_it_forwarded(void)
{
    CHECK(ad_at_round(16, 10, 0, 10, 1) == AD_SHIP_QUIET,
          "a relay whose program waits must ship the buffer it forwarded "
          "into this round, as a source that waits ships its own sends; "
          "got verdict %d",
          ad_at_round(16, 10, 0, 10, 1));
    for (uint64_t e = 11; e < 11 + 16; e++)
        CHECK(ad_at_round(16, e, 0, 10, 1) == AD_SHIP_QUIET,
              "a relay that forwarded and then waits ships at any later "
              "round too, never only by age (epoch %llu)",
              (unsigned long long)e);
}

static void test_relay_not_waiting_keeps_forwarding(void)
{
    CHECK(ad_at_round(16, 10, 0, 10, 0) == AD_KEEP,
          "a relay whose program does not wait (it computes, or drains "
          "arrivals) keeps re-aggregating what it forwards, got %d",
          ad_at_round(16, 10, 0, 10, 0));
    CHECK(ad_at_round(16, 10, 1, 10, 1) == AD_KEEP,
          "a rank whose program sent since the previous round keeps its "
          "buffers, waiting or not, forwarded items included");
}

static void test_sending_rank_keeps_recent_buffers(void)
{
    for (uint64_t age = 0; age < 16; age++)
        CHECK(ad_at_round(16, 100, 1, 100 - age, 1) == AD_KEEP,
              "a buffer written %llu sending rounds ago, while the rank keeps "
              "sending, must stay to gather more (idle_rounds 16), got %d",
              (unsigned long long)age,
              ad_at_round(16, 100, 1, 100 - age, 1));
}

static void test_idle_buffer_of_busy_rank_ships(void)
{
    CHECK(ad_at_round(16, 100, 1, 84, 0) == AD_SHIP_IDLE,
          "a buffer unwritten for idle_rounds sending rounds must leave even "
          "while the rank sends elsewhere");
    CHECK(ad_at_round(16, 100, 1, 3, 1) == AD_SHIP_IDLE,
          "a long idle buffer must leave");
}

static void test_idle_after_is_the_threshold_of_the_verdict(void)
{
    CHECK(ad_at_round(1, 7, 1, 7, 0) == AD_KEEP,
          "with a wait of 1 round, the buffer written this round stays");
    CHECK(ad_at_round(1, 7, 1, 6, 0) == AD_SHIP_IDLE,
          "with a wait of 1 round, every buffer not written this round "
          "leaves");
    CHECK(ad_at_round(1024, 2000, 1, 2000 - 1023, 0) == AD_KEEP,
          "a buffer unwritten for 1023 sending rounds stays when the round's "
          "wait is 1024");
    CHECK(ad_at_round(1024, 2000, 1, 2000 - 1024, 0) == AD_SHIP_IDLE,
          "a buffer unwritten for the round's whole wait leaves");
}

/* A rate fed `rounds` sending rounds that each wrote `written` buffers. */
static ad_rate rate_after(int written, int rounds)
{
    ad_rate r = ad_rate_start();
    for (int i = 0; i < rounds; i++)
        ad_rate_round(&r, written);
    return r;
}

static void test_one_send_a_round_over_many_buffers_waits_longer(void)
{
    ad_rate r = rate_after(1, 1000);
    uint64_t wait = ad_idle_after(&policy, &r, 64);
    CHECK(wait == 16 * 64,
          "a rank that writes one of its 64 filling buffers a round expects "
          "an append to each every 64 rounds: a buffer must wait 16 such "
          "gaps (1024 sending rounds), got %llu",
          (unsigned long long)wait);
    CHECK(ad_at_round(wait, 5000, 1, 5000 - 100, 0) == AD_KEEP,
          "a buffer unwritten for 100 rounds while the rank spreads one send "
          "a round over 64 buffers has missed fewer than 2 of its expected "
          "appends: it must stay to gather more");
}

static void test_fresh_rate_is_one_buffer_a_round(void)
{
    ad_rate r = ad_rate_start();
    CHECK(ad_idle_after(&policy, &r, 8) == 16 * 8,
          "before any sending round the rate is one buffer a round: 8 "
          "filling buffers wait 8 x idle_rounds, got %llu",
          (unsigned long long)ad_idle_after(&policy, &r, 8));
}

static void test_rank_that_writes_every_buffer_waits_idle_rounds(void)
{
    ad_rate r = rate_after(4, 1000);
    CHECK(ad_idle_after(&policy, &r, 4) == 16,
          "a rank that writes each of its 4 buffers in every round (many "
          "sends between polls) waits idle_rounds, as before, got %llu",
          (unsigned long long)ad_idle_after(&policy, &r, 4));
    r = rate_after(100, 1000);
    CHECK(ad_idle_after(&policy, &r, 4) == 16,
          "the wait never drops below idle_rounds, got %llu",
          (unsigned long long)ad_idle_after(&policy, &r, 4));
    CHECK(ad_idle_after(&policy, &r, 0) == 16,
          "with no buffer filling the wait is idle_rounds, got %llu",
          (unsigned long long)ad_idle_after(&policy, &r, 0));
}

static void test_rarely_written_buffer_still_leaves(void)
{
    /* Four hot buffers written every round, a fifth once. */
    ad_rate r = rate_after(4, 1000);
    uint64_t wait = ad_idle_after(&policy, &r, 5);
    CHECK(wait == 20,
          "5 filling buffers, 4 written a round: each expects an append "
          "every 5/4 rounds, so the wait is 16 x 5/4 = 20, got %llu",
          (unsigned long long)wait);
    CHECK(ad_at_round(wait, 500, 1, 500 - 20, 0) == AD_SHIP_IDLE,
          "a buffer unwritten for 20 rounds while its 4 neighbours were "
          "written in each of them is far below its share: it must leave");
}

static void test_sending_round_counts_at_least_one_buffer(void)
{
    ad_rate a = rate_after(0, 200), b = rate_after(1, 200);
    CHECK(a.written == b.written,
          "a sending round whose buffer already shipped (full) still wrote "
          "one: it must count as one, got %llu against %llu",
          (unsigned long long)a.written, (unsigned long long)b.written);
}

static void test_one_burst_does_not_cut_every_wait(void)
{
    ad_rate r = rate_after(1, 1000);
    ad_rate_round(&r, 60); /* a relay forwards a whole block at once */
    uint64_t wait = ad_idle_after(&policy, &r, 64);
    CHECK(wait >= 16 * 64 / 2,
          "one round that forwarded into 60 buffers must not halve the wait "
          "of a rank that otherwise writes one buffer a round: got %llu "
          "rounds against 1024",
          (unsigned long long)wait);
}

static void test_rate_follows_a_changed_pattern(void)
{
    ad_rate r = rate_after(1, 1000);
    for (int i = 0; i < 400; i++)
        ad_rate_round(&r, 8);
    uint64_t wait = ad_idle_after(&policy, &r, 64);
    CHECK(wait >= 16 * 8 && wait <= 16 * 8 * 11 / 10,
          "400 rounds after the rank went from 1 buffer a round to 8, the "
          "wait of 64 buffers must be within 10%% of 16 x 64/8 = 128, got "
          "%llu",
          (unsigned long long)wait);
}

static void test_largest_settings_do_not_overflow(void)
{
    ad_policy most = {.idle_rounds = 1000000, .flush_ns = 0};
    ad_rate r = ad_rate_start();
    uint64_t wait = ad_idle_after(&most, &r, 1 << 20);
    CHECK(wait == 1000000ULL << 20,
          "OMNIBUS_IDLE_ROUNDS=1000000 over 2^20 buffers must wait 2^20 x "
          "10^6 rounds, got %llu",
          (unsigned long long)wait);
}

static void test_age_bounds_every_wait(void)
{
    CHECK(!ad_is_old(&policy, 499999), "an item younger than flush_ns stays");
    CHECK(ad_is_old(&policy, 500000),
          "an item that waited flush_ns must leave");
    ad_policy zero = {.idle_rounds = 16, .flush_ns = 0};
    CHECK(ad_is_old(&zero, 0),
          "OMNIBUS_FLUSH_US=0: every buffer leaves at every round");
}

static void test_epoch_wraparound_keeps_idle_count(void)
{
    uint64_t e = 5; /* the epoch counter wrapped: stamps near 2^64 */
    CHECK(ad_at_round(16, e, 1, UINT64_MAX - 20, 0) == AD_SHIP_IDLE,
          "idle rounds must be counted modulo 2^64");
    CHECK(ad_at_round(16, e, 1, UINT64_MAX - 2, 0) == AD_KEEP,
          "a buffer written 8 rounds ago across the wrap must stay");
}

int main(void)
{
    RUN(test_quiet_rank_ships_every_buffer);
    RUN(test_draining_rank_is_not_waiting);
    RUN(test_waiting_relay_ships_what_it_forwarded);
    RUN(test_relay_not_waiting_keeps_forwarding);
    RUN(test_sending_rank_keeps_recent_buffers);
    RUN(test_idle_buffer_of_busy_rank_ships);
    RUN(test_idle_after_is_the_threshold_of_the_verdict);
    RUN(test_one_send_a_round_over_many_buffers_waits_longer);
    RUN(test_fresh_rate_is_one_buffer_a_round);
    RUN(test_rank_that_writes_every_buffer_waits_idle_rounds);
    RUN(test_rarely_written_buffer_still_leaves);
    RUN(test_sending_round_counts_at_least_one_buffer);
    RUN(test_one_burst_does_not_cut_every_wait);
    RUN(test_rate_follows_a_changed_pattern);
    RUN(test_largest_settings_do_not_overflow);
    RUN(test_age_bounds_every_wait);
    RUN(test_epoch_wraparound_keeps_idle_count);
    CHECK_MAIN_END();
}
