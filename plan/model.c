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
    /* A destination each, up to the ranks counted pair by pair; a group
     * per route length beyond. */
    size_t groups = (size_t)(g->nranks < PL_COUNT_MAX ? g->nranks
                                                      : PL_COUNT_MAX) +
                    RT_MAX_DIMS + 1;
    t->grp_count = malloc(groups * sizeof *t->grp_count);
    t->grp_share = malloc(groups * sizeof *t->grp_share);
    t->grp_hops = malloc(groups * sizeof *t->grp_hops);
    if (!t->peer || !t->dim || !t->own || !t->relay || !t->final ||
        !t->off_node || !t->grp_count || !t->grp_share || !t->grp_hops)
        return -1;
    rt_grid_peers(g, me, t->peer, t->npeers);
    for (int i = 0; i < t->npeers; i++)
        t->dim[i] = rt_grid_hop_dim(g, me, t->peer[i]);
    return 0;
}

void pl_stencil_dims(int P, int dims[2])
{
    int small = 1;
    for (int d = 1; (long long)d * d <= P; d++)
        if (P % d == 0)
            small = d;
    dims[0] = P / small;
    dims[1] = small;
}

/* Most destinations a sender of a sparse pattern has. */
#define PL_FEW_MAX 8

/* The destinations of sender s under a sparse pattern (pairs, stencil),
 * each with the share of s's sends it takes, self-sends included (they
 * take a share and go nowhere); returns how many, or -1 for a dense
 * pattern. */
static int few_destinations(const rt_grid *g, const pl_pattern *pat,
                            const int dims[2], int s, int *d, double *w)
{
    int P = g->nranks;
    if (pat->kind == PL_PAIRS || pat->kind == PL_MIRROR) {
        if (s < P / 2 && (pat->kind == PL_MIRROR || P % 2 == 0)) {
            d[0] = pat->kind == PL_MIRROR ? P - 1 - s : s + P / 2;
            w[0] = 1;
            return 1;
        }
        return 0;
    }
    if (pat->kind != PL_MOORE2D)
        return -1;
    int x = s / dims[1], y = s % dims[1], n = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++) {
            if (!dx && !dy)
                continue;
            d[n] = ((x + dx + dims[0]) % dims[0]) * dims[1] +
                   (y + dy + dims[1]) % dims[1];
            w[n++] = 1.0 / PL_FEW_MAX;
        }
    return n;
}

/* Sends from s that go to t, per send of s, under a dense pattern. */
static double pair_weight(const rt_grid *g, const pl_pattern *pat, int s,
                          int t)
{
    int P = g->nranks;
    if (s == t)
        return 0;
    if (pat->kind == PL_MEASURED)
        return pat->sends[(size_t)s * (size_t)P + (size_t)t];
    return 1.0 / (P - 1);
}

/* Index of position q among t's peers (ascending), or -1. */
static int peer_index(const pl_traffic *t, int q)
{
    int lo = 0, hi = t->npeers - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->peer[mid] == q)
            return mid;
        if (t->peer[mid] < q)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* The ranks whose view is counted: slot[pos] is pos's entry in ts, or -1;
 * the job's histogram of route lengths is counted once for all of them. */
typedef struct {
    const rt_grid *g;
    const int *slot;
    pl_traffic *ts;
    int n;
    double hops[RT_MAX_DIMS + 1];
} route_count;

/* Follows the route of w sends from s to d, as the counted ranks see it. */
static void count_route(route_count *c, int s, int d, double w)
{
    const rt_grid *g = c->g;
    /* Each hop sets one coordinate to d's, so a rank with a coordinate
     * that is neither s's nor d's is not on the route: when one rank is
     * counted, most pairs of a large job are only counted in the
     * histogram. */
    int hops = 0, on_route = 1, me = c->ts[0].me;
    for (int k = 0; k < g->ndims; k++) {
        int cs = (s / g->stride[k]) % g->dims[k];
        int cd = (d / g->stride[k]) % g->dims[k];
        int cm = (me / g->stride[k]) % g->dims[k];
        hops += cs != cd;
        on_route &= cm == cs || cm == cd;
    }
    c->hops[hops] += w;
    if (c->slot[s] >= 0) {
        pl_traffic *t = &c->ts[c->slot[s]];
        t->grp_count[t->ngroups] = 1;
        t->grp_share[t->ngroups] = w;
        t->grp_hops[t->ngroups++] = hops;
    }
    for (int at = s, in = -1; (on_route || c->n > 1) && at != d;) {
        int next = rt_grid_next_hop(g, at, d);
        int dim = rt_grid_hop_dim(g, at, next);
        if (c->slot[next] >= 0)
            c->ts[c->slot[next]].in_dim[dim] += w;
        if (c->slot[at] >= 0) {
            pl_traffic *t = &c->ts[c->slot[at]];
            int i = peer_index(t, next);
            if (in >= 0)
                t->relay_dim[in][dim] += w;
            if (s == at)
                t->own[i] += w;
            else
                t->relay[i] += w;
            if (next == d)
                t->final[i] += w;
        }
        in = dim;
        at = next;
    }
}

/* Route by route: exact on any grid.  A sparse pattern walks each
 * sender's few destinations; a dense one every pair, its weights scaled
 * to one send of each sender.  Every rank of `ts` is counted in one pass
 * over the senders. */
static int traffic_counted(const rt_grid *g, const pl_pattern *pat, int n,
                           pl_traffic *ts)
{
    int P = g->nranks;
    int *slot = malloc((size_t)P * sizeof *slot);
    if (!slot)
        return -1;
    for (int q = 0; q < P; q++)
        slot[q] = -1;
    for (int k = 0; k < n; k++)
        slot[ts[k].me] = k;
    route_count c = {.g = g, .slot = slot, .ts = ts, .n = n};
    double senders = 0;
    int dims[2];
    pl_stencil_dims(P, dims);
    for (int s = 0; s < P; s++) {
        int few[PL_FEW_MAX];
        double fw[PL_FEW_MAX], out = 0, sum = 0;
        int m = few_destinations(g, pat, dims, s, few, fw);
        for (int k = 0; k < m; k++) {
            out += fw[k];
            if (few[k] != s)
                count_route(&c, s, few[k], fw[k]);
            else
                c.hops[0] += fw[k]; /* as the statistics file counts */
        }
        for (int d = 0; m < 0 && d < P; d++)
            sum += pair_weight(g, pat, s, d);
        for (int d = 0; m < 0 && sum > 0 && d < P; d++) {
            double w = pair_weight(g, pat, s, d) / sum;
            if (w > 0)
                count_route(&c, s, d, w);
            out += w;
        }
        senders += out > 0;
        if (slot[s] >= 0)
            ts[slot[s]].sends = out;
    }
    for (int k = 0; k < n; k++) {
        for (int a = 0; a <= RT_MAX_DIMS; a++)
            ts[k].hops[a] = c.hops[a] / (senders > 0 ? senders : 1);
        ts[k].senders = senders / P;
        ts[k].exact = 1;
    }
    free(slot);
    return 0;
}

/* Per dimension: first, all and last hops per send; then spread over the
 * rank's peers in that dimension.  From the closed forms on a complete grid
 * (exact), from sampled routes on an incomplete one. */
static void traffic_by_dim(const double *first, const double *all,
                           const double *last, int P, pl_traffic *t)
{
    for (int a = 1; a <= RT_MAX_DIMS; a++)
        if (t->hops[a] > 0) {
            t->grp_count[t->ngroups] = t->hops[a] * (P - 1);
            t->grp_share[t->ngroups] = 1.0 / (P - 1);
            t->grp_hops[t->ngroups++] = a;
        }
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
    traffic_by_dim(first, all, last, P, t);
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
    traffic_by_dim(first, all, last, g->nranks, t);
    t->exact = 1;
}

static int node_of(const pl_layout *l, int pos)
{
    return l->round_robin ? pos % l->nodes : pos / l->per_node;
}

int pl_traffic_of_ranks(const rt_grid *g, const pl_pattern *pat,
                        const pl_layout *nodes, int n, const int *me,
                        pl_traffic *ts)
{
    int rc = 0;
    for (int k = 0; k < n; k++)
        if (traffic_alloc(g, me[k], &ts[k]) != 0)
            rc = -1;
    int dense = pat->kind == PL_UNIFORM || pat->kind == PL_ALLTOALL;
    if (rc == 0 && g->nranks >= 2 && (g->nranks <= PL_COUNT_MAX || !dense))
        rc = traffic_counted(g, pat, n, ts);
    else if (rc == 0 && g->nranks >= 2)
        for (int k = 0; k < n; k++) {
            if (pl_grid_complete(g))
                traffic_closed(g, &ts[k]);
            else
                traffic_sampled(g, &ts[k]);
        }
    for (int k = 0; k < n; k++) {
        pl_traffic *t = &ts[k];
        for (int i = 0; nodes && nodes->nodes > 1 && i < t->npeers; i++)
            t->off_node[i] =
                node_of(nodes, t->peer[i]) != node_of(nodes, t->me);
    }
    return rc;
}

int pl_traffic_of(const rt_grid *g, const pl_pattern *pat,
                  const pl_layout *nodes, int me, pl_traffic *t)
{
    return pl_traffic_of_ranks(g, pat, nodes, 1, &me, t);
}

void pl_traffic_free(pl_traffic *t)
{
    free(t->peer);
    free(t->dim);
    free(t->own);
    free(t->relay);
    free(t->final);
    free(t->off_node);
    free(t->grp_count);
    free(t->grp_share);
    free(t->grp_hops);
    memset(t, 0, sizeof *t);
}
