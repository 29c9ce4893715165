/* counters: what the statistics file reports (stats.h), as this rank
 * counts it.
 *
 * The one part of `omni` (state.h) that every layer writes: each module
 * increments the counters of what it does, and only stats.c reads them all.
 * A counter only grows, except the maxima (peak_*, window_max), which only
 * rise.
 */
#ifndef OMNIBUS_COUNTERS_H
#define OMNIBUS_COUNTERS_H

#include <stdint.h>
#include "router/grid.h"

typedef struct omni_counters {
    uint64_t forwarded_items;  /* items re-aggregated at an intermediate */
    uint64_t forwarded_control;/* of those, control items
                                  (rt_kind_is_control) */
    uint64_t wire_messages;    /* blocks handed to the MPI underneath */
    uint64_t wire_bytes;
    uint64_t direct_sends;     /* large payloads sent straight to the MPI
                                  underneath */
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
                                  window that went to the MPI underneath as
                                  header and payload (send.c,
                                  send_past_window) */
    uint64_t wire_by_dim[RT_MAX_DIMS]; /* blocks sent, by hop dimension */
    /* Neighbourhood collectives (the statistics file's "neighbor"): those
     * run by a schedule (each start of a persistent one counts), the
     * schedule messages they sent to other ranks, those left to the MPI
     * underneath on a topology communicator. */
    uint64_t nbr_collectives, nbr_messages, nbr_under;
    uint64_t wire_off_node;    /* blocks sent to a rank on another node */
    uint64_t wire_bytes_off_node;
    uint64_t wire_ring;        /* blocks that went through a node ring */
    uint64_t ring_alone;       /* messages above the threshold sent eagerly,
                                  alone, through a node ring */
    uint64_t wire_alone;       /* the same, alone in a block through the
                                  MPI underneath */
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
    uint64_t relay_carried_max;/* the most grown window this rank carried at
                                  once for pairs it relays */
} omni_counters;

#endif
