/* model.c: peers, hop shares and per-peer append rates of one rank
 * (model.h).
 *
 * Closed forms on a complete grid s_0 x ... x s_{N-1} of P ranks, uniform
 * traffic (each send to one of the P - 1 others alike).  A destination
 * differs from the source in some set of dimensions; the route corrects
 * them highest first, one hop each (docs/design/routing.md).
 *  - Destinations a hops away: e_a, the elementary symmetric polynomial of
 *    degree a of the (s_d - 1).
 *  - Hops along d per send: the destinations that differ in d, P - P/s_d,
 *    over P - 1.  Every rank is alike (a grid is a product of complete
 *    graphs), so a rank appends that many items to its dimension-d buffers
 *    per send of its own, its first hops and what it relays together.
 *  - First hops along d: d is the highest differing dimension, so the
 *    coordinates above d agree: (s_d - 1) x prod_{e<d} s_e.
 *  - Last hops along d: d is the lowest differing one:
 *    (s_d - 1) x prod_{e>d} s_e.
 * Within a dimension the s_d - 1 peers are alike.
 */
#include "plan/model.h"

#include <stdlib.h>
#include <string.h>

int pl_grid_complete(const rt_grid *g)
{
    long long product = 1;
    for (int d = 0; d < g->ndims; d++)
        product *= g->dims[d];
    return product == g->nranks;
}

void pl_hop_counts(const rt_grid *g, double *e)
{
    for (int a = 0; a <= RT_MAX_DIMS; a++)
        e[a] = a == 0;
    for (int d = 0; d < g->ndims; d++)
        for (int a = d + 1; a >= 1; a--)
            e[a] += e[a - 1] * (double)(g->dims[d] - 1);
}

double pl_dim_hops_per_send(const rt_grid *g, int d)
{
    double P = g->nranks;
    return P > 1 ? (P - P / g->dims[d]) / (P - 1) : 0.0;
}

double pl_dim_first_hops_per_send(const rt_grid *g, int d)
{
    double below = 1;
    for (int e = 0; e < d; e++)
        below *= g->dims[e];
    return g->nranks > 1 ? (g->dims[d] - 1) * below / (g->nranks - 1) : 0.0;
}

static double dim_last_hops_per_send(const rt_grid *g, int d)
{
    double above = 1;
    for (int e = d + 1; e < g->ndims; e++)
        above *= g->dims[e];
    return g->nranks > 1 ? (g->dims[d] - 1) * above / (g->nranks - 1) : 0.0;
}

double pl_relay_dim_per_send(const rt_grid *g, int e, int d)
{
    if (d >= e || g->nranks < 2)
        return 0;
    double n = (double)(g->dims[e] - 1) * (g->dims[d] - 1);
    for (int f = 0; f < g->ndims; f++)
        if (f > e || f < d)
            n *= g->dims[f];
    return n / (g->nranks - 1);
}

int pl_complete_peers(const rt_grid *g)
{
    int n = 0;
    for (int d = 0; d < g->ndims; d++)
        n += g->dims[d] - 1;
    return n;
}

static int traffic_alloc(const rt_grid *g, int me, pl_traffic *t)
{
    memset(t, 0, sizeof *t);
    t->me = me;
    t->npeers = rt_grid_peers(g, me, NULL, 0);
    size_t n = (size_t)t->npeers + 1;
    t->peer = malloc(n * sizeof *t->peer);
    t->dim = malloc(n * sizeof *t->dim);
    t->own = calloc(n, sizeof *t->own);
    t->relay = calloc(n, sizeof *t->relay);
    t->final = calloc(n, sizeof *t->final);
    t->off_node = calloc(n, 1);
    if (!t->peer || !t->dim || !t->own || !t->relay || !t->final ||
        !t->off_node)
        return -1;
    rt_grid_peers(g, me, t->peer, t->npeers);
    for (int i = 0; i < t->npeers; i++)
        t->dim[i] = rt_grid_hop_dim(g, me, t->peer[i]);
    return 0;
}

/* Sends from s that go to t, per send of s. */
static double pair_weight(const rt_grid *g, pl_pattern pat, int s, int t)
{
    int P = g->nranks;
    if (s == t)
        return 0;
    if (pat == PL_PAIRS)
        return (P % 2 == 0 && s < P / 2 && t == s + P / 2) ? 1.0 : 0.0;
    return 1.0 / (P - 1);
}

/* Route by route: exact on any grid. */
static int traffic_counted(const rt_grid *g, pl_pattern pat, int me,
                           pl_traffic *t)
{
    int P = g->nranks;
    int *index = malloc((size_t)P * sizeof *index);
    if (!index)
        return -1;
    for (int q = 0; q < P; q++)
        index[q] = -1;
    for (int i = 0; i < t->npeers; i++)
        index[t->peer[i]] = i;
    double senders = 0;
    for (int s = 0; s < P; s++) {
        double out = 0;
        for (int d = 0; d < P; d++) {
            double w = pair_weight(g, pat, s, d);
            if (w == 0)
                continue;
            out += w;
            t->hops[rt_grid_route_length(g, s, d)] += w;
            for (int at = s, in = -1; at != d;) {
                int next = rt_grid_next_hop(g, at, d);
                int dim = rt_grid_hop_dim(g, at, next);
                if (next == me)
                    t->in_dim[dim] += w;
                if (at == me && in >= 0)
                    t->relay_dim[in][dim] += w;
                in = dim;
                if (at == me) {
                    int i = index[next];
                    if (s == me)
                        t->own[i] += w;
                    else
                        t->relay[i] += w;
                    if (next == d)
                        t->final[i] += w;
                }
                at = next;
            }
        }
        senders += out > 0;
        if (s == me)
            t->sends = out;
    }
    for (int a = 0; a <= RT_MAX_DIMS; a++)
        t->hops[a] /= senders > 0 ? senders : 1;
    t->senders = senders / P;
    free(index);
    t->exact = 1;
    return 0;
}

/* Per dimension: first, all and last hops per send; then spread over the
 * rank's peers in that dimension.  From the closed forms on a complete grid
 * (exact), from sampled routes on an incomplete one. */
static void traffic_by_dim(const double *first, const double *all,
                           const double *last, pl_traffic *t)
{
    int per_dim[RT_MAX_DIMS] = {0};
    for (int i = 0; i < t->npeers; i++)
        per_dim[t->dim[i]]++;
    for (int i = 0; i < t->npeers; i++) {
        int d = t->dim[i];
        t->own[i] = first[d] / per_dim[d];
        t->relay[i] = (all[d] - first[d]) / per_dim[d];
        t->final[i] = last[d] / per_dim[d];
    }
    t->sends = 1;
    t->senders = 1;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#define PL_SAMPLES 400000

static void traffic_sampled(const rt_grid *g, pl_traffic *t)
{
    double first[RT_MAX_DIMS] = {0}, all[RT_MAX_DIMS] = {0},
           last[RT_MAX_DIMS] = {0};
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int P = g->nranks;
    for (int k = 0; k < PL_SAMPLES; k++) {
        int s = (int)(rng_next(&rng) % (uint64_t)P);
        int d = (int)(rng_next(&rng) % (uint64_t)(P - 1));
        d += d >= s;
        t->hops[rt_grid_route_length(g, s, d)] += 1.0 / PL_SAMPLES;
        for (int at = s, in = -1; at != d;) {
            int next = rt_grid_next_hop(g, at, d);
            int dim = rt_grid_hop_dim(g, at, next);
            all[dim] += 1.0 / PL_SAMPLES;
            t->in_dim[dim] += 1.0 / PL_SAMPLES;
            if (in >= 0)
                t->relay_dim[in][dim] += 1.0 / PL_SAMPLES;
            in = dim;
            if (at == s)
                first[dim] += 1.0 / PL_SAMPLES;
            if (next == d)
                last[dim] += 1.0 / PL_SAMPLES;
            at = next;
        }
    }
    traffic_by_dim(first, all, last, t);
    t->exact = 0;
}

static void traffic_closed(const rt_grid *g, pl_traffic *t)
{
    double first[RT_MAX_DIMS], all[RT_MAX_DIMS], last[RT_MAX_DIMS],
        e[RT_MAX_DIMS + 1];
    for (int d = 0; d < g->ndims; d++) {
        first[d] = pl_dim_first_hops_per_send(g, d);
        all[d] = pl_dim_hops_per_send(g, d);
        last[d] = dim_last_hops_per_send(g, d);
        t->in_dim[d] = all[d];
        for (int e = 0; e < g->ndims; e++)
            t->relay_dim[e][d] = pl_relay_dim_per_send(g, e, d);
    }
    pl_hop_counts(g, e);
    for (int a = 0; a <= g->ndims; a++)
        t->hops[a] = g->nranks > 1 ? e[a] * (a > 0) / (g->nranks - 1) : 0;
    traffic_by_dim(first, all, last, t);
    t->exact = 1;
}

static int node_of(const pl_layout *l, int pos)
{
    return l->round_robin ? pos % l->nodes : pos / l->per_node;
}

int pl_traffic_of(const rt_grid *g, pl_pattern pat, const pl_layout *nodes,
                  int me, pl_traffic *t)
{
    if (traffic_alloc(g, me, t) != 0)
        return -1;
    int rc = 0;
    if (g->nranks < 2)
        t->sends = 0;
    else if (g->nranks <= PL_COUNT_MAX)
        rc = traffic_counted(g, pat, me, t);
    else if (pat == PL_PAIRS)
        rc = -1;
    else if (pl_grid_complete(g))
        traffic_closed(g, t);
    else
        traffic_sampled(g, t);
    for (int i = 0; nodes && nodes->nodes > 1 && i < t->npeers; i++)
        t->off_node[i] = node_of(nodes, t->peer[i]) != node_of(nodes, me);
    return rc;
}

void pl_traffic_free(pl_traffic *t)
{
    free(t->peer);
    free(t->dim);
    free(t->own);
    free(t->relay);
    free(t->final);
    free(t->off_node);
    memset(t, 0, sizeof *t);
}
