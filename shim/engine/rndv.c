#include "shim/engine/rndv.h"
#include "shim/base/dtype.h"
#include "shim/progress/progress.h"
#include "shim/progress/greq.h"
#include "shim/engine/request.h"
#include "shim/transport/transport.h"
#include "shim/base/handles.h"
#include "shim/base/fail.h"
#include <stdint.h>
#include <stdlib.h>

enum rndv_state { RNDV_WAITING, RNDV_SENDING, RNDV_DONE };

/* One rendezvous send.  `link` is the pool's free-list word (handles.h). */
typedef struct rndv_send {
    int link;
    enum rndv_state state;
    const void *buf;
    MPI_Count count;
    MPI_Datatype dtype;     /* held (dtype.h) */
    MPI_Count bytes;        /* the message's size (at most the threshold,
                               unless the receiver reads it itself) */
    int dst;
    MPI_Comm comm;          /* the user's, for raising errors */
    MPI_Request greq;       /* MPI_REQUEST_NULL for a blocking send */
    void *copy;             /* a buffered send's packed data, else NULL */
    MPI_Count charge;       /* what the copy takes from the attached buffer */
    int freed;              /* MPI freed greq before completion */
} rndv_send;

/* Slots live in a handle pool (handles.h): they never move, and an id is
 * the slot's handle, small enough for an item's meta value. */
static rndv_send *rndv_slot(uint32_t id)
{
    return handle_get(&omni.eng.rndv, id);
}

static uint32_t rndv_get(void)
{
    int id;
    handle_new(&omni.eng.rndv, &id);
    return (uint32_t)id;
}

static void rndv_put(uint32_t id)
{
    handle_release(&omni.eng.rndv, id);
}

/* --- the generalized request of a nonblocking rendezvous send ---------- */

static int rndv_free_fn(void *extra)
{
    uint32_t id = (uint32_t)(uintptr_t)extra;
    rndv_send *s = rndv_slot(id);
    if (s->state != RNDV_DONE)
        s->freed = 1; /* completed later by its CTS, which recycles it */
    else
        rndv_put(id);
    return MPI_SUCCESS;
}

static int rndv_wait_fn(int n, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < n; i++) {
        rndv_send *s = rndv_slot((uint32_t)(uintptr_t)states[i]);
        unsigned spins = 0;
        while (s->state != RNDV_DONE)
            prog_wait_step(&spins);
    }
    return MPI_SUCCESS;
}

int rndv_init(void)
{
    handle_pool_init(&omni.eng.rndv, sizeof(rndv_send));
    return greq_class_create(greq_query_send, rndv_free_fn, rndv_wait_fn,
                             &omni.eng.rndv_class) == MPI_SUCCESS
               ? 0
               : -1;
}

void rndv_finalize(void)
{
    handle_pool_destroy(&omni.eng.rndv);
}

/* --- the sender ------------------------------------------------------- */

/* A buffered send's data, packed aside and charged to the attached buffer
 * (the caller checked that it fits). */
static int rndv_copy_aside(rndv_send *s, MPI_Count bytes)
{
    MPI_Count pos = 0;
    s->copy = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!s->copy)
        omni_out_of_memory("a buffered send");
    int rc = dtype_pack(s->buf, s->count, s->dtype, s->copy, bytes, &pos);
    if (rc != MPI_SUCCESS) {
        free(s->copy);
        s->copy = NULL;
        return rc;
    }
    dtype_release(s->dtype);
    s->buf = s->copy;
    s->count = pos;
    s->dtype = MPI_PACKED;
    s->charge = bytes + MPI_BSEND_OVERHEAD;
    omni.eng.bsend_used += (size_t)s->charge;
    omni.eng.rndv_bsends++;
    return MPI_SUCCESS;
}

static void rndv_finish(uint32_t id)
{
    rndv_send *s = rndv_slot(id);
    if (s->copy) {
        free(s->copy);
        omni.eng.bsend_used -= (size_t)s->charge;
        omni.eng.rndv_bsends--;
    } else {
        dtype_release(s->dtype);
    }
    s->state = RNDV_DONE;
    if (s->greq == MPI_REQUEST_NULL)
        return; /* a blocking send or a buffered one: its caller recycles it */
    int orphan = s->freed;
    PMPI_Grequest_complete(s->greq);
    if (orphan)
        rndv_put(id);
}

/* Sends rendezvous id's header (readable at `addr`, or 0) and returns as
 * rndv_start: the request, or once the send is complete. */
static int rndv_announce(uint32_t id, uint64_t addr, int tag, comm_rec *c,
                         enum send_mode mode, MPI_Request *req)
{
    rndv_send *s = rndv_slot(id);
    int dst = s->dst;
    rt_item_hdr h = {.dst = (uint32_t)dst, .src = (uint32_t)omni.job.rank,
                     .comm = c->id, .tag = tag, .len = RT_RNDV_BODY,
                     .meta = rt_meta(RT_RNDV, addr && !req &&
                                                      mode == SEND_STANDARD
                                                  ? RT_RNDV_EARLY
                                                  : 0)};
    char *at = transport_reserve(dst, RT_HDR_SIZE + RT_RNDV_BODY);
    rt_hdr_write(at, &h);
    uint64_t size = (uint64_t)s->bytes;
    memcpy(at + RT_HDR_SIZE, &size, sizeof size);
    memcpy(at + RT_HDR_SIZE + sizeof size, &id, sizeof id);
    memcpy(at + RT_HDR_SIZE + sizeof size + sizeof id, &addr, sizeof addr);
    omni.eng.sent_to[dst]++;
    omni.stats.rndv_sends++;

    if (mode == SEND_BUFFERED) {
        /* Complete at once; the copy lives on until its CTS comes and it is
         * sent, which recycles the slot. */
        s->freed = 1;
        return req ? request_complete_send(c->handle, req) : MPI_SUCCESS;
    }
    if (req) {
        omni_gclass_start(omni.eng.rndv_class, (void *)(uintptr_t)id,
                                     &s->greq);
        *req = s->greq;
        return MPI_SUCCESS;
    }
    unsigned spins = 0;
    while (s->state != RNDV_DONE)
        prog_wait_step(&spins);
    rndv_put(id);
    return MPI_SUCCESS;
}

int rndv_start(const void *buf, MPI_Count count, MPI_Datatype dtype,
               MPI_Count bytes, int dst, int tag, comm_rec *c,
               enum send_mode mode, MPI_Request *req)
{
    uint32_t id = rndv_get();
    rndv_send *s = rndv_slot(id);
    *s = (rndv_send){.link = -1, .state = RNDV_WAITING, .buf = buf,
                     .count = count, .bytes = bytes, .dst = dst,
                     .comm = c->handle, .greq = MPI_REQUEST_NULL};
    int rc = dtype_hold(dtype, &s->dtype);
    if (rc == MPI_SUCCESS && mode == SEND_BUFFERED)
        rc = rndv_copy_aside(s, bytes);
    if (rc != MPI_SUCCESS) {
        rndv_put(id);
        return omni_raise(c->handle, rc);
    }
    return rndv_announce(id, 0, tag, c, mode, req);
}

int rndv_start_read(const void *buf, MPI_Count bytes, int dst, int tag,
                    comm_rec *c, enum send_mode mode, MPI_Request *req)
{
    uint32_t id = rndv_get();
    rndv_send *s = rndv_slot(id);
    /* MPI_BYTE: a builtin type, which rndv_finish's release ignores. */
    *s = (rndv_send){.link = -1, .state = RNDV_WAITING, .buf = buf,
                     .count = bytes, .dtype = MPI_BYTE, .bytes = bytes,
                     .dst = dst, .comm = c->handle,
                     .greq = MPI_REQUEST_NULL};
    omni.stats.read_sends++;
    /* Synchronous or standard: both are satisfied once the receiver has
     * read the message, which it does after a receive matched or, for a
     * blocking standard one only, early (recv.c, Early payloads). */
    return rndv_announce(id, (uint64_t)(uintptr_t)buf, tag, c, mode, req);
}

void rndv_clear_to_send(uint32_t id, const char *cts_body)
{
    rndv_send *s = rndv_slot(id);
    uint32_t recv_id;
    memcpy(&recv_id, cts_body, sizeof recv_id);
    if (recv_id == RT_CTS_READ_DONE) {
        rndv_finish(id);
        return;
    }
    rt_item_hdr h = {.dst = (uint32_t)s->dst, .src = (uint32_t)omni.job.rank,
                     .comm = 0, .tag = 0, .len = (uint32_t)s->bytes,
                     .meta = rt_meta(RT_RNDV_DATA, recv_id)};
    char *at = transport_reserve(s->dst, RT_HDR_SIZE + s->bytes);
    rt_hdr_write(at, &h);
    MPI_Count pos = 0;
    int rc = dtype_builtin_size(s->dtype)
                 ? (transport_copy(at + RT_HDR_SIZE, s->buf, s->bytes), MPI_SUCCESS)
                 : dtype_pack(s->buf, s->count, s->dtype, at + RT_HDR_SIZE,
                              s->bytes, &pos);
    if (rc != MPI_SUCCESS)
        /* The receiver waits for these bytes: they go as they are, and the
         * error reaches the program through the communicator. */
        omni_raise(s->comm, rc);
    omni.stats.acks_sent++; /* an item finalize's count must see delivered */
    transport_push_soon(s->dst);
    int buffered = s->copy != NULL;
    rndv_finish(id);
    if (buffered)
        rndv_put(id);
}

int rndv_bsends_pending(void)
{
    return omni.eng.rndv_bsends > 0;
}
