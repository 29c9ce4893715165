/* nbr_sched: message-combining schedules for MPI neighbourhood collectives
 * (docs/design/neighbourhood.md), on plain arrays, without MPI.
 *
 * Input: the whole topology graph of a communicator, as each process's
 * ordered list of destinations (out-neighbours) and of sources
 * (in-neighbours), in communicator ranks; -1 stands for MPI_PROC_NULL (a
 * Cartesian boundary) and carries nothing.  Lists may repeat a process
 * (multigraphs) and name the process itself (self-loops).
 *
 * Matching rule (MPI-4.1 §8.6): a neighbourhood
 * collective behaves as if every process sent slot k of its destination
 * list to destination k and received slot j of its source list from source
 * j, in list order, on one tag.  So the i-th occurrence of n in o's
 * destinations feeds the i-th occurrence of o in n's sources.  A schedule
 * only changes how the bytes travel, never where they land.
 *
 * Pattern.  Two processes are friends when at least `theta`
 * of their active destinations are common.  Friends are paired by a
 * distributed matching in the manner of Hoepman's algorithm (each
 * process proposes to its heaviest friend; a process keeps proposing to a
 * higher-ranked friend that is still free, otherwise it accepts a lower
 * friend that proposed to it, otherwise it drops its choice and proposes to
 * its next heaviest).  A pair (p, f) splits its common destinations CN,
 * sorted by rank: the lower rank of the two keeps the first ceil(|CN|/2),
 * the other the rest.  Each process then sends its data for the half it
 * gave away to its friend (phase 0, the exchange), and, once the friend's
 * data has come, one combined message to each destination of its own half
 * carrying both (phase 1).  The common destinations leave both processes'
 * active sets, friends are recomputed, and the rounds repeat while a pair
 * forms.  Every other destination gets a direct message in phase 0.  The
 * rounds here run in lockstep on the whole graph, so every process computes
 * the same pairing from the gathered graph, without a round of messages
 * between friends per pairing step.
 *
 * Dimension order (for stencils).  Pairing friends once per round cannot
 * take a Moore neighbourhood below 75% (8 destinations, at most 4 common
 * to two friends; docs/design/neighbourhood.md, Dimension order).  So the
 * ranks are also read as a row-major grid, for
 * every ordered factorisation of n into 2 or 3 dimensions: a piece from o
 * to d goes first to the rank with o's coordinates but d's along dimension
 * 0, then d's along dimension 1 too, and so on (phase i moves along
 * dimension i; coordinates already equal are skipped).  A rank then sends
 * one message per distinct coordinate it moves to per dimension: 4 for a
 * 2-D Moore neighbourhood, 6 for a 3-D one (2r per dimension for radius
 * r), wherever the grid's boundaries are and whatever they repeat.  Any
 * graph is delivered correctly under any grid: the grid only decides the
 * routes, so a graph that is no stencil merely costs more messages.  The
 * scheme with the fewest messages over all processes wins, which every
 * process computes alike: the best grid (fewer dimensions on a tie) when
 * it sends no more than half of each process's distinct destinations, a
 * floor pairing cannot go below (then pairing, quadratic on large graphs,
 * is not computed at all); otherwise pairing unless the grid sends fewer.
 *
 * Messages: per (sender, receiver, phase) at most one, so a tag per phase
 * identifies each (the direct slots share the phase-0 message).  A
 * message's pieces are ordered by (origin, slot) on both sides.  A piece
 * takes at most two hops by pairs, at most one per dimension by grid.
 */
#ifndef OMNIBUS_NBR_SCHED_H
#define OMNIBUS_NBR_SCHED_H

typedef struct {
    int n;                      /* processes */
    const int *out_off, *out;   /* p's destinations: out[out_off[p] ..
                                   out_off[p+1]) */
    const int *in_off, *in;     /* p's sources, likewise */
} ns_graph;

/* A piece is the bytes of one send slot: slot `slot` of process `origin`.
 * In a received message, `at` is the source-list slot here that the bytes
 * land in, or -1 when this process relays them in a phase-1 message.  In a
 * sent message, `from` is -1 for this process's own data, else the index of
 * the received message that holds the piece, and `at` its position there. */
typedef struct {
    int origin, slot;
    int at, from;
} ns_piece;

typedef struct {
    int peer;
    int phase;          /* 0 .. nphase-1; selects the tag */
    int first, count;   /* its pieces: piece[first .. first+count) */
    /* link[link_first .. +nlink): for a send, the received messages whose
     * pieces it relays (distinct; it leaves once all are in, at once when
     * there are none); for a receive, the sends that relay from it (its
     * bytes are needed until all have left). */
    int link_first, nlink;
} ns_msg;

enum { NS_PLAIN, NS_PAIRS, NS_DIMS };
#define NS_MAX_DIMS 3

typedef struct {
    ns_msg *send, *recv;
    int nsend, nrecv;
    ns_piece *piece;
    int npiece;
    int *link;
    int nlink;
    int pairs;          /* friends this process combines with */
    /* The same on every process: */
    int scheme;         /* NS_PLAIN, NS_PAIRS or NS_DIMS */
    int nphase;         /* tags a run needs: 2 (plain, pairs) or ndims */
    int ndims, dims[NS_MAX_DIMS]; /* NS_DIMS: the row-major grid */
    long total_msgs;    /* messages per collective, all processes */
} ns_plan;

/* ns_build's flags: also consider the dimension-ordered scheme. */
#define NS_TRY_DIMS 1

/* Builds the plans of processes `first` .. `first + count - 1` into
 * plans[0 .. count-1], with friendship threshold theta >= 1, and with
 * NS_TRY_DIMS in flags the dimension-ordered scheme where it sends fewer
 * messages.  Returns 0; -1 when out of memory or when the graph is not
 * consistent (a source list that does not hold what the destination lists
 * send), the plans then being empty.  theta larger than any degree and no
 * flags give the plain schedule: one direct phase-0 message per distinct
 * destination. */
int ns_build(const ns_graph *g, int theta, int flags, int first, int count,
             ns_plan *plans);

void ns_plan_free(ns_plan *p);

#endif
