#include "shim/base/dtype.h"
#include "shim/mpi/count_gen.h"
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

int dtype_hold_other(MPI_Datatype t, MPI_Datatype *held)
{
    if (t == MPI_DATATYPE_NULL || dtype_is_named(t))
        return MPI_SUCCESS;
    return PMPI_Type_dup(t, held);
}

void dtype_release_other(MPI_Datatype held)
{
    if (held != MPI_DATATYPE_NULL && !dtype_is_named(held))
        PMPI_Type_free(&held);
}

/* MPI_BOTTOM: the type's displacements are absolute addresses.  The same
 * layout, shifted down by its true lower bound, is relative to that lower
 * bound's address, which is a buffer the MPI underneath accepts; the extent is
 * unchanged, so counts above one still step alike.  For any other buffer
 * (or no data) *buf and *dtype stay as they are and *shifted is
 * MPI_DATATYPE_NULL; otherwise the caller frees *shifted. */
static int dtype_resolve_bottom(void **buf, MPI_Count count,
                                MPI_Datatype *dtype, MPI_Datatype *shifted)
{
    *shifted = MPI_DATATYPE_NULL;
    if (*buf != MPI_BOTTOM || count == 0)
        return MPI_SUCCESS;
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_true_extent(*dtype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return rc;
    int one = 1;
    MPI_Aint disp = -lb;
    rc = PMPI_Type_create_struct(1, &one, &disp, dtype, shifted);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(shifted);
    *buf = (void *)(uintptr_t)lb;
    *dtype = *shifted;
    return rc;
}

int dtype_pack(const void *buf, MPI_Count count, MPI_Datatype dtype,
               void *out, MPI_Count outsize, MPI_Count *pos)
{
    MPI_Datatype shifted;
    void *from = (void *)buf;
    int rc = dtype_resolve_bottom(&from, count, &dtype, &shifted);
    if (rc == MPI_SUCCESS)
        rc = omni_Pack_c(from, count, dtype, out, outsize, pos, MPI_COMM_SELF);
    if (shifted != MPI_DATATYPE_NULL)
        PMPI_Type_free(&shifted);
    return rc;
}

int dtype_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *buf,
                 MPI_Count count, MPI_Datatype dtype)
{
    MPI_Datatype shifted;
    int rc = dtype_resolve_bottom(&buf, count, &dtype, &shifted);
    if (rc == MPI_SUCCESS)
        rc = omni_Unpack_c(in, insize, pos, buf, count, dtype, MPI_COMM_SELF);
    if (shifted != MPI_DATATYPE_NULL)
        PMPI_Type_free(&shifted);
    return rc;
}
