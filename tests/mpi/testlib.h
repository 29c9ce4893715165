/* testlib.h: the helpers shared by the mpiexec regression tests.
 *
 * Every test is a plain MPI program that must behave identically with and
 * without Omnibus preloaded.  The rules the harness (scripts/test/run-tests)
 * relies on:
 *   - nothing is ever written to stdout: any stdout line is a failure;
 *   - a broken promise prints one line "FAIL <test>: rank R: <message>" on
 *     stderr and aborts the whole job (MPI_Abort), so the run exits non-zero;
 *   - success prints nothing and exits 0.
 * The message says what MPI promised and what happened instead.
 *
 * Usage:
 *   tl_init(&argc, &argv, min_ranks, max_ranks);  usually 2, TL_MAX_RANKS
 *   tl_partner(), tl_leads()   the pairs of the two-party tests (below);
 *   tl_partner_of(r), tl_leads_of(r)  the same for rank r
 *   return tl_run_pairs(...);  a two-party test's whole main (below)
 *   tl_stream_out/_in(...)     one sender's stream, checked in order
 *   tl_right(k), tl_left(k)    ring neighbours
 *   CHECK(cond, "fmt", ...);   counts an assertion, fails when cond is false
 *   CHECK_MPI(call);              the call must return MPI_SUCCESS
 *   return tl_finalize();      fails if no rank asserted anything
 *
 * A watchdog (SIGALRM, TESTLIB_TIMEOUT seconds, default 40, 0 disables)
 * turns a hang into a FAIL line naming the rank, so a deadlock is reported
 * as such rather than as a bare timeout of the runner.
 */
#ifndef OMNIBUS_TESTLIB_H
#define OMNIBUS_TESTLIB_H

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int tl_asserts; /* CHECKs evaluated on this rank */
static int tl_rank_cached = -1;

static inline const char *tl_test_name(void)
{
    static char name[128];
    if (!name[0]) {
#ifdef __BASE_FILE__
        const char *f = __BASE_FILE__; /* the test's .c file, not this one */
#else
        const char *f = __FILE__;
#endif
        const char *slash = strrchr(f, '/');
        const char *base = slash ? slash + 1 : f;
        size_t n = strcspn(base, ".");
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, base, n);
        name[n] = '\0';
    }
    return name;
}

static inline int tl_rank(void)
{
    int init = 0, fin = 0;
    if (tl_rank_cached >= 0)
        return tl_rank_cached;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &tl_rank_cached);
    return tl_rank_cached;
}

__attribute__((format(printf, 3, 4), noreturn)) static void
tl_fail_at(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s: rank %d: %s (%s:%d)\n", tl_test_name(),
            tl_rank(), msg, file, line);
    fflush(stderr);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define FAIL(...) tl_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        tl_asserts++;                                                          \
        if (!(cond))                                                           \
            FAIL(__VA_ARGS__);                                                 \
    } while (0)

static inline const char *tl_errstr(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 32];
    int len = 0, cls = -1;
    char s[MPI_MAX_ERROR_STRING];
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "(no error string)");
    MPI_Error_class(code, &cls);
    snprintf(buf, sizeof buf, "code %d class %d: %s", code, cls, s);
    return buf;
}

/* The error class of a return code, or -1 if MPI cannot classify it. */
static inline int tl_class(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

#define CHECK_MPI(call)                                                        \
    do {                                                                       \
        int tl_rc_ = (call);                                                   \
        tl_asserts++;                                                          \
        if (tl_rc_ != MPI_SUCCESS)                                             \
            FAIL("%s must return MPI_SUCCESS, returned %s", #call,             \
                 tl_errstr(tl_rc_));                                           \
    } while (0)

/* ---- payload patterns: byte k of message i from rank s ---------------- */

static inline unsigned char tl_byte(int src, long msg, size_t k)
{
    uint64_t x = (uint64_t)(unsigned)src * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)msg * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)k * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static inline void tl_fill(void *buf, size_t n, int src, long msg)
{
    unsigned char *p = buf;
    for (size_t k = 0; k < n; k++)
        p[k] = tl_byte(src, msg, k);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long tl_mismatch(const void *buf, size_t n, int src, long msg)
{
    const unsigned char *p = buf;
    for (size_t k = 0; k < n; k++)
        if (p[k] != tl_byte(src, msg, k))
            return (long)k;
    return -1;
}

/* n bytes from a page boundary on, for a test that places its buffers at
 * chosen offsets within a page; the caller frees it. */
#define TL_PAGE 4096
static inline unsigned char *tl_page_buffer(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, TL_PAGE, n) != 0)
        FAIL("posix_memalign of %zu bytes failed", n);
    return p;
}

/* Fails unless buf holds message msg of rank src; `what` names the receive. */
#define CHECK_PATTERN(buf, n, src, msg, ...)                                   \
    do {                                                                       \
        long tl_bad_ = tl_mismatch((buf), (n), (src), (msg));                  \
        tl_asserts++;                                                          \
        if (tl_bad_ >= 0) {                                                    \
            char tl_what_[256];                                                \
            snprintf(tl_what_, sizeof tl_what_, __VA_ARGS__);                  \
            FAIL("%s: expected the %zu bytes of message %ld from rank %d; "   \
                 "byte %ld is 0x%02x, expected 0x%02x",                        \
                 tl_what_, (size_t)(n), (long)(msg), (int)(src), tl_bad_,     \
                 ((const unsigned char *)(buf))[tl_bad_],                      \
                 tl_byte((src), (msg), (size_t)tl_bad_));                      \
        }                                                                      \
    } while (0)

/* Fails unless every byte of buf equals c (guard areas, untouched buffers). */
#define CHECK_FILLED(buf, n, c, ...)                                           \
    do {                                                                       \
        const unsigned char *tl_p_ = (const unsigned char *)(buf);             \
        tl_asserts++;                                                          \
        for (size_t tl_k_ = 0; tl_k_ < (size_t)(n); tl_k_++)                   \
            if (tl_p_[tl_k_] != (unsigned char)(c)) {                          \
                char tl_what_[256];                                            \
                snprintf(tl_what_, sizeof tl_what_, __VA_ARGS__);              \
                FAIL("%s: byte %zu is 0x%02x, must still be 0x%02x",           \
                     tl_what_, tl_k_, tl_p_[tl_k_], (unsigned char)(c));       \
            }                                                                  \
    } while (0)

/* Checks a receive status: source, tag and the byte count. */
#define CHECK_STATUS(st, src, tag, nbytes, ...)                                \
    do {                                                                       \
        int tl_cnt_ = -2;                                                      \
        char tl_what_[256];                                                    \
        snprintf(tl_what_, sizeof tl_what_, __VA_ARGS__);                      \
        MPI_Get_count(&(st), MPI_BYTE, &tl_cnt_);                              \
        tl_asserts++;                                                          \
        if ((st).MPI_SOURCE != (src) || (st).MPI_TAG != (tag) ||               \
            tl_cnt_ != (int)(nbytes))                                          \
            FAIL("%s: status must be source %d tag %d count %d bytes, "       \
                 "got source %d tag %d count %d",                              \
                 tl_what_, (int)(src), (int)(tag), (int)(nbytes),              \
                 (st).MPI_SOURCE, (st).MPI_TAG, tl_cnt_);                      \
    } while (0)

/* ---- time ------------------------------------------------------------- */

/* CLOCK_MONOTONIC is one clock for every process of a host, so times taken
 * on different ranks of a one-host job can be compared. */
static inline double tl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void tl_sleep(double seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Returns once MPI_Iprobe sees a (src, tag) message on comm, so that the
 * receive posted next finds it already there; fails after 10 s. */
static inline void tl_await_arrival(int src, int tag, MPI_Comm comm)
{
    int flag = 0;
    double t0 = tl_now();
    while (!flag) {
        CHECK_MPI(MPI_Iprobe(src, tag, comm, &flag, MPI_STATUS_IGNORE));
        CHECK(flag || tl_now() - t0 < 10,
              "the tag-%d message from rank %d never arrived", tag, src);
    }
}

/* ---- life cycle ------------------------------------------------------- */

static char tl_watchdog_msg[300];
static int tl_watchdog_len;

/* Formatted ahead of time: the signal handler may only call write(). */
static inline void tl_watchdog_prepare(void)
{
    int n = snprintf(tl_watchdog_msg, sizeof tl_watchdog_msg,
                     "FAIL %s: rank %d: still running after the watchdog "
                     "timeout (TESTLIB_TIMEOUT); a correct MPI would have "
                     "finished: deadlock or lost message?\n",
                     tl_test_name(), tl_rank_cached);
    tl_watchdog_len = n < 0 ? 0
                      : n >= (int)sizeof tl_watchdog_msg
                          ? (int)sizeof tl_watchdog_msg - 1
                          : n;
}

static void tl_watchdog(int sig)
{
    (void)sig;
    if (write(2, tl_watchdog_msg, (size_t)tl_watchdog_len) < 0)
        _exit(3);
    _exit(2);
}

/* Seconds from (re)arming to the watchdog's failure; 0: none. */
static inline unsigned tl_watchdog_secs(void)
{
    const char *t = getenv("TESTLIB_TIMEOUT");
    return t ? (unsigned)strtoul(t, NULL, 10) : 40u;
}

/* Gives the phase that starts now the whole watchdog time, for a test made
 * of independent phases each of which a correct MPI finishes. */
static inline void tl_watchdog_rearm(void)
{
    alarm(tl_watchdog_secs());
}

static inline void tl_init(int *argc, char ***argv, int min_ranks,
                           int max_ranks)
{
    unsigned secs = tl_watchdog_secs();
    if (secs) {
        tl_watchdog_prepare();
        signal(SIGALRM, tl_watchdog);
        alarm(secs);
    }
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        FAIL("MPI_Init failed");
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &tl_rank_cached);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tl_watchdog_prepare();
    if (size < min_ranks || size > max_ranks)
        FAIL("this test needs %d to %d ranks, started with %d", min_ranks,
             max_ranks, size);
}

/* Whether Omnibus is preloaded and on: some tests hold MPICH 4.0.2 to
 * less than MPI promises where MPICH itself falls short, since every test
 * must also pass with OMNIBUS_DISABLE=1. */
static inline int tl_omnibus_active(void)
{
    const char *pre = getenv("LD_PRELOAD"), *off = getenv("OMNIBUS_DISABLE");
    return pre && strstr(pre, "omnibus") && !(off && strcmp(off, "1") == 0);
}

static inline int tl_size(void)
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

static inline void *tl_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        FAIL("out of memory allocating %zu bytes", n);
    return p;
}

/* ---- pairs and rings ---------------------------------------------------
 *
 * Every test runs at any rank count from 2 to TL_MAX_RANKS, and as many
 * ranks as possible take part, so that traffic crosses multi-hop routes
 * when Omnibus lays the ranks out on a grid.
 *
 * A test about two parties runs one pair per two ranks, all at once:
 * with an even count P, rank r pairs with rank P-1-r; with an odd count,
 * rank 0 sits out (it only joins the collective calls) and rank r >= 1
 * pairs with rank P-r.  Mirrored ranks are far apart on Omnibus's
 * row-major grids: on 2x2 and 2x2x2 every pair is 2 and 3 hops apart, and
 * on 3x2 (5 or 6 ranks) and 3x3 (7 or 9 ranks) at least one pair is 2
 * hops apart.  The lower rank of a pair leads: it plays the part rank 0
 * played in a two-rank test, its partner the part of rank 1.  At 2 ranks
 * this is exactly the original pair (0, 1).
 */
#define TL_MAX_RANKS 16 /* checked from 2 to 9 ranks */

/* Rank r's partner, or MPI_PROC_NULL for the rank that sits out. */
static inline int tl_partner_of(int r)
{
    int n = tl_size();
    if (n % 2 == 0)
        return n - 1 - r;
    return r == 0 ? MPI_PROC_NULL : n - r;
}

/* This rank's partner, or MPI_PROC_NULL for the rank that sits out. */
static inline int tl_partner(void)
{
    return tl_partner_of(tl_rank());
}

/* Whether rank r leads its pair (the rank-0 role). */
static inline int tl_leads_of(int r)
{
    int p = tl_partner_of(r);
    return p != MPI_PROC_NULL && r < p;
}

/* Whether this rank leads its pair. */
static inline int tl_leads(void)
{
    return tl_leads_of(tl_rank());
}

/* Ring neighbours: the rank `shift` places to the right (left). */
static inline int tl_right(int shift)
{
    int n = tl_size();
    return ((tl_rank() + shift) % n + n) % n;
}
static inline int tl_left(int shift) { return tl_right(-shift); }

/* Finalizes; a test in which no rank asserted anything is a failure. */
static inline int tl_finalize(void)
{
    int total = 0;
    MPI_Allreduce(&tl_asserts, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total == 0)
        FAIL("the test asserted nothing");
    MPI_Finalize();
    alarm(0);
    return 0;
}

/* A two-party test's main: each pair's leader runs lead(partner), the
 * other follow(partner), and the rank that sits out only finalizes. */
static inline int tl_run_pairs(int *argc, char ***argv, void (*lead)(int),
                               void (*follow)(int))
{
    tl_init(argc, argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL)
        (tl_leads() ? lead : follow)(peer);
    return tl_finalize();
}

/* The sending half of a late-receive test: message i of n (sizes[i]
 * bytes, tag tag0 + i, filled by tl_fill) by MPI_Isend on comm, then a
 * 0-byte token under `token` by MPI_Send, then a wait for all.  Every
 * message travels its pair's one route, so a partner that receives the
 * token first finds every message arrived before any receive of its. */
static inline void tl_send_then_token(int peer, MPI_Comm comm,
                                      const int *sizes, int n, int tag0,
                                      int token)
{
    unsigned char **b = malloc((size_t)n * sizeof *b);
    MPI_Request *req = malloc((size_t)n * sizeof *req);
    if (!b || !req)
        FAIL("out of memory for %d messages", n);
    for (int i = 0; i < n; i++) {
        b[i] = tl_malloc((size_t)sizes[i]);
        tl_fill(b[i], (size_t)sizes[i], tl_rank(), tag0 + i);
        CHECK_MPI(MPI_Isend(b[i], sizes[i], MPI_BYTE, peer, tag0 + i, comm,
                            &req[i]));
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, token, comm));
    CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        free(b[i]);
    free(req);
    free(b);
}

/* One sender's stream on MPI_COMM_WORLD: message k of n, len(k) bytes
 * (at most cap) under tag(k), filled by tl_fill and sent by MPI_Send, or
 * by MPI_Isend and MPI_Wait where by_request(k) says so (by_request NULL:
 * never). */
static inline void tl_stream_out(int peer, int n, int (*len)(int),
                                 int (*tag)(int), int cap,
                                 int (*by_request)(int))
{
    unsigned char *buf = tl_malloc((size_t)cap);
    for (int k = 0; k < n; k++) {
        tl_fill(buf, (size_t)len(k), tl_rank(), k);
        if (by_request && by_request(k)) {
            MPI_Request r;
            CHECK_MPI(MPI_Isend(buf, len(k), MPI_BYTE, peer, tag(k),
                                MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Send(buf, len(k), MPI_BYTE, peer, tag(k),
                               MPI_COMM_WORLD));
        }
    }
    free(buf);
}

/* Its receiver: each message at an MPI_ANY_SOURCE / MPI_ANY_TAG receive
 * names its sender, tag and size and holds its bytes, in the order sent
 * (MPI 4.1 §3.5, non-overtaking), every tenth probed first (MPI_Probe
 * names the message the receive then gets); `paths` says what varied
 * between the messages, for the failure message. */
static inline void tl_stream_in(int peer, int n, int (*len)(int),
                                int (*tag)(int), int cap, const char *paths)
{
    unsigned char *buf = tl_malloc((size_t)cap + 64);
    for (int k = 0; k < n; k++) {
        MPI_Status st;
        if (k % 10 == 0) {
            CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                                &st));
            CHECK_STATUS(st, peer, tag(k), len(k),
                         "MPI_Probe before message %d (%d bytes): a probe "
                         "names the oldest message the receive would match",
                         k, len(k));
        }
        CHECK_MPI(MPI_Recv(buf, cap + 64, MPI_BYTE, MPI_ANY_SOURCE,
                           MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, tag(k), len(k),
                     "message %d (%d bytes) at an MPI_ANY_SOURCE/MPI_ANY_TAG "
                     "receive: one sender's messages match in the order "
                     "sent, %s", k, len(k), paths);
        CHECK_PATTERN(buf, (size_t)len(k), peer, k, "message %d", k);
    }
    free(buf);
}

/* This rank's partner; the rank that sits out of the pairs instead meets
 * the final MPI_Barrier the paired ranks end with, finalizes and exits. */
static inline int tl_partner_or_finish(void)
{
    int peer = tl_partner();
    if (peer == MPI_PROC_NULL) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        exit(tl_finalize());
    }
    return peer;
}

/* Finalizes with no collective call first, for tests in which reaching
 * MPI_Finalize early is the point; this rank must have asserted something
 * unless it passes may_be_silent. */
static inline int tl_finalize_now(int may_be_silent)
{
    if (!may_be_silent && tl_asserts == 0)
        FAIL("this rank asserted nothing");
    MPI_Finalize();
    alarm(0);
    return 0;
}

#endif
