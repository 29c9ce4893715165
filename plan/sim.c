/* sim.c: one rank's buffers, event by event (sim.h). */
#include "plan/sim.h"
#include "router/adapt.h"
#include "router/evict.h"
#include "router/flow.h"

#include <math.h>
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
    uint64_t *room;           /* each buffer's room (evict.h), 0 if empty */
    uint64_t fill_bytes;      /* their sum, at most cap_bytes */
    uint64_t cap_bytes, start_room;
    int *next, *prev;         /* filling buffers, newest first (evict.h) */
    int *lru_next, *lru_prev; /* the same, latest append first */
    ev_list fill, lru;        /* over next/prev and lru_next/lru_prev */
    uint64_t epoch;
    ad_rate rate;
    double held;              /* bytes arrived since the latest poll */
    double arriving[RT_MAX_DIMS]; /* items that reach the rank over each
                                     dimension by its next poll */
    double mirror[RT_MAX_DIMS];   /* items that reach it over d per item it
                                     ships along d; 0: it ships nothing
                                     along d, and what reaches it over d
                                     comes at the rate in_dim[d] */
    double **dim_cdf;         /* per dimension, relay weights of its peers */
    int **dim_peer;
    int dim_n[RT_MAX_DIMS];
    uint64_t rng;
} sim;

#define FILL_LINKS(s) (s)->next, (s)->prev, sizeof(int)
#define LRU_LINKS(s) (s)->lru_next, (s)->lru_prev, sizeof(int)

/* A buffer leaves: one wire message.  Blocks reach a rank over d as it
 * ships them along d: under uniform traffic every rank is alike, so the
 * block it ships along d stands for one that reaches it over d by its next
 * poll (arrivals()).  Where the pattern makes what comes in over d differ
 * from what goes out along d (a one-way stream: a relay ships along one
 * dimension what it received over another), the block stands for
 * mirror[d] times its items. */
static void ship(sim *s, int i, double *why)
{
    pl_sim_result *r = s->r;
    r->blocks++;
    r->blocks_dim[s->t->dim[i]]++;
    r->blocks_off_node += s->t->off_node[i];
    (*why)++;
    s->arriving[s->t->dim[i]] +=
        s->mirror[s->t->dim[i]] * (double)(s->len[i] / s->p->item);
    s->len[i] = 0;
    s->fill_bytes -= s->room[i];
    s->room[i] = 0;
    ev_unlink(&s->fill, FILL_LINKS(s), i);
    ev_unlink(&s->lru, LRU_LINKS(s), i);
}

static void track_peak(sim *s)
{
    double fill = (double)s->fill_bytes + s->fill.count * (double)PL_BLOCK_HEADER;
    double bytes = fill + s->held +
                   s->p->rx_blocks * (double)(s->p->block + PL_BLOCK_HEADER);
    if (bytes > s->r->peak_bytes)
        s->r->peak_bytes = bytes;
    if (fill > s->r->peak_fill_bytes)
        s->r->peak_fill_bytes = fill;
    if (s->fill.count > s->r->peak_filling)
        s->r->peak_filling = s->fill.count;
}

/* The order of the transport's transport_reserve_slow: a buffer the item
 * does not fit ships, then the buffer opens or grows to a room that holds
 * the item, shipping the oldest others while the cap has not that much. */
static void append(sim *s, int i)
{
    const pl_sim_params *p = s->p;
    if (s->len[i] > 0 && s->len[i] + p->item > p->block)
        ship(s, i, &s->r->full);
    uint64_t need = s->len[i] + p->item;
    if (s->len[i] == 0 || need > s->room[i]) {
        uint64_t had = s->len[i] ? s->room[i] : 0;
        uint64_t room = ev_grown_room(had ? had : s->start_room, need, p->block);
        while (ev_must_make_room(s->fill_bytes, room - had, s->cap_bytes)) {
            int v = ev_victim(&s->fill, s->prev, sizeof(int), i, -1);
            if (v < 0)
                break;
            ship(s, v, &s->r->cap);
        }
        s->fill_bytes += room - had;
        s->room[i] = room;
    }
    if (s->len[i] == 0) {
        ev_push(&s->fill, FILL_LINKS(s), i);
    } else {
        ev_unlink(&s->lru, LRU_LINKS(s), i);
    }
    ev_push(&s->lru, LRU_LINKS(s), i);
    s->len[i] += p->item;
    s->stamp[i] = s->epoch;
    s->r->appended++;
    s->r->items_dim[s->t->dim[i]]++;
    track_peak(s);
}

static uint64_t rng_next(uint64_t *x);
static double rng_unit(uint64_t *x);
static int draw(const double *cdf, int n, uint64_t *x);

/* The blocks that reached the rank since its previous poll: of the items
 * that came over e, the share relay_dim[e][d] / in_dim[e] goes on along d
 * (to a peer of d by its relay weight); the rest stay, held until the
 * program receives them (a record whose items wait for their receive is
 * copied into a block, shim/transport/transport.c).  Returns whether any
 * was forwarded. */
static int arrivals(sim *s)
{
    const pl_traffic *t = s->t;
    int forwarded = 0;
    for (int e = 0; e < RT_MAX_DIMS; e++) {
        double items = s->arriving[e];
        s->arriving[e] = 0;
        if (items <= 0 || t->in_dim[e] <= 0)
            continue;
        double stay = items;
        for (int d = 0; d < RT_MAX_DIMS; d++) {
            double share = t->relay_dim[e][d] / t->in_dim[e];
            if (share <= 0 || s->dim_n[d] == 0)
                continue;
            double want = items * share;
            long n = (long)want;
            n += rng_unit(&s->rng) < want - (double)n;
            for (long j = 0; j < n; j++) {
                int k = draw(s->dim_cdf[d], s->dim_n[d], &s->rng);
                append(s, s->dim_peer[d][k]);
            }
            stay -= (double)n;
            forwarded |= n > 0;
        }
        if (stay > 0)
            s->held += (double)pl_block_bytes(
                (uint64_t)(stay * (double)s->p->item), s->p->block);
    }
    track_peak(s);
    return forwarded;
}

/* A progress round of a rank that sent since the previous one: the idle
 * verdict, oldest append first, and the rate the next rounds' verdicts
 * read, fed with the buffers this round wrote, latest append first
 * (router/adapt.h, as the transport's round does). */
static void round_end(sim *s, int appended)
{
    ad_policy pol = {.idle_rounds = s->p->idle_rounds, .flush_ns = 0};
    uint64_t idle_after = ad_idle_after(&pol, &s->rate, s->fill.count);
    int written = 0;
    for (int i = s->lru.head; i >= 0 && s->stamp[i] == s->epoch;
         i = s->lru_next[i])
        written++;
    while (s->lru.tail >= 0 &&
           ad_at_round(idle_after, s->epoch, 1, s->stamp[s->lru.tail], 0) ==
               AD_SHIP_IDLE)
        ship(s, s->lru.tail, &s->r->idle);
    track_peak(s);
    s->held = 0;
    if (appended) {
        ad_rate_round(&s->rate, written);
        s->epoch++;
    }
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

/* A blocking call ships every buffer; a relay keeps forwarding what
 * still arrives, and ships it as it waits. */
static void blocking_call(sim *s, double relay)
{
    for (int pass = 0; pass < 64 && (s->fill.head >= 0 || relay > 0); pass++) {
        while (s->fill.head >= 0)
            ship(s, s->fill.head, &s->r->end);
        if (!arrivals(s))
            break;
    }
    while (s->fill.head >= 0)
        ship(s, s->fill.head, &s->r->end);
    s->held = 0; /* the call returns once the program has received */
}

/* Most destinations a rank's own sends are dealt to in order. */
#define SIM_ORDERED_MAX 64

/* The rank's own sends in turn, each destination in proportion to its
 * weight and spread evenly (smooth weighted round robin), as a program
 * that sends to a fixed set of neighbours does. */
typedef struct {
    int n;
    int peer[SIM_ORDERED_MAX];
    double weight[SIM_ORDERED_MAX], credit[SIM_ORDERED_MAX], total;
} sim_turns;

static int turns_init(sim_turns *u, const pl_traffic *t)
{
    memset(u, 0, sizeof *u);
    for (int i = 0; i < t->npeers; i++) {
        if (t->own[i] <= 0)
            continue;
        if (u->n == SIM_ORDERED_MAX)
            return -1;
        u->peer[u->n] = i;
        u->weight[u->n++] = t->own[i];
        u->total += t->own[i];
    }
    return 0;
}

static int turns_next(sim_turns *u)
{
    int best = 0;
    for (int j = 0; j < u->n; j++) {
        u->credit[j] += u->weight[j];
        if (u->credit[j] > u->credit[best])
            best = j;
    }
    u->credit[best] -= u->total;
    return u->peer[best];
}

/* A pair's stall: at the rank's own send `at`, towards a destination
 * `hops` away, its window grown to `window`. */
typedef struct {
    double at;
    int hops;
    uint64_t window;
} sim_stall;

static int stall_order(const void *a, const void *b)
{
    double x = ((const sim_stall *)a)->at, y = ((const sim_stall *)b)->at;
    return (x > y) - (x < y);
}

static double rng_unit(uint64_t *x);

/* The stalls of every pair of the rank, in send order (sim.h); NULL with
 * *n = 0 when there are none, or when out of memory (*n = -1). */
static sim_stall *stalls_of(const pl_traffic *t, const pl_sim_params *p,
                            long *n)
{
    sim_stall *ev = NULL;
    uint64_t rng = p->seed ? p->seed : 0x2545f4914f6cdd1dULL;
    long cap = 0;
    *n = 0;
    for (int g = 0; p->window && g < t->ngroups; g++) {
        double share = t->grp_share[g];
        double bytes = (double)p->n * share * (double)p->item;
        long pairs = (long)(t->grp_count[g] + 0.5);
        uint64_t w = p->window, allowed = w;
        while (share > 0 && bytes > (double)allowed) {
            /* The item past `allowed`, at about this many sends of the
             * rank; a pair reaches it spread by the randomness of its count
             * (a relative 1/sqrt(items), uniform of that deviation), so that
             * pairs alike do not stall at one send. */
            double items = floor((double)allowed / (double)p->item) + 1;
            double at = items / share, spread = 1 / sqrt(items);
            w += fl_growth(w, UINT64_MAX, UINT64_MAX);
            for (long j = 0; j < pairs; j++) {
                if (*n == cap) {
                    cap = cap ? 2 * cap : 64;
                    sim_stall *more = realloc(ev, (size_t)cap * sizeof *ev);
                    if (!more) {
                        free(ev);
                        *n = -1;
                        return NULL;
                    }
                    ev = more;
                }
                double u = p->ordered ? 0
                                      : (2 * rng_unit(&rng) - 1) * sqrt(3.0);
                ev[(*n)++] = (sim_stall){.at = at * (1 + u * spread),
                                         .hops = t->grp_hops[g],
                                         .window = w};
            }
            /* Credit steps keep up from here when the window holds what
             * the source can have unanswered: a buffer filling, a block
             * travelling, a step not yet returned, and what it sends the
             * pair before it next polls and reads the steps.  A source
             * that never polls reads them only in its stalls, and runs
             * through each window. */
            long polls = p->k > 0 ? p->k : p->blocking;
            double lead = 2.0 * (double)p->block + (double)(w / 4) +
                          (double)polls * share * (double)p->item;
            if (polls > 0 && w >= FL_GROW_MIN && (double)w >= lead)
                break;
            allowed += w;
        }
    }
    if (*n > 1)
        qsort(ev, (size_t)*n, sizeof *ev, stall_order);
    return ev;
}

/* Urgent wire messages a stall costs per hop of its route: the STALL and
 * its GRANT each ship a buffer at every rank they pass, and about as many
 * again follow (4.0 per hop for gups and streams on direct, 2x2 and
 * 2x2x2 at 4 to 8 ranks, tests/plan/check-model). */
#define URGENT_PER_HOP 4

/* A stall after the rank's latest append to peer i (sim.h). */
static void stall(sim *s, int i, const sim_stall *e)
{
    pl_sim_result *r = s->r;
    r->stalls++;
    r->grants++;
    if ((double)e->window > r->window_max)
        r->window_max = (double)e->window;
    int d = s->t->dim[i];
    double more = URGENT_PER_HOP * e->hops;
    if (s->len[i] > 0) {
        ship(s, i, &r->urgent);
        more--;
    }
    r->blocks += more;
    r->blocks_dim[d] += more;
    r->urgent += more;
    while (s->fill.head >= 0)
        ship(s, s->fill.head, &r->end);
}

/* Rounds of one send to every destination (sim.h): a deck with each peer
 * as often as destinations are routed through it, dealt in a fresh random
 * order each round. */
typedef struct {
    int *card;
    long n, next;
} sim_deck;

static int deck_init(sim_deck *k, const pl_traffic *t)
{
    double dests = 0;
    for (int g = 0; g < t->ngroups; g++)
        dests += t->grp_count[g];
    long n = 0;
    for (int i = 0; i < t->npeers; i++)
        n += (long)(t->own[i] * dests + 0.5);
    k->card = n > 0 ? malloc((size_t)n * sizeof *k->card) : NULL;
    if (!k->card)
        return -1;
    k->n = 0;
    for (int i = 0; i < t->npeers; i++)
        for (long c = (long)(t->own[i] * dests + 0.5); c > 0; c--)
            k->card[k->n++] = i;
    k->next = k->n;
    return 0;
}

static int deck_next(sim_deck *k, uint64_t *rng)
{
    if (k->next == k->n) {
        for (long i = k->n - 1; i > 0; i--) {
            long j = (long)(rng_next(rng) % (uint64_t)(i + 1));
            int c = k->card[i];
            k->card[i] = k->card[j];
            k->card[j] = c;
        }
        k->next = 0;
    }
    return k->card[k->next++];
}

int pl_sim_rank(const pl_traffic *t, const pl_sim_params *p,
                pl_sim_result *r)
{
    memset(r, 0, sizeof *r);
    int n = t->npeers;
    if (n == 0)
        return 0;
    sim s = {.t = t, .p = p, .r = r, .rate = ad_rate_start()};
    ev_list_init(&s.fill);
    ev_list_init(&s.lru);
    size_t nn = (size_t)n;
    s.len = calloc(nn, sizeof *s.len);
    s.stamp = calloc(nn, sizeof *s.stamp);
    s.room = calloc(nn, sizeof *s.room);
    s.cap_bytes = (uint64_t)p->cap * p->block;
    s.start_room = ev_start_room(p->block, n, p->cap);
    s.next = malloc(nn * sizeof *s.next);
    s.prev = malloc(nn * sizeof *s.prev);
    s.lru_next = malloc(nn * sizeof *s.lru_next);
    s.lru_prev = malloc(nn * sizeof *s.lru_prev);
    double *own_cdf = malloc(nn * sizeof *own_cdf);
    long nstalls = 0, next_stall = 0;
    sim_stall *stalls = NULL;
    sim_deck deck = {0};
    int rc = -1;
    if (!s.len || !s.stamp || !s.room || !s.next || !s.prev || !s.lru_next ||
        !s.lru_prev || !own_cdf)
        goto out;
    double own = 0, relay = 0;
    for (int i = 0; i < n; i++) {
        s.next[i] = s.prev[i] = s.lru_next[i] = s.lru_prev[i] = -1;
        own += t->own[i];
        relay += t->relay[i];
        own_cdf[i] = own;
    }
    /* What comes in over d against what goes out along it (ship()). */
    double out_dim[RT_MAX_DIMS] = {0};
    for (int i = 0; i < n; i++)
        out_dim[t->dim[i]] += t->own[i] + t->relay[i];
    for (int d = 0; d < RT_MAX_DIMS; d++)
        s.mirror[d] = out_dim[d] > 0 ? t->in_dim[d] / out_dim[d] : 0;
    /* Per dimension, its peers and their relay weights (alike when the
     * rank relays nothing along it). */
    s.dim_cdf = calloc(RT_MAX_DIMS, sizeof *s.dim_cdf);
    s.dim_peer = calloc(RT_MAX_DIMS, sizeof *s.dim_peer);
    if (!s.dim_cdf || !s.dim_peer)
        goto out;
    for (int d = 0; d < RT_MAX_DIMS; d++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            m += t->dim[i] == d;
        s.dim_n[d] = m;
        if (!m)
            continue;
        s.dim_cdf[d] = malloc((size_t)m * sizeof **s.dim_cdf);
        s.dim_peer[d] = malloc((size_t)m * sizeof **s.dim_peer);
        if (!s.dim_cdf[d] || !s.dim_peer[d])
            goto out;
        double sum = 0, any = 0;
        for (int i = 0; i < n; i++)
            any += t->dim[i] == d ? t->relay[i] : 0;
        for (int i = 0, j = 0; i < n; i++) {
            if (t->dim[i] != d)
                continue;
            sum += any > 0 ? t->relay[i] : 1;
            s.dim_cdf[d][j] = sum;
            s.dim_peer[d][j++] = i;
        }
    }
    /* The rank's own sends in rounds of k between two polls; at each poll
     * what arrived is taken in (and forwarded) before the verdicts.  A
     * send to the rank itself (a stencil on a grid one wide) takes its
     * share and appends nothing here. */
    stalls = stalls_of(t, p, &nstalls);
    if (nstalls < 0)
        goto out;
    r->window_max = (double)p->window;
    s.rng = p->seed ? p->seed : 0x2545f4914f6cdd1dULL;
    sim_turns turns;
    int ordered = p->ordered && turns_init(&turns, t) == 0 && turns.n > 0;
    int dealt = !ordered && p->rounds && deck_init(&deck, t) == 0;
    double self = t->sends > own ? 1 - own / t->sends : 0;
    long k = p->k > 0 ? p->k : p->n;
    long b = p->blocking > 0 ? p->blocking : p->n;
    for (long done = 0; done < p->n;) {
        long batch = p->n - done < k ? p->n - done : k;
        if (batch > b - done % b)
            batch = b - done % b;
        int appended = 0;
        for (long j = 0; own > 0 && j < batch; j++) {
            if (self > 0 && rng_unit(&s.rng) < self)
                continue;
            int to = ordered ? turns_next(&turns)
                     : dealt ? deck_next(&deck, &s.rng)
                             : draw(own_cdf, n, &s.rng);
            append(&s, to);
            r->own++;
            appended = 1;
            while (next_stall < nstalls && stalls[next_stall].at <= r->own)
                stall(&s, to, &stalls[next_stall++]);
        }
        done += batch;
        for (int d = 0; d < RT_MAX_DIMS; d++)
            if (out_dim[d] <= 0)
                s.arriving[d] += t->in_dim[d] * (double)batch;
        int blocks = done % b == 0 || done == p->n;
        /* A blocking call ships before its first round (transport.h);
         * the run's last call follows the poll of its last round. */
        if (p->k > 0 && !(blocks && p->blocking > 0)) {
            appended |= arrivals(&s);
            round_end(&s, appended);
        }
        if (blocks)
            blocking_call(&s, relay);
    }
    track_peak(&s);
    rc = 0;
out:
    for (int d = 0; s.dim_cdf && d < RT_MAX_DIMS; d++)
        free(s.dim_cdf[d]);
    for (int d = 0; s.dim_peer && d < RT_MAX_DIMS; d++)
        free(s.dim_peer[d]);
    free(s.dim_cdf);
    free(s.dim_peer);
    free(s.len);
    free(s.stamp);
    free(s.room);
    free(s.next);
    free(s.prev);
    free(s.lru_next);
    free(s.lru_prev);
    free(own_cdf);
    free(stalls);
    free(deck.card);
    return rc;
}
