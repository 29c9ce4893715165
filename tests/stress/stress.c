/*
 * stress: seeded random CORRECT MPI point-to-point traffic, every byte and
 * every ordering promise verified.
 *
 *   stress --seed S --rounds R [--max-size BYTES] [--quiet]
 *          [--watchdog SECONDS]  (a round taking longer: FAIL saying where it hangs)
 *          [--inject byte|order|size|issend]   (self-test: breaks the traffic)
 *
 * A plain MPI program: nothing in it knows about Omnibus.  Under Omnibus
 * (LD_PRELOAD) it must behave exactly as under MPICH alone.
 *
 * The plan.  Every rank derives the same global plan from the seed: per
 * round, the list of messages every rank sends, in send order, each with its
 * destination, communicator, tag, size, datatype, send mode and the way the
 * receiver will receive it.  So every receiver knows exactly which messages
 * reach it and in which order each sender sent them.  Payload byte i of a
 * message is a function of (seed, round, source, message index, i).
 *
 * Communicators: MPI_COMM_WORLD, a dup of it, a split with reversed rank
 * order (comm rank = P-1-world rank) and a split by parity of the world rank,
 * also reversed.  Statuses give comm ranks; the program translates.
 *
 * Tags are (round % 256) * 32 + a class offset.  Each round's messages to a
 * receiver fall in one of these receive classes, kept apart so that which
 * receive can match which message is exactly what MPI defines:
 *
 *   S     specific source and tag.  Per stream (source, comm, tag) the first
 *         k receives are posted before the round's sends ("early"), the rest
 *         during the completion loop ("late", Irecv or blocking Recv).  MPI
 *         promises the j-th receive posted for a stream gets the j-th message
 *         sent on it (non-overtaking + posted-receive order): checked exactly.
 *   AS    MPI_ANY_SOURCE with a specific tag (tag offsets 8..10).  All such
 *         receives of one (comm, tag) are identical; MPI promises that, taken
 *         in posting order, the receives that got messages from one source
 *         got that source's messages of that tag in send order.
 *   AT    specific source, MPI_ANY_TAG (offsets 16..19), used on a channel
 *         (source, me, comm) only when every message of the round on that
 *         channel is AT; then all receives match all its messages and, in
 *         posting order, they get the channel's messages in send order
 *         whatever their tags.
 *   WILD  MPI_ANY_SOURCE + MPI_ANY_TAG, used for (me, comm) only when every
 *         message of the round to me on that comm is WILD; per source, in
 *         posting order, they get the source's messages in send order.  A
 *         synchronizing collective follows such a round, so next round's
 *         traffic cannot reach these receives.
 *   P     probe then receive (offsets 12..14): MPI_Iprobe / MPI_Probe /
 *         MPI_Improbe / MPI_Mprobe, with a specific or MPI_ANY_SOURCE source
 *         and a specific tag, then MPI_Recv/Irecv of (status source, status
 *         tag) or MPI_Mrecv/Imrecv.  The probed message must be the next one
 *         of its stream (source, comm, tag), its probed count its size, and
 *         the receive must deliver that very message.
 *
 * Wildcard receives are checked after all of the round's receives completed,
 * in posting order (completion order is not ordered by MPI; matching is).
 * Every receive buffer is larger than or equal to the message; the bytes past
 * the message must be untouched.  Status source, tag and MPI_Get_count are
 * checked for every message; some messages travel as MPI_INT.
 *
 * Send modes: MPI_Isend, MPI_Issend, MPI_Ibsend for any message (a fifth of
 * the nonblocking ones as persistent MPI_Send_init / MPI_Ssend_init /
 * MPI_Bsend_init / MPI_Rsend_init + MPI_Start, freed after completion); blocking
 * MPI_Send / MPI_Ssend only for messages whose receive was posted before the
 * round's sends (so no cycle of blocked senders can form), MPI_Bsend within
 * a per-round budget of the attached buffer.  In rounds with a mid-round
 * barrier, messages sent after it may use MPI_Rsend/MPI_Irsend (their
 * receives are posted: MPI's ready-send rule), and late-received MPI_Issend
 * messages sent before it are tested before the barrier: MPI promises they
 * cannot complete since no matching receive exists yet.
 *
 * A fifth of the nonblocking receives are persistent (MPI_Recv_init +
 * MPI_Start): a completed one must stay allocated until MPI_Request_free.
 * Decoys: in some rounds a rank posts receives that no message can match (a
 * tag only WILD messages use, on a communicator where it gets none); they
 * must not complete (MPI_Test / MPI_Request_get_status), MPI_Cancel must
 * succeed (MPI_Test_cancelled) and their buffers stay untouched.
 *
 * Completion: a random mixture of MPI_Waitsome, MPI_Waitany, MPI_Testany,
 * MPI_Testsome, MPI_Testall, MPI_Waitall, MPI_Wait, MPI_Test and
 * MPI_Request_get_status over arrays that mix receives, sends and (in some
 * rounds) an MPI_Iallreduce.  A blocking call is made only when it cannot
 * deadlock: on receives (all of which will complete), or once this rank has
 * no probes and no late receives left to do.
 *
 * Why the program is correct (no deadlock, no cross-talk): a rank posts its
 * early receives before any send of the round and leaves a round only once
 * all its receives are done, so a blocking send (only ever to an early
 * receive) waits at most for a receiver in the same round, whose receive is
 * posted.  Blocking waits on receives wait only for messages already started.
 * Sends that need the receiver's later action (synchronous, or large, to a
 * probed or late receive) are waited for only when this rank owes nobody a
 * receive.  Ranks drift apart by at most 8 rounds (a synchronizing collective
 * follows at least every 8th round), and tags carry the round modulo 256, so
 * a wildcard receive or probe never meets another round's message.
 *
 * Between rounds: MPI_Allreduce of message/byte counts and checksums of all
 * sent and all received data (totals must agree), MPI_Barrier, MPI_Bcast of
 * a verified buffer; at least every 8 rounds a synchronizing one.
 *
 * Floods: in about one round in eight (chosen by the seed, alike on every
 * rank) every rank then starts more than Omnibus's per-pair window (4 MiB)
 * of small messages to the rank `shift` places to its right, with
 * MPI_Isend, MPI_Issend and MPI_Send_init+MPI_Start mixed, before it posts
 * a single receive for what its left neighbour sends it; then it waits for
 * all of them.  MPI makes the starts local, so this must finish; every
 * message must arrive intact and in order.  Floods travel on a communicator
 * of their own, so no wildcard receive of the rounds can meet them.
 *
 * Relays: in about one round in eight a token goes round the ring of ranks
 * twelve times, every rank polling MPI_Test for it: a latency-bound phase
 * between the bulk rounds (run_relay).
 *
 * --watchdog SECONDS: a round (or the finish) that takes longer ends the
 * rank with a FAIL line saying what it was doing and waiting for (the lowest
 * round among the ranks' lines is where a hang started).
 *
 * Output: nothing on stdout.  On success rank 0 prints on stderr (unless
 * --quiet) "stress: seed S: N messages, B bytes verified".  On any mismatch:
 * "stress: FAIL seed=S round=R rank=K: <promise and what happened>" and
 * MPI_Abort(MPI_COMM_WORLD, 1).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

enum { NCOMM = 4, TAGS_PER_ROUND = 32, ROUND_TAGS = 256, SYNC_EVERY = 8 };

enum { C_S_EARLY, C_S_LATE, C_AS, C_AT, C_WILD, C_P, NCLASS };
enum { M_ISEND, M_SEND, M_ISSEND, M_SSEND, M_RSEND, M_IRSEND, M_BSEND, M_IBSEND };
enum { K_S, K_AS, K_AT, K_WILD, K_P }; /* queue kinds (S early and late share) */
enum { COLL_NONE, COLL_ALLREDUCE, COLL_BARRIER, COLL_BCAST };
enum { INJ_NONE, INJ_BYTE, INJ_ORDER, INJ_SIZE, INJ_ISSEND };

static const char *const cls_name[NCLASS] = {
    "specific receive posted before the sends", "specific receive posted late",
    "MPI_ANY_SOURCE receive", "MPI_ANY_TAG receive",
    "MPI_ANY_SOURCE+MPI_ANY_TAG receive", "probe then receive"};
static const char *const mode_name[] = {"MPI_Isend", "MPI_Send",   "MPI_Issend", "MPI_Ssend",
                                        "MPI_Rsend", "MPI_Irsend", "MPI_Bsend",  "MPI_Ibsend"};
static const char *const pmode_name[] = {
    "MPI_Send_init+MPI_Start", "", "MPI_Ssend_init+MPI_Start", "", "",
    "MPI_Rsend_init+MPI_Start", "", "MPI_Bsend_init+MPI_Start"};
static const char *const comm_name[NCOMM] = {"MPI_COMM_WORLD", "the dup of MPI_COMM_WORLD",
                                             "the reversed split", "the reversed parity split"};

/* ---------------------------------------------------------------- globals */

static uint64_t g_seed;
static int g_round = -1;
static int g_rank, g_size;
static int g_maxsize = 100000;
static int g_inject = INJ_NONE;

/* The watchdog (--watchdog SECONDS): a round, or the finish, that takes
 * longer ends the rank with a FAIL line saying where it was stuck.  The
 * state is kept preformatted so that the SIGALRM handler only write()s. */
static int g_watchdog;
static char g_state[1200];
static const char *volatile g_op = "";

static void set_state(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_state(const char *fmt, ...)
{
    if (!g_watchdog) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_state, sizeof g_state, fmt, ap);
    va_end(ap);
    g_op = "";
}

static size_t put_str(char *b, size_t n, size_t cap, const char *t)
{
    while (*t && n + 1 < cap) b[n++] = *t++;
    return n;
}
static size_t put_num(char *b, size_t n, size_t cap, unsigned long long v)
{
    char t[24];
    int k = 0;
    do t[k++] = (char)('0' + v % 10);
    while ((v /= 10) && k < 23);
    while (k > 0 && n + 1 < cap) b[n++] = t[--k];
    return n;
}

static void on_alarm(int sig)
{
    (void)sig;
    static char line[2000];
    size_t n = 0, cap = sizeof line;
    n = put_str(line, n, cap, "stress: FAIL seed=");
    n = put_num(line, n, cap, (unsigned long long)g_seed);
    n = put_str(line, n, cap, " round=");
    n = put_num(line, n, cap, (unsigned long long)(g_round < 0 ? 0 : g_round));
    n = put_str(line, n, cap, " rank=");
    n = put_num(line, n, cap, (unsigned long long)g_rank);
    n = put_str(line, n, cap, ": no progress for ");
    n = put_num(line, n, cap, (unsigned long long)g_watchdog);
    n = put_str(line, n, cap, " s (MPI delivers every message of a correct program), stuck ");
    if (*g_op) {
        n = put_str(line, n, cap, "in ");
        n = put_str(line, n, cap, g_op);
        n = put_str(line, n, cap, ", ");
    }
    n = put_str(line, n, cap, g_state);
    line[n++] = '\n';
    ssize_t w = write(2, line, n);
    (void)w;
    sleep(2); /* let the other ranks' watchdogs say where they are */
    _exit(1);
}

static void watchdog_arm(void)
{
    if (g_watchdog) alarm((unsigned)g_watchdog);
}
static MPI_Comm g_comm[NCOMM];
static int *g_w2c[NCOMM]; /* world rank -> comm rank, -1 if not a member */
static int *g_c2w[NCOMM]; /* comm rank -> world rank */
static int g_csize[NCOMM];

/* cumulative counters: [0] messages, [1] bytes, [2] checksum (wrapping) */
static uint64_t g_sent[3], g_recv[3];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    char buf[3000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "stress: FAIL seed=%llu round=%d rank=%d: %s\n", (unsigned long long)g_seed,
            g_round, g_rank, buf);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void stress_fail(const char *call, int rc, const MPI_Status *st, int n)
{
    char s[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (rc == MPI_ERR_IN_STATUS && st)
        for (int i = 0; i < n; i++)
            if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING) {
                int cls = -1;
                MPI_Error_class(st[i].MPI_ERROR, &cls);
                MPI_Error_string(st[i].MPI_ERROR, s, &len);
                s[len] = 0;
                fail("%s returned MPI_ERR_IN_STATUS, entry %d: %s%s; MPI promises success for "
                     "this correct program",
                     call, i, s,
                     cls == MPI_ERR_TRUNCATE ? " although every receive buffer here is at least "
                                               "as large as any message MPI lets it match"
                                             : "");
            }
    MPI_Error_string(rc, s, &len);
    s[len] = 0;
    int cls = -1;
    MPI_Error_class(rc, &cls);
    fail("%s returned error %d (%s)%s; MPI promises success for this correct program", call, rc, s,
         cls == MPI_ERR_TRUNCATE ? " although every receive buffer here is at least as large as "
                                   "any message MPI lets it match"
                                 : "");
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) stress_fail(#call, rc_, NULL, 0);                                     \
    } while (0)
#define CHECKS(call, st, n)                                                                        \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) stress_fail(#call, rc_, (st), (n));                                   \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) fail("out of memory (%zu bytes)", n);
    return p;
}
static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) fail("out of memory (%zu x %zu bytes)", n, sz);
    return p;
}

/* ------------------------------------------------------------------- rng */

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct {
    uint64_t s;
} rng_t;

static rng_t rng_make(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    rng_t r = {mix64(mix64(mix64(mix64(g_seed) ^ a) ^ b) ^ c) ^ d};
    return r;
}
static uint64_t rng_next(rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return mix64(r->s);
}
static int rnd(rng_t *r, int n) { return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n); }

/* --------------------------------------------------------------- payload */

static uint64_t payload_base(int round, int src, int idx)
{
    return mix64(mix64(mix64(g_seed ^ 0x5eed5eed5eedULL) ^ (uint64_t)(uint32_t)round) ^
                 (((uint64_t)(uint32_t)src << 32) | (uint32_t)idx));
}

static void fill_payload(unsigned char *buf, size_t n, uint64_t base)
{
    size_t i = 0;
    for (uint64_t w = 0; i + 8 <= n; i += 8, w++) {
        uint64_t v = mix64(base + w * 0xd1b54a32d192ed03ULL);
        memcpy(buf + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = mix64(base + (uint64_t)(i / 8) * 0xd1b54a32d192ed03ULL);
        memcpy(buf + i, &v, n - i);
    }
}

static uint64_t checksum(const unsigned char *buf, size_t n)
{
    uint64_t h = mix64(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, buf + i, 8);
        h = (h ^ v) * 0x100000001b3ULL + (h >> 29);
    }
    for (; i < n; i++) h = (h ^ buf[i]) * 0x100000001b3ULL;
    return mix64(h);
}

static unsigned char sentinel(size_t i) { return (unsigned char)(0xA5 ^ (i * 29)); }

/* ------------------------------------------------------------------ plan */

typedef struct {
    int src, dst, comm, tag, size, idx;
    unsigned char cls, mode, dt, phase, hold, aslate, pers; /* pers: MPI_*send_init + MPI_Start */
} msg_t;

typedef struct {
    msg_t *m;
    int n, cap;
    int *first, *count; /* per source: its messages, contiguous, in send order */
    unsigned char *wild; /* [rank * NCOMM + comm]: every message to rank on comm is WILD */
    int mid;            /* mid-round barrier after phase-0 sends */
    int xcoll, xcomm;   /* an MPI_Iallreduce in the completion arrays */
    int coll, coll_comm, bcast_root, bcast_size;
} plan_t;

static const int special_sizes[] = {0,     1,     3,     4,     8,     231,   232,   233,
                                    255,   256,   257,   1023,  1024,  1025,  4096,  16383,
                                    16384, 16385, 65535, 65536, 65537, 99999, 100000};

static int pick_size(rng_t *R)
{
    int u = rnd(R, 100), s;
    if (u < 6) /* the edges: empty, thresholds, buffer sizes, 64 KiB */
        s = special_sizes[rnd(R, (int)(sizeof special_sizes / sizeof special_sizes[0]))];
    else if (u < 72)
        s = rnd(R, 65);
    else if (u < 95)
        s = 65 + rnd(R, 4096 - 64);
    else
        s = g_maxsize > 4096 ? 4097 + rnd(R, g_maxsize - 4096) : rnd(R, 4097);
    return s > g_maxsize ? g_maxsize : s;
}

static int round_tag(int round, int off) { return (round % ROUND_TAGS) * TAGS_PER_ROUND + off; }

static int is_preposted(const msg_t *m)
{
    return m->cls == C_S_EARLY || (m->cls == C_AS && !m->aslate) || m->cls == C_AT ||
           m->cls == C_WILD;
}

static void plan_push(plan_t *p, msg_t m)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->m = realloc(p->m, (size_t)p->cap * sizeof *p->m);
        if (!p->m) fail("out of memory (plan)");
    }
    p->m[p->n++] = m;
}

static void gen_plan(plan_t *p, int round, int since_sync)
{
    const int P = g_size;
    rng_t R = rng_make(0x91a4, (uint64_t)round, 0, 0);
    p->n = 0;
    p->mid = rnd(&R, 100) < 25;
    p->xcoll = rnd(&R, 100) < 30;
    p->xcomm = rnd(&R, 3);
    unsigned char *wild = p->wild;
    memset(wild, 0, (size_t)P * NCOMM);
    unsigned char *at = xcalloc((size_t)P * P * NCOMM, 1);
    int any_wild = 0;
    for (int r = 0; r < P; r++)
        for (int c = 0; c < NCOMM; c++) {
            wild[r * NCOMM + c] = rnd(&R, 100) < 6;
            any_wild |= wild[r * NCOMM + c];
        }
    for (int i = 0; i < P * P * NCOMM; i++) at[i] = rnd(&R, 100) < 10;

    for (int s = 0; s < P; s++) {
        p->first[s] = p->n;
        for (int r = 0; r < P; r++) {
            int u = rnd(&R, 100), n;
            if (r == s)
                n = rnd(&R, 3);
            else if (u < 5)
                n = 8 + rnd(&R, 25); /* a burst of (mostly small) messages */
            else
                n = rnd(&R, 5);
            for (int k = 0; k < n; k++) {
                msg_t m;
                memset(&m, 0, sizeof m);
                m.src = s;
                m.dst = r;
                plan_push(p, m);
            }
        }
        int f = p->first[s], cnt = p->n - f;
        p->count[s] = cnt;
        for (int i = cnt - 1; i > 0; i--) { /* shuffle the send order */
            int j = rnd(&R, i + 1);
            msg_t t = p->m[f + i];
            p->m[f + i] = p->m[f + j];
            p->m[f + j] = t;
        }
        int cut = p->mid ? rnd(&R, cnt + 1) : cnt;
        for (int j = 0; j < cnt; j++) {
            msg_t *m = &p->m[f + j];
            int r = m->dst;
            m->idx = j;
            m->phase = j >= cut;
            m->comm = rnd(&R, (s % 2 == r % 2) ? 4 : 3);
            if (wild[r * NCOMM + m->comm]) {
                m->cls = C_WILD;
                m->tag = round_tag(round, rnd(&R, 32));
            } else if (at[(s * P + r) * NCOMM + m->comm]) {
                m->cls = C_AT;
                m->tag = round_tag(round, 16 + rnd(&R, 4));
            } else {
                int u = rnd(&R, 100);
                if (u < 45) {
                    m->cls = rnd(&R, 100) < 35 ? C_S_LATE : C_S_EARLY;
                    m->tag = round_tag(round, rnd(&R, 6));
                } else if (u < 70) {
                    m->cls = C_AS;
                    m->tag = round_tag(round, 8 + rnd(&R, 3));
                } else {
                    m->cls = C_P;
                    m->tag = round_tag(round, 12 + rnd(&R, 3));
                }
            }
            m->size = pick_size(&R);
            if ((m->cls == C_S_EARLY || m->cls == C_S_LATE || m->cls == C_P) && m->size % 4 == 0 &&
                rnd(&R, 100) < 30)
                m->dt = 1;
            if (m->cls == C_AS)
                m->aslate = (mix64(g_seed ^ mix64((uint64_t)round * 1000003u + (uint64_t)r * 131u +
                                                  (uint64_t)m->comm * 7u + (uint64_t)m->tag)) &
                             3) == 0;
        }
        /* Per stream (dst, comm, tag) of class S, the early receives are a
         * prefix: keep how many are early, make them the first ones. */
        for (int i = 0; i < cnt; i++) {
            msg_t *a = &p->m[f + i];
            if ((a->cls != C_S_EARLY && a->cls != C_S_LATE) || a->hold) continue;
            int early = 0;
            for (int j = i; j < cnt; j++) {
                msg_t *b = &p->m[f + j];
                if ((b->cls == C_S_EARLY || b->cls == C_S_LATE) && b->dst == a->dst &&
                    b->comm == a->comm && b->tag == a->tag)
                    early += b->cls == C_S_EARLY;
            }
            for (int j = i; j < cnt; j++) {
                msg_t *b = &p->m[f + j];
                if ((b->cls == C_S_EARLY || b->cls == C_S_LATE) && b->dst == a->dst &&
                    b->comm == a->comm && b->tag == a->tag) {
                    b->cls = early > 0 ? C_S_EARLY : C_S_LATE;
                    early--;
                    b->hold = 1; /* visited mark, reset below */
                }
            }
        }
        int bsend_bytes = 0, bsend_count = 0;
        for (int j = 0; j < cnt; j++) {
            msg_t *m = &p->m[f + j];
            m->hold = 0;
            int u = rnd(&R, 100);
            if (m->size <= 4096 && u < 6 && bsend_bytes + m->size <= 65536 && bsend_count < 64) {
                m->mode = u < 3 ? M_BSEND : M_IBSEND;
                bsend_bytes += m->size;
                bsend_count++;
            } else if (is_preposted(m)) {
                if (m->phase == 1 && u < 36)
                    m->mode = u % 2 ? M_RSEND : M_IRSEND;
                else if (u < 45)
                    m->mode = M_ISEND;
                else if (u < 70)
                    m->mode = M_SEND;
                else if (u < 85)
                    m->mode = M_ISSEND;
                else
                    m->mode = M_SSEND;
            } else {
                m->mode = u < 60 ? M_ISEND : M_ISSEND;
            }
            m->hold = p->mid && m->phase == 0 && m->cls == C_S_LATE && m->mode == M_ISSEND;
            m->pers = (m->mode == M_ISEND || m->mode == M_ISSEND || m->mode == M_IRSEND ||
                       m->mode == M_IBSEND) &&
                      rnd(&R, 100) < 20;
        }
    }
    int u = rnd(&R, 100);
    p->coll = u < 20 ? COLL_ALLREDUCE : u < 30 ? COLL_BARRIER : u < 40 ? COLL_BCAST : COLL_NONE;
    if ((any_wild || since_sync + 1 >= SYNC_EVERY) && p->coll != COLL_ALLREDUCE &&
        p->coll != COLL_BARRIER)
        p->coll = rnd(&R, 2) ? COLL_ALLREDUCE : COLL_BARRIER;
    p->coll_comm = rnd(&R, 3);
    p->bcast_root = rnd(&R, P);
    p->bcast_size = pick_size(&R);
    free(at);
}

/* ------------------------------------------------------------- receiving */

typedef struct {
    int kind, src, comm, tag; /* src world rank or -1, tag or -1 */
    int n, next, postnext, cap;
    const msg_t **m;
} queue_t;

typedef struct {
    int cls, comm, srcspec, tagspec, dt, late;
    size_t cap; /* bytes */
    unsigned char *buf;
    queue_t *q;           /* S: the stream, expect assigned at posting */
    const msg_t *expect;  /* S only */
    int posted, done, order, blocking, persistent;
    MPI_Status st;
    const char *how;
} rrec_t;

typedef struct {
    int comm, tag, left;
    int *left_from; /* per world source */
} pgroup_t;

typedef struct {
    const plan_t *p;
    rng_t L;
    queue_t *q;
    int nq;
    rrec_t *rec;
    MPI_Request *rreq;
    int nrec, ndone, nactive, post_counter;
    int *late; /* indices of late recs, in posting order */
    int nlate, late_pos;
    pgroup_t *pg;
    int npg, p_left;
    const msg_t **smsg; /* my sends, in send order */
    unsigned char **sbuf;
    MPI_Request *sreq;
    int nsend;
    MPI_Request xreq;
    int64_t xval;
    MPI_Request dreq[3]; /* decoys: receives no message can match, cancelled */
    unsigned char *dbuf[3];
    int ndecoy, decoy_left, dsrc[3], dtag[3], dcomm[3];
} round_t;

static queue_t *find_queue(round_t *R, int kind, int src, int comm, int tag)
{
    for (int i = 0; i < R->nq; i++) {
        queue_t *q = &R->q[i];
        if (q->kind == kind && q->src == src && q->comm == comm && q->tag == tag) return q;
    }
    return NULL;
}

static int msg_kind(const msg_t *m)
{
    switch (m->cls) {
    case C_S_EARLY:
    case C_S_LATE: return K_S;
    case C_AS: return K_AS;
    case C_AT: return K_AT;
    case C_WILD: return K_WILD;
    default: return K_P;
    }
}

static queue_t *queue_of(round_t *R, const msg_t *m, int create)
{
    int kind = msg_kind(m);
    int tag = (kind == K_AT || kind == K_WILD) ? -1 : m->tag;
    queue_t *q = find_queue(R, kind, m->src, m->comm, tag);
    if (q || !create) return q;
    q = &R->q[R->nq++];
    memset(q, 0, sizeof *q);
    q->kind = kind;
    q->src = m->src;
    q->comm = m->comm;
    q->tag = tag;
    return q;
}

static const char *describe(const msg_t *m, char *buf, size_t n)
{
    snprintf(buf, n,
             "message #%d that rank %d sent this round (to rank %d on %s, tag %d, %d bytes%s, "
             "%s, for a %s)",
             m->idx, m->src, m->dst, comm_name[m->comm], m->tag, m->size, m->dt ? " as MPI_INT" : "",
             m->pers ? pmode_name[m->mode] : mode_name[m->mode], cls_name[m->cls]);
    return buf;
}

/* What the buffer actually holds, if it is another message of this round. */
static void identify(const plan_t *p, const unsigned char *buf, int n, char *out, size_t outn)
{
    snprintf(out, outn, "its content matches no message of this round");
    unsigned char *tmp = xmalloc((size_t)n);
    for (int i = 0; i < p->n; i++) {
        const msg_t *o = &p->m[i];
        if (o->dst != g_rank || o->size != n) continue;
        fill_payload(tmp, (size_t)n, payload_base(g_round, o->src, o->idx));
        if (memcmp(tmp, buf, (size_t)n) == 0) {
            char d[400];
            snprintf(out, outn, "its content is that of %s", describe(o, d, sizeof d));
            break;
        }
    }
    free(tmp);
}

static const char *const RULE_S =
    "MPI matches the messages of one (source, communicator, tag) to its specific receives in "
    "posting order: non-overtaking";
static const char *const RULE_AS =
    "MPI_ANY_SOURCE receives of one tag, in posting order, get each source's messages of that tag "
    "in send order: non-overtaking";
static const char *const RULE_AT =
    "MPI_ANY_TAG receives from one source, in posting order, get that source's messages on the "
    "communicator in send order: non-overtaking";
static const char *const RULE_WILD =
    "MPI_ANY_SOURCE+MPI_ANY_TAG receives, in posting order, get each source's messages on the "
    "communicator in send order: non-overtaking";
static const char *const RULE_P =
    "a probe finds the next message of its (source, communicator, tag) by non-overtaking, and the "
    "receive that follows with the probe's source and tag (or the matched message) gets that very "
    "message";

static const char *spec_str(char *out, size_t n, const char *call, int srcspec, int tagspec,
                            int comm)
{
    char a[32], b[32];
    if (srcspec == MPI_ANY_SOURCE)
        snprintf(a, sizeof a, "MPI_ANY_SOURCE");
    else
        snprintf(a, sizeof a, "source %d", srcspec);
    if (tagspec == MPI_ANY_TAG)
        snprintf(b, sizeof b, "MPI_ANY_TAG");
    else
        snprintf(b, sizeof b, "tag %d", tagspec);
    snprintf(out, n, "%s(%s, %s, %s)", call, a, b, comm_name[comm]);
    return out;
}

/* Check one received message against the message MPI promised it is: ctx
 * names the receive, rule the promise. */
static void verify(const plan_t *p, const msg_t *m, const unsigned char *buf, size_t cap,
                   const MPI_Status *st, const char *ctx, const char *rule)
{
    char d[400];
    MPI_Datatype dt = m->dt ? MPI_INT : MPI_BYTE;
    int esz = m->dt ? 4 : 1;
    if (st->MPI_SOURCE != g_w2c[m->comm][m->src] || st->MPI_TAG != m->tag)
        fail("%s should have received %s (%s), but its status says source %d tag %d, not source "
             "%d tag %d",
             ctx, describe(m, d, sizeof d), rule, st->MPI_SOURCE, st->MPI_TAG,
             g_w2c[m->comm][m->src], m->tag);
    int count = -1;
    CHECK(MPI_Get_count(st, dt, &count));
    if (count != m->size / esz)
        fail("%s should have received %s (%s), but MPI_Get_count says %d, not %d", ctx,
             describe(m, d, sizeof d), rule, count, m->size / esz);
    if (m->dt) {
        int el = -1;
        CHECK(MPI_Get_elements(st, dt, &el));
        if (el != m->size / esz)
            fail("%s should have received %s (%s), but MPI_Get_elements says %d, not %d", ctx,
                 describe(m, d, sizeof d), rule, el, m->size / esz);
    }
    unsigned char *exp = xmalloc((size_t)m->size);
    fill_payload(exp, (size_t)m->size, payload_base(g_round, m->src, m->idx));
    if (memcmp(exp, buf, (size_t)m->size) != 0) {
        size_t off = 0;
        while (exp[off] == buf[off]) off++;
        char who[500];
        identify(p, buf, m->size, who, sizeof who);
        fail("%s should have received %s (%s), with the bytes sent, but byte %zu is 0x%02x, not "
             "0x%02x: %s",
             ctx, describe(m, d, sizeof d), rule, off, buf[off], exp[off], who);
    }
    free(exp);
    for (size_t i = (size_t)m->size; i < cap; i++)
        if (buf[i] != sentinel(i))
            fail("%s received %s correctly, but byte %zu of its %zu-byte buffer, past the "
                 "message, was overwritten (MPI changes only the locations of the message)",
                 ctx, describe(m, d, sizeof d), i, cap);
    g_recv[0]++;
    g_recv[1] += (uint64_t)m->size;
    g_recv[2] += checksum(buf, (size_t)m->size);
}

static void post_rec(round_t *R, int i, int blocking)
{
    rrec_t *r = &R->rec[i];
    int slack = 4 * rnd(&R->L, 5);
    if (r->q && r->q->kind == K_S) {
        if (r->q->postnext >= r->q->n) fail("internal: stream over-posted");
        r->expect = r->q->m[r->q->postnext++];
        r->dt = r->expect->dt;
        r->cap = (size_t)r->expect->size + (size_t)slack;
    } else {
        r->cap += (size_t)slack;
    }
    r->buf = xmalloc(r->cap);
    for (size_t k = 0; k < r->cap; k++) r->buf[k] = sentinel(k);
    int esz = r->dt ? 4 : 1;
    r->posted = 1;
    r->order = R->post_counter++;
    if (blocking) {
        g_op = "a late blocking MPI_Recv";
        r->how = "MPI_Recv";
        r->blocking = 1;
        CHECKS(MPI_Recv(r->buf, (int)(r->cap / (size_t)esz), r->dt ? MPI_INT : MPI_BYTE,
                        r->srcspec, r->tagspec, g_comm[r->comm], &r->st),
               &r->st, 1);
        r->done = 1;
        R->ndone++;
        if (r->expect) {
            char ctx[200];
            spec_str(ctx, sizeof ctx, "MPI_Recv", r->srcspec, r->tagspec, r->comm);
            strcat(ctx, ", posted late,");
            verify(R->p, r->expect, r->buf, r->cap, &r->st, ctx, RULE_S);
        }
    } else if (rnd(&R->L, 5) == 0) {
        r->persistent = 1;
        CHECK(MPI_Recv_init(r->buf, (int)(r->cap / (size_t)esz), r->dt ? MPI_INT : MPI_BYTE,
                            r->srcspec, r->tagspec, g_comm[r->comm], &R->rreq[i]));
        CHECK(MPI_Start(&R->rreq[i]));
        R->nactive++;
    } else {
        CHECK(MPI_Irecv(r->buf, (int)(r->cap / (size_t)esz), r->dt ? MPI_INT : MPI_BYTE,
                        r->srcspec, r->tagspec, g_comm[r->comm], &R->rreq[i]));
        R->nactive++;
    }
}

static void rec_complete(round_t *R, int i, const MPI_Status *st, const char *how)
{
    rrec_t *r = &R->rec[i];
    if (!r->posted || r->done) fail("internal: completion of a receive not active");
    r->st = *st;
    r->done = 1;
    r->how = how;
    R->ndone++;
    R->nactive--;
    if (r->persistent) {
        if (R->rreq[i] == MPI_REQUEST_NULL)
            fail("a completed persistent receive request became MPI_REQUEST_NULL; MPI promises it "
                 "stays allocated (inactive) until MPI_Request_free");
        CHECK(MPI_Request_free(&R->rreq[i]));
    }
    if (r->expect) {
        char ctx[300];
        spec_str(ctx, sizeof ctx, r->persistent ? "MPI_Recv_init+MPI_Start" : "MPI_Irecv",
                 r->srcspec, r->tagspec, r->comm);
        snprintf(ctx + strlen(ctx), sizeof ctx - strlen(ctx), ", posted %s, completed by %s,",
                 r->late ? "late" : "before the sends", how);
        verify(R->p, r->expect, r->buf, r->cap, &r->st, ctx, RULE_S);
    }
}

static void check_xval(round_t *R)
{
    int64_t n = g_csize[R->p->xcomm];
    int64_t want = 0;
    for (int64_t c = 0; c < n; c++) want += (g_c2w[R->p->xcomm][c] + 1) * (int64_t)(g_round + 1);
    if (R->xval != want)
        fail("MPI_Iallreduce(MPI_SUM) on %s, completed among point-to-point requests, gave %lld; "
             "the sum of the contributions is %lld",
             comm_name[R->p->xcomm], (long long)R->xval, (long long)want);
}

/* Complete index i of a combined array [recs..., sends..., xreq]. */
static void comb_complete(round_t *R, int i, const MPI_Status *st, const char *how)
{
    if (i < R->nrec)
        rec_complete(R, i, st, how);
    else if (i < R->nrec + R->nsend) {
        /* send done: the handle is MPI_REQUEST_NULL now, or inactive if persistent */
        if (R->smsg[i - R->nrec]->pers) CHECK(MPI_Request_free(&R->sreq[i - R->nrec]));
    }
    else
        check_xval(R);
}

/* Receives that no message of the job can match (a tag offset only WILD
 * messages use, on a communicator where this rank gets none this round):
 * they must stay incomplete, and MPI_Cancel must succeed. */
static void post_decoys(round_t *R)
{
    if (rnd(&R->L, 100) >= 40) return;
    int n = 1 + rnd(&R->L, 3);
    for (int k = 0; k < n; k++) {
        int c = rnd(&R->L, NCOMM);
        if (R->p->wild[g_rank * NCOMM + c]) continue;
        int d = R->ndecoy++;
        R->dcomm[d] = c;
        R->dtag[d] = round_tag(g_round, 24 + rnd(&R->L, 8));
        R->dsrc[d] = rnd(&R->L, 2) ? MPI_ANY_SOURCE : rnd(&R->L, g_csize[c]);
        R->dbuf[d] = xmalloc(64);
        for (size_t i = 0; i < 64; i++) R->dbuf[d][i] = sentinel(i);
        CHECK(MPI_Irecv(R->dbuf[d], 64, MPI_BYTE, R->dsrc[d], R->dtag[d], g_comm[c], &R->dreq[d]));
    }
    R->decoy_left = R->ndecoy;
}

static void cancel_decoy(round_t *R)
{
    int d = R->ndecoy - R->decoy_left--;
    int flag = 0;
    MPI_Status st;
    char sp[200];
    spec_str(sp, sizeof sp, "MPI_Irecv", R->dsrc[d], R->dtag[d], R->dcomm[d]);
    if (rnd(&R->L, 2))
        CHECK(MPI_Test(&R->dreq[d], &flag, &st));
    else
        CHECK(MPI_Request_get_status(R->dreq[d], &flag, &st));
    if (flag)
        fail("%s completed (status source %d tag %d), but no message with that tag is sent on "
             "that communicator: MPI promises such a receive never completes",
             sp, st.MPI_SOURCE, st.MPI_TAG);
    CHECK(MPI_Iprobe(R->dsrc[d], R->dtag[d], g_comm[R->dcomm[d]], &flag, &st));
    if (flag)
        fail("MPI_Iprobe with the envelope of %s found a message (source %d tag %d), but no "
             "message with that tag is sent on that communicator",
             sp, st.MPI_SOURCE, st.MPI_TAG);
    g_op = "MPI_Cancel of a receive no message can match";
    CHECK(MPI_Cancel(&R->dreq[d]));
    CHECKS(MPI_Wait(&R->dreq[d], &st), &st, 1);
    CHECK(MPI_Test_cancelled(&st, &flag));
    if (!flag)
        fail("MPI_Cancel of %s, which no message can match, did not cancel it (MPI_Test_cancelled "
             "false, status source %d tag %d): MPI promises the cancel succeeds when the receive "
             "cannot complete",
             sp, st.MPI_SOURCE, st.MPI_TAG);
    for (size_t i = 0; i < 64; i++)
        if (R->dbuf[d][i] != sentinel(i))
            fail("the cancelled %s wrote byte %zu of its buffer", sp, i);
    free(R->dbuf[d]);
}

/* The watchdog's view of step 3: what this rank still waits for. */
static void state_receiving(round_t *R)
{
    if (!g_watchdog) return;
    char b[1200], d[400], sp[200];
    size_t n = 0;
    n += (size_t)snprintf(b + n, sizeof b - n,
                          "receiving: %d of %d receives complete, %d probed messages and %d late "
                          "receives to go; waiting for",
                          R->ndone, R->nrec, R->p_left, R->nlate - R->late_pos);
    int shown = 0;
    for (int i = 0; i < R->nrec && shown < 3 && n < sizeof b - 1; i++) {
        rrec_t *r = &R->rec[i];
        if (!r->posted || r->done) continue;
        shown++;
        if (r->expect)
            n += (size_t)snprintf(b + n, sizeof b - n, " [%s]", describe(r->expect, d, sizeof d));
        else
            n += (size_t)snprintf(b + n, sizeof b - n, " [%s]",
                                  spec_str(sp, sizeof sp, "MPI_Irecv", r->srcspec, r->tagspec,
                                           r->comm));
    }
    for (int g = 0; g < R->npg && shown < 5 && n < sizeof b - 1; g++) {
        pgroup_t *G = &R->pg[g];
        if (!G->left) continue;
        shown++;
        n += (size_t)snprintf(b + n, sizeof b - n, " [%d probed message(s) of tag %d on %s, from",
                              G->left, G->tag, comm_name[G->comm]);
        for (int k = 0; k < g_size && n < sizeof b - 1; k++)
            if (G->left_from[k])
                n += (size_t)snprintf(b + n, sizeof b - n, " rank %d", k);
        if (n < sizeof b - 1) n += (size_t)snprintf(b + n, sizeof b - n, "]");
    }
    set_state("%s", b);
}

static void probe_action(round_t *R)
{
    int g, tries = 0;
    do g = rnd(&R->L, R->npg);
    while (R->pg[g].left == 0 && ++tries < 1000);
    if (R->pg[g].left == 0)
        for (g = 0; R->pg[g].left == 0; g++) {
        }
    pgroup_t *G = &R->pg[g];
    MPI_Comm comm = g_comm[G->comm];
    int srcspec = MPI_ANY_SOURCE, specific = -1;
    if (rnd(&R->L, 2)) {
        int k = rnd(&R->L, G->left);
        for (int s = 0; s < g_size && specific < 0; s++)
            if ((k -= G->left_from[s]) < 0) specific = s;
        if (specific < 0) fail("internal: probe group count wrong");
        srcspec = g_w2c[G->comm][specific];
    }
    int kind = rnd(&R->L, 100), flag = 0;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    const char *how;
    if (kind < 35) {
        how = "MPI_Iprobe";
        CHECK(MPI_Iprobe(srcspec, G->tag, comm, &flag, &st));
    } else if (kind < 60) {
        how = "MPI_Probe";
        g_op = "MPI_Probe";
        CHECK(MPI_Probe(srcspec, G->tag, comm, &st));
        flag = 1;
    } else if (kind < 80) {
        how = "MPI_Improbe";
        CHECK(MPI_Improbe(srcspec, G->tag, comm, &flag, &msg, &st));
    } else {
        how = "MPI_Mprobe";
        g_op = "MPI_Mprobe";
        CHECK(MPI_Mprobe(srcspec, G->tag, comm, &msg, &st));
        flag = 1;
    }
    if (!flag) return;
    char d[400], ps[200];
    spec_str(ps, sizeof ps, how, srcspec, G->tag, G->comm);
    if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= g_csize[G->comm] || st.MPI_TAG != G->tag)
        fail("%s found a message with status source %d tag %d, which does not match the probe",
             ps, st.MPI_SOURCE, st.MPI_TAG);
    int s = g_c2w[G->comm][st.MPI_SOURCE];
    if (specific >= 0 && s != specific)
        fail("%s (world rank %d) found a message from world rank %d", ps, specific, s);
    queue_t *q = find_queue(R, K_P, s, G->comm, G->tag);
    if (!q || q->next >= q->n)
        fail("%s found a message from source %d (world %d), but that rank sent %s message with "
             "that tag to this rank this round (%d sent, all received)",
             ps, st.MPI_SOURCE, s, q ? "no further" : "no", q ? q->n : 0);
    const msg_t *m = q->m[q->next];
    int esz = m->dt ? 4 : 1, count = -1;
    MPI_Datatype dt = m->dt ? MPI_INT : MPI_BYTE;
    CHECK(MPI_Get_count(&st, dt, &count));
    if (count != m->size / esz)
        fail("%s should have found %s (%s), but the probe's MPI_Get_count says %d, not %d", ps,
             describe(m, d, sizeof d), RULE_P, count, m->size / esz);
    size_t cap = (size_t)m->size + 4 * (size_t)rnd(&R->L, 5);
    unsigned char *buf = xmalloc(cap);
    for (size_t k = 0; k < cap; k++) buf[k] = sentinel(k);
    MPI_Status st2;
    const char *rhow;
    int n = (int)(cap / (size_t)esz);
    g_op = "the receive of a probed message";
    if (msg != MPI_MESSAGE_NULL) {
        if (rnd(&R->L, 2)) {
            rhow = "MPI_Mrecv";
            CHECKS(MPI_Mrecv(buf, n, dt, &msg, &st2), &st2, 1);
        } else {
            MPI_Request rq;
            rhow = "MPI_Imrecv";
            CHECK(MPI_Imrecv(buf, n, dt, &msg, &rq));
            CHECKS(MPI_Wait(&rq, &st2), &st2, 1);
        }
    } else {
        if (rnd(&R->L, 2)) {
            rhow = "MPI_Recv";
            CHECKS(MPI_Recv(buf, n, dt, st.MPI_SOURCE, st.MPI_TAG, comm, &st2), &st2, 1);
        } else {
            MPI_Request rq;
            rhow = "MPI_Irecv";
            CHECK(MPI_Irecv(buf, n, dt, st.MPI_SOURCE, st.MPI_TAG, comm, &rq));
            CHECKS(MPI_Wait(&rq, &st2), &st2, 1);
        }
    }
    char ctx[400];
    if (msg != MPI_MESSAGE_NULL)
        snprintf(ctx, sizeof ctx, "%s of the message matched by %s", rhow, ps);
    else
        snprintf(ctx, sizeof ctx, "%s(source %d, tag %d) after %s", rhow, st.MPI_SOURCE,
                 st.MPI_TAG, ps);
    verify(R->p, m, buf, cap, &st2, ctx, RULE_P);
    free(buf);
    q->next++;
    G->left--;
    G->left_from[s]--;
    R->p_left--;
}

/* One of the completion calls over the receive requests only. */
static void recv_op(round_t *R)
{
    int n = R->nrec, k = rnd(&R->L, 100);
    MPI_Status *sts = xmalloc(sizeof(MPI_Status) * (size_t)n);
    int *idx = xmalloc(sizeof(int) * (size_t)n);
    MPI_Status st;
    int out = 0, flag = 0, i;
    g_op = "a completion call on the receive requests";
    if (k < 20) {
        CHECKS(MPI_Waitsome(n, R->rreq, &out, idx, sts), sts, n);
        if (out != MPI_UNDEFINED)
            for (i = 0; i < out; i++) rec_complete(R, idx[i], &sts[i], "MPI_Waitsome");
    } else if (k < 35) {
        CHECKS(MPI_Waitany(n, R->rreq, &i, &st), &st, 1);
        if (i != MPI_UNDEFINED) rec_complete(R, i, &st, "MPI_Waitany");
    } else if (k < 55) {
        CHECKS(MPI_Testany(n, R->rreq, &i, &flag, &st), &st, 1);
        if (flag && i != MPI_UNDEFINED) rec_complete(R, i, &st, "MPI_Testany");
    } else if (k < 70) {
        CHECKS(MPI_Testsome(n, R->rreq, &out, idx, sts), sts, n);
        if (out != MPI_UNDEFINED)
            for (i = 0; i < out; i++) rec_complete(R, idx[i], &sts[i], "MPI_Testsome");
    } else if (k < 76) {
        char *was = xmalloc((size_t)n);
        for (i = 0; i < n; i++) was[i] = R->rreq[i] != MPI_REQUEST_NULL;
        CHECKS(MPI_Testall(n, R->rreq, &flag, sts), sts, n);
        if (flag)
            for (i = 0; i < n; i++)
                if (was[i]) rec_complete(R, i, &sts[i], "MPI_Testall");
        free(was);
    } else if (k < 80) {
        char *was = xmalloc((size_t)n);
        for (i = 0; i < n; i++) was[i] = R->rreq[i] != MPI_REQUEST_NULL;
        CHECKS(MPI_Waitall(n, R->rreq, sts), sts, n);
        for (i = 0; i < n; i++)
            if (was[i]) rec_complete(R, i, &sts[i], "MPI_Waitall");
        free(was);
    } else {
        /* one active request: MPI_Wait, MPI_Test or MPI_Request_get_status */
        int a = rnd(&R->L, R->nactive);
        for (i = 0; i < n; i++)
            if (R->rreq[i] != MPI_REQUEST_NULL && a-- == 0) break;
        if (i == n) fail("internal: active receive count wrong");
        if (k < 87) {
            CHECKS(MPI_Wait(&R->rreq[i], &st), &st, 1);
            rec_complete(R, i, &st, "MPI_Wait");
        } else if (k < 94) {
            CHECKS(MPI_Test(&R->rreq[i], &flag, &st), &st, 1);
            if (flag) rec_complete(R, i, &st, "MPI_Test");
        } else {
            CHECKS(MPI_Request_get_status(R->rreq[i], &flag, &st), &st, 1);
            if (flag) {
                MPI_Status st2;
                if (R->rreq[i] == MPI_REQUEST_NULL)
                    fail("MPI_Request_get_status freed the request; MPI promises it does not");
                CHECKS(MPI_Wait(&R->rreq[i], &st2), &st2, 1);
                if (st2.MPI_SOURCE != st.MPI_SOURCE || st2.MPI_TAG != st.MPI_TAG)
                    fail("MPI_Request_get_status reported a complete receive with source %d tag "
                         "%d, the MPI_Wait that followed source %d tag %d",
                         st.MPI_SOURCE, st.MPI_TAG, st2.MPI_SOURCE, st2.MPI_TAG);
                rec_complete(R, i, &st2, "MPI_Request_get_status + MPI_Wait");
            }
        }
    }
    free(sts);
    free(idx);
}

/* A completion call over [receives, sends, Iallreduce] mixed in one array. */
static void comb_op(round_t *R)
{
    int nr = R->nrec, ns = R->nsend, n = nr + ns + 1;
    MPI_Request *a = xmalloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status *sts = xmalloc(sizeof(MPI_Status) * (size_t)n);
    int *idx = xmalloc(sizeof(int) * (size_t)n);
    char *was = xmalloc((size_t)n);
    memcpy(a, R->rreq, sizeof(MPI_Request) * (size_t)nr);
    memcpy(a + nr, R->sreq, sizeof(MPI_Request) * (size_t)ns);
    a[nr + ns] = R->xreq;
    for (int i = 0; i < n; i++) was[i] = a[i] != MPI_REQUEST_NULL;
    int nothing_owed = R->p_left == 0 && R->late_pos == R->nlate;
    int some_will_complete = R->nactive > 0 || R->xreq != MPI_REQUEST_NULL || nothing_owed;
    int k = rnd(&R->L, 6), out = 0, flag = 0, i;
    MPI_Status st;
    g_op = "a completion call on receives, sends and a collective mixed";
    if ((k == 3 || k == 4) && !some_will_complete) k = 1;
    if (k == 5 && !nothing_owed) k = 2;
    switch (k) {
    case 0:
        CHECKS(MPI_Testany(n, a, &i, &flag, &st), &st, 1);
        if (flag && i != MPI_UNDEFINED) {
            memcpy(&sts[0], &st, sizeof st);
            idx[0] = i;
            out = 1;
        }
        break;
    case 3:
        CHECKS(MPI_Waitany(n, a, &i, &st), &st, 1);
        if (i != MPI_UNDEFINED) {
            memcpy(&sts[0], &st, sizeof st);
            idx[0] = i;
            out = 1;
        }
        break;
    case 1:
        CHECKS(MPI_Testsome(n, a, &out, idx, sts), sts, n);
        if (out == MPI_UNDEFINED) out = 0;
        break;
    case 4:
        CHECKS(MPI_Waitsome(n, a, &out, idx, sts), sts, n);
        if (out == MPI_UNDEFINED) out = 0;
        break;
    case 2:
    case 5:
        if (k == 2)
            CHECKS(MPI_Testall(n, a, &flag, sts), sts, n);
        else {
            CHECKS(MPI_Waitall(n, a, sts), sts, n);
            flag = 1;
        }
        if (flag)
            for (i = 0; i < n; i++)
                if (was[i]) {
                    idx[out] = i;
                    if (out != i) sts[out] = sts[i];
                    out++;
                }
        break;
    }
    static const char *const names[] = {"MPI_Testany (mixed array)",  "MPI_Testsome (mixed array)",
                                        "MPI_Testall (mixed array)",  "MPI_Waitany (mixed array)",
                                        "MPI_Waitsome (mixed array)", "MPI_Waitall (mixed array)"};
    memcpy(R->rreq, a, sizeof(MPI_Request) * (size_t)nr);
    memcpy(R->sreq, a + nr, sizeof(MPI_Request) * (size_t)ns);
    R->xreq = a[nr + ns];
    for (i = 0; i < out; i++) {
        if (!was[idx[i]]) fail("%s reported index %d complete, which was not active", names[k], idx[i]);
        comb_complete(R, idx[i], &sts[i], names[k]);
    }
    free(a);
    free(sts);
    free(idx);
    free(was);
}

static void wait_sends(round_t *R)
{
    int n = R->nsend, k = rnd(&R->L, 4), out, idx1, flag;
    if (n == 0) return;
    if (g_watchdog) {
        char b[1200], d[400];
        size_t len = 0;
        int pending = 0;
        for (int i = 0; i < n; i++) pending += R->sreq[i] != MPI_REQUEST_NULL;
        len += (size_t)snprintf(b, sizeof b,
                                "completing my sends, all receives of the round done: %d of %d "
                                "sends not known complete, synchronous and large first:",
                                pending, n);
        int shown = 0;
        for (int pass = 0; pass < 3; pass++)
            for (int i = 0; i < n && shown < 4 && len < sizeof b - 1; i++) {
                const msg_t *m = R->smsg[i];
                int sync = m->mode == M_ISSEND, large = m->size > 1024;
                if (R->sreq[i] == MPI_REQUEST_NULL ||
                    (pass == 0 ? !sync : pass == 1 ? sync || !large : sync || large))
                    continue;
                shown++;
                len += (size_t)snprintf(b + len, sizeof b - len, " [%s]", describe(m, d, sizeof d));
            }
        set_state("%s", b);
    }
    int *idx = xmalloc(sizeof(int) * (size_t)n);
    switch (k) {
    case 0: CHECK(MPI_Waitall(n, R->sreq, MPI_STATUSES_IGNORE)); break;
    case 1:
        do CHECK(MPI_Waitsome(n, R->sreq, &out, idx, MPI_STATUSES_IGNORE));
        while (out != MPI_UNDEFINED);
        break;
    case 2:
        do CHECK(MPI_Testany(n, R->sreq, &idx1, &flag, MPI_STATUS_IGNORE));
        while (!(flag && idx1 == MPI_UNDEFINED));
        break;
    default:
        for (int i = 0; i < n; i++) CHECK(MPI_Wait(&R->sreq[i], MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < n; i++) {
        if (R->smsg[i]->pers && R->sreq[i] != MPI_REQUEST_NULL)
            CHECK(MPI_Request_free(&R->sreq[i]));
        if (R->sreq[i] != MPI_REQUEST_NULL)
            fail("a completed send request was not set to MPI_REQUEST_NULL");
    }
    free(idx);
}

static void do_send(round_t *R, int j)
{
    const msg_t *m = R->smsg[j];
    if (g_watchdog) {
        char d[400];
        set_state("sending (in send order) %s", describe(m, d, sizeof d));
    }
    unsigned char *buf = xmalloc((size_t)m->size);
    fill_payload(buf, (size_t)m->size, payload_base(g_round, m->src, m->idx));
    g_sent[0]++;
    g_sent[1] += (uint64_t)m->size;
    g_sent[2] += checksum(buf, (size_t)m->size);
    int size = m->size;
    if (g_round == 1 && g_rank == 0 && size > 0) {
        static int done_byte, done_size;
        if (g_inject == INJ_BYTE && !done_byte) {
            done_byte = 1;
            buf[size / 2] ^= 0x10;
        }
        if (g_inject == INJ_SIZE && !done_size && !m->dt) {
            done_size = 1;
            size--;
        }
    }
    R->sbuf[j] = buf;
    int esz = m->dt ? 4 : 1;
    int cnt = size / esz, dst = g_w2c[m->comm][m->dst];
    MPI_Datatype dt = m->dt ? MPI_INT : MPI_BYTE;
    MPI_Comm c = g_comm[m->comm];
    MPI_Request *rq = &R->sreq[j];
    *rq = MPI_REQUEST_NULL;
    if (m->pers) {
        switch (m->mode) {
        case M_ISEND: CHECK(MPI_Send_init(buf, cnt, dt, dst, m->tag, c, rq)); break;
        case M_ISSEND: CHECK(MPI_Ssend_init(buf, cnt, dt, dst, m->tag, c, rq)); break;
        case M_IRSEND: CHECK(MPI_Rsend_init(buf, cnt, dt, dst, m->tag, c, rq)); break;
        default: CHECK(MPI_Bsend_init(buf, cnt, dt, dst, m->tag, c, rq)); break;
        }
        CHECK(MPI_Start(rq));
        return;
    }
    switch (m->mode) {
    case M_ISEND: CHECK(MPI_Isend(buf, cnt, dt, dst, m->tag, c, rq)); break;
    case M_SEND: CHECK(MPI_Send(buf, cnt, dt, dst, m->tag, c)); break;
    case M_ISSEND:
        if (g_inject == INJ_ISSEND && m->hold) /* self-test: a "synchronous" send that is not */
            CHECK(MPI_Isend(buf, cnt, dt, dst, m->tag, c, rq));
        else
            CHECK(MPI_Issend(buf, cnt, dt, dst, m->tag, c, rq));
        break;
    case M_SSEND: CHECK(MPI_Ssend(buf, cnt, dt, dst, m->tag, c)); break;
    case M_RSEND: CHECK(MPI_Rsend(buf, cnt, dt, dst, m->tag, c)); break;
    case M_IRSEND: CHECK(MPI_Irsend(buf, cnt, dt, dst, m->tag, c, rq)); break;
    case M_BSEND: CHECK(MPI_Bsend(buf, cnt, dt, dst, m->tag, c)); break;
    case M_IBSEND: CHECK(MPI_Ibsend(buf, cnt, dt, dst, m->tag, c, rq)); break;
    }
}

/* Synchronous sends whose receive is posted only after the mid barrier must
 * not complete before it. */
static void test_holds(round_t *R)
{
    for (int j = 0; j < R->nsend; j++) {
        const msg_t *m = R->smsg[j];
        if (!m->hold || R->sreq[j] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        MPI_Status st;
        if (rnd(&R->L, 2))
            CHECK(MPI_Test(&R->sreq[j], &flag, &st));
        else
            CHECK(MPI_Request_get_status(R->sreq[j], &flag, &st));
        if (flag) {
            char d[400];
            fail("MPI_Issend of %s completed before its receiver posted any receive that can "
                 "match it (it does so only after the barrier that follows); MPI promises a "
                 "synchronous send completes only after the matching receive has started",
                 describe(m, d, sizeof d));
        }
    }
}

/* ----------------------------------------------------------------- floods */

enum { FLOOD_EVERY = 8, FLOOD_TAG = 7, FLOOD_BYTES = (4 << 20) + (1 << 17) };

static MPI_Comm g_flood_comm;

static int flood_round(int round)
{
    return g_size > 1 && mix64(g_seed ^ 0xf100dULL ^ (uint64_t)round * 0x9e37ULL) %
                                 FLOOD_EVERY == 0;
}

static int flood_size(int round, int src, int i)
{
    return 1 + (int)(mix64(payload_base(round, src, 2000000 + i)) % 200);
}

/* How many messages of a flood: just past FLOOD_BYTES with headers. */
static int flood_count(int round, int src)
{
    long bytes = 0;
    int n = 0;
    while (bytes < FLOOD_BYTES)
        bytes += flood_size(round, src, n++) + 24;
    return n;
}

static void run_flood(int round)
{
    int shift = 1 + (int)(mix64(g_seed ^ (uint64_t)round) % (uint64_t)(g_size - 1));
    int to = (g_rank + shift) % g_size, from = (g_rank - shift + g_size) % g_size;
    int nout = flood_count(round, g_rank), nin = flood_count(round, from);
    rng_t L = rng_make(0xf100d, (uint64_t)round, (uint64_t)g_rank, 2);
    unsigned char **out = xmalloc(sizeof *out * (size_t)nout);
    unsigned char **in = xmalloc(sizeof *in * (size_t)nin);
    MPI_Request *sreq = xmalloc(sizeof *sreq * (size_t)nout);
    MPI_Request *rreq = xmalloc(sizeof *rreq * (size_t)nin);
    int *persistent = xcalloc((size_t)nout, sizeof(int));
    watchdog_arm();
    set_state("starting a flood of %d sends to rank %d before any receive", nout, to);
    for (int i = 0; i < nout; i++) {
        int n = flood_size(round, g_rank, i);
        out[i] = xmalloc((size_t)n);
        fill_payload(out[i], (size_t)n, payload_base(round, g_rank, 1000000 + i));
        int how = rnd(&L, 5);
        if (how == 0) {
            CHECK(MPI_Send_init(out[i], n, MPI_BYTE, to, FLOOD_TAG, g_flood_comm, &sreq[i]));
            CHECK(MPI_Start(&sreq[i]));
            persistent[i] = 1;
        } else if (how == 1) {
            CHECK(MPI_Issend(out[i], n, MPI_BYTE, to, FLOOD_TAG, g_flood_comm, &sreq[i]));
        } else {
            CHECK(MPI_Isend(out[i], n, MPI_BYTE, to, FLOOD_TAG, g_flood_comm, &sreq[i]));
        }
    }
    set_state("receiving a flood of %d messages from rank %d", nin, from);
    for (int i = 0; i < nin; i++) {
        int n = flood_size(round, from, i);
        in[i] = xmalloc((size_t)n);
        CHECK(MPI_Irecv(in[i], n, MPI_BYTE, from, FLOOD_TAG, g_flood_comm, &rreq[i]));
    }
    CHECK(MPI_Waitall(nin, rreq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nin; i++) {
        int n = flood_size(round, from, i);
        unsigned char *want = xmalloc((size_t)n);
        fill_payload(want, (size_t)n, payload_base(round, from, 1000000 + i));
        if (memcmp(want, in[i], (size_t)n) != 0)
            fail("flood message %d of %d from rank %d, started with its sender's "
                 "other sends before any receive, must arrive intact and in send "
                 "order (MPI-4.1 3.5, 3.7); its bytes differ", i, nin, from);
        g_recv[0]++;
        g_recv[1] += (uint64_t)n;
        g_recv[2] += checksum(in[i], (size_t)n);
        free(want);
        free(in[i]);
    }
    set_state("completing a flood of %d sends to rank %d", nout, to);
    CHECK(MPI_Waitall(nout, sreq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nout; i++) {
        int n = flood_size(round, g_rank, i);
        g_sent[0]++;
        g_sent[1] += (uint64_t)n;
        g_sent[2] += checksum(out[i], (size_t)n);
        if (persistent[i])
            CHECK(MPI_Request_free(&sreq[i]));
        free(out[i]);
    }
    free(out);
    free(in);
    free(sreq);
    free(rreq);
    free(persistent);
}

/* Relays: in about one round in eight (chosen by the seed, alike on every
 * rank) a token goes RELAY_LAPS times round the ring of ranks, on the flood
 * communicator, and every rank waits for it by polling MPI_Test only: one
 * message in flight in the whole job, a latency-bound phase between the
 * bulk rounds.  Polling never blocks, so under an aggregating library the
 * token moves only if a buffer holding it leaves while its sender polls in
 * vain.  Each hop carries 1 to 64 bytes that the receiver checks. */
enum { RELAY_EVERY = 8, RELAY_TAG = 8, RELAY_LAPS = 12 };

static int relay_round(int round)
{
    return g_size > 1 &&
           mix64(g_seed ^ 0x5e1a7ULL ^ (uint64_t)round * 0x7f4aULL) % RELAY_EVERY == 0;
}

static int relay_size(int round, int src, int lap)
{
    return 1 + (int)(mix64(payload_base(round, src, 3000000 + lap)) % 64);
}

static void relay_poll(MPI_Request *req, const char *what)
{
    int done = 0;
    set_state("polling with MPI_Test for %s", what);
    while (!done)
        CHECK(MPI_Test(req, &done, MPI_STATUS_IGNORE));
}

static void run_relay(int round)
{
    int right = (g_rank + 1) % g_size, left = (g_rank - 1 + g_size) % g_size;
    unsigned char in[64], out[64], want[64];
    watchdog_arm();
    for (int lap = 0; lap < RELAY_LAPS; lap++) {
        if (g_rank != 0) {
            int n = relay_size(round, left, lap);
            MPI_Request r;
            CHECK(MPI_Irecv(in, n, MPI_BYTE, left, RELAY_TAG, g_flood_comm, &r));
            relay_poll(&r, "the relay token from the left");
            fill_payload(want, (size_t)n, payload_base(round, left, 3000000 + lap));
            if (memcmp(want, in, (size_t)n) != 0)
                fail("relay lap %d: the token from rank %d must arrive intact "
                     "(MPI-4.1 3.4); its bytes differ", lap, left);
            g_recv[0]++;
            g_recv[1] += (uint64_t)n;
            g_recv[2] += checksum(in, (size_t)n);
        }
        int n = relay_size(round, g_rank, lap);
        fill_payload(out, (size_t)n, payload_base(round, g_rank, 3000000 + lap));
        MPI_Request s;
        CHECK(MPI_Isend(out, n, MPI_BYTE, right, RELAY_TAG, g_flood_comm, &s));
        relay_poll(&s, "the relay token's send to the right");
        g_sent[0]++;
        g_sent[1] += (uint64_t)n;
        g_sent[2] += checksum(out, (size_t)n);
        if (g_rank == 0) {
            int m = relay_size(round, left, lap);
            MPI_Request r;
            CHECK(MPI_Irecv(in, m, MPI_BYTE, left, RELAY_TAG, g_flood_comm, &r));
            relay_poll(&r, "the relay token back from the left");
            fill_payload(want, (size_t)m, payload_base(round, left, 3000000 + lap));
            if (memcmp(want, in, (size_t)m) != 0)
                fail("relay lap %d: the token back from rank %d must arrive "
                     "intact (MPI-4.1 3.4); its bytes differ", lap, left);
            g_recv[0]++;
            g_recv[1] += (uint64_t)m;
            g_recv[2] += checksum(in, (size_t)m);
        }
    }
}

static void run_round(plan_t *p)
{
    round_t Rs, *R = &Rs;
    memset(R, 0, sizeof *R);
    R->p = p;
    R->L = rng_make(0x10ca1, (uint64_t)g_round, (uint64_t)g_rank, 1);
    R->xreq = MPI_REQUEST_NULL;
    watchdog_arm();
    set_state("posting this round's receives");

    /* What reaches me, in plan order (which is each sender's send order). */
    int nin = 0;
    for (int i = 0; i < p->n; i++) nin += p->m[i].dst == g_rank;
    R->q = xcalloc((size_t)nin, sizeof(queue_t));
    R->rec = xcalloc((size_t)nin, sizeof(rrec_t));
    R->rreq = xmalloc(sizeof(MPI_Request) * (size_t)(nin ? nin : 1));
    R->late = xmalloc(sizeof(int) * (size_t)(nin ? nin : 1));
    R->pg = xcalloc((size_t)nin, sizeof(pgroup_t));
    for (int i = 0; i < p->n; i++) {
        const msg_t *m = &p->m[i];
        if (m->dst != g_rank) continue;
        queue_t *q = queue_of(R, m, 1);
        if (q->n == q->cap) {
            q->cap = q->cap ? 2 * q->cap : 8;
            q->m = realloc(q->m, sizeof(*q->m) * (size_t)q->cap);
            if (!q->m) fail("out of memory");
        }
        q->m[q->n++] = m;
        if (m->cls == C_P) {
            pgroup_t *G = NULL;
            for (int g = 0; g < R->npg; g++)
                if (R->pg[g].comm == m->comm && R->pg[g].tag == m->tag) G = &R->pg[g];
            if (!G) {
                G = &R->pg[R->npg++];
                G->comm = m->comm;
                G->tag = m->tag;
                G->left_from = xcalloc((size_t)g_size, sizeof(int));
            }
            G->left++;
            G->left_from[m->src]++;
            R->p_left++;
            continue;
        }
        rrec_t *r = &R->rec[R->nrec++];
        r->cls = m->cls;
        r->comm = m->comm;
        r->q = q;
        switch (m->cls) {
        case C_S_EARLY:
        case C_S_LATE:
            r->srcspec = g_w2c[m->comm][m->src];
            r->tagspec = m->tag;
            r->late = m->cls == C_S_LATE;
            break;
        case C_AS:
            r->srcspec = MPI_ANY_SOURCE;
            r->tagspec = m->tag;
            r->late = m->aslate;
            break;
        case C_AT:
            r->srcspec = g_w2c[m->comm][m->src];
            r->tagspec = MPI_ANY_TAG;
            break;
        default:
            r->srcspec = MPI_ANY_SOURCE;
            r->tagspec = MPI_ANY_TAG;
        }
        if (m->cls == C_AS || m->cls == C_AT || m->cls == C_WILD) {
            /* room for the largest message this receive may match */
            size_t mx = 0;
            for (int k = 0; k < p->n; k++) {
                const msg_t *o = &p->m[k];
                if (o->dst != g_rank || o->cls != m->cls || o->comm != m->comm) continue;
                if (m->cls == C_AS && o->tag != m->tag) continue;
                if (m->cls == C_AT && o->src != m->src) continue;
                if ((size_t)o->size > mx) mx = (size_t)o->size;
            }
            r->cap = mx;
        }
    }
    for (int i = 0; i < R->nrec; i++) R->rreq[i] = MPI_REQUEST_NULL;

    /* My sends, in send order. */
    R->nsend = p->count[g_rank];
    R->smsg = xmalloc(sizeof(msg_t *) * (size_t)(R->nsend ? R->nsend : 1));
    R->sbuf = xcalloc((size_t)R->nsend, sizeof(unsigned char *));
    R->sreq = xmalloc(sizeof(MPI_Request) * (size_t)(R->nsend ? R->nsend : 1));
    for (int j = 0; j < R->nsend; j++) {
        R->smsg[j] = &p->m[p->first[g_rank] + j];
        R->sreq[j] = MPI_REQUEST_NULL;
    }
    static int order_injected;
    if (g_inject == INJ_ORDER && g_round >= 1 && g_rank == 0 && !order_injected) {
        /* self-test: swap two messages of one stream, a sender-side order violation */
        for (int a = 0; a < R->nsend; a++)
            for (int b = a + 1; b < R->nsend; b++) {
                const msg_t *x = R->smsg[a], *y = R->smsg[b];
                if (x->dst == y->dst && x->comm == y->comm && msg_kind(x) == msg_kind(y) &&
                    (x->tag == y->tag || msg_kind(x) == K_AT || msg_kind(x) == K_WILD) &&
                    x->phase == y->phase && is_preposted(x) == is_preposted(y) && x->dt == y->dt &&
                    x->size >= y->size && x->dst != g_rank) {
                    R->smsg[a] = y;
                    R->smsg[b] = x;
                    a = b = R->nsend;
                    order_injected = 1;
                    fprintf(stderr, "stress: inject: rank 0 sends messages #%d and #%d of round %d "
                            "in swapped order\n", x->idx, y->idx, g_round);
                }
            }
    }

    /* 1. Post the early receives (shuffled; S streams take their next
     *    message at posting time, so any order is right), start the
     *    Iallreduce. */
    int *order = xmalloc(sizeof(int) * (size_t)(R->nrec ? R->nrec : 1));
    int ne = 0;
    for (int i = 0; i < R->nrec; i++) {
        if (R->rec[i].late)
            R->late[R->nlate++] = i;
        else
            order[ne++] = i;
    }
    for (int i = ne - 1; i > 0; i--) {
        int j = rnd(&R->L, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = R->nlate - 1; i > 0; i--) {
        int j = rnd(&R->L, i + 1), t = R->late[i];
        R->late[i] = R->late[j];
        R->late[j] = t;
    }
    for (int i = 0; i < ne; i++) post_rec(R, order[i], 0);
    free(order);
    post_decoys(R);
    if (p->xcoll) {
        int64_t mine = (int64_t)(g_rank + 1) * (g_round + 1);
        CHECK(MPI_Iallreduce(&mine, &R->xval, 1, MPI_INT64_T, MPI_SUM, g_comm[p->xcomm], &R->xreq));
    }

    /* 2. Send, in plan order; in mid rounds a barrier between the phases. */
    int barrier_done = !p->mid;
    for (int j = 0; j < R->nsend; j++) {
        if (!barrier_done && R->smsg[j]->phase == 1) {
            test_holds(R);
            set_state("in the mid-round MPI_Barrier on MPI_COMM_WORLD, after my first %d sends", j);
            CHECK(MPI_Barrier(MPI_COMM_WORLD));
            barrier_done = 1;
        }
        do_send(R, j);
    }
    if (!barrier_done) {
        test_holds(R);
        set_state("in the mid-round MPI_Barrier on MPI_COMM_WORLD, after all my sends");
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* 3. Receive everything: late posts, probes and completion calls. */
    int seen_done = -1, seen_p = -1, seen_late = -1;
    while (R->ndone < R->nrec || R->p_left > 0) {
        if (g_watchdog &&
            (seen_done != R->ndone || seen_p != R->p_left || seen_late != R->late_pos)) {
            seen_done = R->ndone;
            seen_p = R->p_left;
            seen_late = R->late_pos;
            state_receiving(R);
        }
        int w = rnd(&R->L, 100);
        if (R->decoy_left > 0 && rnd(&R->L, 20) == 0) {
            cancel_decoy(R);
        } else if (R->late_pos < R->nlate && w < 20) {
            int k = 1 + rnd(&R->L, 3);
            while (k-- > 0 && R->late_pos < R->nlate) {
                int i = R->late[R->late_pos++];
                post_rec(R, i, rnd(&R->L, 4) == 0);
            }
        } else if (R->p_left > 0 && w < 50) {
            probe_action(R);
        } else if (R->nactive > 0 && w < 80) {
            recv_op(R);
        } else {
            comb_op(R);
        }
    }

    while (R->decoy_left > 0) cancel_decoy(R);

    /* Wildcard receives, in posting order: per source (and tag, for
     * MPI_ANY_SOURCE with a tag), the earlier posted receive got the earlier
     * sent message. */
    int *byorder = xmalloc(sizeof(int) * (size_t)(R->nrec ? R->nrec : 1));
    for (int i = 0; i < R->nrec; i++) byorder[R->rec[i].order] = i;
    for (int k = 0; k < R->nrec; k++) {
        rrec_t *r = &R->rec[byorder[k]];
        if (r->expect) continue;
        int kind = r->cls == C_AS ? K_AS : r->cls == C_AT ? K_AT : K_WILD;
        char spec[400];
        spec_str(spec, sizeof spec,
                 r->blocking ? "MPI_Recv" : r->persistent ? "MPI_Recv_init+MPI_Start" : "MPI_Irecv",
                 r->srcspec, r->tagspec, r->comm);
        snprintf(spec + strlen(spec), sizeof spec - strlen(spec),
                 ", receive #%d posted this round (%s), completed by %s,", r->order + 1,
                 r->late ? "late" : "before the sends", r->how);
        if (r->st.MPI_SOURCE < 0 || r->st.MPI_SOURCE >= g_csize[r->comm])
            fail("%s has status source %d, not a rank of that communicator", spec,
                 r->st.MPI_SOURCE);
        int s = g_c2w[r->comm][r->st.MPI_SOURCE];
        queue_t *q = find_queue(R, kind, s, r->comm, kind == K_AS ? r->st.MPI_TAG : -1);
        if ((r->srcspec != MPI_ANY_SOURCE && r->st.MPI_SOURCE != r->srcspec) ||
            (r->tagspec != MPI_ANY_TAG && r->st.MPI_TAG != r->tagspec) || !q || q->next >= q->n) {
            char who[500];
            int cnt = -1;
            MPI_Get_count(&r->st, MPI_BYTE, &cnt);
            if (cnt >= 0 && (size_t)cnt <= r->cap)
                identify(p, r->buf, cnt, who, sizeof who);
            else
                snprintf(who, sizeof who, "count %d", cnt);
            fail("%s has status source %d (world %d) tag %d, but this round that source sent %s "
                 "message to this rank that this receive can match (%d sent, all already "
                 "received); %s",
                 spec, r->st.MPI_SOURCE, s, r->st.MPI_TAG, q ? "no further" : "no", q ? q->n : 0,
                 who);
        }
        const msg_t *m = q->m[q->next++];
        verify(p, m, r->buf, r->cap, &r->st, spec,
               kind == K_AS ? RULE_AS : kind == K_AT ? RULE_AT : RULE_WILD);
    }
    free(byorder);

    /* 4. Complete the sends and the Iallreduce. */
    wait_sends(R);
    if (R->xreq != MPI_REQUEST_NULL) {
        set_state("in MPI_Wait for the round's MPI_Iallreduce on %s", comm_name[p->xcomm]);
        CHECK(MPI_Wait(&R->xreq, MPI_STATUS_IGNORE));
        check_xval(R);
    }

    for (int i = 0; i < R->nrec; i++) free(R->rec[i].buf);
    for (int i = 0; i < R->nq; i++) free(R->q[i].m);
    for (int g = 0; g < R->npg; g++) free(R->pg[g].left_from);
    for (int j = 0; j < R->nsend; j++) free(R->sbuf[j]);
    free(R->q);
    free(R->rec);
    free(R->rreq);
    free(R->late);
    free(R->pg);
    free(R->smsg);
    free(R->sbuf);
    free(R->sreq);
}

/* ----------------------------------------------------------- collectives */

static void allreduce_check(int c, const char *when)
{
    uint64_t in[6], out[6];
    memcpy(in, g_sent, sizeof g_sent);
    memcpy(in + 3, g_recv, sizeof g_recv);
    CHECK(MPI_Allreduce(in, out, 6, MPI_UINT64_T, MPI_SUM, g_comm[c]));
    if (out[0] != out[3] || out[1] != out[4] || out[2] != out[5])
        fail("MPI_Allreduce on %s %s: all ranks together sent %llu messages, %llu bytes, checksum "
             "%016llx and received %llu messages, %llu bytes, checksum %016llx; every message "
             "sent must be received exactly once with its content",
             comm_name[c], when, (unsigned long long)out[0], (unsigned long long)out[1],
             (unsigned long long)out[2], (unsigned long long)out[3], (unsigned long long)out[4],
             (unsigned long long)out[5]);
}

static void end_of_round(const plan_t *p)
{
    int c = p->coll_comm;
    static const char *const cname[] = {"", "MPI_Allreduce", "MPI_Barrier", "MPI_Bcast"};
    if (p->coll != COLL_NONE) set_state("in the end-of-round %s on %s", cname[p->coll], comm_name[c]);
    switch (p->coll) {
    case COLL_ALLREDUCE: allreduce_check(c, "after the round"); break;
    case COLL_BARRIER: CHECK(MPI_Barrier(g_comm[c])); break;
    case COLL_BCAST: {
        int n = p->bcast_size, root = p->bcast_root;
        unsigned char *buf = xmalloc((size_t)n + 8);
        uint64_t base = payload_base(g_round, root, 1 << 30);
        if (g_rank == root)
            fill_payload(buf, (size_t)n, base);
        else
            memset(buf, 0x5A, (size_t)n);
        CHECK(MPI_Bcast(buf, n, MPI_BYTE, g_w2c[c][root], g_comm[c]));
        unsigned char *exp = xmalloc((size_t)n + 8);
        fill_payload(exp, (size_t)n, base);
        if (memcmp(exp, buf, (size_t)n) != 0) {
            size_t off = 0;
            while (exp[off] == buf[off]) off++;
            fail("MPI_Bcast of %d bytes from world rank %d on %s: byte %zu is 0x%02x, the root "
                 "sent 0x%02x",
                 n, root, comm_name[c], off, buf[off], exp[off]);
        }
        free(exp);
        free(buf);
        break;
    }
    default: break;
    }
}

/* ------------------------------------------------------------------ main */

static void usage(const char *why)
{
    if (g_rank == 0)
        fprintf(stderr,
                "stress: %s\nusage: stress --seed S --rounds R [--max-size BYTES] [--quiet] "
                "[--watchdog SECONDS] [--inject byte|order|size|issend]\n",
                why);
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    int have_seed = 0, rounds = -1, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (i + 1 >= argc) usage("missing value after an option");
        const char *v = argv[++i];
        if (!strcmp(a, "--seed")) {
            g_seed = strtoull(v, &end, 10);
            if (*v == 0 || *end || *v == '-') usage("--seed wants a non-negative integer");
            have_seed = 1;
        } else if (!strcmp(a, "--rounds")) {
            long r = strtol(v, &end, 10);
            if (*v == 0 || *end || r < 0 || r > 1000000) usage("--rounds wants 0..1000000");
            rounds = (int)r;
        } else if (!strcmp(a, "--max-size")) {
            long m = strtol(v, &end, 10);
            if (*v == 0 || *end || m < 0 || m > (1L << 28)) usage("--max-size wants 0..268435456");
            g_maxsize = (int)m;
        } else if (!strcmp(a, "--watchdog")) {
            long w = strtol(v, &end, 10);
            if (*v == 0 || *end || w < 0 || w > 100000) usage("--watchdog wants seconds, 0..100000");
            g_watchdog = (int)w;
        } else if (!strcmp(a, "--inject")) {
            g_inject = !strcmp(v, "byte")     ? INJ_BYTE
                       : !strcmp(v, "order")  ? INJ_ORDER
                       : !strcmp(v, "size")   ? INJ_SIZE
                       : !strcmp(v, "issend") ? INJ_ISSEND
                                              : -1;
            if (g_inject < 0) usage("--inject wants byte, order, size or issend");
        } else {
            usage("unknown option");
        }
    }
    if (!have_seed || rounds < 0) usage("--seed and --rounds are required");
    if (g_watchdog) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        watchdog_arm();
        set_state("setting up communicators");
    }

    /* Communicators; errors come back as codes so every failure is reported
     * with what was promised. */
    g_comm[0] = MPI_COMM_WORLD;
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm[1]));
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - 1 - g_rank, &g_comm[2]));
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_size - 1 - g_rank, &g_comm[3]));
    MPI_Group wg;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *wr = xmalloc(sizeof(int) * (size_t)g_size);
    for (int i = 0; i < g_size; i++) wr[i] = i;
    for (int c = 0; c < NCOMM; c++) {
        CHECK(MPI_Comm_set_errhandler(g_comm[c], MPI_ERRORS_RETURN));
        MPI_Group cg;
        CHECK(MPI_Comm_group(g_comm[c], &cg));
        CHECK(MPI_Comm_size(g_comm[c], &g_csize[c]));
        g_w2c[c] = xmalloc(sizeof(int) * (size_t)g_size);
        g_c2w[c] = xmalloc(sizeof(int) * (size_t)g_size);
        CHECK(MPI_Group_translate_ranks(wg, g_size, wr, cg, g_w2c[c]));
        for (int i = 0; i < g_size; i++) {
            if (g_w2c[c][i] == MPI_UNDEFINED) g_w2c[c][i] = -1;
            if (g_w2c[c][i] >= 0) g_c2w[c][g_w2c[c][i]] = i;
        }
        CHECK(MPI_Group_free(&cg));
        int cr;
        CHECK(MPI_Comm_rank(g_comm[c], &cr));
        if (cr != g_w2c[c][g_rank]) fail("rank in %s is %d, the group says %d", comm_name[c], cr, g_w2c[c][g_rank]);
    }
    if (g_w2c[2][g_rank] != g_size - 1 - g_rank) fail("the reversed split did not reverse ranks");
    CHECK(MPI_Group_free(&wg));
    free(wr);

    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &g_flood_comm));
    int bsize = 8 << 20;
    void *battach = xmalloc((size_t)bsize);
    CHECK(MPI_Buffer_attach(battach, bsize));

    plan_t plan;
    memset(&plan, 0, sizeof plan);
    plan.first = xmalloc(sizeof(int) * (size_t)g_size);
    plan.count = xmalloc(sizeof(int) * (size_t)g_size);
    plan.wild = xmalloc((size_t)g_size * NCOMM);
    int since_sync = 0;
    for (int round = 0; round < rounds; round++) {
        g_round = round;
        gen_plan(&plan, round, since_sync);
        run_round(&plan);
        if (flood_round(round))
            run_flood(round);
        if (relay_round(round))
            run_relay(round);
        end_of_round(&plan);
        since_sync = (plan.coll == COLL_ALLREDUCE || plan.coll == COLL_BARRIER) ? 0 : since_sync + 1;
    }
    g_round = rounds;
    watchdog_arm();
    set_state("in the final MPI_Allreduce on MPI_COMM_WORLD");
    allreduce_check(0, "at the end");
    set_state("in MPI_Buffer_detach (it waits for buffered sends)");
    void *bdet;
    int bdsize;
    CHECK(MPI_Buffer_detach(&bdet, &bdsize));
    free(battach);
    uint64_t tot[2] = {g_recv[0], g_recv[1]}, all[2];
    CHECK(MPI_Reduce(tot, all, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    if (g_rank == 0 && !quiet)
        fprintf(stderr, "stress: seed %llu: %llu messages, %llu bytes verified\n",
                (unsigned long long)g_seed, (unsigned long long)all[0], (unsigned long long)all[1]);
    set_state("freeing communicators");
    for (int c = 1; c < NCOMM; c++) CHECK(MPI_Comm_free(&g_comm[c]));
    CHECK(MPI_Comm_free(&g_flood_comm));
    free(plan.m);
    free(plan.first);
    free(plan.count);
    free(plan.wild);
    set_state("in MPI_Finalize");
    MPI_Finalize();
    if (g_watchdog) alarm(0);
    return 0;
}
