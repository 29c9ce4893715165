/* rndv: the rendezvous path, for a small message its pair's window has no
 * room for (credit.h).
 *
 * Contract.  rndv_start never waits for the receiver unless the caller is
 * a blocking send (req == NULL), which MPI lets wait until its message is
 * on its way.  It sends an RT_RNDV header along the ordered route at once,
 * so per-pair order holds, and keeps the message where it is: the user's
 * buffer (MPI forbids touching it until the request completes, so no copy
 * is made), with its datatype held (dtype.h); a buffered send's data is
 * packed into a copy charged against the attached buffer instead.  The
 * receiver matches the header like any message and answers with a CTS that
 * names the waiting receive; the CTS makes the sender copy the message into
 * an RNDV_DATA item (it is at most the threshold, so it fits a block) along
 * the aggregated path, and the send is complete; the receive completes when
 * the item arrives.  A CTS proves that a receive matched, so this path also
 * satisfies a synchronous send.
 *
 * Why not through the MPI underneath: a payload sent before its receive is
 * posted sits in the underlying MPI's unexpected queue, which every wildcard
 * wire receive scans, and thousands of payload receives posted ahead make the
 * underlying MPI's shared-memory matching, a linear list, slow for every
 * message.  Both turned floods into crawls.  Here a rendezvous costs the MPI
 * underneath nothing: its three items travel aggregated like any other.
 *
 * The request a nonblocking send gets is a generalized request of the MPI
 * underneath that progress completes; MPI_Cancel never withdraws it (send.h).
 *
 * Single-copy reads.  rndv_start_read is the same rendezvous for a large
 * contiguous message to a rank of the node that may read this rank's
 * memory (shm.h, omni.tx.read_pid): the header also carries the buffer's
 * address, the receiver copies the message straight from there into its
 * receive buffer once it has matched (one copy, where a node ring takes
 * two and the underlying MPI's eager path two), and its CTS then only says
 * that the read is done.  Until then the sender's buffer must stay as it is,
 * which MPI requires of a send's buffer until its request completes.
 */
#ifndef OMNIBUS_RNDV_H
#define OMNIBUS_RNDV_H

#include "shim/match/comm.h"
#include "shim/engine/send_mode.h"

int rndv_init(void);
void rndv_finalize(void);

/* Starts a rendezvous send of `bytes` bytes to world rank dst; see above.
 * Returns an MPI error code (raised through the communicator). */
int rndv_start(const void *buf, MPI_Count count, MPI_Datatype dtype,
               MPI_Count bytes, int dst, int tag, comm_rec *c,
               enum send_mode mode, MPI_Request *req);

/* The same for a message the receiver reads itself: a builtin datatype
 * (buf holds `bytes` contiguous bytes), standard or synchronous `mode`,
 * and dst with omni.tx.read_pid[dst] set.  A blocking standard one's
 * receiver may read it before any receive matches it (recv.c, Early
 * payloads), so that it waits no more than a header and payload would. */
int rndv_start_read(const void *buf, MPI_Count bytes, int dst, int tag,
                    comm_rec *c, enum send_mode mode, MPI_Request *req);

/* A CTS for rendezvous `id` arrived (its body names the receive, or says
 * the receiver read the message): the message goes now if it still has to,
 * and the send completes. */
void rndv_clear_to_send(uint32_t id, const char *cts_body);


/* True while buffered sends' copies still wait for their receivers. */
int rndv_bsends_pending(void);

#endif
