/* request: the MPI_Request handles Omnibus gives out, and the completion
 * calls (Wait*, Test*, Request_get_status) that drive its progress.
 *
 * Every handle is one MPICH knows (DESIGN §2, decision 4), so it works in
 * any call that takes a request, mixed with real ones:
 *  - a send that was copied gets a real, already complete request;
 *  - a large send gets its payload's real MPICH request;
 *  - a receive and a small synchronous send get an MPICH generalized
 *    request that Omnibus completes (MPIX_Grequest_class_allocate).
 *
 * Errors: a generalized request cannot carry MPI_ERR_TRUNCATE the way MPI
 * wants (MPICH reports a query_fn error as class MPI_ERR_OTHER, and on no
 * communicator), so query_fn always succeeds and leaves the error in
 * omni.ledger; the completion wrappers then put it in the right status and
 * raise it through the receive's communicator, as MPI does.
 */
#ifndef OMNIBUS_REQUEST_H
#define OMNIBUS_REQUEST_H

#include "shim/match.h"

int request_init(void);

/* Gives r a generalized request (r->greq). */
void request_start_recv(match_recv *r);
/* r is done: completes its generalized request (MPI may free r at once). */
void request_complete_recv(match_recv *r);
/* Completes the receives cancelled since the last progress round. */
void request_complete_cancelled(void);
/* A generalized request for synchronous send `id`. */
MPI_Request request_start_sync(uint32_t id);
/* A real MPICH request that is already complete. */
int request_complete_send(MPI_Comm comm, MPI_Request *req);

/* The Wait/Test family, with the parameters of MPI_Wait and friends, on
 * requests MPICH knows (the generated wrappers translate Omnibus handles
 * first).  They drive progress while they wait and raise the errors of
 * Omnibus receives through the receive's communicator. */
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
