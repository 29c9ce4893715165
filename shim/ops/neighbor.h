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
 * is built and every neighbourhood collective goes to the MPI underneath.
 *
 * A collective runs as an operation (nbr_exec.h) that progress drives:
 * nbr_poll (nbr_exec.h) is one of progress's pollers (progress.h), run
 * after each round.  The schedule's types live with the operations that
 * run it (nbr_exec.h), so that this module calls down into that one and
 * nothing there points back here.
 */
#ifndef OMNIBUS_NEIGHBOR_H
#define OMNIBUS_NEIGHBOR_H

#include <mpi.h>
#include <stdint.h>
#include "shim/match/comm.h"
#include "shim/ops/nbr_call.h"

/* A managed communicator was just made: builds its schedule when it has a
 * topology and the mode is not plain.  Collective over its members. */
int nbr_comm_created(comm_rec *c);

/* The user freed c: its schedule lives on while operations need it. */
void nbr_comm_freed(comm_rec *c);

/* MPI_Finalize: frees every schedule (before the records go). */
void nbr_finalize(void);

/* Runs a neighbourhood collective by its communicator's schedule: the
 * generated wrapper of each of its 30 forms (shim/entry/wrappers.tbl,
 * "nbr" rows) collects its arguments into `a`.  Blocking (req NULL),
 * nonblocking (*req its request) or persistent (*req the inactive request
 * it makes).  *handled is 0 when Omnibus does not take the call (no
 * schedule, an argument MPI rejects, MPI_IN_PLACE): the wrapper then passes
 * it to the MPI underneath, which reports any error as MPI defines it. */
int nbr_run(const nbr_args *a, MPI_Comm comm, enum nbr_how how,
            MPI_Request *req, int *handled);

#endif
