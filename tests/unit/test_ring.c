/* test_ring: the shared single-producer single-consumer ring
 * (router/ring.h), one process and two threads. */
#include "router/ring.h"
#include "tests/unit/check.h"
#include <pthread.h>
#include <stdlib.h>

#define CAP 1024
/* Records of n bytes that a ring nobody takes from holds: the header word
 * after the last one must have room too. */
#define RING_HOLDS(n) ((CAP - 8) / (int)rg_record_bytes(n))

static void *ring_new(void)
{
    void *mem = aligned_alloc(RG_LINE, rg_region_bytes(CAP));
    rg_format(mem);
    return mem;
}

/* A new ring and both its ends; free the returned memory. */
static void *ring_open(rg_tx *t, rg_rx *r)
{
    void *mem = ring_new();
    rg_tx_open(t, mem, CAP);
    rg_rx_open(r, mem, CAP);
    return mem;
}

/* Puts records of `len` bytes until the ring refuses one; how many went. */
static int fill_until_refused(rg_tx *t, uint32_t len)
{
    char buf[256] = {0};
    int n = 0;
    while (rg_put(t, buf, len))
        n++;
    return n;
}

/* Takes every record there is; how many came out. */
static int drain(rg_rx *r)
{
    int seen = 0;
    uint32_t len;
    while (rg_peek(r, &len)) {
        seen++;
        rg_pop(r);
    }
    return seen;
}

static void test_empty_ring_shows_nothing(void)
{
    void *mem = ring_new();
    rg_rx r;
    rg_rx_open(&r, mem, CAP);
    uint32_t len = 7;
    CHECK(rg_peek(&r, &len) == NULL,
          "a freshly formatted ring must hold no record, peek showed one of "
          "%u bytes", len);
    free(mem);
}

static void test_records_come_out_in_order_with_their_lengths(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    char buf[64];
    for (uint32_t i = 0; i < 10; i++) {
        memset(buf, 'a' + (int)i, sizeof buf);
        CHECK(rg_put(&t, buf, i * 5), "record %u of %u bytes must fit an "
              "almost empty ring", i, i * 5);
    }
    for (uint32_t i = 0; i < 10; i++) {
        uint32_t len = 0;
        const char *p = rg_peek(&r, &len);
        CHECK(p && len == i * 5, "record %u must come out %u bytes long, "
              "got %s %u", i, i * 5, p ? "length" : "no record", len);
        for (uint32_t k = 0; p && k < len; k++)
            if (p[k] != 'a' + (int)i) {
                CHECK(0, "record %u byte %u changed", i, k);
                break;
            }
        rg_pop(&r);
    }
    uint32_t len;
    CHECK(rg_peek(&r, &len) == NULL, "every record was popped, yet peek "
          "shows another");
    free(mem);
}

static void test_full_ring_refuses_without_writing(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    int n = fill_until_refused(&t, 200);
    CHECK(n == RING_HOLDS(200),
          "a ring of %d bytes holds %d records of 200 bytes (and the header "
          "word after them), took %d", CAP, RING_HOLDS(200), n);
    int seen = drain(&r);
    CHECK(seen == n, "a refused put must write nothing: %d records went in, "
          "%d came out", n, seen);
    free(mem);
}

static void test_record_at_the_end_restarts_at_offset_zero(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    char big[rg_max_record(CAP)], out = 0;
    uint32_t len;
    for (int round = 0; round < 50; round++) {
        memset(big, round, sizeof big);
        uint32_t n = (uint32_t)(round * 37) % (uint32_t)sizeof big + 1;
        CHECK(rg_put(&t, big, n), "round %d: a record of %u bytes (at most "
              "half the ring) must fit a ring just emptied", round, n);
        const char *p = rg_peek(&r, &len);
        CHECK(p && len == n, "round %d: the record must come back whole "
              "across the ring's end, got %u bytes", round, p ? len : 0);
        if (p && memcmp(p, big, n) != 0)
            out = 1;
        rg_pop(&r);
    }
    CHECK(!out, "records that wrapped past the ring's end came back changed");
    free(mem);
}

/* A lone message's record (8 + 32 bytes) must reach its consumer as one
 * cache line, also after records longer than a line (which stay packed),
 * and across the ring's end. */
static void test_a_record_that_fits_a_line_starts_one(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    char buf[200] = {0};
    uint32_t len;
    int misplaced = -1, small = 0;
    for (int i = 0; i < 300 && misplaced < 0; i++) {
        uint32_t n = (uint32_t)(i * 13) % sizeof buf;
        CHECK(rg_put(&t, buf, n), "record %d of %u bytes must fit a ring "
              "just emptied", i, n);
        const char *p = rg_peek(&r, &len);
        size_t at = (size_t)(p - t.sh->data) - 8;
        if (!p || len != n)
            misplaced = i;
        else if (8 + n <= RG_LINE && (small++, at % RG_LINE != 0))
            misplaced = i;
        rg_pop(&r);
    }
    CHECK(misplaced < 0 && small > 0, "a record of at most %d bytes must "
          "start a %d-byte line, so that it is one line to its consumer; "
          "record %d did not (%d such records checked)", RG_LINE - 8, RG_LINE,
          misplaced, small);
    free(mem);
}

/* rg_polled_bytes names exactly the payload bytes on the header word's
 * line, for records starting at every 8-byte offset of a line: the rest
 * of the payload starts a line of its own. */
static void test_polled_bytes_are_those_on_the_header_words_line(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    char buf[200] = {0};
    uint32_t len;
    int wrong = -1, offsets = 0;
    for (int i = 0; i < 64 && wrong < 0; i++) {
        uint32_t n = 72 + 8 * (uint32_t)(i % 8);
        char *at = rg_reserve(&t, n);
        CHECK(at != NULL, "record %d of %u bytes must fit a ring just "
              "emptied", i, n);
        uintptr_t word = (uintptr_t)(at - 8), rest = (uintptr_t)at +
                                                   rg_polled_bytes(at);
        if (rest / RG_LINE != word / RG_LINE + 1 || rest % RG_LINE != 0)
            wrong = i;
        offsets |= 1 << (int)((word % RG_LINE) / 8);
        memcpy(at, buf, n);
        rg_commit(&t, n);
        CHECK(rg_peek(&r, &len) == at && len == n, "record %d must come out "
              "where it was reserved", i);
        rg_pop(&r);
    }
    CHECK(wrong < 0 && offsets == 0xff, "the payload past rg_polled_bytes "
          "must start the line after the header word's; record %d did not "
          "(offsets seen: %#x of 0xff)", wrong, offsets);
    free(mem);
}

static void test_reserved_record_is_unseen_until_committed(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    uint32_t len = 0;
    char *at = rg_reserve(&t, 24);
    CHECK(at != NULL, "a 24-byte reservation must fit an empty ring");
    if (!at) {
        free(mem);
        return;
    }
    memset(at, 'x', 24);
    CHECK(rg_peek(&r, &len) == NULL, "a reserved record must stay unseen "
          "until rg_commit, peek showed one of %u bytes", len);
    rg_commit(&t, 24);
    const char *p = rg_peek(&r, &len);
    CHECK(p == at && len == 24, "once committed the record must show in "
          "place, 24 bytes, got %u bytes at %p (reserved at %p)",
          p ? len : 0, (const void *)p, (void *)at);
    free(mem);
}

/* A reservation left uncommitted (the producer could not build its
 * payload) costs nothing: the records after it come out as if it had never
 * been made, also when it had to skip to the start of the data area. */
static void test_abandoned_reservation_leaves_no_record(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    char big[rg_max_record(CAP)];
    int wrong = 0;
    uint32_t len;
    for (int round = 0; round < 50; round++) {
        uint32_t n = (uint32_t)(round * 53) % (uint32_t)sizeof big + 1;
        CHECK(rg_reserve(&t, n) != NULL, "round %d: a reservation of %u "
              "bytes must fit a ring just emptied", round, n);
        memset(big, round, sizeof big);
        CHECK(rg_put(&t, big, n), "round %d: a record of %u bytes must fit "
              "after an abandoned reservation", round, n);
        const char *p = rg_peek(&r, &len);
        if (!p || len != n || memcmp(p, big, n) != 0)
            wrong++;
        else
            rg_pop(&r);
        CHECK(rg_peek(&r, &len) == NULL, "round %d: only the committed "
              "record may come out, a second one of %u bytes did", round, len);
    }
    CHECK(!wrong, "%d of 50 records put after an abandoned reservation came "
          "back changed or missing", wrong);
    free(mem);
}

/* A producer may write into a reservation it then abandons; those bytes
 * must never pass for the header word of a record that follows (the ring
 * publishes through that word: 0 until a record is there).  Reservations
 * of every size filled with 0xff, each abandoned, then a small record:
 * exactly that record comes out, over many laps. */
static void test_junk_in_an_abandoned_reservation_is_never_a_record(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    int wrong = 0, extra = 0;
    uint32_t len;
    for (int round = 0; round < 2000; round++) {
        uint32_t n = (uint32_t)(round * 37) % (uint32_t)rg_max_record(CAP) + 1;
        char *at = rg_reserve(&t, n);
        if (at)
            memset(at, 0xff, n);
        uint64_t item = (uint64_t)round;
        CHECK(rg_put(&t, &item, sizeof item), "round %d: an 8-byte record "
              "must fit a ring just emptied", round);
        const uint64_t *p = rg_peek(&r, &len);
        if (!p || len != sizeof item || *p != item)
            wrong++;
        else
            rg_pop(&r);
        extra += rg_peek(&r, &len) != NULL;
    }
    CHECK(!wrong && !extra, "after a reservation filled with 0xff and "
          "abandoned, only the record put next may come out: %d of 2000 "
          "came back wrong or missing, %d times a second record showed",
          wrong, extra);
    free(mem);
}

/* Two threads stand in for two processes: every record is seen once, in
 * order, whole (a missing acquire or release shows up here under
 * ThreadSanitizer, and as corrupt records on weaker memory models). */
#define STREAM_RECORDS 200000

static void *producer(void *arg)
{
    rg_tx *t = arg;
    uint64_t rec[16];
    for (uint64_t i = 0; i < STREAM_RECORDS; i++) {
        uint32_t words = (uint32_t)(i % 16) + 1;
        for (uint32_t k = 0; k < words; k++)
            rec[k] = i * 31 + k;
        while (!rg_put(t, rec, words * 8))
            ;
    }
    return NULL;
}

/* Streams STREAM_RECORDS records of 8 to 128 bytes from a producer thread
 * and checks each one as it comes, on a ring whose laps end early at
 * `soft` bytes for records of up to soft_len bytes (rg_tx_soft; CAP and 0
 * for none); how many words were wrong. */
static uint64_t stream_between_threads(size_t soft, size_t soft_len)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    rg_tx_soft(&t, soft, soft_len);
    pthread_t th;
    pthread_create(&th, NULL, producer, &t);
    uint64_t bad = 0, i = 0;
    while (i < STREAM_RECORDS) {
        uint32_t len;
        const uint64_t *p = rg_peek(&r, &len);
        if (!p)
            continue;
        uint32_t words = (uint32_t)(i % 16) + 1;
        if (len != words * 8)
            bad++;
        else
            for (uint32_t k = 0; k < words; k++)
                if (p[k] != i * 31 + k)
                    bad++;
        rg_pop(&r);
        i++;
    }
    pthread_join(th, NULL);
    uint32_t len;
    bad += rg_peek(&r, &len) != NULL; /* more records than were put */
    free(mem);
    return bad;
}

static void test_two_threads_stream_every_record_once_in_order(void)
{
    uint64_t bad = stream_between_threads(CAP, 0);
    CHECK(bad == 0, "%d records streamed between two threads must arrive "
          "once, in order and whole: %llu words were wrong or extra",
          STREAM_RECORDS, (unsigned long long)bad);
}

/* Puts and at once takes records of `len` bytes on a ring whose laps end
 * at SOFT for records of up to SOFT_LEN bytes; returns the largest offset
 * in the data area at which a record started. */
#define SOFT 256
#define SOFT_LEN 64
static size_t furthest_record_start(uint32_t len, int records)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    rg_tx_soft(&t, SOFT, SOFT_LEN);
    char buf[128] = {0};
    size_t furthest = 0;
    uint32_t got;
    for (int i = 0; i < records; i++) {
        if (!rg_put(&t, buf, len))
            break;
        const char *p = rg_peek(&r, &got);
        size_t at = (size_t)(p - t.sh->data) - 8;
        if (at > furthest)
            furthest = at;
        rg_pop(&r);
    }
    free(mem);
    return furthest;
}

static void test_soft_lap_keeps_small_records_near_the_top(void)
{
    size_t furthest = furthest_record_start(40, 100);
    CHECK(furthest < SOFT + rg_record_bytes(40),
          "records of 40 bytes taken as they come must start again at the "
          "top once a lap passed %d bytes, yet one started at offset %zu",
          SOFT, furthest);
}

static void test_soft_lap_lets_large_records_use_the_whole_ring(void)
{
    size_t furthest = furthest_record_start(100, 100);
    CHECK(furthest + rg_record_bytes(100) > CAP - rg_record_bytes(100),
          "records of 100 bytes (above the soft bound's 64) must go round "
          "the whole ring of %d bytes, yet none started past offset %zu",
          CAP, furthest);
}

static void test_soft_lap_never_takes_room_away(void)
{
    rg_tx t;
    rg_rx r;
    void *mem = ring_open(&t, &r);
    rg_tx_soft(&t, SOFT, SOFT_LEN);
    int n = fill_until_refused(&t, 40);
    CHECK(n == RING_HOLDS(40),
          "a ring of %d bytes must hold %d records of 40 bytes that nobody "
          "takes, soft bound or not; it took %d", CAP, RING_HOLDS(40), n);
    int seen = drain(&r);
    CHECK(seen == n, "%d records went in, %d came out", n, seen);
    free(mem);
}

static void test_soft_laps_keep_a_mixed_stream_in_order(void)
{
    uint64_t bad = stream_between_threads(SOFT, SOFT_LEN);
    CHECK(bad == 0, "%d records of 8 to 128 bytes, those up to %d bytes "
          "restarting at the top after %d, must arrive once, in order and "
          "whole: %llu words were wrong or extra", STREAM_RECORDS, SOFT_LEN,
          SOFT, (unsigned long long)bad);
}

int main(void)
{
    RUN(test_empty_ring_shows_nothing);
    RUN(test_records_come_out_in_order_with_their_lengths);
    RUN(test_full_ring_refuses_without_writing);
    RUN(test_record_at_the_end_restarts_at_offset_zero);
    RUN(test_a_record_that_fits_a_line_starts_one);
    RUN(test_polled_bytes_are_those_on_the_header_words_line);
    RUN(test_reserved_record_is_unseen_until_committed);
    RUN(test_abandoned_reservation_leaves_no_record);
    RUN(test_junk_in_an_abandoned_reservation_is_never_a_record);
    RUN(test_soft_lap_keeps_small_records_near_the_top);
    RUN(test_soft_lap_lets_large_records_use_the_whole_ring);
    RUN(test_soft_lap_never_takes_room_away);
    RUN(test_two_threads_stream_every_record_once_in_order);
    RUN(test_soft_laps_keep_a_mixed_stream_in_order);
    CHECK_MAIN_END();
}
