/* probe_then_recv_after_arrival: a message that arrives between a probe
 * and the receive that follows it does not displace the probed message.
 *
 * MPI 4.1 §3.8.1: MPI_Recv with the source and tag MPI_Iprobe returned
 * receives the probed message, and messages from one source match in the
 * order they were sent (§3.5).  The leader sends A (tag 5), waits for a
 * go-ahead, sends B (same tag) and then a marker (tag 6).  Its partner
 * probes A with MPI_ANY_SOURCE, sends the go-ahead, waits until the marker
 * is there (so B arrived after the probe), then receives with the probed
 * source and tag: it must get A, and B next.
 */
#include "testlib.h"

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (peer != MPI_PROC_NULL && tl_leads()) {
        int a = 100, b = 200, go;
        CHECK_MPI(MPI_Send(&a, 1, MPI_INT, peer, 5, comm));
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 9, comm, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&b, 1, MPI_INT, peer, 5, comm));
        CHECK_MPI(MPI_Send(&b, 1, MPI_INT, peer, 6, comm));
    } else if (peer != MPI_PROC_NULL) {
        int flag = 0, v = -1, go = 1;
        MPI_Status st;
        double t0 = tl_now();
        while (!flag) {
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 5, comm, &flag, &st));
            CHECK(flag || tl_now() - t0 < 10, "a polling MPI_Iprobe must "
                  "see the tag-5 message rank %d sent; 10 s without it",
                  peer);
        }
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 9, comm));
        tl_await_arrival(peer, 6, comm);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm,
                        MPI_STATUS_IGNORE));
        CHECK(v == 100, "MPI_Recv with the probed source and tag must "
              "receive the probed message A (100) although B arrived "
              "since; got %d", v);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 5, comm, MPI_STATUS_IGNORE));
        CHECK(v == 200, "the message sent after A must come next; got %d",
              v);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 6, comm, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
