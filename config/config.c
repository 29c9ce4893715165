/* config.c: parsing and checking of the OMNIBUS_* variables (see config.h).
 *
 * Parsing is strict on purpose: a value is accepted only in exactly the forms
 * documented, with no surrounding spaces, signs, fractions or extra letters,
 * because a lenient parser would silently run the job with settings the user
 * did not ask for.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FLUSH_US_MAX 10000000L

/* The longest rendering of a user's value inside a message, so that the
 * "what is accepted" part still fits in CFG_ERR_LEN. */
#define SHOWN_VALUE_MAX 160

#if defined(__GNUC__)
#define CFG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CFG_PRINTF(f, a)
#endif

static const char *const known_names[] = {
    "OMNIBUS_TOPOLOGY",   "OMNIBUS_BUFFER_SIZE", "OMNIBUS_THRESHOLD",
    "OMNIBUS_FLUSH_US",   "OMNIBUS_DISABLE",     "OMNIBUS_STATS",
    "OMNIBUS_STATS_FILE", "OMNIBUS_YIELD",       "OMNIBUS_PROGRESS",
    "OMNIBUS_EAGER_POOL", "OMNIBUS_NEIGHBOR",    "OMNIBUS_NEIGHBOR_THETA",
    "OMNIBUS_IDLE_ROUNDS", "OMNIBUS_SHM",        "OMNIBUS_COLLECTIVES",
    /* Read by the test suite only (a fake node layout for `auto`; the rank
     * count of the window rule). */
    "OMNIBUS_FAKE_NODES", "OMNIBUS_FLOW_RANKS",
    /* Read by scripts/omnibus-run (which library to preload); the ranks
     * inherit it. */
    "OMNIBUS_LIB",
};
#define N_KNOWN (sizeof known_names / sizeof known_names[0])

/* Longer than any entry of known_names. */
#define KNOWN_NAME_CAP 64

/* Parses a non-empty run of decimal digits at *p whose value is at most max,
 * and advances *p past it.  -1 (with *p unchanged) otherwise. */
static int parse_digits(const char **p, unsigned long long max,
                        unsigned long long *out)
{
    const char *s = *p;
    unsigned long long v = 0;

    if (*s < '0' || *s > '9')
        return -1;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
        s++;
    }
    *p = s;
    *out = v;
    return 0;
}

static int parse_size(const char *text, int allow_zero, size_t *out)
{
    const char *p = text;
    unsigned long long v, mult = 1;

    if (text == NULL || parse_digits(&p, SIZE_MAX, &v) != 0)
        return -1;
    if (*p == 'k' || *p == 'K') {
        mult = 1024;
        p++;
    } else if (*p == 'm' || *p == 'M') {
        mult = 1024 * 1024;
        p++;
    }
    if (*p != '\0' || v > SIZE_MAX / mult || (v == 0 && !allow_zero))
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

int cfg_parse_size(const char *text, size_t *out)
{
    return parse_size(text, 0, out);
}

/* Renders a size the way a user would write it: 64M, 64K or 100. */
static void show_size(size_t n, char *buf, size_t cap)
{
    if (n != 0 && n % ((size_t)1 << 20) == 0)
        snprintf(buf, cap, "%zuM", n >> 20);
    else if (n != 0 && n % 1024 == 0)
        snprintf(buf, cap, "%zuK", n >> 10);
    else
        snprintf(buf, cap, "%zu", n);
}

/* Renders a user's value for a one-line message.  A value made only of
 * visible ASCII is shown as is; anything else (empty, spaces, control or
 * non-ASCII bytes, quotes) is shown in double quotes with C escapes, so that
 * an empty value or a trailing space is visible and a newline cannot break
 * the line.  Values longer than SHOWN_VALUE_MAX are cut and end in "...". */
static void show_value(const char *v, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)v;
    int plain = *s != '\0';
    size_t n = 0, i;

    for (i = 0; s[i] != '\0'; i++)
        if (s[i] <= ' ' || s[i] >= 0x7f || s[i] == '"')
            plain = 0;

    /* cap - 8 leaves room for one escape, the "..." and the closing quote. */
    if (!plain)
        buf[n++] = '"';
    for (i = 0; s[i] != '\0'; i++) {
        unsigned char c = s[i];
        if (n >= cap - 8 || n >= SHOWN_VALUE_MAX) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (plain || (c >= ' ' && c != 0x7f && c != '"' && c != '\\')) {
            buf[n++] = (char)c;
        } else {
            buf[n++] = '\\';
            switch (c) {
            case '\n': buf[n++] = 'n'; break;
            case '\t': buf[n++] = 't'; break;
            case '\r': buf[n++] = 'r'; break;
            case '"':
            case '\\': buf[n++] = (char)c; break;
            default:
                buf[n++] = 'x';
                buf[n++] = hex[c >> 4];
                buf[n++] = hex[c & 15];
            }
        }
    }
    if (!plain)
        buf[n++] = '"';
    buf[n] = '\0';
}

/* Writes "NAME=VALUE is not valid: <what is accepted>" and returns -1. */
CFG_PRINTF(5, 6)
static int refuse(char *err, size_t errlen, const char *name,
                  const char *value, const char *fmt, ...)
{
    char shown[SHOWN_VALUE_MAX + 16];
    va_list ap;
    int n;

    if (err == NULL || errlen == 0)
        return -1;
    show_value(value, shown, sizeof shown);
    n = snprintf(err, errlen, "%s=%s is not valid: ", name, shown);
    if (n >= 0 && (size_t)n < errlen) {
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int parse_topology(const char *text, cfg_settings *s)
{
    size_t len = strlen(text);
    const char *p = text;
    unsigned long long v;
    int dims[CFG_MAX_DIMS];
    int nd = 0, i;

    if (strcmp(text, "auto") == 0) {
        s->topo_kind = CFG_TOPO_AUTO;
        return 0;
    }
    if (strcmp(text, "direct") == 0) {
        s->topo_kind = CFG_TOPO_DIRECT;
        return 0;
    }
    if (strcmp(text, "nodes") == 0) {
        s->topo_kind = CFG_TOPO_NODES;
        return 0;
    }
    if (len >= 2 && (text[len - 1] == 'd' || text[len - 1] == 'D')) {
        if (parse_digits(&p, CFG_MAX_DIMS, &v) != 0 || p != text + len - 1 ||
            v < 1)
            return -1;
        s->topo_kind = CFG_TOPO_BALANCED;
        s->ndims = (int)v;
        return 0;
    }
    for (;;) {
        if (nd == CFG_MAX_DIMS || parse_digits(&p, INT_MAX, &v) != 0 || v < 1)
            return -1;
        dims[nd++] = (int)v;
        if (*p == '\0')
            break;
        if (*p != 'x' && *p != 'X')
            return -1;
        p++;
    }
    s->topo_kind = CFG_TOPO_EXPLICIT;
    s->ndims = nd;
    for (i = 0; i < nd; i++)
        s->dims[i] = dims[i];
    return 0;
}

static int parse_flag(const char *text, int *out)
{
    if (strcmp(text, "0") == 0 || strcmp(text, "1") == 0) {
        *out = text[0] == '1';
        return 0;
    }
    return -1;
}

/* A variable whose value is one of a few words. */
typedef struct {
    const char *word;
    int value;
} cfg_choice;

static int parse_choice(const char *text, const cfg_choice *choices, size_t n,
                        int *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(text, choices[i].word) == 0) {
            *out = choices[i].value;
            return 0;
        }
    return -1;
}

#define PARSE_CHOICE(text, choices, out)                                       \
    parse_choice(text, choices, sizeof choices / sizeof choices[0], out)

static const cfg_choice yield_choices[] = {
    {"auto", CFG_YIELD_AUTO}, {"on", CFG_YIELD_ON}, {"off", CFG_YIELD_OFF}};
static const cfg_choice progress_choices[] = {
    {"calls", CFG_PROGRESS_CALLS}, {"thread", CFG_PROGRESS_THREAD}};
static const cfg_choice neighbor_choices[] = {
    {"auto", CFG_NEIGHBOR_AUTO},       {"plain", CFG_NEIGHBOR_PLAIN},
    {"combine", CFG_NEIGHBOR_COMBINE}, {"grid", CFG_NEIGHBOR_GRID}};
static const cfg_choice collectives_choices[] = {
    {"omnibus", CFG_COLLECTIVES_OMNIBUS}, {"mpich", CFG_COLLECTIVES_MPICH}};
static const cfg_choice shm_choices[] = {
    {"auto", CFG_SHM_AUTO}, {"on", CFG_SHM_ON}, {"off", CFG_SHM_OFF}};

static int parse_theta(const char *text, int *out)
{
    const char *p = text;
    unsigned long long v;

    if (parse_digits(&p, CFG_MAX_NEIGHBOR_THETA, &v) != 0 || *p != '\0' ||
        v < 1)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_flow_ranks(const char *text, int *out)
{
    const char *p = text;
    unsigned long long v;

    if (parse_digits(&p, CFG_MAX_FLOW_RANKS, &v) != 0 || *p != '\0' || v < 1)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_idle_rounds(const char *text, long *out)
{
    const char *p = text;
    unsigned long long v;

    if (parse_digits(&p, (unsigned long long)CFG_MAX_IDLE_ROUNDS, &v) != 0 ||
        *p != '\0' || v < 1)
        return -1;
    *out = (long)v;
    return 0;
}

static int parse_flush_us(const char *text, long *out)
{
    const char *p = text;
    unsigned long long v;

    if (parse_digits(&p, (unsigned long long)FLUSH_US_MAX, &v) != 0 ||
        *p != '\0')
        return -1;
    *out = (long)v;
    return 0;
}

/* A path is taken as given, except that surrounding whitespace is refused:
 * it is almost always a quoting mistake, and would silently create a file
 * whose name ends in a space. */
static int check_path(const char *text)
{
    size_t len = strlen(text);
    const char *ws = " \t\n\r\v\f";

    if (len == 0 || strchr(ws, text[0]) != NULL ||
        strchr(ws, text[len - 1]) != NULL)
        return -1;
    return 0;
}

static const char *get(cfg_lookup_fn lookup, void *ctx, const char *name)
{
    return lookup != NULL ? lookup(name, ctx) : NULL;
}

int cfg_load(cfg_settings *out, cfg_lookup_fn lookup, void *ctx, char *err,
             size_t errlen)
{
    cfg_settings s;
    const char *v, *name;
    int choice;
    char lo[32], hi[32];

    memset(&s, 0, sizeof s);
    s.topo_kind = CFG_TOPO_AUTO;
    s.buffer_size = CFG_DEFAULT_BUFFER_SIZE;
    s.threshold = CFG_DEFAULT_THRESHOLD;
    s.flush_us = CFG_DEFAULT_FLUSH_US;
    s.idle_rounds = CFG_DEFAULT_IDLE_ROUNDS;
    s.eager_pool = CFG_DEFAULT_EAGER_POOL;
    s.yield = CFG_YIELD_AUTO;
    s.progress = CFG_PROGRESS_CALLS;
    s.neighbor = CFG_NEIGHBOR_AUTO;
    s.neighbor_theta = CFG_DEFAULT_NEIGHBOR_THETA;
    s.collectives = CFG_COLLECTIVES_OMNIBUS;

    name = "OMNIBUS_TOPOLOGY";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_topology(v, &s) != 0)
            return refuse(err, errlen, name, v,
                          "expected auto, direct, nodes, Nd (1d to %dd) or "
                          "sizes "
                          "such as 4x2 or 2x2x2",
                          CFG_MAX_DIMS);
        s.topology_text = v;
    }

    name = "OMNIBUS_BUFFER_SIZE";
    if ((v = get(lookup, ctx, name)) != NULL) {
        s.buffer_size_given = 1;
        if (parse_size(v, 0, &s.buffer_size) != 0 ||
            s.buffer_size < CFG_MIN_BUFFER_SIZE ||
            s.buffer_size > CFG_MAX_BUFFER_SIZE) {
            show_size(CFG_MIN_BUFFER_SIZE, lo, sizeof lo);
            show_size(CFG_MAX_BUFFER_SIZE, hi, sizeof hi);
            return refuse(err, errlen, name, v,
                          "expected a positive byte count such as 65536, "
                          "64K or 1M (%s to %s)",
                          lo, hi);
        }
    }

    name = "OMNIBUS_THRESHOLD";
    if ((v = get(lookup, ctx, name)) != NULL) {
        s.threshold_given = 1;
        if (parse_size(v, 1, &s.threshold) != 0)
            return refuse(err, errlen, name, v,
                          "expected a byte count such as 1024, 4K or 1M, "
                          "or 0 to aggregate nothing");
    }

    name = "OMNIBUS_EAGER_POOL";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_size(v, 0, &s.eager_pool) != 0 ||
            s.eager_pool < CFG_MIN_EAGER_POOL ||
            s.eager_pool > CFG_MAX_EAGER_POOL) {
            show_size(CFG_MIN_EAGER_POOL, lo, sizeof lo);
            show_size(CFG_MAX_EAGER_POOL, hi, sizeof hi);
            return refuse(err, errlen, name, v,
                          "expected a byte count such as 64M or 65536K "
                          "(%s to %s)",
                          lo, hi);
        }
    }

    name = "OMNIBUS_FLUSH_US";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_flush_us(v, &s.flush_us) != 0)
            return refuse(err, errlen, name, v,
                          "expected a whole number of microseconds from 0 "
                          "to %ld, such as 500",
                          FLUSH_US_MAX);
    }

    name = "OMNIBUS_IDLE_ROUNDS";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_idle_rounds(v, &s.idle_rounds) != 0)
            return refuse(err, errlen, name, v,
                          "expected a whole number of progress rounds from 1 "
                          "to %ld, such as 16",
                          CFG_MAX_IDLE_ROUNDS);
    }

    name = "OMNIBUS_DISABLE";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_flag(v, &s.disable) != 0)
            return refuse(err, errlen, name, v, "expected 0 or 1");
    }

    name = "OMNIBUS_STATS";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_flag(v, &s.stats) != 0)
            return refuse(err, errlen, name, v, "expected 0 or 1");
    }

    name = "OMNIBUS_STATS_FILE";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (check_path(v) != 0)
            return refuse(err, errlen, name, v,
                          "expected a file path, not empty and without "
                          "leading or trailing spaces");
        s.stats_file = v;
    }

    name = "OMNIBUS_YIELD";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (PARSE_CHOICE(v, yield_choices, &choice) != 0)
            return refuse(err, errlen, name, v, "expected auto, on or off");
        s.yield = (cfg_yield)choice;
    }

    name = "OMNIBUS_PROGRESS";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (PARSE_CHOICE(v, progress_choices, &choice) != 0)
            return refuse(err, errlen, name, v, "expected calls or thread");
        s.progress = (cfg_progress)choice;
    }

    name = "OMNIBUS_NEIGHBOR";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (PARSE_CHOICE(v, neighbor_choices, &choice) != 0)
            return refuse(err, errlen, name, v,
                          "expected auto, plain, combine or grid");
        s.neighbor = (cfg_neighbor)choice;
    }

    name = "OMNIBUS_NEIGHBOR_THETA";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_theta(v, &s.neighbor_theta) != 0)
            return refuse(err, errlen, name, v,
                          "expected a whole number of common neighbours "
                          "from 1 to %d, such as 4",
                          CFG_MAX_NEIGHBOR_THETA);
    }

    name = "OMNIBUS_COLLECTIVES";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (PARSE_CHOICE(v, collectives_choices, &choice) != 0)
            return refuse(err, errlen, name, v, "expected omnibus or mpich");
        s.collectives = (cfg_collectives)choice;
    }

    name = "OMNIBUS_SHM";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (PARSE_CHOICE(v, shm_choices, &choice) != 0)
            return refuse(err, errlen, name, v, "expected auto, on or off");
        s.shm = (cfg_shm)choice;
    }

    name = "OMNIBUS_FLOW_RANKS";
    if ((v = get(lookup, ctx, name)) != NULL) {
        if (parse_flow_ranks(v, &s.flow_ranks) != 0)
            return refuse(err, errlen, name, v,
                          "expected a rank count from the number of ranks "
                          "to %d (tests only)", CFG_MAX_FLOW_RANKS);
    }

    *out = s;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    return 0;
}

/* Writes the explicit sizes as "AxBxC", for settings built without text. */
static void show_dims(const cfg_settings *s, char *buf, size_t cap)
{
    size_t n = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; i < s->ndims && n < cap; i++) {
        int w = snprintf(buf + n, cap - n, i ? "x%d" : "%d", s->dims[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

void cfg_use_network_defaults(cfg_settings *s)
{
    if (!s->buffer_size_given)
        s->buffer_size = CFG_NETWORK_BUFFER_SIZE;
    if (!s->threshold_given)
        s->threshold = CFG_NETWORK_THRESHOLD;
}

int cfg_shm_wanted(const cfg_settings *s, const char *ucx_tls)
{
    switch (s->shm) {
    case CFG_SHM_ON:
        return 1;
    case CFG_SHM_OFF:
        return 0;
    default:
        return !cfg_ucx_tls_is_network(ucx_tls);
    }
}

cfg_neighbor cfg_neighbor_mode(const cfg_settings *s, int one_hop, int crowded)
{
    if (s->neighbor != CFG_NEIGHBOR_AUTO)
        return s->neighbor;
    return one_hop && !crowded ? CFG_NEIGHBOR_COMBINE : CFG_NEIGHBOR_PLAIN;
}

/* Whether the comma-separated list `list` names `word` (case-insensitive). */
static int tls_list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncasecmp(p, word, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int cfg_ucx_tls_is_network(const char *ucx_tls)
{
    static const char *const shared[] = {"sm", "shm", "posix", "sysv", "cma",
                                         "knem", "xpmem", "all"};
    size_t i;
    if (ucx_tls == NULL || ucx_tls[0] == '\0')
        return 0;
    if (ucx_tls[0] == '^')
        return tls_list_has(ucx_tls + 1, "sm") ||
               tls_list_has(ucx_tls + 1, "shm");
    for (i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (tls_list_has(ucx_tls, shared[i]))
            return 0;
    return 1;
}

int cfg_check_job(const cfg_settings *s, int nranks, char *err, size_t errlen)
{
    if (s->flow_ranks && s->flow_ranks < nranks) {
        char shown[16];
        snprintf(shown, sizeof shown, "%d", s->flow_ranks);
        return refuse(err, errlen, "OMNIBUS_FLOW_RANKS", shown,
                      "expected a rank count from the number of ranks (%d) "
                      "to %d (tests only)", nranks, CFG_MAX_FLOW_RANKS);
    }
    const char *name = "OMNIBUS_TOPOLOGY";
    char built[CFG_MAX_DIMS * 12 + 1];
    const char *text;
    unsigned long long product = 1;
    int i;

    if (s->topo_kind != CFG_TOPO_EXPLICIT)
        return 0;
    text = s->topology_text;
    if (text == NULL) {
        show_dims(s, built, sizeof built);
        text = built;
    }
    if (s->ndims < 1 || s->ndims > CFG_MAX_DIMS)
        return refuse(err, errlen, name, text,
                      "expected 1 to %d sizes, got %d", CFG_MAX_DIMS,
                      s->ndims);
    for (i = 0; i < s->ndims; i++)
        if (s->dims[i] < 1)
            return refuse(err, errlen, name, text,
                          "every size must be at least 1");
    if (nranks < 1)
        return refuse(err, errlen, name, text,
                      "the number of ranks (%d) must be at least 1", nranks);
    /* Every size is at least 1, so the running product only grows: stopping
     * once it reaches nranks keeps it below nranks * INT_MAX, which cannot
     * overflow. */
    for (i = 0; i < s->ndims && product < (unsigned long long)nranks; i++)
        product *= (unsigned long long)s->dims[i];
    if (product >= (unsigned long long)nranks)
        return 0;

    if (err != NULL && errlen > 0) {
        char shown[SHOWN_VALUE_MAX + 16];
        show_value(text, shown, sizeof shown);
        snprintf(err, errlen,
                 "%s=%s is not valid for %d ranks: the product of the sizes "
                 "(%llu) must be at least the number of ranks",
                 name, shown, nranks, product);
    }
    return -1;
}

static int fold(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* Edit distance, ignoring ASCII case, between a[0..alen) and the short
 * string b (shorter than KNOWN_NAME_CAP). */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
    size_t row[KNOWN_NAME_CAP];
    size_t blen = strlen(b), i, j;

    for (j = 0; j <= blen; j++)
        row[j] = j;
    for (i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t best = diag + (fold(a[i - 1]) != fold(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[blen];
}

const char *cfg_unknown_variable(char **environ_like, char *suggestion,
                                 size_t len)
{
    static const char prefix[] = "OMNIBUS_";
    size_t k;

    if (suggestion != NULL && len > 0)
        suggestion[0] = '\0';
    if (environ_like == NULL)
        return NULL;
    for (; *environ_like != NULL; environ_like++) {
        const char *entry = *environ_like;
        const char *eq = strchr(entry, '=');
        size_t nlen = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
        size_t best = SIZE_MAX, best_k = 0;
        int known = 0;

        if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
            continue;
        for (k = 0; k < N_KNOWN; k++)
            if (strlen(known_names[k]) == nlen &&
                strncmp(entry, known_names[k], nlen) == 0)
                known = 1;
        if (known)
            continue;
        for (k = 0; k < N_KNOWN; k++) {
            size_t d = edit_distance(entry, nlen, known_names[k]);
            if (d < best) {
                best = d;
                best_k = k;
            }
        }
        if (suggestion != NULL && len > 0)
            snprintf(suggestion, len, "%s", known_names[best_k]);
        return entry;
    }
    return NULL;
}
