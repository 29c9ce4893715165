#include "shim/progress/greq.h"
#include "shim/progress/progress.h"
#include "shim/base/dtype.h"
#include "shim/base/grow.h"
#include <stdlib.h>

static int greq_poll(void *extra, MPI_Status *st)
{
    (void)extra;
    (void)st;
    if (omni.job.on && !omni.prog.in_progress && !omni.prog.threaded)
        prog_poll();
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int greq_class_create(MPI_Grequest_query_function *query_fn,
                      MPI_Grequest_free_function *free_fn,
                      omni_gclass_wait_fn *wait_fn, omni_gclass *cls)
{
    return omni_gclass_create(query_fn, free_fn, greq_cancel, greq_poll,
                             wait_fn, cls);
}

int greq_query_send(void *extra, MPI_Status *st)
{
    (void)extra;
    status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    st->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

void greq_ledger_add(MPI_Request greq, MPI_Comm comm, int error)
{
    omni.prog.ledger = omni_grow(omni.prog.ledger, omni.prog.ledger_n, &omni.prog.ledger_cap,
                            sizeof *omni.prog.ledger, 16, "the error ledger");
    omni.prog.ledger[omni.prog.ledger_n++] = (struct req_error){greq, comm, error};
}

void greq_finalize(void)
{
    free(omni.prog.ledger);
    omni.prog.ledger = NULL;
    omni.prog.ledger_n = omni.prog.ledger_cap = 0;
}
