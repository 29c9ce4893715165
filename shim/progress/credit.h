/* credit: the eager windows of every (source, destination) pair, the rule
 * of router/flow.h applied (docs/design/flow-control.md).
 *
 * Contract.  A source has at most its window of item bytes (header
 * included) towards one destination that the destination's application has
 * not yet received; credit_try_take() never waits.  The destination lends
 * the windows: every pair starts from the base window (omni.credit.window),
 * and a pair whose source runs out while the destination consumes what it sent
 * grows (fl_growth), within the pool the destination lends in all.
 *
 * The conversation of one pair, all in control items that go at once
 * (urgent items, never left in a buffer for a later flush):
 *   - the destination returns consumed bytes in a CREDIT item every
 *     fl_step(window) bytes, from inside the receive that consumed them;
 *   - a source that runs out sends a STALL (one at a time, the next only
 *     once this one is answered) and waits only in a blocking standard
 *     send (credit_wait); any other send goes on by another path at once
 *     (send.c), so no send that MPI makes local ever waits;
 *   - the destination answers a STALL in its next progress round.  Links
 *     are FIFO, so everything the source sent before it has arrived.  If
 *     the destination consumed something since its last CREDIT it answers
 *     with a GRANT: those bytes, and growth when the source can take more
 *     and the pool has room.  If it consumed nothing, the source's items
 *     all wait here unreceived.  While this rank sits in a call that waits
 *     for something else (a barrier, a receive from another rank), that
 *     call may still end and the next one take them: the answer waits
 *     until this rank consumes from the source (GRANT), polls outside a
 *     wait or itself waits for credit (REFUSED: the call it returned to
 *     did not take them, or the two ranks send to each other), or has
 *     waited CREDIT_DEFER_NS of its own running time (REFUSED: the wait
 *     may need the source to move on); meanwhile a HOLD every
 *     CREDIT_HOLD_NS tells the source it still polls.  Otherwise it
 *     answers REFUSED at once (unless the window is too small for the
 *     message that stalled: then it grows it);
 *   - a source that was REFUSED with no CREDIT since its STALL sends its
 *     blocking standard sends past the window to the MPI underneath (send.c)
 *     until the next CREDIT or GRANT: a pair that fell back returns to
 *     aggregation as soon as its destination drains.
 * The clocks: a destination that answers nothing at all (it computes, or
 * sits in a call Omnibus does not drive) is taken as not consuming once
 * it has been silent for credit_silence_ns(), which grows with the gaps
 * the pair's own credit has shown while the source waited, so a slow
 * consumer is not mistaken for a silent one.  Neither a HOLD nor the MPI
 * underneath still moving what the source sent before its STALL is silence.  A
 * deferred answer counts the destination's running time, not the wall's
 * (a gap between two of its polls counts at most CREDIT_POLL_GAP_NS), so
 * a rank that lost its core to another process is not taken for one
 * whose wait needs the source.
 *
 * Lending within the pool: a destination that cannot grow a demanding
 * pair asks the pairs it grew earlier, and that consumed nothing since it
 * last asked, to give back grown window they do not use (RECLAIM,
 * answered by RELEASE); a source whose budget of grown window
 * (fl_sender_budget) is spent gives back, unasked, the growth of
 * destinations it has no more than a base window in flight to.  Growth
 * counts against the source's budget from the STALL that asks for it
 * until its answer, so the budget is never overdrawn.
 *
 * Relays: a pair whose route passes relays grows as a one-hop pair does,
 * within what each relay can carry (fl_relay_budget).  The STALL travels
 * the pair's route, so each relay lowers the growth it asks for to what
 * it has left and reserves that (credit_relaying); the answer travels the
 * other way, through other ranks, so the source, once answered, sends a
 * settling RELEASE along its route that turns each relay's reservation
 * into the growth granted.  A relay sees every later RELEASE of the pair
 * too, so what it carries is the pair's growth, never more.  Control items
 * and the headers of messages on the underlying MPI's path take no credit.  Self-sends have
 * an unbounded window; what the application consumes goes straight back. *
 * Sparse records.  Every rank keeps three numbers per job rank: the
 * credit it has towards it (omni.credit.left), what it consumes from it
 * before a CREDIT falls due (omni.credit.due), and the index of the pair's
 * record (omni.credit.pair).  The record (struct credit_pair, both
 * directions) is made when the pair's first control item other than a
 * CREDIT passes here (a STALL sent or received, an answer to one, a
 * RECLAIM or RELEASE) and kept until MPI_Finalize; a pair without one is
 * at its base (lent and step of the base window, nothing stalled, grown,
 * refused or deferred), which is all a CREDIT of the base step needs.
 * Records are made a slab of CREDIT_SLAB at a time, never per item, and
 * counted in the statistics file (flow.pair_records).
 */
#ifndef OMNIBUS_CREDIT_H
#define OMNIBUS_CREDIT_H

#include "shim/base/state.h"
#include "router/wire.h"

/* A destination's account of one source's window.  What the source may
 * still hold as credit, have in flight or have waiting here unreceived
 * ("held") is lent less the bytes consumed since the last CREDIT, which
 * omni.credit.due counts down from min(step, INT32_MAX) (credit.c). */
struct credit_in {
    uint32_t lent;     /* the window lent to the source: base + growth */
    uint32_t step;     /* fl_step(lent): consumed bytes gathered before a
                          CREDIT goes back (FL_STEP_NONE: only in the
                          answer to a STALL) */
    uint32_t stall_need, stall_accept; /* the deferred STALL's need and
                          accept */
    uint8_t consumed;  /* bytes went back since the last reclaim sweep
                          (read only while listed) */
    uint8_t reclaiming;/* a RECLAIM is unanswered */
    uint8_t listed;    /* in omni.credit.grown_in */
    uint8_t deferred;  /* a STALL waits for an answer (omni.credit.deferred) */
};

/* A source's account of one destination (the hot part is omni.credit.left). */
struct credit_out {
    uint32_t grown;     /* of the window, what was grown beyond the base */
    uint32_t asked;     /* growth the unanswered STALL can take (reserved
                           in omni.credit.grown) */
    uint32_t heard;     /* CREDIT, GRANT and REFUSED items received: a
                           waiting send sees the destination answer */
    uint8_t stalled;    /* a STALL is unanswered */
    uint8_t fresh;      /* a CREDIT came since the STALL went */
    uint8_t refused;    /* not consuming: until the next CREDIT or GRANT,
                           blocking sends past the window go to the
                           MPI underneath */
    uint8_t listed;     /* in omni.credit.grown_out */
    uint64_t last_ns;   /* when the destination last showed life while
                           this rank waited (an answer, a HOLD, or the
                           MPI underneath completing a block sent
                           before the STALL) */
    uint64_t gap_ns;    /* the largest recent gap between two answers while
                           waiting (decays by an eighth a gap) */
};

/* The record of a pair that left its base, both ways. */
struct credit_pair {
    struct credit_in in;
    struct credit_out out;
};

/* Records per slab of omni.credit.pool. */
#define CREDIT_SLAB 256

/* The record of the pair with world rank r, or NULL at its base. */
static inline struct credit_pair *credit_pair_of(int r)
{
    uint32_t i = omni.credit.pair[r];
    return i ? &omni.credit.pool[(i - 1) / CREDIT_SLAB][(i - 1) % CREDIT_SLAB]
             : NULL;
}

int credit_init(void);
void credit_finalize(void);

/* Whether `size` bytes fit the window towards world rank dst now
 * (credit_take then takes them); counts nothing. */
static inline int credit_fits(int dst, uint32_t size)
{
    return omni.credit.left[dst] >= size;
}

static inline void credit_take(int dst, uint32_t size)
{
    omni.credit.left[dst] -= size;
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
    omni.credit.left[dst] += size;
}

/* Gives world rank src what it is owed (and any growth it asked for): in
 * one CREDIT item, or, for this rank itself, at once. */
void credit_return(uint32_t src);

/* The arithmetic of credit_consumed while Omnibus is on: returns whether
 * a credit_return(src) is now due, for a caller that makes it itself. */
static inline int credit_consumed_due(uint32_t src, uint32_t size)
{
    int32_t due = omni.credit.due[src] - (int32_t)size;
    omni.credit.due[src] = due;
    return due <= 0;
}

/* The application here consumed `size` item bytes from world rank src.
 * Inline: every received item passes here. */
static inline void credit_consumed(uint32_t src, uint32_t size)
{
    if (omni.job.on && credit_consumed_due(src, size))
        credit_return(src);
}

/* A CREDIT of `bytes` from world rank peer. */
static inline void credit_returned(uint32_t peer, uint32_t bytes)
{
    omni.credit.left[peer] += bytes;
    struct credit_pair *p = credit_pair_of((int)peer);
    if (p) { /* a pair at its base is neither refused nor waited on */
        p->out.refused = 0;
        p->out.fresh = 1;
        p->out.heard++;
    }
}

/* The other control items from world rank `peer` (deliver.c): a STALL
 * of a message of `need` item bytes that can take `accept` bytes of
 * growth; a GRANT of `bytes`, `growth` of them new window; a REFUSED; a
 * RECLAIM of `bytes`; a RELEASE of `bytes` (or, with tag
 * RT_RELEASE_SETTLE, the relays' business only). */
void credit_stalled(uint32_t peer, uint32_t need, uint32_t accept);
void credit_granted(uint32_t peer, uint32_t bytes, uint32_t growth);
void credit_refused(uint32_t peer);
void credit_reclaimed(uint32_t peer, uint32_t bytes);
void credit_released(uint32_t peer, uint32_t bytes, int32_t tag);

/* A HOLD from world rank peer: it answers this rank's STALL later, and
 * still polls. */
void credit_held(uint32_t peer);

/* A STALL or RELEASE this rank relays, already copied to `copy` in its
 * next hop's buffer: a STALL asks there for no more growth than this
 * rank can still carry, and reserves it until the source settles; a
 * RELEASE settles or gives back growth this rank carried.  Every other
 * item passes untouched (deliver.c calls this for control items only). */
void credit_relaying(char *copy, const rt_item_hdr *h);

/* Registers the progress poller (omni.credit.poller) of the STALLs
 * credit_stalled left unanswered: a source this rank consumed from since gets
 * its GRANT; the others are REFUSED unless this round is a step of a call that
 * waits for something else, this rank is not itself waiting for credit, and
 * the STALL has waited less than CREDIT_DEFER_NS of this rank's running
 * time; those left get a HOLD every CREDIT_HOLD_NS. */
void credit_add_poller(void);

/* The window towards world rank dst is too small for a send of `size`
 * item bytes: tells dst (one STALL until it answers), and never waits.
 * Any send past its window calls it, so that a pair that streams grows
 * its window whichever path its messages then take. */
void credit_stall(int dst, uint32_t size);

/* A blocking standard send of `size` item bytes past its window: waits,
 * driving progress, while dst consumes, and returns 1 once they fit; 0,
 * at once or later, when dst is not consuming (REFUSED, or silent for
 * credit_silence_ns), and the send goes to the MPI underneath. */
int credit_wait(int dst, uint32_t size);

#endif
