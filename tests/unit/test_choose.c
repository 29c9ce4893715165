/* test_choose: the grid `auto` builds (router/choose.h), the planning
 * model's pick; the layouts quoted in docs/design/routing.md. */
#include "router/choose.h"
#include "router/evict.h"
#include "router/flow.h"
#include "router/wire.h"
#include "config/config.h"
#include "tests/unit/check.h"

static rc_rule rule(int nnodes)
{
    rc_rule r = {.block = nnodes > 1 ? CFG_NETWORK_BUFFER_SIZE
                                     : CFG_DEFAULT_BUFFER_SIZE,
                 .item = RT_HDR_SIZE + 8,
                 .idle_rounds = CFG_DEFAULT_IDLE_ROUNDS, .cap = FL_FILL_CAP,
                 .poll = RC_POLL,
                 .age_sends = CFG_DEFAULT_FLUSH_US * RC_SENDS_PER_US};
    return r;
}

static rc_choice pick(int nnodes, int per)
{
    rc_rule r = rule(nnodes);
    rc_choice c;
    rc_choose(&r, nnodes * per, nnodes, 1, &c);
    return c;
}

static void test_one_node_below_the_cap_is_direct(void)
{
    rc_choice c = pick(1, 16);
    CHECK(c.ndims == 1 && c.reason == RC_DIRECT_ONE_NODE,
          "16 ranks on one node: every buffer fills, auto must be direct, "
          "got %d dimensions", c.ndims);
}

static void test_small_node_layouts_keep_the_measured_choices(void)
{
    rc_choice a = pick(2, 2), b = pick(4, 2), c = pick(3, 2);
    CHECK(a.ndims == 1 && b.ndims == 1 && c.ndims == 1,
          "2x2, 4x2 and 3x2 nodes: the node grid does not halve direct's "
          "wire messages, auto must stay direct (the grid lost the "
          "latency-bound exchange there), got %d, %d, %d dimensions",
          a.ndims, b.ndims, c.ndims);
    rc_choice d = pick(3, 3), e = pick(4, 4);
    CHECK(d.node_grid && d.dims[0] == 3 && e.node_grid && e.dims[1] == 4,
          "3x3 and 4x4 nodes: the node grid halves direct's wire messages "
          "and auto must build it");
}

static int peers_of(const rc_choice *c)
{
    int K = 0;
    for (int d = 0; d < c->ndims; d++)
        K += c->dims[d] - 1;
    return K;
}

static void test_past_the_cap_auto_takes_a_grid_whose_buffers_stay_open(void)
{
    rc_choice c = pick(8, 128);
    int K = peers_of(&c);
    CHECK(c.ndims == 2 && K <= EV_START_SHARE * FL_FILL_CAP &&
              c.reason != RC_DIRECT_BEST,
          "8 nodes of 128: direct's 1,023 peers exceed the %d buffers the "
          "cap keeps open, so auto must take a 2-D grid whose peers fit "
          "them, got %d dimensions and %d peers",
          EV_START_SHARE * FL_FILL_CAP, c.ndims, K);
}

static void test_a_million_ranks_take_at_most_three_relays(void)
{
    rc_choice c = pick(8192, 128);
    CHECK(c.ndims <= 4 && c.score <= c.direct_score / 2,
          "8,192 nodes of 128: the cap counts bytes, so a grid of at most 4 "
          "dimensions (3 relays) halves direct's wire messages per send and "
          "auto must take one; got %d dimensions scoring %.3f (direct %.3f)",
          c.ndims, c.score, c.direct_score);
}

static void test_cap_items_per_block_is_k_over_k_minus_cap(void)
{
    rc_rule r = rule(2);
    r.age_sends = 0;
    r.poll = 1000000;
    double ipb = rc_items_per_block(&r, 304, 1.0, 303);
    CHECK(ipb > 1.26 && ipb < 1.275,
          "303 peers (a 3-D grid of 10^6 ranks) and a cap of 64: a block "
          "carries K/(K - cap) = 303/239 = 1.27 items, however often the "
          "program polls, got %.3f", ipb);
}

int main(void)
{
    RUN(test_one_node_below_the_cap_is_direct);
    RUN(test_small_node_layouts_keep_the_measured_choices);
    RUN(test_past_the_cap_auto_takes_a_grid_whose_buffers_stay_open);
    RUN(test_a_million_ranks_take_at_most_three_relays);
    RUN(test_cap_items_per_block_is_k_over_k_minus_cap);
    CHECK_MAIN_END();
}
