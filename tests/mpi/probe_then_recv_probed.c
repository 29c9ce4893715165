/* probe_then_recv_probed: MPI_Recv from the source MPI_Iprobe reported
 * receives the very message the probe found, also when it is not the
 * oldest message queued.
 *
 * MPI 4.1 §3.8.1: a receive with the source and tag a probe returned
 * receives the message the probe matched (if nothing else on this thread
 * received it in between).  The leader sends tag 1 (K messages) and then
 * tag 2 (one message, payload = K); its partner waits until the tag-2
 * message is there, probes for tag 2 with MPI_ANY_SOURCE and receives
 * with the probed source: it must get the tag-2 message, not one of the
 * older tag-1 messages, and those must then come in order.
 */
#include "testlib.h"

#define K 20

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (peer != MPI_PROC_NULL && tl_leads()) {
        for (int i = 0; i < K; i++)
            CHECK_MPI(MPI_Send(&i, 1, MPI_INT, peer, 1, comm));
        int last = K;
        CHECK_MPI(MPI_Send(&last, 1, MPI_INT, peer, 2, comm));
    } else if (peer != MPI_PROC_NULL) {
        tl_await_arrival(peer, 2, comm);
        int flag = 0, count = -1, v = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 2, comm, &flag, &st));
        CHECK(flag && st.MPI_SOURCE == peer && st.MPI_TAG == 2,
              "MPI_Iprobe(MPI_ANY_SOURCE, 2) must find the tag-2 message "
              "from rank %d that is there; flag %d, source %d, tag %d",
              peer, flag, st.MPI_SOURCE, st.MPI_TAG);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 1, "the probed message holds 1 MPI_INT, "
              "MPI_Get_count said %d", count);
        CHECK_MPI(MPI_Recv(&v, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm,
                        &st));
        CHECK(v == K && st.MPI_TAG == 2, "MPI_Recv with the probed source "
              "and tag must receive the probed tag-2 message (payload %d); "
              "got payload %d, tag %d", K, v, st.MPI_TAG);
        for (int i = 0; i < K; i++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 1, comm, MPI_STATUS_IGNORE));
            CHECK(v == i, "tag-1 message %d must arrive in order after the "
                  "probed one was taken; got payload %d", i, v);
        }
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
