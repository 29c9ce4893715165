/* ra_testany: HPCC MPIRandomAccess with its multiple receives: 8 KiB
 * messages, 16 posted receives polled with MPI_Testany.
 *
 * Usage: ra_testany [-n updates per rank] [-w warmup updates per rank]
 *                   [-s bytes] [-t table entries] [-r receives]
 *   -n  updates each rank sends in the timed section (default 2000000, or
 *       20000 when ranks outnumber cores)
 *   -w  untimed updates per rank first (default 10000, or 1000 when ranks
 *       outnumber cores)
 *   -s  bytes of a bucket, the largest update message (default 8K, HPCC's
 *       1024 updates)
 *   -t  table entries per rank, K/M suffixes allowed (default 64K)
 *   -r  receives kept posted, 1 .. 1024 (default 16, HPCC's MAX_RECV)
 *
 * The sender is ra_buckets's (bench_ra.h).  The receiver keeps -r receives
 * posted with MPI_ANY_SOURCE and MPI_ANY_TAG and calls MPI_Testany over all
 * of them before each update it draws, and again while one completes: about
 * one MPI_Testany per update, most of them finding nothing, which is the call
 * HPCC RandomAccess makes millions of times per rank.  At the end the
 * receives still posted are cancelled, as HPCC does.  Checks and RESULT:
 * bench_bulk.h (RESULT adds recvs=).
 */
#include "bench_ra.h"

int main(int argc, char **argv)
{
    static const ra_kind kind = {
        .name = "ra_testany",
        .usage = "[-n updates per rank] [-w warmup updates per rank] "
                 "[-s bytes] [-t table entries] [-r receives]",
        .testany = 1,
        .bytes = 8 * 1024,
        .recvs = 16,
    };
    return ra_main(argc, argv, &kind);
}
