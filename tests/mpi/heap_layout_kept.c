/* heap_layout_kept: MPI_Init leaves the program's large buffers where
 * glibc puts them without Omnibus.
 *
 * glibc serves a malloc of 128 KiB or more by mmap, at 16 bytes past a
 * page, until a chunk it mapped is freed: that raises its threshold to the
 * chunk's size, and later buffers up to it come from the heap, at other
 * offsets.  A library that allocates and frees such a chunk while the
 * program runs therefore moves the program's buffers, and with them the
 * cost of every copy between them: on an AMD EPYC VM a 128 KiB ping-pong
 * whose two buffers moved took four times as long, the kernel's copy from
 * one to the other running at a slow distance (docs/design/transport.md,
 * Copies and alignment).  MPICH does not do this in MPI_Init; a library
 * the program cannot tell is there must not either.  (Open MPI 4.1 changes
 * it itself, so the test runs under MPICH only: tests/mpi/openmpi.skip.)
 * The buffers are never freed here: freeing one would raise the threshold
 * itself.
 */
#include "testlib.h"
#include <malloc.h>

#define BIG ((size_t)128 * 1024)
/* Requests of BIG bytes in a row: free room in the heap may serve the
 * first few of them (glibc maps only what the heap cannot serve), but not
 * 2 MiB of them, unless the threshold was raised. */
#define TRIES 16

static void *volatile kept[2][TRIES];

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
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
