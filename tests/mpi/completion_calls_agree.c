/* completion_calls_agree: MPICH answers each completion call that Omnibus
 * makes in place of the program's the way it answers the program's own.
 *
 * Omnibus completes MPI_Wait by MPI_Test until it succeeds, MPI_Waitany by
 * MPI_Testany, MPI_Waitsome by MPI_Testsome, and MPI_Waitall by
 * MPI_Request_get_status on each request until it is complete, or, for one
 * it has not seen complete after AWAIT_ROUNDS calls, MPI_Test until it
 * succeeds, then MPI_Waitall, whose statuses for the tested requests it
 * replaces by their tests' with MPI_ERROR MPI_SUCCESS
 * (shim/engine/request.c), driving its own progress in between.
 * MPI 4.1 §3.7.3-3.7.5 defines each call's result (return code, flag, index,
 * outcount, indices, statuses, the request handles left behind); this test
 * pins, for every kind of request MPICH hands out, that MPICH's answer to
 * the call Omnibus makes is its answer to the call the program made.  It
 * calls MPICH directly (PMPI_), so it checks MPICH itself, with or without
 * Omnibus preloaded.  Kinds: point-to-point, persistent point-to-point,
 * nonblocking and persistent collectives, generalized (one that succeeds,
 * one whose query_fn fails), partitioned, RMA request-based, file I/O.
 * Each kind is made twice, identically, on a fresh communicator; every
 * request is complete (PMPI_Request_get_status) before the two calls are
 * compared, so timing picks no different index.  A file access is the
 * exception: MPICH's MPI_Request_get_status never reports one complete
 * (ROMIO completes it in a generalized request's poll_fn, which only the
 * Test and Wait calls run), so the test gives its asynchronous I/O time to
 * finish (FILE_IO_SETTLE seconds) instead, and Omnibus's MPI_Waitall takes
 * the MPI_Test path for it.  Not compared: MPI_Testall,
 * which Omnibus answers by MPICH's own MPI_Testall (and which MPICH 4.0.2
 * answers wrongly for persistent collectives), and for MPI_Waitany and
 * MPI_Waitsome only the first answer: MPICH 4.0.2 never makes a completed
 * persistent collective request inactive, so later calls repeat it.
 */
#include "testlib.h"

#define NREQ 2
#define AWAIT_ROUNDS 64      /* AWAIT_ROUNDS_BEFORE_TEST, engine/request.c */
#define FILE_IO_SETTLE 0.05
enum { P2P, PERSIST_P2P, NBC, PERSIST_COLL, GREQ, GREQ_ERR, PARTITIONED, RMA,
       FILE_IO, NKINDS };
static const char *kind_name[NKINDS] = {
    "point-to-point", "persistent point-to-point", "nonblocking collective",
    "persistent collective", "generalized", "generalized (query_fn fails)",
    "partitioned", "RMA request-based", "file I/O"};
enum { WAIT, WAITANY, WAITSOME, WAITALL, NCALLS };
static const char *call_name[NCALLS] = {"MPI_Wait", "MPI_Waitany",
                                        "MPI_Waitsome", "MPI_Waitall"};
static const char *sub_name[NCALLS] = {
    "MPI_Test until flag", "MPI_Testany until flag",
    "MPI_Testsome until outcount > 0",
    "MPI_Request_get_status until flag (else MPI_Test), then MPI_Waitall"};

typedef struct { /* everything one instance owns */
    MPI_Comm comm;
    MPI_Request r[NREQ];
    int sbuf[8], rbuf[8], wbuf[8];
    MPI_Win win;
    MPI_File fh;
    int persistent;
} inst;

static int query_ok(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 12);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 4;
    return MPI_SUCCESS;
}
static int query_err(void *extra, MPI_Status *st)
{
    query_ok(extra, st);
    return MPI_ERR_OTHER;
}
static int greq_free(void *extra) { (void)extra; return MPI_SUCCESS; }
static int greq_cancel(void *extra, int c) { (void)extra, (void)c; return MPI_SUCCESS; }

static void make(int kind, inst *in)
{
    memset(in, 0, sizeof *in);
    CHECK_MPI(PMPI_Comm_dup(MPI_COMM_WORLD, &in->comm));
    CHECK_MPI(PMPI_Comm_set_errhandler(in->comm, MPI_ERRORS_RETURN));
    int right = tl_right(1), left = tl_left(1), me = tl_rank();
    for (int k = 0; k < 8; k++)
        in->sbuf[k] = me * 100 + k;
    switch (kind) {
    case P2P:
        CHECK_MPI(PMPI_Irecv(in->rbuf, 8, MPI_INT, left, 5, in->comm, &in->r[0]));
        CHECK_MPI(PMPI_Isend(in->sbuf, 8, MPI_INT, right, 5, in->comm, &in->r[1]));
        break;
    case PERSIST_P2P:
        in->persistent = 1;
        CHECK_MPI(PMPI_Recv_init(in->rbuf, 8, MPI_INT, left, 5, in->comm, &in->r[0]));
        CHECK_MPI(PMPI_Send_init(in->sbuf, 8, MPI_INT, right, 5, in->comm, &in->r[1]));
        CHECK_MPI(PMPI_Startall(2, in->r));
        break;
    case NBC:
        CHECK_MPI(PMPI_Ibarrier(in->comm, &in->r[0]));
        CHECK_MPI(PMPI_Ibcast(in->sbuf, 8, MPI_INT, 0, in->comm, &in->r[1]));
        break;
    case PERSIST_COLL:
        in->persistent = 1;
        CHECK_MPI(PMPI_Bcast_init(in->sbuf, 8, MPI_INT, 0, in->comm,
                               MPI_INFO_NULL, &in->r[0]));
        CHECK_MPI(PMPI_Barrier_init(in->comm, MPI_INFO_NULL, &in->r[1]));
        CHECK_MPI(PMPI_Start(&in->r[me % 2]));
        CHECK_MPI(PMPI_Start(&in->r[1 - me % 2]));
        break;
    case GREQ:
    case GREQ_ERR:
        for (int k = 0; k < NREQ; k++) {
            CHECK_MPI(PMPI_Grequest_start(kind == GREQ_ERR && k == 1 ? query_err
                                                                  : query_ok,
                                       greq_free, greq_cancel, NULL, &in->r[k]));
            CHECK_MPI(PMPI_Grequest_complete(in->r[k]));
        }
        break;
    case PARTITIONED:
        in->persistent = 1;
        CHECK_MPI(PMPI_Precv_init(in->rbuf, 2, 4, MPI_INT, left, 6, in->comm,
                               MPI_INFO_NULL, &in->r[0]));
        CHECK_MPI(PMPI_Psend_init(in->sbuf, 2, 4, MPI_INT, right, 6, in->comm,
                               MPI_INFO_NULL, &in->r[1]));
        CHECK_MPI(PMPI_Startall(2, in->r));
        CHECK_MPI(PMPI_Pready_range(0, 1, in->r[1]));
        break;
    case RMA:
        CHECK_MPI(PMPI_Win_create(in->wbuf, sizeof in->wbuf, sizeof(int),
                               MPI_INFO_NULL, in->comm, &in->win));
        CHECK_MPI(PMPI_Win_lock_all(0, in->win));
        CHECK_MPI(PMPI_Rput(in->sbuf, 4, MPI_INT, right, 0, 4, MPI_INT, in->win,
                         &in->r[0]));
        CHECK_MPI(PMPI_Rget(in->rbuf, 4, MPI_INT, left, 4, 4, MPI_INT, in->win,
                         &in->r[1]));
        break;
    case FILE_IO: {
        char path[256];
        snprintf(path, sizeof path, "/tmp/omnibus_cca_%d_%d", (int)getpid(),
                 me);
        CHECK_MPI(PMPI_File_open(MPI_COMM_SELF, path,
                              MPI_MODE_CREATE | MPI_MODE_RDWR |
                                  MPI_MODE_DELETE_ON_CLOSE,
                              MPI_INFO_NULL, &in->fh));
        CHECK_MPI(PMPI_File_iwrite_at(in->fh, 0, in->sbuf, 8, MPI_INT, &in->r[0]));
        CHECK_MPI(PMPI_File_iread_at(in->fh, 64, in->rbuf, 8, MPI_INT, &in->r[1]));
        break;
    }
    }
    /* Every request complete before the calls compared see it. */
    if (kind == FILE_IO) {
        tl_sleep(FILE_IO_SETTLE);
        return;
    }
    for (int k = 0; k < NREQ; k++) {
        int flag = 0;
        double t0 = tl_now();
        while (!flag) {
            PMPI_Request_get_status(in->r[k], &flag, MPI_STATUS_IGNORE);
            CHECK(flag || tl_now() - t0 < 10, "%s request %d: "
                  "MPI_Request_get_status never reported it complete",
                  kind_name[kind], k);
        }
    }
}

static void unmake(int kind, inst *in)
{
    int rc = PMPI_Waitall(NREQ, in->r, MPI_STATUSES_IGNORE);
    if (kind != GREQ_ERR) /* whose failure the calls compared may leave */
        CHECK_MPI(rc);
    if (in->persistent)
        for (int k = 0; k < NREQ; k++)
            if (in->r[k] != MPI_REQUEST_NULL)
                CHECK_MPI(PMPI_Request_free(&in->r[k]));
    if (kind == RMA) {
        CHECK_MPI(PMPI_Win_unlock_all(in->win));
        CHECK_MPI(PMPI_Win_free(&in->win));
    }
    if (kind == FILE_IO)
        CHECK_MPI(PMPI_File_close(&in->fh));
    CHECK_MPI(PMPI_Comm_free(&in->comm));
}

typedef struct { /* one call's answer */
    int rc_class, flag, index, outcount, indices[NREQ], nulls[NREQ];
    int src[NREQ], tag[NREQ], err[NREQ], count[NREQ], cancelled[NREQ];
} answer;

static void record(answer *a, int rc, MPI_Status *st, int nst, const inst *in)
{
    a->rc_class = rc == MPI_SUCCESS ? 0 : tl_class(rc);
    for (int k = 0; k < nst; k++) {
        a->src[k] = st[k].MPI_SOURCE;
        a->tag[k] = st[k].MPI_TAG;
        a->err[k] = st[k].MPI_ERROR == MPI_SUCCESS ? 0 : tl_class(st[k].MPI_ERROR);
        PMPI_Get_count(&st[k], MPI_BYTE, &a->count[k]);
        PMPI_Test_cancelled(&st[k], &a->cancelled[k]);
    }
    for (int k = 0; k < NREQ; k++)
        a->nulls[k] = in->r[k] == MPI_REQUEST_NULL;
}

static void sentinel(MPI_Status *st, int n)
{
    for (int k = 0; k < n; k++) {
        memset(&st[k], 0, sizeof st[k]);
        st[k].MPI_SOURCE = -77;
        st[k].MPI_TAG = -77;
        st[k].MPI_ERROR = MPI_ERR_PENDING;
    }
}

/* The program's call (sub = 0) or the one Omnibus makes for it (sub = 1). */
static void run(int call, int sub, inst *in, answer *a)
{
    MPI_Status st[NREQ];
    int rc = MPI_SUCCESS, flag = 0;
    memset(a, 0, sizeof *a);
    sentinel(st, NREQ);
    switch (call) {
    case WAIT: /* each request in turn; the first failure ends it */
        for (int k = 0; k < NREQ && rc == MPI_SUCCESS; k++) {
            if (!sub)
                rc = PMPI_Wait(&in->r[k], &st[k]);
            else
                do
                    rc = PMPI_Test(&in->r[k], &flag, &st[k]);
                while (rc == MPI_SUCCESS && !flag);
        }
        record(a, rc, st, NREQ, in);
        break;
    case WAITANY:
        if (!sub)
            rc = PMPI_Waitany(NREQ, in->r, &a->index, &st[0]);
        else
            do
                rc = PMPI_Testany(NREQ, in->r, &a->index, &flag, &st[0]);
            while (rc == MPI_SUCCESS && !flag);
        record(a, rc, st, 1, in);
        break;
    case WAITSOME:
        if (!sub)
            rc = PMPI_Waitsome(NREQ, in->r, &a->outcount, a->indices, st);
        else
            do
                rc = PMPI_Testsome(NREQ, in->r, &a->outcount, a->indices, st);
            while (rc == MPI_SUCCESS && a->outcount == 0);
        record(a, rc, st, a->outcount > 0 ? a->outcount : 0, in);
        break;
    case WAITALL: { /* no request here fails its MPI_Test */
        MPI_Status early[NREQ];
        int tested[NREQ] = {0};
        for (int k = 0; sub && k < NREQ; k++) {
            flag = 0;
            for (int n = 0; !flag && n < AWAIT_ROUNDS; n++)
                PMPI_Request_get_status(in->r[k], &flag, MPI_STATUS_IGNORE);
            while (!flag && (tested[k] = 1))
                CHECK_MPI(PMPI_Test(&in->r[k], &flag, &early[k]));
        }
        rc = PMPI_Waitall(NREQ, in->r, st);
        for (int k = 0; k < NREQ; k++)
            if (tested[k]) {
                st[k] = early[k];
                st[k].MPI_ERROR = MPI_SUCCESS;
            }
        record(a, rc, st, NREQ, in);
        break;
    }
    }
}

/* Whether MPI defines the source, tag and count of request `req`'s
 * status: a receive's, a generalized request's (its query_fn sets them)
 * and a file access's (the count).  A send's, a collective's (MPI 4.1
 * §6.12) and an RMA operation's are undefined, and MPICH leaves in them
 * whatever its request object held. */
static int fields_defined(int kind, int req)
{
    switch (kind) {
    case P2P:
    case PERSIST_P2P:
    case PARTITIONED:
        return req == 0;
    case GREQ:
    case GREQ_ERR:
    case FILE_IO:
        return 1;
    default:
        return 0;
    }
}

static void compare(int kind, int call, const answer *a, const answer *b)
{
    const char *what = call_name[call], *sub = sub_name[call];
    CHECK(a->rc_class == b->rc_class, "%s requests: %s returned error class "
          "%d, %s returned %d", kind_name[kind], what, a->rc_class, sub,
          b->rc_class);
    CHECK(a->index == b->index && a->outcount == b->outcount &&
              !memcmp(a->indices, b->indices, sizeof a->indices),
          "%s requests: %s gave index %d outcount %d [%d %d], %s gave index "
          "%d outcount %d [%d %d]", kind_name[kind], what, a->index,
          a->outcount, a->indices[0], a->indices[1], sub, b->index,
          b->outcount, b->indices[0], b->indices[1]);
    for (int k = 0; k < NREQ; k++) {
        CHECK(a->nulls[k] == b->nulls[k], "%s requests: after %s request %d "
              "is %sMPI_REQUEST_NULL, after %s it is %s", kind_name[kind],
              what, k, a->nulls[k] ? "" : "not ", sub,
              b->nulls[k] ? "MPI_REQUEST_NULL" : "not");
        int req = call == WAITANY    ? a->index
                  : call == WAITSOME ? a->indices[k]
                                     : k;
        CHECK((!fields_defined(kind, req) || (a->src[k] == b->src[k] && a->tag[k] == b->tag[k] &&
                        a->count[k] == b->count[k])) &&
                  a->cancelled[k] == b->cancelled[k] && a->err[k] == b->err[k],
              "%s requests: status %d of %s is source %d tag %d count %d "
              "cancelled %d error class %d; of %s source %d tag %d count %d "
              "cancelled %d error class %d", kind_name[kind], k, what,
              a->src[k], a->tag[k], a->count[k], a->cancelled[k], a->err[k],
              sub, b->src[k], b->tag[k], b->count[k], b->cancelled[k],
              b->err[k]);
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    CHECK_MPI(PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_MPI(PMPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    for (int kind = 0; kind < NKINDS; kind++)
        for (int call = 0; call < NCALLS; call++) {
            inst a, b;
            answer ra, rb;
            make(kind, &a);
            run(call, 0, &a, &ra);
            unmake(kind, &a);
            make(kind, &b);
            run(call, 1, &b, &rb);
            unmake(kind, &b);
            compare(kind, call, &ra, &rb);
        }
    return tl_finalize();
}
