#include "shim/ops/persist.h"
#include "shim/engine/preq.h"
#include "shim/engine/send.h"
#include "shim/engine/recv.h"
#include "shim/base/dtype.h"
#include "shim/engine/request.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include <stdlib.h>

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
    preq_record *p = preq_new(request);
    p->is_recv = is_recv;
    p->mode = mode;
    p->sbuf = sbuf;
    p->rbuf = rbuf;
    p->count = count;
    p->dtype = held;
    p->peer = peer;
    p->tag = tag;
    p->comm = comm;
    return MPI_SUCCESS;
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
        return omni_Recv_init_c(buf, count, dtype, source, tag, comm, request);
    return persistent_new(1, SEND_STANDARD, NULL, buf, count, dtype, source,
                          tag, comm, request);
}

/* --- starting, freeing, cancelling ------------------------------------ */

static int persist_start(MPI_Request *request)
{
    preq_record *p = preq_get(*request);
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
    preq_record *p = preq_get(*request);
    if (!p)
        return request_free(request);
    if (p->inner != MPI_REQUEST_NULL)
        request_free(&p->inner);
    if (p->ops)
        p->ops->release(p->state);
    else if (!p->oneshot)
        dtype_release(p->dtype);
    preq_release(*request, p);
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
    preq_record *p = preq_get(*request);
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
    preq_record *p = preq_get(request);
    return request_get_status(p ? p->inner : request, flag, status);
}
