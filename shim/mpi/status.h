/* status: filling an MPI_Status for an operation Omnibus completed itself.
 *
 * The standard names MPI_SOURCE, MPI_TAG and MPI_ERROR; the count and the
 * cancelled flag are hidden fields whose layout is the implementation's.
 * Omnibus stores a byte count there, so that MPI_Get_count and
 * MPI_Get_elements answer right for whatever datatype the receiver asks
 * with, exactly as each library stores it for its own receives.
 */
#ifndef OMNIBUS_MPI_STATUS_H
#define OMNIBUS_MPI_STATUS_H

#include "shim/mpi/family.h"

static inline void omni_status_set_count(MPI_Status *st, MPI_Count bytes,
                                        int cancelled)
{
#ifdef OMNI_FAMILY_MPICH
    st->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    st->count_hi_and_cancelled =
        (int)(((unsigned long long)bytes >> 32) << 1) | (cancelled ? 1 : 0);
#else
    st->_ucount = (size_t)bytes;
    st->_cancelled = cancelled ? 1 : 0;
#endif
}

#endif
