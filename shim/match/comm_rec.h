/* comm_rec: the record of a communicator Omnibus manages.
 *
 * A type only, apart from the table that keeps the records (comm.h), so
 * that the matching engine, whose queues hang off each record, can name it
 * while comm.c calls into match.c (match_drop_unexpected) without the two
 * modules including each other.  Fields are written by comm.c when the
 * record is made or freed, except the queues, which are match.c's.
 */
#ifndef OMNIBUS_COMM_REC_H
#define OMNIBUS_COMM_REC_H

#include <mpi.h>
#include <stdint.h>

typedef struct comm_rec {
    MPI_Comm handle;
    uint32_t id;
    int rank, size;
    int *to_world;       /* [comm rank] -> world rank */
    int *from_world;     /* [world rank] -> comm rank, -1 if not a member */
    int freed;
    int placeholder;     /* arrivals for a communicator this rank has not
                            made yet: only the unexpected queue is valid */
    /* matching queues (match.c): FIFO, oldest first */
    struct match_msg *unx_head, **unx_tail;
    int runs;            /* records of the unexpected queue that stand for
                            a run of messages (match.h, Runs) */
    struct match_recv *posted_head, **posted_tail;
    struct nbr_topo *nbr; /* neighbourhood schedule (neighbor.h), or NULL */
    struct comm_rec *coll; /* shadow of the collectives Omnibus runs
                              (coll.h), made on first use, or NULL */
} comm_rec;

#endif
