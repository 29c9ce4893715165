/* inbox: the payloads of large messages, taken out of the MPI underneath
 * in the order they arrived.
 *
 * A LARGE message's payload travels apart from its header (send.c,
 * send_large): straight to the destination on omni.job.payload_comm under
 * a tag of its own, while the header takes the ordered route, through
 * relays, and may come much later.  Receiving each payload by its source
 * and tag makes the MPI underneath search its unexpected messages, and
 * under MPICH 4.0's ch4:ucx every such receive walks the whole list
 * (docs/design/transport.md, Early payloads): a receiver whose senders
 * fell back by the ten thousand (flood_late_receiver under the window rule
 * of a million ranks) received in time quadratic in their number, 20 s
 * and more where plain MPI takes 1 s.
 *
 * The inbox takes them out in the order they came.  A matched probe of
 * any source and any tag matches the oldest payload waiting at once, so
 * when a header claims its payload (inbox_claim), the inbox probes until
 * it has it and keeps, under their (source, payload tag), the payloads
 * that came before it, which their own headers claim later:
 *   - one of at most INBOX_EARLY_MAX bytes, while OMNIBUS_EAGER_POOL has
 *     room, is received at once into a buffer of Omnibus's own, an early
 *     payload, charged to the pool as recv.c charges one
 *     (match_early_take);
 *   - any other keeps its MPI_Message, and is received into the program's
 *     buffer by the receive that takes its header (MPI_Imrecv).
 * A probe costs what a receive by tag costs in walking the list, and
 * there is one per payload, plus one that finds none when a payload has
 * not arrived: never a probe in a round with no large header to serve.
 * Payloads of synchronous sends travel on omni.eng.inbox.sync_comm,
 * which the inbox never probes: the receive that takes their header is
 * what completes the sender's MPI_Issend.  A sender's payload tags cycle,
 * so entries of one (source, tag) are claimed oldest first.
 *
 * Ownership: an entry's buffer, request and message are the inbox's until
 * inbox_claim hands them to its caller; inbox_finalize receives and frees
 * what no header claimed.
 */
#ifndef OMNIBUS_INBOX_H
#define OMNIBUS_INBOX_H

#include <mpi.h>
#include <stdint.h>
#include "shim/base/state.h"
#include "shim/match/match.h"

/* The largest payload received early, under UCX's largest eager sizes, so
 * that the copy replaces the MPI underneath's rather than adding one. */
#define INBOX_EARLY_MAX ((MPI_Count)65536)

/* The inbox keys of messages taken without a header (envelope.h,
 * inbox_hold): above every payload tag of the header path
 * (omni.job.payload_tag_max), within an item's value (router/wire.h,
 * RT_META_MAX). */
#define INBOX_BARE_KEYS (1u << 27)

/* The most payloads the inbox holds by their MPI_Message (each is a
 * request of the MPI underneath, whose supply is finite); past it they
 * wait in the MPI underneath, received by source and tag. */
#define INBOX_MAX 16384

/* Whether a payload of `bytes` may be received early now by source and
 * tag (recv.c): within the pool, and within OMNI_EARLY_MAX receives
 * posted ahead. */
static inline int inbox_early_fits(MPI_Count bytes)
{
    return bytes <= INBOX_EARLY_MAX &&
           omni.match.early_count < OMNI_EARLY_MAX &&
           omni.match.early_bytes + omni_early_charge(bytes) <=
               omni.job.cfg.eager_pool;
}

/* A payload claimed: received early into `early` (its receive `req`, or
 * MPI_REQUEST_NULL once in), or, with early NULL, still in the MPI
 * underneath as `msg`. */
typedef struct inbox_payload {
    char *early;
    MPI_Request req;
    MPI_Message msg;
} inbox_payload;

void inbox_init(void);

/* Keeps payload `msg` of `bytes` from world rank src under `key`, which a
 * LARGE header will claim (inbox_claim): a message that came without a
 * header (envelope.h), probed out of the MPI underneath by the caller. */
void inbox_hold(uint32_t src, uint32_t key, MPI_Message msg, MPI_Count bytes);
void inbox_finalize(void);

/* Removes the oldest payload from world rank src under payload tag `tag`
 * into *out and returns 1: one held already, or else one the MPI
 * underneath holds, taking into the inbox every payload that came before
 * it.  Returns 0 when it has not arrived (or waits past INBOX_MAX), so
 * that a receive by source and tag is what takes it.  With `early_only`
 * (no receive waits for it), a payload held by its message is received
 * early when it fits INBOX_EARLY_MAX and the pool, unless it is a message
 * without header no larger than wire_piece, which the MPI underneath sent
 * at once; one not received so stays in the inbox for the receive that
 * takes its header, and the call returns -1. */
int inbox_claim(uint32_t src, uint32_t tag, int early_only,
                inbox_payload *out);

#endif
