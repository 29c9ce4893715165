/* envelope: large messages whose MPI envelope is their header.
 *
 * A large standard send to a rank that is its own next hop through the
 * MPI underneath goes, once that rank has been sent one header, as the
 * program's message alone, straight on wire_comm under a tag that names
 * its communicator, its tag and the blocks sent before it on the link
 * (router/envelope.h), with no header along the ordered route.  Over a
 * network a header is one more message per send: the ping-pong paid it
 * at every size (docs/design/transport.md, Messages whose envelope is
 * their header).  Synchronous and buffered sends, relayed messages, and
 * tags or communicators the tag has no room for keep their header
 * (env_possible).  Among the rest the sender chooses (send.c): up to the
 * crossover envelope_max (omni.tx.paths) without a header, above it with
 * one, unless the pair learns the choice for its blocking sends too large
 * for a block.  Either way the receiver takes the message in its place in
 * the pair's order.
 *
 * Contract, sender (env_send, once env_possible said yes): the buffer
 * filling for the receiver ships first, so every item sent before the
 * message is in a block before it;
 * the next block on the link goes after a mark that counts the messages
 * sent so (transport_mark_next).  The message is an injected item like a
 * header (omni.eng.sent_to), so MPI_Finalize waits for its delivery.
 *
 * Contract, receiver: it polls (env_poll, in every progress round) from
 * the first header a neighbour reached through the MPI underneath sends
 * it (env_heard_header): before that, the neighbour sends none.  A
 * message is taken (an MPI_Improbe, kept by its MPI_Message in the inbox,
 * inbox.h) only in its pair's order: once the link's blocks before it are
 * processed (env_block_done counts them); then the LARGE header it would
 * have had is delivered to the matching engine with the payload already
 * in hand, so matching, wildcards, probes, statuses and truncation are the
 * header path's.  A block behind a mark is processed only once the
 * messages the mark counts are taken (env_take_due); until then it, and
 * every wire block after it, waits (deliver.c).
 */
#ifndef OMNIBUS_ENVELOPE_ENGINE_H
#define OMNIBUS_ENVELOPE_ENGINE_H

#include <mpi.h>
#include <stdint.h>
#include "shim/match/comm.h"
#include "router/wire.h"

/* What the receiver does with the LARGE header (h, its body, in block b)
 * a message without one would have had: the engine's delivery of an item
 * (deliver.c), given here so that this module calls nothing above it. */
typedef void (*env_deliver_fn)(const rt_item_hdr *h, const char *body,
                               omni_block *b);

void env_init(env_deliver_fn deliver);
void env_finalize(void);

/* Whether a standard-mode large message to world rank dst under (c, tag)
 * can go without a header now: dst is a neighbour through the MPI
 * underneath that has been sent a header, and the tag has room for c's id
 * and tag. */
int env_possible(int dst, int tag, const comm_rec *c);

/* Sends such a message without a header (env_possible said it can) and
 * returns the send's result: a blocking one, req NULL, has waited for the
 * MPI underneath to free the buffer. */
int env_send(const void *buf, MPI_Count count, MPI_Datatype dtype, int dst,
             int tag, comm_rec *c, MPI_Request *req, int user_req);

/* A LARGE header went to world rank dst: from now on dst polls for
 * messages without one, when it is a neighbour through the MPI
 * underneath. */
void env_sent_header(int dst);

/* A LARGE header arrived from world rank src: the same from this end. */
void env_heard_header(int src);

/* A wire block from world rank src has been processed. */
void env_block_done(int src);

/* Takes in the messages from world rank src that a mark saying `count`
 * asks for, in order; returns 1 once as many were taken from src, 0 when
 * the next one is not visible yet. */
int env_take_due(int src, uint32_t count);

/* The progress poller: takes in the messages that have arrived in their
 * pairs' order. */
int env_poll(void);
void env_add_poller(void);

#endif
