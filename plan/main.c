/* omnibus-plan: what Omnibus will do for a job of 10^3 to 10^6 ranks,
 * without running it (docs/planning.md).  No MPI; the routes, the memory
 * bound, `auto`'s rule and the buffer-leaving rules are the library's own
 * (router/).
 *
 * One row per candidate topology (or the one asked for), as a table or as
 * JSON whose keys are the statistics file's (docs/statistics.md) with a
 * `predicted_` prefix, job totals as the file sums them; the plan's own
 * figures (peers, items per block, the trigger) carry other names.
 */
#include "plan/job.h"
#include "config/config.h"
#include "router/choose.h"
#include "router/flow.h"
#include "router/pool.h"
#include "router/relay.h"
#include "router/ring.h"
#include "router/tables.h"
#include "router/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The release and the commit the build came from (the Makefile's). */
#ifndef OMNIBUS_VERSION
#define OMNIBUS_VERSION "unknown"
#endif
#ifndef OMNIBUS_COMMIT
#define OMNIBUS_COMMIT "unknown"
#endif

#define MAX_ROWS 12

typedef struct {
    int P, nodes, per_node, cap, rx_blocks, round_robin;
    int in_turn;        /* --in-turn, or a pattern that sends so */
    long k, n, blocking;
    uint64_t msg;
    pl_pattern pat;
    double *histogram;  /* --histogram: sends by offset, P entries; owned */
    int histogram_ranks;
    const char *topology;
    int json;
    int flow_ranks;     /* --flow-ranks, over OMNIBUS_FLOW_RANKS */
    cfg_settings cfg;
} query;

typedef struct {
    char name[64];
    rt_grid g;
    pl_job j;
    int node_grid;     /* positions are node by node whatever the query's
                          placement (auto and nodes place ranks so) */
    uint64_t bound, window;
    uint64_t pool;     /* the eager pool: OMNIBUS_EAGER_POOL, or what
                          OMNIBUS_MEMORY leaves on this grid */
    uint64_t tables;   /* per-rank tables (router/tables.h) */
} row;

static const char *env_lookup(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

static void fail(const char *fmt, const char *what)
{
    fprintf(stderr, "omnibus: omnibus-plan: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(2);
}

static long num_arg(const char *opt, const char *v, long lo)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < lo)
        fail("%s needs a whole number (see --help)", opt);
    return x;
}

static const char *trigger(const row *r)
{
    double m = r->j.full;
    const char *name = "full";
    if (r->j.cap > m) { m = r->j.cap; name = "cap"; }
    if (r->j.idle > m) { m = r->j.idle; name = "idle"; }
    if (r->j.end > m) name = "before_blocking";
    return name;
}

/* The rank count the window rule uses: the job's, or OMNIBUS_FLOW_RANKS
 * (--flow-ranks), as shim/progress/credit.c takes it. */
static int window_ranks(const query *q)
{
    return q->cfg.flow_ranks ? q->cfg.flow_ranks : q->P;
}

/* Whether ranks read each other's memory over node rings, as
 * shim/transport/shm.c decides: OMNIBUS_SHM allows it (by default where MPI
 * itself is not on a network: one node, or nodes emulated on one with
 * --round-robin), buffers of at most RG_MAX_BLOCK, and a node of at least
 * two ranks. */
static int node_rings(const query *q)
{
    int network = q->nodes > 1 && !q->round_robin;
    return cfg_shm_wanted(&q->cfg, network) &&
           q->cfg.buffer_size <= RG_MAX_BLOCK && q->P / q->nodes >= 2;
}

/* The job's totals (plan/job.h) and its memory bound, the largest of the
 * ranks' own as the statistics file shows it: every rank's when every
 * rank is simulated, else the simulated ranks' with the most relayed
 * pairs of any rank (router/relay.h). */
static int plan_row(row *w, const query *q)
{
    const rt_grid *g = &w->g;
    int P = g->nranks;
    fl_params job = {.block = q->cfg.buffer_size, .nranks = window_ranks(q),
                     .fill_cap = q->cap};
    w->pool = po_pool_in_force(g, &job, q->cfg.eager_pool, q->cfg.memory,
                               CFG_MIN_EAGER_POOL, CFG_DEFAULT_EAGER_POOL, NULL);
    pl_sim_params sp = {.block = q->cfg.buffer_size,
                        .item = RT_HDR_SIZE + q->msg, .cap = q->cap,
                        .idle_rounds = (uint64_t)q->cfg.idle_rounds,
                        .k = q->k, .n = q->n, .blocking = q->blocking,
                        .ordered = q->in_turn,
                        .rounds = q->pat.kind == PL_ALLTOALL,
                        .rx_blocks = q->rx_blocks,
                        .window = fl_window(w->pool, window_ranks(q))};
    pl_layout nodes = {.nodes = q->nodes, .per_node = q->per_node,
                       .round_robin = q->round_robin && !w->node_grid};
    if (pl_job_predict(g, &q->pat, &nodes, &sp, &w->j) != 0)
        return -1;
    uint64_t most = w->j.nsim < P ? rl_relay_pairs_max(g) : 0;
    for (int k = 0; k < w->j.nsim; k++) {
        int me = w->j.sim_rank[k];
        fl_params fp = job;
        fp.pool = w->pool;
        fp.npeers = w->j.sim_npeers[k];
        fp.rx_blocks = q->rx_blocks;
        fp.relay_pairs = w->j.nsim < P ? most : rl_relay_pairs(g, me);
        uint64_t bound = fl_memory_bound(&fp);
        if (bound > w->bound)
            w->bound = bound;
    }
    w->window = fl_window(w->pool, window_ranks(q));
    w->tables = tb_table_bytes(P, node_rings(q));
    return 0;
}

static void print_list(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%.0f", i ? "," : "", v[i]);
}

static void print_json_row(const row *w, const query *q)
{
    const rt_grid *g = &w->g;
    double S = w->j.sends > 0 ? w->j.sends : 1;
    printf("{\"candidate\":\"%s\",\"peers_per_rank\":%d,", w->name,
           w->j.npeers);
    printf("\"forwarded_items_per_send\":%.6g,\"wire_messages_per_send\":%.6g,"
           "\"off_node_wire_messages_per_send\":%.6g,",
           w->j.forwarded / S, w->j.wire / S, w->j.off_node / S);
    printf("\"items_per_block\":%.6g,\"items_per_block_per_dim\":[",
           w->j.wire > 0 ? w->j.appended / w->j.wire : 0);
    for (int d = 0; d < g->ndims; d++)
        printf("%s%.6g", d ? "," : "",
               w->j.wire_dim[d] > 0 ? w->j.items_dim[d] / w->j.wire_dim[d]
                                    : 0);
    printf("],\"wire_messages_per_send_per_dim\":[");
    for (int d = 0; d < g->ndims; d++)
        printf("%s%.6g", d ? "," : "", w->j.wire_dim[d] / S);
    printf("],\"trigger\":\"%s\",\"routes_exact\":%d,"
           "\"relay_latency_bound_us\":%ld,",
           trigger(w), w->j.exact, (g->ndims - 1) * q->cfg.flush_us);
    printf("\"predicted_ranks\":%d,\"predicted_topology\":[", g->nranks);
    for (int d = 0; d < g->ndims; d++)
        printf("%s%d", d ? "," : "", g->dims[d]);
    printf("],\"predicted_buffer_size\":%zu,\"predicted_threshold\":%zu,",
           q->cfg.buffer_size, q->cfg.threshold);
    printf("\"predicted_totals\":{\"predicted_user_sends\":%.0f,"
           "\"predicted_aggregated_items\":%.0f,"
           "\"predicted_forwarded_items\":%.0f,"
           "\"predicted_wire_messages\":%.0f,"
           "\"predicted_wire_bytes\":%.0f,"
           "\"predicted_delivered_items\":%.0f,"
           "\"predicted_wire_messages_off_node\":%.0f,"
           "\"predicted_window_fallbacks\":%.0f},",
           w->j.sends, w->j.sends, w->j.forwarded, w->j.wire,
           w->j.appended * (double)(RT_HDR_SIZE + q->msg), w->j.sends,
           w->j.off_node, w->j.fallbacks);
    printf("\"predicted_flushes\":{\"predicted_full\":%.0f,"
           "\"predicted_idle\":%.0f,\"predicted_age\":0,"
           "\"predicted_before_blocking\":%.0f,\"predicted_urgent\":%.0f},",
           w->j.full + w->j.cap, w->j.idle, w->j.end, w->j.urgent);
    printf("\"predicted_flow\":{\"predicted_stalls\":%.0f,"
           "\"predicted_grants\":%.0f,\"predicted_window_max_bytes\":%.0f,"
           "\"predicted_window_ranks\":%d},",
           w->j.stalls, w->j.grants, w->j.window_max, window_ranks(q));
    printf("\"predicted_hops_histogram\":[");
    print_list(w->j.hops, g->ndims + 1);
    printf("],\"predicted_wire_messages_per_dim\":[");
    print_list(w->j.wire_dim, g->ndims);
    printf("],\"predicted_peak_buffer_bytes_per_rank\":%.0f,"
           "\"predicted_peak_fill_bytes_per_rank\":%.0f,"
           "\"predicted_memory_bound_bytes\":%llu,"
           "\"predicted_table_bytes_per_rank\":%llu,"
           "\"predicted_eager_pool_bytes\":%llu,"
           "\"predicted_window_bytes\":%llu,"
           "\"predicted_window_full_sends\":%.0f}",
           w->j.peak, w->j.peak_fill, (unsigned long long)w->bound,
           (unsigned long long)w->tables,
           (unsigned long long)w->pool,
           (unsigned long long)w->window, w->j.stalls);
}

static void print_table_row(const row *w)
{
    double S = w->j.sends > 0 ? w->j.sends : 1;
    printf("%-22s %8d %10.4f %10.3f %12.5f %12.5f %-15s %10.1f %10.1f "
           "%12.1f %11.1f\n",
           w->name, w->j.npeers, w->j.forwarded / S,
           w->j.wire > 0 ? w->j.appended / w->j.wire : 0, w->j.wire / S,
           w->j.off_node / S, trigger(w), w->j.peak / 1024.0,
           (double)w->pool / (1 << 20), (double)w->bound / (1 << 20), (double)w->tables / (1 << 20));
}

static int add_grid(row *rows, int n, const char *name, int P, int ndims,
                    const int *dims)
{
    if (n >= MAX_ROWS)
        return n;
    memset(&rows[n], 0, sizeof rows[n]);
    if (rt_grid_init(&rows[n].g, P, ndims, dims) != 0)
        return n;
    char sizes[48] = "";
    for (int d = 0; d < ndims; d++) {
        size_t l = strlen(sizes);
        snprintf(sizes + l, sizeof sizes - l, "%s%d", d ? "x" : "", dims[d]);
    }
    snprintf(rows[n].name, sizeof rows[n].name, "%s%s%s%s", name,
             *name ? " (" : "", sizes, *name ? ")" : "");
    return n + 1;
}

static rc_rule auto_rule(const query *q)
{
    rc_rule r = {.block = q->cfg.buffer_size, .item = RT_HDR_SIZE + 8,
                 .idle_rounds = (uint64_t)q->cfg.idle_rounds, .cap = q->cap,
                 .poll = RC_POLL,
                 .age_sends = (double)q->cfg.flush_us * RC_SENDS_PER_US};
    return r;
}

static void usage(void)
{
    printf("usage: omnibus-plan [--ranks P | --nodes N --per-node R]\n"
           "         [--topology auto|direct|nodes|Nd|AxB..|all]\n"
           "         [--pattern uniform|alltoall|pairs|mirror|moore2d]\n"
           "         [--histogram STATISTICS_FILE] [--message BYTES]\n"
           "         [--poll K] [--blocking K] [--sends N] [--cap C]\n"
           "         [--in-turn] [--wire-receives W] [--flow-ranks R]\n"
           "         [--round-robin] [--json]\n"
           "       omnibus-plan --version\n"
           "OMNIBUS_BUFFER_SIZE, _THRESHOLD, _IDLE_ROUNDS, _FLUSH_US,\n"
           "_MEMORY, _EAGER_POOL and _FLOW_RANKS are read from the environment.\n"
           "docs/planning.md.\n");
    exit(0);
}

static void version(void)
{
    printf("omnibus %s (commit %s)\n", OMNIBUS_VERSION, OMNIBUS_COMMIT);
    exit(0);
}

/* The whole of a file, NUL-terminated; fails the run when it cannot. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail("--histogram: cannot read %s", path);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *more = realloc(text, cap *= 2);
        if (!more)
            free(text);
        text = more;
    }
    fclose(f);
    if (!text)
        fail("%s", "--histogram: out of memory");
    text[len] = 0;
    return text;
}

/* --histogram: the statistics file's sends_to (row s: what rank s sent to
 * each rank), which sets the pattern (PL_MEASURED) and the job's size. */
static void read_histogram(query *q, const char *path)
{
    char *text = read_file(path);
    const char *key = "\"sends_to\":[";
    char *at = strstr(text, key);
    if (!at)
        fail("--histogram: %s has no sends_to (the statistics file of a "
             "job of at most 256 ranks, docs/statistics.md)", path);
    at += strlen(key);
    int n = 0, rows = 0, cap = 1024, depth = 1;
    double *h = malloc(sizeof *h * (size_t)cap);
    while (h && *at && depth > 0) {
        if (*at == '[') {
            depth++, rows++, at++;
        } else if (*at == ']') {
            depth--, at++;
        } else if (*at == ',') {
            at++;
        } else {
            char *end;
            double x = strtod(at, &end);
            if (end == at || x < 0)
                fail("--histogram: sends_to in %s is not lists of counts",
                     path);
            if (n == cap) {
                double *more = realloc(h, sizeof *h * (size_t)(cap *= 2));
                if (!more)
                    free(h);
                h = more;
            }
            if (h)
                h[n++] = x;
            at = end;
        }
    }
    free(text);
    if (!h)
        fail("%s", "--histogram: out of memory");
    if (rows < 2 || n != rows * rows)
        fail("--histogram: sends_to in %s is not P lists of P counts, P >= 2",
             path);
    q->histogram = h;
    q->histogram_ranks = rows;
    q->pat = (pl_pattern){.kind = PL_MEASURED, .sends = h};
    if (!q->P)
        q->P = rows;
}

static void parse(int argc, char **argv, query *q)
{
    memset(q, 0, sizeof *q);
    q->nodes = 1;
    q->cap = FL_FILL_CAP;
    q->k = 64;
    q->n = 100000;
    q->msg = 8;
    q->rx_blocks = -1;
    q->topology = "all";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            usage();
        else if (!strcmp(a, "--version"))
            version();
        else if (!strcmp(a, "--json"))
            q->json = 1;
        else if (!strcmp(a, "--round-robin"))
            q->round_robin = 1;
        else if (!strcmp(a, "--in-turn"))
            q->in_turn = 1;
        else if (!v)
            fail("%s needs a value (see --help)", a);
        else if (!strcmp(a, "--ranks"))
            q->P = (int)num_arg(a, v, 1), i++;
        else if (!strcmp(a, "--nodes"))
            q->nodes = (int)num_arg(a, v, 1), i++;
        else if (!strcmp(a, "--per-node"))
            q->per_node = (int)num_arg(a, v, 1), i++;
        else if (!strcmp(a, "--poll"))
            q->k = num_arg(a, v, 0), i++;
        else if (!strcmp(a, "--sends"))
            q->n = num_arg(a, v, 1), i++;
        else if (!strcmp(a, "--cap"))
            q->cap = (int)num_arg(a, v, 1), i++;
        else if (!strcmp(a, "--message"))
            q->msg = (uint64_t)num_arg(a, v, 0), i++;
        else if (!strcmp(a, "--wire-receives"))
            q->rx_blocks = (int)num_arg(a, v, 0), i++;
        else if (!strcmp(a, "--topology"))
            q->topology = v, i++;
        else if (!strcmp(a, "--flow-ranks"))
            q->flow_ranks = (int)num_arg(a, v, 2), i++;
        else if (!strcmp(a, "--blocking"))
            q->blocking = num_arg(a, v, 0), i++;
        else if (!strcmp(a, "--histogram"))
            read_histogram(q, v), i++;
        else if (!strcmp(a, "--pattern")) {
            i++;
            if (!strcmp(v, "uniform"))
                q->pat.kind = PL_UNIFORM;
            else if (!strcmp(v, "alltoall"))
                q->pat.kind = PL_ALLTOALL;
            else if (!strcmp(v, "pairs"))
                q->pat.kind = PL_PAIRS;
            else if (!strcmp(v, "mirror"))
                q->pat.kind = PL_MIRROR;
            else if (!strcmp(v, "moore2d"))
                q->pat.kind = PL_MOORE2D;
            else
                fail("--pattern '%s' is not uniform, alltoall, pairs, "
                     "mirror or moore2d", v);
        } else
            fail("unknown option %s (see --help)", a);
    }
    if (q->per_node && !q->P)
        q->P = q->nodes * q->per_node;
    if (!q->P)
        fail("%s", "give --ranks P or --nodes N --per-node R");
    if (!q->per_node)
        q->per_node = (q->P + q->nodes - 1) / q->nodes;
    char err[CFG_ERR_LEN];
    if (cfg_load(&q->cfg, env_lookup, NULL, err, sizeof err) != 0)
        fail("%s", err);
    if (q->nodes > 1)
        cfg_use_network_defaults(&q->cfg);
    if (q->flow_ranks)
        q->cfg.flow_ranks = q->flow_ranks;
    if (cfg_check_job(&q->cfg, q->P, err, sizeof err) != 0)
        fail("%s", err);
    if (q->rx_blocks < 0)
        q->rx_blocks = q->nodes > 1 ? 4 : 0;
    if (q->pat.kind == PL_PAIRS || q->pat.kind == PL_MIRROR ||
        q->pat.kind == PL_MOORE2D)
        q->in_turn = 1;
    if (q->histogram && q->P != q->histogram_ranks)
        fail("%s", "--histogram gives the shares of a job of its own size: "
                   "--ranks (or --nodes x --per-node) must be that size");
    if (q->msg > q->cfg.threshold)
        fail("%s", "--message above OMNIBUS_THRESHOLD goes alone: the plan "
                   "covers aggregated messages");
}

int main(int argc, char **argv)
{
    query q;
    parse(argc, argv, &q);
    int P = q.P;
    row *rows = calloc(MAX_ROWS, sizeof *rows);
    if (!rows)
        fail("%s", "out of memory");
    int n = 0;
    rc_rule rule = auto_rule(&q);
    rc_choice pick;
    int equal = P % q.nodes == 0;
    rc_choose(&rule, P, q.nodes, equal, &pick);
    const char *t = q.topology;
    int dims[RT_MAX_DIMS] = {P};
    if (!strcmp(t, "all") || !strcmp(t, "direct"))
        n = add_grid(rows, n, "direct", P, 1, dims);
    if ((!strcmp(t, "all") || !strcmp(t, "nodes")) && q.nodes > 1 &&
        equal) {
        int nd[2] = {q.nodes, P / q.nodes};
        n = add_grid(rows, n, "nodes", P, 2, nd);
        rows[n - 1].node_grid = 1;
    }
    for (int nd = 2; !strcmp(t, "all") && nd <= RC_MAX_BALANCED; nd++) {
        char name[8];
        rt_grid_balanced_dims(P, nd, dims);
        if (dims[nd - 1] < 2)
            break;
        snprintf(name, sizeof name, "%dd", nd);
        n = add_grid(rows, n, name, P, nd, dims);
    }
    if (!strcmp(t, "auto")) {
        n = add_grid(rows, n, "auto", P, pick.ndims, pick.dims);
        rows[n - 1].node_grid = 1;
    }
    if (!n && strcmp(t, "all")) {
        int nd = 0;
        if (t[strlen(t) - 1] == 'd' && (nd = atoi(t)) >= 1 &&
            nd <= RT_MAX_DIMS) {
            rt_grid_balanced_dims(P, nd, dims);
            n = add_grid(rows, n, t, P, nd, dims);
        } else {
            char *copy = strdup(t), *save = NULL;
            for (char *s = strtok_r(copy, "x", &save);
                 s && nd < RT_MAX_DIMS; s = strtok_r(NULL, "x", &save))
                dims[nd++] = atoi(s);
            free(copy);
            n = add_grid(rows, n, "", P, nd, dims);
        }
        if (!n)
            fail("--topology '%s' cannot hold the job", t);
    }
    for (int i = 0; i < n; i++)
        if (plan_row(&rows[i], &q) != 0)
            fail("%s", "out of memory");
    char pick_name[64] = "";
    for (int d = 0; d < pick.ndims; d++) {
        size_t l = strlen(pick_name);
        snprintf(pick_name + l, sizeof pick_name - l, "%s%d", d ? "x" : "",
                 pick.dims[d]);
    }
    if (q.json) {
        printf("{\"ranks\":%d,\"nodes\":%d,\"poll\":%ld,\"sends\":%ld,"
               "\"message\":%llu,\"cap\":%d,\"candidates\":[",
               P, q.nodes, q.k, q.n, (unsigned long long)q.msg, q.cap);
        for (int i = 0; i < n; i++) {
            if (i)
                printf(",");
            print_json_row(&rows[i], &q);
        }
        printf("],\"recommended\":\"%s\",\"reason\":\"%s\"}\n", pick_name,
               rc_reason_text(pick.reason));
    } else {
        printf("%d ranks on %d node(s), %llu-byte messages, poll every %ld "
               "sends, buffers of %zu bytes, cap %d\n",
               P, q.nodes, (unsigned long long)q.msg, q.k,
               q.cfg.buffer_size, q.cap);
        printf("%-22s %8s %10s %10s %12s %12s %-15s %10s %10s %12s %11s\n",
               "topology", "peers", "fwd/send", "items/blk", "wire/send",
               "offnode/snd", "trigger", "peak KiB", "pool MiB", "bound MiB",
               "tables MiB");
        for (int i = 0; i < n; i++)
            print_table_row(&rows[i]);
        printf("auto picks %s: %s\n", pick_name, rc_reason_text(pick.reason));
    }
    free(rows);
    free(q.histogram);
    return 0;
}
