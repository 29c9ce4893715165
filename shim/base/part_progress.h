/* part_progress: the progress layer's two parts of `omni`
 * (shim/base/state.h), written only by shim/progress/: what a progress
 * round polls and how it waits (omni.prog, progress.c and greq.c), and the
 * credit of every pair (omni.credit, credit.c).
 */
#ifndef OMNIBUS_PART_PROGRESS_H
#define OMNIBUS_PART_PROGRESS_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

/* Poll functions of each kind a progress round calls (progress.h). */
#define OMNI_POLLERS_MAX 8

typedef struct omni_prog {
    int in_progress;        /* re-entrancy guard for grequest callbacks */

    /* what a progress round polls besides the transport (progress.h) */
    int (*pollers[OMNI_POLLERS_MAX])(void);
    int npollers;
    unsigned after_round;   /* pollers run after the round's guard */
    unsigned poll_work;     /* pollers with work, one bit each */

    /* progress policy */
    unsigned empty_polls;   /* consecutive Test or Iprobe calls that found
                               nothing */
    int waiting;            /* the next progress round is a step of a call
                               that waits (progress.c) */
    int round_waits;        /* the current progress round is a step of a
                               call that waits (progress.c) */
    unsigned wait_steps;    /* steps of waits so far (prog_pause) */
    MPI_Request under_anchor; /* a receive that never matches (progress.c) */
    unsigned under_rounds;  /* rounds since the anchor was last tested */
    int threaded;           /* the progress thread runs: take `lock` */
    int thread_stop;
    pthread_t thread;
    pthread_mutex_t lock;   /* one thread inside Omnibus at a time */

    /* errors reported by query_fn, not yet raised (greq.h) */
    struct req_error { MPI_Request greq; MPI_Comm comm; int error; } *ledger;
    int ledger_n, ledger_cap;
} omni_prog;

struct credit_pair;

typedef struct omni_credit {
    uint32_t window;        /* the base window of every pair */
    uint32_t *left;         /* [world rank] -> bytes we may still send */
    int32_t *due;           /* [world rank] -> bytes this rank consumes from
                               that source before a CREDIT falls due */
    uint32_t *pair;         /* [world rank] -> 1 + the index of the pair's
                               record in `pool`, 0 for a pair at its base
                               (credit.h, Sparse records) */
    struct credit_pair **pool; /* the records, CREDIT_SLAB to a slab, never
                               moved: a record's address stays valid */
    int pool_n, pool_cap;   /* records made, slab pointers room */
    uint32_t step;          /* fl_step(window), the base pairs' step */
    int poller;             /* the poller that answers deferred STALLs */
    int waiting;            /* this rank waits in credit_wait itself */

    /* windows lent and grown; cold, after what the message paths touch */
    uint64_t lent;          /* window bytes this rank lends, all sources */
    uint64_t grown;         /* grown window this rank holds, all
                               destinations, and growth its unanswered
                               STALLs can take: at most fl_sender_budget */
    int *grown_in;          /* sources lent more than the base */
    int grown_in_n, grown_in_cap;
    int *grown_out;         /* destinations that lent this rank more */
    int grown_out_n, grown_out_cap;
    int ranks;              /* P of the window rule (OMNIBUS_FLOW_RANKS) */
    struct credit_deferral *deferred; /* STALLs that wait for an answer
                               while this rank sits in a wait */
    int deferred_n, deferred_cap;
    uint64_t polled_ns;     /* when the credit poller last ran */
    /* growth of the pairs whose route passes this rank (fl_relay_budget) */
    uint64_t relay_carried; /* grown window of those pairs, settled */
    uint64_t relay_reserved;/* growth their unsettled STALLs may take */
    struct credit_relayed *relayed; /* those STALLs, one per pair at most */
    int relayed_n, relayed_cap;
} omni_credit;

#endif
