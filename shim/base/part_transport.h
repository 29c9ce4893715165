/* part_transport: the transport layer's part of `omni` (shim/base/state.h),
 * written only by shim/transport/: the peer buffers, the blocks in flight
 * both ways, the node rings and the block free lists.
 */
#ifndef OMNIBUS_PART_TRANSPORT_H
#define OMNIBUS_PART_TRANSPORT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "router/adapt.h"
#include "router/evict.h"
#include "router/paths.h"
#include "router/ring.h"
#include "shim/base/block.h"

/* The buffer this rank fills for one next-hop rank. */
typedef struct {
    omni_block *fill;     /* NULL until the first item; owned */
    uint64_t first_ns;    /* when the first progress round saw fill
                             non-empty (0: none has yet); the clock is
                             read by rounds, not by the send path, where
                             it cost a tenth of a small send */
    uint64_t stamp;       /* omni.tx.epoch at the latest append */
    uint64_t fwd_round;   /* 1 + omni.tx.rounds when the first item
                             forwarded into fill went in; 0: fill holds
                             none */
    int dirty_next, dirty_prev; /* links in the dirty list (-1 ends it) */
    int dirty;            /* fill is non-empty and on the dirty list */
    uint8_t off_node;     /* the next hop is on another node (job.off_node) */
    uint8_t dim;          /* the dimension of the hop to it (job.hop_dim,
                             0 for this rank's own), for the statistics */
    int soon;             /* ships at the end of this progress round */
    uint32_t room;        /* bytes fill can hold (router/evict.h: it opens
                             small on a rank of many next hops and grows);
                             0 without fill */
    rg_tx *ring;          /* node ring to this peer (shm.h), or NULL: blocks
                             go through PMPI_Isend */
    omni_block *backlog;  /* blocks waiting for room in `ring`, oldest
                             first (linked by next); owned */
    omni_block *backlog_tail;
    omni_block *joining;  /* a block arriving from this peer in pieces,
                             put together here; owned; NULL between */
    uint32_t pieces_left; /* pieces still due for `joining` */
} omni_peer;

/* A wire message handed to the MPI underneath, kept until PMPI_Test says it is
 * done. */
typedef struct {
    MPI_Request req;
    omni_block *block;
} omni_inflight;

/* The sizes where a message above the threshold changes path, one row
 * each: the name, and the built-in value the job starts from (its reasons
 * are in shim/transport/calib.h, which sets them at MPI_Init).
 *  ring_mpi_from      a blocking send to a node-ring peer goes through the
 *                     MPI underneath (header and payload) from this many
 *                     payload bytes on, alone through the ring below
 *  read_from          a nonblocking or synchronous send to a node-ring
 *                     peer goes by single-copy read from here
 *  wire_alone_max     a blocking send to a peer reached through the MPI
 *                     underneath goes alone in a block up to here (the
 *                     value for a job whose messages apart go without a
 *                     header; calib.h's CALIB_WIRE_ALONE_WITH_HEADER for
 *                     one whose cannot)
 *  wire_alone_nb_max  the same for a send whose caller goes on
 *  under_wait_from    the MPI underneath's own standard send waits for its
 *                     receive from this size on (its rendezvous): from
 *                     here, and from ring_mpi_from, a blocking send to a
 *                     node-ring peer goes by single-copy read too
 *  envelope_max       a standard send to a neighbour reached through the
 *                     MPI underneath goes without a header up to here
 *                     (shim/engine/envelope.h), as header and payload
 *                     above */
#define OMNI_CROSSOVERS(X)                                                     \
    X(ring_mpi_from, 131072)                                                   \
    X(read_from, 16384)                                                        \
    X(wire_alone_max, 16384)                                                   \
    X(wire_alone_nb_max, 16384)                                                \
    X(under_wait_from, 131072)                                                 \
    X(envelope_max, 524288)                                                    \
    X(wire_piece, 0)

enum omni_crossover {
#define OMNI_CX_ENUM(name, dflt) OMNI_CX_##name,
    OMNI_CROSSOVERS(OMNI_CX_ENUM)
#undef OMNI_CX_ENUM
    OMNI_CX_COUNT
};

/* The crossovers in force, the same on every rank, and where each came
 * from (router/paths.h: default, measured, set). */
typedef struct {
    uint64_t at[OMNI_CX_COUNT];
    enum pa_source source[OMNI_CX_COUNT];
} omni_paths;

typedef struct omni_tx {
    /* send side */
    omni_peer *peers;       /* [slot of a next hop] (omni.job.hop_slot),
                               this rank's own last */
    ev_list dirty;          /* the peers with a non-empty buffer, from
                               the newest to the oldest (router/evict.h) */
    uint64_t fill_bytes;    /* the room of every peer's fill together, at
                               most fill_cap_bytes (router/evict.h) */
    uint64_t fill_cap_bytes;/* FL_FILL_CAP full blocks */
    uint32_t start_room;    /* the room a fill opens with (ev_start_room) */
    int start_cls;          /* its block class (-1: full-size) */
    int fill_blocks;        /* peers with a fill */
    int soon_count;         /* peers marked to ship at the round's end */
    uint64_t epoch;         /* sending rounds so far: progress rounds
                               after which something had been appended */
    uint64_t rounds;        /* progress rounds so far */
    ad_policy adapt;        /* when partly filled buffers leave */
    ad_rate rate;           /* buffers a sending round writes (adapt.h) */
    omni_inflight *inflight;/* ring of blocks handed to the MPI underneath */
    int inflight_cap, inflight_head, inflight_count;
    uint64_t inflight_done; /* of those, how many the MPI underneath
                               completed, ever */

    /* receive side: a ring of posted wire receives, processed in order
     * (none when every other rank sends through a node ring) */
    omni_inflight *rx;
    int rx_count, rx_head;
    int rx_taken;           /* the slot before rx_head was taken and is
                               not posted again yet */

    /* node rings (shm.c): blocks to and from ranks of this node */
    MPI_Comm ring_comm;     /* the node's ranks, or MPI_COMM_NULL */
    MPI_Win ring_win;       /* this rank's incoming rings, one per sender */
    rg_tx *ring_tx;         /* [local rank] -> the ring into that rank */
    rg_rx *ring_rx;         /* the rings this rank reads, ring_nrx of them */
    int ring_nrx;
    int *ring_peers;        /* slots of the next hops written to by ring */
    int ring_npeers;
    int ring_backlogs;      /* blocks waiting in peers' backlogs */
    size_t ring_alone_max;  /* largest item that goes alone through a
                               ring (shm.c); 0 without rings */
    omni_paths paths;       /* where large messages change path (calib.h) */
    uint64_t copy_slow_skews; /* the page distances at which this rank's
                               memcpy was timed slower than cp_loop
                               (router/copy.h, transport_copy) */
    char *read_bounce;      /* where a single-copy read at one of those
                               distances lands first (shm_read_peer);
                               NULL until one does */
    int *read_pid;          /* [world rank] -> its process id where this
                               rank may read its memory directly
                               (shm_read_peer), else 0; NULL without */

    /* what becomes of an arrived block and of a node-ring record, the
     * engine's functions given to transport_init (transport.h) */
    void (*on_block)(omni_block *b);
    size_t (*on_record)(const char *data, size_t len);

    /* block allocation */
    omni_block *free_blocks;                      /* capacity block_cap */
    omni_block *free_cut[OMNI_BLOCK_CLASSES];     /* cut blocks, by class */
    uint64_t bytes_out;     /* block bytes allocated, not on a free list */

    /* Per next-hop slot, for large messages sent without a header
     * (router/envelope.h): the blocks shipped to it through the MPI
     * underneath, and the count the mark due before its next block says,
     * with bit 31 set (0: none due). */
    uint32_t *blocks_out;
    uint32_t *mark_due;
} omni_tx;

#endif
