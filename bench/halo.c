/* halo: the neighbourhood collective of a stencil code or sparse solver,
 * MPI_Neighbor_alltoall(v) on a distributed graph (Moore neighbourhoods and
 * random sparse graphs; docs/design/neighbourhood.md), or the same exchange
 * written with MPI_Isend/MPI_Irecv.
 *
 * Usage: halo [-g moore2d|moore3d|random] [-s bytes] [-n iterations]
 *             [-w warmup iterations] [-p percent] [-v] [-N] [-H]
 *   -g  moore2d: the 8 neighbours of a periodic 2-D grid of the ranks
 *       (MPI_Dims_create), moore3d: the 26 of a 3-D one (radius 1; on
 *       small grids neighbours repeat, as MPI allows); random: each ordered
 *       pair (i, j), i != j, is an edge with probability -p percent (the
 *       same graph on every rank, from a fixed seed)
 *   -s  bytes per neighbour, 8 .. 4M, a multiple of 8 (default 8)
 *   -n  timed collectives (default 2000; 200 when ranks outnumber cores)
 *   -w  untimed collectives first (default 100; 20 when oversubscribed)
 *   -p  random graph density in percent, 1 .. 100 (default 30)
 *   -v  MPI_Neighbor_alltoallv (counts and displacements per neighbour)
 *       instead of MPI_Neighbor_alltoall
 *   -N  the nonblocking form and MPI_Wait (MPI_Ineighbor_alltoall(v)), which
 *       is what Omnibus runs a blocking collective as: under plain MPICH it
 *       shows what the nonblocking form itself costs
 *   -H  MPI_Irecv from every source, MPI_Isend to every destination,
 *       MPI_Waitall: the exchange a programmer writes without the collective
 *
 * Every block carries (source, iteration) in each of its 8-byte words; each
 * received block is checked.  rate = microseconds per collective (the timed
 * loop between barriers, divided by -n).  The RESULT line also gives
 * degree= (edges per rank, mean), msgs= (messages per rank per collective
 * that one-message-per-edge sends: edges to other ranks, mean) and colls=
 * (collectives run, warm-up included), from which scripts/measure/bench computes
 * the messages Omnibus sent per rank per collective.
 */
#include "bench_common.h"

#define KERNEL "halo"
#define MAX_BYTES (4LL * 1024 * 1024)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        bench_fail(KERNEL, "out of memory");
    return p;
}

/* Neighbours of `me` at the offsets of {-1,0,1}^d \ {0} on a periodic grid,
 * in lexicographic order of the offsets; the sources are the same ranks,
 * since the neighbourhood is symmetric. */
static int moore(int d, int me, int size, int *out)
{
    int dims[3] = {0, 0, 0}, c[3], n = 0;
    MPI_Dims_create(size, d, dims);
    for (int i = d - 1, r = me; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
    int combos = d == 2 ? 9 : 27;
    for (int k = 0; k < combos; k++) {
        int off[3], r = k, zero = 1;
        for (int i = d - 1; i >= 0; i--) {
            off[i] = r % 3 - 1;
            r /= 3;
            zero &= off[i] == 0;
        }
        if (zero)
            continue;
        int q = 0;
        for (int i = 0; i < d; i++)
            q = q * dims[i] + (c[i] + off[i] + dims[i]) % dims[i];
        out[n++] = q;
    }
    return n;
}

static int edge(int i, int j, int percent)
{
    return i != j && bench_mix(((uint64_t)i << 32) ^ (uint64_t)j ^ 0x4a4c) % 100 <
                         (uint64_t)percent;
}

static uint64_t word(int src, long it)
{
    return ((uint64_t)(unsigned)src << 40) ^ (uint64_t)it;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_require_two_ranks(KERNEL);
    int me = bench_rank(), size = bench_size();
    const char *graph = "moore2d";
    long long bytes = 8, iters = -1, warm = -1, percent = 30;
    int vform = 0, hand = 0, nbform = 0;
    const char *usage = "[-g moore2d|moore3d|random] [-s bytes] [-n iterations] "
                        "[-w warmup] [-p percent] [-v] [-N] [-H]";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-v")) {
            vform = 1;
        } else if (!strcmp(a, "-H")) {
            hand = 1;
        } else if (!strcmp(a, "-N")) {
            nbform = 1;
        } else if (i + 1 < argc && !strcmp(a, "-g")) {
            graph = argv[++i];
        } else if (i + 1 < argc && !strcmp(a, "-s")) {
            bytes = bench_parse_count(argv[++i], 8);
        } else if (i + 1 < argc && !strcmp(a, "-n")) {
            iters = bench_parse_count(argv[++i], 1);
        } else if (i + 1 < argc && !strcmp(a, "-w")) {
            warm = bench_parse_count(argv[++i], 0);
        } else if (i + 1 < argc && !strcmp(a, "-p")) {
            percent = bench_parse_count(argv[++i], 1);
        } else {
            bench_usage(KERNEL, usage);
        }
    }
    if (bytes < 8 || bytes > MAX_BYTES || bytes % 8 || iters == 0 ||
        percent < 1 || percent > 100 ||
        (strcmp(graph, "moore2d") && strcmp(graph, "moore3d") &&
         strcmp(graph, "random")))
        bench_usage(KERNEL, usage);
    if (iters < 0 || warm < 0) {
        int over = bench_oversubscribed();
        if (iters < 0)
            iters = over ? 200 : 2000;
        if (warm < 0)
            warm = over ? 20 : 100;
    }

    int *out = xmalloc(sizeof(int) * (size_t)(size + 27));
    int *in = xmalloc(sizeof(int) * (size_t)(size + 27));
    int outdeg = 0, indeg = 0;
    if (!strcmp(graph, "random")) {
        for (int j = 0; j < size; j++)
            if (edge(me, j, (int)percent))
                out[outdeg++] = j;
        for (int i = 0; i < size; i++)
            if (edge(i, me, (int)percent))
                in[indeg++] = i;
    } else {
        outdeg = indeg = moore(graph[5] == '2' ? 2 : 3, me, size, out);
        memcpy(in, out, sizeof(int) * (size_t)outdeg);
    }
    MPI_Comm comm;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, in, MPI_UNWEIGHTED,
                                   outdeg, out, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &comm);

    size_t words = (size_t)bytes / 8;
    uint64_t *sbuf = xmalloc((size_t)bytes * (size_t)(outdeg + 1));
    uint64_t *rbuf = xmalloc((size_t)bytes * (size_t)(indeg + 1));
    int *scounts = xmalloc(sizeof(int) * (size_t)(outdeg + 1));
    int *sdispls = xmalloc(sizeof(int) * (size_t)(outdeg + 1));
    int *rcounts = xmalloc(sizeof(int) * (size_t)(indeg + 1));
    int *rdispls = xmalloc(sizeof(int) * (size_t)(indeg + 1));
    MPI_Request *req = xmalloc(sizeof(MPI_Request) * (size_t)(indeg + outdeg + 1));
    for (int k = 0; k < outdeg; k++) {
        scounts[k] = (int)words;
        sdispls[k] = (int)(k * (int)words);
    }
    for (int j = 0; j < indeg; j++) {
        rcounts[j] = (int)words;
        rdispls[j] = (int)(j * (int)words);
    }

    long bad = 0;
    double t0 = 0;
    for (long it = 0; it < warm + iters; it++) {
        if (it == warm) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        for (size_t w = 0; w < words * (size_t)outdeg; w++)
            sbuf[w] = word(me, it);
        if (hand) {
            int n = 0;
            for (int j = 0; j < indeg; j++)
                MPI_Irecv(rbuf + (size_t)j * words, (int)words, MPI_UINT64_T,
                          in[j], 1, comm, &req[n++]);
            for (int k = 0; k < outdeg; k++)
                MPI_Isend(sbuf + (size_t)k * words, (int)words, MPI_UINT64_T,
                          out[k], 1, comm, &req[n++]);
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        } else if (nbform && vform) {
            MPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, MPI_UINT64_T, rbuf,
                                    rcounts, rdispls, MPI_UINT64_T, comm, &req[0]);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        } else if (nbform) {
            MPI_Ineighbor_alltoall(sbuf, (int)words, MPI_UINT64_T, rbuf,
                                   (int)words, MPI_UINT64_T, comm, &req[0]);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        } else if (vform) {
            MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_UINT64_T, rbuf,
                                   rcounts, rdispls, MPI_UINT64_T, comm);
        } else {
            MPI_Neighbor_alltoall(sbuf, (int)words, MPI_UINT64_T, rbuf,
                                  (int)words, MPI_UINT64_T, comm);
        }
        /* One word per block each iteration, every word on the last. */
        for (int j = 0; j < indeg; j++) {
            size_t first = (size_t)j * words;
            size_t last = it == warm + iters - 1 ? first + words : first + 1;
            for (size_t w = first; w < last; w++)
                bad += rbuf[w] != word(in[j], it);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / (double)iters;
    if (bad)
        bench_check_failed(KERNEL, "%ld words arrived wrong (a block from the "
                           "wrong source or iteration)", bad);
    bench_verdict();

    long local[2] = {outdeg, 0}, total[2];
    for (int k = 0; k < outdeg; k++)
        local[1] += out[k] != me;
    MPI_Reduce(local, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    char extra[160];
    snprintf(extra, sizeof extra,
             " graph=%s bytes=%lld form=%s degree=%.3g msgs=%.3g colls=%lld",
             graph, bytes,
             hand     ? "isend"
             : nbform ? (vform ? "ineighbor_alltoallv" : "ineighbor_alltoall")
             : vform  ? "alltoallv"
                      : "alltoall",
             (double)total[0] / size, (double)total[1] / size, warm + iters);
    bench_result(KERNEL, us, "us", extra);
    MPI_Comm_free(&comm);
    free(out), free(in), free(sbuf), free(rbuf), free(req);
    free(scounts), free(sdispls), free(rcounts), free(rdispls);
    MPI_Finalize();
    return 0;
}
