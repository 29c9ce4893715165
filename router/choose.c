/* choose.c: the closed-form score of a grid and `auto`'s pick (choose.h). */
#include "router/choose.h"
#include "router/adapt.h"
#include "router/evict.h"

/* x^n by squaring: the library links no libm. */
static double ipow(double x, uint64_t n)
{
    double r = 1;
    for (; n; n >>= 1, x *= x)
        if (n & 1)
            r *= x;
    return r;
}

double rc_open_buffers(const rc_rule *r, int K, double items)
{
    uint64_t need = (uint64_t)(items * (double)r->item);
    uint64_t room = ev_grown_room(ev_start_room(r->block, K, r->cap),
                                  need ? need : 1, r->block);
    return (double)r->cap * (double)r->block / (double)room;
}

double rc_items_per_block(const rc_rule *r, int s, double h, int K)
{
    double full = r->item ? (double)(r->block / r->item) : 1.0;
    if (full < 1)
        full = 1;
    double best = full;
    if (s > 1 && r->poll > 0) {
        double share = h / (double)(s - 1);
        double x = (double)r->poll * share;
        double q = share < 1 ? ipow(1 - share, (uint64_t)r->poll) : 0;
        double qr = ipow(q, r->idle_rounds);
        if (q > 0 && qr > 0) {
            double idle = x / ((1 - q) * qr);
            if (idle < best)
                best = idle;
        }
    }
    if (s > 1 && r->age_sends > 0) {
        double age = r->age_sends * h / (double)(s - 1);
        if (age < 1)
            age = 1;
        if (age < best)
            best = age;
    }
    double open = rc_open_buffers(r, K, best);
    if (K > open) {
        double cap = (double)K / ((double)K - open);
        if (cap < best)
            best = cap;
    }
    return best;
}

/* Items per send along a dimension of s ranks out of P. */
static double hops_along(double P, int s)
{
    return (P - P / s) / (P - 1);
}

/* The rule with R the wait router/adapt.h gives a rank of K peers on this
 * grid: OMNIBUS_IDLE_ROUNDS x F / w, w = sum over d of (s_d - 1) p_d the
 * buffers a round writes and F the buffers filling, at most the cap.  A
 * buffer that left stays empty until its next append, 1 / p_d rounds of
 * a cycle of n_d / x_d (n_d items a block, x_d a round), so F is the sum
 * of (s_d - 1)(1 - x_d / (p_d n_d)); since n_d depends on R in turn, a few
 * rounds of the two settle both. */
static rc_rule with_wait(const rc_rule *r, double P, int ndims,
                         const int *dims, int K)
{
    rc_rule out = *r;
    if (r->poll <= 0)
        return out;
    double w = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 2)
            continue;
        double share = hops_along(P, dims[d]) / (double)(dims[d] - 1);
        double miss = share < 1 ? ipow(1 - share, (uint64_t)r->poll) : 0;
        w += (double)(dims[d] - 1) * (1 - miss);
    }
    ad_policy pol = {.idle_rounds = r->idle_rounds};
    ad_rate rate = {.written = w > 1 ? (uint64_t)(w * AD_RATE_ONE)
                                     : AD_RATE_ONE};
    double filling = K < r->cap ? K : r->cap;
    for (int settle = 0; settle < 8; settle++) {
        out.idle_rounds = ad_idle_after(&pol, &rate, (int)(filling + 0.5));
        double f = 0;
        for (int d = 0; d < ndims; d++) {
            if (dims[d] < 2)
                continue;
            double h = hops_along(P, dims[d]);
            double share = h / (double)(dims[d] - 1);
            double x = (double)r->poll * share;
            double p = share < 1 ? 1 - ipow(1 - share, (uint64_t)r->poll) : 1;
            double n = rc_items_per_block(&out, dims[d], h, K);
            double empty = x / (p * n);
            f += (double)(dims[d] - 1) * (empty < 1 ? 1 - empty : 0);
        }
        filling = f < r->cap ? f : r->cap;
    }
    return out;
}

double rc_score(const rc_rule *r, int nranks, int ndims, const int *dims)
{
    if (nranks < 2)
        return 0;
    double P = nranks;
    int K = 0;
    for (int d = 0; d < ndims; d++)
        K += dims[d] - 1;
    rc_rule waits = with_wait(r, P, ndims, dims, K);
    double score = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 2)
            continue;
        double h = hops_along(P, dims[d]);
        score += h / rc_items_per_block(&waits, dims[d], h, K);
    }
    return score;
}

static void take(rc_choice *out, const rc_rule *r, int P, int ndims,
                 const int *dims, int node_grid)
{
    out->ndims = ndims;
    for (int d = 0; d < ndims; d++)
        out->dims[d] = dims[d];
    out->node_grid = node_grid;
    out->score = rc_score(r, P, ndims, dims);
}

/* Factors of P into n, each at least 2 and at most f[depth - 1] (largest
 * first), the way with the fewest peers (sum of f - 1) into best and
 * *peers (-1 while none is found). */
static void fewest_peer_factors(int P, int n, int *f, int *best, long *peers,
                                int depth, long sum)
{
    int most = depth > 0 && f[depth - 1] < P ? f[depth - 1] : P;
    if (n == 1) {
        if (P < 2 || P > most)
            return;
        f[depth] = P;
        if (*peers < 0 || sum + P - 1 < *peers) {
            *peers = sum + P - 1;
            for (int d = 0; d <= depth; d++)
                best[d] = f[d];
        }
        return;
    }
    /* the largest of n factors of P is at least P^(1/n) */
    for (int x = most; x >= 2; x--) {
        long long power = 1;
        for (int k = 0; k < n && power < P; k++)
            power *= x;
        if (power < P)
            break;
        if (P % x == 0) {
            f[depth] = x;
            fewest_peer_factors(P / x, n - 1, f, best, peers, depth + 1,
                                sum + x - 1);
        }
    }
}

/* A complete grid of n dimensions for P ranks, or 0 where none is within a
 * quarter of the balanced grid's peers.  A complete grid routes every pair
 * without the detours of an incomplete one (routing.md) and keeps a
 * stencil's rows on one coordinate where P is a power of two. */
static int complete_dims(int P, int n, const int *balanced, int *dims)
{
    int f[RT_MAX_DIMS];
    long peers = -1, even = 0;
    for (int d = 0; d < n; d++)
        even += balanced[d] - 1;
    fewest_peer_factors(P, n, f, dims, &peers, 0, 0);
    return peers >= 0 && peers * 4 <= even * 5;
}

void rc_choose(const rc_rule *r, int nranks, int nnodes, int equal,
               rc_choice *out)
{
    int direct[1] = {nranks};
    take(out, r, nranks, 1, direct, 0);
    out->direct_score = out->score;
    out->reason = RC_DIRECT_BEST;
    int capped = nranks - 1 > r->cap;
    if (nnodes <= 1 && !capped) {
        out->reason = RC_DIRECT_ONE_NODE;
        return;
    }
    /* Fewest hops first: the node grid, then balanced grids of 2, 3, ...
     * dimensions, the latter only where direct's peers exceed the cap. */
    rc_choice c = {0};
    if (equal && nnodes > 1 && nranks / nnodes > 1 &&
        nnodes - 1 + nranks / nnodes - 1 <= r->cap) {
        int dims[2] = {nnodes, nranks / nnodes};
        take(&c, r, nranks, 2, dims, 1);
        if (c.score <= out->direct_score / 2)
            goto found;
    }
    for (int n = 2; capped && n <= RC_MAX_BALANCED; n++) {
        int dims[RT_MAX_DIMS], whole[RT_MAX_DIMS];
        rt_grid_balanced_dims(nranks, n, dims);
        if (dims[n - 1] < 2)
            break;
        if (complete_dims(nranks, n, dims, whole)) {
            take(&c, r, nranks, n, whole, 0);
            if (c.score <= out->direct_score / 2)
                goto found;
        }
        take(&c, r, nranks, n, dims, 0);
        if (c.score <= out->direct_score / 2)
            goto found;
    }
    return;
found:
    c.direct_score = out->direct_score;
    c.reason = c.node_grid ? RC_NODE_GRID_HALVES
                           : RC_GRID_HALVES;
    *out = c;
}

const char *rc_reason_text(rc_reason why)
{
    switch (why) {
    case RC_DIRECT_ONE_NODE:
        return "one node and no more peers than the cap: every buffer fills, "
               "and a relay hop would only add a copy";
    case RC_DIRECT_BEST:
        return "no candidate grid halves direct's wire messages per send, "
               "so no relay hop is worth its latency";
    case RC_NODE_GRID_HALVES:
        return "the node grid at least halves direct's wire messages per "
               "send: items gather inside a node before they cross the "
               "network";
    case RC_GRID_HALVES:
        return "direct's peers exceed the cap, so its blocks leave nearly "
               "empty; this is the grid of fewest dimensions that at least "
               "halves direct's wire messages per send";
    }
    return "";
}
