/* persist: persistent requests on managed communicators (MPI-4.1 §3.9).
 *
 * MPI_Send_init and friends return an Omnibus request handle (handles.h)
 * that remembers the arguments.  MPI_Start starts an ordinary Omnibus send
 * or receive and keeps its request as the `inner` one; the persistent
 * request is active while inner is not MPI_REQUEST_NULL.  The completion
 * calls see a view of the caller's array in which each Omnibus handle is
 * replaced by its inner request (MPI_REQUEST_NULL when inactive, which MPI
 * treats alike); afterwards the persistent handles stay in the caller's
 * array, now inactive, and everything else is copied back.
 *
 * The same handles serve a large nonblocking send (send.h): a one-shot
 * handle over its payload request, released when that completes, so that
 * MPI_Cancel can tell a payload from any other MPICH request.
 */
#ifndef OMNIBUS_PERSIST_H
#define OMNIBUS_PERSIST_H

#include <mpi.h>
#include "shim/send_mode.h"
#include "shim/handles.h"

typedef struct {
    MPI_Request small[16];
    MPI_Request *reqs;     /* what MPICH is given: the caller's or a copy */
    int copied;
} persist_view;

/* A persistent or one-shot send handle: an Omnibus request that is not a
 * receive's. */
static inline int persist_handle_is(MPI_Request r)
{
    return (unsigned)r - 1u < (unsigned)HANDLE_RECV_BIT - 1u;
}

/* The out-of-line halves of the two below: the copy of reqs with each
 * persistent handle replaced by its inner request (reqs itself, with
 * v->copied left 0, when none is persistent), and the write-back of a
 * copy's completions into the caller's array. */
MPI_Request *persist_view_copy(persist_view *v, int n, MPI_Request *reqs);
void persist_view_write_back(persist_view *v, int n, MPI_Request *reqs);

/* The array to hand to MPICH in place of reqs: reqs itself unless it holds
 * a persistent handle.  Inline because MPI_Wait and MPI_Test on one request
 * run it per call and that request is rarely persistent. */
static inline MPI_Request *persist_view_begin(persist_view *v, int n,
                                              MPI_Request *reqs)
{
    v->copied = 0;
    v->reqs = reqs;
    if (n == 1 && !persist_handle_is(reqs[0]))
        return reqs;
    return persist_view_copy(v, n, reqs);
}

/* Writes completions back into the caller's array. */
static inline void persist_view_end(persist_view *v, int n, MPI_Request *reqs)
{
    if (v->copied)
        persist_view_write_back(v, n, reqs);
}

/* MPI_Send_init and its modes on a managed communicator; the arguments are
 * checked when the send starts, as for its nonblocking form. */
int persist_send_init(const void *buf, MPI_Count count, MPI_Datatype dtype,
                      int dest, int tag, MPI_Comm comm, enum send_mode mode,
                      MPI_Request *request);

/* A one-shot Omnibus handle over a large send's payload request. */
MPI_Request persist_wrap_send(MPI_Request payload, MPI_Comm comm);

/* A persistent operation Omnibus runs itself (neighbourhood collectives):
 * MPI_Start calls start(), which begins a run and gives the request that
 * completes with it; MPI_Request_free calls release(). */
typedef struct {
    int (*start)(void *state, MPI_Request *inner);
    void (*release)(void *state);
} persist_ops;
MPI_Request persist_new_custom(const persist_ops *ops, void *state,
                               MPI_Comm comm);

void persist_init(void);
void persist_finalize(void);

#endif
