/* wildcard_any_source_order: wildcard receives keep per-source order.
 *
 * MPI 4.1 §3.5: non-overtaking holds per (sender, receiver, communicator)
 * even when the receive uses MPI_ANY_SOURCE or MPI_ANY_TAG; across senders
 * no order is promised.  §3.2.5: the status of a wildcard receive says which
 * message arrived: MPI_SOURCE, MPI_TAG and (MPI_Get_count) its length.
 * Ranks 1..P-1 each send NMSG messages of varied sizes (some large) to rank
 * 0, which receives them with
 *   phase 0: MPI_ANY_SOURCE, fixed tag, late blocking receives;
 *   phase 1: MPI_ANY_SOURCE and MPI_ANY_TAG, tags varying per message;
 *   phase 2: MPI_ANY_SOURCE and MPI_ANY_TAG receives posted before the sends;
 *   phase 3: a named source with MPI_ANY_TAG, sources taken in reverse.
 * Every message must be the next one of its source, with the right status.
 */
#include "testlib.h"

#define NMSG 24
#define MAXSZ 40000
#define FIXED_TAG 9

static const int sizes[] = {4, 16, 1, 200, 8, 40000, 3, 64, 1000, 12000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int size_of(int src, int i) { return sizes[(i * 3 + src) % NSIZES]; }
static int tag_of(int phase, int src, int i)
{
    return phase == 0 ? FIXED_TAG : 100 + (i * 7 + src) % 5;
}
static long id_of(int phase, int i) { return phase * 1000L + i; }

static void send_phase(int me, int phase)
{
    MPI_Request reqs[NMSG];
    unsigned char *bufs[NMSG];
    for (int i = 0; i < NMSG; i++) {
        int n = size_of(me, i);
        bufs[i] = tl_malloc((size_t)n);
        tl_fill(bufs[i], (size_t)n, me, id_of(phase, i));
        CHECK_MPI(MPI_Isend(bufs[i], n, MPI_BYTE, 0, tag_of(phase, me, i),
                         MPI_COMM_WORLD, &reqs[i]));
    }
    CHECK_MPI(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
}

/* Checks that st/buf are the next message of st.MPI_SOURCE in `phase`. */
static void check_next(int *next, int size, int phase, const MPI_Status *st,
                       const unsigned char *buf, const char *how)
{
    int src = st->MPI_SOURCE;
    CHECK(src >= 1 && src < size,
          "%s phase %d: MPI_SOURCE must be a sending rank 1..%d, got %d", how,
          phase, size - 1, src);
    int i = next[src]++;
    CHECK(i < NMSG, "%s phase %d: more than %d messages from rank %d", how,
          phase, NMSG, src);
    CHECK_STATUS(*st, src, tag_of(phase, src, i), size_of(src, i),
                 "%s phase %d: message #%d of rank %d (per-source order)",
                 how, phase, i, src);
    CHECK_PATTERN(buf, (size_t)size_of(src, i), src, id_of(phase, i),
                  "%s phase %d: message #%d of rank %d", how, phase, i, src);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int total = (size - 1) * NMSG;
    int next[TL_MAX_RANKS];
    unsigned char *buf = tl_malloc(MAXSZ);

    for (int phase = 0; phase < 2; phase++) {
        if (me != 0) {
            send_phase(me, phase);
            continue;
        }
        memset(next, 0, sizeof next);
        tl_sleep(0.05);
        for (int k = 0; k < total; k++) {
            MPI_Status st;
            int tag = phase == 0 ? FIXED_TAG : MPI_ANY_TAG;
            CHECK_MPI(MPI_Recv(buf, MAXSZ, MPI_BYTE, MPI_ANY_SOURCE, tag,
                            MPI_COMM_WORLD, &st));
            check_next(next, size, phase, &st, buf,
                       phase == 0 ? "ANY_SOURCE" : "ANY_SOURCE+ANY_TAG");
        }
    }

    /* Phase 2: wildcard receives already posted when the messages come. */
    if (me == 0) {
        MPI_Request *reqs = tl_malloc(sizeof *reqs * (size_t)total);
        MPI_Status *st = tl_malloc(sizeof *st * (size_t)total);
        unsigned char *bufs = tl_malloc((size_t)total * MAXSZ);
        for (int k = 0; k < total; k++)
            CHECK_MPI(MPI_Irecv(bufs + (size_t)k * MAXSZ, MAXSZ, MPI_BYTE,
                             MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &reqs[k]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(total, reqs, st));
        memset(next, 0, sizeof next);
        /* Posted receives are matched in the order they were posted, so
         * walking them in posting order walks each source in send order. */
        for (int k = 0; k < total; k++)
            check_next(next, size, 2, &st[k], bufs + (size_t)k * MAXSZ,
                       "posted ANY_SOURCE+ANY_TAG");
        free(reqs);
        free(st);
        free(bufs);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        send_phase(me, 2);
    }
    /* Phase 3 messages would also match the wildcard receives of phase 2. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Phase 3: one source at a time, any tag, the last sender first. */
    if (me == 0) {
        memset(next, 0, sizeof next);
        tl_sleep(0.05);
        for (int src = size - 1; src >= 1; src--)
            for (int i = 0; i < NMSG; i++) {
                MPI_Status st;
                CHECK_MPI(MPI_Recv(buf, MAXSZ, MPI_BYTE, src, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &st));
                CHECK(st.MPI_SOURCE == src,
                      "a receive from rank %d must report MPI_SOURCE %d, got "
                      "%d",
                      src, src, st.MPI_SOURCE);
                check_next(next, size, 3, &st, buf, "named source+ANY_TAG");
            }
    } else {
        send_phase(me, 3);
    }
    for (int src = 1; me == 0 && src < size; src++)
        CHECK(next[src] == NMSG, "rank %d must have delivered %d messages",
              src, NMSG);
    free(buf);
    return tl_finalize();
}
