/* relay_in_opaque_collectives: a message sent just before a collective
 * that has no nonblocking form arrives, though every other rank already
 * waits inside that collective.
 *
 * MPI 4.1 §3.5 and §3.7.4: a completed send is delivered to a posted
 * matching receive whatever the sender does next, here enter a collective
 * that the receiver joins only once the message is in.  Under a multi-hop
 * topology the ranks already inside the collective are the relays of that
 * message; Omnibus cannot make MPICH's file, window and communicator
 * calls forward, so it must keep them from being entered while a member
 * still waits.  One phase per call: the ranks that do not talk enter it at
 * once; the talkers (the first pair of testlib.h, multi-hop on every grid
 * Omnibus builds for 3 to 9 ranks) first let them get there, then each
 * sends one message and waits for the other's before entering.  Each phase
 * checks the message and the collective's own result.
 */
#include "testlib.h"

/* The talkers' exchange before the call `what`: a small message each way,
 * sent by a blocking send that completes once Omnibus has buffered it. */
static void talk_then_enter(int me, int other, int phase, const char *what)
{
    long out = phase * 1000L + me, in = -1;
    int flag = 0;
    MPI_Request req;
    tl_sleep(0.05); /* the others are inside `what` by now */
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_LONG, other, phase, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Send(&out, 1, MPI_LONG, other, phase, MPI_COMM_WORLD));
    for (double t0 = tl_now(); !flag;) {
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(flag || tl_now() - t0 < 20, "%s: the message rank %d sent "
              "before entering it must arrive while the other ranks wait "
              "inside it; none came in 20 s", what, other);
    }
    CHECK(in == phase * 1000L + other, "%s: the message from rank %d must "
          "carry %ld, got %ld", what, other, phase * 1000L + other, in);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), size = tl_size(), last = size - 1;
    int first = size % 2;
    int talker = me == first || me == last;
    int other = me == first ? last : first;
    int phase = 0;
#define BEFORE(what)                                                           \
    do {                                                                       \
        tl_watchdog_rearm();                                                   \
        if (talker)                                                            \
            talk_then_enter(me, other, ++phase, what);                         \
    } while (0)

    int pid = (int)getpid();
    CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    char path[256];
    snprintf(path, sizeof path, "/tmp/omnibus_riop_%d", pid);

    MPI_Comm half;
    BEFORE("MPI_Comm_split");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    int hsize = 0;
    CHECK_MPI(MPI_Comm_size(half, &hsize));
    CHECK(hsize == (size + 1 - me % 2) / 2, "MPI_Comm_split: the half of "
          "rank %d must have %d ranks, has %d", me, (size + 1 - me % 2) / 2,
          hsize);
    CHECK_MPI(MPI_Comm_free(&half));

    MPI_File fh;
    BEFORE("MPI_File_open");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR
                         | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    BEFORE("MPI_File_set_size");
    CHECK_MPI(MPI_File_set_size(fh, 4096));
    MPI_Offset fsize = 0;
    CHECK_MPI(MPI_File_get_size(fh, &fsize));
    CHECK(fsize == 4096, "MPI_File_set_size: the file must have 4096 bytes, "
          "has %lld", (long long)fsize);
    long word = 7000 + me, back = -1;
    BEFORE("MPI_File_write_ordered");
    CHECK_MPI(MPI_File_write_ordered(fh, &word, 1, MPI_LONG, MPI_STATUS_IGNORE));
    BEFORE("MPI_File_sync");
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)(sizeof(long) * (size_t)me),
                            &back, 1, MPI_LONG, MPI_STATUS_IGNORE));
    CHECK(back == word, "MPI_File_write_ordered: rank %d's word must be "
          "%ld at its rank's place, read %ld", me, word, back);
    BEFORE("MPI_File_close");
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "MPI_File_close must leave MPI_FILE_NULL");

    static volatile long cell = -1; /* written by MPI_Put */
    MPI_Win win;
    BEFORE("MPI_Win_create");
    CHECK_MPI(MPI_Win_create((void *)&cell, sizeof cell, sizeof cell, MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
    BEFORE("MPI_Win_fence (opening)");
    CHECK_MPI(MPI_Win_fence(0, win));
    long mine = 500 + me;
    CHECK_MPI(MPI_Put(&mine, 1, MPI_LONG, (me + 1) % size, 0, 1, MPI_LONG, win));
    BEFORE("MPI_Win_fence (closing)");
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(cell == 500 + (me + size - 1) % size, "MPI_Put between fences: "
          "the cell must hold %d, holds %ld", 500 + (me + size - 1) % size,
          cell);
    BEFORE("MPI_Win_free");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free must leave MPI_WIN_NULL");

    long *base = NULL;
    BEFORE("MPI_Win_allocate");
    CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    BEFORE("MPI_Win_free (allocated)");
    CHECK_MPI(MPI_Win_free(&win));
    return tl_finalize();
}
