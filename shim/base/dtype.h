/* dtype: what the send and receive paths need to know about a datatype, and
 * how statuses are filled.
 *
 * The MPI layer tells a predefined contiguous type's size without a call
 * (mpi/builtin.h), where PMPI_Type_size costs one.  Such types' data is
 * copied with memcpy; every other type goes through dtype_pack and
 * dtype_unpack, which also take MPI_BOTTOM with absolute addresses (the MPI
 * underneath 4.0.2's own Pack and Unpack refuse a NULL buffer: quirk Q5,
 * mpi/quirks.h).
 *
 * Lifetimes: MPI lets a program free a datatype while a request still uses
 * it (MPI-4.1 §5.1.9).  Whatever Omnibus completes later (a posted receive,
 * a persistent request) holds its own reference, dtype_hold, and drops it
 * with dtype_release once the operation no longer needs it.
 *
 * Statuses carry byte counts (mpi/status.h), so MPI_Get_count and
 * MPI_Get_elements are right for whatever datatype the receiver asks with.
 */
#ifndef OMNIBUS_DTYPE_H
#define OMNIBUS_DTYPE_H

#include "shim/mpi/builtin.h"
#include "shim/mpi/status.h"

static inline int dtype_builtin_size(MPI_Datatype t)
{
    return omni_builtin_size(t);
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

/* Packs count elements at buf (MPI_BOTTOM allowed) into out, which has
 * room for outsize bytes, from *pos on; returns an MPI error code. */
int dtype_pack(const void *buf, MPI_Count count, MPI_Datatype dtype,
               void *out, MPI_Count outsize, MPI_Count *pos);

/* Unpacks insize bytes from in (from *pos on) into count elements at buf
 * (MPI_BOTTOM allowed); returns an MPI error code. */
int dtype_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *buf,
                 MPI_Count count, MPI_Datatype dtype);

/* A reference to t that outlives the program's handle: t itself for a
 * named type (never freed), a duplicate for a derived one.  Returns an MPI
 * error code; on success *held is what dtype_release takes back. */
int dtype_hold_other(MPI_Datatype t, MPI_Datatype *held);
void dtype_release_other(MPI_Datatype held);
/* Inline for the predefined types that most receives name, which need no
 * reference; the rest is out of line. */
static inline int dtype_hold(MPI_Datatype t, MPI_Datatype *held)
{
    *held = t;
    return dtype_builtin_size(t) ? MPI_SUCCESS : dtype_hold_other(t, held);
}

static inline void dtype_release(MPI_Datatype held)
{
    if (!dtype_builtin_size(held))
        dtype_release_other(held);
}

static inline void status_fill(MPI_Status *st, int source, int tag,
                               MPI_Count bytes, int cancelled)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    omni_status_set_count(st, bytes, cancelled);
}

#endif
