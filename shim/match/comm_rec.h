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
    /* The rank maps, both NULL when each member's rank is its world rank
     * (MPI_COMM_WORLD, its duplicates, the first ranks of the world in
     * order): read them through
     * comm_to_world and comm_from_world.  A map with an offset
     * (MPI_COMM_SELF, a run of consecutive ranks) would cost the hot
     * paths a load and a subtraction more per message, so those keep
     * their tables. */
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

/* The world rank of c's rank r. */
static inline int comm_to_world(const comm_rec *c, int r)
{
    return c->to_world ? c->to_world[r] : r;
}

/* The rank in c of world rank w, a member of c (the sender of an item on
 * c is one). */
static inline int comm_from_world(const comm_rec *c, int w)
{
    return c->from_world ? c->from_world[w] : w;
}

#endif
