/* handle_conversions: a request or message handle converted to its Fortran
 * form and back is the same handle.
 *
 * MPI 4.1 §19.3.4: MPI_Request_c2f and MPI_Request_f2c (and the same for
 * MPI_Message) convert between the C and Fortran handles of one object; a
 * C program may keep its requests as MPI_Fint and complete them after
 * converting back.  Under Open MPI these are functions, and Omnibus's own
 * request and message handles must survive them too (shim/entry/fortran.c).
 * Rank 0 receives through a request kept only as MPI_Fint, and receives
 * a matched-probe message kept the same way; rank 1 sends (any other rank
 * only takes part in start-up and finalize).
 */
#include "testlib.h"

#define LEN 64
#define TAG 5

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    unsigned char buf[LEN];
    if (tl_rank() == 0) {
        MPI_Request req;
        CHECK_MPI(MPI_Irecv(buf, LEN, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &req));
        MPI_Fint freq = MPI_Request_c2f(req);
        MPI_Request back = MPI_Request_f2c(freq);
        CHECK(back == req,
              "MPI_Request_f2c(MPI_Request_c2f(r)) must give the receive's "
              "request r back, got another handle");
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&back, &st));
        CHECK_STATUS(st, 1, TAG, LEN, "a receive completed through its "
                     "request converted to Fortran and back");
        CHECK_PATTERN(buf, LEN, 1, 0, "the receive completed through its "
                      "converted request");

        MPI_Message msg;
        CHECK_MPI(MPI_Mprobe(1, TAG, MPI_COMM_WORLD, &msg, &st));
        MPI_Message mback = MPI_Message_f2c(MPI_Message_c2f(msg));
        CHECK(mback == msg,
              "MPI_Message_f2c(MPI_Message_c2f(m)) must give the matched "
              "message m back, got another handle");
        CHECK_MPI(MPI_Mrecv(buf, LEN, MPI_BYTE, &mback, &st));
        CHECK_STATUS(st, 1, TAG, LEN, "MPI_Mrecv of a message converted to "
                     "Fortran and back");
        CHECK_PATTERN(buf, LEN, 1, 1, "the message received through its "
                      "converted handle");
    } else if (tl_rank() == 1) {
        for (int i = 0; i < 2; i++) {
            tl_fill(buf, LEN, 1, i);
            CHECK_MPI(MPI_Send(buf, LEN, MPI_BYTE, 0, TAG, MPI_COMM_WORLD));
        }
    }
    return tl_finalize();
}
