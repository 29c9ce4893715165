/* rendezvous_semantics: messages sent after the receiver's window is full
 * keep every matching promise: probes, wildcards, statuses, truncation and
 * requests mixed in Waitany.
 *
 * MPI 4.1 §3.2.4 (status), §3.2.5 (truncation), §3.5 (order), §3.8
 * (probe), §3.7.5 (Waitany).  The lower rank of each pair starts 20,000
 * sends of 200 B (more than Omnibus's 4 MiB per-pair window), then three
 * marked messages: 64 B with tag 2, 150 B with tag 3 and a synchronous
 * 50 B with tag 4; only then does its partner, after a barrier, receive.
 * The partner must find tag 2 by MPI_Probe with MPI_ANY_SOURCE (status:
 * source, tag, 64 bytes), get MPI_ERR_TRUNCATE receiving tag 3 into 100
 * bytes, receive tag 4 and answer it, and then take the 20,000 with
 * MPI_ANY_SOURCE and MPI_ANY_TAG in send order.  The sender waits for the
 * synchronous send and for the answer with MPI_Waitany: each completes
 * once, with its own index.
 */
#include "testlib.h"

#define N 20000L
#define LEN 200

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner(), me = tl_rank();
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    unsigned char *flood = tl_malloc((size_t)LEN * N);
    unsigned char m1[64], m2[150], m3[50];
    if (peer != MPI_PROC_NULL && tl_leads()) {
        MPI_Request *req = tl_malloc(sizeof *req * N);
        for (long i = 0; i < N; i++) {
            tl_fill(flood + i * LEN, LEN, me, i);
            CHECK_MPI(MPI_Isend(flood + i * LEN, LEN, MPI_BYTE, peer, 1, comm, &req[i]));
        }
        MPI_Request marked[4];
        tl_fill(m1, sizeof m1, me, 1001);
        tl_fill(m2, sizeof m2, me, 1002);
        tl_fill(m3, sizeof m3, me, 1003);
        CHECK_MPI(MPI_Isend(m1, sizeof m1, MPI_BYTE, peer, 2, comm, &marked[0]));
        CHECK_MPI(MPI_Isend(m2, sizeof m2, MPI_BYTE, peer, 3, comm, &marked[1]));
        CHECK_MPI(MPI_Issend(m3, sizeof m3, MPI_BYTE, peer, 4, comm, &marked[2]));
        int answer = 0;
        CHECK_MPI(MPI_Irecv(&answer, 1, MPI_INT, peer, 9, comm, &marked[3]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int seen[4] = {0, 0, 0, 0};
        for (int k = 0; k < 2; k++) {
            int idx = -1;
            CHECK_MPI(MPI_Waitany(2, marked + 2, &idx, MPI_STATUS_IGNORE));
            CHECK(idx == 0 || idx == 1,
                  "MPI_Waitany over a synchronous send and a receive must "
                  "return index 0 or 1, got %d", idx);
            if (idx == 0 || idx == 1)
                seen[idx]++;
        }
        CHECK(seen[0] == 1 && seen[1] == 1,
              "MPI_Waitany must complete each request exactly once: the "
              "synchronous send %d times, the answer %d times", seen[0], seen[1]);
        CHECK(answer == 4, "the answer to tag 4 must be 4, got %d", answer);
        CHECK_MPI(MPI_Waitall(2, marked, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPI_Waitall((int)N, req, MPI_STATUSES_IGNORE));
        free(req);
    } else if (peer != MPI_PROC_NULL) {
        MPI_Status st;
        int count = -1;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 2, comm, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 2 && count == 64,
              "MPI_Probe(MPI_ANY_SOURCE, 2) past the window must report "
              "source %d, tag 2, 64 bytes; got source %d, tag %d, %d bytes",
              peer, st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK_MPI(MPI_Recv(m1, sizeof m1, MPI_BYTE, peer, 2, comm, MPI_STATUS_IGNORE));
        CHECK_PATTERN(m1, sizeof m1, peer, 1001, "the probed message (tag 2) must arrive intact");
        unsigned char small[100];
        int rc = MPI_Recv(small, sizeof small, MPI_BYTE, peer, 3, comm, &st);
        CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
              "receiving the 150-byte message into 100 bytes must fail with "
              "MPI_ERR_TRUNCATE, got %s", tl_errstr(rc));
        CHECK_MPI(MPI_Recv(m3, sizeof m3, MPI_BYTE, peer, 4, comm, MPI_STATUS_IGNORE));
        CHECK_PATTERN(m3, sizeof m3, peer, 1003, "the synchronous message (tag 4) must arrive intact");
        int answer = 4;
        CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, peer, 9, comm));
        for (long i = 0; i < N; i++) {
            CHECK_MPI(MPI_Recv(flood, LEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 1,
                  "message %ld taken with MPI_ANY_SOURCE/MPI_ANY_TAG must come "
                  "from %d with tag 1, got %d and %d", i, peer, st.MPI_SOURCE,
                  st.MPI_TAG);
            CHECK_PATTERN(flood, LEN, peer, i,
                          "message %ld of %ld, sent before the window filled or "
                          "after, must arrive intact and in send order", i, N);
        }
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barrier");
    }
    free(flood);
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
