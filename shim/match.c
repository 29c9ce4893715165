#include "shim/match.h"
#include "shim/transport.h"
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

match_msg *match_msg_alloc(void)
{
    match_msg *m = omni.free_msgs;
    if (m) {
        omni.free_msgs = m->next;
        return m;
    }
    m = malloc(sizeof *m);
    if (!m)
        transport_out_of_memory("an unexpected message");
    return m;
}

void match_msg_free(match_msg *m)
{
    if (m->block)
        transport_block_unref(m->block);
    m->next = omni.free_msgs;
    omni.free_msgs = m;
}

match_recv *match_recv_alloc(void)
{
    match_recv *r = omni.free_recvs;
    if (r) {
        omni.free_recvs = r->next;
        return r;
    }
    r = malloc(sizeof *r);
    if (!r)
        transport_out_of_memory("a receive");
    return r;
}

void match_recv_free(match_recv *r)
{
    r->next = omni.free_recvs;
    omni.free_recvs = r;
}

long match_drop_unexpected(comm_rec *c)
{
    long n = 0;
    while (c->unx_head) {
        match_msg *m = c->unx_head;
        c->unx_head = m->next;
        match_msg_free(m);
        n++;
    }
    c->unx_tail = &c->unx_head;
    return n;
}
