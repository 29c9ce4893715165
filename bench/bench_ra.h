/* bench_ra.h: HPCC MPIRandomAccess's traffic, shared by ra_buckets (one
 * posted receive, MPI_Test) and ra_testany (an array of posted receives,
 * MPI_Testany).
 *
 * Sender, as HPCC's bucket algorithm: each update is appended to its
 * destination's bucket; while the buckets together hold fewer than `cap`
 * updates (cap = -s bytes / 8) the rank draws the next one, otherwise it
 * sends the fullest bucket as one MPI_Isend once the previous send has
 * completed (MPI_Test; one send in flight at a time, as HPCC).  At 2 ranks
 * every message therefore holds exactly cap updates; with more ranks the
 * fullest of P - 1 buckets goes, so messages shrink towards
 * cap / (P - 1) (RESULT's msg_bytes says what they were).  The sent bucket
 * and the send buffer swap places, so no update is copied twice.
 *
 * Receiver: `recvs` receives of cap updates each stay posted with
 * MPI_ANY_SOURCE and MPI_ANY_TAG; the rank polls them before every update
 * it draws (as HPCC polls in every turn of its loop), until nothing more has
 * completed, and posts each again once applied.  Once a rank holds every
 * done marker, the receives still posted are cancelled (as HPCC does), and
 * each must report MPI_Test_cancelled true: nothing may be left to match
 * them, because a barrier (bench_clock_start or bench_clock_stop) separates
 * every run from the next.
 */
#ifndef BENCH_RA_H
#define BENCH_RA_H

#include "bench_bulk.h"

typedef struct {
    const char *name;
    const char *usage;
    int testany;       /* poll with MPI_Testany, else MPI_Test on one */
    long long bytes;   /* default -s */
    long long recvs;   /* default -r, when testany */
} ra_kind;

typedef struct {
    bench_upd u;
    const ra_kind *kind;
    int cap;              /* updates per message at most */
    uint64_t **bucket;    /* per rank; NULL for this one */
    int *fill;            /* per rank: updates in its bucket */
    int pending;          /* updates in all buckets */
    uint64_t *sendbuf;    /* the buffer of the send in flight */
    MPI_Request sendreq;
    int nrecv;
    uint64_t **rbuf;
    MPI_Request *rreq;
    int markers;          /* done markers received this run */
    MPI_Request *marker_req;
} ra_state;

static void ra_post(ra_state *s, int i)
{
    MPI_Irecv(s->rbuf[i], s->cap, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG,
              MPI_COMM_WORLD, &s->rreq[i]);
}

/* Applies what has arrived, until a poll finds nothing more. */
static void ra_poll(ra_state *s)
{
    for (;;) {
        int i = 0, flag;
        MPI_Status st;
        if (s->kind->testany) {
            MPI_Testany(s->nrecv, s->rreq, &i, &flag, &st);
            if (!flag || i == MPI_UNDEFINED)
                return;
        } else {
            if (s->rreq[0] == MPI_REQUEST_NULL)
                return;
            MPI_Test(&s->rreq[0], &flag, &st);
            if (!flag)
                return;
        }
        if (st.MPI_TAG == BENCH_BULK_TAG_DONE) {
            s->markers++;
        } else {
            int got;
            MPI_Get_count(&st, MPI_UINT64_T, &got);
            bench_upd_apply(&s->u, s->rbuf[i], got, st.MPI_SOURCE);
        }
        if (s->markers < s->u.size - 1)
            ra_post(s, i);
    }
}

/* Sends the fullest bucket if the previous send has completed; returns 0
 * when that send is still in flight. */
static int ra_try_send(ra_state *s)
{
    if (s->sendreq != MPI_REQUEST_NULL) {
        int done;
        MPI_Test(&s->sendreq, &done, MPI_STATUS_IGNORE);
        if (!done)
            return 0;
    }
    int pe = -1;
    for (int r = 0; r < s->u.size; r++)
        if (s->fill[r] > 0 && (pe < 0 || s->fill[r] > s->fill[pe]))
            pe = r;
    if (pe < 0)
        return 1;
    uint64_t *full = s->bucket[pe];
    s->bucket[pe] = s->sendbuf;
    s->sendbuf = full;
    bench_upd_sent(&s->u, s->fill[pe]);
    MPI_Isend(full, s->fill[pe], MPI_UINT64_T, pe, BENCH_BULK_TAG_UPDATE,
              MPI_COMM_WORLD, &s->sendreq);
    s->pending -= s->fill[pe];
    s->fill[pe] = 0;
    return 1;
}

/* One run of n updates per rank (bench_upd_measure's run). */
static void ra_run(void *state, long long n)
{
    ra_state *s = state;
    s->markers = 0;
    for (int i = 0; i < s->nrecv; i++)
        ra_post(s, i);
    for (long long i = 0; i < n;) {
        ra_poll(s);
        if (s->pending < s->cap) {
            int dest;
            uint64_t idx = bench_upd_draw(&s->u, &dest);
            s->bucket[dest][s->fill[dest]++] = idx;
            s->pending++;
            i++;
        } else {
            ra_try_send(s);
        }
    }
    while (s->pending > 0) {
        ra_poll(s);
        ra_try_send(s);
    }
    bench_upd_markers(&s->u, s->marker_req);
    while (s->markers < s->u.size - 1)
        ra_poll(s);
    MPI_Wait(&s->sendreq, MPI_STATUS_IGNORE);
    MPI_Waitall(s->u.size, s->marker_req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < s->nrecv; i++) {
        if (s->rreq[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Status st;
        int cancelled;
        MPI_Cancel(&s->rreq[i]);
        MPI_Wait(&s->rreq[i], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled)
            bench_check_failed(s->kind->name, "a receive posted after the "
                               "last done marker matched a message");
    }
}

static void ra_init(ra_state *s, const ra_kind *kind,
                    const bench_bulk_opts *o)
{
    const char *k = kind->name;
    s->kind = kind;
    bench_upd_init(&s->u, k, o->table, 0x510e527fade682d1ULL);
    s->cap = (int)(o->bytes / 8);
    s->nrecv = kind->testany ? (int)o->recvs : 1;
    size_t size = (size_t)s->u.size, bytes = (size_t)o->bytes;
    s->bucket = calloc(size, sizeof *s->bucket);
    s->fill = calloc(size, sizeof *s->fill);
    s->rbuf = calloc((size_t)s->nrecv, sizeof *s->rbuf);
    s->rreq = malloc((size_t)s->nrecv * sizeof *s->rreq);
    s->marker_req = malloc(size * sizeof *s->marker_req);
    if (!s->bucket || !s->fill || !s->rbuf || !s->rreq || !s->marker_req)
        bench_fail(k, "out of memory for %d ranks", s->u.size);
    for (int r = 0; r < s->u.size; r++)
        if (r != s->u.rank)
            s->bucket[r] = bench_xmalloc(k, bytes);
    for (int i = 0; i < s->nrecv; i++) {
        s->rbuf[i] = bench_xmalloc(k, bytes);
        s->rreq[i] = MPI_REQUEST_NULL;
    }
    s->sendbuf = bench_xmalloc(k, bytes);
    s->sendreq = MPI_REQUEST_NULL;
}

static void ra_free(ra_state *s)
{
    for (int r = 0; r < s->u.size; r++)
        free(s->bucket[r]);
    for (int i = 0; i < s->nrecv; i++)
        free(s->rbuf[i]);
    free(s->bucket);
    free(s->fill);
    free(s->rbuf);
    free(s->rreq);
    free(s->marker_req);
    free(s->sendbuf);
    bench_upd_free(&s->u);
}

/* The whole program of a kernel of this family. */
static int ra_main(int argc, char **argv, const ra_kind *kind)
{
    MPI_Init(&argc, &argv);
    bench_bulk_opts o = {.n = -2, .warm = -2, .bytes = kind->bytes,
                         .table = 64 * 1024, .recvs = kind->recvs};
    bench_bulk_options(argc, argv, kind->name, kind->usage, kind->testany,
                       &o);
    bench_bulk_sizes(&o, 2000000, 20000, 10000, 1000);
    bench_require_two_ranks(kind->name);
    ra_state s = {0};
    ra_init(&s, kind, &o);
    char more[40] = "";
    if (kind->testany)
        snprintf(more, sizeof more, " recvs=%d", s.nrecv);
    bench_upd_measure(&s.u, ra_run, &s, o.warm, o.n, more);
    ra_free(&s);
    MPI_Finalize();
    return 0;
}

#endif
