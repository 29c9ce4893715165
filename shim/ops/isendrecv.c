/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.1 §3.10) on
 * managed communicators.
 *
 * The send half is an ordinary Omnibus send; the receive half an ordinary
 * Omnibus receive kept without a request of its own.  The user gets one
 * generalized request, completed by progress (isendrecv_poll) once both
 * halves are done; its status is the receive's.  The replace form sends a
 * packed copy of the buffer, freed with the pair.
 */
#include "shim/ops/isendrecv.h"
#include "shim/progress/progress.h"
#include "shim/progress/greq.h"
#include "shim/engine/recv.h"
#include "shim/engine/request.h"
#include "shim/engine/send.h"
#include "shim/base/dtype.h"
#include "omni_have.h"
#include "shim/base/fail.h"
#include <stdlib.h>

/* MPI-4.0's MPI_Isendrecv and MPI_Isendrecv_replace come together. */
#if OMNI_HAVE_MPI_Isendrecv

typedef struct sendrecv_pair {
    struct sendrecv_pair *next;  /* pending list, while not complete */
    MPI_Request greq;
    MPI_Request send;            /* MPI_REQUEST_NULL once complete */
    match_recv *recv;
    void *packed;                /* the replace form's outgoing copy */
    int done;
} sendrecv_pair;

static int pair_query(void *extra, MPI_Status *st)
{
    sendrecv_pair *p = extra;
    match_recv *r = p->recv;
    status_fill(st, r->st_source, r->st_tag, r->st_bytes, 0);
    st->MPI_ERROR = MPI_SUCCESS;
    if (r->error != MPI_SUCCESS)
        greq_ledger_add(p->greq, r->user_comm, r->error);
    return MPI_SUCCESS;
}

/* Freed by MPI only after completion, or (MPI_Request_free) before it: the
 * pending list then still holds the pair, which progress frees when done. */
static int pair_free(void *extra)
{
    sendrecv_pair *p = extra;
    if (!p->done) {
        p->greq = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (p->recv->error != MPI_SUCCESS)
        omni.ops.err_pending--;
    match_recv_free(p->recv);
    free(p->packed);
    free(p);
    return MPI_SUCCESS;
}

static int pair_wait(int n, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < n; i++) {
        sendrecv_pair *p = states[i];
        unsigned spins = 0;
        while (!p->done)
            prog_wait_step(&spins);
    }
    return MPI_SUCCESS;
}

static int isendrecv_poll(void)
{
    sendrecv_pair **link = (sendrecv_pair **)&omni.ops.pairs;
    while (*link) {
        sendrecv_pair *p = *link;
        int sent = p->send == MPI_REQUEST_NULL;
        if (!sent)
            prog_test(&p->send, &sent, MPI_STATUS_IGNORE);
        if (!sent || p->recv->state != RECV_DONE) {
            link = &p->next;
            continue;
        }
        *link = p->next;
        p->done = 1;
        if (p->recv->error != MPI_SUCCESS)
            omni.ops.err_pending++;
        if (p->greq == MPI_REQUEST_NULL) {
            p->done = 1;
            pair_free(p); /* the user freed it already */
        } else {
            PMPI_Grequest_complete(p->greq);
        }
    }
    return omni.ops.pairs != NULL;
}

static int pair_start(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, int dest, int sendtag,
                      void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int source, int recvtag,
                      comm_rec *c, void *packed, MPI_Request *request)
{
    if (!omni.ops.pair_class &&
        greq_class_create(pair_query, pair_free, pair_wait,
                          &omni.ops.pair_class) != MPI_SUCCESS)
        return omni_raise(c->handle, MPI_ERR_OTHER);
    sendrecv_pair *p = calloc(1, sizeof *p);
    if (!p)
        omni_out_of_memory("an MPI_Isendrecv");
    p->packed = packed;
    int rc = send_start_inner(sendbuf, sendcount, sendtype, dest, sendtag, c,
                              SEND_STANDARD, &p->send);
    if (rc != MPI_SUCCESS) {
        free(p);
        free(packed);
        return rc;
    }
    p->recv = match_recv_alloc();
    match_recv_init(p->recv, recvbuf, recvcount, recvtype, source, recvtag, c,
                    c->handle, MPI_REQUEST_NULL);
    if (source != MPI_PROC_NULL) {
        rc = match_hold_dtype(p->recv);
        if (rc != MPI_SUCCESS) {
            /* The send half is on its way: its request completes alone. */
            PMPI_Request_free(&p->send);
            match_recv_free(p->recv);
            free(p);
            return omni_raise(c->handle, rc);
        }
    }
    if (source == MPI_PROC_NULL) {
        p->recv->st_source = MPI_PROC_NULL;
        p->recv->st_tag = MPI_ANY_TAG;
        p->recv->state = RECV_DONE;
    } else {
        recv_start(p->recv);
    }
    omni_gclass_start(omni.ops.pair_class, p, &p->greq);
    *request = p->greq;
    p->next = omni.ops.pairs;
    omni.ops.pairs = p;
    prog_has_work(omni.ops.pair_poller);
    return MPI_SUCCESS;
}

/* A receive half that MPI would reject goes to the MPI underneath whole, which
 * reports the error and starts nothing. */
static int recv_half_valid(MPI_Count count, MPI_Datatype dtype, int source,
                           int tag, comm_rec *c)
{
    return count >= 0 && dtype_size(dtype) >= 0 && tag <= omni.job.tag_ub &&
           (tag >= 0 || tag == MPI_ANY_TAG) && source >= MPI_PROC_NULL &&
           source < c->size;
}

int impl_Isendrecv(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || !recv_half_valid(recvcount, recvtype, source, recvtag, c))
        return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                                recvbuf, recvcount, recvtype, source, recvtag,
                                comm, request);
    return pair_start(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                      recvcount, recvtype, source, recvtag, c, NULL, request);
}

int impl_Isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request)
{
    comm_rec *c = comm_lookup(comm);
    if (!c || !recv_half_valid(count, dtype, source, recvtag, c))
        return PMPI_Isendrecv_replace_c(buf, count, dtype, dest, sendtag,
                                        source, recvtag, comm, request);
    void *tmp;
    MPI_Count packed;
    int rc = recv_pack_aside(buf, count, dtype, comm, &tmp, &packed);
    if (rc != MPI_SUCCESS)
        return rc;
    return pair_start(tmp, packed, MPI_PACKED, dest, sendtag, buf, count, dtype,
                      source, recvtag, c, tmp, request);
}

#else

/* An MPI without MPI_Isendrecv (Open MPI 4.1): no pair ever exists. */
static int isendrecv_poll(void)
{
    return 0;
}

#endif

void isendrecv_add_poller(void)
{
    omni.ops.pair_poller = prog_add_poller(isendrecv_poll, 0);
}
