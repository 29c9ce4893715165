/* relay: how many (source, destination) pairs a rank relays for, exactly,
 * on any grid and at any size, in time independent of P (the memory
 * bound's relay term, router/flow.h's fl_params.relay_pairs).
 *
 * Why it is cheap.  A rank x relays (s, d) only if each coordinate of x is
 * s's or d's (every hop sets one coordinate to the destination's), so per
 * dimension k the pair is of one of three kinds: s_k = d_k = x_k, s_k =
 * x_k != d_k, or s_k != x_k = d_k.  The route (router/grid.c) decides each
 * hop by which coordinates differ, fixed by the kinds, and by whether a
 * position exists, a lexicographic comparison with the last position m,
 * fixed by whether each coordinate is below, at or above m_k.  So all the
 * pairs that agree in kind and in those relations take routes of one
 * shape: one route per class stands for all of them, at most 7^N classes
 * for a rank, and the ranks themselves fall in at most 3^N classes.
 */
#ifndef OMNIBUS_RELAY_H
#define OMNIBUS_RELAY_H

#include <stdint.h>
#include "router/grid.h"

/* Pairs (s, d), s != me != d, whose route passes me as an intermediate:
 * what fl_relay_pairs_counted() counts route by route, in O(7^N N^2). */
uint64_t rl_relay_pairs(const rt_grid *g, int me);

/* The most any rank of g relays for: the largest rl_relay_pairs() over
 * one rank of each class, in O(3^N 7^N N^2) at most (about a second for 6
 * dimensions). */
uint64_t rl_relay_pairs_max(const rt_grid *g);

#endif
