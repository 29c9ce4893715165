/* neighbor_mixed_traffic: neighbourhood collectives neither see nor
 * disturb point-to-point traffic on the same communicator, several
 * collectives may be in flight at once, and a communicator may be freed
 * while one is.
 *
 * MPI-4.1 §6.12 and §8.6: collective and point-to-point traffic on one
 * communicator never match each other (a wildcard receive posted before a
 * collective still gets the point-to-point message sent after it);
 * nonblocking collectives on one communicator match in the order they are
 * started, whatever order they complete in; their requests work in every
 * completion call next to other requests; MPI_Comm_free with an operation
 * pending lets it complete normally (§7.4.3); a duplicate of a topology
 * communicator has the same neighbours.  Checked on a ring with chords
 * (distributed graph) and a periodic Cartesian ring.
 */
#include "testlib.h"

#define ROUNDS 20

static int ring(int r, int n)
{
    return (r % n + n) % n;
}

/* The value rank `src` sends on its k-th edge in round `round` of
 * collective `which`. */
static int val(int src, int k, int round, int which)
{
    return src * 100000 + k * 1000 + round * 10 + which;
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), n = tl_size();

    /* destinations: right, left, two to the right (repeats at small n) */
    int out[3] = {ring(me + 1, n), ring(me - 1, n), ring(me + 2, n)};
    int in[3] = {ring(me - 1, n), ring(me + 1, n), ring(me - 2, n)};
    MPI_Comm g, cart, gdup;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED,
                                          3, out, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                          0, &g));
    int dims[1] = {n}, per[1] = {1};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart));
    CHECK_MPI(MPI_Comm_dup(g, &gdup));

    for (int round = 0; round < ROUNDS; round++) {
        /* 1. A wildcard receive posted before the collectives, on g. */
        int got = -1;
        MPI_Request any;
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, g, &any));

        /* 2. Two alltoalls in flight on g, one allgather on cart, one on
         *    the duplicate, started in this order everywhere. */
        int s1[3], s2[3], r1[3], r2[3], rc[2], rd[3], sc = val(me, 9, round, 3);
        for (int k = 0; k < 3; k++) {
            s1[k] = val(me, k, round, 1);
            s2[k] = val(me, k, round, 2);
        }
        memset(r1, -1, sizeof r1);
        memset(r2, -1, sizeof r2);
        memset(rc, -1, sizeof rc);
        memset(rd, -1, sizeof rd);
        MPI_Request req[5];
        CHECK_MPI(MPI_Ineighbor_alltoall(s1, 1, MPI_INT, r1, 1, MPI_INT, g, &req[0]));
        CHECK_MPI(MPI_Ineighbor_alltoall(s2, 1, MPI_INT, r2, 1, MPI_INT, g, &req[1]));
        CHECK_MPI(MPI_Ineighbor_allgather(&sc, 1, MPI_INT, rc, 1, MPI_INT, cart, &req[2]));
        CHECK_MPI(MPI_Ineighbor_allgather(&sc, 1, MPI_INT, rd, 1, MPI_INT, gdup, &req[3]));

        /* 3. Point-to-point on g with the tags a schedule might use. */
        int mine = val(me, 7, round, 0);
        CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, ring(me + 1, n), round % 3, g));
        req[4] = any;

        /* 4. Complete them in a mixed array, some by Testany first. */
        int idx, flag = 0;
        for (int t = 0; t < 3 && !flag; t++)
            CHECK_MPI(MPI_Testany(5, req, &idx, &flag, MPI_STATUS_IGNORE));
        MPI_Status st[5];
        CHECK_MPI(MPI_Waitall(5, req, st));

        CHECK(got == val(ring(me - 1, n), 7, round, 0),
              "round %d: a wildcard receive posted before the collectives must "
              "get the point-to-point message from %d (%d), got %d", round,
              ring(me - 1, n), val(ring(me - 1, n), 7, round, 0), got);
        /* alltoall: slot j gets the edge of in[j] that points at me; with
         * repeated sources (n <= 4), MPICH pairs them from the end. */
        for (int j = 0; j < 3; j++) {
            int src = in[j];
            /* the edges of src that point at me, in src's order */
            int e[3], ne = 0;
            int so[3] = {ring(src + 1, n), ring(src - 1, n), ring(src + 2, n)};
            for (int k = 0; k < 3; k++)
                if (so[k] == me)
                    e[ne++] = k;
            /* my slots naming src, in list order */
            int sl[3], ns = 0;
            for (int q = 0; q < 3; q++)
                if (in[q] == src)
                    sl[ns++] = q;
            int pos = 0;
            while (sl[pos] != j)
                pos++;
            int k = e[ns - 1 - pos];
            CHECK(r1[j] == val(src, k, round, 1) && r2[j] == val(src, k, round, 2),
                  "round %d: alltoall slot %d must hold edge %d of rank %d from "
                  "each of the two collectives in start order (%d, %d), got "
                  "(%d, %d)", round, j, k, src, val(src, k, round, 1),
                  val(src, k, round, 2), r1[j], r2[j]);
            CHECK(rd[j] == val(src, 9, round, 3),
                  "round %d: allgather on the duplicate, slot %d must hold rank "
                  "%d's value %d, got %d", round, j, src, val(src, 9, round, 3),
                  rd[j]);
        }
        int lo = ring(me - 1, n), hi = ring(me + 1, n);
        CHECK(rc[0] == val(lo, 9, round, 3) && rc[1] == val(hi, 9, round, 3),
              "round %d: Cartesian allgather must hold (rank %d, rank %d) = "
              "(%d, %d), got (%d, %d)", round, lo, hi, val(lo, 9, round, 3),
              val(hi, 9, round, 3), rc[0], rc[1]);
    }

    /* 5. A persistent collective, started on every round, then freed. */
    int ps, pr[2];
    MPI_Request p;
    CHECK_MPI(MPI_Neighbor_allgather_init(&ps, 1, MPI_INT, pr, 1, MPI_INT, cart,
                                       MPI_INFO_NULL, &p));
    for (int round = 0; round < 5; round++) {
        ps = val(me, 5, round, 4);
        CHECK_MPI(MPI_Start(&p));
        /* next to a send and a receive of another communicator */
        MPI_Request three[3] = {MPI_REQUEST_NULL, p, MPI_REQUEST_NULL};
        int x = me, y = -1;
        CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &three[0]));
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &three[2]));
        CHECK_MPI(MPI_Waitall(3, three, MPI_STATUSES_IGNORE));
        p = three[1];
        CHECK(y == me, "a self-message completed next to a persistent "
                       "collective must arrive: got %d, expected %d", y, me);
        int lo = ring(me - 1, n), hi = ring(me + 1, n);
        CHECK(pr[0] == val(lo, 5, round, 4) && pr[1] == val(hi, 5, round, 4),
              "persistent allgather, start %d: expected (%d, %d), got (%d, %d)",
              round, val(lo, 5, round, 4), val(hi, 5, round, 4), pr[0], pr[1]);
    }
    CHECK_MPI(MPI_Request_free(&p));

    /* 6. Free a communicator with a collective still in flight. */
    int fs[3] = {val(me, 0, 99, 6), val(me, 1, 99, 6), val(me, 2, 99, 6)};
    int fr[3] = {-1, -1, -1};
    MPI_Request fq;
    CHECK_MPI(MPI_Ineighbor_alltoall(fs, 1, MPI_INT, fr, 1, MPI_INT, gdup, &fq));
    CHECK_MPI(MPI_Comm_free(&gdup));
    CHECK_MPI(MPI_Wait(&fq, MPI_STATUS_IGNORE));
    for (int j = 0; j < 3; j++)
        CHECK(fr[j] != -1 && fr[j] / 100000 == in[j],
              "a collective pending at MPI_Comm_free must complete normally: "
              "slot %d holds %d, expected a value from rank %d", j, fr[j], in[j]);

    CHECK_MPI(MPI_Comm_free(&g));
    CHECK_MPI(MPI_Comm_free(&cart));
    return tl_finalize();
}
