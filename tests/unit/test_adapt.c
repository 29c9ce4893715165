/* test_adapt: when a partly filled buffer leaves (router/adapt.h). */
#include "router/adapt.h"
#include "tests/unit/check.h"

static const ad_policy policy = {.idle_rounds = 16, .flush_ns = 500000};

static void test_draining_rank_is_not_waiting(void)
{
    CHECK(ad_at_round(&policy, 10, 0, 9, 0) == AD_KEEP,
          "a rank whose last poll found a message is draining, not waiting: "
          "its buffers must keep filling, got verdict %d",
          ad_at_round(&policy, 10, 0, 9, 0));
    CHECK(ad_at_round(&policy, 100, 0, 70, 0) == AD_SHIP_IDLE,
          "a draining rank still ships a buffer idle for idle_rounds");
}

static void test_quiet_rank_ships_every_buffer(void)
{
    CHECK(ad_at_round(&policy, 10, 0, 9, 1) == AD_SHIP_QUIET,
          "a rank that appended nothing since the previous round and polled "
          "in vain is waiting: its buffers must leave at once, got verdict %d",
          ad_at_round(&policy, 10, 0, 9, 1));
    CHECK(ad_at_round(&policy, 10, 0, 2, 1) == AD_SHIP_QUIET,
          "a quiet rank ships old and young buffers alike");
}

/* A relay's forwarded items are not its program's sends: the caller passes
 * sent = 0 for a round that only forwarded, although the buffer it
 * forwarded into was stamped in this very round (stamp == epoch). */
static void test_waiting_relay_ships_what_it_forwarded(void)
{
    CHECK(ad_at_round(&policy, 10, 0, 10, 1) == AD_SHIP_QUIET,
          "a relay whose program waits must ship the buffer it forwarded "
          "into this round, as a source that waits ships its own sends; "
          "got verdict %d",
          ad_at_round(&policy, 10, 0, 10, 1));
    for (uint64_t e = 11; e < 11 + 16; e++)
        CHECK(ad_at_round(&policy, e, 0, 10, 1) == AD_SHIP_QUIET,
              "a relay that forwarded and then waits ships at any later "
              "round too, never only by age (epoch %llu)",
              (unsigned long long)e);
}

static void test_relay_not_waiting_keeps_forwarding(void)
{
    CHECK(ad_at_round(&policy, 10, 0, 10, 0) == AD_KEEP,
          "a relay whose program does not wait (it computes, or drains "
          "arrivals) keeps re-aggregating what it forwards, got %d",
          ad_at_round(&policy, 10, 0, 10, 0));
    CHECK(ad_at_round(&policy, 10, 1, 10, 1) == AD_KEEP,
          "a rank whose program sent since the previous round keeps its "
          "buffers, waiting or not, forwarded items included");
}

static void test_sending_rank_keeps_recent_buffers(void)
{
    for (uint64_t age = 0; age < 16; age++)
        CHECK(ad_at_round(&policy, 100, 1, 100 - age, 1) == AD_KEEP,
              "a buffer written %llu sending rounds ago, while the rank keeps "
              "sending, must stay to gather more (idle_rounds 16), got %d",
              (unsigned long long)age,
              ad_at_round(&policy, 100, 1, 100 - age, 1));
}

static void test_idle_buffer_of_busy_rank_ships(void)
{
    CHECK(ad_at_round(&policy, 100, 1, 84, 0) == AD_SHIP_IDLE,
          "a buffer unwritten for idle_rounds sending rounds must leave even "
          "while the rank sends elsewhere");
    CHECK(ad_at_round(&policy, 100, 1, 3, 1) == AD_SHIP_IDLE,
          "a long idle buffer must leave");
}

static void test_idle_rounds_one_is_the_old_rule(void)
{
    ad_policy old = {.idle_rounds = 1, .flush_ns = 500000};
    CHECK(ad_at_round(&old, 7, 1, 7, 0) == AD_KEEP,
          "with idle_rounds 1, the buffer written this round stays");
    CHECK(ad_at_round(&old, 7, 1, 6, 0) == AD_SHIP_IDLE,
          "with idle_rounds 1, every buffer not written this round leaves");
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
    CHECK(ad_at_round(&policy, e, 1, UINT64_MAX - 20, 0) == AD_SHIP_IDLE,
          "idle rounds must be counted modulo 2^64");
    CHECK(ad_at_round(&policy, e, 1, UINT64_MAX - 2, 0) == AD_KEEP,
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
    RUN(test_idle_rounds_one_is_the_old_rule);
    RUN(test_age_bounds_every_wait);
    RUN(test_epoch_wraparound_keeps_idle_count);
    CHECK_MAIN_END();
}
