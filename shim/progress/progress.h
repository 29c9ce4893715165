/* progress: the engine that moves Omnibus traffic while the application is
 * inside MPI (docs/design/progress.md).
 *
 * Contract: Omnibus moves items only while a rank is inside one of its
 * wrappers.  Every wrapper of a call that can wait on another rank calls
 * prog_block_enter() first (every partly filled buffer goes out, so no rank
 * waits on an item still sitting here) and then waits with prog_wait*(),
 * which keeps polling, forwarding and flushing until the real request of the
 * MPI underneath completes, spinning briefly and then yielding when the node
 * is oversubscribed.  Nothing in this module calls an MPI_ entry point (only
 * PMPI_), so it never re-enters a wrapper.
 */
#ifndef OMNIBUS_PROGRESS_H
#define OMNIBUS_PROGRESS_H

#include <mpi.h>
#include "shim/base/state.h"
#include "shim/transport/transport.h"

/* True once MPI_Init has set Omnibus up and until MPI_Finalize tears it
 * down, unless OMNIBUS_DISABLE=1: wrappers pass straight to PMPI otherwise. */
static inline int omni_enabled(void)
{
    return omni.job.on;
}

/* With OMNIBUS_PROGRESS=thread, one thread at a time runs Omnibus: every
 * wrapper holds omni.prog.lock from its first to its last Omnibus step.
 * Without the thread these are a predictable branch. */
static inline void omni_lock(void)
{
    if (omni.prog.threaded)
        pthread_mutex_lock(&omni.prog.lock);
}

static inline void omni_unlock(void)
{
    if (omni.prog.threaded)
        pthread_mutex_unlock(&omni.prog.lock);
}

/* Omnibus is on and no progress thread shares it, so omni_lock would do
 * nothing: a wrapper's fast function (wrappers.tbl, "fast") may run. */
static inline int omni_enabled_unlocked(void)
{
    return omni.job.on && !omni.prog.threaded;
}

/* Starts the progress thread (MPI_THREAD_MULTIPLE is in force); stops and
 * joins it. */
int prog_thread_start(void);
void prog_thread_stop(void);

/* The work of a progress round besides the transport's: each module that
 * has some (receives whose payload the MPI underneath moves, Isendrecv pairs,
 * buffered sends, neighbourhood schedules) registers its poll function once,
 * at start-up, and gets an id, so that progress calls up into no module.  A
 * round calls a poller only while it has work: its module calls
 * prog_has_work(id) whenever it adds some, and the poller returns 0 once
 * none is left.  So an idle round costs one test, not a call per module.
 * Pollers registered with after_round run once the round's re-entry guard
 * is released, so that progress may run again inside them (a
 * neighbourhood schedule starts receives, and an answer they owe goes at
 * once). */
int prog_add_poller(int (*poll)(void), int after_round);

static inline void prog_has_work(int id)
{
    omni.prog.poll_work |= 1u << id;
}

/* The underlying MPI's own progress (MPI 4.1 §3.7.4).  A rank whose peers are
 * all node rings makes no call into the MPI underneath in a progress round,
 * yet the underlying MPI's own operations may need it inside the MPI
 * underneath: another rank's nonblocking collective, the answer that completes
 * a rendezvous send to this rank.  prog_init posts a receive that never
 * matches (the anchor); on such a rank every PROG_UNDER_ROUNDS-th round tests
 * it, and a PMPI_Test of an incomplete request runs the underlying MPI's
 * progress engine.  prog_finalize cancels it. */
int prog_init(void);
void prog_finalize(void);
/* From here on (MPI_Finalize, before the statistics are reduced) no
 * callback may run a progress round. */
void prog_close(void);

/* Sends every partly filled buffer; called before any call that may wait. */
void prog_block_enter(void);

/* Rounds between two tests of the anchor on a rank whose rounds call no
 * function of the MPI underneath: a test runs the underlying MPI's progress
 * engine, about 20 ns over shared memory, so this adds a third of a nanosecond
 * to a round, and a wait loop still enters the MPI underneath every few
 * microseconds. */
#define PROG_UNDER_ROUNDS 64u

/* A whole round (prog_poll). */
void prog_round(void);

/* One round of progress: poll arrivals, forward, flush aged or idle
 * buffers.  A round that would find nothing (no poller with work, a quiet
 * transport: transport_quiet) is cut short here, inline: it only counts
 * towards the anchor's turn (prog_init), which a whole round takes.  So a
 * program that polls with Iprobe or Test pays a few loads per call while
 * nothing can have arrived, and a whole round as soon as something has. */
static inline void prog_poll(void)
{
    if (!omni.prog.poll_work && transport_quiet() &&
        omni.prog.under_rounds + 1 < PROG_UNDER_ROUNDS) {
        omni.prog.under_rounds++;
        return;
    }
    prog_round();
}

/* Drives progress until *req (a real request of the MPI underneath, or a
 * generalized one that Omnibus completes) is complete; returns what PMPI_Test
 * returned, with the status filled as PMPI_Test fills it. */
int prog_wait(MPI_Request *req, MPI_Status *status);

/* The tail of a call run as a nonblocking form of the MPI underneath: rc is
 * what starting *req returned; on success waits for it with progress. */
static inline int prog_wait_started(int rc, MPI_Request *req)
{
    return rc == MPI_SUCCESS ? prog_wait(req, MPI_STATUS_IGNORE) : rc;
}

/* The underlying MPI's completion calls, made with progress switched off: the
 * MPI underneath calls a generalized request's poll_fn from inside them, and
 * progress must not run in the middle of an Omnibus wrapper (a receive
 * completing inside PMPI_Testall would escape what the wrapper saw before the
 * call). */
int prog_test(MPI_Request *req, int *flag, MPI_Status *status);
int prog_testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[]);
int prog_testany(int n, MPI_Request reqs[], int *index, int *flag,
                 MPI_Status *status);
int prog_testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[]);
int prog_get_status(MPI_Request req, int *flag, MPI_Status *status);
/* PMPI_Waitall, for an array whose every request PMPI_Request_get_status
 * has seen complete, so that the MPI underneath does not block in it.  Quirk
 * Q2 (mpi/quirks.h): MPICH 4.0.2's
 * Testall is no stand-in for its Waitall: it reports MPI_ERR_IN_STATUS,
 * with no status carrying an error, for a persistent collective request
 * (tests/mpi/completion_calls_agree.c). */
int prog_waitall_done(int n, MPI_Request reqs[], MPI_Status sts[]);

/* One step of a loop that waits for another rank; the loop calls it until
 * its condition holds, testing the condition first, so that a wait already
 * over flushes nothing and runs no round.  *spins counts the loop's steps,
 * 0 before the first.  The first step flushes every buffer
 * (prog_block_enter): what the rank waits for may need what it holds.
 * Every step then runs a round (prog_poll) and marks the rank waiting;
 * past PROG_SPINS_BEFORE_YIELD steps each also yields the core when the
 * node has more ranks than cores (OMNIBUS_YIELD).  A wait made of several
 * loops (a Waitall's requests, one after another) shares one count, so it
 * flushes once and keeps yielding. */
static inline void prog_wait_step(unsigned *spins);

/* The pause of a wait step alone, for a loop that must run its round
 * before it tests (credit_wait): marks the rank waiting and, past
 * PROG_SPINS_BEFORE_YIELD calls, yields the core under OMNIBUS_YIELD. */
void prog_pause(unsigned *spins);

/* Inline: a waiting rank's loop is this step and its condition, and the
 * latency of a message is how soon the loop comes round to see it. */
static inline void prog_wait_step(unsigned *spins)
{
    if (*spins == 0)
        prog_block_enter();
    prog_poll();
    prog_pause(spins);
}

/* A nonblocking call (Test*, Iprobe) found nothing: a program that polls in
 * a loop may be waiting for a rank that needs this core, so once in every
 * PROG_SPINS_BEFORE_YIELD empty polls this yields it (when OMNIBUS_YIELD
 * says so).  Not at every poll past them, as a wait step does: a polling
 * program does its own work between polls, and a yield per call costs it
 * a context switch a poll (docs/design/progress.md, Yielding).  A call
 * that finds something resets the run. */
#define PROG_SPINS_BEFORE_YIELD 64u
void prog_yield(void);
static inline void prog_empty_poll(void)
{
    if (++omni.prog.empty_polls % PROG_SPINS_BEFORE_YIELD == 0 &&
        omni.job.yield)
        prog_yield();
}
static inline void prog_found(void)
{
    omni.prog.empty_polls = 0;
}


#endif
