/* request: the MPI_Request handles Omnibus gives out, and the completion
 * calls (Wait*, Test*, Request_get_status) that drive its progress.
 *
 * The handles, mixed freely with the underlying MPI's own in every call:
 *  - a send that was copied gets HANDLE_SENT, one handle shared by all
 *    such sends, read as an already done receive handle (below); MPI
 *    asks nothing of a completed send's request but its empty status;
 *  - a large send gets an Omnibus handle over its payload's request of the MPI
 *    underneath (preq.h);
 *  - a receive gets an Omnibus receive handle (handles.h, HANDLE_RECV_BIT)
 *    naming its match_recv.  The completion calls complete it themselves
 *    and give the MPI underneath only the rest of the array, so a receive
 *    costs the MPI underneath nothing: no generalized request, no poll_fn on
 *    any test of the MPI underneath;
 *  - a small synchronous send, a rendezvous send and an MPI_Isendrecv get
 *    a generalized request of the MPI underneath that Omnibus completes.
 *
 * Errors: a receive's error (MPI_ERR_TRUNCATE, or one the MPI underneath gave
 * moving a payload) is returned and raised through the receive's communicator
 * by the call that completes it, in its status's MPI_ERROR for the calls that
 * complete several (MPI_ERR_IN_STATUS), as MPI does.  A generalized
 * request cannot carry an error that way (the MPI underneath reports a
 * query_fn error as MPI_ERR_OTHER, on no communicator), so Isendrecv's
 * query_fn leaves it in omni.prog.ledger for the completion calls to raise.
 *
 * State table: each kind of request, who completes it, and what each
 * completion call does with it ("underlying": of the MPI underneath).
 *
 *  kind (handle)           made by           completed by
 *  ----------------------  ----------------  ------------------------------
 *  copied send             send_start        nobody: done when made
 *   (HANDLE_SENT)           (send.c)
 *  receive                 impl_Irecv,       the matching engine, when a
 *   (HANDLE_RECV_BIT|slot)  recv.c, mprobe   message or its payload is in
 *                           (Imrecv)         (recv.c: state RECV_DONE)
 *  large send's one-shot   send_start        the MPI underneath (the
 *   (preq record, pool     (send.c, preq.h)  payload's request); the preq
 *   omni.eng.persistent)                     view frees the handle when
 *                                            the inner one completes
 *  persistent send/recv    persist.c         its inner Omnibus request, one
 *   (preq record)                            per MPI_Start; then inactive
 *  persistent operation    neighbor.c,       its inner request (generalized
 *   Omnibus runs (preq)    nbr_plain.c       or underlying), one per
 *                                            MPI_Start
 *  generalized request     send.c (sync),    Omnibus, by
 *   (underlying)           rndv.c,           MPI_Grequest_complete: the
 *                          isendrecv.c,      ACK's arrival, the receiver's
 *                          nbr_exec.c        done, both halves, the run
 *  any other (underlying)  underneath        underneath
 *
 *  call                  receive handle            everything else
 *  --------------------  ------------------------  ------------------------
 *  Wait                  done: status out, handle  prog_wait, Omnibus
 *                        freed; else progress      progress between tests;
 *                        until done (recv_await)   ledger_raise_single
 *  Test                  done: as Wait; else one   prog_test
 *                        progress round, flag 0
 *  Waitall               each awaited in turn,     under_waitall: each
 *                        then completed            request awaited by
 *                                                  Request_get_status, then
 *                                                  one PMPI_Waitall (Q2)
 *  Testall               all done and the          prog_testall (Q1); if
 *                        underlying share done:    false, receives are left
 *                        completed; else none      untouched
 *                        changes
 *  Waitany, Testany      a done one first          the underlying share after
 *  Waitsome, Testsome    every done one            the underlying share after
 *  Request_get_status    flag, handle kept         the underlying MPI's, after
 *                                                  one round
 *  Request_free          done: freed; else freed   PMPI_Request_free
 *                        when it completes
 *  Cancel                unposted if unmatched     PMPI_Cancel
 *
 * One MPI_Waitall array is seen three ways on its path down: the generated
 * wrapper's preq view (preq.h: Omnibus handles standing for another
 * request read as their inner one), this module's split (receive handles
 * completed here, the rest, the underlying MPI's share, handed on in place),
 * and under_waitall's early list (requests it completed by PMPI_Test read
 * MPI_REQUEST_NULL to the closing PMPI_Waitall).  Positions never move,
 * so no index or status needs mapping back.
 *
 * What Omnibus does because of the underlying MPI's own departures is
 * listed, each with the test that pins it, in mpi/quirks.h.
 */
#ifndef OMNIBUS_REQUEST_H
#define OMNIBUS_REQUEST_H

#include "shim/match/match.h"
#include "shim/base/handles.h"

int request_init(void);
void request_finalize(void);

/* The record of a new receive, which its handle (*req) names: the pool of
 * receive handles holds the records themselves, so a handle costs no
 * allocation of its own.  The contents are undefined; the caller writes
 * every field, r->req = *req and r->user_comm among them.  A record never
 * handed to the program goes back with request_abandon_recv. */
static inline match_recv *request_new_recv(MPI_Request *req)
{
    int h;
    match_recv *r = handle_take(&omni.eng.recv_reqs, &h);
    *req = omni_request_of((uintptr_t)(h | HANDLE_RECV_BIT));
    return r;
}
void request_abandon_recv(match_recv *r);
/* r is done (RECV_DONE): a receive the program already freed goes now;
 * any other waits for the completion call that finds it. */
void request_complete_recv(match_recv *r);

/* MPI_Request_free and MPI_Cancel on any request: receive handles here,
 * the rest by the MPI underneath. */
int request_free(MPI_Request *request);
int request_cancel(MPI_Request *request);
/* MPI_Request_get_status on a request that is not persistent (persist.c
 * looks through a persistent one first): drives one progress round. */
int request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* A generalized request for synchronous send `id`. */
MPI_Request request_start_sync(uint32_t id);
/* A real request of the MPI underneath that is already complete, for Omnibus's
 * own callers (send_start_inner) and sends completed in odd places. */
int request_complete_send(MPI_Comm comm, MPI_Request *req);
/* The request a program gets for a send that completed as it was made:
 * HANDLE_SENT (handles.h), which costs the MPI underneath nothing. */
static inline int request_give_sent(MPI_Request *req)
{
    *req = omni_request_of(HANDLE_SENT);
    return MPI_SUCCESS;
}

/* The Wait/Test family, with the parameters of MPI_Wait and friends, on
 * requests of the MPI underneath and receive handles (the generated wrappers
 * translate persistent handles first).  They drive progress while they wait
 * and raise the errors of Omnibus receives through the receive's
 * communicator. */
int request_wait(MPI_Request *request, MPI_Status *status);
int request_test(MPI_Request *request, int *flag, MPI_Status *status);
int request_waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int request_testall(int count, MPI_Request requests[], int *flag,
                    MPI_Status statuses[]);
int request_waitany(int count, MPI_Request requests[], int *index,
                    MPI_Status *status);
int request_testany(int count, MPI_Request requests[], int *index, int *flag,
                    MPI_Status *status);
int request_waitsome(int incount, MPI_Request requests[], int *outcount,
                     int indices[], MPI_Status statuses[]);
int request_testsome(int incount, MPI_Request requests[], int *outcount,
                     int indices[], MPI_Status statuses[]);

#endif
