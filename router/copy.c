#include "router/copy.h"
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

const size_t cp_timed_sizes[CP_TIMED_SIZES] = {4096, CP_TIMED_MAX};

void cp_loop(void *to, const void *from, size_t n)
{
#if defined(__SSE2__)
    char *t = to;
    const char *f = from;
    /* The first 16 bytes as one unaligned move, then from the first
     * 16-byte boundary of the destination on: every store aligned, every
     * load whatever the source's offset; the last 16 bytes again as one
     * move ending at the end. */
    size_t head = (16 - ((uintptr_t)t & 15)) & 15;
    _mm_storeu_si128((__m128i *)t, _mm_loadu_si128((const __m128i *)f));
    t += head;
    f += head;
    n -= head;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(f + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(f + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(f + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(f + i + 48));
        _mm_store_si128((__m128i *)(t + i), a);
        _mm_store_si128((__m128i *)(t + i + 16), b);
        _mm_store_si128((__m128i *)(t + i + 32), c);
        _mm_store_si128((__m128i *)(t + i + 48), d);
    }
    for (; i + 16 <= n; i += 16)
        _mm_store_si128((__m128i *)(t + i),
                        _mm_loadu_si128((const __m128i *)(f + i)));
    if (i < n)
        _mm_storeu_si128((__m128i *)(t + n - 16),
                         _mm_loadu_si128((const __m128i *)(f + n - 16)));
#else
    memcpy(to, from, n);
#endif
}

uint64_t cp_slow_skews(const double memcpy_ns[CP_SKEWS],
                       const double loop_ns[CP_SKEWS])
{
    uint64_t slow = 0;
    for (int k = 0; k < CP_SKEWS; k++) {
        double m = memcpy_ns[k], l = loop_ns[k];
        /* Written so that a NaN compares false and says "not slow". */
        if (m > 0 && l > 0 && l < (1 - CP_MARGIN) * m)
            slow |= (uint64_t)1 << k;
    }
    return slow;
}

static double cp_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The call through a pointer the compiler cannot see through, so neither
 * copy is folded into the other or dropped. */
typedef void *(*cp_fn)(void *, const void *, size_t);
static void *cp_loop_fn(void *to, const void *from, size_t n)
{
    cp_loop(to, from, n);
    return to;
}

static double cp_time_one(cp_fn volatile fn, char *to, const char *from,
                          size_t bytes)
{
    double best = 0;
    for (int trial = 0; trial < CP_TRIALS; trial++) {
        double t0 = cp_now_ns();
        fn(to, from, bytes);
        double t = cp_now_ns() - t0;
        if (trial == 0 || t < best)
            best = t;
    }
    return best;
}

void cp_time_skews(char *scratch, size_t bytes, uint64_t skip,
                   double memcpy_ns[CP_SKEWS], double loop_ns[CP_SKEWS])
{
    if (bytes > CP_TIMED_MAX)
        bytes = CP_TIMED_MAX;
    memset(scratch, 1, CP_SCRATCH);
    /* The source at a page boundary, the destination k bytes past a page
     * boundary further on. */
    char *from = scratch + ((CP_PAGE - ((uintptr_t)scratch & (CP_PAGE - 1))) &
                            (CP_PAGE - 1));
    char *base = from + CP_TIMED_MAX + CP_PAGE;
    for (int k = 0; k < CP_SKEWS; k++) {
        if ((skip >> k) & 1u) {
            memcpy_ns[k] = loop_ns[k] = 0;
            continue;
        }
        memcpy_ns[k] = cp_time_one(memcpy, base + k, from, bytes);
        loop_ns[k] = cp_time_one(cp_loop_fn, base + k, from, bytes);
    }
}

uint64_t cp_slow_skews_timed(const cp_timing t[CP_PASSES][CP_TIMED_SIZES])
{
    uint64_t slow = 0;
    for (int size = 0; size < CP_TIMED_SIZES; size++) {
        uint64_t every_pass = ~(uint64_t)0;
        for (int pass = 0; pass < CP_PASSES; pass++)
            every_pass &= cp_slow_skews(t[pass][size].memcpy_ns,
                                        t[pass][size].loop_ns);
        slow |= every_pass;
    }
    return slow;
}

uint64_t cp_find_slow_skews(char *scratch)
{
    /* Sizes not yet timed cost 0: not measured, never slow. */
    cp_timing t[CP_PASSES][CP_TIMED_SIZES] = {0};
    uint64_t slow = 0;
    for (int size = 0; size < CP_TIMED_SIZES; size++) {
        for (int pass = 0; pass < CP_PASSES; pass++)
            cp_time_skews(scratch, cp_timed_sizes[size], slow,
                          t[pass][size].memcpy_ns, t[pass][size].loop_ns);
        slow = cp_slow_skews_timed(t);
    }
    return slow;
}
