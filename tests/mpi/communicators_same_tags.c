/* communicators_same_tags: traffic on different communicators never mixes.
 *
 * MPI 4.1 §3.5 and §6.1: a receive only matches messages sent on its own
 * communicator (the communicator is part of the envelope), so messages with
 * the same source process and tag on different communicators are separate
 * streams; the status's MPI_SOURCE is the sender's rank in the receive's
 * communicator.  §6.4.3 (MPI_Comm_free): freeing a communicator with
 * operations still pending is legal; they complete normally.
 *
 * Communicators: MPI_COMM_WORLD, a dup, a split with one color whose keys
 * reverse the rank order, a split into even/odd halves (also reversed), a
 * split into lower and upper halves in world order (the lower one's ranks
 * are the world's, the upper one's are offset), a
 * communicator from MPI_Comm_create over the reversed world group, a
 * Cartesian ring and an MPI_Comm_split_type(SHARED) communicator.  On each,
 * every rank sends to its right neighbour (in that communicator's numbering)
 * the same tag, twice, small then large; the sends go out communicator by
 * communicator, the receives are taken in the reverse communicator order
 * with MPI_ANY_SOURCE, and each must carry its own communicator's payload
 * and name the left neighbour in that communicator's numbering.
 */
#include "testlib.h"

#define MAXC 8
#define TAG 5
#define LARGE 20000
#define SMALL 40

static int nc;
static MPI_Comm comms[MAXC];
static const char *names[MAXC];

static void add(MPI_Comm c, const char *name)
{
    comms[nc] = c;
    names[nc++] = name;
}

/* Payload id of message m (0 small, 1 large) on communicator c; the pattern
 * also depends on the sender's rank in c, so a message from the wrong
 * communicator or sender does not verify. */
static long id_of(int c, int m) { return c * 10 + m; }

static int len_of(int m) { return m ? LARGE : SMALL; }

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int wrank, wsize = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm c;

    add(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    add(c, "dup of world");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &c));
    add(c, "split, reversed");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &c));
    add(c, "split even/odd, reversed");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank < (wsize + 1) / 2, wrank,
                             &c));
    add(c, "split into halves, in order");
    {
        MPI_Group wg, rg;
        int ranks[TL_MAX_RANKS];
        for (int i = 0; i < wsize; i++)
            ranks[i] = wsize - 1 - i;
        CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        CHECK_MPI(MPI_Group_incl(wg, wsize, ranks, &rg));
        CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, rg, &c));
        add(c, "Comm_create, reversed group");
        CHECK_MPI(MPI_Group_free(&rg));
        CHECK_MPI(MPI_Group_free(&wg));
    }
    {
        int dims[1] = {wsize}, periods[1] = {1};
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &c));
        add(c, "Cartesian ring");
    }
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c));
    add(c, "split_type SHARED");

    int crank[MAXC], csize[MAXC];
    for (int i = 0; i < nc; i++) {
        MPI_Comm_rank(comms[i], &crank[i]);
        MPI_Comm_size(comms[i], &csize[i]);
    }
    CHECK(crank[2] == wsize - 1 - wrank,
          "the reversed split must give world rank %d comm rank %d, got %d",
          wrank, wsize - 1 - wrank, crank[2]);

    for (int rep = 0; rep < 2; rep++) {
        MPI_Request sreq[MAXC * 2];
        unsigned char *sbuf[MAXC * 2];
        int ns = 0;
        if (rep)
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < nc; i++)
            for (int m = 0; m < 2; m++) {
                int right = (crank[i] + 1) % csize[i];
                sbuf[ns] = tl_malloc(LARGE);
                tl_fill(sbuf[ns], (size_t)len_of(m), crank[i], id_of(i, m));
                CHECK_MPI(MPI_Isend(sbuf[ns], len_of(m), MPI_BYTE, right, TAG,
                                 comms[i], &sreq[ns]));
                ns++;
            }
        /* rep 0: receives taken late, one by one, in reverse order of
         * communicators; rep 1: all posted at once, also reversed. */
        MPI_Request rreq[MAXC * 2];
        MPI_Status rst[MAXC * 2];
        unsigned char *rbuf[MAXC * 2];
        int nr = 0;
        if (!rep)
            tl_sleep(0.02);
        for (int i = nc - 1; i >= 0; i--)
            for (int m = 0; m < 2; m++) {
                rbuf[nr] = tl_malloc(LARGE);
                int src = m ? (crank[i] + csize[i] - 1) % csize[i]
                            : MPI_ANY_SOURCE;
                if (!rep)
                    CHECK_MPI(MPI_Recv(rbuf[nr], LARGE, MPI_BYTE, src, TAG,
                                    comms[i], &rst[nr]));
                else
                    CHECK_MPI(MPI_Irecv(rbuf[nr], LARGE, MPI_BYTE, src, TAG,
                                     comms[i], &rreq[nr]));
                nr++;
            }
        if (rep)
            CHECK_MPI(MPI_Waitall(nr, rreq, rst));
        CHECK_MPI(MPI_Waitall(ns, sreq, MPI_STATUSES_IGNORE));
        for (int i = nc - 1, k = 0; i >= 0; i--)
            for (int m = 0; m < 2; m++, k++) {
                int left = (crank[i] + csize[i] - 1) % csize[i];
                CHECK_STATUS(rst[k], left, TAG, len_of(m),
                             "message %d on '%s' (my rank there %d of %d): "
                             "MPI_SOURCE in that communicator's numbering",
                             m, names[i], crank[i], csize[i]);
                CHECK_PATTERN(rbuf[k], (size_t)len_of(m), left, id_of(i, m),
                              "message %d on '%s' must be that "
                              "communicator's own",
                              m, names[i]);
            }
        for (int k = 0; k < ns; k++)
            free(sbuf[k]);
        for (int k = 0; k < nr; k++)
            free(rbuf[k]);
    }

    /* Freeing a communicator with its sends and receives still pending is
     * legal: they complete normally afterwards. */
    {
        MPI_Comm d;
        MPI_Request reqs[4];
        MPI_Status sts[4], wst;
        unsigned char *s = tl_malloc(SMALL), *big = tl_malloc(LARGE);
        unsigned char *r1 = tl_malloc(LARGE), *r2 = tl_malloc(LARGE);
        unsigned char w[SMALL], wr[SMALL];
        int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        tl_fill(s, SMALL, wrank, 70);
        tl_fill(big, LARGE, wrank, 71);
        tl_fill(w, SMALL, wrank, 72);
        CHECK_MPI(MPI_Irecv(r1, LARGE, MPI_BYTE, MPI_ANY_SOURCE, TAG, d,
                         &reqs[0]));
        CHECK_MPI(MPI_Irecv(r2, LARGE, MPI_BYTE, left, TAG, d, &reqs[1]));
        CHECK_MPI(MPI_Isend(s, SMALL, MPI_BYTE, right, TAG, d, &reqs[2]));
        CHECK_MPI(MPI_Isend(big, LARGE, MPI_BYTE, right, TAG, d, &reqs[3]));
        CHECK_MPI(MPI_Comm_free(&d));
        CHECK(d == MPI_COMM_NULL,
              "MPI_Comm_free must set the handle to MPI_COMM_NULL");
        /* The world carries the same tag between the same neighbours. */
        CHECK_MPI(MPI_Sendrecv(w, SMALL, MPI_BYTE, right, TAG, wr, SMALL,
                            MPI_BYTE, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD,
                            &wst));
        CHECK_STATUS(wst, left, TAG, SMALL,
                     "world message sent while a freed dup had traffic");
        CHECK_PATTERN(wr, SMALL, left, 72,
                      "world message, not the freed dup's");
        CHECK_MPI(MPI_Waitall(4, reqs, sts));
        CHECK_STATUS(sts[0], left, TAG, SMALL,
                     "first receive posted before MPI_Comm_free");
        CHECK_PATTERN(r1, SMALL, left, 70,
                      "first receive posted before MPI_Comm_free");
        CHECK_STATUS(sts[1], left, TAG, LARGE,
                     "second receive posted before MPI_Comm_free");
        CHECK_PATTERN(r2, LARGE, left, 71,
                      "second receive posted before MPI_Comm_free");
        free(s);
        free(big);
        free(r1);
        free(r2);
    }

    for (int i = 1; i < nc; i++)
        CHECK_MPI(MPI_Comm_free(&comms[i]));
    return tl_finalize();
}
