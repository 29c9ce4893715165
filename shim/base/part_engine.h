/* part_engine: the engine layer's part of `omni` (shim/base/state.h),
 * written only by shim/engine/: what sends and receives hold between calls
 * (payload tags, buffered sends, early payloads, rendezvous and
 * synchronous sends) and the request handles the engine issues.
 */
#ifndef OMNIBUS_PART_ENGINE_H
#define OMNIBUS_PART_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "shim/base/handles.h"
#include "shim/base/pending.h"
#include "shim/mpi/gclass.h"
#include "router/envelope.h"
#include "router/learn.h"

/* Blocking sends offered for a single-copy read that one rank holds,
 * unmatched, as candidates for an early read (recv.c); more wait like a
 * rendezvous of the MPI underneath. */
#define OMNI_EARLY_CANDS 64

struct sync_slot;

/* Large messages sent without a header (envelope.c), per next-hop slot:
 * the links to neighbours reached through the MPI underneath. */
typedef struct omni_envelopes {
    ev_layout layout;       /* their tags; layout.ok 0: none are sent */
    int poller, polling;    /* env_poll's id; polling once a neighbour can
                               send them */
    uint8_t *ready;         /* a header went to that rank: it polls */
    uint32_t *sent;         /* sent to it so far */
    uint32_t *taken;        /* taken in from it so far */
    uint32_t *blocks_done;  /* its wire blocks processed so far */
    struct omni_block *parked, *parked_tail; /* wire blocks waiting behind
                               a mark, oldest first (deliver.c) */
} omni_envelopes;

/* Payloads taken out of the MPI underneath in arrival order (inbox.c): a
 * pool of entries chained per bucket of (source, payload tag), oldest
 * first; the buckets are made by the first payload.  A whole cache line
 * (inbox.c asserts it), so that the parts of `omni` after this one keep
 * their places within a line: growing by 56 bytes here moved the hot
 * fields of match, prog and credit, and the 8-byte stream over shared
 * memory ran 3% slower on an Intel Xeon VM. */
typedef union omni_inbox {
    struct {
        handle_pool entries;
        int *bucket;        /* nbuckets chain heads, handles; 0: none */
        int nbuckets;
        int count;          /* entries held */
        int by_message;     /* of which held by their MPI_Message */
        MPI_Comm sync_comm; /* private: synchronous sends' payloads,
                               which the inbox never probes (inbox.h) */
    };
    char line[64];
} omni_inbox;

typedef struct omni_eng {
    uint64_t *sent_to;      /* [world rank] -> items injected for it */
    uint32_t next_payload_tag;
    size_t bsend_size;      /* bytes of the attached MPI_Bsend buffer */
    size_t bsend_used;      /* of which held by large payloads in flight */
    void *bsends;           /* those payloads (send.c) */

    /* rendezvous sends (rndv.c) and their buffered copies still held */
    handle_pool rndv;
    int rndv_bsends;
    omni_gclass rndv_class;

    /* synchronous sends waiting for their ACK (send.c) */
    struct sync_slot *sync;
    int sync_cap, sync_free;
    omni_gclass sync_class;  /* their generalized requests (request.c) */

    /* Omnibus-owned handles (handles.h) */
    handle_pool persistent; /* requests standing for another (preq.h) */
    handle_pool awaiting;   /* receives awaiting rendezvous data (recv.c) */
    handle_pool recv_reqs;  /* MPI_Request of receives (request.c): each
                               slot points to its match_recv */

    omni_inbox inbox;

    /* receives whose payload the MPI underneath is receiving (recv.c) */
    pending_set payloads;
    /* payloads received so far (recv.c): the envelope poll lets the round
     * go on once one of the messages it takes has completed a receive */
    unsigned long payloads_done;
    int payload_poller, bsend_poller; /* their pollers' ids (progress.h) */

    /* blocking sends offered for a read that found no receive (recv.c,
     * early reads): read at once if this rank is still waiting a wait
     * step later; an entry whose message's early_serial no longer equals
     * its own was received or dropped meanwhile */
    struct early_cand {
        struct match_msg *m;
        uint32_t serial;
        unsigned since;  /* omni.prog.wait_steps when it arrived */
    } early_cand[OMNI_EARLY_CANDS];
    int early_ncand;
    uint32_t early_serial;   /* the last serial given */
    int early_poller;

    omni_envelopes env;
    int parked_poller;      /* deliver_poll_parked's id */

    /* the paths of large blocking sends, learned per pair (send.c): alone
     * or apart where both fit, with or without a header above a block to
     * a neighbour through the MPI underneath */
    ln_table lanes;
    ln_table header_lanes;
} omni_eng;

#endif
