#include "shim/engine/request.h"
#include "shim/match/comm.h"
#include "shim/progress/progress.h"
#include "shim/progress/greq.h"
#include "shim/base/dtype.h"
#include "shim/base/fail.h"
#include <stdint.h>
#include <stdlib.h>

/* --- receive handles ---------------------------------------------------- */

/* What HANDLE_SENT stands for: a receive record that is done, with the
 * status MPI gives a completed send.  Never written: the paths that change
 * a record (cancel, drop, free) see it is done, or that it is this one. */
static const match_recv sent_record = {
    .state = RECV_DONE, .error = MPI_SUCCESS, .st_source = MPI_PROC_NULL,
    .st_tag = MPI_ANY_TAG, .user_comm = MPI_COMM_NULL};

/* Inline, as are the completion helpers below: every completion call runs
 * them once per receive. */
static inline __attribute__((always_inline)) match_recv *recv_of(MPI_Request h)
{
    uintptr_t bits = omni_request_bits(h);
    if (!handle_is_recv(bits))
        return NULL;
    if (bits == HANDLE_SENT)
        return (match_recv *)&sent_record;
    return handle_get(&omni.eng.recv_reqs, bits & ~(uintptr_t)HANDLE_RECV_BIT);
}

static int recv_is_done(const match_recv *r)
{
    return r->state == RECV_DONE;
}

static inline __attribute__((always_inline)) void
recv_handle_drop(match_recv *r)
{
    if (r == &sent_record)
        return;
    handle_release_slot(&omni.eng.recv_reqs, r,
                        (int)(omni_request_bits(r->req) & ~(uintptr_t)HANDLE_RECV_BIT));
}

void request_abandon_recv(match_recv *r)
{
    recv_handle_drop(r);
}

void request_complete_recv(match_recv *r)
{
    if (r->freed_by_mpi)
        recv_handle_drop(r);
}

/* Hands a done receive's status to the caller and frees its handle
 * (*req becomes MPI_REQUEST_NULL); returns the receive's error, not yet
 * raised.  MPI_ERROR is left as it was: MPI sets it only for the calls
 * that complete several requests, and only with MPI_ERR_IN_STATUS. */
static inline __attribute__((always_inline)) int
recv_complete(MPI_Request *req, match_recv *r, MPI_Status *st, MPI_Comm *comm)
{
    status_fill(st, r->st_source, r->st_tag, r->st_bytes, r->cancelled);
    int err = r->error;
    *comm = r->user_comm;
    recv_handle_drop(r);
    *req = MPI_REQUEST_NULL;
    return err;
}

/* A single-completion call's result for a done receive. */
static inline __attribute__((always_inline)) int
recv_complete_single(MPI_Request *req, match_recv *r, MPI_Status *st)
{
    MPI_Comm comm;
    int err = recv_complete(req, r, st, &comm);
    return err == MPI_SUCCESS ? MPI_SUCCESS : omni_raise(comm, err);
}

/* A wait found receive r done at its first look, before anything shipped:
 * answers its sender (transport_answer).  The sender's world rank comes
 * from the communicator, looked up by handle: a receive that no message
 * completed (cancelled, HANDLE_SENT's record) answers nobody, nor does one
 * whose communicator the program has freed since (a handle the MPI underneath
 * has reused names another communicator, and then shipping some other buffer
 * early costs only aggregation).  Nothing is stored per message for it,
 * and a rank with nothing buffered pays one test. */
static void recv_answer(const match_recv *r)
{
    if (!transport_any_filling() || r->cancelled)
        return;
    comm_rec *c = comm_lookup(r->user_comm);
    if (c && (unsigned)r->st_source < (unsigned)c->size)
        transport_answer((uint32_t)comm_to_world(c, r->st_source));
}

/* Blocks, driving progress, until r is done. */
static void recv_await(match_recv *r, unsigned *spins)
{
    if (*spins == 0 && recv_is_done(r)) {
        recv_answer(r);
        return;
    }
    while (!recv_is_done(r))
        prog_wait_step(spins);
}

/* A receive that no message has matched yet is cancelled at once; one that
 * has is not (MPI-4.1 §3.8.4: cancel succeeds or the operation completes
 * normally).  Either way the request completes as usual. */
static void recv_cancel(match_recv *r)
{
    if (r->state != RECV_POSTED || match_unpost(r->comm, r) != 0)
        return;
    match_release_dtype(r);
    r->cancelled = 1;
    r->st_bytes = 0;
    r->error = MPI_SUCCESS;
    r->state = RECV_DONE;
}

int request_free(MPI_Request *request)
{
    match_recv *r = recv_of(*request);
    if (!r)
        return PMPI_Request_free(request);
    if (recv_is_done(r))
        recv_handle_drop(r);
    else
        r->freed_by_mpi = 1;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int request_cancel(MPI_Request *request)
{
    match_recv *r = recv_of(*request);
    if (!r)
        return PMPI_Cancel(request);
    recv_cancel(r);
    return MPI_SUCCESS;
}

/* --- the generalized request of a synchronous send -------------------- */

static int sync_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int sync_wait_fn(int n, void **states, double timeout, MPI_Status *st)
{
    (void)n, (void)states, (void)timeout, (void)st;
    prog_poll();
    return MPI_SUCCESS;
}

int request_init(void)
{
    handle_pool_init(&omni.eng.recv_reqs, sizeof(match_recv));
    if (greq_class_create(greq_query_send, sync_free, sync_wait_fn,
                          &omni.eng.sync_class) != MPI_SUCCESS)
        return -1;
    return 0;
}

void request_finalize(void)
{
    handle_pool_destroy(&omni.eng.recv_reqs);
}

MPI_Request request_start_sync(uint32_t id)
{
    MPI_Request req;
    omni_gclass_start(omni.eng.sync_class, (void *)(uintptr_t)id, &req);
    return req;
}

int request_complete_send(MPI_Comm comm, MPI_Request *req)
{
    return PMPI_Isend(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, req);
}

/* --- raising the errors query_fn left in the ledger -------------------- */

/* The handles of a request array, copied before the MPI underneath replaces
 * completed ones by MPI_REQUEST_NULL; only taken when an Omnibus receive has
 * completed with an error, so the common path copies nothing. */
typedef struct {
    MPI_Request small[64];
    MPI_Request *handles;
    int n;
} req_snapshot;

static void snapshot_take(req_snapshot *s, int n, const MPI_Request *reqs)
{
    s->n = 0;
    s->handles = NULL;
    if (omni.ops.err_pending == 0 || n <= 0)
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
    if (omni.prog.ledger_n == 0)
        return rc;
    struct req_error e = omni.prog.ledger[0];
    greq_ledger_clear();
    return omni_raise(e.comm, e.error);
}

/* Multiple-completion calls: MPI_ERR_IN_STATUS, with each completed
 * status's MPI_ERROR set (MPI-4.1 §3.7.5). */
static int ledger_raise_multi(int rc, const req_snapshot *s, int n,
                              MPI_Status statuses[], const int *which,
                              int nwhich)
{
    if (omni.prog.ledger_n == 0)
        return rc;
    MPI_Comm comm = omni.prog.ledger[0].comm;
    if (statuses != MPI_STATUSES_IGNORE) {
        if (rc != MPI_ERR_IN_STATUS) {
            for (int k = 0; k < (which ? nwhich : n); k++)
                statuses[k].MPI_ERROR = MPI_SUCCESS;
        }
        for (int e = 0; e < omni.prog.ledger_n; e++) {
            int i = snapshot_index(s, omni.prog.ledger[e].greq);
            if (i < 0)
                continue;
            if (which) {
                for (int k = 0; k < nwhich; k++)
                    if (which[k] == i)
                        statuses[k].MPI_ERROR = omni.prog.ledger[e].error;
            } else {
                statuses[i].MPI_ERROR = omni.prog.ledger[e].error;
            }
        }
    }
    greq_ledger_clear();
    return omni_raise(comm, MPI_ERR_IN_STATUS);
}

/* --- completion of arrays of requests of the MPI underneath
 * ------------------------------ */

/* Counts the polls of a Test* that found nothing (progress.h). */
static int polled(int found, int rc)
{
    if (found)
        prog_found();
    else
        prog_empty_poll();
    return rc;
}

/* Rounds MPI_Request_get_status may find a request of an MPI_Waitall
 * incomplete before under_await_one tests it instead: about as long as a
 * wait spins before it yields (PROG_SPINS_BEFORE_YIELD), so a request
 * that completes within microseconds, as nearly all do, is left to the
 * closing PMPI_Waitall. */
#define AWAIT_ROUNDS_BEFORE_TEST 64u

/* A request of an MPI_Waitall that under_await_one completed by MPI_Test:
 * its position, the status the MPI underneath gave and its error (with the
 * communicator to raise it on). */
typedef struct {
    int i;
    int err;
    MPI_Comm comm;
    MPI_Status st;
} early_done;

typedef struct {
    early_done small[4];
    early_done *v;
    int n, cap;
} early_list;

static early_done *early_add(early_list *e)
{
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 16;
        early_done *grown = malloc(sizeof *grown * (size_t)cap);
        if (!grown)
            omni_out_of_memory("a request array's early completions");
        memcpy(grown, e->v, sizeof *grown * (size_t)e->n);
        if (e->v != e->small)
            free(e->v);
        e->v = grown;
        e->cap = cap;
    }
    return &e->v[e->n++];
}

/* PMPI_Test of *req with MPI_COMM_WORLD's error handler held back, which
 * the MPI underneath would call for a failed request: the failure is the
 * MPI_Waitall's to raise, as MPI_ERR_IN_STATUS.  Fills d (its error the
 * underlying MPI's, or that of the ledger entry query_fn left); returns
 * whether *req completed. */
static int early_test(MPI_Request *req, early_done *d)
{
    MPI_Errhandler held;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &held);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int flag = 0;
    d->err = prog_test(req, &flag, &d->st);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, held);
    PMPI_Errhandler_free(&held);
    d->comm = MPI_COMM_WORLD;
    if (omni.prog.ledger_n) {
        d->err = omni.prog.ledger[0].error;
        d->comm = omni.prog.ledger[0].comm;
        greq_ledger_clear();
    }
    return flag || d->err != MPI_SUCCESS;
}

/* Waits, driving progress, until *req is complete.  Returns 0 with the
 * request left for the closing PMPI_Waitall to complete, or 1 with it
 * completed here, its result in *d: MPI_Request_get_status neither frees
 * the request nor calls a generalized request's poll_fn, so a long array
 * is watched one request at a time instead of being tested whole on every
 * round, but a request it has not seen complete for
 * AWAIT_ROUNDS_BEFORE_TEST rounds is tested (PMPI_Test), which runs the
 * poll_fn that alone completes some (ROMIO's nonblocking file accesses). */
static int under_await_one(MPI_Request *req, early_done *d, unsigned *spins)
{
    for (unsigned rounds = 0;; rounds++) {
        if (rounds >= AWAIT_ROUNDS_BEFORE_TEST) {
            if (early_test(req, d))
                return 1;
        } else {
            int flag = 0;
            int rc = prog_get_status(*req, &flag, MPI_STATUS_IGNORE);
            greq_ledger_clear(); /* query_fn's entry: raised by the Waitall */
            if (flag || rc != MPI_SUCCESS)
                return 0;
        }
        prog_wait_step(spins);
    }
}

/* Gives the requests of e, which under_await_one completed itself, their
 * statuses back over the empty ones the closing PMPI_Waitall wrote for
 * them, with MPI_ERROR their own result: MPI_SUCCESS, as the underlying MPI's
 * MPI_Waitall writes it for every request it completes, or the error
 * their test met. */
static void early_restore(const early_list *e, MPI_Status sts[])
{
    if (sts == MPI_STATUSES_IGNORE)
        return;
    for (int k = 0; k < e->n; k++) {
        sts[e->v[k].i] = e->v[k].st;
        sts[e->v[k].i].MPI_ERROR = e->v[k].err;
    }
}

/* MPI_Waitall of requests of the MPI underneath, answered as the underlying
 * MPI's own MPI_Waitall answers it once every request is complete (statuses,
 * errors, the handles left behind).  Each request is awaited in turn
 * (under_await_one), then one PMPI_Waitall, which finds them all
 * complete, completes them and reports errors: the rounds cost O(1) each
 * instead of O(count).  (A PMPI_Testall there would not answer as the
 * Waitall does: quirk Q2, mpi/quirks.h.)  A request whose status the MPI
 * underneath could not give (an error) is left to the Waitall, which
 * reports it as it would have.  A request
 * under_await_one completed itself reads MPI_REQUEST_NULL, or inactive if
 * persistent, to the Waitall, and gets back the status its test gave; if that
 * test failed, the call returns MPI_ERR_IN_STATUS with every status's
 * MPI_ERROR set, as the underlying MPI's Waitall does when one of its
 * completed requests failed. */
static int under_waitall(int count, MPI_Request requests[],
                         MPI_Status statuses[], unsigned *spins)
{
    early_list e;
    e.v = e.small;
    e.n = 0;
    e.cap = 4;
    int failed = -1; /* the first early completion that failed, in e */
    for (int i = 0; i < count; i++) {
        early_done got;
        if (requests[i] == MPI_REQUEST_NULL ||
            !under_await_one(&requests[i], &got, spins))
            continue;
        early_done *d = early_add(&e);
        *d = got;
        d->i = i;
        if (d->err != MPI_SUCCESS && failed < 0)
            failed = e.n - 1;
    }
    req_snapshot s;
    snapshot_take(&s, count, requests);
    int rc = prog_waitall_done(count, requests, statuses);
    if (failed >= 0 && rc == MPI_SUCCESS && statuses != MPI_STATUSES_IGNORE)
        for (int k = 0; k < count; k++)
            statuses[k].MPI_ERROR = MPI_SUCCESS;
    rc = ledger_raise_multi(rc, &s, count, statuses, NULL, 0);
    snapshot_drop(&s);
    if (e.n) {
        early_restore(&e, statuses);
        if (failed >= 0 && rc != MPI_ERR_IN_STATUS)
            rc = omni_raise(e.v[failed].comm, MPI_ERR_IN_STATUS);
        if (e.v != e.small)
            free(e.v);
    }
    return rc;
}

static int under_testall(int count, MPI_Request requests[], int *flag,
                         MPI_Status statuses[])
{
    req_snapshot s;
    snapshot_take(&s, count, requests);
    int rc = prog_testall(count, requests, flag, statuses);
    if (*flag)
        rc = ledger_raise_multi(rc, &s, count, statuses, NULL, 0);
    snapshot_drop(&s);
    return rc;
}

static int under_testsome(int incount, MPI_Request requests[], int *outcount,
                          int indices[], MPI_Status statuses[])
{
    req_snapshot s;
    snapshot_take(&s, incount, requests);
    int rc = prog_testsome(incount, requests, outcount, indices, statuses);
    if (*outcount > 0 && *outcount != MPI_UNDEFINED)
        rc = ledger_raise_multi(rc, &s, incount, statuses, indices, *outcount);
    snapshot_drop(&s);
    return rc;
}

/* --- arrays that hold receive handles ----------------------------------- */

/* A request array split in two: its receive handles, which Omnibus
 * completes, and a copy in which they read MPI_REQUEST_NULL, for the MPI
 * underneath.  Positions do not move, so the underlying MPI's indices and
 * statuses need no translation; an inactive entry is one the MPI underneath
 * skips, as MPI wants.  A wait loop makes the copy once: only the MPI
 * underneath changes it, and only by completing an entry, which ends the
 * loop. */
typedef struct {
    MPI_Request small[32];
    MPI_Request *reqs;   /* for the MPI underneath, NULL until split_under */
    int others;          /* the array's active requests of the MPI
                            underneath */
} req_split;

/* Counts the array's requests of the MPI underneath into sp; returns how many
 * receive handles it holds. */
static int split_count(req_split *sp, int n, const MPI_Request *reqs)
{
    int recvs = 0;
    sp->others = 0;
    sp->reqs = NULL;
    for (int i = 0; i < n; i++) {
        if (handle_is_recv(omni_request_bits(reqs[i])))
            recvs++;
        else if (reqs[i] != MPI_REQUEST_NULL)
            sp->others++;
    }
    return recvs;
}

/* The copy the MPI underneath gets (only made when the array has requests of
 * the MPI underneath). */
static MPI_Request *split_under(req_split *sp, int n, const MPI_Request *reqs)
{
    sp->reqs = n <= 32 ? sp->small : malloc(sizeof *sp->reqs * (size_t)n);
    if (!sp->reqs)
        omni_out_of_memory("a request array");
    for (int i = 0; i < n; i++)
        sp->reqs[i] = handle_is_recv(omni_request_bits(reqs[i])) ? MPI_REQUEST_NULL : reqs[i];
    return sp->reqs;
}

/* split_count, and the underlying MPI's copy at once when the array holds both
 * kinds: for the loops that look at the underlying MPI's share on every turn
 * (Testany, Waitany, Testsome, Waitsome).  Returns how many receive
 * handles. */
static int split_begin(req_split *sp, int n, const MPI_Request *reqs)
{
    int recvs = split_count(sp, n, reqs);
    if (recvs && sp->others)
        split_under(sp, n, reqs);
    return recvs;
}

/* Copies the underlying MPI's changes back into the caller's array. */
static void split_end(req_split *sp, int n, MPI_Request *reqs)
{
    if (!sp->reqs)
        return;
    for (int i = 0; i < n; i++)
        if (!handle_is_recv(omni_request_bits(reqs[i])))
            reqs[i] = sp->reqs[i];
    if (sp->reqs != sp->small)
        free(sp->reqs);
    sp->reqs = NULL;
}

static MPI_Status *status_at(MPI_Status *sts, int k)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k];
}

/* An inactive request's status in the calls that complete all (MPI-4.1
 * §3.7.3): the MPI underneath writes it for the entries it sees; for an array
 * it never sees, Omnibus does. */
static void status_empty(MPI_Status *st)
{
    status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
}

/* Completes the done receive handles of a multiple-completion call.  With
 * `which` NULL, the call reports every position 0..nreported-1 (Waitall,
 * Testall) and every receive handle among them is done; otherwise it
 * reports positions which[0..nreported), of which the first nrecv are the
 * receives.  Status k of the call goes to statuses[k] (with which) or
 * statuses[position].  rc is what the underlying MPI's share returned.  A
 * receive error makes the result MPI_ERR_IN_STATUS with every reported
 * status's MPI_ERROR set, raised once through the communicator of the first
 * receive that failed (MPI-4.1 §3.7.5). */
static int recv_complete_multi(int rc, MPI_Request reqs[], MPI_Status sts[],
                               const int *which, int nrecv, int nreported)
{
    int failed = 0;
    MPI_Comm failed_comm = MPI_COMM_NULL;
    int n = which ? nrecv : nreported;
    for (int k = 0; k < n && !failed; k++) {
        match_recv *r = recv_of(reqs[which ? which[k] : k]);
        failed = r && r->error != MPI_SUCCESS;
    }
    if (failed && rc != MPI_ERR_IN_STATUS && sts != MPI_STATUSES_IGNORE)
        for (int k = 0; k < nreported; k++)
            sts[k].MPI_ERROR = MPI_SUCCESS;
    int in_status = failed || rc == MPI_ERR_IN_STATUS;
    for (int k = 0; k < n; k++) {
        int i = which ? which[k] : k;
        match_recv *r = recv_of(reqs[i]);
        if (!r)
            continue;
        MPI_Comm comm;
        MPI_Status *st = status_at(sts, which ? k : i);
        int err = recv_complete(&reqs[i], r, st, &comm);
        if (err != MPI_SUCCESS && failed_comm == MPI_COMM_NULL)
            failed_comm = comm;
        if (in_status && st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
    }
    if (!failed || rc == MPI_ERR_IN_STATUS)
        return rc; /* an error of the MPI underneath was raised already */
    return omni_raise(failed_comm, MPI_ERR_IN_STATUS);
}

/* --- completion entry points ------------------------------------------ */

/* The Wait/Test family (request.h): the generated wrappers hand these a view
 * of the caller's requests in which persistent handles are replaced by the
 * requests they stand for (engine/preq.h).  Receive handles are completed
 * here; everything else goes to the MPI underneath. */

int request_wait(MPI_Request *request, MPI_Status *status)
{
    match_recv *r = recv_of(*request);
    if (!r)
        return ledger_raise_single(prog_wait(request, status));
    unsigned spins = 0;
    recv_await(r, &spins);
    return recv_complete_single(request, r, status);
}

/* A receive already complete returns without a progress round, as the
 * underlying MPI's MPI_Test makes progress only for a request not yet
 * complete: a program draining many arrived messages pays one round per drain,
 * not one per message.  Any Test that finds nothing done still makes progress,
 * so a program that tests until it finds a message is never stalled. */
int request_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    /* A copied send (HANDLE_SENT), what a runtime that tests each of its
     * outstanding sends in every pass mostly finds: done, with a send's
     * empty status, and nothing to raise or free. */
    if (omni_request_bits(*request) == HANDLE_SENT) {
        status_fill(status, sent_record.st_source, sent_record.st_tag, 0, 0);
        *request = MPI_REQUEST_NULL;
        *flag = 1;
        prog_found();
        return MPI_SUCCESS;
    }
    match_recv *r = recv_of(*request);
    if (!r || !recv_is_done(r))
        prog_poll();
    if (!r) {
        int rc = ledger_raise_single(prog_test(request, flag, status));
        return polled(*flag, rc);
    }
    *flag = recv_is_done(r);
    if (!*flag)
        return polled(0, MPI_SUCCESS);
    return polled(1, recv_complete_single(request, r, status));
}

int request_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    unsigned spins = 0;
    req_split sp;
    if (!split_count(&sp, count, requests))
        return under_waitall(count, requests, statuses, &spins);
    for (int i = 0; i < count; i++) {
        match_recv *r = recv_of(requests[i]);
        if (r)
            recv_await(r, &spins);
    }
    int rc = MPI_SUCCESS;
    if (sp.others) {
        rc = under_waitall(count, split_under(&sp, count, requests), statuses,
                           &spins);
        split_end(&sp, count, requests);
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
            return rc;
    } else if (statuses != MPI_STATUSES_IGNORE) {
        for (int i = 0; i < count; i++)
            if (!handle_is_recv(omni_request_bits(requests[i])))
                status_empty(&statuses[i]);
    }
    return recv_complete_multi(rc, requests, statuses, NULL, 0, count);
}

int request_testall(int count, MPI_Request requests[], int *flag,
                    MPI_Status statuses[])
{
    prog_poll();
    req_split sp;
    if (!split_count(&sp, count, requests)) {
        int rc = under_testall(count, requests, flag, statuses);
        return polled(*flag, rc);
    }
    for (int i = 0; i < count; i++) {
        match_recv *r = recv_of(requests[i]);
        if (r && !recv_is_done(r)) {
            *flag = 0;
            return polled(0, MPI_SUCCESS);
        }
    }
    int rc = MPI_SUCCESS;
    *flag = 1;
    if (sp.others) {
        rc = under_testall(count, split_under(&sp, count, requests), flag,
                           statuses);
        split_end(&sp, count, requests);
        if (!*flag || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS))
            return polled(*flag, rc);
    } else if (statuses != MPI_STATUSES_IGNORE) {
        for (int i = 0; i < count; i++)
            if (!handle_is_recv(omni_request_bits(requests[i])))
                status_empty(&statuses[i]);
    }
    return polled(1, recv_complete_multi(rc, requests, statuses, NULL, 0,
                                         count));
}

/* The first done receive handle in the array, or -1. */
static int first_done_recv(int count, const MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        match_recv *r = recv_of(requests[i]);
        if (r && recv_is_done(r))
            return i;
    }
    return -1;
}

/* One look at an array that holds receive handles, for Testany and
 * Waitany: a done receive first, else the underlying MPI's share (sp->reqs,
 * made by the caller when sp->others).  With `answer`, a wait's first look,
 * the done receive answers its sender (transport_answer). */
static int any_step(int count, MPI_Request requests[], req_split *sp,
                    int answer, int *index, int *flag, MPI_Status *status)
{
    int i = first_done_recv(count, requests);
    if (i >= 0) {
        match_recv *r = recv_of(requests[i]);
        if (answer)
            recv_answer(r);
        *index = i;
        *flag = 1;
        return recv_complete_single(&requests[i], r, status);
    }
    *flag = 0;
    *index = MPI_UNDEFINED;
    if (!sp->others)
        return MPI_SUCCESS;
    int rc = prog_testany(count, sp->reqs, index, flag, status);
    if (*flag && *index != MPI_UNDEFINED)
        requests[*index] = sp->reqs[*index];
    if (*flag && *index == MPI_UNDEFINED) {
        *flag = 0; /* the underlying MPI's share is spent; receives remain */
        sp->others = 0;
    }
    return ledger_raise_single(rc);
}

int request_waitany(int count, MPI_Request requests[], int *index,
                    MPI_Status *status)
{
    unsigned spins = 0;
    req_split sp;
    int recvs = split_begin(&sp, count, requests);
    for (;;) {
        int flag = 0;
        int rc;
        if (recvs)
            rc = any_step(count, requests, &sp, spins == 0, index, &flag,
                          status);
        else
            rc = ledger_raise_single(
                prog_testany(count, requests, index, &flag, status));
        if (flag || rc != MPI_SUCCESS) {
            split_end(&sp, count, requests);
            return rc;
        }
        prog_wait_step(&spins);
    }
}

int request_testany(int count, MPI_Request requests[], int *index, int *flag,
                    MPI_Status *status)
{
    prog_poll();
    req_split sp;
    int rc;
    if (split_begin(&sp, count, requests)) {
        rc = any_step(count, requests, &sp, 0, index, flag, status);
        split_end(&sp, count, requests);
    } else
        rc = ledger_raise_single(
            prog_testany(count, requests, index, flag, status));
    return polled(*flag, rc);
}

/* One look for Testsome and Waitsome at an array that holds receive
 * handles: the done receives, then the underlying MPI's share (sp->reqs, made
 * by the caller when sp->others).  With `answer`, a wait's first look, each
 * done receive answers its sender (transport_answer). */
static int some_step(int incount, MPI_Request requests[], req_split *sp,
                     int answer, int *outcount, int indices[],
                     MPI_Status statuses[])
{
    int k = 0;
    for (int i = 0; i < incount; i++) {
        match_recv *r = recv_of(requests[i]);
        if (r && recv_is_done(r)) {
            if (answer)
                recv_answer(r);
            indices[k++] = i;
        }
    }
    int rc = MPI_SUCCESS;
    int nrecv = k;
    if (sp->others) {
        int oc = 0;
        rc = under_testsome(incount, sp->reqs, &oc, indices + k,
                            statuses == MPI_STATUSES_IGNORE ? statuses
                                                            : statuses + k);
        for (int j = 0; oc != MPI_UNDEFINED && j < oc; j++)
            requests[indices[k + j]] = sp->reqs[indices[k + j]];
        if (oc == MPI_UNDEFINED)
            sp->others = 0;
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
            *outcount = oc == MPI_UNDEFINED ? 0 : oc;
            return rc;
        }
        if (oc != MPI_UNDEFINED)
            k += oc;
    }
    *outcount = k;
    return recv_complete_multi(rc, requests, statuses, indices, nrecv, k);
}

int request_testsome(int incount, MPI_Request requests[], int *outcount,
                     int indices[], MPI_Status statuses[])
{
    prog_poll();
    req_split sp;
    int rc;
    if (split_begin(&sp, incount, requests)) {
        rc = some_step(incount, requests, &sp, 0, outcount, indices,
                       statuses);
        split_end(&sp, incount, requests);
    } else {
        rc = under_testsome(incount, requests, outcount, indices, statuses);
    }
    return polled(*outcount != 0 && *outcount != MPI_UNDEFINED, rc);
}

int request_waitsome(int incount, MPI_Request requests[], int *outcount,
                     int indices[], MPI_Status statuses[])
{
    unsigned spins = 0;
    req_split sp;
    int recvs = split_begin(&sp, incount, requests);
    for (;;) {
        int rc = recvs ? some_step(incount, requests, &sp, spins == 0,
                                   outcount, indices, statuses)
                       : under_testsome(incount, requests, outcount, indices,
                                        statuses);
        if (*outcount != 0 || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) {
            split_end(&sp, incount, requests);
            return rc;
        }
        prog_wait_step(&spins);
    }
}

/* The underlying MPI's Request_get_status calls neither poll_fn nor wait_fn,
 * so without this a loop on it would never see an Omnibus operation complete.
 * It does call query_fn, whose ledger entry is dropped: the error is raised
 * when the request is completed by a Wait or Test.  A receive handle is only
 * looked at, never freed. */
int request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    prog_poll();
    int rc = MPI_SUCCESS;
    match_recv *r = recv_of(request);
    if (r) {
        *flag = recv_is_done(r);
        if (*flag)
            status_fill(status, r->st_source, r->st_tag, r->st_bytes,
                        r->cancelled);
    } else {
        rc = prog_get_status(request, flag, status);
        greq_ledger_clear();
    }
    polled(*flag, rc);
    return rc;
}
