/* credit: the eager window of every (source, destination) pair, the rule of
 * router/flow.h applied.
 *
 * Contract: a source has at most omni.window item bytes (header included)
 * towards one destination that the destination's application has not yet
 * received.  credit_try_take() never waits: when a message does not fit,
 * it says so and the send path carries that message another way (send.c,
 * send_past_window): a blocking standard send on MPICH's own path, any
 * other by rendezvous, so that no send ever blocks for lack of credit
 * (MPI-4.1 §3.7: nonblocking sends are local; a blocking standard send may
 * complete once its data is on its way).  The destination counts the bytes its
 * receives consume (or that a freed communicator drops) per source, and
 * returns them in a CREDIT item once a quarter of the window has gathered.
 * Control items (ACK, CREDIT) and the headers of messages on MPICH's path
 * take no credit.  Self-sends are not windowed in practice (no other rank
 * is involved): their window is UINT32_MAX bytes, and what the application
 * consumes goes straight back to it, with no CREDIT item.  A window rather
 * than a test of the destination keeps the send path free of a branch on
 * it, which a program with random destinations mispredicts half the time.
 */
#ifndef OMNIBUS_CREDIT_H
#define OMNIBUS_CREDIT_H

#include "shim/base/state.h"

int credit_init(void);
void credit_finalize(void);

/* Whether `size` bytes fit the window towards world rank dst now
 * (credit_take then takes them); counts nothing. */
static inline int credit_fits(int dst, uint32_t size)
{
    return omni.credit[dst] >= size;
}

static inline void credit_take(int dst, uint32_t size)
{
    omni.credit[dst] -= size;
}

/* Takes `size` bytes of the window towards world rank dst and returns 1,
 * or returns 0, takes nothing and counts a full window when they do not
 * fit. */
static inline int credit_try_take(int dst, uint32_t size)
{
    if (!credit_fits(dst, size)) {
        omni.stats.window_full++;
        return 0;
    }
    credit_take(dst, size);
    return 1;
}

/* Gives back bytes taken for an item that was not sent after all. */
static inline void credit_refund(int dst, uint32_t size)
{
    omni.credit[dst] += size;
}

/* Gives world rank src what it is owed: in one CREDIT item, or, for this
 * rank itself, at once. */
void credit_return(uint32_t src);

/* The application here consumed `size` item bytes from world rank src.
 * Inline: every received item passes here. */
static inline void credit_consumed(uint32_t src, uint32_t size)
{
    if (!omni.on)
        return;
    omni.owed[src] += size;
    if (omni.owed[src] >= omni.window / 4)
        credit_return(src);
}

/* A CREDIT item from world rank src arrived. */
static inline void credit_returned(uint32_t src, uint32_t bytes)
{
    omni.credit[src] += bytes;
}

#endif
