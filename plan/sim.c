/* sim.c: one rank's buffers, event by event (sim.h). */
#include "plan/sim.h"
#include "router/adapt.h"
#include "router/evict.h"

#include <stdlib.h>
#include <string.h>

/* The transport's block header (shim/base/state.h, omni_block): counted
 * in the bytes a rank holds. */
#define PL_BLOCK_HEADER 24
/* The smallest block class a shipped buffer is cut to (router/flow.h's
 * FL_MIN_SHIPPED). */
#define PL_MIN_CLASS 64

uint64_t pl_block_bytes(uint64_t len, uint64_t block)
{
    uint64_t cls = PL_MIN_CLASS;
    while (cls < len)
        cls <<= 1;
    return (len <= block && cls >= block ? block : cls) + PL_BLOCK_HEADER;
}

typedef struct {
    const pl_traffic *t;
    const pl_sim_params *p;
    pl_sim_result *r;
    uint64_t *len, *stamp;
    int *next, *prev;         /* filling buffers, newest first (evict.h) */
    int *lru_next, *lru_prev; /* the same, latest append first */
    int head, lru_head, lru_tail, filling;
    uint64_t epoch;
    double held;              /* bytes arrived since the latest poll */
} sim;

static void list_unlink(int *next, int *prev, int *head, int *tail, int i)
{
    if (prev[i] >= 0)
        next[prev[i]] = next[i];
    else
        *head = next[i];
    if (next[i] >= 0)
        prev[next[i]] = prev[i];
    else if (tail)
        *tail = prev[i];
    next[i] = prev[i] = -1;
}

static void list_push(int *next, int *prev, int *head, int *tail, int i)
{
    next[i] = *head;
    prev[i] = -1;
    if (*head >= 0)
        prev[*head] = i;
    else if (tail)
        *tail = i;
    *head = i;
}

/* A buffer leaves: one wire message.  By symmetry a rank receives what it
 * sends, so the block it ships stands for one it holds until its program
 * polls (a record whose items wait for their receive is copied into a
 * block, shim/transport/transport.c). */
static void ship(sim *s, int i, double *why)
{
    pl_sim_result *r = s->r;
    r->blocks++;
    r->blocks_dim[s->t->dim[i]]++;
    r->blocks_off_node += s->t->off_node[i];
    (*why)++;
    if (s->t->final[i] > 0)
        s->held += (double)pl_block_bytes(s->len[i], s->p->block);
    s->len[i] = 0;
    list_unlink(s->next, s->prev, &s->head, NULL, i);
    list_unlink(s->lru_next, s->lru_prev, &s->lru_head, &s->lru_tail, i);
    s->filling--;
}

static void track_peak(sim *s)
{
    double unit = (double)(s->p->block + PL_BLOCK_HEADER);
    double bytes = (s->filling + s->p->rx_blocks) * unit + s->held;
    if (bytes > s->r->peak_bytes)
        s->r->peak_bytes = bytes;
    if (s->filling > s->r->peak_filling)
        s->r->peak_filling = s->filling;
}

static void append(sim *s, int i)
{
    const pl_sim_params *p = s->p;
    if (s->len[i] == 0 && ev_must_make_room(s->filling, p->cap)) {
        int v = ev_victim(s->next, sizeof(int), s->head, i, -1);
        if (v >= 0)
            ship(s, v, &s->r->cap);
    }
    if (s->len[i] > 0 && s->len[i] + p->item > p->block)
        ship(s, i, &s->r->full);
    if (s->len[i] == 0) {
        list_push(s->next, s->prev, &s->head, NULL, i);
        s->filling++;
    } else {
        list_unlink(s->lru_next, s->lru_prev, &s->lru_head, &s->lru_tail, i);
    }
    list_push(s->lru_next, s->lru_prev, &s->lru_head, &s->lru_tail, i);
    s->len[i] += p->item;
    s->stamp[i] = s->epoch;
    s->r->appended++;
    s->r->items_dim[s->t->dim[i]]++;
    track_peak(s);
}

/* A progress round of a rank that sent since the previous one: the idle
 * verdict, oldest append first (router/adapt.h). */
static void round_end(sim *s, int appended)
{
    ad_policy pol = {.idle_rounds = s->p->idle_rounds, .flush_ns = 0};
    while (s->lru_tail >= 0 &&
           ad_at_round(&pol, s->epoch, 1, s->stamp[s->lru_tail], 0) ==
               AD_SHIP_IDLE)
        ship(s, s->lru_tail, &s->r->idle);
    track_peak(s);
    s->held = 0;
    if (appended)
        s->epoch++;
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static double rng_unit(uint64_t *x)
{
    return (double)(rng_next(x) >> 11) / 9007199254740992.0;
}

/* Peer index drawn from the cumulative weights cdf[0..n-1]. */
static int draw(const double *cdf, int n, uint64_t *x)
{
    double u = rng_unit(x) * cdf[n - 1];
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int pl_sim_rank(const pl_traffic *t, const pl_sim_params *p,
                pl_sim_result *r)
{
    memset(r, 0, sizeof *r);
    int n = t->npeers;
    if (n == 0)
        return 0;
    sim s = {.t = t, .p = p, .r = r, .head = -1, .lru_head = -1,
             .lru_tail = -1};
    size_t nn = (size_t)n;
    s.len = calloc(nn, sizeof *s.len);
    s.stamp = calloc(nn, sizeof *s.stamp);
    s.next = malloc(nn * sizeof *s.next);
    s.prev = malloc(nn * sizeof *s.prev);
    s.lru_next = malloc(nn * sizeof *s.lru_next);
    s.lru_prev = malloc(nn * sizeof *s.lru_prev);
    double *own_cdf = malloc(nn * sizeof *own_cdf);
    double *relay_cdf = malloc(nn * sizeof *relay_cdf);
    int rc = -1;
    if (!s.len || !s.stamp || !s.next || !s.prev || !s.lru_next ||
        !s.lru_prev || !own_cdf || !relay_cdf)
        goto out;
    double own = 0, relay = 0;
    for (int i = 0; i < n; i++) {
        s.next[i] = s.prev[i] = s.lru_next[i] = s.lru_prev[i] = -1;
        own += t->own[i];
        relay += t->relay[i];
        own_cdf[i] = own;
        relay_cdf[i] = relay;
    }
    /* Per send of a sending rank this rank appends `own` of its own (its
     * share of sends) and `relay` for others. */
    uint64_t x = p->seed ? p->seed : 0x2545f4914f6cdd1dULL;
    long k = p->k > 0 ? p->k : p->n;
    double relay_carry = 0;
    for (long done = 0; done < p->n; done += k) {
        long batch = p->n - done < k ? p->n - done : k;
        int appended = 0;
        for (long j = 0; own > 0 && j < batch; j++) {
            append(&s, draw(own_cdf, n, &x));
            r->own++;
            appended = 1;
        }
        relay_carry += relay * (double)batch;
        for (; relay > 0 && relay_carry >= 1; relay_carry--) {
            append(&s, draw(relay_cdf, n, &x));
            appended = 1;
        }
        if (p->k > 0)
            round_end(&s, appended);
    }
    while (s.head >= 0)
        ship(&s, s.head, &r->end);
    track_peak(&s);
    rc = 0;
out:
    free(s.len);
    free(s.stamp);
    free(s.next);
    free(s.prev);
    free(s.lru_next);
    free(s.lru_prev);
    free(own_cdf);
    free(relay_cdf);
    return rc;
}
