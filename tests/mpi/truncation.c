/* truncation: a message longer than the receive buffer is an
 * MPI_ERR_TRUNCATE error, reported through the communicator's error handler.
 *
 * MPI 4.1 §3.2.4 and §9.3: receiving a message longer than the buffer is an
 * overflow error of class MPI_ERR_TRUNCATE; with MPI_ERRORS_RETURN on the
 * communicator, the call returns that error.  MPI_Recv, MPI_Wait and MPI_Test
 * return it directly; MPI_Waitall returns MPI_ERR_IN_STATUS and puts the
 * error in the MPI_ERROR field of the failing request's status (§3.7.5),
 * with MPI_SUCCESS in the fields of requests that completed normally.  The
 * receive never writes past the count it was given.  After a truncation the
 * communicator still works: the next messages arrive intact and in order.
 *
 * The errors are provoked on a duplicate of MPI_COMM_WORLD that has
 * MPI_ERRORS_RETURN.  For MPI_Recv, MPI_COMM_WORLD keeps
 * MPI_ERRORS_ARE_FATAL: an implementation that consulted the wrong
 * communicator's handler aborts.  MPICH 4.0.2 raises errors found by the
 * completion calls (Wait, Test, Waitall) through MPI_COMM_WORLD's handler,
 * so for those the world communicator gets MPI_ERRORS_RETURN too.
 * Sizes: 16 bytes into 8 (an aggregated message), 4000 into 2000 (above
 * the threshold, within a node ring's record: on one node it travels
 * alone through the ring), and 100 KB into 50 KB (a header and an MPICH
 * payload).  The ranks run in pairs (testlib.h), all at once: the lower
 * rank of a pair sends.
 */
#include "testlib.h"

#define GUARD 64
#define GUARD_BYTE 0xA5

static MPI_Comm comm;
static int peer; /* this rank's partner */

/* Per size kind: the long message, the short buffer, a message that fits. */
static const struct { int longn, shortn, okn; } kinds[] = {
    {16, 8, 4}, {4000, 2000, 1000}, {100000, 50000, 30000}};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static void sender(int kind, int method)
{
    int longn = kinds[kind].longn, okn = kinds[kind].okn;
    unsigned char *b = tl_malloc((size_t)longn);
    long base = kind * 100 + method * 10;
    tl_fill(b, (size_t)longn, tl_rank(), base + 1);
    if (method == 3) {
        /* For Waitall: a message that fits, then one that does not. */
        unsigned char *ok = tl_malloc((size_t)okn);
        tl_fill(ok, (size_t)okn, tl_rank(), base + 3);
        CHECK_MPI(MPI_Send(ok, okn, MPI_BYTE, peer, 1, comm));
        free(ok);
    }
    CHECK_MPI(MPI_Send(b, longn, MPI_BYTE, peer, 1, comm));
    /* The follow-up that must still arrive intact after the error. */
    tl_fill(b, (size_t)okn, tl_rank(), base + 2);
    CHECK_MPI(MPI_Send(b, okn, MPI_BYTE, peer, 1, comm));
    free(b);
}

static void receiver(int kind, int method)
{
    static const char *names[] = {"MPI_Recv", "MPI_Irecv+MPI_Wait",
                                  "MPI_Irecv+MPI_Test", "MPI_Irecv+MPI_Waitall"};
    int longn = kinds[kind].longn, shortn = kinds[kind].shortn,
        okn = kinds[kind].okn;
    long base = kind * 100 + method * 10;
    const char *how = names[method];
    unsigned char *buf = tl_malloc((size_t)shortn + GUARD);
    memset(buf, GUARD_BYTE, (size_t)shortn + GUARD);
    MPI_Status st;
    MPI_Request req;
    int rc = MPI_SUCCESS;

    if (method == 0) {
        rc = MPI_Recv(buf, shortn, MPI_BYTE, peer, 1, comm, &st);
    } else if (method == 1) {
        CHECK_MPI(MPI_Irecv(buf, shortn, MPI_BYTE, peer, 1, comm, &req));
        rc = MPI_Wait(&req, &st);
        CHECK(req == MPI_REQUEST_NULL,
              "%s: the request must be freed (MPI_REQUEST_NULL) even though "
              "it completed with an error",
              how);
    } else if (method == 2) {
        int flag = 0;
        CHECK_MPI(MPI_Irecv(buf, shortn, MPI_BYTE, peer, 1, comm, &req));
        double t0 = tl_now();
        do {
            rc = MPI_Test(&req, &flag, &st);
            CHECK(flag || rc == MPI_SUCCESS,
                  "%s: an incomplete test must return MPI_SUCCESS, got %s",
                  how, tl_errstr(rc));
            CHECK(flag || tl_now() - t0 < 10, "%s: never completed in 10 s",
                  how);
        } while (!flag);
    } else {
        MPI_Request reqs[2];
        MPI_Status sts[2];
        unsigned char *ok = tl_malloc((size_t)okn);
        sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
        CHECK_MPI(MPI_Irecv(ok, okn, MPI_BYTE, peer, 1, comm, &reqs[0]));
        CHECK_MPI(MPI_Irecv(buf, shortn, MPI_BYTE, peer, 1, comm, &reqs[1]));
        rc = MPI_Waitall(2, reqs, sts);
        CHECK(tl_class(rc) == MPI_ERR_IN_STATUS,
              "%s with one truncated receive must return an error of class "
              "MPI_ERR_IN_STATUS (%d), got %s",
              how, MPI_ERR_IN_STATUS, tl_errstr(rc));
        CHECK(sts[0].MPI_ERROR == MPI_SUCCESS,
              "%s: the status of the receive that fit must have MPI_ERROR "
              "MPI_SUCCESS, got %d",
              how, sts[0].MPI_ERROR);
        CHECK(tl_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
              "%s: the truncated receive's status must have MPI_ERROR of "
              "class MPI_ERR_TRUNCATE (%d), got %s",
              how, MPI_ERR_TRUNCATE, tl_errstr(sts[1].MPI_ERROR));
        CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
              "%s: both completed requests must be MPI_REQUEST_NULL", how);
        CHECK_STATUS(sts[0], peer, 1, okn, "%s: the receive that fit", how);
        CHECK_PATTERN(ok, (size_t)okn, peer, base + 3,
                      "%s: the receive that fit", how);
        free(ok);
        rc = sts[1].MPI_ERROR;
        st = sts[1];
    }
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "%s of %d bytes into a %d-byte buffer must fail with class "
          "MPI_ERR_TRUNCATE (%d), got %s",
          how, longn, shortn, MPI_ERR_TRUNCATE, tl_errstr(rc));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 1,
          "%s: the truncated receive's status must still name source %d "
          "tag 1, got source %d tag %d",
          how, peer, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_FILLED(buf + shortn, GUARD, GUARD_BYTE,
                 "%s: memory past the %d-byte receive buffer", how, shortn);

    CHECK_MPI(MPI_Recv(buf, shortn, MPI_BYTE, peer, 1, comm, &st));
    CHECK_STATUS(st, peer, 1, okn,
                 "%s: the message sent after the truncated one must arrive "
                 "next",
                 how);
    CHECK_PATTERN(buf, (size_t)okn, peer, base + 2,
                  "%s: message after the truncated one", how);
    free(buf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    peer = tl_partner();
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

    for (int method = 0; peer != MPI_PROC_NULL && method < 4; method++)
        for (int kind = 0; kind < NKINDS; kind++) {
            if (method == 1)
                CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD,
                                               MPI_ERRORS_RETURN));
            if (me < peer)
                sender(kind, method);
            else
                receiver(kind, method);
        }

    /* The world communicator, unaffected, still carries traffic. */
    if (peer == MPI_PROC_NULL) {
        /* sits out */
    } else if (me < peer) {
        unsigned char b[32];
        tl_fill(b, sizeof b, me, 999);
        CHECK_MPI(MPI_Send(b, 32, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
    } else {
        unsigned char b[32];
        MPI_Status st;
        CHECK_MPI(MPI_Recv(b, 32, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 1, 32, "world message after the truncations");
        CHECK_PATTERN(b, 32, peer, 999,
                      "world message after the truncations");
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
