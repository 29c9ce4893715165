/* core_pair: what the machine charges two processes for handing memory
 * to each other, with no MPI: the figure behind the per-run states of the
 * shared-memory paths (docs/design/transport.md, Choosing a path by
 * measurement).
 *
 * Usage: core_pair [-w windows] [-s bytes]
 *
 * Two processes (one fork) share one mapping.  In each window they take
 * turns on a counter in it, which measures how long a cache line takes to
 * travel from one core to the other and back (cacheline_rtt), then hand
 * `bytes` (default 64 KiB) back and forth: one copies its private buffer
 * into the shared one and passes the turn, the other copies it out and
 * back in and passes it back (handoff, one way: one copy in, one copy
 * out, what a message alone through a node ring costs).  A window lasts a
 * few milliseconds; one line per window, then the medians.  On a VM whose
 * two virtual cores the host sometimes places on cores that share a cache
 * and sometimes not, both figures move together from one start to the
 * next.  Plain C; built and run by `make core-pair`, never by `make test`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CP_LINE_TRIPS 20000
#define CP_HANDOFFS 2000
#define CP_MAX_WINDOWS 1000

static double cp_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The turn counter: even is the parent's turn, odd the child's. */
static _Atomic long *turn;

static void await_turn(int me)
{
    while (atomic_load_explicit(turn, memory_order_acquire) % 2 != me)
        ;
}

static void pass_turn(void)
{
    atomic_fetch_add_explicit(turn, 1, memory_order_acq_rel);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int windows = 10;
    size_t bytes = 65536;
    int opt;
    while ((opt = getopt(argc, argv, "w:s:")) != -1) {
        if (opt == 'w')
            windows = atoi(optarg);
        else if (opt == 's')
            bytes = (size_t)strtoul(optarg, NULL, 0);
        else {
            fprintf(stderr, "usage: core_pair [-w windows] [-s bytes]\n");
            return 2;
        }
    }
    if (windows < 1 || windows > CP_MAX_WINDOWS || bytes < 1) {
        fprintf(stderr, "core_pair: -w 1..%d, -s at least 1\n",
                CP_MAX_WINDOWS);
        return 2;
    }
    char *map = mmap(NULL, 4096 + bytes, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *mine = malloc(bytes);
    if (map == MAP_FAILED || !mine) {
        perror("core_pair");
        return 1;
    }
    turn = (_Atomic long *)map;
    char *shared = map + 4096;
    memset(mine, 1, bytes);
    memset(shared, 1, bytes);
    pid_t child = fork();
    if (child < 0) {
        perror("core_pair: fork");
        return 1;
    }
    int me = child == 0;
    static double line[CP_MAX_WINDOWS], handoff[CP_MAX_WINDOWS];
    for (int w = 0; w < windows; w++) {
        double t0 = cp_now_ns();
        for (int i = 0; i < CP_LINE_TRIPS; i++) {
            await_turn(me);
            pass_turn();
        }
        line[w] = (cp_now_ns() - t0) / CP_LINE_TRIPS;
        t0 = cp_now_ns();
        for (int i = 0; i < CP_HANDOFFS; i++) {
            await_turn(me);
            memcpy(me ? mine : shared, me ? shared : mine, bytes);
            pass_turn();
            await_turn(me);
            memcpy(me ? shared : mine, me ? mine : shared, bytes);
            pass_turn();
        }
        handoff[w] = (cp_now_ns() - t0) / CP_HANDOFFS / 2 / 1000;
        if (!me)
            printf("window %3d  cacheline_rtt %6.0f ns  handoff %zu bytes "
                   "%7.2f us\n",
                   w, line[w], bytes, handoff[w]);
    }
    if (me)
        return 0;
    waitpid(child, NULL, 0);
    printf("median     cacheline_rtt %6.0f ns  handoff %zu bytes %7.2f us\n",
           median(line, windows), bytes, median(handoff, windows));
    return 0;
}
