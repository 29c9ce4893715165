/* test_envelope: the tags of large messages sent without a header, and
 * the rule that takes them in their pair's order (router/envelope.h). */
#include "router/envelope.h"
#include "tests/unit/check.h"

#define UCX_TAG_UB 268435455 /* 2^28 - 1: MPICH 4.0 over ch4:ucx */
#define OB1_TAG_UB 2147483647  /* 2^31 - 1: Open MPI's ob1 */
#define LEAST_TAG_UB 32767     /* the least bound MPI allows */

static void test_mpich_ucx_bound_leaves_sixteen_bits_of_tag(void)
{
    ev_layout l = ev_layout_for(UCX_TAG_UB);
    CHECK(l.ok && l.flag_bit == 27 && l.tag_bits == 16 && l.comm_bits == 7,
          "a tag bound of 2^28 - 1 must give the flag at bit 27, 4 bits of "
          "block count, 7 of communicator and 16 of tag; got ok %d, flag "
          "%u, comm %u, tag %u", l.ok, l.flag_bit, l.comm_bits, l.tag_bits);
}

static void test_a_bound_not_all_ones_uses_the_bits_below_it(void)
{
    ev_layout l = ev_layout_for(UCX_TAG_UB - 1);
    CHECK(l.ok && l.flag_bit == 26,
          "a tag bound of 2^28 - 2 does not admit every tag of 28 bits: the "
          "flag must go to bit 26; got ok %d, flag %u", l.ok, l.flag_bit);
}

static void test_the_least_bound_mpi_allows_leaves_no_room(void)
{
    ev_layout l = ev_layout_for(LEAST_TAG_UB);
    CHECK(!l.ok, "a tag bound of 32767 leaves fewer than %u bits of tag: "
                 "every large message must keep its header",
          EV_TAG_BITS_MIN);
}

static void test_every_tag_stays_within_the_bound(void)
{
    static const int bounds[] = {UCX_TAG_UB, OB1_TAG_UB, 1048575,
                                 4194303};
    for (int i = 0; i < 4; i++) {
        ev_layout l = ev_layout_for(bounds[i]);
        int top = ev_tag(&l, (1u << l.comm_bits) - 1,
                         (int)((1u << l.tag_bits) - 1), EV_SEQ_MOD - 1);
        CHECK(l.ok && top > 0 && top <= bounds[i],
              "the largest tag under bound %d must be positive and within "
              "it, got %d", bounds[i], top);
    }
}

static void test_fields_come_back_as_they_went(void)
{
    ev_layout l = ev_layout_for(UCX_TAG_UB);
    int t = ev_tag(&l, 5, 1234, 37);
    ev_fields f = ev_fields_of(&l, t);
    CHECK(t > 0 && ev_is_envelope(&l, t) && f.comm == 5 && f.tag == 1234 &&
              f.seq == 37 % EV_SEQ_MOD,
          "communicator 5, tag 1234 after 37 blocks must read back as 5, "
          "1234, %u; got %u, %d, %u (tag %d)", 37 % EV_SEQ_MOD, f.comm,
          f.tag, f.seq, t);
}

static void test_block_tags_are_not_envelopes(void)
{
    ev_layout l = ev_layout_for(UCX_TAG_UB);
    CHECK(!ev_is_envelope(&l, 1) && !ev_is_envelope(&l, 2),
          "the tags of blocks (1) and of the group drain (2) must not read "
          "as a message without header");
}

static void test_what_does_not_fit_keeps_its_header(void)
{
    ev_layout l = ev_layout_for(UCX_TAG_UB);
    CHECK(ev_tag(&l, 0, 1 << 16, 0) == -1 && ev_tag(&l, 128, 0, 0) == -1 &&
              ev_tag(&l, 0, -1, 0) == -1,
          "a tag of 2^16, a communicator id of 128 and a negative tag must "
          "not fit under 2^28 - 1");
}

static void test_a_message_waits_for_the_blocks_sent_before_it(void)
{
    int next = ev_in_order(3, 3), early = ev_in_order(3, 2);
    int wrapped = ev_in_order(1, EV_SEQ_MOD + 1);
    CHECK(next && !early && wrapped,
          "a message sent after 3 blocks comes next once 3 are processed "
          "(%d), not after 2 (%d), and the count wraps modulo %u (%d)",
          next, early, EV_SEQ_MOD, wrapped);
}

int main(void)
{
    RUN(test_mpich_ucx_bound_leaves_sixteen_bits_of_tag);
    RUN(test_a_bound_not_all_ones_uses_the_bits_below_it);
    RUN(test_the_least_bound_mpi_allows_leaves_no_room);
    RUN(test_every_tag_stays_within_the_bound);
    RUN(test_fields_come_back_as_they_went);
    RUN(test_block_tags_are_not_envelopes);
    RUN(test_what_does_not_fit_keeps_its_header);
    RUN(test_a_message_waits_for_the_blocks_sent_before_it);
    CHECK_MAIN_END();
}
