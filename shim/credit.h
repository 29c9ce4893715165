/* credit: end-to-end flow control, the bound on what a rank holds for a
 * receiver that does not receive.
 *
 * Contract: a source may have at most omni.window item bytes (header
 * included) toward one destination that the destination's application has
 * not yet received.  Injection beyond that waits, driving progress (so the
 * waiting rank still forwards and delivers): back-pressure acts only at the
 * source.  The destination counts the bytes its receives consume (or that
 * a freed communicator drops) per source, and returns them in a CREDIT item
 * once a quarter of the window has gathered.  Intermediates never refuse
 * anything, and control items (ACK, CREDIT) need no credit, so waiting on
 * credit cannot deadlock a program that receives what it is sent.
 * Self-sends are not windowed (no other rank is involved).
 *
 * What this bounds: items waiting in one rank's unexpected queue come from
 * at most P-1 sources, each at most one window: (P-1) x window bytes.
 */
#ifndef OMNIBUS_CREDIT_H
#define OMNIBUS_CREDIT_H

#include "shim/state.h"

int credit_init(void);
void credit_finalize(void);

/* Waits (driving progress) until `size` bytes may go to world rank dst,
 * then takes them. */
void credit_wait(int dst, uint32_t size);

static inline void credit_take(int dst, uint32_t size)
{
    if (dst == omni.rank)
        return;
    if (omni.credit[dst] < size)
        credit_wait(dst, size);
    omni.credit[dst] -= size;
}

/* The application here consumed `size` item bytes from world rank src. */
void credit_consumed(uint32_t src, uint32_t size);

/* A CREDIT item from world rank src arrived. */
static inline void credit_returned(uint32_t src, uint32_t bytes)
{
    omni.credit[src] += bytes;
}

#endif
