#include "shim/base/pending.h"
#include "shim/base/fail.h"
#include <stdlib.h>
#include <string.h>

void pending_add(pending_set *s, void *owner, MPI_Request req)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        MPI_Request *reqs = realloc(s->reqs, sizeof *reqs * (size_t)cap);
        if (reqs)
            s->reqs = reqs;
        void **owners = realloc(s->owners, sizeof *owners * (size_t)cap);
        if (!reqs || !owners)
            omni_out_of_memory("the pending-request set");
        s->owners = owners;
        s->cap = cap;
    }
    s->reqs[s->n] = req;
    s->owners[s->n] = owner;
    s->n++;
}

int pending_take_if_done(MPI_Request *req, MPI_Status *st, int *rc)
{
    int done = 0;
    PMPI_Request_get_status(*req, &done, MPI_STATUS_IGNORE);
    if (done) {
        int err = PMPI_Wait(req, st);
        if (rc)
            *rc = err;
    }
    return done;
}

/* A set of one is taken if done (pending_take_if_done), where PMPI_Testsome
 * would turn the engine before it looks: a payload whose last packet an
 * earlier call of the round read is then taken without one more turn,
 * which over TCP is an epoll_wait per interface on the latency path of
 * every large message (docs/design/progress.md, a progress round). */
static void pending_poll_one(pending_set *s,
                             void (*done)(void *owner, const MPI_Status *st,
                                          int rc))
{
    MPI_Status st;
    int rc = MPI_SUCCESS;
    void *owner = s->owners[0];
    if (!pending_take_if_done(&s->reqs[0], &st, &rc))
        return;
    s->n = 0;
    s->cursor = 0;
    done(owner, &st, rc);
}

void pending_poll(pending_set *s,
                  void (*done)(void *owner, const MPI_Status *st, int rc))
{
    if (s->n == 0)
        return;
    if (s->n == 1) {
        pending_poll_one(s, done);
        return;
    }
    if (s->cursor >= s->n)
        s->cursor = 0;
    int start = s->cursor;
    int k = s->n - start < PENDING_BUDGET ? s->n - start : PENDING_BUDGET;
    int idx[PENDING_BUDGET], outcount = 0;
    MPI_Status st[PENDING_BUDGET];
    /* Only real requests of the MPI underneath are here, never a generalized
     * one whose poll_fn could run progress inside this call. */
    int rc = PMPI_Testsome(k, s->reqs + start, &outcount, idx, st);
    if (outcount == MPI_UNDEFINED || outcount <= 0) {
        s->cursor = start + k;
        return;
    }
    /* Owners and statuses aside first: removal moves entries. */
    void *owner[PENDING_BUDGET];
    for (int i = 0; i < outcount; i++)
        owner[i] = s->owners[start + idx[i]];
    /* Completed entries are MPI_REQUEST_NULL now: close the gaps in the
     * tested window, keeping the rest in order. */
    int w = start;
    for (int r = start; r < s->n; r++) {
        if (r < start + k && s->reqs[r] == MPI_REQUEST_NULL)
            continue;
        s->reqs[w] = s->reqs[r];
        s->owners[w] = s->owners[r];
        w++;
    }
    s->n = w;
    s->cursor = start + k - outcount;
    for (int i = 0; i < outcount; i++) {
        int err = rc == MPI_ERR_IN_STATUS ? st[i].MPI_ERROR : MPI_SUCCESS;
        done(owner[i], &st[i], err);
    }
}

void pending_free(pending_set *s)
{
    free(s->reqs);
    free(s->owners);
    memset(s, 0, sizeof *s);
}
