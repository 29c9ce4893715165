/* fortran: programs whose Fortran bindings bypass Omnibus, and Fortran
 * handles of Omnibus's own requests and messages.
 *
 * A Fortran binding that calls the MPI library's PMPI_ functions directly
 * hides those calls from Omnibus, so Omnibus must not manage any traffic of
 * such a program: never half managed.  That binding's MPI_Init never
 * reaches Omnibus's, which leaves the whole job pass-through on every rank
 * alike; the wrappers below of its initialization routines only say so,
 * once, from rank 0, and forward to the library's own.
 *  - MPICH: the `mpi_f08` bindings call PMPI_ for every call without a
 *    buffer (MPI_Init, MPI_Wait, MPI_Probe, MPI_Test*, ...;
 *    docs/semantics.md, Threads and Fortran); `mpif.h` and `use mpi` call
 *    the C MPI_ functions and are fully covered.
 *  - Open MPI: all three bindings (`mpif.h`, `use mpi`, `use mpi_f08`) call
 *    PMPI_ directly.
 *
 * Fortran handles (Open MPI, where MPI_Request_c2f and friends are
 * functions, not macros over integer handles).  Open MPI's
 * Fortran request and message handles are indices, never negative, so one
 * of Omnibus's handles converts to minus its number (mpi/handle.h) and
 * back: a C program that stores its requests as MPI_Fint keeps working,
 * and Fortran code handed one gets Open MPI's error for an invalid handle,
 * never a wrong request.
 */
#include "shim/base/handles.h"
#include "shim/base/state.h"
#include "omni_have.h"
#include <dlfcn.h>
#include <stdio.h>

typedef void init_fn(MPI_Fint *ierror);
typedef void init_thread_fn(MPI_Fint *required, MPI_Fint *provided,
                            MPI_Fint *ierror);

static void note_bypass(const char *bindings)
{
    int rank = 0, flag = 0;
    PMPI_Initialized(&flag);
    if (flag)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr,
                "omnibus: this program uses %s Fortran bindings, which call "
                "%s's PMPI_ functions directly: the whole job runs "
                "pass-through\n",
                bindings, OMNI_FAMILY_NAME);
}

static void forward_init(const char *name, const char *bindings,
                         MPI_Fint *ierror)
{
    init_fn *real = (init_fn *)dlsym(RTLD_NEXT, name);
    if (!real) {
        *ierror = MPI_ERR_OTHER;
        return;
    }
    real(ierror);
    note_bypass(bindings);
}

static void forward_init_thread(const char *name, const char *bindings,
                                MPI_Fint *required, MPI_Fint *provided,
                                MPI_Fint *ierror)
{
    init_thread_fn *real = (init_thread_fn *)dlsym(RTLD_NEXT, name);
    if (!real) {
        *ierror = MPI_ERR_OTHER;
        return;
    }
    real(required, provided, ierror);
    note_bypass(bindings);
}

/* One wrapper per initialization routine of the bindings that bypass. */
#define BYPASS_INIT(name, bindings)                                            \
    OMNI_EXPORT void name(MPI_Fint *ierror)                                    \
    {                                                                          \
        forward_init(#name, bindings, ierror);                                 \
    }
#define BYPASS_INIT_THREAD(name, bindings)                                     \
    OMNI_EXPORT void name(MPI_Fint *required, MPI_Fint *provided,              \
                          MPI_Fint *ierror)                                    \
    {                                                                          \
        forward_init_thread(#name, bindings, required, provided, ierror);      \
    }

BYPASS_INIT(mpi_init_f08_, "the mpi_f08")
BYPASS_INIT_THREAD(mpi_init_thread_f08_, "the mpi_f08")
#ifdef OMNI_FAMILY_OPENMPI
BYPASS_INIT(mpi_init_, "Open MPI's")
BYPASS_INIT_THREAD(mpi_init_thread_, "Open MPI's")
#endif

/* MPI_<Kind>_c2f and MPI_<Kind>_f2c of one handle kind: Omnibus's own
 * handles to minus their number and back, the rest the library's. */
#define FORTRAN_HANDLES(Kind, type, bits_of, handle_of)                        \
    OMNI_EXPORT MPI_Fint MPI_##Kind##_c2f(type handle)                         \
    {                                                                          \
        uintptr_t bits = bits_of(handle);                                      \
        return handle_is_omni(bits) ? -(MPI_Fint)bits                          \
                                    : PMPI_##Kind##_c2f(handle);               \
    }                                                                          \
    OMNI_EXPORT type MPI_##Kind##_f2c(MPI_Fint handle)                         \
    {                                                                          \
        return handle < 0 ? handle_of((uintptr_t) - (intptr_t)handle)         \
                          : PMPI_##Kind##_f2c(handle);                         \
    }

#if OMNI_HAVE_MPI_Request_c2f
FORTRAN_HANDLES(Request, MPI_Request, omni_request_bits, omni_request_of)
#endif
#if OMNI_HAVE_MPI_Message_c2f
FORTRAN_HANDLES(Message, MPI_Message, omni_message_bits, omni_message_of)
#endif
