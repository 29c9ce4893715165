/* test_evict: the cap in bytes, the room a buffer opens with and grows to,
 * and which partly filled buffer leaves when the cap is reached
 * (router/evict.h), the rules the library's transport and omnibus-plan
 * share. */
#include "router/evict.h"
#include "tests/unit/check.h"

/* A record shaped like the transport's: the links sit among other fields. */
typedef struct {
    long pad;
    int next;
    int other;
    int prev;
} rec;

#define REC_LINKS(r) &(r)[0].next, &(r)[0].prev, sizeof(rec)

/* Opens buffers ids[n-1] (oldest) .. ids[0] (newest) in that order. */
static ev_list open_in_order(rec *r, const int *ids, int n)
{
    ev_list l;
    ev_list_init(&l);
    for (int i = n - 1; i >= 0; i--)
        ev_push(&l, REC_LINKS(r), ids[i]);
    return l;
}

static void test_room_is_made_only_past_the_cap_in_bytes(void)
{
    CHECK(!ev_must_make_room(63 * 1024, 1024, 64 * 1024),
          "63 KiB of room filling under a cap of 64 KiB leave room for a "
          "1 KiB buffer more");
    CHECK(ev_must_make_room(64 * 1024, 256, 64 * 1024),
          "64 KiB of room filling under a cap of 64 KiB must ship a buffer "
          "before 256 bytes more open");
    CHECK(!ev_must_make_room(60 * 1024, 0, 64 * 1024),
          "a buffer that does not grow never ships another");
}

static void test_a_rank_whose_next_hops_fit_the_cap_opens_full_buffers(void)
{
    CHECK(ev_start_room(1024, 64, 64) == 1024,
          "64 next hops under a cap of 64 full buffers: each opens with the "
          "whole block (1024), got %llu",
          (unsigned long long)ev_start_room(1024, 64, 64));
    CHECK(ev_start_room(262144, 7, 64) == 262144,
          "7 next hops: full 256 KiB buffers, got %llu",
          (unsigned long long)ev_start_room(262144, 7, 64));
}

static void test_many_next_hops_open_their_share_of_the_cap(void)
{
    uint64_t r = ev_start_room(262144, 124, 64);
    CHECK(r == 131072,
          "124 next hops share 64 blocks of 256 KiB: 135 KiB each, rounded "
          "down to a power of two, 131072; got %llu", (unsigned long long)r);
    r = ev_start_room(262144, 302, 64);
    CHECK(r == 65536,
          "302 next hops: 54 KiB each is below a quarter block, so a "
          "quarter block (65536) opens; got %llu", (unsigned long long)r);
    r = ev_start_room(100, 1000, 64);
    CHECK(r == EV_ROOM_MIN,
          "a 100-byte block's quarter is below the least room: %d opens, "
          "got %llu", EV_ROOM_MIN, (unsigned long long)r);
    r = ev_start_room(1000, 1000, 64);
    CHECK(r == 256,
          "a quarter of a 1000-byte block rounds up to the power of two 256 "
          "(the transport's block classes), got %llu", (unsigned long long)r);
}

static void test_a_buffer_grows_by_doubling_up_to_the_block(void)
{
    CHECK(ev_grown_room(256, 257, 1024) == 512,
          "257 bytes need a 256-byte room doubled once, got %llu",
          (unsigned long long)ev_grown_room(256, 257, 1024));
    CHECK(ev_grown_room(256, 1000, 1024) == 1024,
          "1000 bytes need the 1024-byte block, got %llu",
          (unsigned long long)ev_grown_room(256, 1000, 1024));
    CHECK(ev_grown_room(512, 700, 1000) == 1000,
          "a room never grows past the block (1000 bytes), got %llu",
          (unsigned long long)ev_grown_room(512, 700, 1000));
    CHECK(ev_grown_room(512, 100, 1024) == 512,
          "a room that holds what is needed stays, got %llu",
          (unsigned long long)ev_grown_room(512, 100, 1024));
}

static void test_the_oldest_buffer_leaves(void)
{
    rec r[8];
    int ids[] = {5, 2, 7, 1};
    ev_list l = open_in_order(r, ids, 4);
    int v = ev_victim(&l, &r[0].prev, sizeof(rec), 3, 0);
    CHECK(v == 1, "the list's last entry (buffer 1) was opened first and "
                  "must leave, got %d", v);
}

static void test_the_buffer_about_to_open_and_the_own_one_stay(void)
{
    rec r[8];
    int ids[] = {5, 2, 7, 1};
    ev_list l = open_in_order(r, ids, 4);
    int v = ev_victim(&l, &r[0].prev, sizeof(rec), 1, 7);
    CHECK(v == 2, "with the oldest (1) kept and this rank's own (7) never "
                  "shipped to make room, buffer 2 is the oldest left, got %d",
          v);
}

static void test_no_victim_when_only_kept_buffers_fill(void)
{
    rec r[4];
    int ids[] = {3, 0};
    ev_list l = open_in_order(r, ids, 2);
    CHECK(ev_victim(&l, &r[0].prev, sizeof(rec), 3, 0) == -1,
          "only the kept buffer and the own one fill: nothing may leave");
    ev_list empty;
    ev_list_init(&empty);
    CHECK(ev_victim(&empty, &r[0].prev, sizeof(rec), 3, 0) == -1,
          "an empty list has no victim");
}

static void test_a_plain_int_array_is_a_list_too(void)
{
    int next[6], prev[6];
    ev_list l;
    ev_list_init(&l);
    ev_push(&l, next, prev, sizeof(int), 0);
    ev_push(&l, next, prev, sizeof(int), 3);
    ev_push(&l, next, prev, sizeof(int), 5); /* 5 -> 3 -> 0 */
    CHECK(ev_victim(&l, prev, sizeof(int), 4, 9) == 0,
          "int arrays with stride sizeof(int) are a list (the model's); "
          "its oldest entry 0 must leave, got %d",
          ev_victim(&l, prev, sizeof(int), 4, 9));
}

static void test_a_buffer_leaves_from_anywhere_in_the_list(void)
{
    rec r[8];
    int ids[] = {5, 2, 7, 1};
    ev_list l = open_in_order(r, ids, 4);
    ev_unlink(&l, REC_LINKS(r), 7); /* from the middle */
    ev_unlink(&l, REC_LINKS(r), 1); /* the oldest */
    ev_unlink(&l, REC_LINKS(r), 5); /* the newest */
    CHECK(l.count == 1 && l.head == 2 && l.tail == 2,
          "after three of four buffers left, only buffer 2 is filling "
          "(head and tail), got count %d head %d tail %d",
          l.count, l.head, l.tail);
    ev_push(&l, REC_LINKS(r), 1);
    CHECK(ev_victim(&l, &r[0].prev, sizeof(rec), -1, -1) == 2,
          "buffer 2 opened before buffer 1 reopened, so it is the oldest, "
          "got %d", ev_victim(&l, &r[0].prev, sizeof(rec), -1, -1));
    ev_unlink(&l, REC_LINKS(r), 2);
    ev_unlink(&l, REC_LINKS(r), 1);
    CHECK(l.count == 0 && l.head == -1 && l.tail == -1,
          "a list whose buffers all left is empty, got count %d head %d "
          "tail %d", l.count, l.head, l.tail);
}

int main(void)
{
    RUN(test_room_is_made_only_past_the_cap_in_bytes);
    RUN(test_a_rank_whose_next_hops_fit_the_cap_opens_full_buffers);
    RUN(test_many_next_hops_open_their_share_of_the_cap);
    RUN(test_a_buffer_grows_by_doubling_up_to_the_block);
    RUN(test_the_oldest_buffer_leaves);
    RUN(test_the_buffer_about_to_open_and_the_own_one_stay);
    RUN(test_no_victim_when_only_kept_buffers_fill);
    RUN(test_a_plain_int_array_is_a_list_too);
    RUN(test_a_buffer_leaves_from_anywhere_in_the_list);
    CHECK_MAIN_END();
}
