/* ra_buckets: HPCC MPIRandomAccess's bucket algorithm, 8 KiB to 64 KiB
 * messages, one posted receive polled with MPI_Test.
 *
 * Usage: ra_buckets [-n updates per rank] [-w warmup updates per rank]
 *                   [-s bytes] [-t table entries]
 *   -n  updates each rank sends in the timed section (default 2000000, or
 *       20000 when ranks outnumber cores)
 *   -w  untimed updates per rank first (default 10000, or 1000 when ranks
 *       outnumber cores)
 *   -s  bytes of a bucket, the largest update message (default 64K: 64 KiB
 *       messages at 2 ranks, about 10 to 16 KiB at 8, where the fullest of
 *       7 buckets goes)
 *   -t  table entries per rank, K/M suffixes allowed (default 64K)
 *
 * The program buckets its own updates per destination and sends a whole
 * bucket as one MPI_Isend (bench_ra.h), so under Omnibus every update
 * message is above the aggregation threshold: it must not run slower than
 * under MPICH (the target is at least 0.95x; bench/results/log.md,
 * 2026-11-26).  HPCC polls one posted
 * MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) with MPI_Test before each update it
 * draws, as here; ra_testany is its variant with an array of receives.
 * Checks and RESULT: bench_bulk.h.
 */
#include "bench_ra.h"

int main(int argc, char **argv)
{
    static const ra_kind kind = {
        .name = "ra_buckets",
        .usage = "[-n updates per rank] [-w warmup updates per rank] "
                 "[-s bytes] [-t table entries]",
        .testany = 0,
        .bytes = 64 * 1024,
        .recvs = 1,
    };
    return ra_main(argc, argv, &kind);
}
