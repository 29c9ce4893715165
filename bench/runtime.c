/* runtime: a message-driven runtime's MPI layer, each message
 * one MPI message.
 *
 * Usage: runtime [-n items per rank] [-k sends per pass] [-t table entries]
 *                [-w warmup items per rank] [-q request percent]
 *                [-A some|any] [-R ring receives] [-H] [-B bytes]
 *   -n  items (updates and requests) each rank sends in the timed section
 *       (default 1000000, or 3000 when ranks outnumber cores)
 *   -k  items sent between two scheduler passes (default 1)
 *   -t  table entries per rank, K/M suffixes allowed (default 64K)
 *   -w  untimed items per rank first (default 1000, or 100 when ranks
 *       outnumber cores)
 *   -q  percent of the items that are requests (default 25)
 *   -A  the active-message layer's receive side (below) instead of the
 *       probing one: a ring of pre-posted MPI_Irecv polled with
 *       MPI_Testsome (some) or MPI_Testany (any)
 *   -R  receives in that ring (default 64)
 *   -H  hand-aggregated variant (below): the runtime's aggregation library
 *   -B  bytes of a hand-aggregation buffer, 256 .. 64M (default 16K)
 *
 * The shape is that of a widely used runtime's MPI machine layer: every
 * message is an MPI_Isend of 64 to 256 bytes (uniform, in steps of 8) from
 * a buffer malloc'ed for it, on a duplicate of MPI_COMM_WORLD, and the
 * buffer is kept until its request completes.  The layer keeps the
 * outstanding send requests in a list of at most 200 (a send when the list
 * is full first runs scheduler passes until an entry has gone; sends made
 * by message handlers are never held back, as in the runtime) and calls
 * MPI_Test on every one of them in every scheduler pass, freeing the
 * buffers of those that completed.  It never pre-posts a receive: a pass
 * first polls MPI_Iprobe(MPI_ANY_SOURCE, tag) until a probe misses, and
 * receives each hit with MPI_Get_count, a malloc of that size and an
 * MPI_Recv from the probed source, then runs the message's handler.
 *
 * The work: each rank sends -n items to uniformly random other ranks,
 * running a scheduler pass every -k sends.  An item is an update (the
 * index of an entry of the receiver's table, incremented by its handler)
 * or, -q percent of the time, a request, whose handler sends back a reply
 * (64 to 256 bytes) carrying a value computed from the index and the
 * replying rank, which the requester checks.  Every byte after an item's
 * 24-byte header is a function of its index and position, checked too.
 * Termination: a rank that has sent its items sends every other rank a
 * done item carrying how many items it sent there, and runs passes until
 * it has every done item, exactly that many items from each rank, and a
 * reply to each of its requests; then until its send list is empty.  No
 * message order is assumed (the ring of -A completes out of order).
 *
 * -A: an active-message layer's receive side: a ring of R receives of
 * MPI_ANY_SOURCE, each into a buffer of the largest message, posted at the
 * start of a run; a pass calls MPI_Testsome on the ring (or MPI_Testany
 * until it finds nothing), runs the handler of each message, and posts
 * that receive again.  At the end of a run the ring is cancelled
 * (MPI_Cancel, MPI_Wait).  Sends are as above.
 *
 * -H: what the runtime's aggregation library does: items (header included)
 * are appended to a buffer of B bytes per destination, which leaves as one
 * MPI_Isend (through the same send list) when the next item does not fit;
 * a rank that has finished its items sends every partly filled buffer in
 * each pass (handlers still produce replies).  Receivers take a buffer the
 * same way (probe or ring of B-byte receives) and run every item in it.
 *
 * Checks: per (source, destination) the updates received equal those sent
 * (exchanged with MPI_Alltoall), the table's sums (bench_check_updates), no
 * corrupt item, every reply right.  rate = messages (updates, requests and
 * replies; not the done items) per second over all ranks.
 */
#include "bench_agg.h"

#include <unistd.h>

#define KERNEL "runtime"
#define TAG_MSG 11
#define SEND_LIST_MAX 200
#define ITEM_MIN 64
#define ITEM_MAX 256

enum { ITEM_UPDATE = 1, ITEM_REQUEST, ITEM_REPLY, ITEM_DONE };

typedef struct {
    uint16_t type;
    uint16_t len;   /* the item's bytes, header included */
    uint32_t src;
    uint64_t index;
    uint64_t value; /* reply: the answer; done: the items sent there */
} item_hdr;

typedef struct {
    void *buf;
    MPI_Request req;
} pending_send;

typedef struct {
    int rank, size;
    MPI_Comm comm;
    int hand, am, am_any, ring;
    long long buffer;
    int request_pct;
    uint64_t table_size;
    uint64_t *table;
    long long *sent_to, *recv_from; /* updates per rank, over every run */
    uint64_t index_sum_sent;
    long long bad_index, bad_items, bad_replies;
    uint64_t rng;
    /* outstanding sends */
    pending_send *sends;
    int nsends, sends_cap;
    /* this run's termination counts */
    long long *items_to, *items_from, *done_count;
    int dones;
    long long requests, replies;
    long long messages;   /* updates, requests and replies sent this run */
    int finished_work;
    /* -H: the buffer being filled per destination */
    char **out;
    int *used;
    /* -A: the ring */
    char *ring_bufs;
    int ring_bytes;
    MPI_Request *ring_reqs;
    int *ring_idx;
    MPI_Status *ring_sts;
} rt_state;

static uint64_t reply_value(uint64_t index, int responder)
{
    return bench_mix(index ^ ((uint64_t)(unsigned)responder << 40));
}

static unsigned char filler(uint64_t index, int j)
{
    return (unsigned char)(index * 13u + (unsigned)j * 7u);
}

/* --- sending ----------------------------------------------------------- */

static void send_list_push(rt_state *s, void *buf, MPI_Request req)
{
    if (s->nsends == s->sends_cap) {
        s->sends_cap = s->sends_cap ? 2 * s->sends_cap : 256;
        s->sends = realloc(s->sends, sizeof *s->sends * (size_t)s->sends_cap);
        if (!s->sends)
            bench_fail(KERNEL, "out of memory for the send list");
    }
    s->sends[s->nsends].buf = buf;
    s->sends[s->nsends].req = req;
    s->nsends++;
}

static void isend_buffer(rt_state *s, void *buf, int bytes, int dest)
{
    MPI_Request req;
    MPI_Isend(buf, bytes, MPI_BYTE, dest, TAG_MSG, s->comm, &req);
    send_list_push(s, buf, req);
}

/* MPI_Test on every outstanding send, freeing the buffers of those done. */
static void test_sends(rt_state *s)
{
    for (int i = 0; i < s->nsends;) {
        int flag;
        MPI_Test(&s->sends[i].req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            free(s->sends[i].buf);
            s->sends[i] = s->sends[--s->nsends];
        } else {
            i++;
        }
    }
}

static void write_item(char *p, int type, int len, int src, uint64_t index,
                       uint64_t value)
{
    item_hdr h = {(uint16_t)type, (uint16_t)len, (uint32_t)src, index, value};
    memcpy(p, &h, sizeof h);
    for (int j = (int)sizeof h; j < len; j++)
        p[j] = (char)filler(index, j);
}

static void hand_ship(rt_state *s, int dest)
{
    if (!s->used[dest])
        return;
    isend_buffer(s, s->out[dest], s->used[dest], dest);
    s->out[dest] = bench_xmalloc(KERNEL, (size_t)s->buffer);
    s->used[dest] = 0;
}

static void send_item(rt_state *s, int dest, int type, uint64_t index,
                      uint64_t value)
{
    int len = type == ITEM_DONE
                  ? (int)sizeof(item_hdr)
                  : ITEM_MIN + 8 * (int)bench_rng_below(
                                       &s->rng, (ITEM_MAX - ITEM_MIN) / 8 + 1);
    if (type != ITEM_DONE)
        s->messages++;
    if (s->hand) {
        if (s->used[dest] + len > s->buffer)
            hand_ship(s, dest);
        write_item(s->out[dest] + s->used[dest], type, len, s->rank, index,
                   value);
        s->used[dest] += len;
        return;
    }
    char *buf = bench_xmalloc(KERNEL, (size_t)len);
    write_item(buf, type, len, s->rank, index, value);
    isend_buffer(s, buf, len, dest);
}

/* --- handlers ---------------------------------------------------------- */

static void handle_item(rt_state *s, const char *p, int len)
{
    item_hdr h;
    if (len < (int)sizeof h) {
        s->bad_items++;
        return;
    }
    memcpy(&h, p, sizeof h);
    int src = (int)h.src;
    if (h.len != len || src < 0 || src >= s->size || src == s->rank) {
        s->bad_items++;
        return;
    }
    for (int j = (int)sizeof h; j < len; j++)
        if ((unsigned char)p[j] != filler(h.index, j)) {
            s->bad_items++;
            return;
        }
    switch (h.type) {
    case ITEM_UPDATE:
        if (h.index < s->table_size)
            s->table[h.index]++;
        else
            s->bad_index++;
        s->recv_from[src]++;
        s->items_from[src]++;
        break;
    case ITEM_REQUEST:
        s->items_from[src]++;
        send_item(s, src, ITEM_REPLY, h.index, reply_value(h.index, s->rank));
        break;
    case ITEM_REPLY:
        s->replies++;
        if (h.value != reply_value(h.index, src))
            s->bad_replies++;
        break;
    case ITEM_DONE:
        s->done_count[src] = (long long)h.value;
        s->dones++;
        break;
    default:
        s->bad_items++;
    }
}

/* One received MPI message: an item, or (-H) a buffer of them. */
static void handle_message(rt_state *s, const char *p, int bytes)
{
    if (!s->hand) {
        handle_item(s, p, bytes);
        return;
    }
    while (bytes >= (int)sizeof(item_hdr)) {
        item_hdr h;
        memcpy(&h, p, sizeof h);
        if (h.len < sizeof h || h.len > bytes)
            break;
        handle_item(s, p, h.len);
        p += h.len;
        bytes -= h.len;
    }
    if (bytes)
        s->bad_items++;
}

/* --- receiving --------------------------------------------------------- */

/* MPI_Iprobe(MPI_ANY_SOURCE) until it misses; each hit received into a
 * buffer malloc'ed for it. */
static void probe_poll(rt_state *s)
{
    for (;;) {
        int flag, bytes;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_MSG, s->comm, &flag, &st);
        if (!flag)
            return;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        char *buf = bench_xmalloc(KERNEL, (size_t)bytes);
        MPI_Recv(buf, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_MSG, s->comm,
                 MPI_STATUS_IGNORE);
        handle_message(s, buf, bytes);
        free(buf);
    }
}

static char *ring_buf(rt_state *s, int i)
{
    return s->ring_bufs + (size_t)i * (size_t)s->ring_bytes;
}

static void ring_post(rt_state *s, int i)
{
    MPI_Irecv(ring_buf(s, i), s->ring_bytes, MPI_BYTE, MPI_ANY_SOURCE,
              TAG_MSG, s->comm, &s->ring_reqs[i]);
}

static void ring_take(rt_state *s, int i, MPI_Status *st)
{
    int bytes;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    handle_message(s, ring_buf(s, i), bytes);
    ring_post(s, i);
}

/* The ring polled with MPI_Testsome, or MPI_Testany, until it finds
 * nothing. */
static void ring_poll(rt_state *s)
{
    for (;;) {
        if (s->am_any) {
            int idx, flag;
            MPI_Status st;
            MPI_Testany(s->ring, s->ring_reqs, &idx, &flag, &st);
            if (!flag || idx == MPI_UNDEFINED)
                return;
            ring_take(s, idx, &st);
        } else {
            int outcount;
            MPI_Testsome(s->ring, s->ring_reqs, &outcount, s->ring_idx,
                         s->ring_sts);
            if (outcount == 0 || outcount == MPI_UNDEFINED)
                return;
            for (int j = 0; j < outcount; j++)
                ring_take(s, s->ring_idx[j], &s->ring_sts[j]);
        }
    }
}

static void ring_cancel(rt_state *s)
{
    for (int i = 0; i < s->ring; i++) {
        MPI_Status st;
        int cancelled;
        MPI_Cancel(&s->ring_reqs[i]);
        MPI_Wait(&s->ring_reqs[i], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled) /* every message was accounted for already */
            bench_check_failed(KERNEL, "a ring receive took a message "
                               "after the run had everything");
    }
}

/* --- the scheduler ----------------------------------------------------- */

static void pass(rt_state *s)
{
    if (s->am)
        ring_poll(s);
    else
        probe_poll(s);
    test_sends(s);
    if (s->hand && s->finished_work)
        for (int r = 0; r < s->size; r++)
            hand_ship(s, r);
}

static int run_complete(const rt_state *s)
{
    if (s->dones < s->size - 1 || s->replies < s->requests)
        return 0;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank && s->items_from[r] != s->done_count[r])
            return 0;
    return 1;
}

static void run(rt_state *s, long long n, long long k)
{
    memset(s->items_to, 0, sizeof *s->items_to * (size_t)s->size);
    memset(s->items_from, 0, sizeof *s->items_from * (size_t)s->size);
    memset(s->done_count, 0, sizeof *s->done_count * (size_t)s->size);
    s->dones = 0;
    s->requests = s->replies = s->messages = 0;
    s->finished_work = 0;
    if (s->am)
        for (int i = 0; i < s->ring; i++)
            ring_post(s, i);
    for (long long i = 0; i < n; i++) {
        while (s->nsends >= SEND_LIST_MAX)
            pass(s);
        int dest = (int)bench_rng_below(&s->rng, (uint64_t)(s->size - 1));
        if (dest >= s->rank)
            dest++;
        uint64_t idx = bench_rng_below(&s->rng, s->table_size);
        if ((int)bench_rng_below(&s->rng, 100) < s->request_pct) {
            send_item(s, dest, ITEM_REQUEST, idx, 0);
            s->requests++;
        } else {
            send_item(s, dest, ITEM_UPDATE, idx, 0);
            s->sent_to[dest]++;
            s->index_sum_sent += idx;
        }
        s->items_to[dest]++;
        if ((i + 1) % k == 0)
            pass(s);
    }
    for (int r = 0; r < s->size; r++)
        if (r != s->rank)
            send_item(s, r, ITEM_DONE, 0, (uint64_t)s->items_to[r]);
    s->finished_work = 1;
    while (!run_complete(s))
        pass(s);
    while (s->nsends > 0)
        pass(s);
    if (s->am)
        ring_cancel(s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n items per rank] [-k sends per pass] "
                        "[-t table entries] [-w warmup items per rank] "
                        "[-q request percent] [-A some|any] "
                        "[-R ring receives] [-H] [-B bytes]";
    long long n = -2, k = 1, t = 64 * 1024, warm = -2, bbytes = 16384;
    long long q = 25, ring = 64;
    int hand = 0, am = 0, am_any = 0, opt;
    while ((opt = getopt(argc, argv, "n:k:t:w:q:A:R:HB:")) != -1) {
        if (opt == 'n')
            n = bench_parse_count(optarg, 1);
        else if (opt == 'k')
            k = bench_parse_count(optarg, 1);
        else if (opt == 't')
            t = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            warm = bench_parse_count(optarg, 0);
        else if (opt == 'q')
            q = bench_parse_count(optarg, 0);
        else if (opt == 'R')
            ring = bench_parse_count(optarg, 1);
        else if (opt == 'A') {
            am = 1;
            if (!strcmp(optarg, "any"))
                am_any = 1;
            else if (strcmp(optarg, "some"))
                bench_usage(KERNEL, usage);
        } else if (opt == 'H')
            hand = 1;
        else if (opt == 'B')
            bbytes = bench_agg_parse_buffer(optarg, ITEM_MAX);
        else
            bench_usage(KERNEL, usage);
        if (n == -1 || k == -1 || t == -1 || t > (1LL << 31) || warm == -1 ||
            q == -1 || q > 100 || ring == -1 || ring > 65536 || bbytes == -1)
            bench_usage(KERNEL, usage);
    }
    if (optind != argc)
        bench_usage(KERNEL, usage);
    if (n == -2 || warm == -2) {
        int over = bench_oversubscribed();
        if (n == -2)
            n = over ? 3000 : 1000000;
        if (warm == -2)
            warm = over ? 100 : 1000;
    }

    rt_state s = {0};
    s.rank = bench_rank();
    s.size = bench_size();
    bench_require_two_ranks(KERNEL);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
    s.hand = hand;
    s.am = am;
    s.am_any = am_any;
    s.ring = (int)ring;
    s.buffer = bbytes;
    s.request_pct = (int)q;
    s.table_size = (uint64_t)t;
    s.table = calloc((size_t)t, sizeof *s.table);
    size_t per_rank = sizeof(long long) * (size_t)s.size;
    s.sent_to = calloc(1, per_rank);
    s.recv_from = calloc(1, per_rank);
    s.items_to = calloc(1, per_rank);
    s.items_from = calloc(1, per_rank);
    s.done_count = calloc(1, per_rank);
    if (!s.table || !s.sent_to || !s.recv_from || !s.items_to ||
        !s.items_from || !s.done_count)
        bench_fail(KERNEL, "out of memory for a table of %lld entries", t);
    if (hand) {
        s.out = bench_xmalloc(KERNEL, sizeof *s.out * (size_t)s.size);
        s.used = calloc((size_t)s.size, sizeof *s.used);
        for (int r = 0; r < s.size; r++)
            s.out[r] = bench_xmalloc(KERNEL, (size_t)bbytes);
    }
    if (am) {
        s.ring_bytes = hand ? (int)bbytes : ITEM_MAX;
        s.ring_bufs = bench_xmalloc(KERNEL, (size_t)s.ring * s.ring_bytes);
        s.ring_reqs = bench_xmalloc(KERNEL, sizeof *s.ring_reqs * s.ring);
        s.ring_idx = bench_xmalloc(KERNEL, sizeof *s.ring_idx * s.ring);
        s.ring_sts = bench_xmalloc(KERNEL, sizeof *s.ring_sts * s.ring);
    }
    s.rng = 0x6a09e667f3bcc908ULL ^ ((uint64_t)s.rank << 32);

    if (warm > 0)
        run(&s, warm, k);
    bench_clock clk;
    bench_clock_start(&clk);
    run(&s, n, k);
    double elapsed = bench_clock_stop(&clk);

    bench_check_updates(KERNEL, s.sent_to, s.recv_from, s.bad_index, s.table,
                        s.table_size, s.index_sum_sent);
    if (s.bad_items)
        bench_check_failed(KERNEL, "%lld items arrived corrupt", s.bad_items);
    if (s.bad_replies)
        bench_check_failed(KERNEL, "%lld replies carried a wrong value",
                           s.bad_replies);
    bench_verdict();

    long long total = 0;
    MPI_Allreduce(&s.messages, &total, 1, MPI_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    char extra[240 + BENCH_CPU_KEY], buffer[BENCH_AGG_KEY];
    char cpu[BENCH_CPU_KEY];
    bench_cpu_key(cpu, &clk, BENCH_SIDE_BOTH, (double)total);
    snprintf(extra, sizeof extra,
             " variant=%s recv=%s ranks=%d n=%lld k=%lld table=%lld "
             "requests=%lld%%%s seconds=%.4f%s",
             hand ? "hand" : "plain",
             !am ? "iprobe" : am_any ? "testany" : "testsome", s.size, n, k,
             t, q, bench_agg_buffer_key(buffer, hand, bbytes), elapsed, cpu);
    bench_result(KERNEL, (double)total / elapsed, "msgs/s", extra);
    if (hand) {
        for (int r = 0; r < s.size; r++)
            free(s.out[r]);
        free(s.out);
        free(s.used);
    }
    free(s.ring_bufs);
    free(s.ring_reqs);
    free(s.ring_idx);
    free(s.ring_sts);
    free(s.sends);
    free(s.table);
    free(s.sent_to);
    free(s.recv_from);
    free(s.items_to);
    free(s.items_from);
    free(s.done_count);
    MPI_Comm_free(&s.comm);
    MPI_Finalize();
    return 0;
}
