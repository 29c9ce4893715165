#include "shim/match/match.h"
#include "shim/transport/transport.h"
#include "shim/progress/credit.h"
#include "shim/base/fail.h"
#include <stdlib.h>

match_msg *match_find_unexpected(comm_rec *c, int src, int tag, int take)
{
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
    PMPI_Cancel(&m->early_req);
    PMPI_Wait(&m->early_req, MPI_STATUS_IGNORE);
    free(m->early);
    m->early = NULL;
    match_early_return(omni_early_charge(m->bytes));
}

long match_drop_unexpected(comm_rec *c)
{
    long n = 0;
    while (c->unx_head) {
        match_msg *m = c->unx_head;
        c->unx_head = m->next;
        if (m->kind == RT_LARGE && m->early)
            drop_early(m);
        match_msg_free(m);
        n++;
    }
    c->unx_tail = &c->unx_head;
    return n;
}
