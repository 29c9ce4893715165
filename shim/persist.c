#include "shim/persist.h"
#include "shim/handles.h"
#include "shim/impl.h"
#include "shim/send.h"
#include "shim/recv.h"
#include "shim/dtype.h"
#include "shim/request.h"
#include <stdlib.h>

typedef struct {
    int pool_link;
    int in_use;
    int is_recv;
    enum send_mode mode;
    const void *sbuf;
    void *rbuf;
    MPI_Count count;
    MPI_Datatype dtype;
    int peer, tag;
    MPI_Comm comm;
    MPI_Request inner;     /* MPI_REQUEST_NULL while inactive */
    int oneshot;           /* a large send's payload: released on completion */
    const persist_ops *ops;/* an operation run elsewhere (persist_new_custom) */
    void *state;
} persistent_req;

static persistent_req *persistent_get(MPI_Request h)
{
    persistent_req *p = handle_get(&omni.persistent, (int)h);
    return p && p->in_use ? p : NULL;
}

static void persistent_release(MPI_Request h, persistent_req *p)
{
    p->in_use = 0;
    handle_release(&omni.persistent, (int)h);
}

/* A persistent request keeps its own reference to its datatype from
 * creation to MPI_Request_free (dtype.h): the program may free its handle
 * right after the _init call.  Returns an MPI error code. */
static int persistent_new(int is_recv, enum send_mode mode, const void *sbuf,
                          void *rbuf, MPI_Count count, MPI_Datatype dtype,
                          int peer, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    MPI_Datatype held;
    int rc = dtype_hold(dtype, &held);
    if (rc != MPI_SUCCESS)
        return omni_raise(comm, rc);
    int handle;
    persistent_req *p = handle_new(&omni.persistent, &handle);
    *p = (persistent_req){.in_use = 1, .is_recv = is_recv, .mode = mode,
                          .sbuf = sbuf, .rbuf = rbuf, .count = count,
                          .dtype = held, .peer = peer, .tag = tag,
                          .comm = comm, .inner = MPI_REQUEST_NULL};
    *request = (MPI_Request)handle;
    return MPI_SUCCESS;
}

void persist_init(void)
{
    handle_pool_init(&omni.persistent, sizeof(persistent_req));
}

void persist_finalize(void)
{
    handle_pool_destroy(&omni.persistent);
}

/* --- creation: the arguments are checked when the operation starts, by the
 * send and receive paths, exactly as for their nonblocking forms. ------- */

int persist_send_init(const void *buf, MPI_Count count, MPI_Datatype dtype,
                      int dest, int tag, MPI_Comm comm, enum send_mode mode,
                      MPI_Request *request)
{
    return persistent_new(0, mode, buf, NULL, count, dtype, dest, tag, comm,
                          request);
}

int impl_Recv_init(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    if (!comm_lookup(comm))
        return PMPI_Recv_init_c(buf, count, dtype, source, tag, comm, request);
    return persistent_new(1, SEND_STANDARD, NULL, buf, count, dtype, source,
                          tag, comm, request);
}

/* A one-shot handle is not persistent: MPI_Start refuses it, and the
 * completion that finds its payload sent releases it (persist_view_end). */
MPI_Request persist_wrap_send(MPI_Request payload, MPI_Comm comm)
{
    int handle;
    persistent_req *p = handle_new(&omni.persistent, &handle);
    *p = (persistent_req){.in_use = 1, .oneshot = 1, .comm = comm,
                          .inner = payload};
    return (MPI_Request)handle;
}

MPI_Request persist_new_custom(const persist_ops *ops, void *state,
                               MPI_Comm comm)
{
    int handle;
    persistent_req *p = handle_new(&omni.persistent, &handle);
    *p = (persistent_req){.in_use = 1, .comm = comm, .inner = MPI_REQUEST_NULL,
                          .ops = ops, .state = state};
    return (MPI_Request)handle;
}

/* --- starting, freeing, cancelling ------------------------------------ */

static int persist_start(MPI_Request *request)
{
    persistent_req *p = persistent_get(*request);
    if (!p)
        return PMPI_Start(request);
    if (p->oneshot || p->inner != MPI_REQUEST_NULL)
        return omni_raise(p->comm, MPI_ERR_REQUEST); /* not startable now */
    if (p->ops)
        return p->ops->start(p->state, &p->inner);
    comm_rec *c = comm_lookup(p->comm);
    if (!c)
        return omni_raise(MPI_COMM_WORLD, MPI_ERR_COMM);
    if (p->is_recv)
        return impl_Irecv(p->rbuf, p->count, p->dtype, p->peer, p->tag, p->comm,
                          &p->inner);
    return send_start_inner(p->sbuf, p->count, p->dtype, p->peer, p->tag, c,
                            p->mode, &p->inner);
}

int impl_Start(MPI_Request *request)
{
    return persist_start(request);
}

int impl_Startall(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = persist_start(&requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Freeing an active persistent request lets its operation finish on its
 * own (MPI-4.1 §3.9); the inner request is freed the same way. */
int impl_Request_free(MPI_Request *request)
{
    persistent_req *p = persistent_get(*request);
    if (!p)
        return request_free(request);
    if (p->inner != MPI_REQUEST_NULL)
        request_free(&p->inner);
    if (p->ops)
        p->ops->release(p->state);
    else if (!p->oneshot)
        dtype_release(p->dtype);
    persistent_release(*request, p);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* A send on a managed communicator is never withdrawn, so its status says
 * "not cancelled" once it completes: an eager item or a large header has
 * already left, and MPICH 4 itself never cancels a send either (ch4 reports
 * every send cancel as failed; MPI-4.0 deprecates cancelling sends).  The
 * request stays valid and completes normally. */
int impl_Cancel(MPI_Request *request)
{
    persistent_req *p = persistent_get(*request);
    if (!p)
        return request_cancel(request);
    if (!p->is_recv || p->inner == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    return request_cancel(&p->inner);
}

/* A persistent handle is looked at through its inner request; nothing is
 * freed (request_get_status). */
int impl_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    persistent_req *p = persistent_get(request);
    return request_get_status(p ? p->inner : request, flag, status);
}

/* --- the view the completion calls give MPICH -------------------------- */

MPI_Request *persist_view_copy(persist_view *v, int n, MPI_Request *reqs)
{
    int any = 0;
    for (int i = 0; i < n && !any; i++)
        any = persist_handle_is(reqs[i]);
    if (!any)
        return reqs;
    v->reqs = n <= 16 ? v->small : malloc(sizeof *v->reqs * (size_t)n);
    if (!v->reqs)
        omni_out_of_memory("a request array");
    v->copied = 1;
    for (int i = 0; i < n; i++) {
        persistent_req *p = persistent_get(reqs[i]);
        v->reqs[i] = p ? p->inner : reqs[i];
    }
    return v->reqs;
}

void persist_view_write_back(persist_view *v, int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        persistent_req *p = persistent_get(reqs[i]);
        if (p && p->oneshot && v->reqs[i] == MPI_REQUEST_NULL) {
            persistent_release(reqs[i], p);
            reqs[i] = MPI_REQUEST_NULL;
        } else if (p) {
            p->inner = v->reqs[i];
        } else {
            reqs[i] = v->reqs[i];
        }
    }
    if (v->reqs != v->small)
        free(v->reqs);
}
