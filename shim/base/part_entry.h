/* part_entry: the job's settings and topology, and the entry layer's own
 * state; two parts of `omni` (shim/base/state.h).
 *
 * omni.job is written by the entry layer only, in MPI_Init (init.c,
 * topology.c) and MPI_Finalize, and read by every layer: once MPI_Init has
 * returned it does not change.  omni.entry is the entry layer's alone.
 */
#ifndef OMNIBUS_PART_ENTRY_H
#define OMNIBUS_PART_ENTRY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "config/config.h"
#include "router/grid.h"

typedef struct omni_job {
    int on;                 /* wrappers act (else pass-through) */
    int initialized;        /* Omnibus set itself up in MPI_Init */
    cfg_settings cfg;
    int rank, size;         /* in MPI_COMM_WORLD */
    int tag_ub;
    MPI_Comm wire_comm;     /* private: blocks between neighbours */
    MPI_Comm payload_comm;  /* private: large payloads, one tag each */
    int payload_tag_max;    /* payload tags cycle through 0..max */
    size_t threshold;       /* effective: fits a block with its header */
    size_t block_cap;
    int yield;              /* sched_yield in wait loops */
    int crowded;            /* this node runs more ranks than its ranks
                               have cores (init.c) */
    cfg_neighbor nbr_mode;  /* OMNIBUS_NEIGHBOR in force, the same on every
                               rank (init.c, cfg_neighbor_mode) */

    /* topology */
    rt_grid grid;
    int *hop_slot;          /* [world rank] -> the slot of its next hop:
                               its buffer is omni.tx.peers[slot] */
    int *hop_rank;          /* [slot] -> world rank of that next hop */
    int *hop_dim;           /* [slot] -> dimension of the hop to it (-1 for
                               this rank's own slot) */
    int *route_len;         /* [world rank] -> hops from here */
    int npeers;             /* distinct next hops (excluding self): slots
                               0 .. npeers - 1, in world rank order */
    int self_slot;          /* npeers: this rank's own buffer, which
                               delivers in place */
    int grid_pos;           /* this rank's position in the grid */
    int nodes;              /* nodes the job spans */
    unsigned char *off_node;/* [world rank] -> 1 when on another node than
                               this rank (OMNIBUS_FAKE_NODES included) */
} omni_job;

typedef struct omni_entry {
    int app_thread_level;   /* what the application was told it got */
} omni_entry;

#endif
