/* intercomm_traffic: point-to-point on an intercommunicator, next to the
 * same tags on intracommunicators.
 *
 * MPI 4.1 §7.6: on an intercommunicator, the destination and source ranks
 * name processes of the remote group, and a receive's MPI_SOURCE is the
 * sender's rank in the remote group; wildcards match only messages from the
 * remote group on that intercommunicator.  Traffic on the intercommunicator,
 * on MPI_COMM_WORLD and on the merged intracommunicator (MPI_Intercomm_merge)
 * never mixes, even with equal tags and peers.
 *
 * The ranks run in pairs (testlib.h): the lower ranks of the pairs form one
 * group, their partners the other, ordered so that local rank r of each
 * group is the partner of remote rank r, and talks to it.  With an odd
 * count the rank without a partner belongs to neither group (it gets
 * MPI_COMM_NULL from the split) and only joins the world's collectives.
 */
#include "testlib.h"

#define TAG 7
#define BIG 30000

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int wrank = tl_rank(), wsize = tl_size(), peer_world = tl_partner();
    int npairs = wsize / 2;
    /* color 0: the lower rank of each pair; 1: its partner; keys order
     * both groups by the lower rank of the pair. */
    int color = peer_world == MPI_PROC_NULL ? MPI_UNDEFINED
                : wrank < peer_world      ? 0
                                          : 1;
    int key = wrank < peer_world ? wrank : peer_world;
    MPI_Comm local, inter, merged;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, key, &local));
    if (color == MPI_UNDEFINED) {
        CHECK(local == MPI_COMM_NULL,
              "MPI_Comm_split with MPI_UNDEFINED must give MPI_COMM_NULL");
        return tl_finalize();
    }
    /* Each group's leader is its local rank 0: the first pair, ranks
     * wsize % 2 and wsize - 1.  The remote leader is named by its world
     * rank. */
    int remote_leader = color == 0 ? wsize - 1 : wsize % 2;
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 55,
                                &inter));
    int lrank, rsize, flag = 0;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "MPI_Intercomm_create must give an intercommunicator");
    CHECK(rsize == npairs, "remote group must have %d ranks, has %d", npairs,
          rsize);
    CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);

    /* The peer: remote rank lrank, the partner. */
    int peer_merged = -1;
    {
        int pw[TL_MAX_RANKS];
        CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, pw, 1, MPI_INT, merged));
        for (int k = 0; k < msize; k++)
            if (pw[k] == peer_world)
                peer_merged = k;
    }
    CHECK(peer_merged >= 0, "the peer must be in the merged communicator");

    for (int rep = 0; rep < 3; rep++) {
        unsigned char *s[6], *r[6];
        MPI_Request req[12];
        MPI_Status st[12];
        MPI_Comm comms[3] = {inter, MPI_COMM_WORLD, merged};
        int dest[3] = {lrank, peer_world, peer_merged};
        int nr = 0;
        for (int c = 0; c < 3; c++)
            for (int m = 0; m < 2; m++) {
                int k = c * 2 + m, n = m ? BIG : 16;
                s[k] = tl_malloc(BIG);
                r[k] = tl_malloc(BIG);
                tl_fill(s[k], (size_t)n, wrank, rep * 100 + k);
                CHECK_MPI(MPI_Isend(s[k], n, MPI_BYTE, dest[c], TAG, comms[c],
                                 &req[nr++]));
            }
        /* Receives in reverse communicator order, wildcards on the
         * intercommunicator. */
        int rk[6];
        int nrecv = 0;
        for (int c = 2; c >= 0; c--)
            for (int m = 0; m < 2; m++) {
                int k = c * 2 + m;
                rk[nrecv++] = k;
                CHECK_MPI(MPI_Irecv(r[k], BIG, MPI_BYTE,
                                 c == 0 ? MPI_ANY_SOURCE : dest[c],
                                 c == 0 ? MPI_ANY_TAG : TAG, comms[c],
                                 &req[nr++]));
            }
        CHECK_MPI(MPI_Waitall(nr, req, st));
        for (int j = 0; j < nrecv; j++) {
            int k = rk[j], c = k / 2, m = k % 2;
            static const char *names[3] = {"intercommunicator",
                                           "MPI_COMM_WORLD", "merged"};
            CHECK_STATUS(st[6 + j], dest[c], TAG, m ? BIG : 16,
                         "message %d on %s (source in that communicator's "
                         "numbering: %s)",
                         m, names[c],
                         c == 0 ? "remote group rank" : "own rank");
            CHECK_PATTERN(r[k], (size_t)(m ? BIG : 16), peer_world,
                          rep * 100 + k, "message %d on %s", m, names[c]);
        }
        for (int k = 0; k < 6; k++) {
            free(s[k]);
            free(r[k]);
        }
    }
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
    return tl_finalize();
}
