/* bench_common.h: what every benchmark kernel shares.
 *
 * Contract for a kernel: a plain MPI program, unaware of Omnibus, that checks
 * its own result and prints exactly one line on stdout, from rank 0:
 *
 *     RESULT <kernel> rate=<number> unit=<msgs/s|us> check=ok [key=value ...]
 *
 * and nothing else on stdout.  A wrong result prints a diagnostic on stderr
 * and ends the job with a non-zero status (MPI_Abort), never a RESULT line:
 * every rank's checks are combined (bench_verdict) before rank 0 prints.
 * The line is printed and flushed before MPI_Finalize, because over
 * UCX_TLS=tcp,self with three or more ranks MPI_Finalize often hangs after
 * the work is done (docs/cluster.md, The finalize hang); the runner accepts
 * a run whose line appeared.
 * Timed sections start and end with a barrier, so they cover delivery
 * (bench_clock_start, bench_clock_stop), and the line carries the CPU time
 * that section took per message (bench_cpu_key): cpu_ns=<ns> over every
 * rank, and for kernels whose ranks either send or receive also
 * cpu_send_ns=<ns> and cpu_recv_ns=<ns>, each side's ranks alone.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline int bench_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline int bench_size(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

/* Pairs for the two-sided kernels, as in osu_mbw_mr: rank i < P/2 is the
 * active side of pair i and talks to i + P/2.  With an odd P the last rank
 * has no partner and returns -1: it only joins the barriers. */
static inline int bench_pair_peer(int rank, int size)
{
    int half = size / 2;
    if (rank < half)
        return rank + half;
    if (rank < 2 * half)
        return rank - half;
    return -1;
}

/* True on every rank when some node runs more ranks than it has CPUs.  The
 * kernels then default to far smaller sizes: plain MPICH busy-polls, and
 * measured here with 8 ranks on 2 cores a blocked rank waits a scheduler
 * time slice, so message rates fall from millions to tens of thousands per
 * second.  Called only when a size was left to its default. */
static inline int bench_oversubscribed(void)
{
    MPI_Comm node;
    int local, over, any;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    over = cpus > 0 && local > cpus;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any;
}

/* Usage errors are reported by rank 0 only, so the message appears once. */
static inline void bench_usage(const char *kernel, const char *usage)
{
    if (bench_rank() == 0)
        fprintf(stderr, "%s: usage: %s %s\n", kernel, kernel, usage);
    MPI_Finalize();
    exit(2);
}

/* Set once a check failed on this rank; see bench_verdict(). */
static int bench_failed_here;

/* Records a failed check on this rank, with its diagnostic on stderr at
 * once.  The job goes on to bench_verdict(), so that the rank that prints
 * the RESULT line learns of failures seen elsewhere before it prints. */
static inline void bench_check_failed(const char *kernel, const char *fmt,
                                      ...)
{
    va_list ap;
    fprintf(stderr, "%s: rank %d: check failed: ", kernel, bench_rank());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    bench_failed_here = 1;
}

/* Collective: returns only when every rank's checks passed; otherwise the
 * job ends with status 1 and no RESULT line. */
static inline void bench_verdict(void)
{
    int ok = !bench_failed_here, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        MPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }
}

/* Every kernel needs a partner for rank 0; a job of one rank is refused. */
static inline void bench_require_two_ranks(const char *kernel)
{
    if (bench_size() >= 2)
        return;
    fprintf(stderr, "%s: needs at least 2 ranks\n", kernel);
    MPI_Finalize();
    exit(2);
}

/* Stops the whole job at once, for what leaves nothing to check (no
 * memory): a wrong result must never look like a finished run. */
static inline void bench_fail(const char *kernel, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: rank %d: check failed: ", kernel, bench_rank());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Parses a count with an optional K/M/G suffix (powers of 1024 for sizes,
 * which is what "64K" means to a user of message sizes).  Returns -1 on
 * anything else, including values below `min`. */
static inline long long bench_parse_count(const char *s, long long min)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K') {
        v *= 1024;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1024 * 1024;
        end++;
    } else if (*end == 'g' || *end == 'G') {
        v *= 1024LL * 1024 * 1024;
        end++;
    }
    if (*end != '\0' || v < min)
        return -1;
    return v;
}

/* A message's stamp: v in its first 8 bytes and, from 16 bytes on, in its
 * last 8 too (the low bytes of v when it is shorter than 8), so that a
 * message that arrived whole, in order and for the right round carries it
 * at both ends.  bench_stamped says whether buf carries it. */
static inline void bench_stamp(unsigned char *buf, size_t size, uint64_t v)
{
    if (size < 8) {
        for (size_t i = 0; i < size; i++)
            buf[i] = (unsigned char)(v >> (8 * i));
        return;
    }
    memcpy(buf, &v, 8);
    if (size >= 16)
        memcpy(buf + size - 8, &v, 8);
}

static inline int bench_stamped(const unsigned char *buf, size_t size,
                                uint64_t v)
{
    unsigned char want[8];
    size_t head = size < 8 ? size : 8;
    bench_stamp(want, head, v);
    if (memcmp(buf, want, head) != 0)
        return 0;
    return size < 16 || memcmp(buf + size - 8, want, 8) == 0;
}

/* splitmix64: a small, fast, well-mixed generator; each rank seeds its own
 * stream so runs are reproducible and ranks are independent. */
static inline uint64_t bench_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); the modulo bias is below 2^-40 for the n used here. */
static inline uint64_t bench_rng_below(uint64_t *state, uint64_t n)
{
    return bench_rng_next(state) % n;
}

static inline uint64_t bench_mix(uint64_t x)
{
    uint64_t s = x;
    return bench_rng_next(&s);
}

/* The checks of the random-update kernels (gups, histogram), collective:
 * from each source exactly the updates it sent here arrived (sent_to is
 * exchanged with MPI_Alltoall), none carried an index outside the table,
 * and over all ranks the table's sum and index-weighted sum equal the
 * number of updates and the sum of the indices sent (mod 2^64).  Failures
 * go to bench_check_failed; bench_verdict() still has to be called. */
static inline void bench_check_updates(const char *kernel,
                                       const long long *sent_to,
                                       const long long *recv_from,
                                       long long bad_index,
                                       const uint64_t *table,
                                       uint64_t table_size,
                                       uint64_t index_sum_sent)
{
    int size = bench_size();
    long long *expect = malloc(sizeof *expect * (size_t)size);
    if (!expect)
        bench_fail(kernel, "out of memory for the update counts");
    MPI_Alltoall((void *)sent_to, 1, MPI_LONG_LONG, expect, 1, MPI_LONG_LONG,
                 MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        if (expect[r] != recv_from[r])
            bench_check_failed(kernel, "rank %d sent %lld updates here, %lld "
                               "arrived", r, expect[r], recv_from[r]);
    free(expect);
    if (bad_index)
        bench_check_failed(kernel, "%lld updates carried an index outside "
                           "the table", bad_index);
    /* local[0..1]: what arrived; local[2..3]: what was sent. */
    uint64_t local[4] = {0, 0, 0, index_sum_sent}, global[4];
    for (uint64_t i = 0; i < table_size; i++) {
        local[0] += table[i];
        local[1] += i * table[i];
    }
    for (int r = 0; r < size; r++)
        local[2] += (uint64_t)sent_to[r];
    MPI_Reduce(local, global, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (bench_rank() == 0 &&
        (global[0] != global[2] || global[1] != global[3]))
        bench_check_failed(kernel, "table checksum %llu/%llu, expected "
                           "%llu/%llu", (unsigned long long)global[0],
                           (unsigned long long)global[1],
                           (unsigned long long)global[2],
                           (unsigned long long)global[3]);
}

/* The timed section of a kernel: wall-clock seconds (MPI_Wtime) and this
 * process's CPU seconds, between two barriers so that it covers delivery. */
typedef struct {
    double wall0, cpu0;
    double seconds;     /* after bench_clock_stop */
    double cpu_seconds; /* this rank's, after bench_clock_stop */
} bench_clock;

/* CPU time of the whole process, every thread included (a progress thread
 * of the preloaded library counts: it is part of what a message costs). */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Spins for `ns` nanoseconds of the monotonic clock (nothing for ns <= 0):
 * the work a receiver does on each message it receives (-W). */
static inline void bench_spin_ns(long long ns)
{
    if (ns <= 0)
        return;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) <
           ns);
}

/* Collective: opens the timed section once every rank is here. */
static inline void bench_clock_start(bench_clock *c)
{
    MPI_Barrier(MPI_COMM_WORLD);
    c->wall0 = MPI_Wtime();
    c->cpu0 = bench_cpu_now();
}

/* Collective: closes the timed section once every rank is here; returns
 * its wall-clock seconds. */
static inline double bench_clock_stop(bench_clock *c)
{
    MPI_Barrier(MPI_COMM_WORLD);
    c->seconds = MPI_Wtime() - c->wall0;
    c->cpu_seconds = bench_cpu_now() - c->cpu0;
    return c->seconds;
}

/* What a rank does in the timed section, for bench_cpu_key.  A rank with no
 * partner (the odd one out of a pair kernel) is IDLE and counts nowhere. */
enum { BENCH_SIDE_BOTH, BENCH_SIDE_SEND, BENCH_SIDE_RECV, BENCH_SIDE_IDLE };

/* The side of a rank of a pair kernel (bench_pair_peer): the active half
 * sends, the passive half receives. */
static inline int bench_pair_side(int peer, int sender)
{
    return peer < 0 ? BENCH_SIDE_IDLE
           : sender ? BENCH_SIDE_SEND
                    : BENCH_SIDE_RECV;
}

/* Collective, after bench_clock_stop: writes " cpu_ns=<ns>" into key (room
 * for BENCH_CPU_KEY characters), the CPU nanoseconds of the timed section
 * summed over ranks, per message (`messages`: the count behind the rate).
 * When some rank only sends or only receives, " cpu_send_ns=<ns>
 * cpu_recv_ns=<ns>" follow: the sending ranks' CPU and the receiving ranks'
 * CPU, each per message, so the two sides of one message add up to cpu_ns.
 * Busy-polling ranks burn CPU while they wait, so on a rank that waits for
 * its peer this is close to its wall-clock time; it says most where ranks
 * block, yield or share cores. */
#define BENCH_CPU_KEY 80
static inline const char *bench_cpu_key(char *key, const bench_clock *c,
                                        int side, double messages)
{
    /* [0] every rank with a side, [1] send-only, [2] receive-only */
    double mine[3] = {0, 0, 0}, sum[3] = {0, 0, 0};
    if (side != BENCH_SIDE_IDLE)
        mine[0] = c->cpu_seconds;
    if (side == BENCH_SIDE_SEND)
        mine[1] = c->cpu_seconds;
    if (side == BENCH_SIDE_RECV)
        mine[2] = c->cpu_seconds;
    int split = side == BENCH_SIDE_SEND || side == BENCH_SIDE_RECV, any;
    MPI_Reduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&split, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    double per = messages > 0 ? 1e9 / messages : 0;
    int n = snprintf(key, BENCH_CPU_KEY, " cpu_ns=%.4g", sum[0] * per);
    if (any)
        snprintf(key + n, (size_t)(BENCH_CPU_KEY - n),
                 " cpu_send_ns=%.4g cpu_recv_ns=%.4g", sum[1] * per,
                 sum[2] * per);
    return key;
}

/* Rank 0 prints the single stdout line; `extra` is " key=value ..." or "". */
static inline void bench_result(const char *kernel, double rate,
                                const char *unit, const char *extra)
{
    if (bench_rank() == 0) {
        printf("RESULT %s rate=%.6g unit=%s check=ok%s\n", kernel, rate, unit,
               extra);
        fflush(stdout);
    }
}

#endif
