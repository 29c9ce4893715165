/* bfs: Graph500-like breadth-first search, one 16-byte message per edge
 * that leads to another rank's vertex.
 *
 * Usage: bfs [-s scale] [-e edge factor] [-n searches] [-w warmup searches]
 *            [-k drain interval] [-b] [-H] [-B bytes]
 *   -s  the graph has 2^s vertices (default 16, or 10 when ranks outnumber
 *       cores), 1 .. 26
 *   -e  edges per vertex (default 16, Graph500's), 1 .. 64
 *   -n  searches in the timed section, each from its own root (default 4)
 *   -w  untimed searches first, so connections exist (default 1)
 *   -k  sends between two drains of incoming messages (default 64)
 *   -b  send with a blocking MPI_Send instead (unsafe by MPI's rules, below)
 *   -H  the hand-aggregated variant (below) instead of the plain one
 *   -B  bytes per aggregation buffer of -H, K/M suffixes allowed, 16 .. 64M
 *       (default 16384); a buffer holds B / 16 messages
 *
 * The graph: 2^s x e undirected edges drawn by R-MAT (Graph500's
 * probabilities 0.57, 0.19, 0.19, 0.05), vertex numbers scrambled by a
 * bijection so that the hubs are spread over the ranks, self-loops dropped,
 * duplicates kept.  Every rank draws the same edges from the same seed and
 * keeps the whole graph (CSR): its own vertices' rows for the search, all of
 * it for the check.  Vertex v belongs to rank v mod P (1-D cyclic).
 *
 * The search is level-synchronous, as Graph500's reference code: for every
 * vertex u of this rank's frontier and every neighbour v, a vertex of this
 * rank is visited in place, and another rank's gets the message (v, u),
 * two uint64, with MPI_Isend.  The sends go into batches of 64 requests:
 * when a batch is full the rank tests it (MPI_Testall), draining until
 * every send in it has completed, and reuses it; every k sends it drains
 * anyway.  A drain is MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv of what has
 * arrived.  A received (v, u) whose v has no parent yet makes u its parent
 * and puts v in the next frontier.  Level end relies on no buffering and no
 * barrier: having scanned its frontier, a rank sends an end-of-level marker
 * (v = UINT64_MAX) to every other rank, on the same tag, so MPI's
 * non-overtaking rule puts it behind everything that rank sent here, and
 * receives (blocking MPI_Recv) until it holds P - 1 markers.  An
 * MPI_Allreduce of the next frontier's size then starts the next level, or
 * ends the search when it is 0; a message of the next level is sent only
 * once every rank has entered that reduction, so it never meets a rank
 * still in the level before.  No send ever blocks, and a rank waits in
 * MPI_Recv only once all its own sends are posted, so the kernel is correct
 * by MPI's rules alone.
 *
 * -b sends each message (and marker) with a blocking MPI_Send, as gups
 * does.  MPI calls that unsafe: two ranks sending to each other block for
 * ever once neither buffers any more.  MPICH buffers 16-byte sends without
 * limit; Omnibus up to its per-pair window (docs/design/flow-control.md), so
 * where a rank gets that far ahead of its peer's receives the job hangs.
 *
 * Hand (-H): what a programmer gets by aggregating by hand, as Graph500's
 * reference code does.  (v, u) goes into a buffer per destination rank,
 * which leaves as one MPI_Isend when it holds B bytes (bench_agg.h's double
 * buffers, as in gups: one fills while the other is on its way, and the
 * rank drains while it waits for a buffer to be free again).  Drains
 * receive whole buffers (MPI_Get_count gives their length).  At level end a
 * rank sends every partly filled buffer, then its markers (MPI_Isend, their
 * own tag, which non-overtaking still puts behind the buffers), and
 * receives until it holds P - 1 markers.  Its sends never block either.
 *
 * Checks, after each search, without communication but one reduction: every
 * rank runs the same search serially on the whole graph; BFS levels are
 * unique, so each vertex of this rank must have exactly the serial level
 * (unreached ones none), the root must be its own parent, and every other
 * reached vertex's parent must be a neighbour one level nearer the root.  No
 * message may name a vertex the receiving rank does not own, and over all
 * ranks and searches the messages received must equal those sent.
 *
 * rate = messages (user sends to other ranks, markers excluded) per second
 * over all ranks, the searches' timed sections summed; the RESULT line also
 * has teps= (Graph500's traversed edges per second: input edges in the
 * searched component) and edges_scanned=.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "bfs"
#define TAG_VISIT 1
#define TAG_DONE 2 /* the hand variant's markers */
#define MARKER UINT64_MAX
#define BATCH 64
#define GRAPH_SEED 0x243f6a8885a308d3ULL

typedef struct {
    int rank, size;
    int scale;
    uint64_t nv;        /* vertices */
    uint64_t ne;        /* undirected input edges, self-loops dropped */
    uint64_t *row;      /* CSR of the whole graph: nv + 1 offsets */
    uint32_t *adj;      /* 2 * ne neighbours */
    uint32_t *src, *dst; /* the input edges, for TEPS */
    uint64_t nloc;      /* vertices of this rank: v = l * size + rank */
    int64_t *parent;    /* [l], -1 when not reached */
    int32_t *level;     /* [l], -1 when not reached */
    uint32_t *cur, *next; /* frontiers, local indices */
    uint64_t ncur, nnext;
    int32_t depth;      /* the level being expanded */
    int markers;        /* end-of-level markers received in this level */
    long long k, since_drain;
    long long sent, received, bad_vertex, scanned;
    /* plain variant: the batch of sends */
    uint64_t batch_buf[BATCH][2];
    MPI_Request batch_req[BATCH];
    int batch_used;     /* slots of the batch taken */
    int blocking;       /* -b: MPI_Send instead */
    /* hand variant */
    int hand;
    bench_dbuf buf;
    MPI_Request *marker_req;
} bfs_state;

/* A bijection of [0, 2^scale): odd multipliers and right xorshifts within
 * the scale's bits, so that R-MAT's hubs (vertices with many zero bits) do
 * not all land on rank 0 under the cyclic distribution. */
static uint64_t scramble(uint64_t v, int scale)
{
    uint64_t mask = (1ULL << scale) - 1;
    int sh = scale / 2 + 1;
    v = (v * 0x9e3779b97f4a7c15ULL) & mask;
    v ^= v >> sh;
    v = (v * 0xbf58476d1ce4e5b9ULL) & mask;
    v ^= v >> sh;
    v = (v * 0x94d049bb133111ebULL) & mask;
    return v;
}

/* One R-MAT edge: each bit of (u, v) picks a quadrant with Graph500's
 * probabilities A 0.57, B 0.19, C 0.19, D 0.05. */
static void rmat_edge(uint64_t *rng, int scale, uint64_t *u, uint64_t *v)
{
    /* Thresholds out of 2^16 (0.57, 0.76, 0.95): four picks per draw. */
    enum { TA = 37356, TB = 49807, TC = 62259 };
    uint64_t a = 0, b = 0, bits = 0;
    for (int i = 0; i < scale; i++) {
        if (i % 4 == 0)
            bits = bench_rng_next(rng);
        unsigned r = (unsigned)(bits & 0xffff);
        bits >>= 16;
        int bu = r >= TB, bv = (r >= TA && r < TB) || r >= TC;
        a |= (uint64_t)bu << i;
        b |= (uint64_t)bv << i;
    }
    *u = scramble(a, scale);
    *v = scramble(b, scale);
}

static void build_graph(bfs_state *s, int edgefactor)
{
    uint64_t draws = s->nv * (uint64_t)edgefactor, rng = GRAPH_SEED;
    s->src = bench_xmalloc(KERNEL, draws * sizeof *s->src);
    s->dst = bench_xmalloc(KERNEL, draws * sizeof *s->dst);
    s->ne = 0;
    for (uint64_t i = 0; i < draws; i++) {
        uint64_t u, v;
        rmat_edge(&rng, s->scale, &u, &v);
        if (u == v)
            continue;
        s->src[s->ne] = (uint32_t)u;
        s->dst[s->ne] = (uint32_t)v;
        s->ne++;
    }
    s->row = calloc(s->nv + 1, sizeof *s->row);
    s->adj = bench_xmalloc(KERNEL, 2 * s->ne * sizeof *s->adj);
    if (!s->row)
        bench_fail(KERNEL, "out of memory for %llu vertices",
                   (unsigned long long)s->nv);
    for (uint64_t i = 0; i < s->ne; i++) {
        s->row[s->src[i] + 1]++;
        s->row[s->dst[i] + 1]++;
    }
    for (uint64_t v = 0; v < s->nv; v++)
        s->row[v + 1] += s->row[v];
    uint64_t *fill = bench_xmalloc(KERNEL, s->nv * sizeof *fill);
    memcpy(fill, s->row, s->nv * sizeof *fill);
    for (uint64_t i = 0; i < s->ne; i++) {
        s->adj[fill[s->src[i]]++] = s->dst[i];
        s->adj[fill[s->dst[i]]++] = s->src[i];
    }
    free(fill);
}

/* v, a vertex of this rank, reached from u in the level being expanded. */
static void visit(bfs_state *s, uint64_t v, uint64_t u)
{
    if (v >= s->nv || (int)(v % (uint64_t)s->size) != s->rank) {
        s->bad_vertex++;
        return;
    }
    uint64_t l = v / (uint64_t)s->size;
    if (s->parent[l] >= 0)
        return;
    s->parent[l] = (int64_t)u;
    s->level[l] = s->depth + 1;
    s->next[s->nnext++] = (uint32_t)l;
}

/* One received (v, u) or marker. */
static void apply(bfs_state *s, uint64_t v, uint64_t u)
{
    if (v == MARKER) {
        s->markers++;
        return;
    }
    s->received++;
    visit(s, v, u);
}

/* ---- plain: one MPI_Isend per message -------------------------------- */

static void drain(bfs_state *s)
{
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_VISIT, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        uint64_t m[2];
        MPI_Recv(m, 2, MPI_UINT64_T, st.MPI_SOURCE, TAG_VISIT,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        apply(s, m[0], m[1]);
    }
}

/* Sends (v, u) to dest: MPI_Isend in the next slot of the batch; a full
 * batch is tested, draining, until all its sends have completed. */
static void send_plain(bfs_state *s, int dest, uint64_t v, uint64_t u)
{
    if (s->blocking) {
        uint64_t m[2] = {v, u};
        MPI_Send(m, 2, MPI_UINT64_T, dest, TAG_VISIT, MPI_COMM_WORLD);
        goto sent;
    }
    if (s->batch_used == BATCH) {
        for (;;) {
            int flag;
            MPI_Testall(BATCH, s->batch_req, &flag, MPI_STATUSES_IGNORE);
            if (flag)
                break;
            drain(s);
        }
        s->batch_used = 0;
    }
    int slot = s->batch_used++;
    s->batch_buf[slot][0] = v;
    s->batch_buf[slot][1] = u;
    MPI_Isend(s->batch_buf[slot], 2, MPI_UINT64_T, dest, TAG_VISIT,
              MPI_COMM_WORLD, &s->batch_req[slot]);
sent:
    if (v == MARKER)
        return;
    s->sent++;
    if (++s->since_drain == s->k) {
        s->since_drain = 0;
        drain(s);
    }
}

static void end_level_plain(bfs_state *s)
{
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            send_plain(s, r, MARKER, 0);
    /* A blocking receive once there is nothing left to send, as a
     * programmer writes the final wait. */
    while (s->markers < s->size - 1) {
        uint64_t m[2];
        MPI_Recv(m, 2, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_VISIT,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        apply(s, m[0], m[1]);
    }
}

/* ---- hand: per-destination buffers ----------------------------------- */

static void receive_hand(bfs_state *s, int src, int tag)
{
    MPI_Status st;
    int got = bench_dbuf_recv(&s->buf, src, tag, &st);
    if (st.MPI_TAG == TAG_DONE) {
        s->markers++;
        return;
    }
    for (int i = 0; i + 1 < got; i += 2)
        apply(s, s->buf.in[i], s->buf.in[i + 1]);
}

static void drain_hand(bfs_state *s)
{
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        receive_hand(s, st.MPI_SOURCE, st.MPI_TAG);
    }
}

static void flush_hand(bfs_state *s, int dest)
{
    if (bench_dbuf_send(&s->buf, dest, TAG_VISIT))
        while (!bench_dbuf_ready(&s->buf, dest))
            drain_hand(s);
}

static void send_hand(bfs_state *s, int dest, uint64_t v, uint64_t u)
{
    uint64_t *item = bench_dbuf_item(&s->buf, dest);
    item[0] = v;
    item[1] = u;
    if (bench_dbuf_commit(&s->buf, dest))
        flush_hand(s, dest);
    s->sent++;
    if (++s->since_drain == s->k) {
        s->since_drain = 0;
        drain_hand(s);
    }
}

static void end_level_hand(bfs_state *s)
{
    static uint64_t marker = MARKER;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            flush_hand(s, r);
    for (int r = 0; r < s->size; r++)
        s->marker_req[r] = MPI_REQUEST_NULL;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            MPI_Isend(&marker, 1, MPI_UINT64_T, r, TAG_DONE, MPI_COMM_WORLD,
                      &s->marker_req[r]);
    while (s->markers < s->size - 1)
        receive_hand(s, MPI_ANY_SOURCE, MPI_ANY_TAG);
    MPI_Waitall(s->size, s->marker_req, MPI_STATUSES_IGNORE);
}

/* ---- the search -------------------------------------------------------- */

static void search(bfs_state *s, uint64_t root)
{
    for (uint64_t l = 0; l < s->nloc; l++) {
        s->parent[l] = -1;
        s->level[l] = -1;
    }
    s->ncur = 0;
    s->depth = 0;
    if ((int)(root % (uint64_t)s->size) == s->rank) {
        uint64_t l = root / (uint64_t)s->size;
        s->parent[l] = (int64_t)root;
        s->level[l] = 0;
        s->cur[s->ncur++] = (uint32_t)l;
    }
    long long frontier = 1;
    while (frontier > 0) {
        s->nnext = 0;
        s->markers = 0;
        for (uint64_t i = 0; i < s->ncur; i++) {
            uint64_t u = (uint64_t)s->cur[i] * (uint64_t)s->size +
                         (uint64_t)s->rank;
            for (uint64_t e = s->row[u]; e < s->row[u + 1]; e++) {
                uint64_t v = s->adj[e];
                int owner = (int)(v % (uint64_t)s->size);
                s->scanned++;
                if (owner == s->rank)
                    visit(s, v, u);
                else if (s->hand)
                    send_hand(s, owner, v, u);
                else
                    send_plain(s, owner, v, u);
            }
        }
        if (s->hand)
            end_level_hand(s);
        else
            end_level_plain(s);
        uint32_t *t = s->cur;
        s->cur = s->next;
        s->next = t;
        s->ncur = s->nnext;
        long long mine = (long long)s->nnext;
        MPI_Allreduce(&mine, &frontier, 1, MPI_LONG_LONG, MPI_SUM,
                      MPI_COMM_WORLD);
        s->depth++;
    }
    /* Every send has been received by now (each receiver held every
     * marker), so these complete. */
    if (s->hand)
        bench_dbuf_wait(&s->buf);
    else
        MPI_Waitall(BATCH, s->batch_req, MPI_STATUSES_IGNORE);
    s->batch_used = 0;
}

/* The serial search every rank runs on the whole graph: the levels (unique,
 * unlike the parents) into `levels`; returns the input edges of the
 * component searched (Graph500's count for TEPS). */
static uint64_t serial_levels(const bfs_state *s, uint64_t root,
                              int32_t *levels, uint32_t *queue)
{
    for (uint64_t v = 0; v < s->nv; v++)
        levels[v] = -1;
    uint64_t head = 0, tail = 0;
    levels[root] = 0;
    queue[tail++] = (uint32_t)root;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint64_t e = s->row[u]; e < s->row[u + 1]; e++)
            if (levels[s->adj[e]] < 0) {
                levels[s->adj[e]] = levels[u] + 1;
                queue[tail++] = s->adj[e];
            }
    }
    uint64_t edges = 0;
    for (uint64_t i = 0; i < s->ne; i++)
        edges += levels[s->src[i]] >= 0;
    return edges;
}

static int is_neighbour(const bfs_state *s, uint64_t v, uint64_t p)
{
    for (uint64_t e = s->row[v]; e < s->row[v + 1]; e++)
        if (s->adj[e] == p)
            return 1;
    return 0;
}

/* Checks this rank's part of the search from root against the serial
 * levels; failures go to bench_check_failed (at most a few lines). */
static void check_search(const bfs_state *s, uint64_t root,
                         const int32_t *levels)
{
    int reported = 0;
    for (uint64_t l = 0; l < s->nloc && reported < 5; l++) {
        uint64_t v = l * (uint64_t)s->size + (uint64_t)s->rank;
        int64_t p = s->parent[l];
        const char *why = NULL;
        if (s->level[l] != levels[v])
            why = "level differs from the serial search's";
        else if (levels[v] < 0)
            continue;
        else if (v == root && p != (int64_t)root)
            why = "the root is not its own parent";
        else if (v != root && (p < 0 || (uint64_t)p >= s->nv))
            why = "no valid parent";
        else if (v != root && levels[p] != levels[v] - 1)
            why = "parent not one level nearer the root";
        else if (v != root && !is_neighbour(s, v, (uint64_t)p))
            why = "parent is not a neighbour";
        if (why) {
            bench_check_failed(KERNEL, "root %llu: vertex %llu (level %d, "
                               "serial %d, parent %lld): %s",
                               (unsigned long long)root, (unsigned long long)v,
                               s->level[l], levels[v], (long long)p, why);
            reported++;
        }
    }
}

/* Roots: vertices with at least one edge, drawn from a seed every rank
 * shares. */
static uint64_t pick_root(const bfs_state *s, uint64_t *rng)
{
    for (;;) {
        uint64_t v = bench_rng_below(rng, s->nv);
        if (s->row[v + 1] > s->row[v])
            return v;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-s scale] [-e edge factor] [-n searches] "
                        "[-w warmup searches] [-k drain interval] [-b] [-H] "
                        "[-B bytes]";
    long long scale = -2, ef = 16, n = 4, warm = 1, k = 64, bufbytes = 16384;
    int hand = 0, blocking = 0, opt;
    while ((opt = getopt(argc, argv, "s:e:n:w:k:bHB:")) != -1) {
        if (opt == 's')
            scale = bench_parse_count(optarg, 1);
        else if (opt == 'e')
            ef = bench_parse_count(optarg, 1);
        else if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'k')
            k = bench_parse_count(optarg, 1);
        else if (opt == 'b')
            blocking = 1;
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bufbytes = bench_agg_parse_buffer(optarg, 16);
        else
            bench_usage(KERNEL, usage);
        if (scale == -1 || scale > 26 || ef == -1 || ef > 64 || n == -1 ||
            warm == -1 || k == -1 || bufbytes == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    if (scale == -2)
        scale = bench_oversubscribed() ? 10 : 16;

    bfs_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    s.scale = (int)scale;
    s.nv = 1ULL << scale;
    s.k = k;
    s.hand = hand;
    s.blocking = blocking;
    build_graph(&s, (int)ef);
    s.nloc = (s.nv + (uint64_t)(s.size - 1 - s.rank)) / (uint64_t)s.size;
    s.parent = bench_xmalloc(KERNEL, s.nloc * sizeof *s.parent);
    s.level = bench_xmalloc(KERNEL, s.nloc * sizeof *s.level);
    s.cur = bench_xmalloc(KERNEL, s.nloc * sizeof *s.cur);
    s.next = bench_xmalloc(KERNEL, s.nloc * sizeof *s.next);
    int32_t *levels = bench_xmalloc(KERNEL, s.nv * sizeof *levels);
    uint32_t *queue = bench_xmalloc(KERNEL, s.nv * sizeof *queue);
    for (int i = 0; i < BATCH; i++)
        s.batch_req[i] = MPI_REQUEST_NULL;
    if (hand) {
        bench_dbuf_init(&s.buf, KERNEL, s.rank, s.size, (int)(bufbytes / 16),
                        2);
        s.marker_req = bench_xmalloc(KERNEL, (size_t)s.size *
                                                 sizeof *s.marker_req);
    }

    uint64_t rng = GRAPH_SEED ^ 0x5bd1e995ULL;
    for (long long i = 0; i < warm; i++) {
        uint64_t root = pick_root(&s, &rng);
        search(&s, root);
        serial_levels(&s, root, levels, queue);
        check_search(&s, root, levels);
    }
    long long sent0 = s.sent, scanned0 = s.scanned;
    bench_clock total = {0};
    uint64_t component_edges = 0;
    for (long long i = 0; i < n; i++) {
        uint64_t root = pick_root(&s, &rng);
        bench_clock clk;
        bench_clock_start(&clk);
        search(&s, root);
        bench_clock_stop(&clk);
        total.seconds += clk.seconds;
        total.cpu_seconds += clk.cpu_seconds;
        component_edges += serial_levels(&s, root, levels, queue);
        check_search(&s, root, levels);
    }

    /* [0] sent, [1] received, [2] bad vertices, [3] edges scanned (timed) */
    long long mine[4] = {s.sent, s.received, s.bad_vertex,
                         s.scanned - scanned0}, sum[4];
    long long timed_sent = s.sent - sent0, messages;
    MPI_Allreduce(mine, sum, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&timed_sent, &messages, 1, MPI_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    if (s.rank == 0 && sum[0] != sum[1])
        bench_check_failed(KERNEL, "%lld messages sent, %lld received",
                           sum[0], sum[1]);
    if (s.bad_vertex)
        bench_check_failed(KERNEL, "%lld messages named a vertex of another "
                           "rank", s.bad_vertex);
    bench_verdict();

    /* The slowest rank's time is every rank's (barriers around each
     * search), so rank 0's sum is the job's. */
    double secs = total.seconds;
    char extra[320 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &total, BENCH_SIDE_BOTH, (double)messages);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d scale=%lld "
             "edgefactor=%lld n=%lld k=%lld%s msg_bytes=16 messages=%lld "
             "edges_scanned=%lld teps=%.6g seconds=%.4f%s",
             hand ? "hand" : blocking ? "blocking" : "plain", s.size, scale, ef, n, k,
             bench_agg_buffer_key(buffer, hand, bench_dbuf_bytes(&s.buf)),
             messages, sum[3], secs > 0 ? (double)component_edges / secs : 0,
             secs, cpu);
    bench_result(KERNEL, secs > 0 ? (double)messages / secs : 0, "msgs/s",
                 extra);
    free(s.row);
    free(s.adj);
    free(s.src);
    free(s.dst);
    free(s.parent);
    free(s.level);
    free(s.cur);
    free(s.next);
    free(levels);
    free(queue);
    if (hand) {
        bench_dbuf_free(&s.buf);
        free(s.marker_req);
    }
    MPI_Finalize();
    return 0;
}
