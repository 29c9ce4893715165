/* gclass: generalized requests made from a class.
 *
 * Omnibus hands out generalized requests for the operations it runs
 * itself (progress/greq.h).  A class bundles their callbacks once:
 *  - MPICH: its extension MPIX_Grequest_class, whose poll_fn lets MPICH
 *    drive Omnibus's progress when the program tests such a request in a
 *    call Omnibus passes on, and whose wait_fn serves a blocking wait;
 *  - Open MPI has only the standard's MPI_Grequest_start: the class is the
 *    three standard callbacks, kept to start each request with.  poll_fn
 *    and wait_fn are not called; Omnibus's own completion calls drive
 *    progress before any such request reaches Open MPI, and they hand it
 *    only a request that is already complete (engine/request.h).
 */
#ifndef OMNIBUS_MPI_GCLASS_H
#define OMNIBUS_MPI_GCLASS_H

#include "shim/mpi/family.h"

#ifdef OMNI_FAMILY_MPICH
typedef MPIX_Grequest_class omni_gclass;
typedef MPIX_Grequest_poll_function omni_gclass_poll_fn;
typedef MPIX_Grequest_wait_function omni_gclass_wait_fn;
#else
typedef struct {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
} omni_gclass;
typedef int omni_gclass_poll_fn(void *extra_state, MPI_Status *status);
typedef int omni_gclass_wait_fn(int count, void **array_of_states,
                               double timeout, MPI_Status *status);
#endif

/* Makes a class; returns an MPI error code. */
static inline int omni_gclass_create(MPI_Grequest_query_function *query_fn,
                                    MPI_Grequest_free_function *free_fn,
                                    MPI_Grequest_cancel_function *cancel_fn,
                                    omni_gclass_poll_fn *poll_fn,
                                    omni_gclass_wait_fn *wait_fn,
                                    omni_gclass *cls)
{
#ifdef OMNI_FAMILY_MPICH
    return MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn,
                                      wait_fn, cls);
#else
    (void)poll_fn;
    (void)wait_fn;
    *cls = (omni_gclass){query_fn, free_fn, cancel_fn};
    return MPI_SUCCESS;
#endif
}

/* A new active request of class cls whose callbacks get `extra`; returns
 * an MPI error code. */
static inline int omni_gclass_start(omni_gclass cls, void *extra,
                                   MPI_Request *req)
{
#ifdef OMNI_FAMILY_MPICH
    return MPIX_Grequest_class_allocate(cls, extra, req);
#else
    return PMPI_Grequest_start(cls.query_fn, cls.free_fn, cls.cancel_fn,
                               extra, req);
#endif
}

#endif
