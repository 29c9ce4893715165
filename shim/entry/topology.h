/* topology: turns OMNIBUS_TOPOLOGY and the job's node layout into the
 * route table, omni.job.hop_slot[world rank] (the slot of the next hop's
 * buffer), that the send and forward paths read per item.  Only the next
 * hops have slots (omni.job.hop_rank, hop_dim), so what a rank keeps per
 * job rank is the slot and the route's length.
 *
 * Grid positions are not ranks: `auto` over several nodes puts node n's
 * local rank l at position n * ranks_per_node + l whatever the launcher's
 * placement, so the fastest-varying (first-routed) dimension stays inside a
 * node and items gather there before they cross the network.
 */
#ifndef OMNIBUS_TOPOLOGY_H
#define OMNIBUS_TOPOLOGY_H

#include <stddef.h>

/* Builds omni.job.grid, hop_slot, hop_rank, hop_dim, route_len, npeers
 * and self_slot; collective over MPI_COMM_WORLD.  0, or -1 with a message
 * for settings the job cannot use, a verdict every rank reaches alike;
 * running out of memory, which one rank may alone, aborts the job. */
int topology_setup(char *err, size_t errlen);
void topology_free(void);

#endif
