#include "shim/dtype.h"
#include <stdint.h>

/* A datatype is named (predefined) when its envelope says so; named types
 * are never freed, so nothing needs holding. */
static int dtype_is_named(MPI_Datatype t)
{
    if (dtype_builtin_size(t))
        return 1;
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 1; /* not a datatype: the call that uses it reports that */
    return combiner == MPI_COMBINER_NAMED;
}

int dtype_hold(MPI_Datatype t, MPI_Datatype *held)
{
    *held = t;
    if (t == MPI_DATATYPE_NULL || dtype_is_named(t))
        return MPI_SUCCESS;
    return PMPI_Type_dup(t, held);
}

void dtype_release(MPI_Datatype held)
{
    if (held != MPI_DATATYPE_NULL && !dtype_is_named(held))
        PMPI_Type_free(&held);
}

/* MPI_BOTTOM: the type's displacements are absolute addresses.  The same
 * layout, shifted down by its true lower bound, is relative to that lower
 * bound's address, which is a buffer MPICH accepts; the extent is
 * unchanged, so counts above one still step alike. */
static int dtype_from_bottom(MPI_Datatype dtype, MPI_Datatype *shifted,
                             void **base)
{
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_true_extent(dtype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    int one = 1;
    MPI_Aint disp = -lb;
    rc = PMPI_Type_create_struct(1, &one, &disp, &dtype, shifted);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(shifted);
    *base = (void *)(uintptr_t)lb;
    return rc;
}

int dtype_pack(const void *buf, MPI_Count count, MPI_Datatype dtype,
               void *out, MPI_Count outsize, MPI_Count *pos)
{
    if (buf != MPI_BOTTOM || count == 0)
        return PMPI_Pack_c(buf, count, dtype, out, outsize, pos,
                           MPI_COMM_SELF);
    MPI_Datatype shifted;
    void *base;
    int rc = dtype_from_bottom(dtype, &shifted, &base);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Pack_c(base, count, shifted, out, outsize, pos, MPI_COMM_SELF);
    PMPI_Type_free(&shifted);
    return rc;
}

int dtype_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *buf,
                 MPI_Count count, MPI_Datatype dtype)
{
    if (buf != MPI_BOTTOM || count == 0)
        return PMPI_Unpack_c(in, insize, pos, buf, count, dtype,
                             MPI_COMM_SELF);
    MPI_Datatype shifted;
    void *base;
    int rc = dtype_from_bottom(dtype, &shifted, &base);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Unpack_c(in, insize, pos, base, count, shifted, MPI_COMM_SELF);
    PMPI_Type_free(&shifted);
    return rc;
}
