/* test_grid: the virtual grid and its routes (router/grid.h).
 *
 * The route properties are checked exhaustively, for every ordered pair of
 * positions, over many (P, dims): complete and incomplete grids of 1 to 8
 * dimensions, including sizes of 1.  Coordinates are recomputed here from
 * the sizes rather than taken from rt_grid_coord, so that the checks do not
 * share a mistake with the code under test.
 */
#include "router/grid.h"
#include "tests/unit/check.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longer than any legal route, so a route that loops is caught. */
#define MAX_WALK (RT_MAX_DIMS + 2)
#define MAX_CASES 1024
#define WHY 512

typedef struct {
    int nranks;
    int ndims;
    int dims[RT_MAX_DIMS];
} grid_case;

typedef struct {
    grid_case c;
    rt_grid g;
    long product;
    char name[96];   /* "3x3 with P=7", for messages */
} fixture;

typedef struct {
    int pos[MAX_WALK + 1];
    int hops;
    int reached;
} route;

/* ---- helpers ------------------------------------------------------------ */

static void say(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, WHY, fmt, ap);
    va_end(ap);
}

static int coord(const fixture *f, int pos, int d)
{
    int stride = 1;
    for (int i = f->c.ndims - 1; i > d; i--)
        stride *= f->c.dims[i];
    return (pos / stride) % f->c.dims[d];
}

static int differing(const fixture *f, int a, int b)
{
    int n = 0;
    for (int d = 0; d < f->c.ndims; d++)
        n += coord(f, a, d) != coord(f, b, d);
    return n;
}

static int highest_differing(const fixture *f, int a, int b)
{
    for (int d = f->c.ndims - 1; d >= 0; d--)
        if (coord(f, a, d) != coord(f, b, d))
            return d;
    return -1;
}

/* The hop that sets coordinate d of a to b's. */
static int with_coord_of(const fixture *f, int a, int b, int d)
{
    int stride = 1;
    for (int i = f->c.ndims - 1; i > d; i--)
        stride *= f->c.dims[i];
    return a + (coord(f, b, d) - coord(f, a, d)) * stride;
}

static void walk(const fixture *f, int src, int dst, route *r)
{
    r->pos[0] = src;
    r->hops = 0;
    r->reached = src == dst;
    int cur = src;
    while (!r->reached && r->hops < MAX_WALK) {
        int next = rt_grid_next_hop(&f->g, cur, dst);
        r->pos[++r->hops] = next;
        if (next < 0 || next >= f->c.nranks)
            break;
        cur = next;
        r->reached = cur == dst;
    }
}

static const char *show_route(const route *r, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i <= r->hops && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, i ? " -> %d" : "%d",
                                 r->pos[i]);
    return buf;
}

static int make_fixture(fixture *f, const grid_case *c)
{
    f->c = *c;
    f->product = 1;
    size_t used = 0;
    for (int d = 0; d < c->ndims; d++) {
        f->product *= c->dims[d];
        used += (size_t)snprintf(f->name + used, sizeof f->name - used,
                                 d ? "x%d" : "%d", c->dims[d]);
    }
    snprintf(f->name + used, sizeof f->name - used, " with P=%d", c->nranks);
    return rt_grid_init(&f->g, c->nranks, c->ndims, c->dims);
}

static int add(grid_case *out, int n, int nranks, int ndims, const int *dims)
{
    if (n >= MAX_CASES)
        return n + 1;   /* counted, so build_cases can report the overflow */
    out[n].nranks = nranks;
    out[n].ndims = ndims;
    for (int d = 0; d < ndims; d++)
        out[n].dims[d] = dims[d];
    return n + 1;
}

/* Every (P, dims) the exhaustive route tests run on. */
static int build_cases(grid_case *out)
{
    int n = 0;
    for (int p = 1; p <= 40; p++) {
        for (int nd = 1; nd <= 3; nd++) {
            int dims[RT_MAX_DIMS];
            rt_grid_balanced_dims(p, nd, dims);
            n = add(out, n, p, nd, dims);
        }
    }
    static const struct { int p, nd, dims[3]; } explicit_cases[] = {
        {7, 2, {3, 3}},     {13, 2, {4, 4}},    {5, 3, {2, 2, 2}},
        {6, 3, {2, 2, 2}},  {10, 2, {4, 4}},    {9, 2, {2, 5}},
        {9, 2, {5, 2}},     {17, 3, {3, 3, 2}}, {11, 3, {2, 2, 3}},
        {25, 3, {3, 3, 3}}, {100, 2, {10, 10}}, {97, 2, {10, 10}},
        {97, 3, {5, 5, 4}}, {61, 3, {4, 4, 4}},
    };
    for (size_t i = 0; i < sizeof explicit_cases / sizeof *explicit_cases; i++)
        n = add(out, n, explicit_cases[i].p, explicit_cases[i].nd,
                explicit_cases[i].dims);

    static const int d444[] = {4, 4, 4}, d2324[] = {2, 3, 2, 4},
                     d2x5[] = {2, 2, 2, 2, 2}, d153[] = {1, 5, 3},
                     d314[] = {3, 1, 4}, d3x4[] = {3, 3, 3, 3},
                     d2x8[] = {2, 2, 2, 2, 2, 2, 2, 2}, d73[] = {7, 3};
    for (int p = 1; p <= 64; p++)
        n = add(out, n, p, 3, d444);
    for (int p = 1; p <= 48; p++)
        n = add(out, n, p, 4, d2324);
    for (int p = 1; p <= 32; p++)
        n = add(out, n, p, 5, d2x5);
    for (int p = 1; p <= 15; p++)
        n = add(out, n, p, 3, d153);
    for (int p = 1; p <= 12; p++)
        n = add(out, n, p, 3, d314);
    for (int p = 1; p <= 21; p++)
        n = add(out, n, p, 2, d73);
    static const int p3x4[] = {28, 55, 61, 80, 81};
    for (size_t i = 0; i < sizeof p3x4 / sizeof *p3x4; i++)
        n = add(out, n, p3x4[i], 4, d3x4);
    static const int p2x8[] = {100, 129, 200, 256};
    for (size_t i = 0; i < sizeof p2x8 / sizeof *p2x8; i++)
        n = add(out, n, p2x8[i], 8, d2x8);
    return n;
}

typedef int (*property)(const fixture *f, char *why);

enum { ALL_GRIDS, FULL_GRIDS };

/* Runs prop on every case (or every complete one); one CHECK per case, whose
 * message is the first counterexample prop found. */
static void over_cases(property prop, int which)
{
    static grid_case cases[MAX_CASES];
    int n = build_cases(cases);
    CHECK(n <= MAX_CASES, "the case list holds %d grids, more than MAX_CASES=%d",
          n, MAX_CASES);
    if (n > MAX_CASES)
        n = MAX_CASES;
    for (int i = 0; i < n; i++) {
        fixture f;
        if (make_fixture(&f, &cases[i]) != 0) {
            CHECK(0, "rt_grid_init refused %s, a valid grid", f.name);
            continue;
        }
        if (which == FULL_GRIDS && f.product != f.c.nranks)
            continue;
        char why[WHY] = "";
        CHECK(prop(&f, why), "%s", why);
    }
}

/* ---- link dependency graph ---------------------------------------------- */

typedef int (*hop_fn)(const void *ctx, int me, int dst);

static int grid_hop(const void *ctx, int me, int dst)
{
    return rt_grid_next_hop((const rt_grid *)ctx, me, dst);
}

/* Links are (u, v) with index u*P+v; an edge (u,v) -> (v,w) for every route
 * that takes those two hops back to back.  Returns 1 when acyclic; else 0,
 * with *stuck a link that a topological sort could not place (it lies on or
 * behind a cycle) and *left how many such links there are. */
static int deps_acyclic(int P, hop_fn hop, const void *ctx, int *stuck,
                        long *left)
{
    long nlinks = (long)P * P, nedges = 0, cap = 1024;
    long *from = malloc((size_t)cap * sizeof *from);
    long *to = malloc((size_t)cap * sizeof *to);
    for (int s = 0; s < P; s++) {
        for (int t = 0; t < P; t++) {
            int prev = -1, cur = s;
            for (int h = 0; cur != t && h < MAX_WALK; h++) {
                int next = hop(ctx, cur, t);
                if (next < 0 || next >= P)
                    break;
                long link = (long)cur * P + next;
                if (prev >= 0) {
                    if (nedges == cap) {
                        cap *= 2;
                        from = realloc(from, (size_t)cap * sizeof *from);
                        to = realloc(to, (size_t)cap * sizeof *to);
                    }
                    from[nedges] = (long)prev * P + cur;
                    to[nedges] = link;
                    nedges++;
                }
                prev = cur;
                cur = next;
            }
        }
    }

    long *start = calloc((size_t)nlinks + 1, sizeof *start);
    long *adj = malloc((size_t)(nedges ? nedges : 1) * sizeof *adj);
    long *indeg = calloc((size_t)nlinks, sizeof *indeg);
    long *queue = malloc((size_t)nlinks * sizeof *queue);
    for (long e = 0; e < nedges; e++) {
        start[from[e] + 1]++;
        indeg[to[e]]++;
    }
    for (long l = 0; l < nlinks; l++)
        start[l + 1] += start[l];
    long *fill = malloc((size_t)(nlinks ? nlinks : 1) * sizeof *fill);
    for (long l = 0; l < nlinks; l++)
        fill[l] = start[l];
    for (long e = 0; e < nedges; e++)
        adj[fill[from[e]]++] = to[e];

    long head = 0, tail = 0;
    for (long l = 0; l < nlinks; l++)
        if (indeg[l] == 0)
            queue[tail++] = l;
    while (head < tail) {
        long l = queue[head++];
        for (long i = start[l]; i < start[l + 1]; i++)
            if (--indeg[adj[i]] == 0)
                queue[tail++] = adj[i];
    }
    *left = nlinks - tail;
    *stuck = -1;
    for (long l = 0; l < nlinks && *stuck < 0; l++)
        if (indeg[l] > 0)
            *stuck = (int)l;

    free(from);
    free(to);
    free(start);
    free(adj);
    free(indeg);
    free(queue);
    free(fill);
    return *left == 0;
}

/* ---- rt_grid_init -------------------------------------------------------- */

static void test_init_refuses_product_smaller_than_nranks(void)
{
    rt_grid g;
    int d33[] = {3, 3};
    CHECK(rt_grid_init(&g, 10, 2, d33) == -1,
          "10 ranks do not fit in 3x3, but rt_grid_init accepted them");
    int d222[] = {2, 2, 2};
    CHECK(rt_grid_init(&g, 9, 3, d222) == -1,
          "9 ranks do not fit in 2x2x2, but rt_grid_init accepted them");
    CHECK(rt_grid_init(&g, 9, 2, d33) == 0,
          "9 ranks fit exactly in 3x3, but rt_grid_init refused them");
}

static void test_init_refuses_sizes_below_one(void)
{
    rt_grid g;
    int zero[] = {3, 0}, negative[] = {-2, 3}, ones[] = {1, 1, 1};
    CHECK(rt_grid_init(&g, 1, 2, zero) == -1,
          "rt_grid_init accepted the size 0 in 3x0");
    CHECK(rt_grid_init(&g, 1, 2, negative) == -1,
          "rt_grid_init accepted the size -2 in -2x3");
    CHECK(rt_grid_init(&g, 1, 3, ones) == 0,
          "rt_grid_init refused 1x1x1 for one rank");
}

static void test_init_refuses_ndims_out_of_range(void)
{
    rt_grid g;
    int dims[RT_MAX_DIMS + 1];
    for (int d = 0; d <= RT_MAX_DIMS; d++)
        dims[d] = 1;
    CHECK(rt_grid_init(&g, 1, 0, dims) == -1, "rt_grid_init accepted ndims=0");
    CHECK(rt_grid_init(&g, 1, -1, dims) == -1, "rt_grid_init accepted ndims=-1");
    CHECK(rt_grid_init(&g, 1, RT_MAX_DIMS + 1, dims) == -1,
          "rt_grid_init accepted ndims=%d > RT_MAX_DIMS", RT_MAX_DIMS + 1);
    CHECK(rt_grid_init(&g, 1, RT_MAX_DIMS, dims) == 0,
          "rt_grid_init refused ndims=RT_MAX_DIMS=%d", RT_MAX_DIMS);
}

static void test_init_refuses_overflowing_product(void)
{
    rt_grid g;
    int square[] = {65536, 65536}, just_over[] = {46341, 46341};
    int sixteens[] = {16, 16, 16, 16, 16, 16, 16, 16}, max[] = {INT_MAX};
    CHECK(rt_grid_init(&g, 1, 2, square) == -1,
          "rt_grid_init accepted 65536x65536, whose product overflows int");
    CHECK(rt_grid_init(&g, 1, 2, just_over) == -1,
          "rt_grid_init accepted 46341x46341, whose product overflows int");
    CHECK(rt_grid_init(&g, 1, 8, sixteens) == -1,
          "rt_grid_init accepted 16^8, whose product overflows int");
    CHECK(rt_grid_init(&g, 1, 1, max) == 0,
          "rt_grid_init refused a single dimension of INT_MAX, which fits");
}

static void test_init_refuses_nranks_below_one(void)
{
    rt_grid g;
    int d22[] = {2, 2};
    CHECK(rt_grid_init(&g, 0, 2, d22) == -1, "rt_grid_init accepted P=0");
    CHECK(rt_grid_init(&g, -3, 2, d22) == -1, "rt_grid_init accepted P=-3");
}

static void test_init_sets_row_major_strides(void)
{
    rt_grid g;
    int dims[] = {2, 3, 4};
    int rc = rt_grid_init(&g, 20, 3, dims);
    CHECK(rc == 0 && g.nranks == 20 && g.ndims == 3 && g.dims[0] == 2 &&
              g.dims[1] == 3 && g.dims[2] == 4 && g.stride[0] == 12 &&
              g.stride[1] == 4 && g.stride[2] == 1,
          "2x3x4 with P=20 should give rc 0, strides 12,4,1; got rc %d, "
          "P=%d N=%d dims %d,%d,%d strides %d,%d,%d",
          rc, g.nranks, g.ndims, g.dims[0], g.dims[1], g.dims[2], g.stride[0],
          g.stride[1], g.stride[2]);
}

static void test_init_refusal_leaves_grid_unchanged(void)
{
    rt_grid g, before;
    int good[] = {3, 3}, bad[] = {2, 2};
    rt_grid_init(&g, 7, 2, good);
    before = g;
    rt_grid_init(&g, 5, 2, bad);
    CHECK(memcmp(&g, &before, sizeof g) == 0,
          "a refused rt_grid_init (5 ranks on 2x2) modified the grid");
}

/* ---- rt_grid_balanced_dims ------------------------------------------------ */

static void test_balanced_dims_examples(void)
{
    static const struct { int p, nd, want[RT_MAX_DIMS]; } ex[] = {
        {8, 3, {2, 2, 2}},     {7, 2, {3, 3}},      {16, 2, {4, 4}},
        {12, 2, {4, 3}},       {5, 3, {2, 2, 2}},   {1, 3, {1, 1, 1}},
        {1, 1, {1}},           {2, 3, {2, 1, 1}},   {3, 3, {2, 2, 1}},
        {4, 3, {2, 2, 1}},     {10, 2, {4, 3}},     {13, 2, {4, 4}},
        {17, 2, {5, 4}},       {9, 3, {3, 2, 2}},   {13, 3, {3, 3, 2}},
        {19, 3, {3, 3, 3}},    {40, 1, {40}},       {64, 3, {4, 4, 4}},
        {65, 3, {5, 4, 4}},    {1000000, 3, {100, 100, 100}},
        {1000001, 3, {101, 100, 100}}, {3, 8, {2, 2, 1, 1, 1, 1, 1, 1}},
        {256, 8, {2, 2, 2, 2, 2, 2, 2, 2}}, {257, 8, {3, 2, 2, 2, 2, 2, 2, 2}},
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        int got[RT_MAX_DIMS] = {0};
        rt_grid_balanced_dims(ex[i].p, ex[i].nd, got);
        int same = 1;
        char gs[128] = "", ws[128] = "";
        size_t gu = 0, wu = 0;
        for (int d = 0; d < ex[i].nd; d++) {
            same &= got[d] == ex[i].want[d];
            gu += (size_t)snprintf(gs + gu, sizeof gs - gu, d ? "x%d" : "%d",
                                   got[d]);
            wu += (size_t)snprintf(ws + wu, sizeof ws - wu, d ? "x%d" : "%d",
                                   ex[i].want[d]);
        }
        CHECK(same, "balanced %dd grid for P=%d should be %s, got %s",
              ex[i].nd, ex[i].p, ws, gs);
    }
}

static long long capped_product(int n, const int *dims)
{
    long long r = 1;
    for (int d = 0; d < n; d++) {
        r *= dims[d];
        if (r > (1LL << 40))
            return 1LL << 40;
    }
    return r;
}

/* The smallest product >= p of n sizes that differ by at most one, found by
 * trying every such choice. */
static long long smallest_balanced_product(int p, int n)
{
    long long best = -1;
    for (int k = 1; k <= p; k++) {
        int dims[RT_MAX_DIMS];
        for (int j = 0; j <= n; j++) {
            for (int d = 0; d < n; d++)
                dims[d] = d < j ? k + 1 : k;
            long long prod = capped_product(n, dims);
            if (prod >= p && (best < 0 || prod < best))
                best = prod;
        }
        for (int d = 0; d < n; d++)
            dims[d] = k;
        if (capped_product(n, dims) >= p)
            break;
    }
    return best;
}

static void test_balanced_dims_are_minimal_balanced_and_nonincreasing(void)
{
    int bad = 0;
    for (int n = 1; n <= RT_MAX_DIMS && !bad; n++) {
        for (int p = 1; p <= 2000 && !bad; p++) {
            int dims[RT_MAX_DIMS];
            rt_grid_balanced_dims(p, n, dims);
            int lo = dims[0], hi = dims[0], nonincreasing = 1;
            for (int d = 1; d < n; d++) {
                lo = dims[d] < lo ? dims[d] : lo;
                hi = dims[d] > hi ? dims[d] : hi;
                nonincreasing &= dims[d] <= dims[d - 1];
            }
            long long prod = capped_product(n, dims);
            long long best = smallest_balanced_product(p, n);
            if (lo < 1 || hi - lo > 1 || !nonincreasing || prod != best) {
                bad = 1;
                CHECK(0, "balanced %dd grid for P=%d should have sizes >= 1 "
                      "differing by <= 1, non-increasing, product %lld; got "
                      "sizes from %d to %d, %s, product %lld",
                      n, p, best, lo, hi,
                      nonincreasing ? "non-increasing" : "increasing somewhere",
                      prod);
            }
        }
    }
    CHECK(!bad, "see above");
}

/* ---- coordinates and simple calls --------------------------------------- */

static void test_coord_is_row_major_last_dimension_fastest(void)
{
    rt_grid g;
    int dims[] = {2, 3, 4};
    rt_grid_init(&g, 24, 3, dims);
    int bad = 0;
    for (int pos = 0; pos < 24 && !bad; pos++) {
        int want[3] = {pos / 12, pos / 4 % 3, pos % 4};
        for (int d = 0; d < 3; d++) {
            int got = rt_grid_coord(&g, pos, d);
            if (got != want[d]) {
                bad = 1;
                CHECK(0, "coordinate %d of position %d on 2x3x4 should be %d, "
                      "got %d", d, pos, want[d], got);
            }
        }
    }
    CHECK(!bad, "see above");
}

static void test_next_hop_to_self_is_self(void)
{
    rt_grid g;
    int dims[] = {3, 3};
    rt_grid_init(&g, 7, 2, dims);
    for (int me = 0; me < 7; me++) {
        int got = rt_grid_next_hop(&g, me, me);
        CHECK(got == me, "next hop from %d to itself on 3x3 with P=7 should "
              "be %d, got %d", me, me, got);
    }
}

static void test_positions_outside_the_job_are_rejected(void)
{
    rt_grid g;
    int dims[] = {3, 3};
    rt_grid_init(&g, 7, 2, dims);
    int peers[8];
    CHECK(rt_grid_next_hop(&g, 7, 0) == -1,
          "next_hop from hole 7 on 3x3 with P=7 should be -1, got %d",
          rt_grid_next_hop(&g, 7, 0));
    CHECK(rt_grid_next_hop(&g, 0, 8) == -1,
          "next_hop to hole 8 on 3x3 with P=7 should be -1, got %d",
          rt_grid_next_hop(&g, 0, 8));
    CHECK(rt_grid_next_hop(&g, -1, 0) == -1,
          "next_hop from -1 should be -1, got %d", rt_grid_next_hop(&g, -1, 0));
    CHECK(rt_grid_route_length(&g, 0, 7) == -1,
          "route_length to hole 7 should be -1, got %d",
          rt_grid_route_length(&g, 0, 7));
    CHECK(rt_grid_hop_dim(&g, 6, 7) == -1,
          "hop_dim from 6 to hole 7 should be -1, got %d",
          rt_grid_hop_dim(&g, 6, 7));
    CHECK(rt_grid_peers(&g, 8, peers, 8) == 0,
          "peers of hole 8 should be none, got %d",
          rt_grid_peers(&g, 8, peers, 8));
}

static void test_hop_dim_of_non_peers_is_minus_one(void)
{
    rt_grid g;
    int dims[] = {3, 3};
    rt_grid_init(&g, 9, 2, dims);
    CHECK(rt_grid_hop_dim(&g, 0, 4) == -1,
          "0 and 4 on 3x3 differ in both coordinates, so hop_dim should be "
          "-1; got %d", rt_grid_hop_dim(&g, 0, 4));
    CHECK(rt_grid_hop_dim(&g, 4, 4) == -1,
          "hop_dim from 4 to itself should be -1; got %d",
          rt_grid_hop_dim(&g, 4, 4));
}

static void test_peers_reports_full_count_when_array_is_short(void)
{
    rt_grid g;
    int dims[] = {4, 4};
    rt_grid_init(&g, 16, 2, dims);
    int peers[4] = {-7, -7, -7, -7};
    int n = rt_grid_peers(&g, 5, peers, 2);
    CHECK(n == 6, "5 on 4x4 has 6 peers, rt_grid_peers with max=2 returned %d",
          n);
    CHECK(peers[0] == 1 && peers[1] == 4 && peers[2] == -7 && peers[3] == -7,
          "with max=2 only the two lowest peers (1, 4) should be written; got "
          "%d, %d and then %d, %d", peers[0], peers[1], peers[2], peers[3]);
    CHECK(rt_grid_peers(&g, 5, NULL, 0) == 6,
          "rt_grid_peers(NULL, 0) should count 6 peers of 5 on 4x4, got %d",
          rt_grid_peers(&g, 5, NULL, 0));
}

/* Hand-worked detours, pinning the rule "highest differing dimension whose
 * hop exists" where the plain hop is a hole. */
static void test_incomplete_grid_detours_by_highest_existing_hop(void)
{
    static const struct {
        int p, nd, dims[3], len, path[4];
    } ex[] = {
        {7, 2, {3, 3}, 2, {6, 3, 5}},          /* (2,2)=8 is a hole */
        {7, 2, {3, 3}, 2, {6, 0, 2}},
        {17, 3, {3, 3, 2}, 2, {15, 3, 5}},     /* (2,2,1)=17 is a hole */
        {17, 3, {3, 3, 2}, 2, {16, 10, 11}},
        {61, 3, {4, 4, 4}, 3, {60, 48, 50, 2}}, /* dim 1 before dim 0 */
        {13, 2, {4, 4}, 2, {12, 0, 3}},
        {13, 2, {4, 4}, 2, {11, 9, 1}},        /* plain route, it exists */
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        grid_case c = {ex[i].p, ex[i].nd, {0}};
        for (int d = 0; d < ex[i].nd; d++)
            c.dims[d] = ex[i].dims[d];
        fixture f;
        make_fixture(&f, &c);
        route r;
        walk(&f, ex[i].path[0], ex[i].path[ex[i].len], &r);
        int same = r.reached && r.hops == ex[i].len;
        for (int h = 0; same && h <= ex[i].len; h++)
            same = r.pos[h] == ex[i].path[h];
        char want[64], got[64];
        route w = {{0}, ex[i].len, 1};
        memcpy(w.pos, ex[i].path, sizeof ex[i].path);
        CHECK(same, "route %d->%d on %s should be %s, got %s",
              ex[i].path[0], ex[i].path[ex[i].len], f.name,
              show_route(&w, want, sizeof want),
              show_route(&r, got, sizeof got));
    }
}

/* ---- exhaustive route properties ---------------------------------------- */

static int prop_reaches_destination(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            if (!r.reached) {
                char b[128];
                say(why, "route %d->%d on %s should end at %d; it went %s",
                    s, t, f->name, t, show_route(&r, b, sizeof b));
                return 0;
            }
        }
    }
    return 1;
}

static void test_routes_reach_destination(void)
{
    over_cases(prop_reaches_destination, ALL_GRIDS);
}

static int prop_one_coordinate_per_hop(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            for (int h = 0; h < r.hops; h++) {
                int a = r.pos[h], b = r.pos[h + 1];
                if (b < 0 || b >= f->c.nranks)
                    break;
                if (differing(f, a, b) != 1) {
                    char buf[128];
                    say(why, "route %d->%d on %s (%s) hops %d->%d, which "
                        "differ in %d coordinates instead of one",
                        s, t, f->name, show_route(&r, buf, sizeof buf), a, b,
                        differing(f, a, b));
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void test_routes_change_one_coordinate_per_hop(void)
{
    over_cases(prop_one_coordinate_per_hop, ALL_GRIDS);
}

static int prop_visits_existing_only(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            for (int h = 1; h <= r.hops; h++) {
                if (r.pos[h] < 0 || r.pos[h] >= f->c.nranks) {
                    say(why, "route %d->%d on %s visits position %d, which "
                        "does not exist", s, t, f->name, r.pos[h]);
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void test_routes_visit_only_existing_positions(void)
{
    over_cases(prop_visits_existing_only, ALL_GRIDS);
}

static int prop_at_most_ndims_hops(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            if (r.hops > f->c.ndims) {
                char b[128];
                say(why, "route %d->%d on %s should take at most %d hops; it "
                    "took %d: %s", s, t, f->name, f->c.ndims, r.hops,
                    show_route(&r, b, sizeof b));
                return 0;
            }
        }
    }
    return 1;
}

static void test_routes_take_at_most_ndims_hops(void)
{
    over_cases(prop_at_most_ndims_hops, ALL_GRIDS);
}

static int prop_minimal(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            if (!r.reached || r.hops != differing(f, s, t)) {
                char b[128];
                say(why, "route %d->%d on %s should take one hop per "
                    "differing coordinate (%d); it went %s", s, t, f->name,
                    differing(f, s, t), show_route(&r, b, sizeof b));
                return 0;
            }
        }
    }
    return 1;
}

static void test_routes_take_one_hop_per_differing_coordinate(void)
{
    over_cases(prop_minimal, ALL_GRIDS);
}

/* Every next hop asked twice, the second time in the opposite order, so that
 * hidden state between calls would show. */
static int prop_deterministic(const fixture *f, char *why)
{
    int P = f->c.nranks;
    int *first = malloc((size_t)P * (size_t)P * sizeof *first);
    int ok = 1;
    for (int me = 0; me < P; me++)
        for (int t = 0; t < P; t++)
            first[me * P + t] = rt_grid_next_hop(&f->g, me, t);
    for (int me = P - 1; me >= 0 && ok; me--) {
        for (int t = P - 1; t >= 0; t--) {
            int again = rt_grid_next_hop(&f->g, me, t);
            if (again != first[me * P + t]) {
                say(why, "next hop %d->%d on %s was %d, then %d when asked "
                    "again", me, t, f->name, first[me * P + t], again);
                ok = 0;
                break;
            }
        }
    }
    free(first);
    return ok;
}

static void test_routes_are_deterministic(void)
{
    over_cases(prop_deterministic, ALL_GRIDS);
}

static int prop_acyclic(const fixture *f, char *why)
{
    int stuck;
    long left;
    if (deps_acyclic(f->c.nranks, grid_hop, &f->g, &stuck, &left))
        return 1;
    say(why, "link dependency graph on %s should be acyclic; %ld links lie "
        "on or behind a cycle, e.g. %d->%d", f->name, left,
        stuck / f->c.nranks, stuck % f->c.nranks);
    return 0;
}

static void test_link_dependency_graph_is_acyclic(void)
{
    over_cases(prop_acyclic, ALL_GRIDS);
}

/* Around the square of a 2x2 grid, 0 -> 1 -> 3 -> 2 -> 0: two-hop routes
 * that chain their links into a cycle. */
static int clockwise_hop(const void *ctx, int me, int dst)
{
    (void)ctx;
    static const int next[4] = {1, 3, 0, 2};
    if (me == dst)
        return me;
    if ((me ^ dst) == 1 || (me ^ dst) == 2)
        return dst;
    return next[me];
}

static void test_cycle_detector_finds_a_cyclic_routing(void)
{
    int stuck;
    long left;
    int acyclic = deps_acyclic(4, clockwise_hop, NULL, &stuck, &left);
    CHECK(!acyclic && left == 4,
          "routing clockwise around a 2x2 square makes a cycle of 4 links; "
          "the checker reported %s with %ld links stuck",
          acyclic ? "acyclic" : "a cycle", left);
}

static int prop_route_length_matches(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            int len = rt_grid_route_length(&f->g, s, t);
            if (!r.reached || len != r.hops) {
                char b[128];
                say(why, "rt_grid_route_length(%d, %d) on %s is %d, but the "
                    "route walked is %s", s, t, f->name, len,
                    show_route(&r, b, sizeof b));
                return 0;
            }
        }
    }
    return 1;
}

static void test_route_length_matches_walked_route(void)
{
    over_cases(prop_route_length_matches, ALL_GRIDS);
}

static int prop_one_hop_means_no_longer_route(const fixture *f, char *why)
{
    int longest = 0;
    for (int s = 0; s < f->c.nranks; s++)
        for (int t = 0; t < f->c.nranks; t++) {
            int len = rt_grid_route_length(&f->g, s, t);
            if (len > longest)
                longest = len;
        }
    if (rt_grid_one_hop(&f->g) != (longest <= 1)) {
        say(why, "rt_grid_one_hop on %s says %d, but its longest route takes "
            "%d hops", f->name, rt_grid_one_hop(&f->g), longest);
        return 0;
    }
    return 1;
}

static void test_one_hop_is_true_exactly_when_no_route_is_longer(void)
{
    over_cases(prop_one_hop_means_no_longer_route, ALL_GRIDS);
}

static void test_one_hop_examples(void)
{
    static const struct { int n, nd, dims[3], want; } ex[] = {
        {8, 1, {8}, 1}, {2, 2, {2, 1}, 1}, {4, 2, {1, 4}, 1},
        {4, 2, {2, 2}, 0}, {1, 3, {1, 1, 1}, 1}, {3, 2, {2, 2}, 0},
        {3, 2, {2, 4}, 1}, {5, 2, {2, 4}, 0}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        rt_grid g;
        CHECK(rt_grid_init(&g, ex[i].n, ex[i].nd, ex[i].dims) == 0,
              "rt_grid_init refused example %zu, a valid grid", i);
        CHECK(rt_grid_one_hop(&g) == ex[i].want,
              "example %zu (%d ranks, %d dims): rt_grid_one_hop must say %d, "
              "got %d", i, ex[i].n, ex[i].nd, ex[i].want, rt_grid_one_hop(&g));
    }
}

static int prop_hop_dim_agrees(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            int next = rt_grid_next_hop(&f->g, s, t);
            int want = s == t ? -1 : highest_differing(f, s, next);
            int got = rt_grid_hop_dim(&f->g, s, next);
            if (got != want) {
                say(why, "hop %d->%d on %s corrects dimension %d, but "
                    "rt_grid_hop_dim says %d", s, next, f->name, want, got);
                return 0;
            }
        }
    }
    return 1;
}

static void test_hop_dim_names_the_corrected_dimension(void)
{
    over_cases(prop_hop_dim_agrees, ALL_GRIDS);
}

static int prop_peers_are_first_hops(const fixture *f, char *why)
{
    int P = f->c.nranks;
    char *used = malloc((size_t)P);
    int *peers = malloc((size_t)P * sizeof *peers);
    int ok = 1;
    for (int me = 0; me < P && ok; me++) {
        memset(used, 0, (size_t)P);
        int want = 0;
        for (int t = 0; t < P; t++) {
            int next = rt_grid_next_hop(&f->g, me, t);
            if (t != me && next >= 0 && next < P && !used[next]) {
                used[next] = 1;
                want++;
            }
        }
        int n = rt_grid_peers(&f->g, me, peers, P);
        if (n != want) {
            say(why, "%d on %s sends directly to %d positions, but "
                "rt_grid_peers returned %d", me, f->name, want, n);
            ok = 0;
            break;
        }
        for (int i = 0; i < n; i++) {
            if (peers[i] < 0 || peers[i] >= P || !used[peers[i]] ||
                (i > 0 && peers[i] <= peers[i - 1])) {
                say(why, "peers of %d on %s should be its first hops in "
                    "ascending order; entry %d is %d, %s", me, f->name, i,
                    peers[i],
                    peers[i] < 0 || peers[i] >= P ? "not a position"
                    : !used[peers[i]] ? "never a first hop"
                                      : "not above the one before");
                ok = 0;
                break;
            }
        }
    }
    free(used);
    free(peers);
    return ok;
}

static void test_peers_are_exactly_the_first_hops(void)
{
    over_cases(prop_peers_are_first_hops, ALL_GRIDS);
}

/* Where the highest-dimension-first route stays on existing positions the
 * router must take it: detours only where a hole forces them. */
static int prop_plain_route_when_it_exists(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route plain = {{s}, 0, 0}, r;
            int cur = s, inside = 1;
            while (cur != t) {
                cur = with_coord_of(f, cur, t, highest_differing(f, cur, t));
                plain.pos[++plain.hops] = cur;
                inside &= cur < f->c.nranks;
            }
            if (!inside)
                continue;
            walk(f, s, t, &r);
            int same = r.hops == plain.hops;
            for (int h = 0; same && h <= r.hops; h++)
                same = r.pos[h] == plain.pos[h];
            if (!same) {
                char a[128], b[128];
                say(why, "route %d->%d on %s should be the highest-dimension-"
                    "first route %s, which exists; it went %s", s, t, f->name,
                    show_route(&plain, a, sizeof a), show_route(&r, b, sizeof b));
                return 0;
            }
        }
    }
    return 1;
}

static void test_routes_are_highest_dimension_first_where_that_route_exists(void)
{
    over_cases(prop_plain_route_when_it_exists, ALL_GRIDS);
}

/* ---- complete grids ----------------------------------------------------- */

static int prop_full_highest_first(const fixture *f, char *why)
{
    for (int s = 0; s < f->c.nranks; s++) {
        for (int t = 0; t < f->c.nranks; t++) {
            route r;
            walk(f, s, t, &r);
            for (int h = 0; h < r.hops; h++) {
                int d = highest_differing(f, r.pos[h], t);
                int want = with_coord_of(f, r.pos[h], t, d);
                if (r.pos[h + 1] != want) {
                    char b[128];
                    say(why, "on the complete %s route %d->%d should correct "
                        "dimension %d at %d (to %d); it went %s", f->name, s,
                        t, d, r.pos[h], want, show_route(&r, b, sizeof b));
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void test_full_grid_routes_are_highest_dimension_first(void)
{
    over_cases(prop_full_highest_first, FULL_GRIDS);
}

static int prop_full_peer_count(const fixture *f, char *why)
{
    int want = 0;
    for (int d = 0; d < f->c.ndims; d++)
        want += f->c.dims[d] - 1;
    for (int me = 0; me < f->c.nranks; me++) {
        int n = rt_grid_peers(&f->g, me, NULL, 0);
        if (n != want) {
            say(why, "%d on the complete %s should have sum(s_d - 1) = %d "
                "peers, got %d", me, f->name, want, n);
            return 0;
        }
    }
    return 1;
}

static void test_full_grid_peer_count_is_sum_of_sizes_minus_one(void)
{
    over_cases(prop_full_peer_count, FULL_GRIDS);
}

static long binomial(int n, int k)
{
    long r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (n - k + i) / i;
    return r;
}

/* On N dimensions of size s, C(N,a)(s-1)^a destinations differ from any
 * source in exactly a coordinates, so lie a hops away
 * (docs/design/routing.md, How many hops). */
static void test_full_grid_hop_distribution_is_binomial(void)
{
    static const struct { int s, nd; } ex[] = {{4, 2}, {3, 3}, {2, 4}};
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        grid_case c = {1, ex[i].nd, {0}};
        for (int d = 0; d < ex[i].nd; d++) {
            c.dims[d] = ex[i].s;
            c.nranks *= ex[i].s;
        }
        fixture f;
        make_fixture(&f, &c);
        int bad = 0;
        for (int s = 0; s < c.nranks && !bad; s++) {
            long count[MAX_WALK + 1] = {0};
            for (int t = 0; t < c.nranks; t++) {
                route r;
                walk(&f, s, t, &r);
                count[r.hops]++;
            }
            for (int a = 0; a <= ex[i].nd && !bad; a++) {
                long want = binomial(ex[i].nd, a);
                for (int k = 0; k < a; k++)
                    want *= ex[i].s - 1;
                if (count[a] != want) {
                    bad = 1;
                    CHECK(0, "from %d on %s, C(%d,%d)*%d^%d = %ld destinations "
                          "should be %d hops away; %ld are", s, f.name,
                          ex[i].nd, a, ex[i].s - 1, a, want, a, count[a]);
                }
            }
        }
        CHECK(!bad, "hop distribution on %s (see above)", f.name);
    }
}

int main(void)
{
    RUN(test_init_refuses_product_smaller_than_nranks);
    RUN(test_init_refuses_sizes_below_one);
    RUN(test_init_refuses_ndims_out_of_range);
    RUN(test_init_refuses_overflowing_product);
    RUN(test_init_refuses_nranks_below_one);
    RUN(test_init_sets_row_major_strides);
    RUN(test_init_refusal_leaves_grid_unchanged);
    RUN(test_balanced_dims_examples);
    RUN(test_balanced_dims_are_minimal_balanced_and_nonincreasing);
    RUN(test_coord_is_row_major_last_dimension_fastest);
    RUN(test_next_hop_to_self_is_self);
    RUN(test_positions_outside_the_job_are_rejected);
    RUN(test_hop_dim_of_non_peers_is_minus_one);
    RUN(test_peers_reports_full_count_when_array_is_short);
    RUN(test_incomplete_grid_detours_by_highest_existing_hop);
    RUN(test_routes_reach_destination);
    RUN(test_routes_change_one_coordinate_per_hop);
    RUN(test_routes_visit_only_existing_positions);
    RUN(test_routes_take_at_most_ndims_hops);
    RUN(test_routes_take_one_hop_per_differing_coordinate);
    RUN(test_routes_are_deterministic);
    RUN(test_link_dependency_graph_is_acyclic);
    RUN(test_cycle_detector_finds_a_cyclic_routing);
    RUN(test_route_length_matches_walked_route);
    RUN(test_hop_dim_names_the_corrected_dimension);
    RUN(test_one_hop_is_true_exactly_when_no_route_is_longer);
    RUN(test_one_hop_examples);
    RUN(test_peers_are_exactly_the_first_hops);
    RUN(test_routes_are_highest_dimension_first_where_that_route_exists);
    RUN(test_full_grid_routes_are_highest_dimension_first);
    RUN(test_full_grid_peer_count_is_sum_of_sizes_minus_one);
    RUN(test_full_grid_hop_distribution_is_binomial);
    CHECK_MAIN_END();
}
