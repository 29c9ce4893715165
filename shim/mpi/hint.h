/* hint: whether the MPI library beneath was told to keep ranks of one node
 * off shared memory, as a user does to make them talk as if over a
 * network.
 *
 * Omnibus then takes its network defaults and leaves its node rings off
 * (OMNIBUS_SHM=auto), so that what is measured is the network path.  The
 * environment is the launcher's, the same on every rank, so every rank
 * decides alike.
 *  - MPICH over UCX: UCX_TLS without a shared-memory transport;
 *  - Open MPI: the same for its UCX layer, or OMPI_MCA_btl without its
 *    shared-memory btl (vader).
 */
#ifndef OMNIBUS_MPI_HINT_H
#define OMNIBUS_MPI_HINT_H

#include "config/config.h"
#include "shim/mpi/family.h"
#include <stdlib.h>

static inline int omni_transport_is_network(void)
{
#ifdef OMNI_FAMILY_MPICH
    return cfg_ucx_tls_is_network(getenv("UCX_TLS"));
#else
    return cfg_ucx_tls_is_network(getenv("UCX_TLS")) ||
           cfg_btl_is_network(getenv("OMPI_MCA_btl"));
#endif
}

#endif
