/* state: the one structure that holds all of Omnibus's mutable state.
 *
 * Everything a rank knows at run time lives in `omni`, defined in state.c:
 * the settings, the topology (next hop per destination), the peer buffers,
 * the communicator table, the free lists and the counters.  No other file
 * defines mutable globals.  Omnibus runs on one thread at a time (the
 * application's, under MPI_THREAD_SINGLE/FUNNELED/SERIALIZED); a job that
 * gets MPI_THREAD_MULTIPLE runs pass-through (see init.c).
 */
#ifndef OMNIBUS_STATE_H
#define OMNIBUS_STATE_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include "config/config.h"
#include "router/grid.h"
#include "router/wire.h"
#include "router/adapt.h"
#include "router/ring.h"
#include "shim/base/table.h"
#include "shim/base/handles.h"
#include "shim/base/pending.h"
#include "shim/base/fail.h"
#include "shim/mpi/gclass.h"

/* A block of bytes: a peer's fill buffer, a wire message in flight, or an
 * arrived wire message whose items the matching engine still points into.
 * Fill buffers and wire receives have capacity omni.block_cap (cls < 0); a
 * partly filled buffer is cut, when it ships, to a block of the smallest
 * power-of-two class that holds it (cls = log2 of its capacity), so that
 * what is in flight costs at most about twice its content (router/flow.h).
 * Each class has its own free list.  `refs` counts unexpected messages that
 * point into an arrived block; the block returns to its free list when it
 * drops to zero and parsing is done. */
typedef struct omni_block {
    struct omni_block *next;
    int refs;
    int cls;
    size_t len;
    char data[];
} omni_block;

#define OMNI_BLOCK_CLASSES 32

/* The buffer this rank fills for one next-hop rank. */
typedef struct {
    omni_block *fill;     /* NULL until the first item; owned */
    uint64_t first_ns;    /* when the first progress round saw fill
                             non-empty (0: none has yet); the clock is
                             read by rounds, not by the send path, where
                             it cost a tenth of a small send */
    uint64_t stamp;       /* omni.epoch at the latest append */
    uint64_t fwd_round;   /* 1 + omni.rounds when the first item forwarded
                             into fill went in; 0: fill holds none */
    int dirty_next;       /* link in the dirty list; -1 ends it */
    int dirty;            /* fill is non-empty and on the dirty list */
    int soon;             /* ships at the end of this progress round */
    rg_tx *ring;          /* node ring to this peer (shm.h), or NULL: blocks
                             go through PMPI_Isend */
    omni_block *backlog;  /* blocks waiting for room in `ring`, oldest
                             first (linked by next); owned */
    omni_block *backlog_tail;
} omni_peer;

/* A wire message handed to MPICH, kept until PMPI_Test says it is done. */
typedef struct {
    MPI_Request req;
    omni_block *block;
} omni_inflight;

/* A buffer that a collective keeps between calls (coll.c), so that it
 * allocates nothing once the first call has run. */
typedef struct {
    void *buf;
    size_t cap; /* bytes */
} coll_kept;

typedef struct omni_counters {
    uint64_t forwarded_items;  /* items re-aggregated at an intermediate */
    uint64_t wire_messages;    /* blocks handed to MPICH */
    uint64_t wire_bytes;
    uint64_t direct_sends;     /* large payloads sent straight to MPICH */
    uint64_t delivered;        /* items that reached their destination here */
    uint64_t flush_full, flush_idle, flush_age, flush_block, flush_urgent;
    uint64_t flush_quiet;      /* shipped because the rank stopped sending */
    uint64_t flush_answer;     /* shipped towards the sender of a receive
                                  that a Wait call found done (transport.h) */
    uint64_t forwarded_held;   /* buffers holding a forwarded item that left
                                  more than one progress round after it
                                  went in (router/adapt.h) */
    uint64_t peak_bytes;       /* most block bytes allocated at once */
    uint64_t peak_filling;     /* most buffers filling at once (the dirty
                                  list's longest), the part of peak_bytes
                                  that follows from the traffic alone */
    uint64_t acks_sent;        /* control items (ACK, CREDIT, STALL, ...)
                                  created here */
    uint64_t window_full;      /* small sends that found their pair's window
                                  full and went by rendezvous (rndv.h) */
    uint64_t rndv_sends;       /* rendezvous sends started here */
    uint64_t read_sends;       /* of those, the ones their receiver reads
                                  straight from this rank's memory (rndv.h,
                                  Single-copy reads) */
    uint64_t window_fallbacks; /* blocking standard sends past their pair's
                                  window that went to MPICH as header and
                                  payload (send.c, send_past_window) */
    uint64_t wire_by_dim[RT_MAX_DIMS]; /* blocks sent, by hop dimension */
    /* Neighbourhood collectives (the statistics file's "neighbor"): those
     * run by a schedule (each start of a persistent one counts), the
     * schedule messages they sent to other ranks, those left to MPICH on a
     * topology communicator. */
    uint64_t nbr_collectives, nbr_messages, nbr_mpich;
    uint64_t wire_off_node;    /* blocks sent to a rank on another node */
    uint64_t wire_bytes_off_node;
    uint64_t wire_ring;        /* blocks that went through a node ring */
    uint64_t ring_alone;       /* messages above the threshold sent eagerly,
                                  alone, through a node ring */
    uint64_t wire_alone;       /* the same, alone in a block through MPICH */
    uint64_t early_payloads;   /* large payloads received here before their
                                  receive was posted (recv.c) */
    uint64_t coll_items;       /* messages of collectives Omnibus runs
                                  (coll.h), not counted as user sends */
    uint64_t coll_by_hops[RT_MAX_DIMS + 1]; /* the same, by route length */
    /* flow control (credit.h) */
    uint64_t credit_stalls;    /* STALL items sent: a send found its window
                                  short */
    uint64_t credit_refusals;  /* REFUSED answers that took effect */
    uint64_t credit_silences;  /* waits that ended with a silent destination */
    uint64_t credit_holds;     /* HOLD items sent: a deferred STALL's
                                  destination still polls */
    uint64_t window_grants;    /* growths this rank lent */
    uint64_t window_reclaims;  /* RECLAIM items this rank sent */
    uint64_t window_max;       /* the largest window this rank lent */
} omni_counters;

struct comm_rec;
struct match_msg;
struct match_recv;

/* Poll functions of each kind a progress round calls (progress.h). */
#define OMNI_POLLERS_MAX 8

typedef struct omni_state {
    int on;                 /* wrappers act (else pass-through) */
    int initialized;        /* Omnibus set itself up in MPI_Init */
    int in_progress;        /* re-entrancy guard for grequest callbacks */
    cfg_settings cfg;
    int rank, size;         /* in MPI_COMM_WORLD */
    int tag_ub;
    MPI_Comm wire_comm;     /* private: blocks between neighbours */
    MPI_Comm payload_comm;  /* private: large payloads, one tag each */
    uint32_t next_payload_tag;
    int payload_tag_max;    /* payload tags cycle through 0..max */
    size_t bsend_size;      /* bytes of the attached MPI_Bsend buffer */
    size_t bsend_used;      /* of which held by large payloads in flight */
    void *bsends;           /* those payloads (send.c) */
    size_t early_bytes;     /* held by early payloads, as charged
                               (omni_early_charge; recv.c) */
    struct credit_out *credit_out; /* [world rank] -> this rank's account
                               of its window there (credit.h) */

    /* topology */
    rt_grid grid;
    int *next_hop;          /* [world rank] -> world rank of the next hop */
    int *hop_dim;           /* [world rank] -> dimension of that first hop */
    int *route_len;         /* [world rank] -> hops from here */
    int npeers;             /* distinct next hops (excluding self) */
    int grid_pos;           /* this rank's position in the grid */
    int nodes;              /* nodes the job spans */
    unsigned char *off_node;/* [world rank] -> 1 when on another node than
                               this rank (OMNIBUS_FAKE_NODES included) */
    uint64_t *sent_to;      /* [world rank] -> items injected for it */
    uint32_t window;        /* credit.h: the base window of every pair */
    uint32_t *credit;       /* [world rank] -> bytes we may still send */
    struct credit_in *credit_in; /* [world rank] -> the window this rank
                               lends that source (credit.h) */
    size_t threshold;       /* effective: fits a block with its header */
    size_t block_cap;

    /* send side */
    omni_peer *peers;       /* [world rank of next hop] */
    int dirty_head;         /* first peer with a non-empty buffer, or -1;
                               the list runs from newest to oldest */
    int dirty_count;        /* its length, at most FL_FILL_CAP + 1 */
    int soon_count;         /* peers marked to ship at the round's end */
    uint64_t epoch;         /* sending rounds so far: progress rounds
                               after which something had been appended */
    uint64_t rounds;        /* progress rounds so far */
    ad_policy adapt;        /* when partly filled buffers leave */
    omni_inflight *inflight;/* ring of blocks handed to MPICH */
    int inflight_cap, inflight_head, inflight_count;
    uint64_t inflight_done; /* of those, how many MPICH completed, ever */

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
    int *ring_peers;        /* world ranks this rank writes to by ring */
    int ring_npeers;
    int ring_backlogs;      /* blocks waiting in peers' backlogs */
    size_t ring_alone_max;  /* largest item that goes alone through a
                               ring (shm.c); 0 without rings */
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

    /* matching engine and communicators (comm.c, match.c) */
    struct comm_rec *last_comm;
    table_map comm_by_handle; /* MPI_Comm -> comm_rec, managed ones only */
    table_map comm_by_id;     /* Omnibus id -> comm_rec, freed ones too */
    uint32_t next_comm_id;
    struct match_msg *free_msgs;
    struct match_recv *free_recvs;
    void *slabs;            /* chunks the two free lists above come from */
    struct comm_rec *last_arrival; /* communicator of the last arrival */

    /* rendezvous sends (rndv.c) and their buffered copies still held */
    handle_pool rndv;
    int rndv_bsends;
    mpi_gclass rndv_class;

    /* synchronous sends waiting for their ACK (send.c) */
    struct sync_slot *sync;
    int sync_cap, sync_free;

    /* generalized-request classes (request.c) */
    mpi_gclass sync_class, pair_class;
    void *pairs;            /* pending MPI_Isendrecv pairs (isendrecv.c) */
    /* errors reported by query_fn, not yet raised (progress/greq.h) */
    struct req_error { MPI_Request greq; MPI_Comm comm; int error; } *ledger;
    int ledger_n, ledger_cap;
    int err_pending;        /* receives completed with an error, not queried */

    /* Omnibus-owned handles (handles.h) */
    handle_pool messages;   /* MPI_Message of held messages (mprobe.c) */
    handle_pool persistent; /* requests standing for another (preq.h) */
    handle_pool awaiting;   /* receives awaiting rendezvous data (recv.c) */
    handle_pool recv_reqs;  /* MPI_Request of receives (request.c): each
                               slot points to its match_recv */

    /* neighbourhood collectives (neighbor.h), NULL until a schedule exists */
    struct nbr_module *nbr;
    cfg_neighbor nbr_mode;  /* OMNIBUS_NEIGHBOR in force, the same on every
                               rank (init.c, cfg_neighbor_mode) */

    /* what a partner sends in a collective Omnibus runs, and the receive
     * records of one that hears from every member (coll.c) */
    coll_kept coll_scratch;
    coll_kept coll_recvs;
    coll_kept coll_displs;  /* block displacements of a reduce-scatter */

    /* receives whose payload MPICH is receiving (recv.c) */
    pending_set payloads;

    /* what a progress round polls besides the transport (progress.h) */
    int (*pollers[OMNI_POLLERS_MAX])(void);
    int npollers;
    unsigned after_round;   /* pollers run after the round's guard */
    unsigned poll_work;     /* pollers with work, one bit each */
    int payload_poller, pair_poller, bsend_poller, nbr_poller; /* their ids */

    /* progress policy */
    int yield;              /* sched_yield in wait loops */
    unsigned empty_polls;   /* consecutive Test or Iprobe calls that found
                               nothing */
    int waiting;            /* the next progress round is a step of a call
                               that waits (progress.c) */
    MPI_Request mpich_anchor; /* a receive that never matches (progress.c) */
    unsigned mpich_rounds;  /* rounds since the anchor was last tested */
    long flush_ns;
    int app_thread_level;   /* what the application was told it got */
    int threaded;           /* the progress thread runs: take `lock` */
    int thread_stop;
    pthread_t thread;
    pthread_mutex_t lock;   /* one thread inside Omnibus at a time */

    /* windows lent and grown (credit.c); cold, after everything the
     * message paths touch */
    uint64_t credit_lent;   /* window bytes this rank lends, all sources */
    uint64_t credit_grown;  /* grown window this rank holds, all
                               destinations, and growth its unanswered
                               STALLs can take: at most fl_sender_budget */
    int *credit_grown_in;   /* sources lent more than the base */
    int credit_grown_in_n, credit_grown_in_cap;
    int *credit_grown_out;  /* destinations that lent this rank more */
    int credit_grown_out_n, credit_grown_out_cap;
    int credit_ranks;       /* P of the window rule (OMNIBUS_FLOW_RANKS) */
    struct credit_deferral *credit_deferred; /* STALLs that wait for an
                               answer while this rank sits in a wait
                               (credit.c) */
    int credit_deferred_n, credit_deferred_cap;
    uint64_t credit_polled_ns; /* when the credit poller last ran */
    int credit_poller;      /* the poller that answers them */
    int credit_waiting;     /* this rank waits in credit_wait itself */
    int round_waits;        /* the current progress round is a step of a
                               call that waits (progress.c) */
    int early_count;        /* early payloads held (recv.c), at most
                               OMNI_EARLY_MAX */

    omni_counters stats;

    /* files and windows whose members meet before their collective calls
     * (ops/drain.c); cold, after everything else */
    struct drain_rec *drains;
} omni_state;

extern omni_state omni;

/* The base helpers every module may use (state.c). */
uint64_t omni_now_ns(void);

/* What an early payload of `bytes` takes from OMNIBUS_EAGER_POOL: what it
 * holds, as an eager item would (its bytes and an item header), never more,
 * so that the payloads of a pair that fell back to MPICH cost the pool no
 * more than the same messages aggregated. */
static inline size_t omni_early_charge(MPI_Count bytes)
{
    return (size_t)bytes + RT_HDR_SIZE;
}
/* Early payloads received at once at most: each keeps a receive posted in
 * MPICH ahead of its message, MPICH's supply of requests is finite, and a
 * flood of small payloads once exhausted it.  A count of its own, not a
 * charge on the pool. */
#define OMNI_EARLY_MAX 16384

/* Wrappers must be visible: the library is built with -fvisibility=hidden
 * so that only the MPI_ entry points override MPICH. */
#ifndef OMNI_EXPORT
#define OMNI_EXPORT __attribute__((visibility("default")))
#endif

#endif
