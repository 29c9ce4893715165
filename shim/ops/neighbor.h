/* neighbor: MPI neighbourhood collectives on the topology communicators
 * Omnibus manages (distributed graph, Cartesian and graph), run by a
 * schedule over Omnibus's own transport (OMNIBUS_NEIGHBOR).
 *
 * When such a communicator is made (the constructors are collective, so
 * every member is there), its members gather the whole neighbour graph, each
 * computes its plan (router/nbr_sched.h: combining, or one message per
 * destination for `grid`) and they agree on the id of a private shadow
 * record: the schedule's messages are matched there, apart from the user's
 * point-to-point traffic on the same communicator.  In `plain` mode nothing
 * is built and every neighbourhood collective goes to MPICH.
 *
 * A collective runs as an operation (nbr_exec.h) that progress drives:
 * nbr_poll is one of progress's pollers (progress.h), run after each
 * round.
 */
#ifndef OMNIBUS_NEIGHBOR_H
#define OMNIBUS_NEIGHBOR_H

#include <stdint.h>
#include "shim/match/comm.h"
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
    MPIX_Grequest_class cls;  /* requests of nonblocking and persistent runs */
    int polling;              /* nbr_poll is running (re-entry guard) */
} nbr_module;

static inline int nbr_busy(void)
{
    return omni.nbr && omni.nbr->active;
}

/* Advances every operation in flight, if any; registered as a poller that
 * runs after each progress round (progress.h), with Omnibus's own progress
 * free to run again (sending may need it).  Returns whether any is still in
 * flight. */
int nbr_poll(void);

/* A managed communicator was just made: builds its schedule when it has a
 * topology and the mode is not plain.  Collective over its members. */
int nbr_comm_created(comm_rec *c);

/* The user freed c: its schedule lives on while operations need it. */
void nbr_comm_freed(comm_rec *c);

/* MPI_Finalize: frees every schedule (before the records go). */
void nbr_finalize(void);


#endif
