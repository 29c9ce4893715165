/* adapt: when a partly filled buffer leaves, decided from what the
 * transport observes (docs/design/progress.md, When a buffer leaves).  No
 * MPI here; tests/unit/test_adapt.c.
 *
 * A buffer always leaves when the next item does not fit, and before any
 * call that can wait (progress.h).  Otherwise it leaves at a progress round
 * (every Omnibus call that polls: MPI_Test*, MPI_Iprobe, each step of a
 * wait loop) when waiting longer cannot gain anything:
 *
 *  - the rank is QUIET: the program sent nothing since the previous round
 *    and it WAITS: this round is a step of a call that waits (MPI_Wait*,
 *    a blocking receive or collective, ...), or the program's previous
 *    poll (MPI_Test*, MPI_Iprobe) found nothing.  A program that has
 *    stopped sending and waits is waiting for something, perhaps the reply
 *    to what sits in the buffer; holding it only adds latency.  A lone
 *    message before a polling loop or a request/reply exchange ships at the
 *    second poll.  A loop that drains arrivals (polls that find something)
 *    between bursts of sends is not waiting, and its buffers keep filling.
 *    Items a relay forwards are not the program's sends: they come out of
 *    the blocks that arrive, whatever the program does.  A relay whose
 *    program waits ships them in the round that forwarded them, exactly as
 *    a source that waits ships what it sent (a call that waits ships every
 *    buffer before it starts, progress.h): nothing more of this rank's own
 *    is coming, and the ranks they are for may be waiting on them.  Counted
 *    as sends, they made every round after the forwarding one look quiet
 *    only to a program that polls with MPI_Test, never to one inside
 *    MPI_Waitall, so they waited for the age flush: a gather-scatter
 *    exchange on a 2x2 grid took one OMNIBUS_FLUSH_US (500 us) a relay hop,
 *    545 us an exchange against 7 us direct.  A relay that is
 *    not waiting (computing, or draining) keeps re-aggregating them.
 *  - the buffer is IDLE: nothing was appended to it for ad_idle_after()
 *    SENDING rounds, rounds in which the rank appended elsewhere (sent or
 *    forwarded: the caller advances the epoch after either): idle_rounds
 *    times the gap a buffer should see between two appends, were the
 *    rank's appends shared evenly by the F buffers it is filling.  A round
 *    writes w of them (w, smoothed over the recent sending rounds, is the
 *    rank's rate, ad_rate), so each expects one every F / w rounds; the
 *    wait is idle_rounds x F / w sending rounds, never below idle_rounds.
 *    A buffer that went idle_rounds such gaps without an append has a
 *    destination written far less than its share: it leaves.  A rank that
 *    writes every buffer in each round (it sends many items between two
 *    polls, or fills few buffers) waits idle_rounds as before; one that
 *    spreads one send a round over 64 buffers waits 64 times longer, long
 *    enough for each to gather items.  Rounds without sends (a drain
 *    loop's successive polls) do not count: they say nothing about whether
 *    more items for this buffer are coming.
 *  - the buffer is OLD: it has held items for `flush_ns`
 *    (OMNIBUS_FLUSH_US), timed from the first round that saw it non-empty
 *    (the send path does not read the clock), a bound on any item's delay
 *    while the program keeps polling.
 *
 * Why not idle_rounds = 1, the earlier rule: a program that polls
 * once per send (MPI_Isend + MPI_Test per item, to random destinations, as
 * Graph500-like and histogram codes do) then shipped at every round every
 * buffer but the one just written, one item each: 0.67 wire messages per
 * send at 4 ranks where aggregation gives 0.04.  Such a program is never
 * quiet, so its buffers now fill (docs/design/decisions.md, A buffer leaves
 * when waiting would not help).  Why not a fixed idle_rounds: with one
 * send a round over K next hops a buffer sees an append every K rounds,
 * so 16 rounds shipped it after 1 to 2 items once K passed 16 (1.17 wire
 * messages per send on a 32x32 grid at 1,024 ranks, worse than direct at
 * 65,536, docs/planning.md).
 *
 * Order is untouched: a verdict only decides when a buffer leaves, and
 * every item of a pair still travels its one FIFO route.
 */
#ifndef OMNIBUS_ADAPT_H
#define OMNIBUS_ADAPT_H

#include <stdint.h>

typedef struct {
    uint64_t idle_rounds; /* OMNIBUS_IDLE_ROUNDS, >= 1 */
    int64_t flush_ns;     /* OMNIBUS_FLUSH_US, in ns */
} ad_policy;

/* ad_rate's fixed point: one buffer a round. */
#define AD_RATE_ONE 4096u
/* Each sending round weighs 1/AD_RATE_KEEP in the rate: forwarded items
 * come in bursts (a block's worth in one round), and a short memory let
 * one burst cut every buffer's wait at once (1/8: 0.037 wire messages per
 * send on a 16x16x16x16 grid polling after every send, 1/64: 0.022). */
#define AD_RATE_KEEP 64u

/* The rank's rate: the filling buffers a sending round writes, smoothed
 * (AD_RATE_KEEP), in 1/AD_RATE_ONE.  Starts at one. */
typedef struct {
    uint64_t written;
} ad_rate;

static inline ad_rate ad_rate_start(void)
{
    return (ad_rate){.written = AD_RATE_ONE};
}

/* After a sending round whose verdicts found `written` buffers appended to
 * since the previous round (stamp == epoch).  A sending round wrote at
 * least one, though it may have shipped since (full): counted as one. */
static inline void ad_rate_round(ad_rate *r, int written)
{
    uint64_t w = (uint64_t)(written > 1 ? written : 1) * AD_RATE_ONE;
    r->written = ((AD_RATE_KEEP - 1) * r->written + w) / AD_RATE_KEEP;
}

/* The sending rounds a buffer may go unwritten, while `filling` buffers
 * fill at the rate r: idle_rounds x filling / written, at least
 * idle_rounds.  Computed once a round, for every verdict of that round. */
static inline uint64_t ad_idle_after(const ad_policy *p, const ad_rate *r,
                                     int filling)
{
    uint64_t spread = (uint64_t)(filling > 1 ? filling : 1) * AD_RATE_ONE;
    if (spread <= r->written)
        return p->idle_rounds;
    return p->idle_rounds * spread / r->written;
}

typedef enum {
    AD_KEEP,      /* stays; check its age (ad_is_old) */
    AD_SHIP_QUIET,
    AD_SHIP_IDLE
} ad_verdict;

/* The verdict at a progress round for a non-empty buffer.  `epoch` counts
 * the sending rounds so far; the buffer was last appended to in sending
 * round `buf_stamp`; `idle_after` is this round's ad_idle_after; `sent`
 * says whether the program appended anything of its own since the
 * previous round (items forwarded for other ranks, and answers, do not
 * count); `waiting` says whether this round is a step of a call that waits
 * or the program's latest poll found nothing.  After the verdicts the
 * caller advances epoch if the rank appended anything since the previous
 * round, sent or forwarded (this round was then sending round `epoch`),
 * and then feeds the rate (ad_rate_round). */
static inline ad_verdict ad_at_round(uint64_t idle_after, uint64_t epoch,
                                     int sent, uint64_t buf_stamp,
                                     int waiting)
{
    if (!sent && waiting)
        return AD_SHIP_QUIET;
    if (epoch - buf_stamp >= idle_after)
        return AD_SHIP_IDLE;
    return AD_KEEP;
}

/* Whether a buffer whose first item is age_ns old has waited long enough. */
static inline int ad_is_old(const ad_policy *p, int64_t age_ns)
{
    return age_ns >= p->flush_ns;
}

#endif
