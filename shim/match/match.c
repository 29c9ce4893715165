#include "shim/match/match.h"
#include "shim/transport/transport.h"
#include "shim/progress/credit.h"
#include "shim/base/fail.h"
#include <stdlib.h>

match_msg *match_find_unexpected(comm_rec *c, int src, int tag, int take)
{
    if (c->runs)
        match_runs_expand(c);
    match_msg **link = &c->unx_head;
    for (match_msg *m = c->unx_head; m; link = &m->next, m = m->next) {
        if (!match_fits(src, tag, m->src, m->tag))
            continue;
        if (take) {
            *link = m->next;
            if (!m->next)
                c->unx_tail = link;
        }
        return m;
    }
    return NULL;
}

void match_push_unexpected(comm_rec *c, match_msg *m)
{
    m->next = NULL;
    *c->unx_tail = m;
    c->unx_tail = &m->next;
}

/* Whether the item with header h may join a run on communicator `comm`: a
 * plain eager message for this rank on it.  Without a branch: run_end
 * tests a stride of items at once. */
static int run_continues(const rt_item_hdr *h, uint32_t comm)
{
    return ((int)h->dst == omni.job.rank) &
           (rt_meta_kind(h->meta) == RT_EAGER) & (h->comm == comm);
}

/* Whether the item at `at` continues a run on `comm` with a payload of
 * `len` bytes. */
static int run_continues_alike(const char *at, uint32_t len, uint32_t comm)
{
    rt_item_hdr h;
    rt_hdr_read(at, &h);
    return run_continues(&h, comm) & (h.len == len);
}

/* Items of one size that run_end tests at once. */
#define RUN_STRIDE 8

/* Where the run on `comm` whose head ends at `stop` ends, at or before
 * `end`, the end of the block, which its items fill exactly; the run's
 * items after its head are added to *n.  Each item that continues the run is
 * followed by as many as continue it with its size, tested RUN_STRIDE at
 * a time, then one at a time: their places are known before their
 * headers are read, so the reads do not wait for one another, and a
 * stride costs one branch.  Item by item each read waits for the length
 * read before it, and a stream's receiver spent a fifth of its time so
 * (docs/design/architecture.md).  Strides start once two items of one
 * size follow each other: a head followed by an item that does not
 * continue its run (in a relay's block, say) costs one read, and items
 * whose sizes alternate two a message. */
static const char *run_end(uint32_t comm, const char *stop, const char *end,
                           uint32_t *n)
{
    while (stop < end) {
        rt_item_hdr next;
        rt_hdr_read(stop, &next);
        if (!run_continues(&next, comm))
            break;
        size_t size = rt_item_size(&next);
        stop += size;
        ++*n;
        if (stop == end || !run_continues_alike(stop, next.len, comm))
            continue; /* sizes that change item by item: no stride */
        stop += size;
        ++*n;
        while ((size_t)(end - stop) >= RUN_STRIDE * size) {
            int all = 1;
            for (int i = 0; i < RUN_STRIDE; i++)
                all &= run_continues_alike(stop + i * size, next.len, comm);
            if (!all)
                break;
            stop += RUN_STRIDE * size;
            *n += RUN_STRIDE;
        }
        while (stop < end && run_continues_alike(stop, next.len, comm)) {
            stop += size;
            ++*n;
        }
    }
    return stop;
}

size_t match_run_queue(comm_rec *c, const rt_item_hdr *h, const char *at,
                       omni_block *b, uint32_t *items)
{
    uint32_t n = 1;
    const char *stop =
        run_end(h->comm, at + rt_item_size(h), b->data + b->len, &n);
    size_t len = (size_t)(stop - at);
    const char *start = at;
    match_msg *m = match_msg_alloc();
    m->block = transport_hold_item(b, &start, len);
    match_describe_eager(m, c, h, start + RT_HDR_SIZE);
    m->run.next = start + rt_item_size(h);
    m->run.end = start + len;
    if (n > 1)
        c->runs++;
    match_push_unexpected(c, m);
    *items = n;
    return len;
}

void match_runs_expand(comm_rec *c)
{
    for (match_msg *m = c->unx_head; m && c->runs; m = m->next) {
        if (!rt_kind_is_eager(m->kind) || m->run.next == m->run.end)
            continue;
        const char *at = m->run.next, *end = m->run.end;
        m->run.next = m->run.end = NULL;
        c->runs--;
        while (at < end) {
            rt_item_hdr h;
            rt_hdr_read(at, &h);
            match_msg *q = match_msg_alloc();
            match_describe_eager(q, c, &h, at + RT_HDR_SIZE);
            q->run.next = q->run.end = NULL;
            q->block = transport_block_ref(m->block);
            q->next = m->next;
            m->next = q;
            if (!q->next)
                c->unx_tail = &q->next;
            m = q;
            at += rt_item_size(&h);
        }
    }
}

match_recv *match_take_posted(comm_rec *c, int src, int tag)
{
    match_recv **link = &c->posted_head;
    for (match_recv *r = c->posted_head; r; link = &r->next, r = r->next) {
        if (!match_fits(r->src, r->tag, src, tag))
            continue;
        *link = r->next;
        if (!r->next)
            c->posted_tail = link;
        return r;
    }
    return NULL;
}

void match_post(comm_rec *c, match_recv *r)
{
    r->next = NULL;
    *c->posted_tail = r;
    c->posted_tail = &r->next;
}

int match_unpost(comm_rec *c, match_recv *r)
{
    for (match_recv **link = &c->posted_head; *link; link = &(*link)->next) {
        if (*link != r)
            continue;
        *link = r->next;
        if (!r->next)
            c->posted_tail = link;
        return 0;
    }
    return -1;
}

/* Records come in slabs so that a queue of a million unexpected messages
 * costs a million list pushes, not a million mallocs.  Slabs live until
 * MPI_Finalize (match_release_slabs); the free lists recycle their records. */
#define MATCH_SLAB 256

static void *slab_new(size_t size, const char *what)
{
    void **slab = malloc(sizeof(void *) + size * MATCH_SLAB);
    if (!slab)
        omni_out_of_memory(what);
    *slab = omni.match.slabs;
    omni.match.slabs = slab;
    return slab + 1;
}

void match_release_slabs(void)
{
    while (omni.match.slabs) {
        void **slab = omni.match.slabs;
        omni.match.slabs = *slab;
        free(slab);
    }
    omni.match.free_msgs = NULL;
    omni.match.free_recvs = NULL;
}

void match_msgs_refill(void)
{
    match_msg *m = slab_new(sizeof *m, "unexpected messages");
    for (int i = 0; i < MATCH_SLAB - 1; i++)
        m[i].next = &m[i + 1];
    m[MATCH_SLAB - 1].next = NULL;
    omni.match.free_msgs = m;
}

__attribute__((noinline)) int match_settle_rest(uint32_t src, int credit_due,
                                               omni_block *b)
{
    if (credit_due)
        credit_return(src);
    if (b)
        transport_block_unref(b);
    return MPI_SUCCESS;
}

match_recv *match_recv_alloc(void)
{
    match_recv *r = omni.match.free_recvs;
    if (!r) {
        r = slab_new(sizeof *r, "receives");
        for (int i = 0; i < MATCH_SLAB - 1; i++)
            r[i].next = &r[i + 1];
        r[MATCH_SLAB - 1].next = NULL;
    }
    omni.match.free_recvs = r->next;
    return r;
}

void match_recv_free(match_recv *r)
{
    r->next = omni.match.free_recvs;
    omni.match.free_recvs = r;
}

/* Withdraws the early payload receive of a message that no receive will
 * take (its communicator was freed, or the job ends), and frees its
 * buffer. */
static void drop_early(match_msg *m)
{
    if (m->early_req != MPI_REQUEST_NULL) { /* else read early: it is in */
        PMPI_Cancel(&m->early_req);
        PMPI_Wait(&m->early_req, MPI_STATUS_IGNORE);
    }
    free(m->early);
    m->early = NULL;
    match_early_return(omni_early_charge(m->bytes));
}

long match_drop_unexpected(comm_rec *c)
{
    if (c->runs)
        match_runs_expand(c);
    long n = 0;
    while (c->unx_head) {
        match_msg *m = c->unx_head;
        c->unx_head = m->next;
        if (m->kind == RT_LARGE && m->early)
            drop_early(m);
        m->early_serial = 0; /* no early read of a message dropped */
        match_msg_free(m);
        n++;
    }
    c->unx_tail = &c->unx_head;
    return n;
}
