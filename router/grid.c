/* grid.c: positions, routes and peers of the virtual grid
 * (docs/design/routing.md).
 *
 * Notation.  m = (m_0 .. m_{N-1}) are the coordinates of the last existing
 * position M = P-1.  Row-major order makes "position x exists" (x <= M) the
 * same as "the coordinates of x are lexicographically <= m", dimension 0
 * most significant.  For a route to t, h_d(u) is u with coordinate d set to
 * t_d: the one hop that corrects dimension d.
 *
 * Rule.  At u != t, hop to h_d(u) for the HIGHEST dimension d in which u and
 * t differ such that h_d(u) exists.  On a full grid nothing is a hole, so
 * this is TRAM's highest-dimension-first routing; on an incomplete grid it
 * departs from it only at a position whose plain next hop is a hole.
 *
 * Lemma 1 (where holes are).  If u exists and h_d(u) is a hole, u agrees
 * with m in every dimension below d: were u's prefix below d
 * lexicographically smaller than m's, h_d(u), which has the same prefix,
 * would be below M whatever its other coordinates.
 *
 * Lemma 2 (a hop always exists).  Let d* be the highest dimension in which
 * u and t differ.  If h_{d*}(u) is a hole, Lemma 1 gives u = m below d*, so
 * h_{d*}(u) is m below d* and t from d* up, and it is > m.  As t <= m and t
 * agrees with it from d* up, t's prefix below d* is lexicographically
 * smaller than m's = u's.  Hence the lowest dimension e in which u and t
 * differ has e < d* and t_e < u_e = m_e, and h_e(u) (m below e, t_e < m_e
 * at e) exists.
 *
 * Hop bound: exactly the Hamming distance, so at most N.  Each hop sets one
 * differing coordinate to t's value, and the rule never touches a
 * coordinate that already agrees with t.  So a route from s to t has as many
 * hops as s and t have differing coordinates, ends at t, and visits only
 * existing positions (the rule only chooses existing ones).  No detour costs
 * an extra hop; N+1 is never needed.
 *
 * Lemma 3 (only a detour can climb).  If a route takes u -> u' in dimension
 * x and then u' -> u'' in dimension y > x, then u = m below x, u_x = m_x and
 * u'_x < m_x.  Dimension y already differed at u and is higher than x, so
 * the rule passed it over: h_y(u) is a hole, and Lemma 1 gives u = m in all
 * dimensions below y, which include x.  u' equals m below x and differs
 * from u = m at x; u'_x > m_x would put u' above M, so u'_x < m_x.
 *
 * Acyclic link dependencies.  Take a cycle of links L_1 -> ... -> L_k -> L_1
 * where each consecutive pair is used back to back by some route; the head
 * of each link is the tail of the next, so the cycle is a closed walk over
 * positions.  Let e be the lowest dimension among its links.  Consecutive
 * hops of a route correct distinct dimensions, so the link after any
 * dimension-e link has a higher dimension, and by Lemma 3 every dimension-e
 * link of the cycle lowers coordinate e (from m_e to below m_e).  Links of
 * other dimensions leave coordinate e alone, so coordinate e strictly falls
 * around a closed walk: impossible.  (On a full grid every dependency goes
 * to a strictly lower dimension, the classic argument.)
 *
 * Peers.  Every existing q that differs from me in exactly one coordinate d
 * is a first hop: the route from me to q has d as its only candidate and
 * h_d(me) = q exists.  Every hop is such a q.  So the peers of me are its
 * existing one-coordinate neighbours.
 *
 * Out-of-range positions (< 0 or >= P) are not routed: the functions that
 * take them return -1 (rt_grid_peers returns 0).
 */
#include "grid.h"

#include <limits.h>
#include <stddef.h>

static int pos_ok(const rt_grid *g, int pos)
{
    return pos >= 0 && pos < g->nranks;
}

int rt_grid_init(rt_grid *g, int nranks, int ndims, const int *dims)
{
    if (!g || !dims || nranks < 1 || ndims < 1 || ndims > RT_MAX_DIMS)
        return -1;
    int product = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 1 || product > INT_MAX / dims[d])
            return -1;
        product *= dims[d];
    }
    if (product < nranks)
        return -1;

    /* Filled only after validation, so a refused call leaves *g as it was. */
    g->nranks = nranks;
    g->ndims = ndims;
    /* Unused dimensions get size 1 and stride 1, so that grids built from the
     * same arguments compare equal and no stride is ever 0. */
    int stride = 1;
    for (int d = RT_MAX_DIMS - 1; d >= 0; d--) {
        if (d >= ndims) {
            g->dims[d] = 1;
            g->stride[d] = 1;
            continue;
        }
        g->dims[d] = dims[d];
        g->stride[d] = stride;
        stride *= dims[d];
    }
    return 0;
}

/* Products saturate at LLONG_MAX: only comparisons with nranks matter. */
static long long sat_mul(long long a, long long b)
{
    if (a != 0 && b > LLONG_MAX / a)
        return LLONG_MAX;
    return a * b;
}

static long long sat_pow(long long k, int n)
{
    long long r = 1;
    for (int i = 0; i < n; i++)
        r = sat_mul(r, k);
    return r;
}

/* Balanced choices are j sizes of k and n-j of k-1 (0 <= j < n), or all k.
 * Ordered by (k, j) their products strictly increase, so the minimal one
 * that reaches nranks uses the smallest k with k^n >= nranks and the
 * smallest j that suffices.  An ndims out of 1..RT_MAX_DIMS writes nothing;
 * nranks < 1 counts as 1. */
void rt_grid_balanced_dims(int nranks, int ndims, int *dims)
{
    if (!dims || ndims < 1 || ndims > RT_MAX_DIMS)
        return;
    if (nranks < 1)
        nranks = 1;

    long long lo = 1, hi = nranks;   /* smallest k with k^ndims >= nranks */
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (sat_pow(mid, ndims) >= nranks)
            hi = mid;
        else
            lo = mid + 1;
    }
    int k = (int)lo;

    int big = ndims;
    if (k > 1) {
        for (int j = 0; j < ndims; j++) {
            if (sat_mul(sat_pow(k, j), sat_pow(k - 1, ndims - j)) >= nranks) {
                big = j;
                break;
            }
        }
    }
    for (int d = 0; d < ndims; d++)
        dims[d] = d < big ? k : k - 1;
}

int rt_grid_coord(const rt_grid *g, int pos, int d)
{
    if (d < 0 || d >= g->ndims || pos < 0)
        return -1;
    return (pos / g->stride[d]) % g->dims[d];
}

int rt_grid_next_hop(const rt_grid *g, int me, int dst)
{
    if (!pos_ok(g, me) || !pos_ok(g, dst))
        return -1;
    if (me == dst)
        return me;
    for (int d = g->ndims - 1; d >= 0; d--) {
        int cm = (me / g->stride[d]) % g->dims[d];
        int ct = (dst / g->stride[d]) % g->dims[d];
        if (cm == ct)
            continue;
        int next = me + (ct - cm) * g->stride[d];
        if (next < g->nranks)
            return next;
    }
    return -1;  /* unreachable by Lemma 2 */
}

int rt_grid_hop_dim(const rt_grid *g, int me, int next)
{
    if (!pos_ok(g, me) || !pos_ok(g, next))
        return -1;
    int found = -1;
    for (int d = 0; d < g->ndims; d++) {
        if ((me / g->stride[d]) % g->dims[d] !=
            (next / g->stride[d]) % g->dims[d]) {
            if (found >= 0)
                return -1;  /* not peers: no single dimension names the hop */
            found = d;
        }
    }
    return found;
}

int rt_grid_route_length(const rt_grid *g, int src, int dst)
{
    if (!pos_ok(g, src) || !pos_ok(g, dst))
        return -1;
    int hops = 0;  /* the Hamming distance, by the hop bound above */
    for (int d = 0; d < g->ndims; d++)
        hops += (src / g->stride[d]) % g->dims[d] !=
                (dst / g->stride[d]) % g->dims[d];
    return hops;
}

/* A dimension varies over the job when some position has a coordinate
 * other than 0 in it, i.e. when P > stride[d] (and the size is above 1).
 * With two varying dimensions d1 and d2, positions stride[d1] and
 * stride[d2] both exist and differ in both: a route of two hops. */
int rt_grid_one_hop(const rt_grid *g)
{
    int varying = 0;
    for (int d = 0; d < g->ndims; d++)
        varying += g->dims[d] > 1 && g->nranks > g->stride[d];
    return varying <= 1;
}

/* Ascending without sorting: a neighbour below me in dimension d lies at
 * least stride[d] below it, while every neighbour below it in a higher
 * dimension d' lies less than dims[d'] * stride[d'] <= stride[d] below it;
 * so lower neighbours come dimension 0 first, upper ones dimension N-1
 * first, and within a dimension by coordinate. */
int rt_grid_peers(const rt_grid *g, int me, int *peers, int max)
{
    if (!pos_ok(g, me))
        return 0;
    int n = 0;
    for (int d = 0; d < g->ndims; d++) {
        int c = (me / g->stride[d]) % g->dims[d];
        for (int x = 0; x < c; x++) {
            if (peers && n < max)
                peers[n] = me - (c - x) * g->stride[d];
            n++;
        }
    }
    for (int d = g->ndims - 1; d >= 0; d--) {
        int c = (me / g->stride[d]) % g->dims[d];
        for (int x = c + 1; x < g->dims[d]; x++) {
            int q = me + (x - c) * g->stride[d];
            if (q >= g->nranks)
                break;  /* the rest of this line lies further out */
            if (peers && n < max)
                peers[n] = q;
            n++;
        }
    }
    return n;
}
