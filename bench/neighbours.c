/* neighbours: the sparse neighbour exchange of the Nek5000 crystal-router
 * benchmark (docs/performance.md, Kernels): each rank exchanges messages with
 * up to 26 partners chosen with a stride, as spectral elements do with the
 * 26 elements around them.
 *
 * Usage: neighbours [-n iterations] [-s bytes] [-c partners] [-d stride]
 *                   [-w warmup iterations] [-H] [-B bytes]
 *   -n  timed iterations (default: 4000000 messages sent per rank, that is
 *       4000000 / partners iterations, or 100 iterations when ranks
 *       outnumber cores)
 *   -s  bytes of every message, a multiple of 8, 8 .. 4M (default 8, the
 *       benchmark's shortest and headline case; it runs 8 B to 128 KB)
 *   -c  partners per rank before deduplication, 1 .. 26 (default 26): the
 *       offsets of {-1,0,1}^3 \ {0} in the order faces, edges, corners, each
 *       with its opposite next to it
 *   -d  stride: an offset is scaled by d in every dimension (default 1)
 *   -w  untimed iterations first (default 100, or 10 when ranks outnumber
 *       cores)
 *   -H  crystal-router variant (below) instead of one message per partner
 *   -B  bytes of a crystal-router message, 64 .. 64M (default 16K); only
 *       with -H
 *
 * Ranks sit on a periodic 3-D grid from MPI_Dims_create (row-major, the
 * last dimension fastest), so every rank has the same partners as in the
 * benchmark, where each process talks to its 26 nearest neighbours.  A rank
 * sends to position + d*o and receives from position - d*o for each chosen
 * offset o, wrapping around.  On small or flat grids (P = 2..8 gives 2x1x1,
 * 3x1x1, 2x2x1, ...) several offsets land on the same rank or on the rank
 * itself: each distinct other rank is a partner once, and the rank itself is
 * none.  Per iteration: MPI_Irecv from every source partner, MPI_Isend to
 * every destination partner, MPI_Waitall.
 *
 * Crystal-router variant (-H), the benchmark's reference aggregation: every
 * iteration, all of a rank's messages, each with a 16-byte header {dest,
 * source, iteration, bytes}, go through log2(P) stages as in Nek5000's
 * gslib crystal router.  The ranks [lo, lo + n) of a stage split into a
 * lower half of ceil(n/2) and an upper half; each rank sends its mirror
 * image in the other half (lo + n - 1 - (r - lo)) every message bound for
 * the other half and keeps the rest.  With n odd the middle rank has no
 * mirror: it sends to the first rank of the upper half, which then
 * receives from two ranks.  Each half then goes on alone, until every rank
 * is alone with the messages for itself.  A stage's data travels as
 * MPI_Isend messages of B bytes, the last shorter than B (perhaps empty),
 * so the receiver knows where it ends.
 *
 * Every message carries a word derived from (source, destination,
 * iteration) and one from its position in every 8 bytes.  Checks: every
 * message arrived exactly once per iteration from each source partner, with
 * the right size and content; over all ranks, the messages received equal
 * the messages sent.
 * rate = messages (neighbour messages delivered)/s over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "neighbours"
#define TAG_EXCHANGE 1
#define TAG_STAGE 2
#define MAX_MESSAGE (4LL * 1024 * 1024)
#define HEADER_WORDS 2

typedef struct {
    int rank, size;
    int dims[3], coords[3];
    int *dest, ndest;  /* distinct partners this rank sends to */
    int *src, nsrc;    /* distinct partners this rank receives from */
    int words;         /* 8-byte words per message */
    long long bad;     /* messages wrong in any way */
    long long received;
    /* plain */
    uint64_t **sbuf, **rbuf;
    MPI_Request *reqs;
    /* crystal router */
    int hand;
    long long chunk;           /* -B */
    int *src_slot;             /* per rank: index in src[], or -1 */
    long long *src_last;       /* per source partner: iteration last seen */
    uint64_t *one;             /* one message being built */
    uint64_t *keep, *next;     /* messages kept, messages to send */
    size_t nkeep, nnext, cap_keep, cap_next;
    char *in;                  /* a stage's incoming data */
    size_t cap_in;
    MPI_Request *sreqs;
    int cap_sreqs;
} nb_state;

/* The 26 offsets, faces first, then edges, then corners, each followed by
 * its opposite, so an even -c gives a symmetric pattern. */
static int offsets[26][3];

static void make_offsets(void)
{
    int n = 0;
    for (int nonzero = 1; nonzero <= 3; nonzero++)
        for (int x = -1; x <= 1; x++)
            for (int y = -1; y <= 1; y++)
                for (int z = -1; z <= 1; z++) {
                    int nz = (x != 0) + (y != 0) + (z != 0);
                    if (nz != nonzero)
                        continue;
                    /* the first of each opposite pair is the one whose first
                     * nonzero coordinate is negative */
                    int first = x ? x : y ? y : z;
                    if (first > 0)
                        continue;
                    int o[3] = {x, y, z};
                    for (int sign = 1; sign >= -1; sign -= 2) {
                        for (int i = 0; i < 3; i++)
                            offsets[n][i] = sign * o[i];
                        n++;
                    }
                }
}

static void *xmalloc(size_t n)
{
    return bench_xmalloc(KERNEL, n);
}

static int wrap(long long v, int n)
{
    long long r = v % n;
    return (int)(r < 0 ? r + n : r);
}

/* The rank at this rank's position + sign * stride * offset. */
static int shifted(const nb_state *s, const int o[3], int sign, int stride)
{
    int r = 0;
    for (int i = 0; i < 3; i++)
        r = r * s->dims[i] +
            wrap(s->coords[i] + (long long)sign * stride * o[i], s->dims[i]);
    return r;
}

/* Adds r to list (of length *n) unless it is this rank or already there. */
static void add_partner(const nb_state *s, int *list, int *n, int r)
{
    if (r == s->rank)
        return;
    for (int i = 0; i < *n; i++)
        if (list[i] == r)
            return;
    list[(*n)++] = r;
}

static void make_partners(nb_state *s, int count, int stride)
{
    MPI_Dims_create(s->size, 3, s->dims);
    for (int i = 2, r = s->rank; i >= 0; i--) {
        s->coords[i] = r % s->dims[i];
        r /= s->dims[i];
    }
    s->dest = xmalloc(26 * sizeof *s->dest);
    s->src = xmalloc(26 * sizeof *s->src);
    for (int i = 0; i < count; i++) {
        add_partner(s, s->dest, &s->ndest, shifted(s, offsets[i], 1, stride));
        add_partner(s, s->src, &s->nsrc, shifted(s, offsets[i], -1, stride));
    }
}

static uint64_t message_word(int src, int dst, long long iter)
{
    return bench_mix(((uint64_t)src << 44) ^ ((uint64_t)dst << 24) ^
                     (uint64_t)iter);
}

static void fill(uint64_t *m, int words, int src, int dst, long long iter)
{
    uint64_t w = message_word(src, dst, iter);
    for (int j = 0; j < words; j++)
        m[j] = w + (uint64_t)j * 0x9e3779b97f4a7c15ULL;
}

/* Returns 1 when m is the message src sends to dst in iteration iter. */
static int matches(const uint64_t *m, int words, int src, int dst,
                   long long iter)
{
    uint64_t w = message_word(src, dst, iter);
    for (int j = 0; j < words; j++)
        if (m[j] != w + (uint64_t)j * 0x9e3779b97f4a7c15ULL)
            return 0;
    return 1;
}

/* One iteration, one message per partner. */
static void plain_iteration(nb_state *s, long long iter)
{
    int nreq = 0;
    for (int i = 0; i < s->nsrc; i++)
        MPI_Irecv(s->rbuf[i], s->words, MPI_UINT64_T, s->src[i],
                  TAG_EXCHANGE, MPI_COMM_WORLD, &s->reqs[nreq++]);
    for (int i = 0; i < s->ndest; i++) {
        fill(s->sbuf[i], s->words, s->rank, s->dest[i], iter);
        MPI_Isend(s->sbuf[i], s->words, MPI_UINT64_T, s->dest[i],
                  TAG_EXCHANGE, MPI_COMM_WORLD, &s->reqs[nreq++]);
    }
    MPI_Waitall(nreq, s->reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < s->nsrc; i++)
        s->bad += !matches(s->rbuf[i], s->words, s->src[i], s->rank, iter);
    s->received += s->nsrc;
}

/* Crystal router: appends one message (header + words) to a list. */
static void list_append(uint64_t **list, size_t *n, size_t *cap,
                        const uint64_t *m, size_t words)
{
    if (*n + words > *cap) {
        size_t c = *cap ? *cap : 1024;
        while (c < *n + words)
            c *= 2;
        *list = realloc(*list, c * sizeof **list);
        if (!*list)
            bench_fail(KERNEL, "out of memory for the crystal router");
        *cap = c;
    }
    memcpy(*list + *n, m, words * sizeof **list);
    *n += words;
}

static void deliver(nb_state *s, const uint64_t *m, long long iter)
{
    int src = (int)(m[1] & 0xffffffffu);
    long long it = (long long)(m[0] >> 32);
    long long words = (long long)(m[1] >> 32);
    int slot = src >= 0 && src < s->size ? s->src_slot[src] : -1;
    if (slot < 0 || it != (iter & 0xffffffff) || words != s->words ||
        s->src_last[slot] == iter ||
        !matches(m + HEADER_WORDS, s->words, src, s->rank, iter)) {
        s->bad++;
        return;
    }
    s->src_last[slot] = iter;
    s->received++;
}

/* Sends data as messages of `chunk` bytes, the last one shorter. */
static int send_stage(nb_state *s, const char *data, size_t bytes, int dest)
{
    size_t chunk = (size_t)s->chunk;
    int n = (int)(bytes / chunk) + 1;
    if (n > s->cap_sreqs) {
        s->cap_sreqs = n;
        s->sreqs = realloc(s->sreqs, (size_t)n * sizeof *s->sreqs);
        if (!s->sreqs)
            bench_fail(KERNEL, "out of memory for the crystal router");
    }
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)i * chunk;
        int len = (int)(bytes - off < chunk ? bytes - off : chunk);
        MPI_Isend(data + off, len, MPI_BYTE, dest, TAG_STAGE, MPI_COMM_WORLD,
                  &s->sreqs[i]);
    }
    return n;
}

/* Receives one stage's data from src, appending it to s->in. */
static void recv_stage(nb_state *s, int src, size_t *len)
{
    size_t chunk = (size_t)s->chunk;
    for (;;) {
        if (*len + chunk > s->cap_in) {
            size_t c = s->cap_in ? s->cap_in : chunk;
            while (c < *len + chunk)
                c *= 2;
            s->in = realloc(s->in, c);
            if (!s->in)
                bench_fail(KERNEL, "out of memory for the crystal router");
            s->cap_in = c;
        }
        MPI_Status st;
        int got;
        MPI_Recv(s->in + *len, (int)chunk, MPI_BYTE, src, TAG_STAGE,
                 MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        *len += (size_t)got;
        if ((size_t)got < chunk)
            return;
    }
}

/* Moves the kept messages bound for ranks [lo, hi) into s->next. */
static void split_kept(nb_state *s, int lo, int hi)
{
    size_t msg = (size_t)HEADER_WORDS + (size_t)s->words, j = 0;
    s->nnext = 0;
    for (size_t i = 0; i < s->nkeep; i += msg) {
        int dst = (int)(s->keep[i] & 0xffffffffu);
        if (dst >= lo && dst < hi)
            list_append(&s->next, &s->nnext, &s->cap_next, s->keep + i, msg);
        else {
            if (j != i)
                memmove(s->keep + j, s->keep + i, msg * sizeof *s->keep);
            j += msg;
        }
    }
    s->nkeep = j;
}

/* One iteration through the crystal router. */
static void hand_iteration(nb_state *s, long long iter)
{
    size_t msg = (size_t)HEADER_WORDS + (size_t)s->words;
    s->nkeep = 0;
    uint64_t *m = s->one;
    for (int i = 0; i < s->ndest; i++) {
        m[0] = (uint64_t)(uint32_t)s->dest[i] |
               ((uint64_t)(iter & 0xffffffff) << 32);
        m[1] = (uint64_t)(uint32_t)s->rank | ((uint64_t)s->words << 32);
        fill(m + HEADER_WORDS, s->words, s->rank, s->dest[i], iter);
        list_append(&s->keep, &s->nkeep, &s->cap_keep, m, msg);
    }

    int lo = 0, n = s->size, id = s->rank;
    while (n > 1) {
        int nl = (n + 1) / 2, mid = lo + nl; /* upper half: [mid, lo + n) */
        int upper = id >= mid;
        int partner = lo + n - 1 - (id - lo), nrecv = 1;
        if (partner == id) { /* the middle of an odd range */
            partner = mid;
            nrecv = 0;
        }
        if ((n & 1) && id == mid)
            nrecv = 2;
        /* what is bound for the other half leaves */
        if (upper)
            split_kept(s, lo, mid);
        else
            split_kept(s, mid, lo + n);
        int nsend = send_stage(s, (const char *)s->next,
                               s->nnext * sizeof *s->next, partner);
        size_t len = 0;
        if (nrecv >= 1)
            recv_stage(s, lo + n - 1 - (id - lo), &len);
        if (nrecv == 2)
            recv_stage(s, mid - 1, &len); /* the middle rank */
        MPI_Waitall(nsend, s->sreqs, MPI_STATUSES_IGNORE);
        /* what arrived is either for this rank or stays for later stages */
        if (len % (msg * sizeof(uint64_t)) != 0)
            bench_fail(KERNEL, "stage data of %zu bytes is not a whole "
                       "number of messages", len);
        const uint64_t *in = (const uint64_t *)s->in;
        for (size_t i = 0; i < len / sizeof(uint64_t); i += msg) {
            if ((int)(in[i] & 0xffffffffu) == id)
                deliver(s, in + i, iter);
            else
                list_append(&s->keep, &s->nkeep, &s->cap_keep, in + i, msg);
        }
        if (upper) {
            lo = mid;
            n -= nl;
        } else {
            n = nl;
        }
    }
    /* alone: everything kept is for this rank */
    for (size_t i = 0; i < s->nkeep; i += msg) {
        if ((int)(s->keep[i] & 0xffffffffu) == id)
            deliver(s, s->keep + i, iter);
        else
            s->bad++;
    }
    s->nkeep = 0;
    for (int i = 0; i < s->nsrc; i++)
        if (s->src_last[i] != iter) {
            s->bad++;
            s->src_last[i] = iter; /* count a missing message once */
        }
}

static void run(nb_state *s, long long first, long long n)
{
    for (long long iter = first; iter < first + n; iter++) {
        if (s->hand)
            hand_iteration(s, iter);
        else
            plain_iteration(s, iter);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n iterations] [-s bytes] [-c partners] "
                        "[-d stride] [-w warmup iterations] [-H] [-B bytes]";
    /* -2: not given; -1: malformed */
    long long n = -2, bytes = 8, count = 26, stride = 1, warm = -2;
    long long bbytes = 16 * 1024;
    int hand = 0, opt;
    while ((opt = getopt(argc, argv, "n:s:c:d:w:HB:")) != -1) {
        if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 's')
            bytes = bench_parse_count(optarg, 8);
        else if (opt == 'c')
            count = bench_parse_count(optarg, 1);
        else if (opt == 'd')
            stride = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bbytes = bench_agg_parse_buffer(optarg, 64);
        else
            bench_usage(KERNEL, usage);
        if (n == -1 || bytes == -1 || bytes % 8 != 0 || bytes > MAX_MESSAGE ||
            count == -1 || count > 26 || stride == -1 || stride > (1 << 20) ||
            warm == -1 || bbytes == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    nb_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    s.words = (int)(bytes / 8);
    s.hand = hand;
    s.chunk = bbytes;
    make_offsets();
    make_partners(&s, (int)count, (int)stride);
    int any_partner;
    MPI_Allreduce(&s.ndest, &any_partner, 1, MPI_INT, MPI_MAX,
                  MPI_COMM_WORLD);
    if (!any_partner) {
        if (s.rank == 0)
            fprintf(stderr, "%s: with %d ranks on a %dx%dx%d grid every "
                    "offset times stride %lld lands on the rank itself\n",
                    KERNEL, s.size, s.dims[0], s.dims[1], s.dims[2], stride);
        MPI_Finalize();
        exit(2);
    }
    /* On a periodic grid every rank has as many partners as any other, so
     * the default iteration count is the same everywhere. */
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2) {
            n = over ? 100 : 4000000 / (s.ndest > 0 ? s.ndest : 1);
            n = n > 0 ? n : 1;
        }
        if (warm == -2)
            warm = over ? 10 : 100;
    }
    if (hand) {
        s.src_slot = xmalloc((size_t)s.size * sizeof *s.src_slot);
        s.src_last = xmalloc((size_t)s.nsrc * sizeof *s.src_last);
        s.one = xmalloc((size_t)(HEADER_WORDS + s.words) * sizeof *s.one);
        for (int r = 0; r < s.size; r++)
            s.src_slot[r] = -1;
        for (int i = 0; i < s.nsrc; i++) {
            s.src_slot[s.src[i]] = i;
            s.src_last[i] = -1;
        }
    } else {
        s.sbuf = xmalloc((size_t)s.ndest * sizeof *s.sbuf);
        s.rbuf = xmalloc((size_t)s.nsrc * sizeof *s.rbuf);
        s.reqs = xmalloc((size_t)(s.ndest + s.nsrc) * sizeof *s.reqs);
        for (int i = 0; i < s.ndest; i++)
            s.sbuf[i] = xmalloc((size_t)bytes);
        for (int i = 0; i < s.nsrc; i++)
            s.rbuf[i] = xmalloc((size_t)bytes);
    }

    run(&s, 0, warm);
    long long received_warm = s.received;
    bench_clock clk;
    bench_clock_start(&clk);
    run(&s, warm, n);
    double elapsed = bench_clock_stop(&clk);

    if (s.bad)
        bench_check_failed(KERNEL, "%lld messages were wrong, duplicated, "
                           "misaddressed or missing", s.bad);
    if (s.received != (long long)s.nsrc * (warm + n))
        bench_check_failed(KERNEL, "%lld messages arrived, expected %lld",
                           s.received, (long long)s.nsrc * (warm + n));
    /* local: messages sent and received in the timed section */
    long long local[2] = {(long long)s.ndest * n, s.received - received_warm};
    long long global[2];
    MPI_Allreduce(local, global, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (s.rank == 0 && global[0] != global[1])
        bench_check_failed(KERNEL, "%lld messages sent, %lld received",
                           global[0], global[1]);
    bench_verdict();

    double msgs = (double)global[1];
    char extra[300 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, msgs);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d grid=%dx%dx%d n=%lld "
             "bytes=%lld partners=%lld stride=%lld messages_per_iter=%lld "
             "bytes_per_s=%.6g%s seconds=%.4f%s", hand ? "hand" : "plain",
             s.size, s.dims[0], s.dims[1], s.dims[2], n, bytes, count, stride,
             global[1] / n, msgs * (double)bytes / elapsed,
             bench_agg_buffer_key(buffer, hand, bbytes), elapsed, cpu);
    bench_result(KERNEL, msgs / elapsed, "msgs/s", extra);
    if (hand) {
        free(s.src_slot);
        free(s.src_last);
        free(s.one);
        free(s.keep);
        free(s.next);
        free(s.in);
        free(s.sreqs);
    } else {
        for (int i = 0; i < s.ndest; i++)
            free(s.sbuf[i]);
        for (int i = 0; i < s.nsrc; i++)
            free(s.rbuf[i]);
        free(s.sbuf);
        free(s.rbuf);
        free(s.reqs);
    }
    free(s.dest);
    free(s.src);
    MPI_Finalize();
    return 0;
}
