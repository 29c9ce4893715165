#include "router/flow.h"

#include <ctype.h>
#include <string.h>

uint64_t fl_window(uint64_t pool, int nranks)
{
    if (nranks < 2)
        return FL_WINDOW_MAX;
    uint64_t share = pool / 2 / (uint64_t)(nranks - 1);
    return share < FL_WINDOW_MAX ? share : FL_WINDOW_MAX;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a < b ? a : b;
    return m < c ? m : c;
}

uint64_t fl_growth(uint64_t window, uint64_t unlent, uint64_t accept)
{
    if (window >= FL_WINDOW_MAX)
        return 0;
    uint64_t want = window > FL_GROW_MIN ? window : FL_GROW_MIN;
    return min3(want < FL_WINDOW_MAX - window ? want : FL_WINDOW_MAX - window,
                unlent, accept);
}

uint64_t fl_memory_bound(const fl_params *p)
{
    int cap = p->fill_cap ? p->fill_cap : FL_FILL_CAP;
    uint64_t fill = (uint64_t)(p->npeers < cap ? p->npeers : cap);
    uint64_t base = fl_window(p->pool, p->nranks);
    uint64_t own = (uint64_t)(p->nranks > 1 ? p->nranks - 1 : 0) * base +
                   fl_sender_budget(p->pool);
    uint64_t relayed = p->relay_pairs
                           ? p->relay_pairs * base + fl_relay_budget(p->pool)
                           : 0;
    return (uint64_t)p->rx_blocks * p->block + fill * p->block +
           2 * p->pool + 4 * own + 4 * relayed;
}

uint64_t fl_relay_pairs_counted(const rt_grid *g, int me)
{
    uint64_t n = 0;
    for (int s = 0; s < g->nranks; s++) {
        if (s == me)
            continue;
        for (int d = 0; d < g->nranks; d++) {
            if (d == me || d == s)
                continue;
            for (int at = rt_grid_next_hop(g, s, d); at != d;
                 at = rt_grid_next_hop(g, at, d)) {
                if (at == me) {
                    n++;
                    break;
                }
            }
        }
    }
    return n;
}

/* e[a] = number of destinations exactly a hops away on a complete grid: the
 * elementary symmetric polynomials of (s_d - 1). */
uint64_t fl_relay_pairs_complete(const rt_grid *g)
{
    uint64_t e[RT_MAX_DIMS + 1] = {1};
    for (int d = 0; d < g->ndims; d++)
        for (int a = d + 1; a >= 1; a--)
            e[a] += e[a - 1] * (uint64_t)(g->dims[d] - 1);
    uint64_t n = 0;
    for (int a = 2; a <= g->ndims; a++)
        n += (uint64_t)(a - 1) * e[a];
    return n;
}

static int grid_is_complete(const rt_grid *g)
{
    long long product = 1;
    for (int d = 0; d < g->ndims; d++)
        product *= g->dims[d];
    return product == g->nranks;
}

/* Every hop sets one coordinate to the destination's, so each coordinate
 * of a rank on the route from s to d is s's or d's: a relay x of (s, d)
 * has x_k in {s_k, d_k} for every k.  For a given x that leaves 2 s_k - 1
 * pairs of values per dimension, prod (2 s_k - 1) pairs of positions in
 * all, of which the 2 prod s_k - 1 with s = x or d = x are not relayed by
 * x.  Whatever order the hops take around the empty positions, and for
 * every x alike. */
uint64_t fl_relay_pairs_box(const rt_grid *g)
{
    uint64_t box = 1, size = 1;
    for (int d = 0; d < g->ndims; d++) {
        box *= 2 * (uint64_t)g->dims[d] - 1;
        size *= (uint64_t)g->dims[d];
    }
    return box - 2 * size + 1;
}

uint64_t fl_relay_pairs(const rt_grid *g, int me)
{
    if (g->ndims < 2 || g->nranks < 3)
        return 0;
    if (grid_is_complete(g))
        return fl_relay_pairs_complete(g);
    if (g->nranks <= FL_COUNTED_MAX)
        return fl_relay_pairs_counted(g, me);
    uint64_t all = (uint64_t)(g->nranks - 1) * (uint64_t)(g->nranks - 2);
    uint64_t box = fl_relay_pairs_box(g);
    return box < all ? box : all;
}

uint64_t fl_steal_ticks(const char *text)
{
    const char *p = text;
    while (p && strncmp(p, "cpu ", 4) != 0) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return 0;
    p += 4;
    /* user nice system idle iowait irq softirq steal: the eighth */
    uint64_t v = 0;
    for (int col = 1; col <= 8; col++) {
        while (*p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        for (v = 0; isdigit((unsigned char)*p); p++)
            v = v * 10 + (uint64_t)(*p - '0');
    }
    return v;
}
