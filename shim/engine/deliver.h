/* deliver: what happens to a block that arrived.
 *
 * The transport hands every block it takes in (from a node ring, from a
 * wire receive, or a block this rank shipped to itself) to the function
 * it was given at start-up, deliver_block, and holds none of its own
 * knowledge of items: the control items go to the engine that waits for
 * them (ACK to send.h, CREDIT to credit.h, CTS to rndv.h, rendezvous data
 * and messages to recv.h), and the items for other ranks go back to the
 * transport, appended to their next hop's buffer.  So the arrows point from
 * here down to the transport and the matching engine, never up from them.
 *
 * Contract: items are handled in block order, which keeps every link FIFO
 * (transport.h).  A wire block that starts with a link's mark waits until
 * the large messages its sender sent without a header before it have
 * been taken in (envelope.h), and every wire block after it waits too, in
 * arrival order; a progress poller processes them once the mark is met.  The block stays valid while any queued message points
 * into it (its reference count); deliver_block drops the reference the
 * transport gave it.
 */
#ifndef OMNIBUS_DELIVER_H
#define OMNIBUS_DELIVER_H

#include "shim/base/state.h"

void deliver_block(omni_block *b);

/* A LARGE header this rank made for a message that came without one
 * (envelope.h, which is given this function): delivered as an item. */
void deliver_header(const rt_item_hdr *h, const char *body, omni_block *b);

/* Registers the progress poller for wire blocks waiting behind a link's
 * mark (envelope.h), which processes them, in order, as the marks are
 * met. */
void deliver_add_poller(void);

/* The items of `len` bytes at `data`, which the caller must not keep (a
 * record in a node ring), delivered in place for as long as each is done
 * with at once: a control item, an item forwarded, or a message that a
 * posted receive takes.  Returns the bytes so delivered; the rest, from
 * the first message that would have to wait in the unexpected queue on,
 * is the caller's to copy into a block and deliver with deliver_block.  So
 * a posted receive gets its data straight from the ring, with no copy in
 * between, and order is kept. */
size_t deliver_in_place(const char *data, size_t len);

#endif
