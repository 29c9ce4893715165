/* recv: receives, probes and delivery of arrived messages.
 *
 * recv_arrived() is the single door through which an item addressed to this
 * rank enters the matching engine: it goes to the oldest matching posted
 * receive or, failing that, to the unexpected queue (match.h).  A receive
 * completes when its data is in the user's buffer: at once for an eager
 * message, after the payload's own PMPI_Irecv for a large one.  A receive
 * with a request handle is then left for the completion calls to find
 * (request.h); one the program already freed goes at once.
 */
#ifndef OMNIBUS_RECV_H
#define OMNIBUS_RECV_H

#include "shim/match.h"

/* The receiving side's own state (receives awaiting rendezvous data). */
void recv_init(void);
void recv_finalize(void);

void recv_arrived(const rt_item_hdr *h, const char *body, omni_block *b);
/* As recv_arrived, without a block (deliver_in_place): only a message that
 * a posted receive takes at once, or that a freed communicator drops, is
 * handled; for any other it returns 0 having done nothing. */
int recv_arrived_if_taken(const rt_item_hdr *h, const char *body);

/* The data of the rendezvous message that receive `id` (from its CTS)
 * waits for arrived: the receive completes. */
void recv_rndv_data(uint32_t id, const char *data, uint32_t bytes);

/* Tests pending large-payload receives; completes those that are done.
 * Returns whether any is still pending (a progress poller). */
int recv_poll_payloads(void);

/* Starts a receive into r (already filled with buffer, source, tag, comm and
 * req): takes a matching unexpected message or posts r. */
void recv_start(match_recv *r);

/* r takes message m, which is in no queue any more (the caller frees m). */
void recv_take_message(match_recv *r, const match_msg *m);

/* Blocks (driving progress) until r is complete. */
void recv_wait(match_recv *r);

/* The replace forms send the buffer's old content while receiving into it:
 * packs it into a new copy (the caller frees it), *packed bytes long.  On
 * failure the copy is NULL and the error is returned. */
int recv_pack_aside(const void *buf, MPI_Count count, MPI_Datatype dtype,
                    MPI_Comm comm, void **copy, MPI_Count *packed);

#endif
