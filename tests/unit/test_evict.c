/* test_evict: which partly filled buffer leaves when the cap is reached
 * (router/evict.h), the rule the library's transport and omnibus-plan
 * share. */
#include "router/evict.h"
#include "tests/unit/check.h"

/* A record shaped like the transport's: the link sits among other fields. */
typedef struct {
    long pad;
    int next;
    int other;
} rec;

/* Links buffers ids[0] (head, newest) .. ids[n-1] (oldest). */
static int link_list(rec *r, const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        r[ids[i]].next = i + 1 < n ? ids[i + 1] : -1;
    return n ? ids[0] : -1;
}

static void test_room_is_made_only_at_the_cap(void)
{
    CHECK(!ev_must_make_room(63, 64),
          "63 buffers filling under a cap of 64 leave room for another");
    CHECK(ev_must_make_room(64, 64),
          "64 buffers filling under a cap of 64 must ship one before a 65th "
          "opens");
    CHECK(ev_must_make_room(2, 2), "a cap of 2 is reached by 2 buffers");
}

static void test_the_oldest_buffer_leaves(void)
{
    rec r[8];
    int ids[] = {5, 2, 7, 1};
    int head = link_list(r, ids, 4);
    int v = ev_victim(&r[0].next, sizeof(rec), head, 3, 0);
    CHECK(v == 1, "the list's last entry (buffer 1) was opened first and "
                  "must leave, got %d", v);
}

static void test_the_buffer_about_to_open_and_the_own_one_stay(void)
{
    rec r[8];
    int ids[] = {5, 2, 7, 1};
    int head = link_list(r, ids, 4);
    int v = ev_victim(&r[0].next, sizeof(rec), head, 1, 7);
    CHECK(v == 2, "with the oldest (1) kept and this rank's own (7) never "
                  "shipped to make room, buffer 2 is the oldest left, got %d",
          v);
}

static void test_no_victim_when_only_kept_buffers_fill(void)
{
    rec r[4];
    int ids[] = {3, 0};
    int head = link_list(r, ids, 2);
    CHECK(ev_victim(&r[0].next, sizeof(rec), head, 3, 0) == -1,
          "only the kept buffer and the own one fill: nothing may leave");
    CHECK(ev_victim(&r[0].next, sizeof(rec), -1, 3, 0) == -1,
          "an empty list has no victim");
}

static void test_a_plain_int_array_is_a_list_too(void)
{
    int next[6] = {-1, -1, -1, 0, -1, 3}; /* 5 -> 3 -> 0 */
    CHECK(ev_victim(next, sizeof(int), 5, 4, 9) == 0,
          "an int array with stride sizeof(int) is a list (the model's); "
          "its oldest entry 0 must leave");
}

int main(void)
{
    RUN(test_room_is_made_only_at_the_cap);
    RUN(test_the_oldest_buffer_leaves);
    RUN(test_the_buffer_about_to_open_and_the_own_one_stay);
    RUN(test_no_victim_when_only_kept_buffers_fill);
    RUN(test_a_plain_int_array_is_a_list_too);
    CHECK_MAIN_END();
}
