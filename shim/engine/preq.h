/* preq: Omnibus request handles that stand for another request.
 *
 * Three kinds of MPI_Request live in one handle pool (omni.eng.persistent,
 * handles.h) and each holds an `inner` request, the one that really
 * completes:
 *  - a persistent send or receive on a managed communicator (ops/persist.h
 *    creates and starts it; inner is MPI_REQUEST_NULL while it is inactive);
 *  - a one-shot handle over a large nonblocking send's payload request
 *    (engine/send.c), released by the completion that finds the payload
 *    sent, so that MPI_Cancel can tell a payload from any other the MPI
 *    underneath request;
 *  - a persistent operation Omnibus runs itself (neighbourhood
 *    collectives): MPI_Start calls its start(), MPI_Request_free its
 *    release().
 *
 * The completion calls see a view of the caller's array in which each such
 * handle is replaced by its inner request (MPI_REQUEST_NULL when inactive,
 * which MPI treats alike); afterwards the persistent handles stay in the
 * caller's array, now inactive, spent one-shot handles become
 * MPI_REQUEST_NULL, and everything else is copied back.
 *
 * This module sits in the engine so that the send path can hand out a
 * one-shot handle without calling up into the operations built on it.
 */
#ifndef OMNIBUS_PREQ_H
#define OMNIBUS_PREQ_H

#include <mpi.h>
#include "shim/engine/send_mode.h"
#include "shim/base/handles.h"

/* A persistent operation Omnibus runs itself: start() begins a run and
 * gives the request that completes with it; release() frees its state. */
typedef struct {
    int (*start)(void *state, MPI_Request *inner);
    void (*release)(void *state);
} preq_ops;

typedef struct {
    int pool_link;
    int in_use;
    int is_recv;
    enum send_mode mode;
    const void *sbuf;
    void *rbuf;
    MPI_Count count;
    MPI_Datatype dtype;     /* held (dtype.h) from creation to free */
    int peer, tag;
    MPI_Comm comm;
    MPI_Request inner;      /* MPI_REQUEST_NULL while inactive */
    int oneshot;            /* a large send's payload: released on completion */
    const preq_ops *ops;    /* an operation run elsewhere (preq_new_custom) */
    void *state;
} preq_record;

typedef struct {
    MPI_Request small[16];
    MPI_Request *reqs;     /* what the MPI underneath is given: the
                              caller's or a copy */
    int copied;
} preq_view;

/* A handle of this pool: an Omnibus request that is not a receive's. */
static inline int preq_handle_is(MPI_Request r)
{
    return omni_request_bits(r) - 1u < (uintptr_t)HANDLE_RECV_BIT - 1u;
}

/* The record behind h, or NULL when h is not a live handle of this pool. */
preq_record *preq_get(MPI_Request h);

/* A new record, zeroed but for in_use; *handle names it. */
preq_record *preq_new(MPI_Request *handle);

/* Returns p's slot to the pool; h is p's handle. */
void preq_release(MPI_Request h, preq_record *p);

/* A one-shot handle over a large send's payload request. */
MPI_Request preq_wrap_send(MPI_Request payload, MPI_Comm comm);

/* A handle over an operation Omnibus runs itself; starts inactive. */
MPI_Request preq_new_custom(const preq_ops *ops, void *state, MPI_Comm comm);

/* The out-of-line halves of the two below: the copy of reqs with each
 * handle of this pool replaced by its inner request (reqs itself, with
 * v->copied left 0, when there is none), and the write-back of a copy's
 * completions into the caller's array. */
MPI_Request *preq_view_copy(preq_view *v, int n, MPI_Request *reqs);
void preq_view_write_back(preq_view *v, int n, MPI_Request *reqs);

/* The array to hand to the MPI underneath in place of reqs: reqs itself unless
 * it holds a handle of this pool.  Inline because MPI_Wait and MPI_Test on one
 * request run it per call and that request rarely is one. */
static inline MPI_Request *preq_view_begin(preq_view *v, int n,
                                           MPI_Request *reqs)
{
    v->copied = 0;
    v->reqs = reqs;
    if (n == 1 && !preq_handle_is(reqs[0]))
        return reqs;
    return preq_view_copy(v, n, reqs);
}

/* Writes completions back into the caller's array. */
static inline void preq_view_end(preq_view *v, int n, MPI_Request *reqs)
{
    if (v->copied)
        preq_view_write_back(v, n, reqs);
}

void preq_init(void);
void preq_finalize(void);

#endif
