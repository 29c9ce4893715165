/* waitall_reports_every_error: one MPI_Waitall reports the error of every
 * request that failed, however many.
 *
 * MPI 4.1 §3.7.5 and §3.7.3: when one or more of the requests of a
 * multiple completion fail, MPI_Waitall returns MPI_ERR_IN_STATUS and sets
 * each status's MPI_ERROR (MPI_SUCCESS for those that did not fail).  Each
 * rank starts 40 MPI_Isendrecv ring shifts whose receive buffer is one byte
 * short, so every receive is truncated, and completes them with one
 * MPI_Waitall under MPI_ERRORS_RETURN: each of the 40 must report
 * MPI_ERR_TRUNCATE, in its status or, where MPI_Waitall left it pending
 * (MPI_ERR_PENDING, which MPI allows for a request that had not completed
 * when another failed), from the MPI_Wait that completes it.  (Omnibus
 * runs MPI_Isendrecv itself and reports its errors through one ledger; it
 * once kept only the first 16.)  MPICH
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
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    unsigned char s[N][LEN], r[N][LEN];
    MPI_Request req[N];
    MPI_Status st[N];
    for (int i = 0; i < N; i++) {
        tl_fill(s[i], LEN, me, i);
        CHECK_MPI(MPI_Isendrecv(s[i], LEN, MPI_BYTE, right, 7, r[i], LEN - 1,
                             MPI_BYTE, left, 7, MPI_COMM_WORLD, &req[i]));
    }
    for (int i = 0; i < N; i++)
        st[i].MPI_ERROR = -1;
    int rc = MPI_Waitall(N, req, st);
    if (!tl_omnibus_active() && rc == MPI_SUCCESS) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        return tl_finalize();
    }
    CHECK(tl_class(rc) == MPI_ERR_IN_STATUS,
          "MPI_Waitall over %d truncated receives must return "
          "MPI_ERR_IN_STATUS, got %s", N, tl_errstr(rc));
    /* MPI leaves a request that has neither failed nor completed pending
     * (MPI_ERR_PENDING in its status, the request still allocated);
     * completing it later must still report its error. */
    int reported = 0;
    for (int i = 0; i < N; i++) {
        int cls = tl_class(st[i].MPI_ERROR);
        if (cls == MPI_ERR_PENDING) {
            CHECK(req[i] != MPI_REQUEST_NULL,
                  "a request left pending (status %d: MPI_ERR_PENDING) must "
                  "stay allocated", i);
            MPI_Status later;
            cls = tl_class(MPI_Wait(&req[i], &later));
        } else {
            CHECK(req[i] == MPI_REQUEST_NULL,
                  "a completed request must become MPI_REQUEST_NULL "
                  "(request %d)", i);
        }
        CHECK(cls == MPI_ERR_TRUNCATE,
              "request %d's truncated receive must be reported as "
              "MPI_ERR_TRUNCATE, by MPI_Waitall's status or by the MPI_Wait "
              "that completes it if MPI_Waitall left it pending; got class "
              "%d (%d requests reported before it)", i, cls, reported);
        reported++;
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
