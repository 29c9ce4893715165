/* dtype: what the send and receive paths need to know about a datatype, and
 * how statuses are filled.
 *
 * MPICH encodes a builtin datatype's size in its handle (bits 8-15 of a
 * handle whose top six bits are 0x4c >> 2); reading it is free, where
 * PMPI_Type_size costs a call.  Builtin types are contiguous, so their data
 * is copied with memcpy; every other type goes through PMPI_Pack/Unpack,
 * which is also where MPI_BOTTOM with absolute addresses is handled.
 *
 * Statuses are filled field by field with MPICH's layout (count_lo,
 * count_hi_and_cancelled): byte counts, so MPI_Get_count and
 * MPI_Get_elements are right for whatever datatype the receiver asks with.
 */
#ifndef OMNIBUS_DTYPE_H
#define OMNIBUS_DTYPE_H

#include <mpi.h>

static inline int dtype_builtin_size(MPI_Datatype t)
{
    unsigned h = (unsigned)t;
    return (h & 0xfc000000u) == 0x4c000000u ? (int)((h >> 8) & 0xffu) : 0;
}

/* Size in bytes of one element; -1 for an invalid datatype. */
static inline MPI_Count dtype_size(MPI_Datatype t)
{
    int b = dtype_builtin_size(t);
    if (b)
        return b;
    MPI_Count size;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size_x(t, &size) != MPI_SUCCESS)
        return -1;
    return size;
}

static inline void status_fill(MPI_Status *st, int source, int tag,
                               MPI_Count bytes, int cancelled)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    st->count_hi_and_cancelled =
        (int)(((unsigned long long)bytes >> 32) << 1) | (cancelled ? 1 : 0);
}

#endif
