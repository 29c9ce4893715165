/* match: MPI's matching rules over Omnibus's two queues per communicator.
 *
 * Contract (MPI-4.1 §3.5, "Semantics of point-to-point communication"):
 *  - the unexpected queue holds arrived messages that no posted receive
 *    matched, in arrival order; a new receive takes the OLDEST message that
 *    matches its (source, tag), wildcards included;
 *  - the posted queue holds receives no message has matched yet, in posting
 *    order; an arriving message goes to the OLDEST posted receive it matches.
 * Arrival order per (source, communicator) is send order, because every
 * item of a pair travels one FIFO route; so these two rules are exactly
 * MPI's non-overtaking rule.  Probes look at the unexpected queue without
 * taking.
 *
 * Ownership: a match_msg is owned by its queue while queued and by the
 * caller once taken; it points into an arrived block (omni_block) that it
 * holds one reference on.  A match_recv is owned by whoever posted it (the
 * blocking call's stack frame, or an Irecv's request handle).
 *
 * Runs.  A block that arrives while no receive is posted on a
 * communicator mostly carries plain eager messages for it, one after the
 * other; describing each in a record of its own cost a stream more than
 * receiving it.  So such a stretch of a block is queued as one record, a
 * run: the record describes its first message (the head) as any eager
 * record does, and run.next .. run.end are the stretch's later items, not
 * yet described, in order; the stretch is found several items of the
 * head's size at a time (match.c, run_end), the scan being most of what a
 * block's arrival costs a stream.  The record holds one block reference
 * for all of them.  Only a receive that takes the oldest message of the queue
 * takes from a run (recv.h's fast paths, match_head_received): the record
 * then moves on to the run's next message.  Every other search expands the
 * runs first (match_runs_expand), so that the rest of Omnibus sees one
 * record per message; c->runs counts the runs queued.
 */
#ifndef OMNIBUS_MATCH_H
#define OMNIBUS_MATCH_H

#include <mpi.h>
#include "shim/match/comm_rec.h"
#include "shim/base/dtype.h"
#include "shim/progress/credit.h"
#include "shim/transport/transport.h"
#include "router/wire.h"

typedef struct match_msg {
    struct match_msg *next;
    int src;                /* sender's rank in the communicator */
    int tag;
    enum rt_kind kind;      /* RT_EAGER, RT_EAGER_SYNC, RT_LARGE,
                               RT_LARGE_SYNC or RT_RNDV */
    uint32_t src_world;
    uint32_t value;         /* sync id, or the payload's tag */
    uint32_t rndv_id;       /* RT_RNDV: the sender's rendezvous id */
    uint32_t early_serial;  /* RT_RNDV: non-zero while it is a candidate
                               for an early read (recv.c), else 0 */
    MPI_Count bytes;        /* the message's size */
    const char *data;       /* eager payload, inside block */
    omni_block *block;      /* NULL for LARGE and RNDV */
    union {                 /* by kind */
        struct {            /* the eager ones: the rest of a run, or
                               next == end for a single message */
            const char *next, *end;
        } run;
        char *early;        /* RT_LARGE: the buffer its payload is being
                               received into already, or NULL (recv.c,
                               "Early payloads"); a receive that takes the
                               message takes the buffer, and only
                               match_drop_unexpected ever drops one */
        uint64_t rndv_addr; /* RT_RNDV: where the receiver reads the
                               message itself (rndv.h), or 0 */
    };
    MPI_Request early_req;  /* RT_LARGE: the receive of `early`, or
                               MPI_REQUEST_NULL when it was read early
                               and is in (recv.c, Early payloads) */
} match_msg;

enum recv_state { RECV_POSTED, RECV_PAYLOAD, RECV_DONE };

typedef struct match_recv {
    struct match_recv *next;     /* posted queue or free list */
    void *buf;
    MPI_Count count;
    MPI_Datatype dtype;
    int dtype_held;              /* dtype is Omnibus's own reference
                                    (dtype_hold), released on completion */
    int src, tag;                /* may be MPI_ANY_SOURCE / MPI_ANY_TAG */
    comm_rec *comm;
    MPI_Comm user_comm;          /* the handle, for raising errors */
    MPI_Request req;             /* the Omnibus request handle the program
                                    holds (request.h); MPI_REQUEST_NULL for a
                                    blocking receive */
    enum recv_state state;
    int error;                   /* MPI_SUCCESS, MPI_ERR_TRUNCATE, or the
                                    error the MPI underneath gave moving
                                    the data */
    int cancelled;
    int freed_by_mpi;            /* MPI_Request_free came first: the record
                                    goes when the receive completes */
    int st_source, st_tag;       /* the status it completes with */
    MPI_Count st_bytes;
    MPI_Request payload;         /* RECV_PAYLOAD: PMPI_Irecv into buf */
    char *spill;                 /* the payload of a truncated receive, or
                                    an early one: copied in on arrival */
    MPI_Count spill_early;       /* what it took from the pool, when it is
                                    an early payload (omni_early_charge) */
} match_recv;

/* Makes *r a receive just posted: the envelope and buffer given, every
 * other field in its initial state (RECV_POSTED, no datatype hold, no
 * error).  Field by field: a compound literal had GCC clear the whole
 * record with `rep stos` first, and a quarter of MPI_Irecv's perf samples
 * fell just after it. */
static inline void match_recv_init(match_recv *r, void *buf, MPI_Count count,
                                   MPI_Datatype dtype, int src, int tag,
                                   comm_rec *comm, MPI_Comm user_comm,
                                   MPI_Request req)
{
    r->next = NULL;
    r->buf = buf;
    r->count = count;
    r->dtype = dtype;
    r->dtype_held = 0;
    r->src = src;
    r->tag = tag;
    r->comm = comm;
    r->user_comm = user_comm;
    r->req = req;
    r->state = RECV_POSTED;
    r->error = MPI_SUCCESS;
    r->cancelled = 0;
    r->freed_by_mpi = 0;
    r->st_source = 0;
    r->st_tag = 0;
    r->st_bytes = 0;
    r->payload = MPI_REQUEST_NULL;
    r->spill = NULL;
    r->spill_early = 0;
}

/* A receive that completes after the call that posted it returns (a
 * request) holds its datatype, so that the program may free its handle at
 * once (dtype.h); the hold is dropped when the receive completes or is
 * cancelled.  match_hold_dtype returns an MPI error code. */
static inline int match_hold_dtype(match_recv *r)
{
    int rc = dtype_hold(r->dtype, &r->dtype);
    r->dtype_held = rc == MPI_SUCCESS;
    return rc;
}

static inline void match_release_dtype(match_recv *r)
{
    if (r->dtype_held)
        dtype_release(r->dtype);
    r->dtype_held = 0;
}

static inline int match_fits(int want_src, int want_tag, int src, int tag)
{
    return (want_src == src || want_src == MPI_ANY_SOURCE) &&
           (want_tag == tag || want_tag == MPI_ANY_TAG);
}

/* The oldest unexpected message matching (src, tag), or NULL; `take`
 * removes it from the queue.  Expands the runs of c's queue first. */
match_msg *match_find_unexpected(comm_rec *c, int src, int tag, int take);
void match_push_unexpected(comm_rec *c, match_msg *m);

/* The oldest posted receive that a message from (src, tag) matches, removed
 * from the queue; NULL when none. */
match_recv *match_take_posted(comm_rec *c, int src, int tag);
void match_post(comm_rec *c, match_recv *r);
/* Removes r from the posted queue; 0 when it was there, -1 otherwise. */
int match_unpost(comm_rec *c, match_recv *r);

/* Fills the empty free list of message records with a new slab. */
void match_msgs_refill(void);

/* A message record off the free list: inline, since every message that
 * waits in the unexpected queue takes one. */
/* An unexpected message's early payload (match_msg.early), received by the
 * engine before its receive was posted, holds `charge` bytes of
 * OMNIBUS_EAGER_POOL (omni_early_charge) until it is taken or dropped. */
static inline void match_early_take(size_t charge)
{
    omni.match.early_bytes += charge;
    omni.match.early_count++;
}
static inline void match_early_return(size_t charge)
{
    omni.match.early_bytes -= charge;
    omni.match.early_count--;
}

static inline match_msg *match_msg_alloc(void)
{
    if (!omni.match.free_msgs)
        match_msgs_refill();
    match_msg *m = omni.match.free_msgs;
    omni.match.free_msgs = m->next;
    return m;
}
/* Frees every record at MPI_Finalize. */
void match_release_slabs(void);

/* A message has been received or dropped: an eager one's bytes return to
 * its sender's window (credit.h); a header took none.  match_msg_free does
 * this; a message described on the stack and never queued (recv.c) calls
 * it alone. */
static inline void match_msg_settle(const match_msg *m)
{
    if (rt_kind_is_eager(m->kind))
        credit_consumed(m->src_world, RT_HDR_SIZE + (uint32_t)m->bytes);
}

/* A message leaves Omnibus here, received or dropped: settled, its block
 * reference dropped, its record back on the free list.  Inline: every
 * message received from the unexpected queue passes here. */
static inline void match_msg_free(match_msg *m)
{
    match_msg_settle(m);
    if (m->block)
        transport_block_unref(m->block);
    m->next = omni.match.free_msgs;
    omni.match.free_msgs = m;
}
/* Queues the eager item at `at` in block b (header h, for this rank,
 * plain eager, on c, which has no receive posted), together with the
 * plain eager items for c that follow it in b, as one run.  Returns the
 * bytes of b it took and sets *items to their number. */
size_t match_run_queue(comm_rec *c, const rt_item_hdr *h, const char *at,
                       omni_block *b, uint32_t *items);

/* Describes every message of c's runs in a record of its own, in place. */
void match_runs_expand(comm_rec *c);

/* Fills the envelope and payload of eager record m from its item's header
 * h and payload `data`; its rank in the communicator is src. */
static inline void match_describe_message(match_msg *m, int src,
                                          const rt_item_hdr *h,
                                          const char *data)
{
    m->src = src;
    m->tag = h->tag;
    m->src_world = h->src;
    m->bytes = h->len;
    m->data = data;
}

/* Fills the fields of eager record m that its item's header h and payload
 * `data` give (not its block). */
static inline void match_describe_eager(match_msg *m, const comm_rec *c,
                                        const rt_item_hdr *h, const char *data)
{
    match_describe_message(m, c->placeholder ? -1 : comm_from_world(c, (int)h->src), h,
                           data);
    m->kind = rt_meta_kind(h->meta);
    m->value = rt_meta_value(h->meta);
}

/* m, a run's record, moves on to the run's next message (its head was
 * received; the caller settles it).  A run's messages are all plain eager
 * ones (kind RT_EAGER, value 0) on a communicator that is no placeholder,
 * so only their envelope and payload change. */
static inline void match_run_advance(comm_rec *c, match_msg *m)
{
    rt_item_hdr h;
    rt_hdr_read(m->run.next, &h);
    match_describe_message(m, comm_from_world(c, (int)h.src), &h,
                           m->run.next + RT_HDR_SIZE);
    m->run.next += rt_item_size(&h);
    if (m->run.next == m->run.end)
        c->runs--;
}

/* The eager message m at the head of c's queue was received (its payload
 * and status read) while Omnibus is on: it leaves the queue and is freed,
 * or, heading a run, is settled and its record moves on to the run's next
 * message.  Returns MPI_SUCCESS, so that a wrapper's fast function
 * (wrappers.tbl) can end with it: the rare work, a credit return that
 * falls due or a block's last reference, is a tail call of
 * match_settle_rest (b NULL: no reference to drop), and the caller keeps
 * no frame for it. */
int match_settle_rest(uint32_t src, int credit_due, omni_block *b);
static inline int match_head_received(comm_rec *c, match_msg *m)
{
    uint32_t src = m->src_world;
    uint32_t size = RT_HDR_SIZE + (uint32_t)m->bytes;
    if (m->run.next != m->run.end) {
        match_run_advance(c, m);
        if (credit_consumed_due(src, size))
            return match_settle_rest(src, 1, NULL);
        return MPI_SUCCESS;
    }
    c->unx_head = m->next;
    if (!m->next)
        c->unx_tail = &c->unx_head;
    int due = credit_consumed_due(src, size);
    omni_block *b = m->block;
    m->next = omni.match.free_msgs;
    omni.match.free_msgs = m;
    if (due || !transport_block_unref_unless_last(b))
        return match_settle_rest(src, due, b);
    return MPI_SUCCESS;
}

match_recv *match_recv_alloc(void);
void match_recv_free(match_recv *r);

/* Drops every unexpected message of a freed communicator (no handle can
 * ever receive them) and returns how many. */
long match_drop_unexpected(comm_rec *c);

#endif
