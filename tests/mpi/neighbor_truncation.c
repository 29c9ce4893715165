/* neighbor_truncation: a neighbourhood collective whose blocks are longer
 * than the receive blocks reports MPI_ERR_TRUNCATE where it is detected,
 * through the request of a nonblocking or persistent form, and leaves the
 * communicator usable.
 *
 * Such a program is erroneous (MPI-4.1 §6.1: the amounts sent and received
 * must match), and MPI does not oblige an implementation to detect it:
 * MPICH 4.0.2 returns MPI_SUCCESS from every neighbourhood collective
 * here.  Where it is detected, MPI's rules for errors apply: MPI_Wait
 * returns the error (class MPI_ERR_TRUNCATE) through the communicator's
 * error handler, MPI_Waitall returns MPI_ERR_IN_STATUS with the request's
 * status holding it and the other statuses MPI_SUCCESS.  Omnibus detects
 * it when it runs the collective by its schedule: under
 * OMNIBUS_NEIGHBOR=combine or grid, and under auto (or unset) where auto
 * combines, which this test knows only for its own job on one node with
 * the default topology: a core per rank.  There the error is required;
 * otherwise success or MPI_ERR_TRUNCATE are both accepted, and nothing
 * else.  Each truncated run is followed by a correct one on the same
 * communicator, whose results must be right.  The graph is a 2-D Moore
 * torus (relays under the dimension-ordered schedule); blocks of 4 ints
 * sent, 2 expected.
 */
#include "testlib.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

static int deg, nb[8];
static int detects;     /* Omnibus runs the collectives by a schedule */

static void check_error(int rc, const char *what)
{
    int cls = tl_class(rc);
    if (detects)
        CHECK(cls == MPI_ERR_TRUNCATE,
              "%s: blocks of 4 ints into blocks of 2 must give "
              "MPI_ERR_TRUNCATE where the truncation is detected, got %s",
              what, tl_errstr(rc));
    else
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE,
              "%s: a truncated neighbourhood collective may pass undetected "
              "or give MPI_ERR_TRUNCATE, nothing else; got %s", what,
              tl_errstr(rc));
}

static int env_is(const char *var, const char *value)
{
    const char *v = getenv(var);
    return v && strcmp(v, value) == 0;
}

static int cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Whether Omnibus runs this job's neighbourhood collectives by a schedule:
 * OMNIBUS_NEIGHBOR (docs/configuration.md), with auto's rule for one node (the
 * runner's jobs) under the default topology, which is one hop there. */
static int omnibus_schedules(void)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre || !strstr(pre, "omnibus") || env_is("OMNIBUS_DISABLE", "1"))
        return 0;
    if (env_is("OMNIBUS_NEIGHBOR", "combine") ||
        env_is("OMNIBUS_NEIGHBOR", "grid"))
        return 1;
    const char *mode = getenv("OMNIBUS_NEIGHBOR");
    const char *topo = getenv("OMNIBUS_TOPOLOGY");
    int automatic = !mode || strcmp(mode, "auto") == 0;
    int default_grid = (!topo || strcmp(topo, "auto") == 0) &&
                       !getenv("OMNIBUS_FAKE_NODES");
    return automatic && default_grid && tl_size() <= cores();
}

/* A correct alltoall afterwards: the communicator still works. */
static void still_works(MPI_Comm g, const char *after)
{
    int me = tl_rank(), sb[8], rb[8], ref[8];
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(g, &dup));
    for (int k = 0; k < deg; k++)
        sb[k] = 100 * me + k;
    CHECK_MPI(MPI_Neighbor_alltoall(sb, 1, MPI_INT, ref, 1, MPI_INT, dup));
    CHECK_MPI(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, g));
    for (int j = 0; j < deg; j++)
        CHECK(rb[j] == ref[j],
              "after %s, a correct alltoall on the same communicator must "
              "deliver: slot %d holds %d, %d expected", after, j, rb[j], ref[j]);
    CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    detects = omnibus_schedules();
    int me = tl_rank(), n = tl_size();
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(n, 2, dims));
    int cx = me / dims[1], cy = me % dims[1];
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            if (dx || dy)
                nb[deg++] = ((cx + dx + dims[0]) % dims[0]) * dims[1] +
                            (cy + dy + dims[1]) % dims[1];
    MPI_Comm g;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, nb,
                                          MPI_UNWEIGHTED, deg, nb,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    int sb[32], rb[64];
    for (int i = 0; i < 32; i++)
        sb[i] = i;

    /* Nonblocking, MPI_Wait. */
    MPI_Request r;
    CHECK_MPI(MPI_Ineighbor_alltoall(sb, 4, MPI_INT, rb, 2, MPI_INT, g, &r));
    check_error(MPI_Wait(&r, MPI_STATUS_IGNORE),
                "MPI_Ineighbor_alltoall then MPI_Wait");
    still_works(g, "a truncated MPI_Ineighbor_alltoall");

    /* Nonblocking, MPI_Waitall with another request. */
    MPI_Request two[2];
    MPI_Status st[2];
    int other = 0;
    CHECK_MPI(MPI_Ineighbor_allgather(sb, 4, MPI_INT, rb, 2, MPI_INT, g, &two[0]));
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &two[1]));
    st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
    int rc = MPI_Waitall(2, two, st);
    (void)other;
    if (detects) {
        CHECK(rc == MPI_ERR_IN_STATUS && tl_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE &&
                  st[1].MPI_ERROR == MPI_SUCCESS,
              "MPI_Waitall over a truncated MPI_Ineighbor_allgather and an "
              "MPI_Ibarrier must return MPI_ERR_IN_STATUS with the "
              "collective's status MPI_ERR_TRUNCATE and the barrier's "
              "MPI_SUCCESS; got %s, statuses %d and %d", tl_errstr(rc),
              tl_class(st[0].MPI_ERROR), st[1].MPI_ERROR);
    } else {
        CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS,
              "MPI_Waitall over a truncated MPI_Ineighbor_allgather: success "
              "or MPI_ERR_IN_STATUS, got %s", tl_errstr(rc));
    }
    still_works(g, "a truncated MPI_Ineighbor_allgather");

    /* Persistent, started twice: every run reports it. */
    CHECK_MPI(MPI_Neighbor_alltoall_init(sb, 4, MPI_INT, rb, 2, MPI_INT, g,
                                      MPI_INFO_NULL, &r));
    for (int round = 0; round < 2; round++) {
        CHECK_MPI(MPI_Start(&r));
        check_error(MPI_Wait(&r, MPI_STATUS_IGNORE),
                    round ? "MPI_Neighbor_alltoall_init, second start"
                          : "MPI_Neighbor_alltoall_init, first start");
        still_works(g, "a truncated persistent alltoall");
    }
    CHECK_MPI(MPI_Request_free(&r));

    /* Blocking: the error comes back from the call. */
    check_error(MPI_Neighbor_alltoall(sb, 4, MPI_INT, rb, 2, MPI_INT, g),
                "MPI_Neighbor_alltoall");
    still_works(g, "a truncated MPI_Neighbor_alltoall");

    CHECK_MPI(MPI_Comm_free(&g));
    return tl_finalize();
}
