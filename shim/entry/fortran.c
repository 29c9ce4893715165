/* fortran: programs that use the `mpi_f08` module.
 *
 * MPICH's mpi_f08 bindings call PMPI_ entry points directly for every call
 * without a buffer (MPI_Init, MPI_Wait, MPI_Probe, MPI_Test*, ...;
 * docs/semantics.md, Threads and Fortran), so Omnibus could never see
 * those calls and must not manage any
 * traffic of such a program.  MPI_Init then never reaches Omnibus, which
 * leaves the whole job pass-through on every rank alike; these wrappers of
 * the f08 initialization routines only say so, once, from rank 0.  (`mpif.h`
 * and `use mpi` call the C MPI_ functions and are fully covered.)
 */
#include "shim/base/state.h"
#include <dlfcn.h>
#include <stdio.h>

typedef void init_f08_fn(MPI_Fint *ierror);
typedef void init_thread_f08_fn(MPI_Fint *required, MPI_Fint *provided,
                                MPI_Fint *ierror);

static void note_f08(void)
{
    int rank = 0, flag = 0;
    PMPI_Initialized(&flag);
    if (flag)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "omnibus: this program uses the mpi_f08 Fortran "
                        "bindings, which call MPICH's PMPI_ functions "
                        "directly: the whole job runs pass-through\n");
}

OMNI_EXPORT void mpi_init_f08_(MPI_Fint *ierror)
{
    init_f08_fn *real = (init_f08_fn *)dlsym(RTLD_NEXT, "mpi_init_f08_");
    if (!real) {
        *ierror = MPI_ERR_OTHER;
        return;
    }
    real(ierror);
    note_f08();
}

OMNI_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided,
                                      MPI_Fint *ierror)
{
    init_thread_f08_fn *real =
        (init_thread_f08_fn *)dlsym(RTLD_NEXT, "mpi_init_thread_f08_");
    if (!real) {
        *ierror = MPI_ERR_OTHER;
        return;
    }
    real(required, provided, ierror);
    note_f08();
}
