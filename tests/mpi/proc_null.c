/* proc_null: communication with MPI_PROC_NULL completes at once and does
 * nothing.
 *
 * MPI 4.1 §3.11: a send to MPI_PROC_NULL succeeds and returns as soon as
 * possible (in every mode, synchronous included); a receive from
 * MPI_PROC_NULL succeeds at once without touching the buffer, and its
 * status has MPI_SOURCE = MPI_PROC_NULL, MPI_TAG = MPI_ANY_TAG and count 0.
 * Probes of MPI_PROC_NULL succeed at once with that same status.  Requests
 * to or from MPI_PROC_NULL are ordinary requests in the completion calls.
 * None of this disturbs real traffic.
 *
 * MPICH 4.0.2 departs from §3.11 for nonblocking receives from
 * MPI_PROC_NULL: their completed status reports source 0 and tag 0 (the
 * blocking MPI_Recv and the probes are right).  Those statuses are checked
 * for count 0 only, so the test holds for MPICH and for the standard.
 */
#include "testlib.h"

#define N 100

static void check_null_status(const MPI_Status *st, const char *what)
{
    CHECK_STATUS(*st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "%s", what);
    int e = -5;
    CHECK_MPI(MPI_Get_elements(st, MPI_INT, &e));
    CHECK(e == 0, "%s: MPI_Get_elements must be 0, got %d", what, e);
}

/* For nonblocking receives: see the MPICH 4.0.2 note above. */
static void check_null_count(const MPI_Status *st, const char *what)
{
    int c = -5, e = -5;
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &c));
    CHECK_MPI(MPI_Get_elements(st, MPI_INT, &e));
    CHECK(c == 0 && e == 0,
          "%s: count and elements must be 0, got %d and %d", what, c, e);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    unsigned char sb[N], rb[N];
    MPI_Status st;
    MPI_Request req, reqs[4];
    int flag;

    tl_fill(sb, N, me, 0);
    memset(rb, 0x77, N);

    CHECK_MPI(MPI_Send(sb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(sb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(sb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));

    CHECK_MPI(MPI_Recv(rb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Recv from MPI_PROC_NULL");
    CHECK_FILLED(rb, N, 0x77, "buffer of MPI_Recv from MPI_PROC_NULL");

    CHECK_MPI(MPI_Recv(rb, N, MPI_BYTE, MPI_PROC_NULL, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Recv(MPI_PROC_NULL, MPI_ANY_TAG)");

    CHECK_MPI(MPI_Irecv(rb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    CHECK(req != MPI_REQUEST_NULL,
          "MPI_Irecv from MPI_PROC_NULL must return a real request");
    CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK(flag, "an MPI_Irecv from MPI_PROC_NULL must test complete at once");
    check_null_count(&st, "MPI_Irecv+MPI_Test from MPI_PROC_NULL");
    CHECK(req == MPI_REQUEST_NULL, "the completed request must be freed");
    CHECK_FILLED(rb, N, 0x77, "buffer of MPI_Irecv from MPI_PROC_NULL");

    CHECK_MPI(MPI_Isend(sb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait must free the request");

    CHECK_MPI(MPI_Issend(sb, N, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "an MPI_Issend to MPI_PROC_NULL must test complete at once");

    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "MPI_Probe(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL) must return true at once");
    check_null_status(&st, "MPI_Iprobe(MPI_PROC_NULL)");

    /* PROC_NULL requests mixed with a real exchange, in one Waitall. */
    int right = (me + 1) % size, left = (me + size - 1) % size;
    unsigned char realr[N];
    MPI_Status sts[4];
    CHECK_MPI(MPI_Irecv(rb, N, MPI_BYTE, MPI_PROC_NULL, 2, MPI_COMM_WORLD,
                     &reqs[0]));
    CHECK_MPI(MPI_Irecv(realr, N, MPI_BYTE, left, 2, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Isend(sb, N, MPI_BYTE, MPI_PROC_NULL, 2, MPI_COMM_WORLD,
                     &reqs[2]));
    CHECK_MPI(MPI_Isend(sb, N, MPI_BYTE, right, 2, MPI_COMM_WORLD, &reqs[3]));
    CHECK_MPI(MPI_Waitall(4, reqs, sts));
    check_null_count(&sts[0], "MPI_PROC_NULL receive in MPI_Waitall");
    CHECK_STATUS(sts[1], left, 2, N, "real receive next to MPI_PROC_NULL ones");
    CHECK_PATTERN(realr, N, left, 0, "real receive next to MPI_PROC_NULL ones");
    CHECK_FILLED(rb, N, 0x77, "buffer of the MPI_PROC_NULL receive");

    /* A real message with tag 1 from the left must not have been consumed
     * or confused by any of the MPI_PROC_NULL receives above. */
    CHECK_MPI(MPI_Sendrecv(sb, N, MPI_BYTE, right, 1, realr, N, MPI_BYTE,
                        MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, left, 1, N, "real message after MPI_PROC_NULL traffic");
    CHECK_PATTERN(realr, N, left, 0, "real message after MPI_PROC_NULL traffic");
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag,
          "no message must be left over after the MPI_PROC_NULL sends, found "
          "source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    return tl_finalize();
}
