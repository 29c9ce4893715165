/* part_ops: the operations layer's part of `omni` (shim/base/state.h),
 * written only by shim/ops/: matched probes' messages, MPI_Isendrecv pairs,
 * collectives' kept buffers, neighbourhood schedules and drains.
 */
#ifndef OMNIBUS_PART_OPS_H
#define OMNIBUS_PART_OPS_H

#include <stddef.h>
#include "shim/base/handles.h"
#include "shim/mpi/gclass.h"

/* A buffer that a collective keeps between calls (coll.c), so that it
 * allocates nothing once the first call has run. */
typedef struct {
    void *buf;
    size_t cap; /* bytes */
} coll_kept;

struct nbr_module;
struct drain_rec;

typedef struct omni_ops {
    handle_pool messages;   /* MPI_Message of held messages (mprobe.c) */
    omni_gclass pair_class;  /* MPI_Isendrecv's generalized requests */
    void *pairs;            /* pending MPI_Isendrecv pairs (isendrecv.c) */
    int err_pending;        /* receives completed with an error, not queried */

    /* neighbourhood collectives (neighbor.h), NULL until a schedule exists */
    struct nbr_module *nbr;

    /* what a partner sends in a collective Omnibus runs, and the receive
     * records of one that hears from every member (coll.c) */
    coll_kept coll_scratch;
    coll_kept coll_recvs;
    coll_kept coll_displs;  /* block displacements of a reduce-scatter */
    int pair_poller, nbr_poller; /* their pollers' ids (progress.h) */

    /* files and windows whose members meet before their collective calls
     * (drain.c); cold, after everything else */
    struct drain_rec *drains;
} omni_ops;

#endif
