/* relay.c: relayed pairs by classes of pairs (relay.h). */
#include "router/relay.h"

/* One way to pick a pair's coordinates in one dimension: s_k and d_k, and
 * how many value pairs that pick stands for. */
typedef struct {
    int s, d;
    uint64_t n;
} rl_pick;

enum { RL_BELOW, RL_AT, RL_ABOVE, RL_RELATIONS };

/* A coordinate other than x of dimension k standing for every value other
 * than x in `rel` to m_k, and how many such values there are. */
static int value_in(int size, int mk, int x, int rel, uint64_t *n)
{
    int v;
    switch (rel) {
    case RL_BELOW:
        *n = (uint64_t)(mk - (x < mk));
        v = x == 0 ? 1 : 0;
        break;
    case RL_AT:
        *n = x != mk;
        v = mk;
        break;
    default:
        *n = (uint64_t)(size - 1 - mk - (x > mk));
        v = x == size - 1 ? size - 2 : size - 1;
        break;
    }
    return v;
}

/* The picks of dimension k for a relay whose coordinate is x. */
static int picks_of(const rt_grid *g, int k, int mk, int x, rl_pick *out)
{
    int n = 0;
    out[n++] = (rl_pick){x, x, 1};
    for (int rel = 0; rel < RL_RELATIONS; rel++) {
        uint64_t count;
        int v = value_in(g->dims[k], mk, x, rel, &count);
        if (!count)
            continue;
        out[n++] = (rl_pick){x, v, count};
        out[n++] = (rl_pick){v, x, count};
    }
    return n;
}

typedef struct {
    const rt_grid *g;
    int m[RT_MAX_DIMS];  /* the last position's coordinates */
    int xc[RT_MAX_DIMS]; /* the relay's */
    int x;
    rl_pick pick[RT_MAX_DIMS][1 + 2 * RL_RELATIONS];
    int npick[RT_MAX_DIMS];
    uint64_t total;
} rl_walk;

static int relays(const rt_grid *g, int x, int s, int d)
{
    for (int at = rt_grid_next_hop(g, s, d); at != d;
         at = rt_grid_next_hop(g, at, d))
        if (at == x)
            return 1;
    return 0;
}

/* Dimension k onwards, with s and d so far (their coordinates below k,
 * as positions), each of whose prefixes is still m's (at_m) or already
 * below it: a prefix above m's is no position.  s_off, d_off: s or d
 * already differs from x, which relays only for others. */
static void walk(rl_walk *w, int k, int s, int d, int s_at_m, int d_at_m,
                 int s_off, int d_off, uint64_t n)
{
    const rt_grid *g = w->g;
    if (k == g->ndims) {
        if (s_off && d_off && relays(g, w->x, s, d))
            w->total += n;
        return;
    }
    for (int i = 0; i < w->npick[k]; i++) {
        const rl_pick *p = &w->pick[k][i];
        if ((s_at_m && p->s > w->m[k]) || (d_at_m && p->d > w->m[k]))
            continue;
        walk(w, k + 1, s + p->s * g->stride[k], d + p->d * g->stride[k],
             s_at_m && p->s == w->m[k], d_at_m && p->d == w->m[k],
             s_off || p->s != w->xc[k], d_off || p->d != w->xc[k],
             n * p->n);
    }
}

uint64_t rl_relay_pairs(const rt_grid *g, int me)
{
    if (g->ndims < 2 || g->nranks < 3 || me < 0 || me >= g->nranks)
        return 0;
    rl_walk w = {.g = g, .x = me};
    for (int k = 0; k < g->ndims; k++) {
        w.m[k] = ((g->nranks - 1) / g->stride[k]) % g->dims[k];
        w.xc[k] = (me / g->stride[k]) % g->dims[k];
        w.npick[k] = picks_of(g, k, w.m[k], w.xc[k], w.pick[k]);
    }
    walk(&w, 0, 0, 0, 1, 1, 0, 0, 1);
    return w.total;
}

/* One rank of each class (its coordinates below, at or above m's, every
 * one alike, relay.h), dimension k onwards; the most any relays for. */
static uint64_t most_from(const rt_grid *g, const int *m, int k, int x,
                          int at_m)
{
    if (k == g->ndims)
        return rl_relay_pairs(g, x);
    uint64_t most = 0;
    int seen = -1;
    for (int rel = 0; rel < RL_RELATIONS; rel++) {
        int c = rel == RL_BELOW   ? 0
                : rel == RL_AT    ? m[k]
                                  : g->dims[k] - 1;
        if ((rel == RL_BELOW && c >= m[k]) ||
            (rel == RL_ABOVE && c <= m[k]) || (at_m && c > m[k]) ||
            c == seen)
            continue;
        seen = c;
        uint64_t n = most_from(g, m, k + 1, x + c * g->stride[k],
                               at_m && c == m[k]);
        if (n > most)
            most = n;
    }
    return most;
}

uint64_t rl_relay_pairs_max(const rt_grid *g)
{
    if (g->ndims < 2 || g->nranks < 3)
        return 0;
    long long product = 1;
    for (int k = 0; k < g->ndims; k++)
        product *= g->dims[k];
    if (product == g->nranks) /* complete: every rank alike */
        return rl_relay_pairs(g, 0);
    int m[RT_MAX_DIMS];
    for (int k = 0; k < g->ndims; k++)
        m[k] = ((g->nranks - 1) / g->stride[k]) % g->dims[k];
    return most_from(g, m, 0, 0, 1);
}
