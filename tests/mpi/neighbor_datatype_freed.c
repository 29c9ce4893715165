/* neighbor_datatype_freed: a program may free the datatypes of a
 * nonblocking or persistent neighbourhood collective as soon as the call
 * that takes them returns; the runs still use them.
 *
 * MPI-4.1 §5.1.9: "any communication that is currently using this datatype
 * will complete normally", and a persistent request keeps using its
 * arguments at every start.  Here MPI_Ineighbor_alltoall, _allgather and
 * _alltoallw and their _init forms get a strided vector type (every other
 * int) that is freed right after the call; the nonblocking runs are then
 * waited for, the persistent ones started ROUNDS times.  The graph is a
 * 2-D Moore torus on a row-major grid of the ranks, so that under Omnibus's
 * dimension-ordered schedule a rank packs its own blocks into later-phase
 * messages after the call has returned.  Every element must equal what the
 * same collective gives with contiguous MPI_INT blocks (blocking, types
 * never freed), and no gap between elements may change.  Blocks of 3 ints
 * and of 700 (past the aggregation threshold) are both run.
 */
#include "testlib.h"

#define ROUNDS 3
#define GAP (-7)

enum kind { A2A, AG, A2AW, NKINDS };
static const char *kind_name[] = {"alltoall", "allgather", "alltoallw"};

static int deg;         /* 8: in- and out-degree of the Moore torus */
static int nb[8];

/* Every other int, e of them: extent 2e-1 ints. */
static MPI_Datatype strided(int e)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_vector(e, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static int value(int me, int k, int e, int round)
{
    return 1000000 * round + 10000 * me + 100 * k + e % 100;
}

/* The send block for destination k (allgather: one block, k = 0). */
static void fill_send(int *dense, int *strided_buf, int nblk, int e, int round)
{
    int me = tl_rank(), ext = 2 * e - 1;
    for (int k = 0; k < nblk; k++)
        for (int i = 0; i < e; i++) {
            dense[k * e + i] = value(me, k, i, round);
            strided_buf[k * ext + 2 * i] = value(me, k, i, round);
            if (i + 1 < e)
                strided_buf[k * ext + 2 * i + 1] = GAP;
        }
}

/* Runs kind k blocking on contiguous ints: the reference. */
static void reference(MPI_Comm g, enum kind k, int e, const int *send, int *recv)
{
    if (k == A2A) {
        CHECK_MPI(MPI_Neighbor_alltoall(send, e, MPI_INT, recv, e, MPI_INT, g));
    } else if (k == AG) {
        CHECK_MPI(MPI_Neighbor_allgather(send, e, MPI_INT, recv, e, MPI_INT, g));
    } else {
        int cnt[8];
        MPI_Aint dsp[8];
        MPI_Datatype ty[8];
        for (int j = 0; j < deg; j++) {
            cnt[j] = e;
            dsp[j] = (MPI_Aint)j * e * (MPI_Aint)sizeof(int);
            ty[j] = MPI_INT;
        }
        CHECK_MPI(MPI_Neighbor_alltoallw(send, cnt, dsp, ty, recv, cnt, dsp, ty, g));
    }
}

/* Starts kind k with strided types, nonblocking or persistent, and frees
 * the types before returning. */
static void start_strided(MPI_Comm g, enum kind k, int e, int persistent,
                          const int *send, int *recv, MPI_Request *r)
{
    MPI_Datatype t = strided(e);
    MPI_Aint ext = (MPI_Aint)(2 * e - 1) * (MPI_Aint)sizeof(int);
    if (k == A2A) {
        if (persistent)
            CHECK_MPI(MPI_Neighbor_alltoall_init(send, 1, t, recv, 1, t, g,
                                              MPI_INFO_NULL, r));
        else
            CHECK_MPI(MPI_Ineighbor_alltoall(send, 1, t, recv, 1, t, g, r));
        CHECK_MPI(MPI_Type_free(&t));
        return;
    }
    if (k == AG) {
        if (persistent)
            CHECK_MPI(MPI_Neighbor_allgather_init(send, 1, t, recv, 1, t, g,
                                               MPI_INFO_NULL, r));
        else
            CHECK_MPI(MPI_Ineighbor_allgather(send, 1, t, recv, 1, t, g, r));
        CHECK_MPI(MPI_Type_free(&t));
        return;
    }
    /* alltoallw: a type of its own per slot, all freed */
    int cnt[8];
    MPI_Aint dsp[8];
    MPI_Datatype st[8], rt[8];
    for (int j = 0; j < deg; j++) {
        cnt[j] = 1;
        dsp[j] = (MPI_Aint)j * ext;
        CHECK_MPI(MPI_Type_dup(t, &st[j]));
        CHECK_MPI(MPI_Type_dup(t, &rt[j]));
    }
    CHECK_MPI(MPI_Type_free(&t));
    if (persistent)
        CHECK_MPI(MPI_Neighbor_alltoallw_init(send, cnt, dsp, st, recv, cnt, dsp,
                                           rt, g, MPI_INFO_NULL, r));
    else
        CHECK_MPI(MPI_Ineighbor_alltoallw(send, cnt, dsp, st, recv, cnt, dsp, rt,
                                       g, r));
    for (int j = 0; j < deg; j++) {
        CHECK_MPI(MPI_Type_free(&st[j]));
        CHECK_MPI(MPI_Type_free(&rt[j]));
    }
}

static void compare(const int *ref, const int *got, int e, enum kind k,
                    int persistent, int round)
{
    int ext = 2 * e - 1;
    for (int j = 0; j < deg; j++)
        for (int i = 0; i < ext; i++) {
            int want = i % 2 ? GAP : ref[j * e + i / 2];
            CHECK(got[j * ext + i] == want,
                  "%s %s, %d ints per block, round %d, types freed after the "
                  "call: source slot %d int %d must be %d (%s), got %d",
                  persistent ? "persistent" : "nonblocking", kind_name[k], e,
                  round, j, i, want, i % 2 ? "a gap the type skips" : "sent",
                  got[j * ext + i]);
        }
}

static void run(MPI_Comm g, enum kind k, int e, int persistent)
{
    int ext = 2 * e - 1, nblk = k == AG ? 1 : deg;
    int *dense = tl_malloc(sizeof(int) * (size_t)(deg * e));
    int *sbuf = tl_malloc(sizeof(int) * (size_t)(deg * ext));
    int *ref = tl_malloc(sizeof(int) * (size_t)(deg * e));
    int *rbuf = tl_malloc(sizeof(int) * (size_t)(deg * ext));
    MPI_Request r = MPI_REQUEST_NULL;
    if (persistent)
        start_strided(g, k, e, 1, sbuf, rbuf, &r);
    for (int round = 0; round < (persistent ? ROUNDS : 1); round++) {
        fill_send(dense, sbuf, nblk, e, round);
        for (int i = 0; i < deg * ext; i++)
            rbuf[i] = GAP;
        reference(g, k, e, dense, ref);
        if (persistent)
            CHECK_MPI(MPI_Start(&r));
        else
            start_strided(g, k, e, 0, sbuf, rbuf, &r);
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        compare(ref, rbuf, e, k, persistent, round);
    }
    if (persistent)
        CHECK_MPI(MPI_Request_free(&r));
    free(dense), free(sbuf), free(ref), free(rbuf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), n = tl_size();
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(n, 2, dims));
    int cx = me / dims[1], cy = me % dims[1];
    deg = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            if (dx || dy)
                nb[deg++] = ((cx + dx + dims[0]) % dims[0]) * dims[1] +
                            (cy + dy + dims[1]) % dims[1];
    MPI_Comm g;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, nb,
                                          MPI_UNWEIGHTED, deg, nb,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    int sizes[2] = {3, 700};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < NKINDS; k++)
            for (int persistent = 0; persistent < 2; persistent++)
                run(g, (enum kind)k, sizes[s], persistent);
    CHECK_MPI(MPI_Comm_free(&g));
    return tl_finalize();
}
