/* conveyor: bale's histogram over a Conveyors-like MPI porter: buffers
 * already aggregated by the program, exchanged all-to-all with MPI_Isend and
 * MPI_Test.
 *
 * Usage: conveyor [-n updates per rank] [-w warmup updates per rank]
 *                 [-s bytes] [-t table entries]
 *   -n  updates each rank sends in the timed section (default 5000000, or
 *       50000 when ranks outnumber cores)
 *   -w  untimed updates per rank first (default 20000, or 2000 when ranks
 *       outnumber cores)
 *   -s  bytes of a buffer, the update message (default 16K)
 *   -t  table entries per rank, K/M suffixes allowed (default 1000, bale's)
 *
 * The traffic of Conveyors' MPI porter, which the program's own code never
 * sees: every link (pair of ranks) has two send buffers at the source
 * (bench_agg.h's double buffers), and at the destination one buffer with
 * one MPI_Irecv(source, MPI_ANY_TAG) posted for it.  An update is appended
 * to its destination's buffer; a full buffer leaves as one MPI_Isend, after
 * which the rank polls every source's receive with MPI_Test, applies the
 * buffers that arrived and posts their receives again.  Before refilling a
 * buffer whose previous send has not completed, it polls the same way
 * while MPI_Test says the send is still in flight.  At the end every partly
 * filled buffer leaves, then the done markers.  Under Omnibus every buffer
 * is above the aggregation threshold (512 bytes on shared memory, 16 KiB
 * over a network at its calibrated defaults), so this measures what
 * Omnibus costs a program that aggregates by itself: nothing, is the
 * target (at least 0.95x of MPICH; bench/results/log.md, 2026-11-26).
 * Checks and RESULT: bench_bulk.h.
 */
#include "bench_bulk.h"

#define KERNEL "conveyor"

typedef struct {
    bench_upd u;
    bench_dbuf out;
    uint64_t **in;     /* per source: its buffer (NULL for this rank) */
    MPI_Request *rreq; /* per source: the receive posted for it */
    int done;          /* done markers received this run */
    MPI_Request *marker_req;
} conv_state;

static void post(conv_state *s, int src)
{
    MPI_Irecv(s->in[src], s->out.per, MPI_UINT64_T, src, MPI_ANY_TAG,
              MPI_COMM_WORLD, &s->rreq[src]);
}

/* One MPI_Test per source whose receive is posted. */
static void poll_sources(conv_state *s)
{
    for (int src = 0; src < s->u.size; src++) {
        if (s->rreq[src] == MPI_REQUEST_NULL)
            continue;
        int flag, got;
        MPI_Status st;
        MPI_Test(&s->rreq[src], &flag, &st);
        if (!flag)
            continue;
        if (st.MPI_TAG == BENCH_BULK_TAG_DONE) {
            s->done++;
            continue;
        }
        MPI_Get_count(&st, MPI_UINT64_T, &got);
        bench_upd_apply(&s->u, s->in[src], got, src);
        post(s, src);
    }
}

/* Sends dest's current buffer if it holds anything, polls, and polls on
 * until the buffer now current may be written. */
static void ship(conv_state *s, int dest)
{
    int words = s->out.used[dest];
    if (!bench_dbuf_send(&s->out, dest, BENCH_BULK_TAG_UPDATE))
        return;
    bench_upd_sent(&s->u, words);
    do
        poll_sources(s);
    while (!bench_dbuf_ready(&s->out, dest));
}

/* One run of n updates per rank (bench_upd_measure's run). */
static void run(void *state, long long n)
{
    conv_state *s = state;
    s->done = 0;
    for (int src = 0; src < s->u.size; src++)
        if (src != s->u.rank)
            post(s, src);
    for (long long i = 0; i < n; i++) {
        int dest;
        uint64_t idx = bench_upd_draw(&s->u, &dest);
        *bench_dbuf_item(&s->out, dest) = idx;
        if (bench_dbuf_commit(&s->out, dest))
            ship(s, dest);
    }
    for (int r = 0; r < s->u.size; r++)
        if (r != s->u.rank)
            ship(s, r);
    bench_upd_markers(&s->u, s->marker_req);
    while (s->done < s->u.size - 1)
        poll_sources(s);
    bench_dbuf_wait(&s->out);
    MPI_Waitall(s->u.size, s->marker_req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *usage = "[-n updates per rank] [-w warmup updates per rank] "
                        "[-s bytes] [-t table entries]";
    bench_bulk_opts o = {.n = -2, .warm = -2, .bytes = 16 * 1024,
                         .table = 1000};
    bench_bulk_options(argc, argv, KERNEL, usage, 0, &o);
    bench_bulk_sizes(&o, 5000000, 50000, 20000, 2000);
    bench_require_two_ranks(KERNEL);
    conv_state s = {0};
    bench_upd_init(&s.u, KERNEL, o.table, 0x9b05688c2b3e6c1fULL);
    int size = s.u.size, per = (int)(o.bytes / 8);
    bench_dbuf_init(&s.out, KERNEL, s.u.rank, size, per, 1);
    s.in = calloc((size_t)size, sizeof *s.in);
    s.rreq = malloc((size_t)size * sizeof *s.rreq);
    s.marker_req = malloc((size_t)size * sizeof *s.marker_req);
    if (!s.in || !s.rreq || !s.marker_req)
        bench_fail(KERNEL, "out of memory for %d ranks", size);
    for (int r = 0; r < size; r++) {
        s.rreq[r] = MPI_REQUEST_NULL;
        if (r != s.u.rank)
            s.in[r] = bench_xmalloc(KERNEL, (size_t)o.bytes);
    }

    bench_upd_measure(&s.u, run, &s, o.warm, o.n, "");

    for (int r = 0; r < size; r++)
        free(s.in[r]);
    free(s.in);
    free(s.rreq);
    free(s.marker_req);
    bench_dbuf_free(&s.out);
    bench_upd_free(&s.u);
    MPI_Finalize();
    return 0;
}
