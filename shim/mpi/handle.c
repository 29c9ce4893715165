#include "shim/mpi/handle.h"

#ifndef OMNI_FAMILY_MPICH
#include <sys/mman.h>

/* Page-aligned so that all of it can be made inaccessible; never read or
 * written, only its addresses are used (handle.h). */
_Alignas(4096) char omni_handle_space[OMNI_HANDLE_SPAN];

int omni_handles_reserve(void)
{
    return mprotect(omni_handle_space, OMNI_HANDLE_SPAN, PROT_NONE);
}
#else
/* MPICH needs nothing here (handle.h); ISO C wants a declaration. */
typedef int omni_handle_nothing;
#endif
