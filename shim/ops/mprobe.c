/* mprobe: matched probes (MPI-4.1 §3.8.2) on messages Omnibus holds.
 *
 * MPI_Mprobe/MPI_Improbe take the message out of the unexpected queue, so
 * no other receive or probe can match it any more, and name it by an
 * Omnibus MPI_Message handle (handles.h).  MPI_Mrecv/MPI_Imrecv receive
 * exactly that message.  Handles the MPI underneath issued
 * (MPI_MESSAGE_NO_PROC, or messages of unmanaged communicators) go to PMPI
 * unchanged.
 */
#include "shim/ops/mprobe.h"
#include "shim/base/handles.h"
#include "shim/progress/progress.h"
#include "shim/engine/recv.h"
#include "shim/engine/request.h"
#include "shim/base/dtype.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"

typedef struct {
    int pool_link;
    int in_use;
    match_msg *msg;
    comm_rec *comm;
} held_message;

void mprobe_init(void)
{
    handle_pool_init(&omni.ops.messages, sizeof(held_message));
}

void mprobe_finalize(void)
{
    handle_pool_destroy(&omni.ops.messages);
}

static held_message *held_get(MPI_Message m)
{
    held_message *h = handle_get(&omni.ops.messages, omni_message_bits(m));
    return h && h->in_use ? h : NULL;
}

static void held_make(match_msg *msg, comm_rec *c, MPI_Message *message,
                      MPI_Status *status)
{
    int handle;
    held_message *h = handle_new(&omni.ops.messages, &handle);
    h->in_use = 1;
    h->msg = msg;
    h->comm = c;
    *message = omni_message_of((uintptr_t)handle);
    status_fill(status, msg->src, msg->tag, msg->bytes, 0);
}

int impl_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || source == MPI_PROC_NULL || source < MPI_ANY_SOURCE ||
        source >= c->size || (tag < 0 && tag != MPI_ANY_TAG))
        return PMPI_Improbe(source, tag, comm, flag, message, status);
    match_msg *m = match_find_unexpected(c, source, tag, 1);
    if (!m) {
        prog_poll();
        m = match_find_unexpected(c, source, tag, 1);
    }
    *flag = m != NULL;
    if (m)
        held_make(m, c, message, status);
    return MPI_SUCCESS;
}

int impl_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || source == MPI_PROC_NULL || source < MPI_ANY_SOURCE ||
        source >= c->size || (tag < 0 && tag != MPI_ANY_TAG))
        return PMPI_Mprobe(source, tag, comm, message, status);
    match_msg *m;
    unsigned spins = 0;
    while (!(m = match_find_unexpected(c, source, tag, 1)))
        prog_wait_step(&spins);
    held_make(m, c, message, status);
    return MPI_SUCCESS;
}

/* Hands the held message to receive r and forgets the handle. */
static void held_receive(held_message *h, MPI_Message *message, match_recv *r)
{
    match_msg *m = h->msg;
    h->in_use = 0;
    handle_release(&omni.ops.messages, omni_message_bits(*message));
    *message = MPI_MESSAGE_NULL;
    recv_take_message(r, m);
    match_msg_free(m);
}

int impl_Mrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
               MPI_Message *message, MPI_Status *status)
{
    held_message *h = held_get(*message);
    if (!h)
        return omni_Mrecv_c(buf, count, dtype, message, status);
    comm_rec *c = h->comm;
    match_recv r;
    match_recv_init(&r, buf, count, dtype, MPI_ANY_SOURCE, MPI_ANY_TAG, c,
                    c->handle, MPI_REQUEST_NULL);
    held_receive(h, message, &r);
    recv_wait(&r);
    status_fill(status, r.st_source, r.st_tag, r.st_bytes, 0);
    return r.error == MPI_SUCCESS ? MPI_SUCCESS
                                  : omni_raise(c->handle, r.error);
}

int impl_Imrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
                MPI_Message *message, MPI_Request *request)
{
    held_message *h = held_get(*message);
    if (!h)
        return omni_Imrecv_c(buf, count, dtype, message, request);
    MPI_Request req;
    match_recv *r = request_new_recv(&req);
    match_recv_init(r, buf, count, dtype, MPI_ANY_SOURCE, MPI_ANY_TAG, h->comm,
                    h->comm->handle, req);
    int rc = match_hold_dtype(r);
    if (rc != MPI_SUCCESS) {
        request_abandon_recv(r);
        return omni_raise(h->comm->handle, rc);
    }
    *request = req;
    held_receive(h, message, r);
    return MPI_SUCCESS;
}
