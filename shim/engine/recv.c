#include "shim/engine/recv.h"
#include "shim/engine/send.h"
#include "shim/engine/inbox.h"
#include "shim/transport/transport.h"
#include "shim/transport/shm.h"
#include "shim/progress/progress.h"
#include "shim/engine/request.h"
#include "shim/base/dtype.h"
#include "shim/base/handles.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include <stdint.h>
#include <stdlib.h>

void recv_init(void)
{
    handle_pool_init(&omni.eng.awaiting, sizeof(match_recv *));
    inbox_init();
}

void recv_finalize(void)
{
    inbox_finalize();
    handle_pool_destroy(&omni.eng.awaiting);
}

/* Unpacks n bytes into a derived datatype (out of line, so that
 * recv_copy_in's builtin case keeps a small frame).  A message that ends
 * inside an element fills only that element's first basic items
 * (MPI_Get_elements counts them): the element is packed from the user's
 * buffer, its head overwritten with the bytes that arrived, and unpacked
 * back.  Returns an MPI error code. */
static __attribute__((noinline)) int
recv_unpack(match_recv *r, const char *data, MPI_Count n, MPI_Count esize)
{
    MPI_Count whole = n / esize, rest = n % esize;
    MPI_Count pos = 0;
    int rc = dtype_unpack(data, n, &pos, r->buf, whole, r->dtype);
    if (rc != MPI_SUCCESS || rest == 0)
        return rc;
    MPI_Count lb, extent;
    PMPI_Type_get_extent_x(r->dtype, &lb, &extent);
    /* As an address, so that MPI_BOTTOM (NULL) works too. */
    void *elem = (void *)((uintptr_t)r->buf + (uintptr_t)(whole * extent));
    char *tmp = malloc((size_t)esize);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    MPI_Count tpos = 0, upos = 0;
    rc = dtype_pack(elem, 1, r->dtype, tmp, esize, &tpos);
    if (rc == MPI_SUCCESS) {
        memcpy(tmp, data + whole * esize, (size_t)rest);
        rc = dtype_unpack(tmp, esize, &upos, elem, 1, r->dtype);
    }
    free(tmp);
    return rc;
}

/* recv_copy_in for a derived datatype. */
static __attribute__((noinline)) void
recv_copy_in_derived(match_recv *r, const char *data, MPI_Count bytes)
{
    MPI_Count esize = dtype_size(r->dtype);
    MPI_Count cap = esize * r->count;
    MPI_Count n = bytes < cap ? bytes : cap;
    int rc = n > 0 ? recv_unpack(r, data, n, esize) : MPI_SUCCESS;
    r->st_bytes = n;
    r->error = rc != MPI_SUCCESS ? rc
               : bytes > cap     ? MPI_ERR_TRUNCATE
                                 : MPI_SUCCESS;
}

/* Copies an eager message into the receive's buffer; what does not fit is
 * dropped and the receive fails with MPI_ERR_TRUNCATE, as MPI requires.
 * Inline for the builtin types, which most receives name. */
static inline void recv_copy_in(match_recv *r, const char *data,
                                MPI_Count bytes)
{
    int builtin = dtype_builtin_size(r->dtype);
    if (!builtin) {
        recv_copy_in_derived(r, data, bytes);
        return;
    }
    MPI_Count cap = builtin * r->count;
    MPI_Count n = bytes < cap ? bytes : cap;
    transport_copy(r->buf, data, (size_t)n);
    r->st_bytes = n;
    r->error = bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

/* The receive is complete: hand it back to whoever waits on it. */
static inline void recv_finish(match_recv *r)
{
    match_release_dtype(r);
    r->state = RECV_DONE;
    if (r->req != MPI_REQUEST_NULL)
        request_complete_recv(r);
}

/* Answers world rank src's rendezvous `id`: its data is to come back for
 * the receive named `recv_id` (recv_rndv_data). */
static void recv_answer_rndv(uint32_t src_world, uint32_t id, uint32_t recv_id)
{
    rt_item_hdr h = {.dst = src_world, .src = (uint32_t)omni.job.rank, .comm = 0,
                     .tag = 0, .len = RT_CTS_BODY, .meta = rt_meta(RT_CTS, id)};
    char *at = transport_reserve((int)src_world, RT_HDR_SIZE + RT_CTS_BODY);
    rt_hdr_write(at, &h);
    memcpy(at + RT_HDR_SIZE, &recv_id, sizeof recv_id);
    omni.stats.acks_sent++;
    transport_push_soon((int)src_world);
}

/* Tells world rank src that its rendezvous `id` was read (rndv.h,
 * Single-copy reads): its send is complete. */
static void recv_answer_read(uint32_t src_world, uint32_t id)
{
    recv_answer_rndv(src_world, id, RT_CTS_READ_DONE);
}

/* Reads message m, which its sender offered for a single-copy read,
 * straight into r's buffer (a builtin datatype: the bytes that fit, with
 * MPI_ERR_TRUNCATE for the rest, as recv_copy_in does) or into a copy
 * unpacked from there (a derived one), then tells the sender that its
 * buffer is free.
 * A read the kernel refuses, which the start-up check makes unexpected,
 * fails the receive with MPI_ERR_OTHER; the sender completes either way. */
static void recv_read(match_recv *r, const match_msg *m)
{
    int builtin = dtype_builtin_size(r->dtype);
    MPI_Count cap = builtin * r->count;
    int err;
    if (builtin) {
        MPI_Count n = m->bytes < cap ? m->bytes : cap;
        err = shm_read_peer((int)m->src_world, r->buf, m->rndv_addr,
                            (size_t)n);
        r->st_bytes = n;
        r->error = m->bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    } else {
        char *tmp = malloc(m->bytes > 0 ? (size_t)m->bytes : 1);
        if (!tmp)
            omni_out_of_memory("a message read from another rank");
        err = shm_read_peer((int)m->src_world, tmp, m->rndv_addr,
                            (size_t)m->bytes);
        if (!err)
            recv_copy_in_derived(r, tmp, m->bytes);
        free(tmp);
    }
    if (err) {
        r->st_bytes = 0;
        r->error = MPI_ERR_OTHER;
    }
    recv_answer_read(m->src_world, m->rndv_id);
    recv_finish(r);
}

static void recv_payload_done(void *owner, const MPI_Status *st, int rc);

/* r waits for its payload's receive in the MPI underneath, r->payload, which
 * progress tests (recv_payload_done). */
static void recv_await_payload(match_recv *r)
{
    r->state = RECV_PAYLOAD;
    pending_add(&omni.eng.payloads, r, r->payload);
    prog_has_work(omni.eng.payload_poller);
}

/* r's payload is a message the MPI underneath holds already (a matched
 * probe's): its receive has mostly completed as it was posted (an eager
 * message, copied in at once), so it is looked at now, not a round later.
 * Over TCP each call of the round before the payload poller's turns the
 * engine of the MPI underneath (a poll of the sockets under Open MPI): a
 * 32 KiB ping-pong without headers took 19.0 us one way against 15.0
 * under plain Open MPI, three of those turns on every message's path
 * (docs/design/progress.md, A progress round). */
static void recv_await_held_payload(match_recv *r)
{
    MPI_Status st;
    int rc = MPI_SUCCESS;
    if (pending_take_if_done(&r->payload, &st, &rc)) {
        recv_payload_done(r, &st, rc);
        return;
    }
    recv_await_payload(r);
}

/* An eager message: its payload is in the item. */
static inline void recv_take_eager(match_recv *r, const match_msg *m)
{
    recv_copy_in(r, m->data, m->bytes);
    recv_finish(r);
}

/* The payload of LARGE message m from the inbox (inbox_claim, whose
 * answer it returns): received early into m->early, or held as *msg,
 * which only a call without early_only takes. */
static int recv_claim_payload(match_msg *m, int early_only, MPI_Message *msg)
{
    inbox_payload p;
    int found = inbox_claim(m->src_world, m->value, early_only, &p);
    if (found <= 0)
        return found;
    if (p.early) {
        m->early = p.early;
        m->early_req = p.req;
    } else {
        *msg = p.msg;
    }
    return found;
}

/* recv_take_message for every kind but a plain eager message. */
static __attribute__((noinline)) void recv_take_other(match_recv *r,
                                                      match_msg *m)
{
    if (m->kind == RT_EAGER_SYNC) {
        send_ack(m->src_world, m->value);
        recv_take_eager(r, m);
        return;
    }
    r->st_bytes = m->bytes;
    r->error = MPI_SUCCESS;
    r->spill = NULL;
    r->spill_early = 0;
    if (m->kind == RT_RNDV) {
        m->early_serial = 0; /* received here: no early read */
        if (m->rndv_addr) {
            recv_read(r, m);
            return;
        }
        /* The data comes in an RNDV_DATA item once the sender has the CTS;
         * the receive waits under an id the CTS carries. */
        int id;
        match_recv **slot = handle_new(&omni.eng.awaiting, &id);
        *slot = r;
        r->state = RECV_PAYLOAD;
        recv_answer_rndv(m->src_world, m->rndv_id, (uint32_t)id);
        return;
    }
    MPI_Message msg = MPI_MESSAGE_NULL;
    if (m->kind == RT_LARGE && !m->early)
        recv_claim_payload(m, 0, &msg);
    if (m->early && m->early_req == MPI_REQUEST_NULL) {
        /* An early read: the payload is in. */
        recv_copy_in(r, m->early, m->bytes);
        free(m->early);
        m->early = NULL;
        match_early_return(omni_early_charge(m->bytes));
        recv_finish(r);
        return;
    }
    if (m->early) {
        /* The early payload becomes the receive's own, copied over once
         * it is in. */
        r->spill = m->early;
        r->spill_early = (MPI_Count)omni_early_charge(m->bytes);
        r->payload = m->early_req;
        m->early = NULL;
        recv_await_payload(r);
        return;
    }
    void *into = r->buf;
    MPI_Count count = r->count;
    MPI_Datatype dtype = r->dtype;
    if (m->bytes > dtype_size(r->dtype) * r->count) {
        /* Too long for the buffer: the MPI underneath would report the
         * truncation on no communicator (fatal), so the payload lands aside
         * and is copied in as an eager message would be, with
         * MPI_ERR_TRUNCATE. */
        r->spill = malloc((size_t)m->bytes);
        if (!r->spill)
            omni_out_of_memory("a truncated message");
        into = r->spill;
        count = m->bytes;
        dtype = MPI_BYTE;
    }
    /* MPI_Imrecv sets msg to MPI_MESSAGE_NULL. */
    int held = msg != MPI_MESSAGE_NULL;
    int rc = held
                 ? omni_Imrecv_c(into, count, dtype, &msg, &r->payload)
                 : omni_Irecv_c(into, count, dtype, (int)m->src_world,
                                (int)m->value,
                                m->kind == RT_LARGE_SYNC
                                    ? omni.eng.inbox.sync_comm
                                    : omni.job.payload_comm,
                                &r->payload);
    if (rc != MPI_SUCCESS) {
        r->error = rc;
        recv_finish(r);
        return;
    }
    if (held)
        recv_await_held_payload(r);
    else
        recv_await_payload(r);
}

/* The plain eager message, which streams and ping-pongs carry, takes no
 * call into code that saves registers for the other kinds. */
static inline void recv_take(match_recv *r, match_msg *m)
{
    r->st_source = m->src;
    r->st_tag = m->tag;
    if (m->kind == RT_EAGER)
        recv_take_eager(r, m);
    else
        recv_take_other(r, m);
}

/* Out of line: recv_start, which posts far more often than it finds,
 * saves no registers for it. */
__attribute__((noinline)) void recv_take_message(match_recv *r, match_msg *m)
{
    recv_take(r, m);
}

void recv_rndv_data(uint32_t id, const char *data, uint32_t bytes)
{
    match_recv **slot = handle_get(&omni.eng.awaiting, id);
    match_recv *r = *slot;
    handle_release(&omni.eng.awaiting, id);
    recv_copy_in(r, data, bytes);
    recv_finish(r);
}

static void recv_payload_done(void *owner, const MPI_Status *st, int rc)
{
    match_recv *r = owner;
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &bytes);
    r->st_bytes = bytes;
    omni.eng.payloads_done++;
    if (r->spill) {
        recv_copy_in(r, r->spill, bytes);
        free(r->spill);
        r->spill = NULL;
        if (r->spill_early) {
            match_early_return((size_t)r->spill_early);
        }
    } else if (rc != MPI_SUCCESS) {
        int cls;
        PMPI_Error_class(rc, &cls);
        r->error = cls == MPI_ERR_TRUNCATE ? MPI_ERR_TRUNCATE : rc;
    }
    recv_finish(r);
}

/* Returns whether any large-payload receive is still pending. */
static int recv_poll_payloads(void)
{
    pending_poll(&omni.eng.payloads, recv_payload_done);
    return pending_any(&omni.eng.payloads);
}

/* An arrival while receives are posted, or for a freed communicator: m
 * (the caller's, not queued) goes to the oldest posted receive it matches,
 * or is dropped when no handle can ever receive it.  Returns 0 when it is
 * still the caller's, to queue as unexpected. */
static __attribute__((noinline)) int recv_arrived_to_posted(comm_rec *c,
                                                            match_msg *m)
{
    match_recv *r =
        c->posted_head ? match_take_posted(c, m->src, m->tag) : NULL;
    if (r) {
        recv_take(r, m);
        match_msg_settle(m);
        comm_release_if_idle(c);
        return 1;
    }
    if (c->freed) {
        match_msg_settle(m);
        return 1;
    }
    return 0;
}

/* Fills m from an arrived item; m holds no block reference yet. */
static inline void recv_describe(match_msg *m, const comm_rec *c,
                                 const rt_item_hdr *h, const char *body)
{
    match_describe_eager(m, c, h, body);
    m->block = NULL;
    if (rt_kind_is_eager(m->kind)) {
        m->run.next = m->run.end = NULL;
        return;
    }
    uint64_t size;
    memcpy(&size, body, sizeof size);
    m->early = NULL;
    if (m->kind == RT_RNDV) {
        memcpy(&m->rndv_id, body + sizeof size, sizeof m->rndv_id);
        memcpy(&m->rndv_addr, body + sizeof size + sizeof m->rndv_id,
               sizeof m->rndv_addr);
    }
    m->bytes = (MPI_Count)size;
    m->data = NULL;
}

/* Early payloads (docs/design/transport.md, Early payloads).  A LARGE
 * header that no posted receive takes would leave its payload waiting in
 * the MPI underneath until the program's receive matches the header, and
 * under MPICH 4.0's ch4:ucx every receive posted walks UCX's whole list of
 * unexpected messages: thousands of waiting payloads made receiving
 * quadratic.  So the payload is received at once into a buffer of its own
 * and copied into the program's buffer when the receive comes, as the MPI
 * underneath does with an unexpected eager message: the inbox's if it came
 * first (inbox.h), else by source and tag, within inbox_early_fits.  Never
 * a synchronous one (RT_LARGE_SYNC): taking it would complete the sender's
 * MPI_Issend before any receive matched. */
static void recv_receive_early(match_msg *m)
{
    MPI_Message held = MPI_MESSAGE_NULL; /* early_only: never set */
    int found = recv_claim_payload(m, 1, &held);
    if (found != 0 || !inbox_early_fits(m->bytes))
        return; /* taken from the inbox, held there, or it waits in the
                   MPI underneath */
    char *buf = malloc(m->bytes > 0 ? (size_t)m->bytes : 1);
    if (!buf)
        return; /* it waits in the MPI underneath, as it would have */
    if (omni_Irecv_c(buf, m->bytes, MPI_BYTE, (int)m->src_world,
                     (int)m->value, omni.job.payload_comm,
                     &m->early_req) != MPI_SUCCESS) {
        free(buf);
        return;
    }
    m->early = buf;
    match_early_take(omni_early_charge(m->bytes));
    omni.stats.early_payloads++;
}

/* Early reads: the same for a blocking standard-mode send offered for a
 * single-copy read (RT_RNDV_EARLY), so that such a send waits for no
 * receive that a header and payload's would not have waited for (a
 * program that sends before it receives runs as before).  Not at once: a
 * ping-pong's answer arrives in the very round that completes the rank's
 * own send, and its receive is posted as soon as that send returns, where
 * reading it early would add a copy.  So the message becomes a candidate
 * (recv_early_candidate), and is read into a buffer of Omnibus's own,
 * within the same limits, its sender told that its buffer is free, only
 * if this rank is in a wait one step after it arrived (recv_poll_early):
 * it then waits for something else while the sender waits for it.  The
 * message becomes a LARGE one whose payload is in (early_req
 * MPI_REQUEST_NULL).  A read the kernel refuses leaves it as it was. */
static void recv_read_early(match_msg *m)
{
    if (!inbox_early_fits(m->bytes))
        return;
    char *buf = malloc(m->bytes > 0 ? (size_t)m->bytes : 1);
    if (!buf)
        return;
    if (shm_read_peer((int)m->src_world, buf, m->rndv_addr,
                      (size_t)m->bytes) != 0) {
        free(buf);
        return;
    }
    recv_answer_read(m->src_world, m->rndv_id);
    m->kind = RT_LARGE;
    m->early = buf; /* in place of rndv_addr, which is done with */
    m->early_req = MPI_REQUEST_NULL;
    match_early_take(omni_early_charge(m->bytes));
    omni.stats.early_payloads++;
}

static void recv_early_candidate(match_msg *m)
{
    if (omni.eng.early_ncand == OMNI_EARLY_CANDS)
        return; /* it waits for its receive, as the MPI underneath's would */
    if (++omni.eng.early_serial == 0)
        omni.eng.early_serial = 1;
    m->early_serial = omni.eng.early_serial;
    omni.eng.early_cand[omni.eng.early_ncand++] =
        (struct early_cand){m, m->early_serial, omni.prog.wait_steps};
    prog_has_work(omni.eng.early_poller);
}

/* Reads the candidates still unmatched once this rank has waited a step
 * since they came; forgets those received or dropped.  Returns whether
 * any is left. */
static int recv_poll_early(void)
{
    int keep = 0;
    for (int i = 0; i < omni.eng.early_ncand; i++) {
        struct early_cand e = omni.eng.early_cand[i];
        if (e.m->early_serial != e.serial)
            continue;
        if (!omni.prog.round_waits || omni.prog.wait_steps - e.since < 2) {
            omni.eng.early_cand[keep++] = e;
            continue;
        }
        e.m->early_serial = 0;
        recv_read_early(e.m);
    }
    omni.eng.early_ncand = keep;
    return keep > 0;
}

/* With receives posted the item is described on the stack, and only one
 * that none takes becomes a queued match_msg; with none posted it is
 * queued at once. */
static void recv_arrived_on(comm_rec *c, const rt_item_hdr *h,
                            const char *body, omni_block *b)
{
    match_msg *q;
    if (c->posted_head || c->freed) {
        match_msg m;
        recv_describe(&m, c, h, body);
        if (recv_arrived_to_posted(c, &m))
            return;
        q = match_msg_alloc();
        *q = m;
    } else {
        q = match_msg_alloc();
        recv_describe(q, c, h, body);
    }
    if (rt_kind_is_eager(q->kind))
        q->block = transport_hold_item(b, &q->data, (size_t)q->bytes);
    else if (q->kind == RT_LARGE && !c->freed)
        recv_receive_early(q);
    else if (q->kind == RT_RNDV && q->rndv_addr &&
             (q->value & RT_RNDV_EARLY) && !c->freed)
        recv_early_candidate(q);
    match_push_unexpected(c, q);
}

void recv_arrived(const rt_item_hdr *h, const char *body, omni_block *b)
{
    comm_rec *c = comm_for_arrival(h->comm);
    if (c) /* else its communicator was freed with nothing left to receive */
        recv_arrived_on(c, h, body, b);
}

size_t recv_arrived_eager(const rt_item_hdr *h, const char *at,
                          omni_block *b, uint32_t *items)
{
    comm_rec *c = comm_for_arrival(h->comm);
    if (c && !c->posted_head && !c->freed && !c->placeholder)
        return match_run_queue(c, h, at, b, items);
    if (c)
        recv_arrived_on(c, h, at + RT_HDR_SIZE, b);
    *items = 1;
    return rt_item_size(h);
}

/* Forced inline into its one caller, deliver_in_place, which link-time
 * optimization can do across files (`inline` here, not in recv.h, whose
 * plain declaration keeps this the external definition): left to the
 * compiler it stayed a call once deliver_item grew, 15 instructions more
 * for every message a ring's record delivers in place (callgrind, 8-byte
 * ping-pong; bench/results/log.md, 2026-12-06). */
__attribute__((always_inline)) inline int
recv_arrived_if_taken(const rt_item_hdr *h, const char *body)
{
    comm_rec *c = comm_for_arrival(h->comm);
    if (!c)
        return 1; /* its communicator was freed with nothing left to receive */
    if (!c->posted_head && !c->freed)
        return 0;
    match_msg m;
    recv_describe(&m, c, h, body);
    return recv_arrived_to_posted(c, &m);
}

__attribute__((noinline)) void irecv_take_head(comm_rec *c, match_msg *m,
                                               void *buf, MPI_Count count,
                                               MPI_Datatype dtype, int source,
                                               int tag, MPI_Comm comm,
                                               MPI_Request *request)
{
    transport_copy(buf, m->data, (size_t)m->bytes);
    match_recv *r = request_new_recv(request);
    match_recv_init(r, buf, count, dtype, source, tag, c, comm, *request);
    r->state = RECV_DONE;
    r->st_source = m->src;
    r->st_tag = m->tag;
    r->st_bytes = m->bytes;
    match_head_received(c, m);
}

/* Out of line: recv_fast tail-calls it. */
__attribute__((noinline)) int recv_take_head(comm_rec *c, match_msg *m,
                                             void *buf, MPI_Status *status)
{
    transport_copy(buf, m->data, (size_t)m->bytes);
    status_fill(status, m->src, m->tag, m->bytes, 0);
    return match_head_received(c, m);
}

void recv_start(match_recv *r)
{
    comm_rec *c = r->comm;
    match_msg *m = c->unx_head ? match_find_unexpected(c, r->src, r->tag, 1)
                               : NULL;
    if (m) {
        recv_take_message(r, m);
        match_msg_free(m);
        return;
    }
    r->state = RECV_POSTED;
    match_post(c, r);
}

void recv_wait(match_recv *r)
{
    unsigned spins = 0;
    while (r->state != RECV_DONE)
        prog_wait_step(&spins);
}

/* A receive whose arguments MPI rejects goes to the MPI underneath, which
 * reports the error exactly as MPI defines it (and matches nothing). */
static int recv_args_valid(MPI_Count count, int source, int tag, comm_rec *c)
{
    return count >= 0 && (tag >= 0 || tag == MPI_ANY_TAG) &&
           tag <= omni.job.tag_ub && source >= MPI_ANY_SOURCE && source < c->size;
}

int recv_general(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                 int tag, comm_rec *c, MPI_Comm comm, MPI_Status *status)
{
    if (!c || source == MPI_PROC_NULL ||
        !recv_args_valid(count, source, tag, c) || dtype_size(dtype) < 0)
        return omni_Recv_c(buf, count, dtype, source, tag, comm, status);
    match_recv r;
    match_recv_init(&r, buf, count, dtype, source, tag, c, comm,
                    MPI_REQUEST_NULL);
    recv_start(&r);
    recv_wait(&r);
    status_fill(status, r.st_source, r.st_tag, r.st_bytes, 0);
    return r.error == MPI_SUCCESS ? MPI_SUCCESS : omni_raise(comm, r.error);
}

int irecv_general(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                  int tag, comm_rec *c, MPI_Comm comm, MPI_Request *request)
{
    if (!c || source == MPI_PROC_NULL ||
        !recv_args_valid(count, source, tag, c) || dtype_size(dtype) < 0)
        return omni_Irecv_c(buf, count, dtype, source, tag, comm, request);
    MPI_Request req;
    match_recv *r = request_new_recv(&req);
    match_recv_init(r, buf, count, dtype, source, tag, c, comm, req);
    int rc = match_hold_dtype(r);
    if (rc != MPI_SUCCESS) {
        request_abandon_recv(r);
        return omni_raise(comm, rc);
    }
    *request = req;
    recv_start(r);
    return MPI_SUCCESS;
}

static void probe_status(const match_msg *m, MPI_Status *status)
{
    status_fill(status, m->src, m->tag, m->bytes, 0);
}

int impl_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || source == MPI_PROC_NULL || !recv_args_valid(0, source, tag, c))
        return PMPI_Iprobe(source, tag, comm, flag, status);
    /* An empty queue is not searched, and after the round only when the
     * round appended to it (its tail moved): a miss costs two loads besides
     * the round, which is itself a few loads when nothing has arrived. */
    match_msg *m = c->unx_head ? match_find_unexpected(c, source, tag, 0)
                               : NULL;
    if (!m) {
        match_msg **tail = c->unx_tail;
        prog_poll();
        if (c->unx_tail != tail)
            m = match_find_unexpected(c, source, tag, 0);
    }
    *flag = m != NULL;
    if (m) {
        probe_status(m, status);
        prog_found();
    } else {
        prog_empty_poll();
    }
    return MPI_SUCCESS;
}

int impl_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || source == MPI_PROC_NULL || !recv_args_valid(0, source, tag, c))
        return PMPI_Probe(source, tag, comm, status);
    match_msg *m;
    unsigned spins = 0;
    while (!(m = match_find_unexpected(c, source, tag, 0)))
        prog_wait_step(&spins);
    probe_status(m, status);
    return MPI_SUCCESS;
}

int impl_Sendrecv(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c)
        return omni_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                               recvbuf, recvcount, recvtype, source, recvtag,
                               comm, status);
    MPI_Request sreq = MPI_REQUEST_NULL;
    int rc = send_start_blocking_half(sendbuf, sendcount, sendtype, dest,
                                      sendtag, c, &sreq);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = impl_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
    int src = prog_wait(&sreq, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS ? rc : src;
}

int recv_pack_aside(const void *buf, MPI_Count count, MPI_Datatype dtype,
                    MPI_Comm comm, void **copy, MPI_Count *packed)
{
    MPI_Count size = 0;
    *copy = NULL;
    *packed = 0;
    int rc = omni_Pack_size_c(count, dtype, comm, &size);
    if (rc != MPI_SUCCESS)
        return omni_raise(comm, rc);
    *copy = malloc(size > 0 ? (size_t)size : 1);
    if (!*copy)
        return omni_raise(comm, MPI_ERR_NO_MEM);
    rc = dtype_pack(buf, count, dtype, *copy, size, packed);
    if (rc != MPI_SUCCESS) {
        free(*copy);
        *copy = NULL;
        return omni_raise(comm, rc);
    }
    return rc;
}

int impl_Sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                          int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c)
        return omni_Sendrecv_replace_c(buf, count, dtype, dest, sendtag, source,
                                       recvtag, comm, status);
    void *tmp;
    MPI_Count packed;
    int rc = recv_pack_aside(buf, count, dtype, comm, &tmp, &packed);
    if (rc == MPI_SUCCESS)
        rc = impl_Sendrecv(tmp, packed, MPI_PACKED, dest, sendtag, buf, count,
                           dtype, source, recvtag, comm, status);
    free(tmp);
    return rc;
}

void recv_add_poller(void)
{
    omni.eng.payload_poller = prog_add_poller(recv_poll_payloads, 0);
    omni.eng.early_poller = prog_add_poller(recv_poll_early, 1);
}
