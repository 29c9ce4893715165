/* nbr_call: one neighbourhood-collective call's arguments, as the
 * generated wrappers (shim/entry/wrappers.tbl, "nbr" rows) collect them
 * from any of the 30 forms. */
#ifndef OMNIBUS_NBR_CALL_H
#define OMNIBUS_NBR_CALL_H

#include <mpi.h>

enum nbr_kind { NBR_ALLGATHER, NBR_ALLGATHERV, NBR_ALLTOALL, NBR_ALLTOALLV,
                NBR_ALLTOALLW };
enum nbr_how { NBR_BLOCKING, NBR_NONBLOCKING, NBR_PERSISTENT };

/* One call's arguments.  The count and displacement arrays are the int
 * form's, or with `large` the _c form's (MPI_Count, MPI_Aint); alltoallw's
 * displacements are MPI_Aint bytes in both. */
typedef struct {
    enum nbr_kind kind;
    int large;
    const void *sbuf;
    void *rbuf;
    MPI_Count scount, rcount;
    MPI_Datatype stype, rtype;
    const void *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
} nbr_args;

static inline MPI_Count arg_count(const void *a, int large, int i)
{
    return large ? ((const MPI_Count *)a)[i] : ((const int *)a)[i];
}

/* Displacements: MPI_Aint in the _c forms and in alltoallw, int else. */
static inline MPI_Aint arg_disp(const void *a, int aint, int i)
{
    return aint ? ((const MPI_Aint *)a)[i] : ((const int *)a)[i];
}

#endif
