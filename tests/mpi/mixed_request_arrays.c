/* mixed_request_arrays: the multiple-completion calls over arrays that mix
 * point-to-point requests, collective requests and MPI_REQUEST_NULL.
 *
 * MPI 4.1 §3.7.3 and §3.7.5: any request handle may appear in any
 * completion call.  MPI_REQUEST_NULL entries are ignored ("inactive"); a
 * completed nonpersistent request is freed and its entry set to
 * MPI_REQUEST_NULL.  MPI_Waitany/MPI_Testany return the index of one
 * completed request, or MPI_UNDEFINED (with flag true for Testany) when
 * every entry is inactive, with an empty status (source MPI_ANY_SOURCE, tag
 * MPI_ANY_TAG, count 0).  MPI_Waitsome/MPI_Testsome return the indices of
 * the completed requests, or outcount MPI_UNDEFINED when all are inactive.
 * MPI_Waitall fills statuses in array order.  Each receive status carries
 * its own source, tag and count; collective results are correct.
 *
 * Every rank sends to its right neighbour and receives from its left one;
 * the arrays hold, in shuffled positions, two receives (one from
 * MPI_ANY_SOURCE, one large), two sends, an MPI_Iallreduce, an MPI_Ibarrier
 * and MPI_REQUEST_NULL entries.
 */
#include "testlib.h"

#define NREQ 9
#define SMALL 24
#define LARGE 40000

enum { K_NULL, K_RECV_SMALL, K_RECV_LARGE, K_SEND_SMALL, K_SEND_LARGE,
       K_ALLREDUCE, K_IBARRIER };

/* Slot layout, the same for every call: NULLs at 0, 4 and 8. */
static const int kinds[NREQ] = {K_NULL,      K_RECV_SMALL, K_ALLREDUCE,
                                K_SEND_LARGE, K_NULL,      K_IBARRIER,
                                K_RECV_LARGE, K_SEND_SMALL, K_NULL};

struct round {
    MPI_Request req[NREQ];
    unsigned char sbuf_small[SMALL], rbuf_small[SMALL];
    unsigned char *sbuf_large, *rbuf_large;
    long in, out;
    int left, right, me, size, round;
};

static void start(struct round *r, int round)
{
    r->round = round;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->me);
    r->size = tl_size();
    r->left = (r->me + r->size - 1) % r->size;
    r->right = (r->me + 1) % r->size;
    r->sbuf_large = tl_malloc(LARGE);
    r->rbuf_large = tl_malloc(LARGE);
    tl_fill(r->sbuf_small, SMALL, r->me, round * 10 + 1);
    tl_fill(r->sbuf_large, LARGE, r->me, round * 10 + 2);
    r->in = r->me + 1 + round;
    for (int i = 0; i < NREQ; i++) {
        MPI_Request *q = &r->req[i];
        switch (kinds[i]) {
        case K_NULL:
            *q = MPI_REQUEST_NULL;
            break;
        case K_RECV_SMALL:
            CHECK_MPI(MPI_Irecv(r->rbuf_small, SMALL, MPI_BYTE, MPI_ANY_SOURCE,
                             10 + round, MPI_COMM_WORLD, q));
            break;
        case K_RECV_LARGE:
            CHECK_MPI(MPI_Irecv(r->rbuf_large, LARGE, MPI_BYTE, r->left,
                             20 + round, MPI_COMM_WORLD, q));
            break;
        case K_SEND_SMALL:
            CHECK_MPI(MPI_Isend(r->sbuf_small, SMALL, MPI_BYTE, r->right,
                             10 + round, MPI_COMM_WORLD, q));
            break;
        case K_SEND_LARGE:
            CHECK_MPI(MPI_Isend(r->sbuf_large, LARGE, MPI_BYTE, r->right,
                             20 + round, MPI_COMM_WORLD, q));
            break;
        case K_ALLREDUCE:
            CHECK_MPI(MPI_Iallreduce(&r->in, &r->out, 1, MPI_LONG, MPI_SUM,
                                  MPI_COMM_WORLD, q));
            break;
        case K_IBARRIER:
            CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, q));
            break;
        }
    }
}

/* Checks what completed request i left behind; `how` names the call. */
static void check_done(struct round *r, int i, const MPI_Status *st,
                       const char *how)
{
    CHECK(r->req[i] == MPI_REQUEST_NULL,
          "%s: completed request at index %d must be set to MPI_REQUEST_NULL",
          how, i);
    switch (kinds[i]) {
    case K_NULL:
        FAIL("%s reported index %d complete, but that entry is "
             "MPI_REQUEST_NULL and must be ignored",
             how, i);
    case K_RECV_SMALL:
        if (st)
            CHECK_STATUS(*st, r->left, 10 + r->round, SMALL,
                         "%s: status of the ANY_SOURCE receive at index %d",
                         how, i);
        CHECK_PATTERN(r->rbuf_small, SMALL, r->left, r->round * 10 + 1,
                      "%s: small receive at index %d", how, i);
        break;
    case K_RECV_LARGE:
        if (st)
            CHECK_STATUS(*st, r->left, 20 + r->round, LARGE,
                         "%s: status of the large receive at index %d", how,
                         i);
        CHECK_PATTERN(r->rbuf_large, LARGE, r->left, r->round * 10 + 2,
                      "%s: large receive at index %d", how, i);
        break;
    case K_ALLREDUCE: {
        long expect = 0;
        for (int k = 0; k < r->size; k++)
            expect += k + 1 + r->round;
        CHECK(r->out == expect,
              "%s: MPI_Iallreduce(SUM) at index %d must give %ld, got %ld",
              how, i, expect, r->out);
        break;
    }
    default:
        break;
    }
}

static void finish(struct round *r)
{
    for (int i = 0; i < NREQ; i++)
        CHECK(r->req[i] == MPI_REQUEST_NULL,
              "round %d: request %d must be MPI_REQUEST_NULL once complete",
              r->round, i);
    free(r->sbuf_large);
    free(r->rbuf_large);
}

static void check_empty(const MPI_Status *st, const char *how)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
              n == 0,
          "%s must return an empty status (source MPI_ANY_SOURCE, tag "
          "MPI_ANY_TAG, count 0), got source %d tag %d count %d",
          how, st->MPI_SOURCE, st->MPI_TAG, n);
}

static void all_null_calls(void)
{
    MPI_Request nul[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                          MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int idx = -5, flag = -5, outcount = -5, indices[3];

    CHECK_MPI(MPI_Waitany(3, nul, &idx, &st));
    CHECK(idx == MPI_UNDEFINED,
          "MPI_Waitany over only MPI_REQUEST_NULL must return index "
          "MPI_UNDEFINED, got %d",
          idx);
    check_empty(&st, "MPI_Waitany over only MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Testany(3, nul, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED,
          "MPI_Testany over only MPI_REQUEST_NULL must return flag true, "
          "index MPI_UNDEFINED; got flag %d index %d",
          flag, idx);
    check_empty(&st, "MPI_Testany over only MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Testsome(3, nul, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED,
          "MPI_Testsome over only MPI_REQUEST_NULL must return outcount "
          "MPI_UNDEFINED, got %d",
          outcount);
    CHECK_MPI(MPI_Waitsome(3, nul, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED,
          "MPI_Waitsome over only MPI_REQUEST_NULL must return outcount "
          "MPI_UNDEFINED, got %d",
          outcount);
    CHECK_MPI(MPI_Testall(3, nul, &flag, sts));
    CHECK(flag, "MPI_Testall over only MPI_REQUEST_NULL must return true");
    check_empty(&sts[1], "MPI_Testall over only MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Waitall(3, nul, sts));
    check_empty(&sts[2], "MPI_Waitall over only MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Test(&nul[0], &flag, &st));
    CHECK(flag, "MPI_Test on MPI_REQUEST_NULL must return true");
    check_empty(&st, "MPI_Test on MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Wait(&nul[0], &st));
    check_empty(&st, "MPI_Wait on MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Waitany(0, NULL, &idx, &st));
    CHECK(idx == MPI_UNDEFINED,
          "MPI_Waitany over an empty list must return MPI_UNDEFINED, got %d",
          idx);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    struct round r;
    MPI_Status sts[NREQ];
    int round = 0;

    all_null_calls();

    /* MPI_Waitall completes everything and fills statuses in array order. */
    start(&r, round++);
    CHECK_MPI(MPI_Waitall(NREQ, r.req, sts));
    for (int i = 0; i < NREQ; i++)
        if (kinds[i] != K_NULL)
            check_done(&r, i, &sts[i], "MPI_Waitall");
    finish(&r);

    /* MPI_Waitany / MPI_Testany return each active request exactly once,
     * then MPI_UNDEFINED once all are inactive. */
    for (int variant = 0; variant < 2; variant++) {
        const char *how = variant ? "MPI_Testany" : "MPI_Waitany";
        int seen[NREQ] = {0}, ndone = 0;
        start(&r, round++);
        double t0 = tl_now();
        for (;;) {
            int idx = -5, flag = 1;
            MPI_Status st;
            if (variant)
                CHECK_MPI(MPI_Testany(NREQ, r.req, &idx, &flag, &st));
            else
                CHECK_MPI(MPI_Waitany(NREQ, r.req, &idx, &st));
            CHECK(tl_now() - t0 < 10, "%s: requests not done after 10 s",
                  how);
            if (!flag) {
                CHECK(idx == MPI_UNDEFINED,
                      "%s with flag false must set index MPI_UNDEFINED, got "
                      "%d",
                      how, idx);
                continue;
            }
            if (idx == MPI_UNDEFINED)
                break;
            CHECK(idx >= 0 && idx < NREQ && !seen[idx],
                  "%s returned index %d, which is out of range or already "
                  "completed",
                  how, idx);
            seen[idx] = 1;
            ndone++;
            check_done(&r, idx, &st, how);
        }
        CHECK(ndone == NREQ - 3,
              "%s must complete each of the %d active requests once, "
              "completed %d",
              how, NREQ - 3, ndone);
        finish(&r);
    }

    /* MPI_Testsome / MPI_Waitsome likewise, several at a time. */
    for (int variant = 0; variant < 2; variant++) {
        const char *how = variant ? "MPI_Waitsome" : "MPI_Testsome";
        int seen[NREQ] = {0}, ndone = 0;
        start(&r, round++);
        double t0 = tl_now();
        for (;;) {
            int outcount = -5, indices[NREQ];
            if (variant)
                CHECK_MPI(MPI_Waitsome(NREQ, r.req, &outcount, indices, sts));
            else
                CHECK_MPI(MPI_Testsome(NREQ, r.req, &outcount, indices, sts));
            CHECK(tl_now() - t0 < 10, "%s: requests not done after 10 s",
                  how);
            if (outcount == MPI_UNDEFINED)
                break;
            CHECK(outcount >= (variant ? 1 : 0) && outcount <= NREQ - 3,
                  "%s returned outcount %d", how, outcount);
            for (int k = 0; k < outcount; k++) {
                int idx = indices[k];
                CHECK(idx >= 0 && idx < NREQ && !seen[idx],
                      "%s returned index %d, out of range or already "
                      "completed",
                      how, idx);
                seen[idx] = 1;
                ndone++;
                check_done(&r, idx, &sts[k], how);
            }
        }
        CHECK(ndone == NREQ - 3,
              "%s must complete each of the %d active requests once, "
              "completed %d",
              how, NREQ - 3, ndone);
        finish(&r);
    }

    /* MPI_Testall: false until everything is done, then all at once. */
    {
        int flag = 0;
        start(&r, round++);
        double t0 = tl_now();
        while (!flag) {
            CHECK_MPI(MPI_Testall(NREQ, r.req, &flag, sts));
            CHECK(flag || tl_now() - t0 < 10,
                  "MPI_Testall: requests not done after 10 s");
            if (!flag)
                for (int i = 0; i < NREQ; i++)
                    CHECK(kinds[i] == K_NULL || r.req[i] != MPI_REQUEST_NULL,
                          "MPI_Testall returning false must leave every "
                          "request untouched; index %d became "
                          "MPI_REQUEST_NULL",
                          i);
        }
        for (int i = 0; i < NREQ; i++)
            if (kinds[i] != K_NULL)
                check_done(&r, i, &sts[i], "MPI_Testall");
        finish(&r);
    }

    /* MPI_STATUSES_IGNORE is legal with any mix of requests. */
    start(&r, round++);
    CHECK_MPI(MPI_Waitall(NREQ, r.req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NREQ; i++)
        if (kinds[i] != K_NULL)
            check_done(&r, i, NULL, "MPI_Waitall(STATUSES_IGNORE)");
    finish(&r);

    return tl_finalize();
}
