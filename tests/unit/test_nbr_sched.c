/* test_nbr_sched: message-combining schedules (router/nbr_sched.h).
 *
 * Every plan of a graph is checked by simulating it: each message one
 * process sends must be a message its peer expects (same phase, same
 * pieces in the same order), every piece must end in the source-list slot
 * MPI's matching rule gives it (recomputed here from the lists, not taken
 * from the code under test), every source slot must be filled exactly once,
 * and a relayed piece must leave in exactly one message of a later phase
 * that waits for (links to) the message that brought it, so that no run
 * can wait in a cycle.  Every process's plan must agree on the scheme and
 * the number of phases (the tags of a run), and total_msgs on the sum of
 * the sends.  Graphs: rings, 2-D and 3-D Moore neighbourhoods on tori
 * (some so small that neighbours repeat), box neighbourhoods of radius 1
 * and 2 with and without wrap-around (MPI_PROC_NULL off the grid), grids
 * with dimensions of 1 and 2, Cartesian lines with MPI_PROC_NULL ends,
 * random sparse multigraphs with self-loops, and empty neighbourhoods;
 * pairing alone, and with the dimension-ordered scheme allowed, where the
 * target is asserted: at most 60% of the neighbours per process
 * for 2-D and 3-D Moore tori (2r messages per dimension at most).
 * MPICH 4.0.2's order for a repeated source in alltoall (alltoall fills
 * slots from the end of the source list; docs/design/neighbourhood.md,
 * How it runs) is a
 * permutation the executor applies among the occurrences of one source,
 * so a plan that fills each occurrence once in MPI's order fills each once
 * in MPICH's too; tests/mpi/neighbor_collectives checks that end to end.
 */
#include "router/nbr_sched.h"
#include "tests/unit/check.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    int *out_off, *out, *in_off, *in;
    int cap_out, cap_in;
} graph;

static void g_init(graph *g, int n)
{
    g->n = n;
    g->out_off = calloc((size_t)n + 1, sizeof(int));
    g->in_off = calloc((size_t)n + 1, sizeof(int));
    g->out = NULL;
    g->in = NULL;
}

static void g_free(graph *g)
{
    free(g->out_off);
    free(g->out);
    free(g->in_off);
    free(g->in);
}

/* lists[p] given as arrays of per-process lists, -1 allowed. */
static void g_set(graph *g, int **outl, const int *outn, int **inl,
                  const int *inn)
{
    int to = 0, ti = 0;
    for (int p = 0; p < g->n; p++) {
        to += outn[p];
        ti += inn[p];
    }
    g->out = malloc(sizeof(int) * (size_t)(to + 1));
    g->in = malloc(sizeof(int) * (size_t)(ti + 1));
    to = ti = 0;
    for (int p = 0; p < g->n; p++) {
        g->out_off[p] = to;
        g->in_off[p] = ti;
        for (int k = 0; k < outn[p]; k++)
            g->out[to++] = outl[p][k];
        for (int k = 0; k < inn[p]; k++)
            g->in[ti++] = inl[p][k];
    }
    g->out_off[g->n] = to;
    g->in_off[g->n] = ti;
}

/* A stencil on a grid of ranks laid out row-major: every offset within
 * `radius` in each dimension (only those along one axis when `vonneumann`),
 * in lexicographic order; sources are the same neighbours in the same
 * order.  Off the grid the slot wraps round when `periodic`, else it names
 * MPI_PROC_NULL (-1), as a Cartesian shift would. */
static void g_stencil(graph *g, int nd, const int *dims, int radius,
                      int vonneumann, int periodic)
{
    int n = 1;
    for (int d = 0; d < nd; d++)
        n *= dims[d];
    g_init(g, n);
    int side = 2 * radius + 1, combos = 1;
    for (int d = 0; d < nd; d++)
        combos *= side;
    int **l = malloc(sizeof(int *) * (size_t)n);
    int *cnt = calloc((size_t)n, sizeof(int));
    for (int p = 0; p < n; p++) {
        l[p] = malloc(sizeof(int) * (size_t)combos);
        int c[8], rem = p;
        for (int d = nd - 1; d >= 0; d--) {
            c[d] = rem % dims[d];
            rem /= dims[d];
        }
        for (int k = 0; k < combos; k++) {
            int off[8], r = k, nonzero = 0, q = 0, off_grid = 0;
            for (int d = nd - 1; d >= 0; d--) {
                off[d] = r % side - radius;
                r /= side;
                nonzero += off[d] != 0;
            }
            if (nonzero == 0 || (vonneumann && nonzero > 1))
                continue;
            for (int d = 0; d < nd; d++) {
                int x = c[d] + off[d];
                off_grid |= x < 0 || x >= dims[d];
                q = q * dims[d] + (x % dims[d] + dims[d]) % dims[d];
            }
            l[p][cnt[p]++] = off_grid && !periodic ? -1 : q;
        }
    }
    g_set(g, l, cnt, l, cnt);
    for (int p = 0; p < n; p++)
        free(l[p]);
    free(l);
    free(cnt);
}

/* A symmetric stencil on a torus. */
static void g_moore(graph *g, int nd, const int *dims, int radius, int vonneumann)
{
    g_stencil(g, nd, dims, radius, vonneumann, 1);
}

/* Random multigraph: each process picks `deg` destinations (repeats and
 * itself allowed); each source list is the reverse, in a shuffled order. */
static void g_random(graph *g, int n, int deg, unsigned seed)
{
    g_init(g, n);
    int **ol = malloc(sizeof(int *) * (size_t)n), **il = malloc(sizeof(int *) * (size_t)n);
    int *on = calloc((size_t)n, sizeof(int)), *in = calloc((size_t)n, sizeof(int));
    for (int p = 0; p < n; p++) {
        ol[p] = malloc(sizeof(int) * (size_t)(deg + 1));
        il[p] = malloc(sizeof(int) * (size_t)(n * (deg + 1) + 1));
    }
    for (int p = 0; p < n; p++) {
        int d = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (deg + 1);
        for (int k = 0; k < d; k++) {
            int q = (int)((seed = seed * 1103515245u + 12345u) >> 16) % n;
            ol[p][on[p]++] = q;
            il[q][in[q]++] = p;
        }
    }
    for (int q = 0; q < n; q++)
        for (int i = in[q] - 1; i > 0; i--) {
            int j = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (i + 1);
            int t = il[q][i];
            il[q][i] = il[q][j];
            il[q][j] = t;
        }
    g_set(g, ol, on, il, in);
    for (int p = 0; p < n; p++) {
        free(ol[p]);
        free(il[p]);
    }
    free(ol);
    free(il);
    free(on);
    free(in);
}

/* A Cartesian line of n with neighbours (left, right), MPI_PROC_NULL (-1)
 * at the ends unless periodic. */
static void g_line(graph *g, int n, int periodic)
{
    g_init(g, n);
    int **l = malloc(sizeof(int *) * (size_t)n);
    int *cnt = calloc((size_t)n, sizeof(int));
    for (int p = 0; p < n; p++) {
        l[p] = malloc(sizeof(int) * 2);
        l[p][0] = p > 0 ? p - 1 : periodic ? n - 1 : -1;
        l[p][1] = p < n - 1 ? p + 1 : periodic ? 0 : -1;
        cnt[p] = 2;
    }
    g_set(g, l, cnt, l, cnt);
    for (int p = 0; p < n; p++)
        free(l[p]);
    free(l);
    free(cnt);
}

typedef struct {
    double sends_per_degree;   /* mean over processes with a destination */
    int max_sends;
    double mean_sends;         /* over all processes */
    int pairs;
    int scheme;                /* NS_PLAIN, NS_PAIRS or NS_DIMS */
    int ndims, dims[NS_MAX_DIMS];
    int ok;
} verdict;

/* The slot of the t-th occurrence of v in list l[0..len), or -1. */
static int nth(const int *l, int len, int v, int t)
{
    for (int i = 0; i < len; i++)
        if (l[i] == v && t-- == 0)
            return i;
    return -1;
}

static verdict simulate_flags(const graph *g, int theta, int flags,
                              const char *name)
{
    verdict v = {0};
    v.ok = 1;
    int n = g->n;
    ns_graph ng = {n, g->out_off, g->out, g->in_off, g->in};
    ns_plan *plans = calloc((size_t)n, sizeof(ns_plan));
    int failures = 0;
#define FAIL(...) do { if (failures++ < 5) CHECK(0, __VA_ARGS__); v.ok = 0; } while (0)
    int rc = ns_build(&ng, theta, flags, 0, n, plans);
    CHECK(rc == 0, "%s: ns_build must accept a consistent graph, returned %d",
          name, rc);
    if (rc != 0) {
        free(plans);
        v.ok = 0;
        return v;
    }
    int *got = calloc((size_t)g->in_off[n] + 1, sizeof(int));
    long total = 0;
    v.scheme = plans[0].scheme;
    v.ndims = plans[0].ndims;
    memcpy(v.dims, plans[0].dims, sizeof v.dims);
    for (int p = 0; p < n; p++) {
        total += plans[p].nsend;
        if (plans[p].scheme != v.scheme || plans[p].nphase != plans[0].nphase)
            FAIL("%s: %d's plan has scheme %d with %d phases, 0's %d with %d: "
                 "the tags of a run must agree", name, p, plans[p].scheme,
                 plans[p].nphase, v.scheme, plans[0].nphase);
    }
    v.mean_sends = n ? (double)total / n : 0;
    if (n && total != plans[0].total_msgs)
        FAIL("%s: total_msgs says %ld messages, the plans send %ld", name,
             plans[0].total_msgs, total);
    double ratio_sum = 0;
    int ratio_n = 0;
    for (int p = 0; p < n; p++) {
        const ns_plan *pl = &plans[p];
        v.pairs += pl->pairs;
        int deg = 0;
        for (int e = g->out_off[p]; e < g->out_off[p + 1]; e++)
            deg += g->out[e] >= 0;
        if (deg) {
            ratio_sum += (double)pl->nsend / deg;
            ratio_n++;
        }
        if (pl->nsend > v.max_sends)
            v.max_sends = pl->nsend;
        for (int i = 0; i < pl->nsend; i++) {
            const ns_msg *m = &pl->send[i];
            const ns_plan *qp = &plans[m->peer];
            int match = -1;
            for (int r = 0; r < qp->nrecv; r++)
                if (qp->recv[r].peer == p && qp->recv[r].phase == m->phase) {
                    if (match >= 0)
                        FAIL("%s: %d expects two phase-%d messages from %d",
                             name, m->peer, m->phase, p);
                    match = r;
                }
            if (match < 0) {
                FAIL("%s: %d sends a phase-%d message to %d, which expects none",
                     name, p, m->phase, m->peer);
                continue;
            }
            const ns_msg *r = &qp->recv[match];
            if (r->count != m->count)
                FAIL("%s: %d->%d phase %d: %d pieces sent, %d expected", name,
                     p, m->peer, m->phase, m->count, r->count);
            for (int k = 0; k < m->count && k < r->count; k++) {
                const ns_piece *a = &pl->piece[m->first + k];
                const ns_piece *b = &qp->piece[r->first + k];
                if (a->origin != b->origin || a->slot != b->slot)
                    FAIL("%s: %d->%d piece %d is (%d,%d) sent, (%d,%d) expected",
                         name, p, m->peer, k, a->origin, a->slot, b->origin,
                         b->slot);
                if (a->from >= 0) {
                    /* A relay waits for the message that brought the
                     * piece, which came in an earlier phase (so no run can
                     * wait in a cycle) and lists this send among its own. */
                    const ns_msg *x = a->from < pl->nrecv ? &pl->recv[a->from]
                                                          : NULL;
                    int listed = 0, back = 0;
                    for (int l = 0; l < m->nlink; l++)
                        listed += pl->link[m->link_first + l] == a->from;
                    for (int l = 0; x && l < x->nlink; l++)
                        back += pl->link[x->link_first + l] == i;
                    if (!x || x->phase >= m->phase || listed != 1 ||
                        back != 1 || a->at < 0 || a->at >= x->count ||
                        pl->piece[x->first + a->at].origin != a->origin ||
                        pl->piece[x->first + a->at].slot != a->slot)
                        FAIL("%s: %d relays (%d,%d) to %d without waiting for "
                             "the earlier message that brought it", name, p,
                             a->origin, a->slot, m->peer);
                } else if (a->origin != p) {
                    FAIL("%s: %d sends (%d,%d) as its own piece", name, p,
                         a->origin, a->slot);
                }
            }
        }
        for (int r = 0; r < pl->nrecv; r++) {
            const ns_msg *m = &pl->recv[r];
            for (int k = 0; k < m->count; k++) {
                const ns_piece *a = &pl->piece[m->first + k];
                int d = g->out[g->out_off[a->origin] + a->slot];
                if (a->at < 0) {
                    int uses = 0;
                    for (int s = 0; s < pl->nsend; s++) {
                        const ns_msg *o = &pl->send[s];
                        for (int t = 0; t < o->count; t++) {
                            const ns_piece *b = &pl->piece[o->first + t];
                            if (b->origin == a->origin && b->slot == a->slot)
                                uses++;
                        }
                    }
                    if (uses != 1)
                        FAIL("%s: %d relays (%d,%d) %d times, not once", name, p,
                             a->origin, a->slot, uses);
                    continue;
                }
                if (d != p)
                    FAIL("%s: piece (%d,%d) for %d lands at %d", name,
                         a->origin, a->slot, d, p);
                /* MPI's rule: the t-th slot of origin naming p feeds the
                 * t-th slot of p's sources naming origin. */
                int t = 0;
                for (int s = 0; s < a->slot; s++)
                    t += g->out[g->out_off[a->origin] + s] == p;
                int indeg = g->in_off[p + 1] - g->in_off[p];
                int want = nth(g->in + g->in_off[p], indeg, a->origin, t);
                if (want != a->at)
                    FAIL("%s: piece (%d,%d) lands in source slot %d of %d, MPI "
                         "says %d", name, a->origin, a->slot, a->at, p, want);
                else
                    got[g->in_off[p] + a->at]++;
            }
        }
    }
    for (int p = 0; p < n; p++)
        for (int j = g->in_off[p]; j < g->in_off[p + 1]; j++)
            if (g->in[j] >= 0 && got[j] != 1)
                FAIL("%s: source slot %d of %d filled %d times, MPI fills it "
                     "once", name, j - g->in_off[p], p, got[j]);
#undef FAIL
    v.sends_per_degree = ratio_n ? ratio_sum / ratio_n : 0;
    for (int p = 0; p < n; p++)
        ns_plan_free(&plans[p]);
    free(plans);
    free(got);
    return v;
}

/* Pairs only, as the `grid` mode and the pairing tests want it. */
static verdict simulate(const graph *g, int theta, const char *name)
{
    return simulate_flags(g, theta, 0, name);
}

static void test_ring_is_plain(void)
{
    graph g;
    g_moore(&g, 1, (int[]){8}, 1, 0);
    verdict v = simulate(&g, 4, "ring of 8");
    CHECK(v.ok && v.pairs == 0 && v.max_sends == 2,
          "a ring has at most 1 common destination: expected no pairs and 2 "
          "sends each, got %d pairs, up to %d sends", v.pairs, v.max_sends);
    g_free(&g);
}

static void test_moore_2d_combines(void)
{
    graph g;
    g_moore(&g, 2, (int[]){6, 6}, 1, 0);
    verdict v = simulate(&g, 4, "2-D Moore 6x6");
    CHECK(v.ok && v.pairs > 0 && v.sends_per_degree < 1.0,
          "2-D Moore: pairs share 4 destinations, so combining must pay: "
          "got %d pairs, %.2f sends per destination", v.pairs,
          v.sends_per_degree);
    printf("    2-D Moore 6x6, theta 4: %.2f messages per destination\n",
           v.sends_per_degree);
    g_free(&g);
    g_moore(&g, 2, (int[]){8, 8}, 2, 0);
    v = simulate(&g, 4, "2-D Moore r=2 8x8");
    CHECK(v.ok && v.sends_per_degree < 0.8,
          "2-D Moore radius 2 (24 destinations): expected under 0.8 sends "
          "per destination, got %.2f", v.sends_per_degree);
    printf("    2-D Moore r=2 8x8, theta 4: %.2f messages per destination\n",
           v.sends_per_degree);
    g_free(&g);
}

static void test_moore_3d_combines(void)
{
    graph g;
    g_moore(&g, 3, (int[]){4, 4, 4}, 1, 0);
    verdict v = simulate(&g, 4, "3-D Moore 4x4x4");
    CHECK(v.ok && v.sends_per_degree < 0.8,
          "3-D Moore (26 destinations): expected under 0.8 sends per "
          "destination, got %.2f", v.sends_per_degree);
    printf("    3-D Moore 4x4x4, theta 4: %.2f messages per destination\n",
           v.sends_per_degree);
    g_free(&g);
}

static void test_small_tori_repeat_neighbours(void)
{
    int cases[][3] = {{2, 2, 0}, {3, 3, 0}, {2, 3, 0}, {1, 4, 0}, {2, 2, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        graph g;
        char name[64];
        int nd = cases[c][2] ? 3 : 2;
        snprintf(name, sizeof name, "Moore torus %dx%dx%d", cases[c][0],
                 cases[c][1], nd == 3 ? cases[c][2] : 1);
        g_moore(&g, nd, cases[c], 1, 0);
        for (int theta = 1; theta <= 4; theta++) {
            verdict v = simulate(&g, theta, name);
            CHECK(v.ok, "%s, theta %d: plan must deliver every slot", name,
                  theta);
        }
        g_free(&g);
    }
}

static void test_cartesian_proc_null(void)
{
    for (int n = 1; n <= 5; n++)
        for (int periodic = 0; periodic < 2; periodic++) {
            graph g;
            g_line(&g, n, periodic);
            verdict v = simulate(&g, 1, periodic ? "periodic line" : "line");
            CHECK(v.ok, "line of %d (periodic %d) with MPI_PROC_NULL ends", n,
                  periodic);
            g_free(&g);
        }
    graph g;
    g_moore(&g, 2, (int[]){3, 4}, 1, 1);
    verdict v = simulate(&g, 2, "von Neumann 3x4");
    CHECK(v.ok, "Cartesian 2-D neighbourhood must be delivered");
    g_free(&g);
}

static void test_random_multigraphs(void)
{
    for (unsigned seed = 1; seed <= 40; seed++) {
        graph g;
        int n = 2 + (int)(seed % 9), deg = 1 + (int)(seed % 7);
        g_random(&g, n, deg * 2, seed);
        char name[64];
        snprintf(name, sizeof name, "random n=%d seed=%u", n, seed);
        for (int theta = 1; theta <= 3; theta++) {
            verdict v = simulate(&g, theta, name);
            CHECK(v.ok, "%s theta %d: repeated edges and self-loops must "
                        "land where MPI says", name, theta);
        }
        g_free(&g);
    }
    graph g;
    g_random(&g, 64, 24, 7);
    verdict v = simulate(&g, 4, "random n=64");
    CHECK(v.ok && v.pairs > 0, "a dense random graph must find pairs (got %d)",
          v.pairs);
    g_free(&g);
}

static void test_empty_neighbourhoods(void)
{
    graph g;
    g_init(&g, 4);
    int a[] = {1, 1}, b[] = {0, 0};
    int *ol[4] = {a, NULL, NULL, NULL}, *il[4] = {NULL, b, NULL, NULL};
    g_set(&g, ol, (int[]){2, 0, 0, 0}, il, (int[]){0, 2, 0, 0});
    verdict v = simulate(&g, 1, "one double edge");
    CHECK(v.ok && v.max_sends == 1,
          "two slots to one process go in one message, got up to %d",
          v.max_sends);
    g_free(&g);
    g_init(&g, 3);
    g_set(&g, (int *[]){NULL, NULL, NULL}, (int[]){0, 0, 0},
          (int *[]){NULL, NULL, NULL}, (int[]){0, 0, 0});
    v = simulate(&g, 4, "no edges");
    CHECK(v.ok && v.max_sends == 0, "no edges, no messages (got %d)",
          v.max_sends);
    g_free(&g);
}

/* A box neighbourhood (radius r) on a grid of ranks laid out row-major,
 * with MPI_PROC_NULL off the grid unless `periodic`. */
static void g_box(graph *g, int nd, const int *dims, int radius, int periodic)
{
    g_stencil(g, nd, dims, radius, 0, periodic);
}

/* The target for Moore tori: at most 60% of the neighbours per process in
 * messages (docs/testing.md). */
static void check_dims(int nd, const int *dims, int radius, int periodic,
                       int want_max)
{
    graph g;
    char name[96];
    snprintf(name, sizeof name, "%d-D box r=%d %dx%dx%d%s", nd, radius,
             dims[0], dims[1], nd > 2 ? dims[2] : 1,
             periodic ? " torus" : " with MPI_PROC_NULL edges");
    g_box(&g, nd, dims, radius, periodic);
    verdict v = simulate_flags(&g, 4, NS_TRY_DIMS, name);
    int side = 2 * radius + 1, nbrs = side * side * (nd > 2 ? side : 1) - 1;
    CHECK(v.ok, "%s: every slot must land where MPI's matching rule puts it",
          name);
    if (want_max) {
        CHECK(v.scheme == NS_DIMS && v.max_sends <= want_max,
              "%s: dimension order sends at most %d messages per process "
              "(2r per dimension), got scheme %d with up to %d", name,
              want_max, v.scheme, v.max_sends);
        if (periodic)
            CHECK(v.sends_per_degree <= 0.6,
                  "%s: the target is at most 60%% of the %d "
                  "neighbours, got %.0f%%", name, nbrs,
                  100 * v.sends_per_degree);
    }
    printf("    %s: scheme %s (grid %dx%dx%d), %.2f messages per process (up "
           "to %d), %.2f per neighbour\n", name,
           v.scheme == NS_DIMS ? "dims" : v.scheme == NS_PAIRS ? "pairs" : "plain",
           v.dims[0], v.dims[1], v.ndims > 2 ? v.dims[2] : 1, v.mean_sends,
           v.max_sends, v.sends_per_degree);
    g_free(&g);
}

static void test_moore_dimension_order_meets_target(void)
{
    check_dims(2, (int[]){3, 3}, 1, 1, 4);
    check_dims(2, (int[]){4, 4}, 1, 1, 4);
    check_dims(2, (int[]){6, 6}, 1, 1, 4);
    check_dims(2, (int[]){8, 8}, 1, 1, 4);
    check_dims(2, (int[]){4, 6}, 1, 1, 4);
    check_dims(2, (int[]){8, 8}, 2, 1, 8);
    check_dims(3, (int[]){3, 3, 3}, 1, 1, 6);
    check_dims(3, (int[]){4, 4, 4}, 1, 1, 6);
    check_dims(3, (int[]){6, 6, 6}, 1, 1, 6);
}

static void test_moore_non_periodic_and_tiny_dims(void)
{
    /* MPI_PROC_NULL at the edges: fewer destinations, never more sends. */
    check_dims(2, (int[]){4, 4}, 1, 0, 4);
    check_dims(2, (int[]){3, 5}, 1, 0, 4);
    check_dims(3, (int[]){3, 3, 3}, 1, 0, 6);
    check_dims(2, (int[]){6, 6}, 2, 0, 8);
    /* Dimensions of 1 and 2: neighbours repeat and name the process
     * itself; every slot must still land once, in MPI's order. */
    check_dims(2, (int[]){2, 4}, 1, 1, 0);
    check_dims(2, (int[]){2, 2}, 1, 1, 0);
    check_dims(2, (int[]){1, 4}, 1, 1, 0);
    check_dims(2, (int[]){1, 6}, 1, 0, 0);
    check_dims(3, (int[]){2, 2, 2}, 1, 1, 0);
    check_dims(3, (int[]){2, 3, 2}, 1, 1, 0);
    check_dims(3, (int[]){3, 3, 1}, 1, 1, 0); /* bench/halo's 3-D at 9 */
    check_dims(3, (int[]){4, 2, 2}, 1, 1, 0); /* and at 16 ranks */
    check_dims(2, (int[]){3, 3}, 2, 1, 0);
    check_dims(2, (int[]){4, 4}, 2, 1, 0);
}

/* The grid only routes; a graph that is no stencil is still delivered
 * (and the scheme with fewer messages is kept). */
static void test_dims_on_any_graph(void)
{
    for (unsigned seed = 1; seed <= 40; seed++) {
        graph g;
        int n = 2 + (int)(seed % 15), deg = 1 + (int)(seed % 7);
        g_random(&g, n, deg * 2, seed);
        char name[64];
        snprintf(name, sizeof name, "random n=%d seed=%u, dims allowed", n, seed);
        verdict v = simulate_flags(&g, 1 + (int)(seed % 3), NS_TRY_DIMS, name);
        CHECK(v.ok, "%s: repeated edges and self-loops must land where MPI "
                    "says under any scheme", name);
        g_free(&g);
    }
    for (int n = 1; n <= 6; n++) {
        graph g;
        g_line(&g, n, n % 2);
        verdict v = simulate_flags(&g, 1, NS_TRY_DIMS, "line, dims allowed");
        CHECK(v.ok, "line of %d with MPI_PROC_NULL ends", n);
        g_free(&g);
    }
}

static void test_inconsistent_graph_refused(void)
{
    graph g;
    g_init(&g, 2);
    int a[] = {1}, b[] = {0, 0};
    g_set(&g, (int *[]){a, NULL}, (int[]){1, 0}, (int *[]){NULL, b},
          (int[]){0, 2});
    ns_graph ng = {2, g.out_off, g.out, g.in_off, g.in};
    ns_plan plans[2];
    CHECK(ns_build(&ng, 4, NS_TRY_DIMS, 0, 2, plans) == -1,
          "a source list that expects more than is sent must be refused");
    g_free(&g);
}

int main(void)
{
    RUN(test_ring_is_plain);
    RUN(test_moore_2d_combines);
    RUN(test_moore_3d_combines);
    RUN(test_small_tori_repeat_neighbours);
    RUN(test_cartesian_proc_null);
    RUN(test_random_multigraphs);
    RUN(test_empty_neighbourhoods);
    RUN(test_moore_dimension_order_meets_target);
    RUN(test_moore_non_periodic_and_tiny_dims);
    RUN(test_dims_on_any_graph);
    RUN(test_inconsistent_graph_refused);
    CHECK_MAIN_END();
}
