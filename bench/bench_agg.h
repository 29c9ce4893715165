/* bench_agg.h: what the hand-aggregated variants (-H) of the kernels share.
 *
 * A hand variant is what a programmer gets by rewriting a kernel's loop to
 * aggregate by hand: items (one or more 8-byte words each) are written in
 * place into a buffer per destination, and a buffer leaves as one MPI_Isend.
 * Two ways of doing so are here; each kernel says why it uses which.
 *
 * Pooled buffers (bench_pool, bench_outbox: histogram, index_gather).  A
 * destination's buffer is taken from the pool when its first item is
 * written.  bench_outbox_item() gives the place of the next item, the
 * kernel writes it there and bench_outbox_commit() counts it; the buffer
 * leaves at once when full, with the outbox's tag.  From its send on a
 * buffer belongs to MPI: nobody touches it until the send has completed,
 * then it is back in the pool.  Completions are looked for with MPI_Testsome
 * in bench_pool_reap(), which the kernel calls at each drain, and a new
 * buffer is allocated when none is free, so a rank never waits for a send
 * while a peer waits for it.  bench_outbox_flush() sends a destination's
 * partly filled buffer, or an empty one, with a tag of the kernel's choice:
 * the kernels make that last buffer their done marker, which MPI's
 * non-overtaking rule puts behind all the buffers before it.
 *
 * Double buffers (bench_dbuf: gups, alltoall_items).  Every destination
 * other than this rank owns two buffers for the whole run; one is filled
 * (bench_dbuf_item(), then bench_dbuf_commit(), which says when it is full)
 * while the other may be on its way.  bench_dbuf_send() sends the current
 * buffer, if it holds anything, and makes the other one current; that one
 * may be written again only once bench_dbuf_ready() says its previous send
 * has completed, and the kernel drains incoming buffers while it waits, so
 * two ranks sending to each other never wait for ever.  Markers, if any,
 * are the kernel's own messages.
 *
 * Receiving: a buffer holds at most the -B bytes; the receiver takes a
 * whole buffer (for double buffers into bench_dbuf's `in`, bench_dbuf_recv)
 * and learns its length from MPI_Get_count.
 *
 * Termination is the kernel's (see each one): a send completes only once
 * its receiver takes it, so the final bench_pool_complete() or
 * bench_dbuf_wait() comes after the rank has received everything addressed
 * to it, when every other rank is receiving too.
 */
#ifndef BENCH_AGG_H
#define BENCH_AGG_H

#include "bench_common.h"

/* -B: bytes of an aggregation buffer, at most 64 MiB in every kernel. */
#define BENCH_AGG_MAX_BUFFER (64LL * 1024 * 1024)

/* Parses -B: a count of `min` .. 64M bytes, K/M suffixes allowed; -1 on
 * anything else. */
static inline long long bench_agg_parse_buffer(const char *s, long long min)
{
    long long v = bench_parse_count(s, min);
    return v > BENCH_AGG_MAX_BUFFER ? -1 : v;
}

/* The options of the random-access kernels (gups, histogram, index_gather),
 * which take the same ones:
 *   -n  operations per rank in the timed section   -k  drain interval
 *   -t  table entries per rank                     -w  untimed operations
 *   -H  the hand-aggregated variant                -B  its buffer bytes
 * The caller sets every field to its default first, with n and warm at -2
 * ("not given"); those two are left at -2 for the caller to size (they
 * depend on bench_oversubscribed()).  A malformed or out-of-range value
 * ends the job with the usage line (bench_usage). */
typedef struct {
    long long n, k, t, warm, buffer;
    int hand;
} bench_access_opts;

static inline void bench_access_options(int argc, char **argv,
                                        const char *kernel, const char *usage,
                                        long long min_buffer,
                                        bench_access_opts *o)
{
    int opt;
    while ((opt = getopt(argc, argv, "n:k:t:w:HB:")) != -1) {
        if (opt == 'n')
            o->n = bench_parse_count(optarg, 1);
        else if (opt == 'k')
            o->k = bench_parse_count(optarg, 1);
        else if (opt == 't')
            o->t = bench_parse_count(optarg, 1);
        else if (opt == 'w')
            o->warm = bench_parse_count(optarg, 0);
        else if (opt == 'H')
            o->hand = 1;
        else if (opt == 'B')
            o->buffer = bench_agg_parse_buffer(optarg, min_buffer);
        else
            bench_usage(kernel, usage);
        if (o->n == -1 || o->k == -1 || o->t == -1 || o->t > (1LL << 31) ||
            o->warm == -1 || o->buffer == -1)
            bench_usage(kernel, usage);
    }
    if (optind != argc)
        bench_usage(kernel, usage);
}

/* The RESULT line's " buffer=<bytes>" of a hand variant, or "" for the
 * plain one; `key` has room for BENCH_AGG_KEY characters. */
#define BENCH_AGG_KEY 40
static inline const char *bench_agg_buffer_key(char *key, int hand,
                                               long long bytes)
{
    key[0] = '\0';
    if (hand)
        snprintf(key, BENCH_AGG_KEY, " buffer=%lld", bytes);
    return key;
}

/* malloc that ends the job when memory runs out. */
static inline void *bench_xmalloc(const char *kernel, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        bench_fail(kernel, "out of memory (%zu bytes)", n);
    return p;
}

/* ---- pooled buffers --------------------------------------------------- */

/* Buffers of `bytes` whose MPI_Isend is in flight (busy, with reqs), and
 * free ones. */
typedef struct {
    const char *kernel;
    size_t bytes;
    char **free_bufs;
    int nfree, cap_free;
    MPI_Request *reqs;
    char **busy;
    int *done_idx;
    int nbusy, cap_busy;
} bench_pool;

static inline void bench_pool_init(bench_pool *p, const char *kernel,
                                   size_t bytes)
{
    *p = (bench_pool){0};
    p->kernel = kernel;
    p->bytes = bytes;
}

static inline char *bench_pool_get(bench_pool *p)
{
    if (p->nfree > 0)
        return p->free_bufs[--p->nfree];
    return bench_xmalloc(p->kernel, p->bytes);
}

static inline void bench_pool_put(bench_pool *p, char *buf)
{
    if (p->nfree == p->cap_free) {
        p->cap_free = p->cap_free ? 2 * p->cap_free : 16;
        p->free_bufs = realloc(p->free_bufs,
                               (size_t)p->cap_free * sizeof *p->free_bufs);
        if (!p->free_bufs)
            bench_fail(p->kernel, "out of memory for the buffer pool");
    }
    p->free_bufs[p->nfree++] = buf;
}

/* Sends `bytes` of buf with MPI_Isend; buf returns to the pool once done. */
static inline void bench_pool_send(bench_pool *p, char *buf, int bytes,
                                   int dest, int tag)
{
    if (p->nbusy == p->cap_busy) {
        p->cap_busy = p->cap_busy ? 2 * p->cap_busy : 16;
        p->reqs = realloc(p->reqs, (size_t)p->cap_busy * sizeof *p->reqs);
        p->busy = realloc(p->busy, (size_t)p->cap_busy * sizeof *p->busy);
        p->done_idx = realloc(p->done_idx,
                              (size_t)p->cap_busy * sizeof *p->done_idx);
        if (!p->reqs || !p->busy || !p->done_idx)
            bench_fail(p->kernel, "out of memory for the buffer pool");
    }
    MPI_Isend(buf, bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD,
              &p->reqs[p->nbusy]);
    p->busy[p->nbusy++] = buf;
}

/* Returns the buffers of completed sends to the free list. */
static inline void bench_pool_reap(bench_pool *p)
{
    if (p->nbusy == 0)
        return;
    int outcount;
    MPI_Testsome(p->nbusy, p->reqs, &outcount, p->done_idx,
                 MPI_STATUSES_IGNORE);
    if (outcount == MPI_UNDEFINED || outcount == 0)
        return;
    for (int i = 0; i < outcount; i++) {
        bench_pool_put(p, p->busy[p->done_idx[i]]);
        p->busy[p->done_idx[i]] = NULL;
    }
    int j = 0;
    for (int i = 0; i < p->nbusy; i++)
        if (p->busy[i]) {
            p->busy[j] = p->busy[i];
            p->reqs[j] = p->reqs[i];
            j++;
        }
    p->nbusy = j;
}

/* Waits for every send in flight and returns its buffer to the pool: at the
 * end of a run, once everything addressed to this rank has arrived. */
static inline void bench_pool_complete(bench_pool *p)
{
    MPI_Waitall(p->nbusy, p->reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < p->nbusy; i++)
        bench_pool_put(p, p->busy[i]);
    p->nbusy = 0;
}

/* Frees the free buffers; call after bench_pool_complete(). */
static inline void bench_pool_free(bench_pool *p)
{
    for (int i = 0; i < p->nfree; i++)
        free(p->free_bufs[i]);
    free(p->free_bufs);
    free(p->reqs);
    free(p->busy);
    free(p->done_idx);
}

/* Per destination the pool buffer being filled with items of `words`
 * 8-byte words, `per` of them to a full buffer (the pool's bytes / item). */
typedef struct {
    bench_pool *pool;
    uint64_t **buf; /* per rank: the buffer being filled, or NULL */
    int *fill;      /* per rank: items in it */
    int words, per;
    int tag;        /* of a full buffer */
} bench_outbox;

static inline void bench_outbox_init(bench_outbox *o, bench_pool *pool,
                                     int size, int words, int tag)
{
    o->pool = pool;
    o->buf = calloc((size_t)size, sizeof *o->buf);
    o->fill = calloc((size_t)size, sizeof *o->fill);
    o->words = words;
    o->per = (int)(pool->bytes / ((size_t)words * sizeof(uint64_t)));
    o->tag = tag;
    if (!o->buf || !o->fill)
        bench_fail(pool->kernel, "out of memory for %d ranks", size);
}

/* Where dest's next item is to be written; bench_outbox_commit() then
 * counts it. */
static inline uint64_t *bench_outbox_item(bench_outbox *o, int dest)
{
    if (!o->buf[dest])
        o->buf[dest] = (uint64_t *)bench_pool_get(o->pool);
    return o->buf[dest] + (size_t)o->words * (size_t)o->fill[dest];
}

/* Sends dest's buffer, full or not (an empty one from the pool when it has
 * none), with `tag`. */
static inline void bench_outbox_flush(bench_outbox *o, int dest, int tag)
{
    char *buf = o->buf[dest] ? (char *)o->buf[dest] : bench_pool_get(o->pool);
    bench_pool_send(o->pool, buf,
                    o->fill[dest] * o->words * (int)sizeof(uint64_t), dest,
                    tag);
    o->buf[dest] = NULL;
    o->fill[dest] = 0;
}

/* Counts the item just written at bench_outbox_item(o, dest); a full buffer
 * leaves at once with the outbox's tag. */
static inline void bench_outbox_commit(bench_outbox *o, int dest)
{
    if (++o->fill[dest] == o->per)
        bench_outbox_flush(o, dest, o->tag);
}

/* Frees the per-rank arrays; the buffers belong to the pool. */
static inline void bench_outbox_free(bench_outbox *o)
{
    free(o->buf);
    free(o->fill);
}

/* ---- double buffers --------------------------------------------------- */

/* Per destination two buffers of `per` items of `words` 8-byte words,
 * out[2 * r + b]; the one being filled is cur[r], with used[r] items; `in`
 * holds one incoming buffer. */
typedef struct {
    int size;
    int per, words;
    uint64_t **out;
    MPI_Request *req; /* per buffer, like out */
    int *cur, *used;
    uint64_t *in;
} bench_dbuf;

static inline void bench_dbuf_init(bench_dbuf *d, const char *kernel,
                                   int rank, int size, int per, int words)
{
    size_t bytes = (size_t)per * (size_t)words * sizeof(uint64_t);
    d->size = size;
    d->per = per;
    d->words = words;
    d->out = calloc(2 * (size_t)size, sizeof *d->out);
    d->req = malloc(2 * (size_t)size * sizeof *d->req);
    d->cur = calloc((size_t)size, sizeof *d->cur);
    d->used = calloc((size_t)size, sizeof *d->used);
    d->in = malloc(bytes);
    if (!d->out || !d->req || !d->cur || !d->used || !d->in)
        bench_fail(kernel, "out of memory for %d ranks' buffers", size);
    for (int b = 0; b < 2 * size; b++) {
        d->req[b] = MPI_REQUEST_NULL;
        if (b / 2 != rank && !(d->out[b] = malloc(bytes)))
            bench_fail(kernel, "out of memory for %d ranks' buffers", size);
    }
}

/* Bytes of one buffer, for the RESULT line. */
static inline long long bench_dbuf_bytes(const bench_dbuf *d)
{
    return (long long)d->per * d->words * (long long)sizeof(uint64_t);
}

/* Where dest's next item is to be written; bench_dbuf_commit() then counts
 * it. */
static inline uint64_t *bench_dbuf_item(bench_dbuf *d, int dest)
{
    return d->out[2 * dest + d->cur[dest]] +
           (size_t)d->words * (size_t)d->used[dest];
}

/* Counts the item just written; returns 1 when that filled the buffer, which
 * the kernel then sends (bench_dbuf_send) before writing to dest again. */
static inline int bench_dbuf_commit(bench_dbuf *d, int dest)
{
    return ++d->used[dest] == d->per;
}

/* Sends dest's current buffer with MPI_Isend if it holds anything and makes
 * the other one current; returns 0 when there was nothing to send.  The
 * kernel must not write to dest before bench_dbuf_ready(d, dest). */
static inline int bench_dbuf_send(bench_dbuf *d, int dest, int tag)
{
    int b = 2 * dest + d->cur[dest];
    if (d->used[dest] == 0)
        return 0;
    MPI_Isend(d->out[b], d->used[dest] * d->words, MPI_UINT64_T, dest, tag,
              MPI_COMM_WORLD, &d->req[b]);
    d->cur[dest] ^= 1;
    d->used[dest] = 0;
    return 1;
}

/* MPI_Test on the previous send of dest's current buffer: 1 once it may be
 * written again. */
static inline int bench_dbuf_ready(bench_dbuf *d, int dest)
{
    int flag;
    MPI_Test(&d->req[2 * dest + d->cur[dest]], &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* Receives one buffer from src (or MPI_ANY_SOURCE) with tag (or
 * MPI_ANY_TAG) into d->in; returns the 8-byte words it holds. */
static inline int bench_dbuf_recv(bench_dbuf *d, int src, int tag,
                                  MPI_Status *st)
{
    int got;
    MPI_Recv(d->in, d->per * d->words, MPI_UINT64_T, src, tag, MPI_COMM_WORLD,
             st);
    MPI_Get_count(st, MPI_UINT64_T, &got);
    return got;
}

/* Waits for every send: at the end of a run, once everything addressed to
 * this rank has arrived. */
static inline void bench_dbuf_wait(bench_dbuf *d)
{
    MPI_Waitall(2 * d->size, d->req, MPI_STATUSES_IGNORE);
}

static inline void bench_dbuf_free(bench_dbuf *d)
{
    if (d->out)
        for (int b = 0; b < 2 * d->size; b++)
            free(d->out[b]);
    free(d->out);
    free(d->req);
    free(d->cur);
    free(d->used);
    free(d->in);
}

#endif
