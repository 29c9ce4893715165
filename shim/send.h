/* send: every send mode on a managed communicator.
 *
 * A message of at most omni.threshold bytes is copied into the buffer of its
 * next hop and the send is complete at once (standard, ready and buffered
 * modes: MPI allows a send to complete once its data is copied); the
 * program's request is HANDLE_SENT (request.h), Omnibus's own callers get a
 * real, already complete MPICH request.  A synchronous send's item asks
 * for an ACK, and its request completes when the ACK comes back, that is,
 * once a receive has matched it.  A larger message sends a LARGE header
 * along the same route, then its payload straight to the destination on the
 * payload communicator under a tag of its own.  The request a user holds
 * for it is an Omnibus handle over that payload's MPICH request (persist.h),
 * so that MPI_Cancel cannot withdraw a payload whose header has already
 * left: the receiver would match the header and wait for ever.  Omnibus's
 * own callers take the MPICH request itself (send_start_inner).
 */
#ifndef OMNIBUS_SEND_H
#define OMNIBUS_SEND_H

#include "shim/comm.h"
#include "shim/send_mode.h"

/* Starts a send; with req == NULL it is blocking and returns when complete.
 * *req is a request the user holds: MPI_Cancel never withdraws it. */
int send_start(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
               int tag, comm_rec *c, enum send_mode mode, MPI_Request *req);

/* As send_start, for a request Omnibus itself completes (persistent and
 * combined operations): *req is always a request MPICH knows. */
int send_start_inner(const void *buf, MPI_Count count, MPI_Datatype dtype,
                     int dest, int tag, comm_rec *c, enum send_mode mode,
                     MPI_Request *req);

/* A synchronous send's ACK arrived. */
void send_sync_acked(uint32_t id);

/* Answers a synchronous send: its receive has matched. */
void send_ack(uint32_t src_world, uint32_t id);

/* Frees the buffered-send payloads MPICH has finished sending; returns
 * whether any is left (a progress poller). */
int send_poll_bsends(void);

int send_init(void);
void send_finalize(void);

#endif
