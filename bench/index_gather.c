/* index_gather: bale's ig, request and reply with one MPI_Send each.
 *
 * Usage: index_gather [-n requests per rank] [-k drain interval]
 *                     [-t table entries] [-w warmup requests per rank]
 *                     [-H] [-B bytes]
 *   -n  requests each rank makes in the timed section (default 2000000, or
 *       1000 when ranks outnumber cores)
 *   -k  requests sent between two drains of incoming messages (default 64)
 *   -t  table entries per rank, K/M suffixes allowed (default 64K)
 *   -w  untimed requests per rank first, so connections exist (default
 *       1000, or 100 when ranks outnumber cores)
 *   -H  hand-aggregated variant (below) instead of one message per request
 *       and per reply
 *   -B  bytes of a hand-aggregation buffer, 16 .. 64M (default 16K); only
 *       with -H
 *
 * Every rank owns a table whose entry i on rank o holds value(o, i), a
 * mixing function of both, and serves requests from the table.  Request j
 * of a rank asks a uniformly random rank (this one included, as in bale)
 * for a random entry: it sends {index, j} (16 bytes) with MPI_Send, and the
 * owner answers with MPI_Send of {j, value} (16 bytes); the requester stores
 * the value in slot j.  Every k requests a rank drains what has arrived with
 * MPI_Iprobe(MPI_ANY_SOURCE) + MPI_Recv, serving requests and storing
 * replies; after its last request it keeps draining until all its replies
 * are in.  Termination: it then enters MPI_Ibarrier and keeps serving
 * requests, testing the barrier with MPI_Test, until the barrier completes.
 * The barrier completes only when every rank holds all its replies, so no
 * request is left unanswered and no message is in flight.
 *
 * Hand variant (-H), what a programmer gets by rewriting the loop: requests
 * are appended to a per-owner buffer of B bytes and replies to a
 * per-requester buffer of B bytes; a full buffer leaves with MPI_Isend.
 * After its last request a rank sends every owner, itself included, its
 * last (perhaps empty) request buffer with its own tag; an owner that has
 * served such a buffer sends that requester the rest of its replies with
 * their own tag.  A rank's replies are all in when it holds the last reply
 * buffer of every rank (non-overtaking puts it behind the others); then it
 * enters the barrier as above.  A buffer is reused once its send has
 * completed (MPI_Testsome at each drain; a new one is allocated when none
 * is free), so a rank never blocks in a send (the pooled buffers of
 * bench_agg.h, one pool for both kinds).
 *
 * Checks: every slot received exactly one reply, the reply to a slot came
 * from the rank it asked, and its value equals value(owner, index) (the
 * requests are regenerated from the random stream to check).
 * rate = requests/s over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "index_gather"
#define TAG_REQ 1
#define TAG_REPLY 2
#define TAG_REQ_LAST 3   /* hand: a requester's last buffer to an owner */
#define TAG_REPLY_LAST 4 /* hand: an owner's last buffer to a requester */

typedef struct {
    int rank, size;
    int hand;
    uint64_t table_size;
    uint64_t *table;      /* entry i holds value(rank, i) */
    uint64_t rng;
    /* this run */
    long long n;
    uint64_t *result;     /* per slot: the value replied */
    int *from;            /* per slot: the rank that replied */
    unsigned char *got;   /* per slot: replies, saturating */
    long long replies;    /* slots answered */
    long long served;     /* requests served, over all runs */
    long long bad_index, bad_slot;
    int last_replies;     /* hand: last reply buffers this run */
    /* hand variant */
    int per_buf;          /* 16-byte items per buffer */
    uint64_t *rbuf;       /* one incoming buffer */
    bench_pool pool;      /* the buffers of both outboxes */
    bench_outbox req_out, rep_out;
} ig_state;

static uint64_t value(uint64_t owner, uint64_t index)
{
    return bench_mix((owner << 40) ^ index ^ 0x5be0cd19137e2179ULL);
}

/* Hand: appends the 16-byte item {a, b} to peer's buffer in o. */
static void hand_append(bench_outbox *o, int peer, uint64_t a, uint64_t b)
{
    uint64_t *item = bench_outbox_item(o, peer);
    item[0] = a;
    item[1] = b;
    bench_outbox_commit(o, peer);
}

static void store_reply(ig_state *s, uint64_t slot, uint64_t v, int src)
{
    if (slot >= (uint64_t)s->n) {
        s->bad_slot++;
        return;
    }
    if (s->got[slot] == 0) {
        s->result[slot] = v;
        s->from[slot] = src;
        s->replies++;
    }
    if (s->got[slot] < 255)
        s->got[slot]++;
}

static uint64_t lookup(ig_state *s, uint64_t index)
{
    if (index >= s->table_size) {
        s->bad_index++;
        return 0;
    }
    return s->table[index];
}

/* Plain: serves or stores one 16-byte message. */
static void plain_receive(ig_state *s, int src, int tag)
{
    uint64_t m[2];
    MPI_Status st;
    MPI_Recv(m, 2, MPI_UINT64_T, src, tag, MPI_COMM_WORLD, &st);
    if (tag == TAG_REQ) {
        uint64_t reply[2] = {m[1], lookup(s, m[0])};
        MPI_Send(reply, 2, MPI_UINT64_T, src, TAG_REPLY, MPI_COMM_WORLD);
        s->served++;
    } else {
        store_reply(s, m[0], m[1], src);
    }
}

/* Hand: serves or stores one buffer of 16-byte items. */
static void hand_receive(ig_state *s, int src, int tag)
{
    MPI_Status st;
    int count;
    MPI_Recv(s->rbuf, 2 * s->per_buf, MPI_UINT64_T, src, tag, MPI_COMM_WORLD,
             &st);
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    if (tag == TAG_REQ || tag == TAG_REQ_LAST) {
        for (int i = 0; i + 1 < count; i += 2)
            hand_append(&s->rep_out, src, s->rbuf[i + 1],
                        lookup(s, s->rbuf[i]));
        s->served += count / 2;
        if (tag == TAG_REQ_LAST)
            bench_outbox_flush(&s->rep_out, src, TAG_REPLY_LAST);
    } else {
        for (int i = 0; i + 1 < count; i += 2)
            store_reply(s, s->rbuf[i], s->rbuf[i + 1], src);
        s->last_replies += tag == TAG_REPLY_LAST;
    }
}

/* Serves requests and stores replies until nothing more has arrived. */
static void drain(ig_state *s)
{
    if (s->hand)
        bench_pool_reap(&s->pool);
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        if (s->hand)
            hand_receive(s, st.MPI_SOURCE, st.MPI_TAG);
        else
            plain_receive(s, st.MPI_SOURCE, st.MPI_TAG);
    }
}

static int all_replies_in(const ig_state *s)
{
    return s->hand ? s->last_replies == s->size : s->replies == s->n;
}

/* Makes n requests; returns the generator's state before the first, so
 * that check() can regenerate them. */
static uint64_t run(ig_state *s, long long n, long long k)
{
    uint64_t start = s->rng;
    s->n = n;
    s->replies = 0;
    s->last_replies = 0;
    memset(s->got, 0, (size_t)n);
    for (long long j = 0; j < n; j++) {
        int owner = (int)bench_rng_below(&s->rng, (uint64_t)s->size);
        uint64_t index = bench_rng_below(&s->rng, s->table_size);
        if (s->hand) {
            hand_append(&s->req_out, owner, index, (uint64_t)j);
        } else {
            uint64_t req[2] = {index, (uint64_t)j};
            MPI_Send(req, 2, MPI_UINT64_T, owner, TAG_REQ, MPI_COMM_WORLD);
        }
        if ((j + 1) % k == 0)
            drain(s);
    }
    if (s->hand)
        for (int r = 0; r < s->size; r++)
            bench_outbox_flush(&s->req_out, r, TAG_REQ_LAST);
    while (!all_replies_in(s))
        drain(s);
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    for (;;) {
        int flag;
        MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
        if (flag)
            break;
        drain(s);
    }
    /* Every receiver has taken everything: these complete at once. */
    if (s->hand)
        bench_pool_complete(&s->pool);
    return start;
}

/* Regenerates the requests of the last run and checks every reply. */
static void check(ig_state *s, uint64_t start)
{
    uint64_t rng = start;
    long long missing = 0, duplicate = 0, wrong = 0;
    for (long long j = 0; j < s->n; j++) {
        int owner = (int)bench_rng_below(&rng, (uint64_t)s->size);
        uint64_t index = bench_rng_below(&rng, s->table_size);
        if (s->got[j] == 0)
            missing++;
        else if (s->got[j] > 1)
            duplicate++;
        else if (s->from[j] != owner ||
                 s->result[j] != value((uint64_t)owner, index))
            wrong++;
    }
    if (missing || duplicate || wrong)
        bench_check_failed(KERNEL, "of %lld requests, %lld got no reply, "
                           "%lld several, %lld a wrong value or owner",
                           s->n, missing, duplicate, wrong);
    if (s->bad_index || s->bad_slot)
        bench_check_failed(KERNEL, "%lld requests named an entry outside the "
                           "table, %lld replies a slot never asked",
                           s->bad_index, s->bad_slot);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n requests per rank] [-k drain interval] "
                        "[-t table entries] [-w warmup requests per rank] "
                        "[-H] [-B bytes]";
    bench_access_opts o = {.n = -2, .k = 64, .t = 64 * 1024, .warm = -2,
                           .buffer = 16384};
    bench_access_options(argc, argv, KERNEL, usage, 16, &o);
    long long n = o.n, k = o.k, t = o.t, warm = o.warm, bbytes = o.buffer;
    int hand = o.hand;
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 1000 : 2000000;
        if (warm == -2)
            warm = over ? 100 : 1000;
    }

    ig_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    s.hand = hand;
    s.table_size = (uint64_t)t;
    s.table = bench_xmalloc(KERNEL, (size_t)t * sizeof *s.table);
    for (uint64_t i = 0; i < s.table_size; i++)
        s.table[i] = value((uint64_t)s.rank, i);
    long long slots = n > warm ? n : warm;
    s.result = bench_xmalloc(KERNEL, (size_t)slots * sizeof *s.result);
    s.from = bench_xmalloc(KERNEL, (size_t)slots * sizeof *s.from);
    s.got = bench_xmalloc(KERNEL, (size_t)slots);
    s.per_buf = (int)(bbytes / (long long)(2 * sizeof(uint64_t)));
    if (hand) {
        bench_pool_init(&s.pool, KERNEL,
                        (size_t)s.per_buf * 2 * sizeof(uint64_t));
        s.rbuf = bench_xmalloc(KERNEL, s.pool.bytes);
        bench_outbox_init(&s.req_out, &s.pool, s.size, 2, TAG_REQ);
        bench_outbox_init(&s.rep_out, &s.pool, s.size, 2, TAG_REPLY);
    }
    s.rng = 0xa54ff53a5f1d36f1ULL ^ ((uint64_t)s.rank << 32);

    if (warm > 0)
        check(&s, run(&s, warm, k));
    long long served_warm = s.served;
    bench_clock clk;
    bench_clock_start(&clk);
    uint64_t start = run(&s, n, k);
    double elapsed = bench_clock_stop(&clk);

    check(&s, start);
    /* Requests served over all ranks equal requests made. */
    long long local[2] = {s.served - served_warm, n}, global[2];
    MPI_Reduce(local, global, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s.rank == 0 && global[0] != global[1])
        bench_check_failed(KERNEL, "%lld requests served, %lld made",
                           global[0], global[1]);
    bench_verdict();

    double total = (double)s.size * (double)n;
    char extra[200 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, total);
    snprintf(extra, sizeof extra, " variant=%s ranks=%d n=%lld k=%lld "
             "table=%lld%s seconds=%.4f%s", hand ? "hand" : "plain", s.size, n,
             k, t, bench_agg_buffer_key(buffer, hand, (long long)s.pool.bytes),
             elapsed, cpu);
    bench_result(KERNEL, total / elapsed, "msgs/s", extra);
    if (hand) {
        bench_pool_free(&s.pool);
        free(s.rbuf);
        bench_outbox_free(&s.req_out);
        bench_outbox_free(&s.rep_out);
    }
    free(s.table);
    free(s.result);
    free(s.from);
    free(s.got);
    MPI_Finalize();
    return 0;
}
