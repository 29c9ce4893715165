/* nbr_exec: one run of a neighbourhood collective by its plan.
 *
 * An operation holds the call's data as slots: for each destination k the
 * bytes at sbuf + s_off[k] (s_cnt[k] of s_type[k]), for each source j the
 * place rbuf + r_off[j] (r_cnt[j] of r_type[j]).  Every collective, from
 * allgather to alltoallw, is that.
 *
 * Messages go on the topology's shadow record under tag base + phase, with
 * base = nphase x (run sequence number mod tag range).  A message of one
 * piece of the sender's own data for the receiver itself travels as the
 * user's datatype and is received straight into place.  Any other message is
 * packed: with `variable` (allgatherv, alltoallv, alltoallw, where a relay
 * cannot know a piece's size) a table of 64-bit piece lengths first, then
 * the pieces in plan order.  Packed messages are taken from the shadow's
 * unexpected queue when they arrive, so their size need not be known; an
 * received message stays held until every send that relays from it has
 * left; a send leaves once every message it relays from is in.
 *
 * The run is complete when every receive is in place and every send
 * request has completed (the user's send buffer is free again).  A run
 * that found a message longer than its place (MPI_ERR_TRUNCATE) reports it
 * as a receive would: blocking forms through the communicator's error
 * handler, the others through the Wait or Test that completes the request
 * (the ledger of request.c: MPI_ERR_IN_STATUS and the status's MPI_ERROR
 * in Waitall).  MPICH 4.0.2 itself reports nothing for any neighbourhood
 * collective (checked: blocking, nonblocking and persistent alltoall with
 * a short receive count return MPI_SUCCESS).  Blocking
 * runs wait in prog_poll; nonblocking runs give a generalized request;
 * persistent runs a new one per start (engine/preq.h, preq_ops).
 */
#ifndef OMNIBUS_NBR_EXEC_H
#define OMNIBUS_NBR_EXEC_H

#include <stdint.h>
#include "shim/match/match.h"
#include "router/nbr_sched.h"

/* What one topology communicator needs for its schedule.  Referenced by
 * the communicator's record, its persistent requests and its running
 * operations; freed (with its shadow record) when the last one goes. */
typedef struct nbr_topo {
    struct nbr_topo *next;    /* every topology alive (module list) */
    int refs;
    comm_rec *shadow;         /* the schedule's messages, by id only */
    MPI_Comm user;            /* the user's handle, while it lives */
    int rank;                 /* this rank in the communicator */
    int indeg, outdeg;
    int *in, *out;            /* this rank's lists; -1 is MPI_PROC_NULL */
    int *mirror;              /* source slot j -> the slot of the same
                                 source's occurrence counted from the end */
    ns_plan plan;
    uint32_t seq;             /* collectives begun on the communicator */
    struct nbr_op *spare;     /* finished operations kept for reuse */
} nbr_topo;

typedef struct nbr_module {
    struct nbr_op *active;    /* operations in flight */
    nbr_topo *topos;
    omni_gclass cls;  /* requests of nonblocking and persistent runs */
    int polling;              /* nbr_poll is running (re-entry guard) */
} nbr_module;

static inline int nbr_busy(void)
{
    return omni.ops.nbr && omni.ops.nbr->active;
}

/* Registers the poller that advances every operation in flight, if any
 * (omni.ops.nbr_poller); it runs after each progress round (progress.h),
 * with Omnibus's own progress free to run again (sending may need it). */
void nbr_add_poller(void);

typedef struct nbr_op {
    struct nbr_op *next;      /* active list, or the topology's spares */
    nbr_topo *t;
    int variable;             /* packed messages start with piece lengths */
    int reversed;             /* a repeated source's occurrences are
                                 filled from the end (alltoall, as MPICH
                                 4.0.2 posts its receives in reverse:
                                 quirk Q4, mpi/quirks.h) */
    int persistent;           /* owned by a persistent request */
    int done, orphan;         /* orphan: its request was freed early */
    int error;
    int err_counted;          /* finished with an error that a Wait or Test
                                 will raise (omni.ops.err_pending) */
    MPI_Request done_greq;    /* the finished run's request, for the ledger */
    /* Nonblocking and persistent runs outlive the call, and MPI lets the
     * program free its datatypes at once (MPI-4.1 §5.1.9): the slots use
     * these references (dtype_hold), dropped by nbr_op_put. */
    MPI_Datatype *types_held;
    int ntypes_held;
    MPI_Count piece_bytes;    /* allgather, alltoall: every piece's size
                                 (MPI: one type signature for all) */
    MPI_Request greq;
    int tag;
    const char *sbuf;
    char *rbuf;
    /* slots: out-degree for s_*, in-degree for r_* */
    MPI_Aint *s_off, *r_off;
    MPI_Count *s_cnt, *r_cnt;
    MPI_Datatype *s_type, *r_type;
    MPI_Count *s_bytes, *r_bytes;
    /* per received message */
    match_recv **rx;          /* a direct receive, or a large packed one */
    match_msg **held;         /* an eager packed message, until relayed */
    const char **rdata;       /* its bytes */
    char **lbuf;              /* a large packed message's buffer */
    char *rdone;
    int recv_left;
    /* per piece of the plan: where it sits in its received message */
    MPI_Count *poff, *plen;
    int *hold;                /* per received message: the sends relaying
                                 from it that have not left yet */
    /* sends */
    MPI_Request *sreq;
    int nsreq;
    int *swait;               /* per send: linked messages not yet in */
    int sends_left;           /* sends waiting for relayed pieces */
    /* packed outgoing messages */
    char *arena;
    size_t arena_cap, arena_used, arena_want;
    void **extra;             /* overflow allocations of this run */
    int nextra, extra_cap;
} nbr_op;

/* An operation for topology t with room for its slots (from the spares or
 * new); holds a reference on t. */
nbr_op *nbr_op_get(nbr_topo *t);
/* Returns a finished operation to its topology's spares. */
void nbr_op_put(nbr_op *op);

/* Begins a run (slots, op->variable and op->tag set); the run goes on in
 * nbr_poll.  With a request, *request is the run's generalized request,
 * complete when the run is. */
int nbr_op_start(nbr_op *op, MPI_Request *request);

/* Blocks, driving progress, until op is done; returns its error. */
int nbr_op_wait(nbr_op *op);

/* Drops one reference to t; the last frees it with its spares and its
 * shadow record. */
void nbr_topo_unref(nbr_topo *t);

/* Frees t at once (MPI_Finalize), whatever refers to it. */
void nbr_topo_destroy(nbr_topo *t);

int nbr_exec_init(nbr_module *m);

#endif
