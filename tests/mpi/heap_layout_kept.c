/* heap_layout_kept: MPI_Init, and messages of 64 KiB to 1 MiB after it,
 * leave the program's large buffers where glibc puts them without
 * Omnibus.
 *
 * glibc serves a malloc of 128 KiB or more by mmap, at 16 bytes past a
 * page, until a chunk it mapped is freed: that raises its threshold to the
 * chunk's size, and later buffers up to it come from the heap, at other
 * offsets.  A library that allocates and frees such a chunk while the
 * program runs therefore moves the program's buffers, and with them the
 * cost of every copy between them: on an AMD EPYC VM a 128 KiB ping-pong
 * whose two buffers moved took four times as long, the kernel's copy from
 * one to the other running at a slow distance (docs/design/transport.md,
 * Copies and alignment).  Neither MPICH nor Open MPI does this in MPI_Init
 * or in moving such messages; a library the program cannot tell is there
 * must not either.  The buffers are never freed here: freeing one would
 * raise the threshold itself.
 *
 * Between the two checks the leader of each pair (testlib.h) sends its
 * partner messages of each size twice, once received as it comes and
 * once only after a later message, so that it waits unexpected.
 */
#include "testlib.h"
#include <malloc.h>

#define BIG ((size_t)128 * 1024)
/* Requests of BIG bytes in a row: free room in the heap may serve the
 * first few of them (glibc maps only what the heap cannot serve), but not
 * 2 MiB of them, unless the threshold was raised. */
#define TRIES 16

static void *volatile kept[3][TRIES];

static const int sizes[] = {65536, 140000, 300000, 1 << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSIZE (1 << 20)

/* Each size as an MPI_Isend received after the MPI_Send that follows it
 * (so it arrives before its receive is posted), and that MPI_Send. */
static void exchange(void)
{
    int peer = tl_partner();
    if (peer == MPI_PROC_NULL)
        return;
    /* Not from malloc: freeing it would raise the threshold itself. */
    static char buf[MAXSIZE];
    for (int s = 0; s < NSIZES; s++) {
        if (tl_leads()) {
            MPI_Request req;
            CHECK_MPI(MPI_Isend(buf, sizes[s], MPI_BYTE, peer, 2 * s,
                                MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Send(buf, sizes[s], MPI_BYTE, peer, 2 * s + 1,
                               MPI_COMM_WORLD));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(buf, sizes[s], MPI_BYTE, peer, 2 * s + 1,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(buf, sizes[s], MPI_BYTE, peer, 2 * s,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
}

/* Whether glibc maps a request of BIG bytes once the heap's free room is
 * used up: one of TRIES requests in a row, kept, is mapped. */
static int big_malloc_mapped(int i)
{
    for (int k = 0; k < TRIES; k++) {
        size_t before = mallinfo2().hblks;
        kept[i][k] = malloc(BIG);
        if (kept[i][k] && mallinfo2().hblks == before + 1)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int mapped_before = big_malloc_mapped(0);
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int mapped_after = big_malloc_mapped(1);
    CHECK(mapped_after == mapped_before,
          "MPI_Init leaves alone whether glibc maps 128 KiB mallocs once "
          "the heap's free room is used (before: %d); after MPI_Init: %d "
          "(none of 16 in a row mapped), so something freed a mapped chunk "
          "during MPI_Init and raised glibc's threshold",
          mapped_before, mapped_after);
    exchange();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int mapped_later = big_malloc_mapped(2);
    CHECK(mapped_later == mapped_before,
          "messages of 64 KiB to 1 MiB, received as they came and after "
          "they came, leave alone whether glibc maps 128 KiB mallocs "
          "(before MPI_Init: %d); after them: %d, so something freed a "
          "mapped chunk while they moved and raised glibc's threshold",
          mapped_before, mapped_later);
    return tl_finalize();
}
