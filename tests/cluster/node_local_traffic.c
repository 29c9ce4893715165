/* node_local_traffic: traffic between ranks of one node stays off the
 * network, and traffic between nodes goes over it.
 *
 * usage: node_local_traffic local|cross [messages]
 *   local  every rank sends `messages` 64-byte messages to every other rank
 *          of its node;
 *   cross  every rank sends them to the ranks of the other nodes that have
 *          its local rank (its peers in the node dimension of Omnibus's
 *          node grid).
 * Each rank receives and checks every message (bytes, source, tag, order).
 * The program also checks that MPI's idea of a node (MPI_COMM_TYPE_SHARED)
 * is the emulated node it runs on (the processor name, which
 * scripts/emulate/cluster sets per node).  tests/cluster/run adds what a program
 * cannot see: Omnibus's wire messages per grid dimension and the bytes
 * the emulated network carried.
 */
#include "../mpi/testlib.h"

enum { BYTES = 64, DEFAULT_MESSAGES = 4000 };

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int local_mode = argc > 1 && strcmp(argv[1], "local") == 0;
    if (argc < 2 || (!local_mode && strcmp(argv[1], "cross") != 0))
        FAIL("usage: node_local_traffic local|cross [messages]");
    long nmsg = argc > 2 ? atol(argv[2]) : DEFAULT_MESSAGES;
    int me = tl_rank(), P = tl_size();

    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &node));
    int local = 0, leader = me;
    CHECK_MPI(MPI_Comm_rank(node, &local));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node));

    char name[MPI_MAX_PROCESSOR_NAME] = "", leader_name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    memcpy(leader_name, name, sizeof name);
    CHECK_MPI(MPI_Bcast(leader_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, node));
    CHECK(strcmp(name, leader_name) == 0,
          "every rank of an MPI_COMM_TYPE_SHARED communicator must run on one "
          "emulated node: this rank runs on %s, its node's rank 0 on %s",
          name, leader_name);

    int mine[2] = {leader, local}, *all = tl_malloc(sizeof(int) * 2 * (size_t)P);
    CHECK_MPI(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    int *peers = tl_malloc(sizeof(int) * (size_t)P), npeers = 0;
    for (int r = 0; r < P; r++) {
        int same_node = all[2 * r] == leader;
        if (r == me)
            continue;
        if (local_mode ? same_node : !same_node && all[2 * r + 1] == local)
            peers[npeers++] = r;
    }

    /* Every message is posted before any is sent, so that the sends never
     * wait for receives (nothing here is about flow control). */
    MPI_Request *reqs = tl_malloc(sizeof(MPI_Request) * (size_t)npeers * nmsg);
    MPI_Status *st = tl_malloc(sizeof(MPI_Status) * (size_t)npeers * nmsg);
    unsigned char *in = tl_malloc((size_t)npeers * nmsg * BYTES);
    unsigned char out[BYTES];
    for (int p = 0; p < npeers; p++)
        for (long i = 0; i < nmsg; i++)
            CHECK_MPI(MPI_Irecv(in + ((size_t)p * nmsg + i) * BYTES, BYTES, MPI_BYTE,
                             peers[p], (int)(i % 1000), MPI_COMM_WORLD,
                             &reqs[p * nmsg + i]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (long i = 0; i < nmsg; i++)
        for (int p = 0; p < npeers; p++) {
            tl_fill(out, BYTES, me, i);
            CHECK_MPI(MPI_Send(out, BYTES, MPI_BYTE, peers[p], (int)(i % 1000),
                            MPI_COMM_WORLD));
        }
    CHECK_MPI(MPI_Waitall(npeers * (int)nmsg, reqs, st));
    for (int p = 0; p < npeers; p++)
        for (long i = 0; i < nmsg; i++) {
            CHECK_STATUS(st[p * nmsg + i], peers[p], (int)(i % 1000), BYTES,
                         "message %ld from rank %d", i, peers[p]);
            CHECK_PATTERN(in + ((size_t)p * nmsg + i) * BYTES, BYTES, peers[p],
                          i, "message %ld from rank %d", i, peers[p]);
        }
    free(in);
    free(st);
    free(reqs);
    free(peers);
    free(all);
    CHECK_MPI(MPI_Comm_free(&node));
    return tl_finalize();
}
