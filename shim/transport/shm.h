/* shm: the node rings, blocks between ranks of one node through MPI-3
 * shared memory instead of PMPI_Isend: a block costs a copy and a release
 * store instead of a send of the MPI underneath, its test and a receive posted
 * again (docs/design/transport.md, Node rings; docs/design/decisions.md).
 *
 * Each rank allocates, in one MPI_Win_allocate_shared window on its node's
 * communicator, one incoming ring (router/ring.h) per rank of the node; the
 * ring that rank j writes to rank i is slot j of i's segment, so every
 * (sender, receiver) pair of the node has its own single-producer
 * single-consumer FIFO.  Rings join ranks that share memory and that the
 * topology places on one node (OMNIBUS_FAKE_NODES keeps its fake nodes
 * apart), when OMNIBUS_SHM (config.h, cfg_shm_wanted) says so.
 *
 * Contract: shm_init and shm_finalize are collective over the job (MPI_Init
 * and MPI_Finalize); between them omni.tx.peers[p].ring is the producer view
 * of the ring to world rank p, or NULL, symmetrically on both sides (p has
 * a ring to this rank exactly when this rank has one to p), and
 * omni.tx.ring_rx holds the views this rank consumes.  What goes into a ring,
 * and when, is transport.c's business.  Memory: one ring per rank of the
 * node, at most 4 MiB in all and 2 MiB each (2 MiB on a node of 2 or 3
 * ranks, 256 KiB on one of up to 17, at least 64 KiB), or two blocks where
 * that is more (shm.c, ring_capacity), fixed at start-up and outside the
 * block accounting of router/flow.h; small records keep to the first 256
 * KiB of a ring while its consumer keeps up (rg_tx_soft).
 */
#ifndef OMNIBUS_SHM_H
#define OMNIBUS_SHM_H

#include "shim/base/state.h"

/* Sets the rings up when OMNIBUS_SHM and the node allow; 0 on success
 * (with or without rings), -1 when out of memory. */
int shm_init(void);
void shm_finalize(void);

/* Single-copy reads (docs/design/transport.md, Single-copy reads).  Where
 * the kernel lets ranks of a node read each other's memory
 * (process_vm_readv, which shm_init tries between every pair of the node
 * and enables only when every pair succeeds, so that both sides of any
 * pair agree), omni.tx.read_pid[p] is world rank p's process id, else 0.
 * shm_read_peer copies n bytes at address `addr` of world rank p into
 * `to`, all of them or none, and returns 0, or an errno value; at a
 * distance where memcpy was timed slow (router/copy.h) through a buffer
 * of this rank's, 64 KiB at a time. */
int shm_read_peer(int p, void *to, uint64_t addr, size_t n);

#endif
