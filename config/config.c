/* config.c: parsing and checking of the OMNIBUS_* variables (see config.h).
 *
 * Parsing is strict on purpose: a value is accepted only in exactly the forms
 * documented, with no surrounding spaces, signs, fractions or extra letters,
 * because a lenient parser would silently run the job with settings the user
 * did not ask for.
 */
#include "config.h"

#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The longest rendering of a user's value inside a message, so that the
 * "what is accepted" part still fits in CFG_ERR_LEN. */
#define SHOWN_VALUE_MAX 160

#if defined(__GNUC__)
#define CFG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CFG_PRINTF(f, a)
#endif

#define CFG_SCOPE_JOB 1
#define CFG_SCOPE_RANK 0
const cfg_var cfg_vars[CFG_NVARS] = {
#define CFG_VAR(n, kind, field, scope, def, lo, hi, net, arg, doc)             \
    [CFG_VAR_##n] = {"OMNIBUS_" #n,                                            \
                     CFG_KIND_##kind,                                          \
                     offsetof(cfg_settings, field),                            \
                     sizeof(((cfg_settings *)0)->field),                       \
                     CFG_SCOPE_##scope,                                        \
                     (unsigned long long)(def),                                \
                     (unsigned long long)(lo),                                 \
                     (unsigned long long)(hi),                                 \
                     (unsigned long long)(net),                                \
                     arg,                                                      \
                     doc},
#define CFG_NAME(n, doc)                                                       \
    [CFG_VAR_##n] = {"OMNIBUS_" #n, CFG_KIND_NAME, 0, 0, 0, 0, 0, 0, 0, "", doc},
#include "config/settings.def"
#undef CFG_VAR
#undef CFG_NAME
};

_Static_assert(CFG_NVARS <= 32, "cfg_settings.given has a bit per variable");

/* Longer than any variable's name. */
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

/* Where a variable's value lives in cfg_settings: a member of 4 bytes (int,
 * enum) or 8 (long, size_t, or a pointer for PATH). */
static void *field_of(cfg_settings *s, const cfg_var *var)
{
    return (char *)s + var->offset;
}

static void store(cfg_settings *s, const cfg_var *var, unsigned long long v)
{
    if (var->width == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(field_of(s, var), &x, sizeof x);
    } else {
        uint64_t x = v;
        memcpy(field_of(s, var), &x, sizeof x);
    }
}

static unsigned long long fetch(const cfg_settings *s, const cfg_var *var)
{
    const char *field = (const char *)s + var->offset;
    if (var->width == sizeof(uint32_t)) {
        uint32_t x;
        memcpy(&x, field, sizeof x);
        return x;
    }
    uint64_t x;
    memcpy(&x, field, sizeof x);
    return x;
}

/* The position of `text` among the space-separated words of `words`, or
 * -1; with `text` NULL, the number of words. */
static int word_index(const char *words, const char *text)
{
    int i = 0;
    for (const char *w = words; *w != '\0'; i++) {
        size_t n = strcspn(w, " ");
        if (text != NULL && strlen(text) == n && strncmp(w, text, n) == 0)
            return i;
        w += n;
        w += *w == ' ';
    }
    return text == NULL ? i : -1;
}

/* Copies the word at position i of `words` into buf. */
static void word_at(const char *words, int i, char *buf, size_t cap)
{
    const char *w = words;
    for (; i > 0 && *w != '\0'; i--) {
        w += strcspn(w, " ");
        w += *w == ' ';
    }
    snprintf(buf, cap, "%.*s", (int)strcspn(w, " "), w);
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

/* Parses one variable's value into s by its kind and range; -1 when the
 * value is not one the table accepts. */
static int parse_value(const cfg_var *var, const char *text, cfg_settings *s)
{
    const char *p = text;
    unsigned long long n;
    size_t z;
    int i;

    switch (var->kind) {
    case CFG_KIND_SIZE:
        if (parse_size(text, var->min == 0, &z) != 0 || z < var->min ||
            z > var->max)
            return -1;
        store(s, var, z);
        return 0;
    case CFG_KIND_COUNT:
        if (parse_digits(&p, var->max, &n) != 0 || *p != '\0' || n < var->min)
            return -1;
        store(s, var, n);
        return 0;
    case CFG_KIND_WORDS:
        if ((i = word_index(var->arg, text)) < 0)
            return -1;
        store(s, var, (unsigned long long)i);
        return 0;
    case CFG_KIND_FLAG:
        if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
            return -1;
        store(s, var, text[0] == '1');
        return 0;
    case CFG_KIND_PATH:
        if (check_path(text) != 0)
            return -1;
        memcpy(field_of(s, var), &text, sizeof text);
        return 0;
    case CFG_KIND_TOPOLOGY:
        if (parse_topology(text, s) != 0)
            return -1;
        s->topology_text = text;
        return 0;
    case CFG_KIND_NAME:
        return 0;
    }
    return -1;
}

/* Refuses NAME=text with what the variable's kind and range accept. */
static int refuse_var(char *err, size_t errlen, const cfg_var *var,
                      const char *text)
{
    char lo[32], hi[32], words[160];
    size_t n = 0;
    int i, nwords;

    switch (var->kind) {
    case CFG_KIND_SIZE:
        if (var->max == SIZE_MAX)
            return refuse(err, errlen, var->name, text, "expected %s",
                          var->arg);
        show_size((size_t)var->min, lo, sizeof lo);
        show_size((size_t)var->max, hi, sizeof hi);
        return refuse(err, errlen, var->name, text, "expected %s (%s to %s)",
                      var->arg, lo, hi);
    case CFG_KIND_COUNT:
        if (var->max == CFG_RANKS)
            return refuse(err, errlen, var->name, text,
                          "expected a whole number of %s from %llu to the "
                          "number of ranks",
                          var->arg, var->min);
        snprintf(lo, sizeof lo, ", such as %llu", var->def);
        return refuse(err, errlen, var->name, text,
                      "expected a whole number of %s from %llu to %llu%s",
                      var->arg, var->min, var->max,
                      var->def >= var->min ? lo : "");
    case CFG_KIND_WORDS:
        nwords = word_index(var->arg, NULL);
        words[0] = '\0';
        for (i = 0; i < nwords && n < sizeof words; i++) {
            char w[32];
            word_at(var->arg, i, w, sizeof w);
            n += (size_t)snprintf(words + n, sizeof words - n, "%s%s",
                                  i == 0              ? ""
                                  : i == nwords - 1 ? " or "
                                                      : ", ",
                                  w);
        }
        return refuse(err, errlen, var->name, text, "expected %s", words);
    case CFG_KIND_FLAG:
        return refuse(err, errlen, var->name, text, "expected 0 or 1");
    case CFG_KIND_PATH:
        return refuse(err, errlen, var->name, text,
                      "expected a file path, not empty and without leading "
                      "or trailing spaces");
    case CFG_KIND_TOPOLOGY:
    case CFG_KIND_NAME:
        break;
    }
    return refuse(err, errlen, var->name, text,
                  "expected auto, direct, nodes, Nd (1d to %dd) or sizes "
                  "such as 4x2 or 2x2x2",
                  CFG_MAX_DIMS);
}

static const char *get(cfg_lookup_fn lookup, void *ctx, const char *name)
{
    return lookup != NULL ? lookup(name, ctx) : NULL;
}

int cfg_load(cfg_settings *out, cfg_lookup_fn lookup, void *ctx, char *err,
             size_t errlen)
{
    cfg_settings s;
    const char *v;
    int i;

    /* Zero is every enum's first word (its default) and every flag's. */
    memset(&s, 0, sizeof s);
    for (i = 0; i < CFG_NVARS; i++) {
        const cfg_var *var = &cfg_vars[i];
        if ((var->kind == CFG_KIND_SIZE || var->kind == CFG_KIND_COUNT) &&
            var->def >= var->min)
            store(&s, var, var->def);
    }
    for (i = 0; i < CFG_NVARS; i++) {
        const cfg_var *var = &cfg_vars[i];
        if (var->kind == CFG_KIND_NAME ||
            (v = get(lookup, ctx, var->name)) == NULL)
            continue;
        s.given |= 1UL << i;
        if (parse_value(var, v, &s) != 0)
            return refuse_var(err, errlen, var, v);
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
    for (int i = 0; i < CFG_NVARS; i++)
        if (cfg_vars[i].network != 0 && !(s->given & (1UL << i)))
            store(s, &cfg_vars[i], cfg_vars[i].network);
}

/* Room for one value of a record, rendered, quotes included. */
#define SHOWN_SLOTS_MAX (CFG_MAX_DIMS * 12 + 16)

/* The value CFG_KIND_SIZE variables with a network default carry in a
 * record when unset. */
#define RECORD_UNSET (-1LL)

static int slots_of(const cfg_var *var)
{
    if (!var->job_wide || var->kind == CFG_KIND_NAME)
        return 0;
    return var->kind == CFG_KIND_TOPOLOGY ? 2 + CFG_MAX_DIMS : 1;
}

void cfg_record(const cfg_settings *s, long long *rec)
{
    size_t k = 0;
    for (int i = 0; i < CFG_NVARS; i++) {
        const cfg_var *var = &cfg_vars[i];
        const char *path;
        int explicit = s->topo_kind == CFG_TOPO_EXPLICIT;

        if (slots_of(var) == 0)
            continue;
        switch (var->kind) {
        case CFG_KIND_TOPOLOGY:
            rec[k++] = (long long)s->topo_kind;
            rec[k++] = explicit || s->topo_kind == CFG_TOPO_BALANCED
                           ? s->ndims
                           : 0;
            for (int d = 0; d < CFG_MAX_DIMS; d++)
                rec[k++] = explicit && d < s->ndims ? s->dims[d] : 0;
            break;
        case CFG_KIND_PATH:
            /* Only rank 0 writes the file; whether it is set decides
             * whether every rank takes part in gathering the numbers. */
            memcpy(&path, (const char *)s + var->offset, sizeof path);
            rec[k++] = path != NULL;
            break;
        default:
            rec[k++] = var->network != 0 && !(s->given & (1UL << i))
                           ? RECORD_UNSET
                           : (long long)fetch(s, var);
        }
    }
}

/* Renders one variable's value from its slots in a record: quoted as the
 * user would write it, or set / unset. */
static void show_slots(const cfg_var *var, const long long *v,
                       char buf[SHOWN_SLOTS_MAX])
{
    const size_t cap = SHOWN_SLOTS_MAX;
    char text[SHOWN_SLOTS_MAX - 2];
    cfg_settings t;

    switch (var->kind) {
    case CFG_KIND_TOPOLOGY:
        switch ((cfg_topo_kind)v[0]) {
        case CFG_TOPO_AUTO: snprintf(text, sizeof text, "auto"); break;
        case CFG_TOPO_DIRECT: snprintf(text, sizeof text, "direct"); break;
        case CFG_TOPO_NODES: snprintf(text, sizeof text, "nodes"); break;
        case CFG_TOPO_BALANCED:
            snprintf(text, sizeof text, "%lldd", v[1]);
            break;
        case CFG_TOPO_EXPLICIT:
            t.ndims = (int)v[1];
            for (int d = 0; d < CFG_MAX_DIMS; d++)
                t.dims[d] = (int)v[2 + d];
            show_dims(&t, text, sizeof text);
            break;
        }
        break;
    case CFG_KIND_PATH:
        snprintf(buf, cap, "%s", v[0] ? "set" : "unset");
        return;
    case CFG_KIND_SIZE:
        if (v[0] == RECORD_UNSET) {
            snprintf(buf, cap, "unset");
            return;
        }
        show_size((size_t)v[0], text, sizeof text);
        break;
    case CFG_KIND_COUNT:
        if ((unsigned long long)v[0] < var->min) {
            snprintf(buf, cap, "unset");
            return;
        }
        snprintf(text, sizeof text, "%lld", v[0]);
        break;
    case CFG_KIND_WORDS:
        word_at(var->arg, (int)v[0], text, sizeof text);
        break;
    default:
        snprintf(text, sizeof text, "%lld", v[0]);
    }
    snprintf(buf, cap, "\"%s\"", text);
}

int cfg_record_diff(const long long *a, int rank_a, const long long *b,
                    int rank_b, char *line, size_t len)
{
    size_t k = 0;
    for (int i = 0; i < CFG_NVARS; i++) {
        const cfg_var *var = &cfg_vars[i];
        size_t n = (size_t)slots_of(var);
        char va[SHOWN_SLOTS_MAX], vb[SHOWN_SLOTS_MAX];

        if (memcmp(a + k, b + k, n * sizeof *a) == 0) {
            k += n;
            continue;
        }
        if (line != NULL && len > 0) {
            show_slots(var, a + k, va);
            show_slots(var, b + k, vb);
            snprintf(line, len, "%s is %s on rank %d and %s on rank %d",
                     var->name, va, rank_a, vb, rank_b);
        }
        return i;
    }
    return -1;
}

int cfg_shm_wanted(const cfg_settings *s, int under_on_network)
{
    switch (s->shm) {
    case CFG_SHM_ON:
        return 1;
    case CFG_SHM_OFF:
        return 0;
    default:
        return !under_on_network;
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

int cfg_btl_is_network(const char *btl)
{
    if (btl == NULL || btl[0] == '\0')
        return 0;
    if (btl[0] == '^')
        return tls_list_has(btl + 1, "vader") || tls_list_has(btl + 1, "sm");
    return !tls_list_has(btl, "vader") && !tls_list_has(btl, "sm");
}

int cfg_check_job(const cfg_settings *s, int nranks, char *err, size_t errlen)
{
    const char *name = "OMNIBUS_TOPOLOGY";
    char built[CFG_MAX_DIMS * 12 + 1];
    const char *text;
    unsigned long long product = 1;
    int i;

    for (i = 0; i < CFG_NVARS; i++) {
        const cfg_var *var = &cfg_vars[i];
        unsigned long long v;
        if (var->kind != CFG_KIND_COUNT || var->max != CFG_RANKS ||
            !(s->given & (1UL << i)) || (v = fetch(s, var)) <= (unsigned)nranks)
            continue;
        if (err != NULL && errlen > 0)
            snprintf(err, errlen,
                     "%s=%llu is not valid for %d ranks: expected a whole "
                     "number of %s from %llu to the number of ranks",
                     var->name, v, nranks, var->arg, var->min);
        return -1;
    }
    if (s->flow_ranks && s->flow_ranks < nranks) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen,
                     "OMNIBUS_FLOW_RANKS=%d is not valid for %d ranks: "
                     "expected a whole number of ranks from the number of "
                     "ranks to %d",
                     s->flow_ranks, nranks, CFG_MAX_FLOW_RANKS);
        return -1;
    }
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
        for (k = 0; k < CFG_NVARS; k++)
            if (strlen(cfg_vars[k].name) == nlen &&
                strncmp(entry, cfg_vars[k].name, nlen) == 0)
                known = 1;
        if (known)
            continue;
        for (k = 0; k < CFG_NVARS; k++) {
            size_t d = edit_distance(entry, nlen, cfg_vars[k].name);
            if (d < best) {
                best = d;
                best_k = k;
            }
        }
        if (suggestion != NULL && len > 0)
            snprintf(suggestion, len, "%s", cfg_vars[best_k].name);
        return entry;
    }
    return NULL;
}
