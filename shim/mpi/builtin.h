/* builtin: the size of a predefined, contiguous datatype, found without a
 * call into the MPI library.
 *
 * The send and receive paths ask it of every message: a nonzero answer
 * means "contiguous, this many bytes per element, never freed", so the
 * data is copied with memcpy and the type needs no reference held; 0 sends
 * the type down the general path (PMPI_Type_size, pack and unpack), which
 * is right for any type, only slower.
 *  - MPICH encodes a builtin type's size in its handle (bits 8-15 of a
 *    handle whose top six bits are 0x4c >> 2): every builtin type answers,
 *    for the cost of a mask and a compare.
 *  - Open MPI's types are addresses of its objects: the commonest types of
 *    fine-grained programs answer after a few compares; every other type
 *    answers 0.
 */
#ifndef OMNIBUS_MPI_BUILTIN_H
#define OMNIBUS_MPI_BUILTIN_H

#include "shim/mpi/family.h"
#include <stdint.h>

static inline int omni_builtin_size(MPI_Datatype t)
{
#ifdef OMNI_FAMILY_MPICH
    unsigned h = (unsigned)t;
    return (h & 0xfc000000u) == 0x4c000000u ? (int)((h >> 8) & 0xffu) : 0;
#else
    if (t == MPI_BYTE || t == MPI_CHAR || t == MPI_UNSIGNED_CHAR ||
        t == MPI_SIGNED_CHAR || t == MPI_INT8_T || t == MPI_UINT8_T)
        return 1;
    if (t == MPI_INT || t == MPI_UNSIGNED || t == MPI_FLOAT ||
        t == MPI_INT32_T || t == MPI_UINT32_T)
        return 4;
    if (t == MPI_DOUBLE || t == MPI_LONG || t == MPI_UNSIGNED_LONG ||
        t == MPI_LONG_LONG || t == MPI_UNSIGNED_LONG_LONG ||
        t == MPI_INT64_T || t == MPI_UINT64_T || t == MPI_2INT)
        return 8;
    if (t == MPI_SHORT || t == MPI_UNSIGNED_SHORT || t == MPI_INT16_T ||
        t == MPI_UINT16_T)
        return 2;
    return 0;
#endif
}

#endif
