/* waitall_reports_every_error: one MPI_Waitall reports the error of every
 * request that failed, however many.
 *
 * MPI 4.1 §3.7.5 and §3.7.3: when one or more of the requests of a
 * multiple completion fail, MPI_Waitall returns MPI_ERR_IN_STATUS and sets
 * each status's MPI_ERROR (MPI_SUCCESS for those that did not fail).  Each
 * rank starts 40 MPI_Isendrecv ring shifts whose receive buffer is one byte
 * short, so every receive is truncated, and completes them with one
 * MPI_Waitall under MPI_ERRORS_RETURN: all 40 statuses must say
 * MPI_ERR_TRUNCATE.  (Omnibus runs MPI_Isendrecv itself and reports its
 * errors through one ledger; it once kept only the first 16.)  MPICH
 * 4.0.2 itself loses an MPI_Isendrecv's receive error (its MPI_Waitall
 * returns MPI_SUCCESS here), so without Omnibus the test accepts that too:
 * every test must also pass with OMNIBUS_DISABLE=1.
 */
#include "testlib.h"

#define N 40
#define LEN 24


int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), n = tl_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    unsigned char s[N][LEN], r[N][LEN];
    MPI_Request req[N];
    MPI_Status st[N];
    for (int i = 0; i < N; i++) {
        tl_fill(s[i], LEN, me, i);
        MPI_OK(MPI_Isendrecv(s[i], LEN, MPI_BYTE, right, 7, r[i], LEN - 1,
                             MPI_BYTE, left, 7, MPI_COMM_WORLD, &req[i]));
    }
    for (int i = 0; i < N; i++)
        st[i].MPI_ERROR = -1;
    int rc = MPI_Waitall(N, req, st);
    if (!tl_omnibus_active() && rc == MPI_SUCCESS) {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        return tl_finalize();
    }
    CHECK(tl_class(rc) == MPI_ERR_IN_STATUS,
          "MPI_Waitall over %d truncated receives must return "
          "MPI_ERR_IN_STATUS, got %s", N, tl_errstr(rc));
    int wrong = 0, first = -1;
    for (int i = 0; i < N; i++)
        if (tl_class(st[i].MPI_ERROR) != MPI_ERR_TRUNCATE && wrong++ == 0)
            first = i;
    CHECK(wrong == 0,
          "every one of the %d statuses must carry MPI_ERR_TRUNCATE, but %d "
          "do not (the first is status %d: %s)", N, wrong, first,
          first >= 0 ? tl_errstr(st[first].MPI_ERROR) : "");
    for (int i = 0; i < N; i++)
        CHECK(req[i] == MPI_REQUEST_NULL,
              "a completed request must become MPI_REQUEST_NULL (request %d)",
              i);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
