/* nbr_sched.c: the pattern (pairing rounds) and the per-process plans; see
 * nbr_sched.h for the contract. */
#include "router/nbr_sched.h"

#include <stdlib.h>
#include <string.h>

/* How a process sends to one of its distinct destinations. */
enum { NS_DIRECT, NS_ON, NS_OFF };

/* Working state of the pattern: every process's distinct destinations
 * (sorted, without -1 and without itself), whether each is still active,
 * and how it is finally reached. */
typedef struct {
    const ns_graph *g;
    int n;
    int *dd_off, *dd;       /* distinct destinations */
    char *act;              /* per dd entry: still active */
    char *kind;             /* per dd entry: NS_DIRECT, NS_ON or NS_OFF */
    int *mate;              /* per dd entry: the friend (ON, OFF) */
    int *rin_off, *rin;     /* per process n: dd entries (global index) that
                               name n, i.e. who sends to n */
    int *pairs;             /* per process: pairs it took part in */
    int scheme;             /* NS_PLAIN, NS_PAIRS or NS_DIMS */
    int ndims, dims[NS_MAX_DIMS], stride[NS_MAX_DIMS]; /* NS_DIMS grid */
} ns_work;

#define NS_MAX_HOPS (NS_MAX_DIMS > 2 ? NS_MAX_DIMS : 2)
#define NS_MAX_PHASE NS_MAX_HOPS

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The dd entry of n among p's distinct destinations, or -1. */
static int dd_find(const ns_work *w, int p, int n)
{
    int lo = w->dd_off[p], hi = w->dd_off[p + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->dd[mid] < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->dd_off[p + 1] && w->dd[lo] == n ? lo : -1;
}

static void work_free(ns_work *w)
{
    free(w->dd_off);
    free(w->dd);
    free(w->act);
    free(w->kind);
    free(w->mate);
    free(w->rin_off);
    free(w->rin);
    free(w->pairs);
}

static int work_init(ns_work *w, const ns_graph *g)
{
    int n = g->n;
    memset(w, 0, sizeof *w);
    w->g = g;
    w->n = n;
    int edges = g->out_off[n];
    w->dd_off = malloc(sizeof(int) * (size_t)(n + 1));
    w->dd = malloc(sizeof(int) * (size_t)(edges + 1));
    w->rin_off = calloc((size_t)n + 2, sizeof(int));
    w->pairs = calloc((size_t)n + 1, sizeof(int));
    if (!w->dd_off || !w->dd || !w->rin_off || !w->pairs)
        return -1;
    int at = 0;
    for (int p = 0; p < n; p++) {
        w->dd_off[p] = at;
        int start = at;
        for (int e = g->out_off[p]; e < g->out_off[p + 1]; e++)
            if (g->out[e] >= 0 && g->out[e] < n && g->out[e] != p)
                w->dd[at++] = g->out[e];
        qsort(w->dd + start, (size_t)(at - start), sizeof(int), cmp_int);
        int u = start;
        for (int i = start; i < at; i++)
            if (i == start || w->dd[i] != w->dd[u - 1])
                w->dd[u++] = w->dd[i];
        at = u;
    }
    w->dd_off[n] = at;
    w->act = malloc((size_t)at + 1);
    w->kind = calloc((size_t)at + 1, 1);
    w->mate = malloc(sizeof(int) * (size_t)(at + 1));
    w->rin = malloc(sizeof(int) * (size_t)(at + 1));
    if (!w->act || !w->kind || !w->mate || !w->rin)
        return -1;
    memset(w->act, 1, (size_t)at);
    for (int i = 0; i < at; i++) {
        w->rin_off[w->dd[i] + 2]++;
        w->mate[i] = -1;
    }
    for (int p = 0; p < n; p++)
        w->rin_off[p + 2] += w->rin_off[p + 1];
    for (int p = 0; p < n; p++)
        for (int i = w->dd_off[p]; i < w->dd_off[p + 1]; i++)
            w->rin[w->rin_off[w->dd[i] + 1]++] = i;
    return 0;
}

/* The owner of dd entry i. */
static int dd_owner(const ns_work *w, int i)
{
    int lo = 0, hi = w->n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (w->dd_off[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The friendship graph of one round: fr[fr_off[p] ..] are p's friends,
 * fw their common-destination counts.  Symmetric by construction. */
typedef struct {
    int *fr_off, *fr, *fw;
    char *alive;         /* still a candidate in this round's matching */
} ns_friends;

static void friends_free(ns_friends *f)
{
    free(f->fr_off);
    free(f->fr);
    free(f->fw);
    free(f->alive);
}

static int friends_build(const ns_work *w, int theta, int *owner,
                         ns_friends *f)
{
    int n = w->n;
    memset(f, 0, sizeof *f);
    int *cnt = calloc((size_t)n, sizeof(int));
    int *touched = malloc(sizeof(int) * (size_t)n);
    int cap = 64, used = 0;
    f->fr_off = malloc(sizeof(int) * (size_t)(n + 1));
    f->fr = malloc(sizeof(int) * (size_t)cap);
    f->fw = malloc(sizeof(int) * (size_t)cap);
    if (!cnt || !touched || !f->fr_off || !f->fr || !f->fw)
        goto fail;
    for (int p = 0; p < n; p++) {
        f->fr_off[p] = used;
        int nt = 0;
        for (int i = w->dd_off[p]; i < w->dd_off[p + 1]; i++) {
            if (!w->act[i])
                continue;
            int d = w->dd[i];
            for (int r = w->rin_off[d]; r < w->rin_off[d + 1]; r++) {
                int e = w->rin[r];
                int q = owner[e];
                if (q == p || !w->act[e])
                    continue;
                if (cnt[q]++ == 0)
                    touched[nt++] = q;
            }
        }
        qsort(touched, (size_t)nt, sizeof(int), cmp_int);
        for (int t = 0; t < nt; t++) {
            int q = touched[t];
            if (cnt[q] >= theta) {
                if (used == cap) {
                    cap *= 2;
                    int *a = realloc(f->fr, sizeof(int) * (size_t)cap);
                    if (a)
                        f->fr = a;
                    int *b = realloc(f->fw, sizeof(int) * (size_t)cap);
                    if (b)
                        f->fw = b;
                    if (!a || !b)
                        goto fail;
                }
                f->fr[used] = q;
                f->fw[used++] = cnt[q];
            }
            cnt[q] = 0;
        }
    }
    f->fr_off[n] = used;
    f->alive = malloc((size_t)used + 1);
    if (!f->alive)
        goto fail;
    memset(f->alive, 1, (size_t)used);
    free(cnt);
    free(touched);
    return 0;
fail:
    free(cnt);
    free(touched);
    friends_free(f);
    return -1;
}

/* p's best live friend: most common destinations, then lowest rank; with
 * only_choosers, only friends below p that chose p last time. */
static int best_friend(const ns_friends *f, int p, const int *choice,
                       int only_choosers)
{
    int best = -1, bw = -1;
    for (int i = f->fr_off[p]; i < f->fr_off[p + 1]; i++) {
        if (!f->alive[i])
            continue;
        int q = f->fr[i];
        if (only_choosers && !(q < p && choice[q] == p))
            continue;
        if (f->fw[i] > bw || (f->fw[i] == bw && q < best)) {
            best = q;
            bw = f->fw[i];
        }
    }
    return best;
}

static void friend_kill(ns_friends *f, int p, int q)
{
    for (int i = f->fr_off[p]; i < f->fr_off[p + 1]; i++)
        if (f->fr[i] == q)
            f->alive[i] = 0;
}

/* The matching of friends (Hoepman-style proposals) in lockstep:
 * partner[p] is p's mate or -1.  Returns the number of pairs. */
static int match_friends(int n, ns_friends *f, int *partner, int *choice,
                         int *next, char *terminal)
{
    for (int p = 0; p < n; p++) {
        partner[p] = -1;
        choice[p] = -1;
        terminal[p] = f->fr_off[p] == f->fr_off[p + 1];
    }
    int pairs = 0;
    /* Nothing proves that these proposal rounds end; a bound keeps a
     * pathological graph from looping (the unmatched are left terminal). */
    for (int it = 0; it < 2 * n + 8; it++) {
        int open = 0;
        for (int p = 0; p < n; p++) {
            next[p] = choice[p];
            if (terminal[p] || partner[p] >= 0)
                continue;
            int fo = choice[p], c;
            if (it == 0) {
                c = best_friend(f, p, choice, 0);
            } else if (fo >= 0 && !terminal[fo] && partner[fo] < 0 && p < fo) {
                c = fo;
            } else if ((c = best_friend(f, p, choice, 1)) < 0) {
                if (fo >= 0)
                    friend_kill(f, p, fo);
                c = best_friend(f, p, choice, 0);
            }
            next[p] = c;
            if (c < 0)
                terminal[p] = 1;
            else
                open = 1;
        }
        memcpy(choice, next, sizeof(int) * (size_t)n);
        if (!open)
            break;
        for (int p = 0; p < n; p++)
            if (!terminal[p] && partner[p] < 0 && choice[p] >= 0 &&
                !terminal[choice[p]] && choice[choice[p]] == p)
                partner[p] = choice[p];
        for (int p = 0; p < n; p++)
            for (int i = f->fr_off[p]; i < f->fr_off[p + 1]; i++) {
                int q = f->fr[i];
                if (terminal[q] || partner[q] >= 0)
                    f->alive[i] = 0;
            }
    }
    for (int p = 0; p < n; p++)
        pairs += partner[p] > p;
    return pairs;
}

/* Splits the common active destinations of a pair (p < q). */
static void split_common(ns_work *w, int p, int q)
{
    int np = 0;
    int a = w->dd_off[p], ae = w->dd_off[p + 1];
    int b = w->dd_off[q], be = w->dd_off[q + 1];
    int k = 0;
    for (int i = a, j = b; i < ae && j < be;) {
        if (w->dd[i] < w->dd[j]) {
            i++;
        } else if (w->dd[i] > w->dd[j]) {
            j++;
        } else {
            k += w->act[i] && w->act[j];
            i++, j++;
        }
    }
    int keep = (k + 1) / 2;
    for (int i = a, j = b; i < ae && j < be;) {
        if (w->dd[i] < w->dd[j]) {
            i++;
        } else if (w->dd[i] > w->dd[j]) {
            j++;
        } else {
            if (w->act[i] && w->act[j]) {
                int low_keeps = np++ < keep;
                w->kind[i] = low_keeps ? NS_ON : NS_OFF;
                w->kind[j] = low_keeps ? NS_OFF : NS_ON;
                w->mate[i] = q;
                w->mate[j] = p;
                w->act[i] = w->act[j] = 0;
            }
            i++, j++;
        }
    }
    w->pairs[p]++;
    w->pairs[q]++;
}

static int pattern_build(ns_work *w, int theta)
{
    int n = w->n;
    int *owner = malloc(sizeof(int) * (size_t)(w->dd_off[n] + 1));
    int *partner = malloc(sizeof(int) * (size_t)n);
    int *choice = malloc(sizeof(int) * (size_t)n);
    int *next = malloc(sizeof(int) * (size_t)n);
    char *terminal = malloc((size_t)n);
    int rc = -1;
    if (!owner || !partner || !choice || !next || !terminal)
        goto out;
    for (int i = 0; i < w->dd_off[n]; i++)
        owner[i] = dd_owner(w, i);
    /* Every round pairs at least the heaviest friendship (both ends choose
     * it first: ties go to the lowest rank) and retires >= theta active
     * destinations of each end, so the rounds end. */
    for (;;) {
        ns_friends f;
        if (friends_build(w, theta, owner, &f) != 0)
            goto out;
        int pairs = f.fr_off[n] ? match_friends(n, &f, partner, choice, next,
                                                terminal)
                                : 0;
        friends_free(&f);
        if (pairs == 0)
            break;
        for (int p = 0; p < n; p++)
            if (partner[p] > p)
                split_common(w, p, partner[p]);
    }
    rc = 0;
out:
    free(owner);
    free(partner);
    free(choice);
    free(next);
    free(terminal);
    return rc;
}

/* --- plans ----------------------------------------------------------- */

/* The hops of a piece from o to d >= 0: (sender, receiver, phase)
 * triples, in order; returns how many. */
static int piece_hops(const ns_work *w, int o, int d, int hop[NS_MAX_HOPS][3])
{
    if (w->scheme == NS_DIMS && d != o) {
        /* Along dimension i, the rank takes d's coordinate i. */
        int nh = 0, cur = o;
        for (int i = 0; i < w->ndims; i++) {
            int ci = cur / w->stride[i] % w->dims[i];
            int di = d / w->stride[i] % w->dims[i];
            if (ci == di)
                continue;
            int next = cur + (di - ci) * w->stride[i];
            hop[nh][0] = cur, hop[nh][1] = next, hop[nh][2] = i;
            nh++;
            cur = next;
        }
        return nh;
    }
    int i = d == o || w->scheme != NS_PAIRS ? -1 : dd_find(w, o, d);
    int kind = i < 0 ? NS_DIRECT : w->kind[i];
    if (kind == NS_DIRECT) {
        hop[0][0] = o, hop[0][1] = d, hop[0][2] = 0;
        return 1;
    }
    if (kind == NS_ON) {
        hop[0][0] = o, hop[0][1] = d, hop[0][2] = 1;
        return 1;
    }
    int f = w->mate[i];
    hop[0][0] = o, hop[0][1] = f, hop[0][2] = 0;
    hop[1][0] = f, hop[1][1] = d, hop[1][2] = 1;
    return 2;
}

/* --- choosing the scheme ---------------------------------------------- */

/* A set of message keys, reused from one grid to the next. */
typedef struct {
    unsigned long long *cell;
    size_t cap;
} ns_keys;

/* Messages per collective over all processes under w's grid: distinct
 * (sender, receiver, phase) over every piece's hops.  Counting stops at
 * `limit` (returned then): a grid that cannot win costs little. */
static long count_msgs(const ns_work *w, long limit, ns_keys *k)
{
    const ns_graph *g = w->g;
    long edges = g->out_off[w->n];
    long want = limit < edges * w->ndims ? limit : edges * w->ndims;
    size_t cap = 64;
    while (cap < 2 * (size_t)want + 2)
        cap *= 2;
    if (cap > k->cap) {
        free(k->cell);
        k->cell = malloc(cap * sizeof *k->cell);
        k->cap = k->cell ? cap : 0;
        if (!k->cell)
            return -1;
    }
    memset(k->cell, 0, cap * sizeof *k->cell);
    long found = 0;
    for (int o = 0; o < w->n && found < limit; o++)
        for (int e = g->out_off[o]; e < g->out_off[o + 1] && found < limit;
             e++) {
            int d = g->out[e];
            if (d < 0 || d >= w->n)
                continue;
            int hop[NS_MAX_HOPS][3];
            int nh = piece_hops(w, o, d, hop);
            for (int h = 0; h < nh && found < limit; h++) {
                /* +1: zero marks an empty cell */
                unsigned long long key =
                    ((unsigned long long)hop[h][0] * (unsigned)w->n +
                     (unsigned)hop[h][1]) *
                        NS_MAX_PHASE +
                    (unsigned)hop[h][2] + 1;
                size_t at = (size_t)(key * 0x9e3779b97f4a7c15ull) & (cap - 1);
                while (k->cell[at] && k->cell[at] != key)
                    at = (at + 1) & (cap - 1);
                if (!k->cell[at]) {
                    k->cell[at] = key;
                    found++;
                }
            }
        }
    return found;
}

/* The same count for pairing or plain, in O(n) memory: every hop not sent
 * by the piece's origin is a relay f -> d in phase 1, and f sends its own
 * piece to d in that same message (d is common to both, and f keeps it),
 * so counting each origin's own hops counts every message once. */
static long count_msgs_pairs(const ns_work *w)
{
    const ns_graph *g = w->g;
    int *seen = malloc(sizeof(int) * 2 * (size_t)(w->n + 1));
    if (!seen)
        return -1;
    for (int i = 0; i < 2 * w->n; i++)
        seen[i] = -1;
    long found = 0;
    for (int o = 0; o < w->n; o++)
        for (int e = g->out_off[o]; e < g->out_off[o + 1]; e++) {
            int d = g->out[e];
            if (d < 0 || d >= w->n)
                continue;
            int hop[NS_MAX_HOPS][3];
            piece_hops(w, o, d, hop);
            int *cell = &seen[2 * hop[0][1] + hop[0][2]];
            if (*cell != o) {
                *cell = o;
                found++;
            }
        }
    free(seen);
    return found;
}

/* The fewest messages pairing could send: half of each process's distinct
 * destinations.  (A process sends one message per direct destination
 * (`rest`), per destination it keeps, and per friend, the last shared with
 * a direct one when the friend is one: with r pairs splitting k_i common
 * destinations, at least max(rest, r) + sum floor(k_i / 2) >= rest / 2 +
 * sum k_i / 2.) */
static long pairs_lower_bound(const ns_work *w)
{
    long lb = 0;
    for (int p = 0; p < w->n; p++)
        lb += (w->dd_off[p + 1] - w->dd_off[p] + 1) / 2;
    return lb;
}

static void grid_set(ns_work *w, int nd, const int *dims)
{
    w->ndims = nd;
    int s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        w->dims[i] = dims[i];
        w->stride[i] = s;
        s *= dims[i];
    }
}

typedef struct {
    int nd, dims[NS_MAX_DIMS], largest;
} ns_grid;

/* Every ordered factorisation of rest into `left` more factors >= 2 after
 * dims[0 .. at), appended to *list. */
static int grids_list(int *dims, int at, int left, int rest, ns_grid **list,
                      int *len, int *cap)
{
    if (left == 1) {
        if (rest < 2)
            return 0;
        dims[at] = rest;
        if (*len == *cap) {
            *cap = *cap ? 2 * *cap : 32;
            ns_grid *l = realloc(*list, sizeof *l * (size_t)*cap);
            if (!l)
                return -1;
            *list = l;
        }
        ns_grid *gr = &(*list)[(*len)++];
        gr->nd = at + 1;
        gr->largest = 0;
        for (int i = 0; i <= at; i++) {
            gr->dims[i] = dims[i];
            if (dims[i] > gr->largest)
                gr->largest = dims[i];
        }
        return 0;
    }
    for (int f = 2; f <= rest / 2; f++) {
        if (rest % f)
            continue;
        dims[at] = f;
        if (grids_list(dims, at + 1, left - 1, rest / f, list, len, cap) != 0)
            return -1;
    }
    return 0;
}

/* Balanced grids first (a stencil's own grid usually is one, and once
 * found it makes every other count stop early), then fewer dimensions. */
static int grid_cmp(const void *a, const void *b)
{
    const ns_grid *x = a, *y = b;
    if (x->largest != y->largest)
        return x->largest < y->largest ? -1 : 1;
    if (x->nd != y->nd)
        return x->nd < y->nd ? -1 : 1;
    for (int i = 0; i < x->nd; i++)
        if (x->dims[i] != y->dims[i])
            return x->dims[i] < y->dims[i] ? -1 : 1;
    return 0;
}

/* The grid with the fewest messages, fewer dimensions on a tie, if one
 * sends fewer than `limit`: *best_nd (0 if none), best_dims, *best. */
static int grids_search(ns_work *w, long limit, int *best_nd, int *best_dims,
                        long *best)
{
    ns_grid *list = NULL;
    int len = 0, cap = 0, dims[NS_MAX_DIMS];
    *best_nd = 0;
    *best = limit;
    for (int nd = 2; nd <= NS_MAX_DIMS; nd++)
        if (grids_list(dims, 0, nd, w->n, &list, &len, &cap) != 0) {
            free(list);
            return -1;
        }
    if (len)
        qsort(list, (size_t)len, sizeof *list, grid_cmp);
    ns_keys keys = {NULL, 0};
    int rc = 0;
    w->scheme = NS_DIMS;
    for (int i = 0; i < len; i++) {
        grid_set(w, list[i].nd, list[i].dims);
        /* a grid of fewer dimensions than the best also wins a tie */
        int fewer = *best_nd && list[i].nd < *best_nd;
        long m = count_msgs(w, *best + fewer, &keys);
        if (m < 0) {
            rc = -1;
            break;
        }
        if (m < *best || (fewer && m == *best)) {
            *best = m;
            *best_nd = list[i].nd;
            memcpy(best_dims, list[i].dims, sizeof(int) * (size_t)list[i].nd);
        }
    }
    free(keys.cell);
    free(list);
    return rc;
}

/* Picks the scheme and sets w->scheme and *total: the grid with the fewest
 * messages when it sends no more than pairing could at best (the pairing,
 * quadratic in places, is then not even computed), else pairing when it
 * sends no more than the grid, else the grid; plain when nothing beats
 * one message per destination. */
static int scheme_choose(ns_work *w, int theta, int flags, long *total)
{
    w->scheme = NS_PLAIN;
    long plain = count_msgs_pairs(w);
    if (plain < 0)
        return -1;
    long grid = plain;
    int grid_nd = 0, grid_dims[NS_MAX_DIMS];
    if ((flags & NS_TRY_DIMS) &&
        grids_search(w, plain, &grid_nd, grid_dims, &grid) != 0)
        return -1;
    *total = plain;
    w->scheme = NS_PLAIN;
    if (grid_nd && grid <= pairs_lower_bound(w)) {
        w->scheme = NS_DIMS;
        grid_set(w, grid_nd, grid_dims);
        *total = grid;
        return 0;
    }
    if (pattern_build(w, theta) != 0)
        return -1;
    int any_pair = 0;
    for (int p = 0; p < w->n; p++)
        any_pair |= w->pairs[p] > 0;
    long pairs = plain;
    if (any_pair) {
        w->scheme = NS_PAIRS;
        pairs = count_msgs_pairs(w);
        if (pairs < 0)
            return -1;
        if (pairs >= plain) {
            w->scheme = NS_PLAIN; /* (pairing never sends more, but safe) */
            pairs = plain;
        }
        *total = pairs;
    }
    if (grid_nd && grid < pairs) {
        w->scheme = NS_DIMS;
        grid_set(w, grid_nd, grid_dims);
        *total = grid;
    }
    return 0;
}

/* Message lookup: idx[dir][phase][peer] (dir 0 send, 1 receive). */
typedef struct {
    int *idx[2][NS_MAX_PHASE];
    int nmsg[2];
} ns_index;

static int plan_one(const ns_work *w, int me, ns_plan *plan, ns_index *ix,
                    int *in_first, int *in_pos, int *in_seen)
{
    const ns_graph *g = w->g;
    int n = w->n;
    memset(plan, 0, sizeof *plan);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < NS_MAX_PHASE; b++)
            for (int p = 0; p < n; p++)
                ix->idx[a][b][p] = -1;
    ix->nmsg[0] = ix->nmsg[1] = 0;

    /* Sources here, grouped by process: the occurrences of o in my source
     * list are in_pos[in_first[o] .. in_first[o+1]) in list order. */
    int indeg = g->in_off[me + 1] - g->in_off[me];
    memset(in_first, 0, sizeof(int) * (size_t)(n + 1));
    int real_in = 0;
    for (int j = 0; j < indeg; j++) {
        int s = g->in[g->in_off[me] + j];
        if (s >= 0 && s < n) {
            in_first[s + 1]++;
            real_in++;
        }
    }
    for (int p = 0; p < n; p++)
        in_first[p + 1] += in_first[p];
    memcpy(in_seen, in_first, sizeof(int) * (size_t)n);
    for (int j = 0; j < indeg; j++) {
        int s = g->in[g->in_off[me] + j];
        if (s >= 0 && s < n)
            in_pos[in_seen[s]++] = j;
    }

    /* Two passes over every piece in (origin, slot) order: count, then
     * fill.  That order is each message's piece order on both sides. */
    int *count[2] = {NULL, NULL};
    for (int pass = 0; pass < 2; pass++) {
        int delivered = 0;
        for (int o = 0; o < n; o++) {
            int mine_here = 0;
            for (int e = g->out_off[o]; e < g->out_off[o + 1]; e++) {
                int d = g->out[e];
                if (d < 0 || d >= n)
                    continue;
                int slot = e - g->out_off[o];
                int hop[NS_MAX_HOPS][3];
                int nh = piece_hops(w, o, d, hop);
                int at_here = -1;
                if (d == me) {
                    int k = mine_here++;
                    if (in_first[o] + k >= in_first[o + 1])
                        return -1; /* sends more than my sources take */
                    at_here = in_pos[in_first[o] + k];
                    delivered++;
                }
                for (int hd = 0; hd < 2 * nh; hd++) {
                    int h = hd / 2, dir = hd % 2;
                    if (hop[h][dir] != me)
                        continue; /* a self-loop is both sent and received */
                    int peer = hop[h][dir == 0 ? 1 : 0], ph = hop[h][2];
                    int *slotp = &ix->idx[dir][ph][peer];
                    if (pass == 0) {
                        if (*slotp < 0)
                            *slotp = ix->nmsg[dir]++;
                        continue;
                    }
                    ns_msg *m = (dir == 0 ? plan->send : plan->recv) + *slotp;
                    ns_piece *pc =
                        &plan->piece[m->first + count[dir][*slotp]++];
                    pc->origin = o;
                    pc->slot = slot;
                    pc->from = -1;
                    pc->at = -1;
                    if (dir == 1 && d == me)
                        pc->at = at_here;
                    if (dir == 0 && h > 0) /* relayed: came by the hop before */
                        pc->from = ix->idx[1][hop[h - 1][2]][hop[h - 1][0]];
                }
            }
        }
        if (pass == 1)
            break;
        if (delivered != real_in)
            return -1; /* my sources expect more than is sent */
        /* Size the messages, then fill them in the second pass. */
        plan->nsend = ix->nmsg[0];
        plan->nrecv = ix->nmsg[1];
        plan->send = calloc((size_t)plan->nsend + 1, sizeof(ns_msg));
        plan->recv = calloc((size_t)plan->nrecv + 1, sizeof(ns_msg));
        count[0] = calloc((size_t)plan->nsend + 1, sizeof(int));
        count[1] = calloc((size_t)plan->nrecv + 1, sizeof(int));
        if (!plan->send || !plan->recv || !count[0] || !count[1])
            goto oom;
        for (int dir = 0; dir < 2; dir++)
            for (int ph = 0; ph < NS_MAX_PHASE; ph++)
                for (int p = 0; p < n; p++) {
                    int i = ix->idx[dir][ph][p];
                    if (i < 0)
                        continue;
                    ns_msg *m = (dir == 0 ? plan->send : plan->recv) + i;
                    m->peer = p;
                    m->phase = ph;
                }
        /* Count pieces per message. */
        for (int o = 0; o < n; o++)
            for (int e = g->out_off[o]; e < g->out_off[o + 1]; e++) {
                int d = g->out[e];
                if (d < 0 || d >= n)
                    continue;
                int hop[NS_MAX_HOPS][3];
                int nh = piece_hops(w, o, d, hop);
                for (int h = 0; h < nh; h++) {
                    if (hop[h][0] == me)
                        plan->send[ix->idx[0][hop[h][2]][hop[h][1]]].count++;
                    if (hop[h][1] == me)
                        plan->recv[ix->idx[1][hop[h][2]][hop[h][0]]].count++;
                }
            }
        int total = 0;
        for (int i = 0; i < plan->nsend; i++) {
            plan->send[i].first = total;
            total += plan->send[i].count;
        }
        for (int i = 0; i < plan->nrecv; i++) {
            plan->recv[i].first = total;
            total += plan->recv[i].count;
        }
        plan->npiece = total;
        plan->piece = calloc((size_t)total + 1, sizeof(ns_piece));
        if (!plan->piece)
            goto oom;
    }
    /* A relayed piece's `at` is where it sits in the message that brought
     * it; a send waits for every such message (its links), and each of
     * those lists the send among its own. */
    int *seen = malloc(sizeof(int) * (size_t)(plan->nrecv + 1));
    if (!seen)
        goto oom;
    for (int i = 0; i < plan->nrecv; i++)
        seen[i] = -1;
    int nlink = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < plan->nsend; i++) {
            ns_msg *m = &plan->send[i];
            if (pass == 1)
                m->link_first = nlink;
            for (int k = 0; k < m->count; k++) {
                ns_piece *pc = &plan->piece[m->first + k];
                if (pc->from < 0 || seen[pc->from] == 2 * i + pass)
                    continue;
                seen[pc->from] = 2 * i + pass;
                if (pass == 0) {
                    plan->recv[pc->from].nlink++;
                    continue;
                }
                plan->link[nlink++] = pc->from;
                m->nlink++;
            }
        }
        if (pass == 1)
            break;
        int total = 0;
        for (int i = 0; i < plan->nrecv; i++) {
            plan->recv[i].link_first = total;
            total += plan->recv[i].nlink;
        }
        plan->nlink = 2 * total; /* each link once per side */
        plan->link = calloc((size_t)plan->nlink + 1, sizeof(int));
        if (!plan->link) {
            free(seen);
            goto oom;
        }
        nlink = total; /* the sends' lists follow the receives' */
    }
    free(seen);
    for (int i = 0; i < plan->nrecv; i++)
        plan->recv[i].nlink = 0;
    for (int i = 0; i < plan->nsend; i++) {
        const ns_msg *m = &plan->send[i];
        for (int k = 0; k < m->nlink; k++) {
            ns_msg *r = &plan->recv[plan->link[m->link_first + k]];
            plan->link[r->link_first + r->nlink++] = i;
        }
        for (int k = 0; k < m->count; k++) {
            ns_piece *pc = &plan->piece[m->first + k];
            if (pc->from < 0)
                continue;
            const ns_msg *r = &plan->recv[pc->from];
            for (int t = 0; t < r->count; t++) {
                const ns_piece *q = &plan->piece[r->first + t];
                if (q->origin == pc->origin && q->slot == pc->slot)
                    pc->at = t;
            }
        }
    }
    plan->pairs = w->scheme == NS_PAIRS ? w->pairs[me] : 0;
    plan->scheme = w->scheme;
    plan->nphase = w->scheme == NS_DIMS ? w->ndims : 2;
    plan->ndims = w->scheme == NS_DIMS ? w->ndims : 0;
    for (int i = 0; i < plan->ndims; i++)
        plan->dims[i] = w->dims[i];
    free(count[0]);
    free(count[1]);
    return 0;
oom:
    free(count[0]);
    free(count[1]);
    return -2;
}

void ns_plan_free(ns_plan *p)
{
    free(p->send);
    free(p->recv);
    free(p->piece);
    free(p->link);
    memset(p, 0, sizeof *p);
}

int ns_build(const ns_graph *g, int theta, int flags, int first, int count,
             ns_plan *plans)
{
    ns_work w;
    ns_index ix = {0};
    int n = g->n;
    int rc = -1;
    for (int i = 0; i < count; i++)
        memset(&plans[i], 0, sizeof plans[i]);
    int edges_in = g->in_off[n];
    int *in_first = malloc(sizeof(int) * (size_t)(n + 1));
    int *in_seen = malloc(sizeof(int) * (size_t)(n + 1));
    int *in_pos = malloc(sizeof(int) * (size_t)(edges_in + 1));
    int ix_ok = 1;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < NS_MAX_PHASE; b++)
            ix_ok &=
                (ix.idx[a][b] = malloc(sizeof(int) * (size_t)(n + 1))) != NULL;
    long total = 0;
    if (work_init(&w, g) != 0 || !in_first || !in_seen || !in_pos || !ix_ok)
        goto out;
    if (scheme_choose(&w, theta < 1 ? 1 : theta, flags, &total) != 0)
        goto out;
    for (int i = 0; i < count; i++) {
        if (plan_one(&w, first + i, &plans[i], &ix, in_first, in_pos,
                     in_seen) != 0) {
            for (int k = 0; k <= i; k++)
                ns_plan_free(&plans[k]);
            goto out;
        }
        plans[i].total_msgs = total;
    }
    rc = 0;
out:
    work_free(&w);
    free(in_first);
    free(in_seen);
    free(in_pos);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < NS_MAX_PHASE; b++)
            free(ix.idx[a][b]);
    return rc;
}
