/* more_constructors: traffic on communicators from the graph, distributed
 * graph, create_group and idup constructors.
 *
 * MPI 4.1 §7 and §8: each constructor gives a communicator with its own
 * matching context; ranks are numbered within it.  On each, a ring shift of
 * a small and a large message with MPI_ANY_SOURCE receives checks content,
 * MPI_SOURCE in the communicator's numbering, and that traffic does not
 * mix with the same tags on MPI_COMM_WORLD.
 */
#include "testlib.h"

#define BIG 30000

static void ring(MPI_Comm c, const char *what)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    static unsigned char s[BIG], g[BIG], w[8];
    for (int k = 0; k < 2; k++) {
        size_t len = k ? BIG : 8;
        MPI_Request q[3];
        MPI_Status st;
        tl_fill(s, len, r, k);
        int wv = -1, me = tl_rank();
        CHECK_MPI(MPI_Irecv(g, BIG, MPI_BYTE, MPI_ANY_SOURCE, 4, c, &q[0]));
        CHECK_MPI(MPI_Irecv(&wv, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &q[1]));
        CHECK_MPI(MPI_Isend(s, (int)len, MPI_BYTE, right, 4, c, &q[2]));
        CHECK_MPI(MPI_Send(&me, 1, MPI_INT, (me + 1) % tl_size(), 4, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&q[0], &st));
        CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&q[2], MPI_STATUS_IGNORE));
        CHECK_STATUS(st, left, 4, (long)len, "%s: ring message %d", what, k);
        CHECK_PATTERN(g, len, left, k, "%s: ring message %d", what, k);
        CHECK(wv == (me + tl_size() - 1) % tl_size(),
              "%s: the world message with the same tag must come from world "
              "rank %d, got %d", what, (me + tl_size() - 1) % tl_size(), wv);
    }
    (void)w;
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), n = tl_size();
    MPI_Comm c;

    /* a graph: a ring, with reordering allowed */
    int *index = tl_malloc(sizeof(int) * (size_t)n);
    int *edges = tl_malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % n;
        edges[2 * i + 1] = (i + n - 1) % n;
    }
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &c));
    ring(c, "MPI_Graph_create");
    CHECK_MPI(MPI_Comm_free(&c));

    /* a distributed graph, adjacent form */
    int srcs[2] = {(me + n - 1) % n, (me + 1) % n}, dsts[2] = {(me + 1) % n, (me + n - 1) % n};
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED,
                                          2, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                          0, &c));
    ring(c, "MPI_Dist_graph_create_adjacent");
    CHECK_MPI(MPI_Comm_free(&c));

    /* a distributed graph, general form: each rank names its out-edge */
    int one = 1, out = (me + 1) % n;
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &one, &out,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    ring(c, "MPI_Dist_graph_create");
    CHECK_MPI(MPI_Comm_free(&c));

    /* create_group over the reversed world group */
    MPI_Group wg, rg;
    int *ranks = tl_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Group_incl(wg, n, ranks, &rg));
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, rg, 77, &c));
    ring(c, "MPI_Comm_create_group (reversed)");
    CHECK_MPI(MPI_Comm_free(&c));
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);

    /* idup: the communicator is usable once the request completes */
    MPI_Request q;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    ring(c, "MPI_Comm_idup");
    CHECK_MPI(MPI_Comm_free(&c));

    free(index);
    free(edges);
    free(ranks);
    return tl_finalize();
}
