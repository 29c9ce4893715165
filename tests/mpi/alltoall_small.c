/* alltoall_small: every rank sends many small messages to every other rank,
 * in a shuffled order of destinations, and receives them all by wildcard.
 *
 * MPI 4.1 §3.5: non-overtaking holds per (sender, receiver, communicator)
 * whatever the order in which a sender interleaves its destinations, and
 * wildcard receives (MPI_ANY_SOURCE, MPI_ANY_TAG) see each source's
 * messages in that source's send order, each with its own status.  This
 * is the traffic aggregation and multi-hop routing exist for: every route
 * of the grid is used at once and intermediate ranks carry items for
 * others.  scripts/test/run-tests also runs it with OMNIBUS_STATS_FILE and
 * checks the statistics (items forwarded on multi-hop grids, fewer wire
 * messages than user sends), relying on the exact send count below:
 * P * (P - 1) * NPER MPI_Isend calls, nothing else point-to-point.
 */
#include "testlib.h"

#define NPER 100 /* messages from each rank to each other rank */
#define MAXLEN 64

static int len_of(int src, int i) { return 8 + 8 * ((i * 7 + src) % 8); }
static int tag_of(int src, int i) { return 1 + (i + src) % 3; }

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size();
    int nsend = (size - 1) * NPER;

    /* The shuffled destinations: NPER copies of every other rank. */
    int *dest = tl_malloc(sizeof(int) * (size_t)nsend);
    for (int k = 0; k < nsend; k++) {
        int d = k % (size - 1);
        dest[k] = d < me ? d : d + 1;
    }
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
    for (int k = nsend - 1; k > 0; k--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (uint64_t)(k + 1)), t = dest[k];
        dest[k] = dest[j];
        dest[j] = t;
    }

    unsigned char *sbuf = tl_malloc((size_t)nsend * MAXLEN);
    MPI_Request *req = tl_malloc(sizeof(MPI_Request) * (size_t)nsend);
    int sent[TL_MAX_RANKS] = {0}, next[TL_MAX_RANKS] = {0};
    for (int k = 0; k < nsend; k++) {
        int d = dest[k], i = sent[d]++;
        unsigned char *b = sbuf + (size_t)k * MAXLEN;
        tl_fill(b, (size_t)len_of(me, i), me, (long)d * 1000 + i);
        CHECK_MPI(MPI_Isend(b, len_of(me, i), MPI_BYTE, d, tag_of(me, i),
                         MPI_COMM_WORLD, &req[k]));
    }

    unsigned char r[MAXLEN];
    for (int k = 0; k < nsend; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(r, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE;
        CHECK(src >= 0 && src < size && src != me,
              "ANY_SOURCE receive %d must come from another rank, got "
              "source %d",
              k, src);
        int i = next[src]++;
        CHECK(i < NPER, "more than %d messages from rank %d", NPER, src);
        CHECK_STATUS(st, src, tag_of(src, i), len_of(src, i),
                     "message #%d from rank %d (per-source order)", i, src);
        CHECK_PATTERN(r, (size_t)len_of(src, i), src, (long)me * 1000 + i,
                      "message #%d from rank %d", i, src);
    }
    CHECK_MPI(MPI_Waitall(nsend, req, MPI_STATUSES_IGNORE));
    for (int s = 0; s < size; s++)
        CHECK(s == me || next[s] == NPER,
              "rank %d must have delivered %d messages, delivered %d", s,
              NPER, next[s]);
    free(dest);
    free(sbuf);
    free(req);
    return tl_finalize();
}
