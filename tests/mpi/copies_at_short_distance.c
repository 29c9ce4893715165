/* copies_at_short_distance: a message whose receive buffer lies a few
 * bytes past its send buffer, modulo a page, arrives whole and exact, on
 * every path it can take.
 *
 * Ranks that allocate alike often have their send and receive buffers at
 * such a distance (16 bytes: glibc's chunk header), and on some machines
 * memcpy and the kernel's copy run many times slower there, so Omnibus
 * copies those bytes its own way: a loop of its own into and out of its
 * blocks and rings, and a single-copy read through a buffer of its own,
 * 64 KiB at a time (docs/design/transport.md, Copies and alignment).
 * Whether it does depends on the machine (OMNIBUS_COPIES=timed); under
 * OMNIBUS_COPIES=loop it does at every distance up to 63 bytes, and
 * run-tests checks from the statistics file that it did.  MPI's promise
 * is the same either way (MPI 4.1 §3.2.4, §3.7): every byte of each
 * message, its status's count, and nothing written past the buffer.
 *
 * The leader of each pair (testlib.h) sends every size at every distance,
 * first with MPI_Isend (above 16 KiB a single-copy read on a node), then
 * with MPI_Send; its partner receives each into a buffer that distance
 * past the send buffer's offset in its page, with a guard after it.
 */
#include "testlib.h"
#include <stdint.h>

/* Up to a ring record (16 KiB, 64 KiB), above it, and past the read's
 * 64 KiB pieces with a tail of a few bytes. */
static const size_t sizes[] = {4096, 16384, 65536, 200 * 1024,
                               2 * 65536 + 5};
static const int distances[] = {1, 16, 31, 48};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define NDIST ((int)(sizeof distances / sizeof distances[0]))
#define MAXSIZE (200 * 1024) /* the largest of sizes[] */
#define OFFSET 64 /* the send buffer's offset in its page */
#define GUARD 64

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner_or_finish();
    unsigned char *page = tl_page_buffer(MAXSIZE + 2 * TL_PAGE);
    for (int blocking = 0; blocking < 2; blocking++)
        for (int s = 0; s < NSIZES; s++)
            for (int d = 0; d < NDIST; d++) {
                long msg = (blocking * NSIZES + s) * NDIST + d;
                size_t n = sizes[s];
                int tag = (int)msg;
                if (tl_leads()) {
                    unsigned char *buf = page + OFFSET;
                    tl_fill(buf, n, tl_rank(), msg);
                    if (blocking) {
                        CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, peer, tag,
                                           MPI_COMM_WORLD));
                    } else {
                        MPI_Request req;
                        CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, peer, tag,
                                            MPI_COMM_WORLD, &req));
                        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    }
                } else {
                    unsigned char *buf = page + OFFSET + distances[d];
                    MPI_Status st;
                    memset(buf, 0xCC, n + GUARD);
                    CHECK_MPI(MPI_Recv(buf, (int)n + GUARD, MPI_BYTE, peer,
                                       tag, MPI_COMM_WORLD, &st));
                    CHECK_STATUS(st, peer, tag, n,
                                 "%s of %zu bytes received %d bytes past "
                                 "its send buffer, modulo a page",
                                 blocking ? "MPI_Send" : "MPI_Isend", n,
                                 distances[d]);
                    CHECK_PATTERN(buf, n, peer, msg,
                                  "%s of %zu bytes at distance %d",
                                  blocking ? "MPI_Send" : "MPI_Isend", n,
                                  distances[d]);
                    CHECK_FILLED(buf + n, GUARD, 0xCC,
                                 "the %d bytes after a receive of %zu bytes "
                                 "at distance %d",
                                 GUARD, n, distances[d]);
                }
            }
    free(page);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return tl_finalize();
}
