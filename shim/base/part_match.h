/* part_match: the matching layer's part of `omni` (shim/base/state.h),
 * written only by shim/match/: the communicator table and the free lists
 * of message and receive records.
 */
#ifndef OMNIBUS_PART_MATCH_H
#define OMNIBUS_PART_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include "shim/base/table.h"

struct comm_rec;
struct match_msg;
struct match_recv;

typedef struct omni_match {
    struct comm_rec *last_comm;
    table_map comm_by_handle; /* MPI_Comm -> comm_rec, managed ones only */
    table_map comm_by_id;     /* Omnibus id -> comm_rec, freed ones too */
    uint32_t next_comm_id;
    struct match_msg *free_msgs;
    struct match_recv *free_recvs;
    void *slabs;            /* chunks the two free lists above come from */
    struct comm_rec *last_arrival; /* communicator of the last arrival */
    size_t early_bytes;     /* held by unexpected messages' early payloads
                               (engine/recv.c), as charged
                               (omni_early_charge) */
    int early_count;        /* those payloads, at most OMNI_EARLY_MAX */
} omni_match;

#endif
