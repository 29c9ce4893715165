#include "shim/engine/preq.h"
#include "shim/base/state.h"
#include "shim/base/fail.h"
#include <stdlib.h>

preq_record *preq_get(MPI_Request h)
{
    preq_record *p = handle_get(&omni.eng.persistent, omni_request_bits(h));
    return p && p->in_use ? p : NULL;
}

preq_record *preq_new(MPI_Request *handle)
{
    int h;
    preq_record *p = handle_new(&omni.eng.persistent, &h);
    *p = (preq_record){.in_use = 1, .inner = MPI_REQUEST_NULL};
    *handle = omni_request_of((uintptr_t)h);
    return p;
}

void preq_release(MPI_Request h, preq_record *p)
{
    p->in_use = 0;
    handle_release(&omni.eng.persistent, omni_request_bits(h));
}

void preq_init(void)
{
    handle_pool_init(&omni.eng.persistent, sizeof(preq_record));
}

void preq_finalize(void)
{
    handle_pool_destroy(&omni.eng.persistent);
}

/* A one-shot handle is not persistent: MPI_Start refuses it, and the
 * completion that finds its payload sent releases it (preq_view_end). */
MPI_Request preq_wrap_send(MPI_Request payload, MPI_Comm comm)
{
    MPI_Request h;
    preq_record *p = preq_new(&h);
    p->oneshot = 1;
    p->comm = comm;
    p->inner = payload;
    return h;
}

MPI_Request preq_new_custom(const preq_ops *ops, void *state, MPI_Comm comm)
{
    MPI_Request h;
    preq_record *p = preq_new(&h);
    p->comm = comm;
    p->ops = ops;
    p->state = state;
    return h;
}

MPI_Request *preq_view_copy(preq_view *v, int n, MPI_Request *reqs)
{
    int any = 0;
    for (int i = 0; i < n && !any; i++)
        any = preq_handle_is(reqs[i]);
    if (!any)
        return reqs;
    v->reqs = n <= 16 ? v->small : malloc(sizeof *v->reqs * (size_t)n);
    if (!v->reqs)
        omni_out_of_memory("a request array");
    v->copied = 1;
    for (int i = 0; i < n; i++) {
        preq_record *p = preq_get(reqs[i]);
        v->reqs[i] = p ? p->inner : reqs[i];
    }
    return v->reqs;
}

void preq_view_write_back(preq_view *v, int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        preq_record *p = preq_get(reqs[i]);
        if (p && p->oneshot && v->reqs[i] == MPI_REQUEST_NULL) {
            preq_release(reqs[i], p);
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
