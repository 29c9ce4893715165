/* error_classes: invalid point-to-point arguments give MPI's error classes
 * through the communicator's error handler, and leave no trace.
 *
 * MPI 4.1 §9.3-§9.4: with MPI_ERRORS_RETURN, an erroneous call returns an
 * error code whose class names the fault: a rank outside the group
 * (MPI_ERR_RANK), a negative tag, MPI_ANY_TAG on a send or a tag above
 * MPI_TAG_UB (MPI_ERR_TAG), a negative count (MPI_ERR_COUNT), a null
 * datatype (MPI_ERR_TYPE), a null communicator (MPI_ERR_COMM), a buffered
 * send without an attached buffer (MPI_ERR_BUFFER).  A call that failed
 * sent nothing and posted nothing: afterwards the traffic that follows is
 * exactly what a clean program would see.  (MPICH checks these arguments;
 * an interposed library must not skip the check nor report another class.)
 * Every rank does this at once; the valid peer is the right neighbour in a
 * ring, and the one valid message comes from the left neighbour.
 */
#include "testlib.h"

#define EXPECT_CLASS(call, cls)                                                \
    do {                                                                       \
        int rc_ = (call);                                                      \
        CHECK(tl_class(rc_) == (cls),                                          \
              "%s must fail with class %s (%d), returned %s", #call, #cls,     \
              (cls), rc_ == MPI_SUCCESS ? "MPI_SUCCESS" : tl_errstr(rc_));     \
    } while (0)

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me, size = tl_size();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int *ubp = NULL, found = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ubp, &found));
    CHECK(found && *ubp >= 32767,
          "MPI_TAG_UB must be set and at least 32767");
    int bad_tag = *ubp < 0x7fffffff ? *ubp + 1 : -2;
    int peer = tl_right(1), left = tl_left(1);
    unsigned char b[64];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;

    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, size, 1, MPI_COMM_WORLD),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, -5, 1, MPI_COMM_WORLD),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Isend(b, 8, MPI_BYTE, size, 1, MPI_COMM_WORLD, &req),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Recv(b, 8, MPI_BYTE, size + 3, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Irecv(b, 8, MPI_BYTE, size, 1, MPI_COMM_WORLD, &req),
                 MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Probe(size, 1, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, peer, -3, MPI_COMM_WORLD),
                 MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD),
                 MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, peer, bad_tag, MPI_COMM_WORLD),
                 MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Recv(b, 8, MPI_BYTE, left, -7, MPI_COMM_WORLD, &st),
                 MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Send(b, -1, MPI_BYTE, peer, 1, MPI_COMM_WORLD),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_DATATYPE_NULL, peer, 1, MPI_COMM_WORLD),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Send(b, 8, MPI_BYTE, peer, 1, MPI_COMM_NULL),
                 MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Bsend(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER);

    /* Nothing above may have sent a message or posted a receive: the next
     * message on tag 1 is the one sent now, and nothing else is pending. */
    tl_fill(b, 64, me, 1);
    CHECK_MPI(MPI_Isend(b, 64, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req));
    unsigned char r[64];
    CHECK_MPI(MPI_Recv(r, 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_STATUS(st, left, 1, 64,
                 "the first message after the failed calls must be the "
                 "valid one (a failed send delivered something)");
    CHECK_PATTERN(r, 64, left, 1, "the valid message after the failed calls");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                      &st));
    CHECK(!flag,
          "no message may be pending after the failed calls, found one "
          "from %d with tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    return tl_finalize();
}
