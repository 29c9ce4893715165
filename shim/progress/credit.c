#include "shim/progress/credit.h"
#include "shim/progress/progress.h"
#include "shim/transport/transport.h"
#include "router/flow.h"
#include "router/pool.h"
#include "shim/base/grow.h"
#include "shim/base/fail.h"
#include <stdio.h>
#include <stdlib.h>

/* The least a destination must have been silent before a waiting send
 * takes it as not consuming: far above a credit round trip on any
 * transport (tens of microseconds), and above several of the scheduler's
 * time slices, so that a receiver that merely lost its core for a while
 * (another process on it) is waited for: its items are cheaper to drain
 * aggregated than through the MPI underneath one by one. */
#define CREDIT_SILENCE_MIN_NS 100000000ull
/* How many times the largest recent gap between two answers a destination
 * may stay silent: a receiver that works long on each message returns its
 * steps slowly, and is still consuming. */
#define CREDIT_SILENCE_GAPS 8
/* How long of its own running time a destination that sits in a call
 * waiting for something else defers its answer to a STALL before it
 * REFUSES: the wait may need the source to move on (a collective the
 * source has not joined, a receive from a rank that waits for it), which
 * plain MPI's eager send would have let it do.  As the silence, far
 * above a credit round trip. */
#define CREDIT_DEFER_NS CREDIT_SILENCE_MIN_NS
/* The most a gap between two of the destination's credit polls adds to
 * that time: a longer gap is time it did not run (another process had
 * its core), not time it waited. */
#define CREDIT_POLL_GAP_NS 1000000ull
/* How often a deferring destination tells the source it still polls: a
 * tenth of the silence, so that several HOLDs fit in one. */
#define CREDIT_HOLD_NS (CREDIT_SILENCE_MIN_NS / 10)

/* A STALL whose answer waits (omni.credit.deferred): from which source,
 * how long of this rank's running time it has waited, and when its last
 * HOLD (or the deferral) began. */
struct credit_deferral {
    int src;
    uint64_t waited_ns;
    uint64_t held_ns;
};

/* A STALL this rank relayed and whose source has not settled it yet:
 * the growth it reserved here for the pair (src, dst). */
struct credit_relayed {
    uint32_t src, dst;
    uint32_t reserved;
};

/* One control item of `kind` to world rank `to`; it goes this round, not
 * at a later flush (every kind but EAGER and RNDV is urgent along the
 * route too, router/wire.h). */
static void credit_tell(uint32_t to, enum rt_kind kind, uint32_t value,
                        int32_t tag)
{
    rt_item_hdr h = {.dst = to, .src = (uint32_t)omni.job.rank, .comm = 0,
                     .tag = tag, .len = 0, .meta = rt_meta(kind, value)};
    rt_hdr_write(transport_reserve((int)to, RT_HDR_SIZE), &h);
    omni.stats.acks_sent++;
    transport_push_soon((int)to);
}

/* Adds rank r to a list of ranks once (`listed` is its mark). */
static void list_add(int **list, int *n, int *cap, uint8_t *listed, int r)
{
    if (*listed)
        return;
    *list = omni_grow(*list, *n, cap, sizeof **list, 16,
                      "the list of grown windows");
    (*list)[(*n)++] = r;
    *listed = 1;
}

/* Where omni.credit.due counts down from for a pair of step `step`: a
 * step above INT32_MAX (FL_STEP_NONE) is never reached by a window below
 * FL_WINDOW_MAX. */
static int32_t due_top(uint32_t step)
{
    return step > INT32_MAX ? INT32_MAX : (int32_t)step;
}

/* Bytes consumed from src since its last CREDIT, under step `step`. */
static uint32_t owed(uint32_t src, uint32_t step)
{
    return (uint32_t)((int64_t)due_top(step) - omni.credit.due[src]);
}

/* Sets the step of source src, keeping what it is owed. */
static void set_step(uint32_t src, struct credit_in *in, uint32_t step)
{
    omni.credit.due[src] = (int32_t)((int64_t)due_top(step) - owed(src, in->step));
    in->step = step;
}

/* The record of the pair with world rank r, made at its base if it has
 * none (credit.h, Sparse records). */
static struct credit_pair *pair_make(int r)
{
    struct credit_pair *p = credit_pair_of(r);
    if (p)
        return p;
    int n = omni.credit.pool_n, slab = n / CREDIT_SLAB;
    if (n % CREDIT_SLAB == 0) {
        omni.credit.pool = omni_grow(omni.credit.pool, slab,
                                     &omni.credit.pool_cap,
                                     sizeof *omni.credit.pool, 16,
                                     "the credit records");
        omni.credit.pool[slab] =
            malloc(sizeof **omni.credit.pool * CREDIT_SLAB);
        if (!omni.credit.pool[slab])
            omni_out_of_memory("the credit records");
    }
    p = &omni.credit.pool[slab][n % CREDIT_SLAB];
    *p = (struct credit_pair){
        .in = {.lent = omni.credit.window, .step = omni.credit.step}};
    omni.credit.pair[r] = (uint32_t)++omni.credit.pool_n;
    return p;
}

/* The pool, when OMNIBUS_EAGER_POOL leaves it to OMNIBUS_MEMORY: every rank
 * derives the same from the grid, the window rule's P and the buffer size
 * (router/pool.h). */
static void derive_pool(int P)
{
    cfg_settings *c = &omni.job.cfg;
    fl_params job = {.block = omni.job.block_cap, .nranks = P};
    int short_of_memory;
    c->eager_pool = po_pool_in_force(&omni.job.grid, &job, c->eager_pool,
                                     c->memory, CFG_MIN_EAGER_POOL,
                                     CFG_DEFAULT_EAGER_POOL, &short_of_memory);
    if (short_of_memory && omni.job.rank == 0)
        fprintf(stderr,
                "omnibus: OMNIBUS_MEMORY=%zu is less than this job's buffers "
                "and tables take with the least eager pool (%zu bytes); the "
                "statistics file's memory_bound_bytes says what a rank may "
                "hold\n",
                c->memory, (size_t)CFG_MIN_EAGER_POOL);
}

int credit_init(void)
{
    int P = omni.job.cfg.flow_ranks ? omni.job.cfg.flow_ranks : omni.job.size;
    omni.credit.ranks = P;
    derive_pool(P);
    omni.credit.window = (uint32_t)fl_window(omni.job.cfg.eager_pool, P);
    omni.credit.step = fl_step(omni.credit.window);
    omni.credit.left = malloc(sizeof *omni.credit.left * (size_t)omni.job.size);
    omni.credit.due = malloc(sizeof *omni.credit.due * (size_t)omni.job.size);
    omni.credit.pair = calloc((size_t)omni.job.size, sizeof *omni.credit.pair);
    if (!omni.credit.left || !omni.credit.due || !omni.credit.pair)
        return -1;
    for (int r = 0; r < omni.job.size; r++) {
        omni.credit.left[r] = omni.credit.window;
        omni.credit.due[r] = due_top(omni.credit.step);
    }
    /* Self-sends: a window no program exhausts, returned in steps as any. */
    int self = omni.job.rank;
    struct credit_in *in = &pair_make(self)->in;
    omni.credit.left[self] = UINT32_MAX;
    in->lent = UINT32_MAX / 2;
    in->step = FL_STEP_MAX;
    omni.credit.due[self] = due_top(FL_STEP_MAX);
    /* What the base windows lend (P-1 of them, the rule's P). */
    omni.credit.lent = (uint64_t)omni.credit.window * (uint64_t)(P > 1 ? P - 1 : 0);
    omni.credit.grown = 0;
    omni.stats.window_max = omni.credit.window;
    return 0;
}

void credit_finalize(void)
{
    for (int i = 0; i * CREDIT_SLAB < omni.credit.pool_n; i++)
        free(omni.credit.pool[i]);
    free(omni.credit.pool);
    free(omni.credit.left);
    free(omni.credit.due);
    free(omni.credit.pair);
    free(omni.credit.grown_in);
    free(omni.credit.grown_out);
    free(omni.credit.deferred);
    free(omni.credit.relayed);
    omni.credit.pool = NULL;
    omni.credit.pool_n = omni.credit.pool_cap = 0;
    omni.credit.relayed = NULL;
    omni.credit.relayed_n = omni.credit.relayed_cap = 0;
    omni.credit.relay_carried = omni.credit.relay_reserved = 0;
    omni.credit.deferred = NULL;
    omni.credit.deferred_n = omni.credit.deferred_cap = 0;
    omni.credit.left = NULL;
    omni.credit.due = NULL;
    omni.credit.pair = NULL;
    omni.credit.grown_in = omni.credit.grown_out = NULL;
    omni.credit.grown_in_n = omni.credit.grown_in_cap = 0;
    omni.credit.grown_out_n = omni.credit.grown_out_cap = 0;
}

/* --- the destination's side -------------------------------------------- */

void credit_return(uint32_t src)
{
    struct credit_pair *p = credit_pair_of((int)src);
    if (p && p->in.deferred) { /* the consumption answers the STALL */
        p->in.deferred = 0;
        credit_stalled(src, p->in.stall_need, p->in.stall_accept);
        return;
    }
    uint32_t give = owed(src, p ? p->in.step : omni.credit.step);
    uint32_t step = omni.credit.step;
    if (p) {
        step = p->in.step = fl_step(p->in.lent); /* ends a refusal's step
                                                    of one byte */
        p->in.consumed = 1;
    }
    omni.credit.due[src] = due_top(step);
    if ((int)src == omni.job.rank) {
        omni.credit.left[src] += give;
        return;
    }
    credit_tell(src, RT_CREDIT, give, 0);
}

/* Asks the sources grown earlier that consumed nothing since the last
 * sweep to give back their unused growth, and drops from the list those
 * back at their base.  Called when a demanding pair cannot grow. */
static void reclaim_sweep(uint32_t except)
{
    int kept = 0;
    for (int i = 0; i < omni.credit.grown_in_n; i++) {
        int s = omni.credit.grown_in[i];
        struct credit_in *in = &credit_pair_of(s)->in;
        if (in->lent <= omni.credit.window) {
            in->listed = 0;
            continue;
        }
        omni.credit.grown_in[kept++] = s;
        if ((uint32_t)s != except && !in->consumed && !in->reclaiming) {
            in->reclaiming = 1;
            omni.stats.window_reclaims++;
            credit_tell((uint32_t)s, RT_RECLAIM, in->lent - omni.credit.window, 0);
        }
        in->consumed = 0;
    }
    omni.credit.grown_in_n = kept;
}

/* Grows the window of source src by what fl_growth allows, within the
 * pool; returns the growth. */
static uint32_t lend_more(uint32_t src, struct credit_in *in, uint32_t accept)
{
    uint64_t pool = omni.job.cfg.eager_pool;
    uint64_t unlent = pool > omni.credit.lent ? pool - omni.credit.lent : 0;
    uint64_t g = fl_growth(in->lent, unlent, accept);
    if (g < fl_growth(in->lent, UINT64_MAX, accept))
        reclaim_sweep(src);
    if (g == 0)
        return 0;
    in->lent += (uint32_t)g;
    set_step(src, in, fl_step(in->lent));
    omni.credit.lent += g;
    omni.stats.window_grants++;
    if (in->lent > omni.stats.window_max)
        omni.stats.window_max = in->lent;
    list_add(&omni.credit.grown_in, &omni.credit.grown_in_n,
             &omni.credit.grown_in_cap, &in->listed, (int)src);
    return (uint32_t)g;
}

/* Lists the STALL of source src for credit_poll to answer. */
static void defer_answer(uint32_t src, struct credit_in *in)
{
    if (in->deferred)
        return;
    omni.credit.deferred = omni_grow(
        omni.credit.deferred, omni.credit.deferred_n,
        &omni.credit.deferred_cap, sizeof *omni.credit.deferred, 16,
        "the list of deferred credit answers");
    if (omni.credit.deferred_n == 0)
        omni.credit.polled_ns = omni_now_ns();
    omni.credit.deferred[omni.credit.deferred_n++] = (struct credit_deferral){
        .src = (int)src, .waited_ns = 0, .held_ns = omni.credit.polled_ns};
    in->deferred = 1;
    prog_has_work(omni.credit.poller);
}

void credit_stalled(uint32_t peer, uint32_t need, uint32_t accept)
{
    struct credit_in *in = &pair_make((int)peer)->in;
    /* What the source may still hold: lent less what it is owed. */
    uint32_t held = in->lent - owed(peer, in->step);
    /* Growth for a pair whose destination consumes, whose window could
     * never hold the message that stalled, or whose window is below the
     * least growth: a few hundred bytes cannot carry a stream past a
     * STALL's round trip, and the growth stays within the pool. */
    uint32_t growth = held < in->lent || in->lent < need ||
                              in->lent < FL_GROW_MIN
                          ? lend_more(peer, in, accept)
                          : 0;
    uint32_t give = in->lent - held;
    if (give == 0) {
        /* Consumed nothing since the last CREDIT, and no growth: the
         * source's items wait here, unreceived.  credit_settle answers at
         * the end of this round, or later if this rank waits. */
        in->stall_need = need;
        in->stall_accept = accept;
        defer_answer(peer, in);
        return;
    }
    omni.credit.due[peer] = due_top(in->step);
    in->consumed = 1;
    credit_tell(peer, RT_GRANT, give, (int32_t)growth);
}

/* Returns whether any STALL is left unanswered. */
static int credit_poll(void)
{
    int refuse = !omni.prog.round_waits || omni.credit.waiting, kept = 0;
    uint64_t now = omni_now_ns(), ran = now - omni.credit.polled_ns;
    omni.credit.polled_ns = now;
    if (ran > CREDIT_POLL_GAP_NS)
        ran = CREDIT_POLL_GAP_NS;
    for (int i = 0; i < omni.credit.deferred_n; i++) {
        struct credit_deferral d = omni.credit.deferred[i];
        struct credit_in *in = &credit_pair_of(d.src)->in;
        if (!in->deferred)
            continue; /* answered by credit_return */
        d.waited_ns += ran;
        if (owed((uint32_t)d.src, in->step) > 0) {
            in->deferred = 0;
            credit_stalled((uint32_t)d.src, in->stall_need,
                           in->stall_accept);
        } else if (refuse || d.waited_ns > CREDIT_DEFER_NS) {
            in->deferred = 0;
            /* The refusal lasts until the next CREDIT: the first byte
             * consumed from the source sends one, whatever the step. */
            set_step((uint32_t)d.src, in, 1);
            credit_tell((uint32_t)d.src, RT_REFUSED, 0, 0);
        } else {
            if (now - d.held_ns > CREDIT_HOLD_NS) {
                d.held_ns = now;
                omni.stats.credit_holds++;
                credit_tell((uint32_t)d.src, RT_HOLD, 0, 0);
            }
            omni.credit.deferred[kept++] = d;
        }
    }
    omni.credit.deferred_n = kept;
    return kept > 0;
}

void credit_released(uint32_t peer, uint32_t bytes, int32_t tag)
{
    if (tag == RT_RELEASE_SETTLE)
        return; /* for the relays of the route */
    struct credit_in *in = &pair_make((int)peer)->in;
    in->lent -= bytes; /* and what the source holds: owed stays */
    set_step(peer, in, fl_step(in->lent));
    in->reclaiming = 0;
    omni.credit.lent -= bytes;
}

/* --- the source's side --------------------------------------------------- */

/* Gives back, unasked, the growth of every destination (but `except`) that
 * has no more than its base window in use: all its growth sits here as
 * credit. */
static void release_idle(int except)
{
    int kept = 0;
    for (int i = 0; i < omni.credit.grown_out_n; i++) {
        int d = omni.credit.grown_out[i];
        struct credit_out *o = &credit_pair_of(d)->out;
        if (d != except && o->grown && omni.credit.left[d] >= o->grown) {
            uint32_t x = o->grown;
            omni.credit.left[d] -= x;
            o->grown = 0;
            omni.credit.grown -= x;
            credit_tell((uint32_t)d, RT_RELEASE, x, 0);
        }
        if (o->grown)
            omni.credit.grown_out[kept++] = d;
        else
            o->listed = 0;
    }
    omni.credit.grown_out_n = kept;
}

/* Growth this rank can still take towards dst: what its budget has left,
 * freeing idle growth first when it has none.  The relays of the route
 * may lower it (credit_relaying). */
static uint32_t growth_to_ask(int dst)
{
    uint64_t budget = fl_sender_budget(omni.job.cfg.eager_pool);
    if (omni.credit.grown + FL_GROW_MIN > budget)
        release_idle(dst);
    if (omni.credit.grown >= budget)
        return 0;
    uint64_t left = budget - omni.credit.grown;
    return (uint32_t)(left < FL_WINDOW_MAX ? left : FL_WINDOW_MAX);
}

void credit_stall(int dst, uint32_t size)
{
    if (dst == omni.job.rank)
        return;
    struct credit_out *o = &pair_make(dst)->out;
    if (o->stalled)
        return;
    uint32_t ask = growth_to_ask(dst);
    o->asked = ask;
    omni.credit.grown += ask;
    o->stalled = 1;
    o->fresh = 0;
    omni.stats.credit_stalls++;
    credit_tell((uint32_t)dst, RT_STALL, size, (int32_t)ask);
}

/* The STALL of peer is answered with `growth`: its reserved growth is
 * free again, and the relays of a relayed route learn what was granted
 * (ahead of every item the growth lets this rank send). */
static void stall_answered(uint32_t peer, struct credit_out *o,
                           uint32_t growth)
{
    omni.credit.grown -= o->asked;
    o->asked = 0;
    o->stalled = 0;
    o->heard++;
    if (omni.job.route_len[peer] > 1)
        credit_tell(peer, RT_RELEASE, growth, RT_RELEASE_SETTLE);
}

void credit_granted(uint32_t peer, uint32_t bytes, uint32_t growth)
{
    struct credit_out *o = &pair_make((int)peer)->out;
    stall_answered(peer, o, growth);
    omni.credit.left[peer] += bytes;
    o->refused = 0;
    if (growth) {
        o->grown += growth;
        omni.credit.grown += growth;
        list_add(&omni.credit.grown_out, &omni.credit.grown_out_n,
                 &omni.credit.grown_out_cap, &o->listed, (int)peer);
    }
}

void credit_refused(uint32_t peer)
{
    struct credit_out *o = &pair_make((int)peer)->out;
    stall_answered(peer, o, 0);
    /* A CREDIT that crossed the STALL proves the destination consumes. */
    if (!o->fresh) {
        o->refused = 1;
        omni.stats.credit_refusals++;
    }
}

void credit_reclaimed(uint32_t peer, uint32_t bytes)
{
    struct credit_out *o = &pair_make((int)peer)->out;
    uint32_t x = bytes < o->grown ? bytes : o->grown;
    if (x > omni.credit.left[peer])
        x = omni.credit.left[peer];
    omni.credit.left[peer] -= x;
    o->grown -= x;
    omni.credit.grown -= x;
    credit_tell(peer, RT_RELEASE, x, 0);
}

void credit_held(uint32_t peer)
{
    struct credit_out *o = &pair_make((int)peer)->out;
    if (o->stalled)
        o->last_ns = omni_now_ns();
}

/* --- a relay's side -------------------------------------------------- */

/* The record of the unsettled STALL of pair (src, dst) relayed here, or
 * NULL.  A source has one STALL unanswered per destination, and settles it
 * before the next, so the list holds one record per pair at most; it is
 * searched only when a STALL or a RELEASE passes. */
static struct credit_relayed *relayed_find(uint32_t src, uint32_t dst)
{
    for (int i = 0; i < omni.credit.relayed_n; i++)
        if (omni.credit.relayed[i].src == src &&
            omni.credit.relayed[i].dst == dst)
            return &omni.credit.relayed[i];
    return NULL;
}

static void relay_stall(char *copy, const rt_item_hdr *h)
{
    uint32_t accept = (uint32_t)fl_relay_cap(
        omni.job.cfg.eager_pool, omni.credit.relay_carried,
        omni.credit.relay_reserved, (uint32_t)h->tag);
    if (accept != (uint32_t)h->tag) {
        rt_item_hdr capped = *h;
        capped.tag = (int32_t)accept;
        rt_hdr_write(copy, &capped);
    }
    omni.credit.relayed = omni_grow(
        omni.credit.relayed, omni.credit.relayed_n, &omni.credit.relayed_cap,
        sizeof *omni.credit.relayed, 16, "the list of relayed STALLs");
    omni.credit.relayed[omni.credit.relayed_n++] =
        (struct credit_relayed){.src = h->src, .dst = h->dst,
                                .reserved = accept};
    omni.credit.relay_reserved += accept;
}

static void relay_settle(const rt_item_hdr *h, uint32_t growth)
{
    struct credit_relayed *r = relayed_find(h->src, h->dst);
    if (r) {
        omni.credit.relay_reserved -= r->reserved;
        *r = omni.credit.relayed[--omni.credit.relayed_n];
    }
    omni.credit.relay_carried += growth;
    if (omni.credit.relay_carried > omni.stats.relay_carried_max)
        omni.stats.relay_carried_max = omni.credit.relay_carried;
}

void credit_relaying(char *copy, const rt_item_hdr *h)
{
    enum rt_kind kind = rt_meta_kind(h->meta);
    uint32_t value = rt_meta_value(h->meta);
    if (kind == RT_STALL) {
        relay_stall(copy, h);
    } else if (kind == RT_RELEASE && h->tag == RT_RELEASE_SETTLE) {
        relay_settle(h, value);
    } else if (kind == RT_RELEASE) {
        omni.credit.relay_carried -= value < omni.credit.relay_carried
                                         ? value
                                         : omni.credit.relay_carried;
    }
}

/* How long dst may stay silent while this rank waits for it. */
static uint64_t credit_silence_ns(const struct credit_out *o)
{
    uint64_t t = (uint64_t)CREDIT_SILENCE_GAPS * o->gap_ns;
    return t > CREDIT_SILENCE_MIN_NS ? t : CREDIT_SILENCE_MIN_NS;
}

/* How long a silence runs before a waiting send reads the host's steal
 * (omni_stolen_ns, a system call): the reading the silence's end is
 * compared with.  Far below the silence, so that little steal before it
 * goes unseen; far above a credit round trip, so that a stream that waits
 * for credit in steps reads nothing. */
#define CREDIT_STEAL_MARK_NS (CREDIT_SILENCE_MIN_NS / 10)
#define CREDIT_NO_MARK UINT64_MAX

/* What a wait for credit knows of the host's steal: the reading taken
 * once the silence was CREDIT_STEAL_MARK_NS old (CREDIT_NO_MARK before,
 * and again each time the destination shows life), when it was taken,
 * and the silence the wait has excused so far. */
struct steal_watch {
    uint64_t stolen, at_ns, excused;
};

/* The silence of dst has run out at `now`: the time the host took from
 * this machine's cores since w's reading is excused (fl_silence_excuse)
 * and moves o->last_ns on.  Returns whether anything was excused. */
static int silence_excused(struct credit_out *o, uint64_t now,
                           struct steal_watch *w)
{
    if (w->stolen == CREDIT_NO_MARK)
        return 0;
    uint64_t stolen = omni_stolen_ns();
    uint64_t e = fl_silence_excuse(
        stolen > w->stolen ? stolen - w->stolen : 0, now - w->at_ns,
        w->excused);
    w->stolen = stolen;
    w->at_ns = now;
    if (!e)
        return 0;
    o->last_ns += e;
    w->excused += e;
    omni.stats.credit_excused_ms += e / 1000000u;
    return 1;
}

/* dst was heard from at `now` while this rank waited since o->last_ns. */
static void heard_while_waiting(struct credit_out *o, uint64_t now)
{
    uint64_t gap = now - o->last_ns;
    uint64_t decayed = o->gap_ns - o->gap_ns / 8;
    o->gap_ns = gap > decayed ? gap : decayed;
    o->last_ns = now;
}

int credit_wait(int dst, uint32_t size)
{
    struct credit_pair *p = credit_pair_of(dst);
    if (p && p->out.refused) {
        /* One round, so that the CREDIT that ends the refusal is taken in
         * even while every send falls back (the underlying MPI's eager sends
         * return without a progress round). */
        prog_poll();
        return credit_fits(dst, size);
    }
    credit_stall(dst, size);
    struct credit_out *o = &pair_make(dst)->out;
    prog_block_enter();
    uint32_t heard = o->heard;
    o->last_ns = omni_now_ns();
    /* What the MPI underneath carries before the STALL: until it has
     * completed, the destination may not have the STALL yet (TCP moved a 4 MiB
     * window to a receiver that shared its core with another process in 150
     * ms), and each block it completes restarts the silence. */
    uint64_t mark = transport_wire_mark(), done = transport_wire_done();
    struct steal_watch steal = {.stolen = CREDIT_NO_MARK};
    unsigned spins = 0;
    int outer = omni.credit.waiting, ok = 0; /* a wait inside a callback */
    omni.credit.waiting = 1;
    for (;;) {
        prog_poll();
        if ((ok = credit_fits(dst, size)) || o->refused)
            break;
        uint64_t now = omni_now_ns();
        if (o->heard != heard) {
            heard = o->heard;
            heard_while_waiting(o, now);
            credit_stall(dst, size); /* answered, and still short */
            mark = transport_wire_mark();
            steal.stolen = CREDIT_NO_MARK;
        } else if (done < mark && transport_wire_done() != done) {
            done = transport_wire_done();
            o->last_ns = now;
            steal.stolen = CREDIT_NO_MARK;
        } else if (now - o->last_ns > credit_silence_ns(o)) {
            if (silence_excused(o, now, &steal))
                continue;
            o->refused = 1;
            omni.stats.credit_silences++;
            break;
        } else if (steal.stolen == CREDIT_NO_MARK &&
                   now - o->last_ns > CREDIT_STEAL_MARK_NS) {
            steal.stolen = omni_stolen_ns();
            steal.at_ns = now;
        }
        prog_pause(&spins);
    }
    omni.credit.waiting = outer;
    return ok;
}

void credit_add_poller(void)
{
    omni.credit.poller = prog_add_poller(credit_poll, 0);
}
