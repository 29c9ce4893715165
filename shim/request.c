#include "shim/request.h"
#include "shim/progress.h"
#include "shim/recv.h"
#include "shim/dtype.h"
#include "shim/impl.h"
#include "shim/persist.h"
#include <stdint.h>
#include <stdlib.h>

/* --- generalized-request callbacks ----------------------------------- */

static int recv_query(void *extra, MPI_Status *st)
{
    match_recv *r = extra;
    status_fill(st, r->st_source, r->st_tag, r->st_bytes, r->cancelled);
    st->MPI_ERROR = MPI_SUCCESS;
    if (r->error != MPI_SUCCESS && omni.ledger_n < (int)(sizeof omni.ledger / sizeof omni.ledger[0]))
        omni.ledger[omni.ledger_n++] =
            (struct req_error){r->greq, r->user_comm, r->error};
    return MPI_SUCCESS;
}

/* MPICH calls free_fn when the request is freed, which MPI_Request_free may
 * do before the receive has completed: the record then lives on, flagged,
 * until recv_finish completes it. */
static int recv_free(void *extra)
{
    match_recv *r = extra;
    if (r->state != RECV_DONE) {
        r->freed_by_mpi = 1;
        return MPI_SUCCESS;
    }
    if (r->error != MPI_SUCCESS)
        omni.err_pending--;
    match_recv_free(r);
    return MPI_SUCCESS;
}

static int recv_cancel(void *extra, int complete)
{
    match_recv *r = extra;
    if (complete || r->state != RECV_POSTED)
        return MPI_SUCCESS;
    if (match_unpost(r->comm, r) == 0) {
        /* Completed by the next progress round, not here: inside MPICH's
         * cancel, MPI_Grequest_complete would take MPICH's lock again under
         * MPI_THREAD_MULTIPLE.  The Wait or Test that follows runs it. */
        r->cancelled = 1;
        r->st_bytes = 0;
        r->error = MPI_SUCCESS;
        r->next = omni.cancelled;
        omni.cancelled = r;
    }
    return MPI_SUCCESS;
}

/* MPICH calls poll_fn on every test of an incomplete request; inside
 * Omnibus's own loops progress is already running. */
static int greq_poll(void *extra, MPI_Status *st)
{
    (void)extra;
    (void)st;
    if (omni.on && !omni.in_progress && !omni.threaded)
        prog_poll();
    return MPI_SUCCESS;
}

static int recv_wait_fn(int n, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < n; i++) {
        match_recv *r = states[i];
        unsigned spins = 0;
        while (r->state != RECV_DONE) {
            prog_poll();
            prog_pause(&spins);
        }
    }
    return MPI_SUCCESS;
}

static int sync_query(void *extra, MPI_Status *st)
{
    (void)extra;
    status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    st->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

static int sync_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int sync_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* its item is already on its way: not cancellable */
}

static int sync_wait_fn(int n, void **states, double timeout, MPI_Status *st)
{
    (void)n, (void)states, (void)timeout, (void)st;
    prog_poll();
    return MPI_SUCCESS;
}

int request_init(void)
{
    if (MPIX_Grequest_class_create(recv_query, recv_free, recv_cancel,
                                   greq_poll, recv_wait_fn,
                                   &omni.recv_class) != MPI_SUCCESS)
        return -1;
    if (MPIX_Grequest_class_create(sync_query, sync_free, sync_cancel,
                                   greq_poll, sync_wait_fn,
                                   &omni.sync_class) != MPI_SUCCESS)
        return -1;
    return 0;
}

void request_start_recv(match_recv *r)
{
    r->user_comm = r->comm->handle;
    MPIX_Grequest_class_allocate(omni.recv_class, r, &r->greq);
}

void request_complete_recv(match_recv *r)
{
    if (r->error != MPI_SUCCESS)
        omni.err_pending++;
    int orphan = r->freed_by_mpi;
    PMPI_Grequest_complete(r->greq);
    if (orphan) {
        if (r->error != MPI_SUCCESS)
            omni.err_pending--;
        match_recv_free(r);
    }
}

void request_complete_cancelled(void)
{
    while (omni.cancelled) {
        match_recv *r = omni.cancelled;
        omni.cancelled = r->next;
        recv_release_dtype(r);
        r->state = RECV_DONE;
        PMPI_Grequest_complete(r->greq);
    }
}

MPI_Request request_start_sync(uint32_t id)
{
    MPI_Request req;
    MPIX_Grequest_class_allocate(omni.sync_class, (void *)(uintptr_t)id, &req);
    return req;
}

int request_complete_send(MPI_Comm comm, MPI_Request *req)
{
    return PMPI_Isend(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, req);
}

/* --- raising the errors query_fn left in the ledger -------------------- */

/* The handles of a request array, copied before MPICH replaces completed
 * ones by MPI_REQUEST_NULL; only taken when an Omnibus receive has completed
 * with an error, so the common path copies nothing. */
typedef struct {
    MPI_Request small[64];
    MPI_Request *handles;
    int n;
} req_snapshot;

static void snapshot_take(req_snapshot *s, int n, const MPI_Request *reqs)
{
    s->n = 0;
    s->handles = NULL;
    if (omni.err_pending == 0 || n <= 0)
        return;
    s->handles = n <= 64 ? s->small : malloc(sizeof *s->handles * (size_t)n);
    if (!s->handles)
        return;
    memcpy(s->handles, reqs, sizeof *reqs * (size_t)n);
    s->n = n;
}

static void snapshot_drop(req_snapshot *s)
{
    if (s->handles && s->handles != s->small)
        free(s->handles);
    s->handles = NULL;
}

static int snapshot_index(const req_snapshot *s, MPI_Request greq)
{
    for (int i = 0; i < s->n; i++)
        if (s->handles[i] == greq)
            return i;
    return -1;
}

/* Single-completion calls: the error is returned (statuses' MPI_ERROR is
 * not set by MPI_Wait/MPI_Test). */
static int ledger_raise_single(int rc)
{
    if (omni.ledger_n == 0)
        return rc;
    struct req_error e = omni.ledger[0];
    omni.ledger_n = 0;
    return recv_raise(e.comm, e.error);
}

/* Multiple-completion calls: MPI_ERR_IN_STATUS, with each completed
 * status's MPI_ERROR set (MPI-4.1 §3.7.5). */
static int ledger_raise_multi(int rc, const req_snapshot *s, int n,
                              MPI_Status statuses[], const int *which,
                              int nwhich)
{
    if (omni.ledger_n == 0)
        return rc;
    MPI_Comm comm = omni.ledger[0].comm;
    if (statuses != MPI_STATUSES_IGNORE) {
        if (rc != MPI_ERR_IN_STATUS) {
            for (int k = 0; k < (which ? nwhich : n); k++)
                statuses[k].MPI_ERROR = MPI_SUCCESS;
        }
        for (int e = 0; e < omni.ledger_n; e++) {
            int i = snapshot_index(s, omni.ledger[e].greq);
            if (i < 0)
                continue;
            if (which) {
                for (int k = 0; k < nwhich; k++)
                    if (which[k] == i)
                        statuses[k].MPI_ERROR = omni.ledger[e].error;
            } else {
                statuses[i].MPI_ERROR = omni.ledger[e].error;
            }
        }
    }
    omni.ledger_n = 0;
    return recv_raise(comm, MPI_ERR_IN_STATUS);
}

/* --- completion entry points ----------------------------------------- */



/* The Wait/Test family (request.h): the generated wrappers hand these a view
 * of the caller's requests in which Omnibus's own handles are replaced by
 * the MPICH requests they stand for (persist.h), so they see only handles
 * MPICH knows. */

int request_wait(MPI_Request *request, MPI_Status *status)
{
    return ledger_raise_single(prog_wait(request, status));
}

/* Counts the polls of a Test* that found nothing (progress.h). */
static int polled(int found, int rc)
{
    if (found)
        prog_found();
    else
        prog_empty_poll();
    return rc;
}

int request_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    prog_poll();
    int rc = ledger_raise_single(prog_test(request, flag, status));
    return polled(*flag, rc);
}

/* Waits, driving progress, until requests[i] is complete, without
 * completing it: MPI_Request_get_status neither frees the request nor calls
 * a generalized request's poll_fn, so a long array is watched one request
 * at a time instead of being tested whole on every round. */
static void request_await_one(MPI_Request req, unsigned *spins)
{
    for (;;) {
        int flag = 0;
        int rc = prog_get_status(req, &flag, MPI_STATUS_IGNORE);
        omni.ledger_n = 0; /* query_fn's entry: raised by the Testall after */
        if (flag || rc != MPI_SUCCESS)
            return;
        if (*spins == 0)
            prog_block_enter();
        prog_poll();
        prog_pause(spins);
    }
}

/* Each request is awaited in turn, then one Testall completes them all and
 * reports errors exactly as MPICH's Waitall would: the rounds cost O(1)
 * each instead of O(count). */
int request_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    unsigned spins = 0;
    for (int i = 0; i < count; i++)
        request_await_one(requests[i], &spins);
    for (;;) {
        req_snapshot s;
        int flag = 0;
        snapshot_take(&s, count, requests);
        int rc = prog_testall(count, requests, &flag, statuses);
        if (flag || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) {
            rc = ledger_raise_multi(rc, &s, count, statuses, NULL, 0);
            snapshot_drop(&s);
            return rc;
        }
        snapshot_drop(&s);
        if (spins == 0)
            prog_block_enter();
        prog_poll();
        prog_pause(&spins);
    }
}

int request_testall(int count, MPI_Request requests[], int *flag,
                      MPI_Status statuses[])
{
    req_snapshot s;
    prog_poll();
    snapshot_take(&s, count, requests);
    int rc = prog_testall(count, requests, flag, statuses);
    if (*flag)
        rc = ledger_raise_multi(rc, &s, count, statuses, NULL, 0);
    snapshot_drop(&s);
    return polled(*flag, rc);
}

int request_waitany(int count, MPI_Request requests[], int *index,
                      MPI_Status *status)
{
    unsigned spins = 0;
    for (;;) {
        int flag = 0;
        int rc = prog_testany(count, requests, index, &flag, status);
        if (flag || rc != MPI_SUCCESS)
            return ledger_raise_single(rc);
        if (spins == 0)
            prog_block_enter();
        prog_poll();
        prog_pause(&spins);
    }
}

int request_testany(int count, MPI_Request requests[], int *index, int *flag,
                      MPI_Status *status)
{
    prog_poll();
    int rc = ledger_raise_single(
        prog_testany(count, requests, index, flag, status));
    return polled(*flag, rc);
}

int request_testsome(int incount, MPI_Request requests[], int *outcount,
                       int indices[], MPI_Status statuses[])
{
    req_snapshot s;
    prog_poll();
    snapshot_take(&s, incount, requests);
    int rc = prog_testsome(incount, requests, outcount, indices, statuses);
    if (*outcount > 0 && *outcount != MPI_UNDEFINED)
        rc = ledger_raise_multi(rc, &s, incount, statuses, indices, *outcount);
    snapshot_drop(&s);
    return polled(*outcount != 0, rc);
}

int request_waitsome(int incount, MPI_Request requests[], int *outcount,
                       int indices[], MPI_Status statuses[])
{
    unsigned spins = 0;
    for (;;) {
        req_snapshot s;
        snapshot_take(&s, incount, requests);
        int rc = prog_testsome(incount, requests, outcount, indices, statuses);
        if (*outcount != 0 || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) {
            if (*outcount > 0 && *outcount != MPI_UNDEFINED)
                rc = ledger_raise_multi(rc, &s, incount, statuses, indices,
                                        *outcount);
            snapshot_drop(&s);
            return rc;
        }
        snapshot_drop(&s);
        if (spins == 0)
            prog_block_enter();
        prog_poll();
        prog_pause(&spins);
    }
}

/* MPICH's Request_get_status calls neither poll_fn nor wait_fn, so without
 * this a loop on it would never see an Omnibus receive complete.  It does
 * call query_fn, whose ledger entry is dropped: the error is raised when the
 * request is completed by a Wait or Test. */
int impl_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    persist_view v;
    MPI_Request *r = persist_view_begin(&v, 1, &request);
    prog_poll();
    int rc = prog_get_status(*r, flag, status);
    omni.ledger_n = 0;
    polled(*flag, rc);
    if (v.copied && v.reqs != v.small)
        free(v.reqs);
    return rc;
}
