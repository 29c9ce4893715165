/* test_config.c: the OMNIBUS_* parsing contract of config/config.h, without
 * MPI and without the real environment (every test feeds cfg_load a small
 * table of name/value pairs through a fake lookup). */
#include "config/config.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    const char *name;
    const char *value;
} pair;

typedef struct {
    const pair *pairs;
    size_t n;
} table;

static const char *fake_lookup(const char *name, void *ctx)
{
    const table *t = ctx;
    size_t i;
    for (i = 0; i < t->n; i++)
        if (strcmp(t->pairs[i].name, name) == 0)
            return t->pairs[i].value;
    return NULL;
}

static int load_table(const pair *pairs, size_t n, cfg_settings *s,
                      char *err)
{
    table t = {pairs, n};
    return cfg_load(s, fake_lookup, &t, err, CFG_ERR_LEN);
}

/* Loads with exactly one variable set. */
static int load_one(const char *name, const char *value, cfg_settings *s,
                    char *err)
{
    pair p = {name, value};
    return load_table(&p, 1, s, err);
}

/* Checks that NAME=value is accepted. */
static void expect_accepted(const char *name, const char *value,
                            cfg_settings *s)
{
    char err[CFG_ERR_LEN] = "";
    int rc = load_one(name, value, s, err);
    CHECK(rc == 0, "%s=\"%s\" must be accepted, but cfg_load returned %d (%s)",
          name, value, rc, err);
}

/* Checks that NAME=value is refused with one line naming the variable and
 * containing the value. */
static void expect_refused(const char *name, const char *value)
{
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    int rc = load_one(name, value, &s, err);
    CHECK(rc == -1, "%s=\"%s\" must be refused, but cfg_load returned %d",
          name, value, rc);
    CHECK(strstr(err, name) != NULL,
          "the refusal of %s=\"%s\" must name the variable, but err is \"%s\"",
          name, value, err);
    CHECK(strstr(err, value) != NULL,
          "the refusal of %s=\"%s\" must quote the value, but err is \"%s\"",
          name, value, err);
    CHECK(strstr(err, "expected") != NULL,
          "the refusal of %s=\"%s\" must say what is accepted, but err is "
          "\"%s\"",
          name, value, err);
    CHECK(strchr(err, '\n') == NULL,
          "the refusal of %s=\"%s\" must be one line, but err is \"%s\"", name,
          value, err);
}

/* ---- defaults ---------------------------------------------------------- */

static void test_defaults_when_nothing_is_set(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "junk";
    int rc = load_table(NULL, 0, &s, err);
    CHECK(rc == 0, "an empty environment must load, but cfg_load returned %d",
          rc);
    CHECK(s.topo_kind == CFG_TOPO_AUTO,
          "the default topology must be auto, got kind %d", (int)s.topo_kind);
    CHECK(s.topology_text == NULL,
          "topology_text must be NULL when unset, got \"%s\"",
          s.topology_text ? s.topology_text : "");
    CHECK(s.buffer_size == CFG_DEFAULT_BUFFER_SIZE,
          "the default buffer size must be %zu, got %zu",
          CFG_DEFAULT_BUFFER_SIZE, s.buffer_size);
    CHECK(s.threshold == CFG_DEFAULT_THRESHOLD,
          "the default threshold must be %zu, got %zu", CFG_DEFAULT_THRESHOLD,
          s.threshold);
    CHECK(s.flush_us == CFG_DEFAULT_FLUSH_US,
          "the default flush delay must be %ld us, got %ld",
          CFG_DEFAULT_FLUSH_US, s.flush_us);
    CHECK(s.disable == 0, "DISABLE must default to 0, got %d", s.disable);
    CHECK(s.stats == 0, "STATS must default to 0, got %d", s.stats);
    CHECK(s.stats_file == NULL, "STATS_FILE must default to NULL, got \"%s\"",
          s.stats_file ? s.stats_file : "");
    CHECK(s.yield == CFG_YIELD_AUTO, "YIELD must default to auto, got %d",
          (int)s.yield);
    CHECK(err[0] == '\0', "err must be cleared on success, but is \"%s\"",
          err);
}

static void test_several_nodes_take_network_defaults_when_unset(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    load_table(NULL, 0, &s, err);
    cfg_use_network_defaults(&s);
    CHECK(s.buffer_size == CFG_NETWORK_BUFFER_SIZE &&
              s.threshold == CFG_NETWORK_THRESHOLD,
          "a job on several nodes with nothing set must take the network "
          "defaults %zu/%zu, got %zu/%zu",
          CFG_NETWORK_BUFFER_SIZE, CFG_NETWORK_THRESHOLD, s.buffer_size,
          s.threshold);
}

static void test_several_nodes_keep_what_the_user_set(void)
{
    static const pair env[] = {{"OMNIBUS_BUFFER_SIZE", "2K"},
                               {"OMNIBUS_THRESHOLD", "0"}};
    cfg_settings s;
    char err[CFG_ERR_LEN];
    load_table(env, 2, &s, err);
    cfg_use_network_defaults(&s);
    CHECK(s.buffer_size == 2048 && s.threshold == 0,
          "values the user set must survive the network defaults, got "
          "buffer %zu and threshold %zu", s.buffer_size, s.threshold);
}

/* Checks a reader of an MPI transport variable (`var`): each value of
 * `network` (n_net of them) leaves MPI no shared memory, each of `local`
 * keeps it, and an unset variable means MPI's own choice. */
static void check_network_reader(int (*is_network)(const char *),
                                 const char *var,
                                 const char *const *network, size_t n_net,
                                 const char *const *local, size_t n_local)
{
    for (size_t i = 0; i < n_net; i++)
        CHECK(is_network(network[i]) == 1,
              "%s=%s leaves MPI no shared-memory transport: network "
              "defaults expected", var, network[i]);
    for (size_t i = 0; i < n_local; i++)
        CHECK(is_network(local[i]) == 0,
              "%s=%s keeps shared memory (or is empty): one-node defaults "
              "expected", var, local[i]);
    CHECK(is_network(NULL) == 0,
          "an unset %s must mean MPI's own choice (shared memory)", var);
}

static void test_ucx_tls_without_shared_memory_is_network(void)
{
    static const char *const network[] = {"tcp,self", "tcp", "self,tcp",
                                          "rc,ud,self", "^sm", "^shm,cma"};
    static const char *const local[] = {"sm,self", "tcp,sm,self", "shm",
                                        "posix,tcp", "all", "SM,self",
                                        "^tcp", "", "cma,tcp"};
    check_network_reader(cfg_ucx_tls_is_network, "UCX_TLS", network,
                         sizeof network / sizeof *network, local,
                         sizeof local / sizeof *local);
}

static void test_btl_without_shared_memory_is_network(void)
{
    static const char *const network[] = {"self,tcp", "tcp", "^vader",
                                          "^sm,openib"};
    static const char *const local[] = {"self,vader", "vader,tcp,self",
                                        "sm,self", "^tcp", ""};
    check_network_reader(cfg_btl_is_network, "OMPI_MCA_btl", network,
                         sizeof network / sizeof *network, local,
                         sizeof local / sizeof *local);
}

static void test_null_lookup_means_nothing_set(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    int rc = cfg_load(&s, NULL, NULL, err, sizeof err);
    CHECK(rc == 0 && s.buffer_size == CFG_DEFAULT_BUFFER_SIZE,
          "a NULL lookup must give the defaults, got rc %d, buffer %zu", rc,
          s.buffer_size);
}

static void test_all_variables_together(void)
{
    static const pair env[] = {
        {"OMNIBUS_TOPOLOGY", "4x2"},    {"OMNIBUS_BUFFER_SIZE", "32K"},
        {"OMNIBUS_THRESHOLD", "512"},   {"OMNIBUS_FLUSH_US", "100"},
        {"OMNIBUS_DISABLE", "1"},       {"OMNIBUS_STATS", "1"},
        {"OMNIBUS_STATS_FILE", "s.json"}, {"OMNIBUS_YIELD", "off"},
    };
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    int rc = load_table(env, sizeof env / sizeof env[0], &s, err);
    CHECK(rc == 0, "a fully valid environment must load, got %d (%s)", rc,
          err);
    CHECK(s.topo_kind == CFG_TOPO_EXPLICIT && s.ndims == 2 &&
              s.dims[0] == 4 && s.dims[1] == 2,
          "TOPOLOGY=4x2 must give explicit 4x2, got kind %d ndims %d",
          (int)s.topo_kind, s.ndims);
    CHECK(s.buffer_size == 32768, "BUFFER_SIZE=32K must be 32768, got %zu",
          s.buffer_size);
    CHECK(s.threshold == 512, "THRESHOLD=512 must be 512, got %zu",
          s.threshold);
    CHECK(s.flush_us == 100, "FLUSH_US=100 must be 100, got %ld", s.flush_us);
    CHECK(s.disable == 1 && s.stats == 1,
          "DISABLE=1 and STATS=1 must be set, got %d and %d", s.disable,
          s.stats);
    CHECK(s.stats_file && strcmp(s.stats_file, "s.json") == 0,
          "STATS_FILE must be s.json, got \"%s\"",
          s.stats_file ? s.stats_file : "(null)");
    CHECK(s.yield == CFG_YIELD_OFF, "YIELD=off must give off, got %d",
          (int)s.yield);
}

static void test_refusal_leaves_output_untouched(void)
{
    cfg_settings s;
    memset(&s, 0x5a, sizeof s);
    char err[CFG_ERR_LEN];
    int rc = load_one("OMNIBUS_YIELD", "never", &s, err);
    unsigned char first = ((unsigned char *)&s)[0];
    CHECK(rc == -1 && first == 0x5a,
          "a refused load must not write the settings, got rc %d, byte 0x%x",
          rc, first);
}

/* ---- OMNIBUS_EAGER_POOL ------------------------------------------------ */

static void test_eager_pool_is_unset_unless_given(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    load_table(NULL, 0, &s, err);
    CHECK(s.eager_pool == 0,
          "an unset OMNIBUS_EAGER_POOL must read as 0, for MPI_Init to "
          "derive from OMNIBUS_MEMORY; got %zu", s.eager_pool);
}

static void test_eager_pool_accepts_sizes_in_range(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_EAGER_POOL", "16M", &s);
    CHECK(s.eager_pool == ((size_t)16 << 20),
          "EAGER_POOL=16M must be 16777216, got %zu", s.eager_pool);
    expect_accepted("OMNIBUS_EAGER_POOL", "64K", &s);
    CHECK(s.eager_pool == 65536, "EAGER_POOL=64K (the least) must be 65536, "
                                 "got %zu", s.eager_pool);
    expect_accepted("OMNIBUS_EAGER_POOL", "1024M", &s);
    CHECK(s.eager_pool == ((size_t)1 << 30),
          "EAGER_POOL=1024M (the most) must be 1 GiB, got %zu", s.eager_pool);
}

static void test_eager_pool_refuses_bad_values(void)
{
    expect_refused("OMNIBUS_EAGER_POOL", "63K");
    expect_refused("OMNIBUS_EAGER_POOL", "1025M");
    expect_refused("OMNIBUS_EAGER_POOL", "0");
    expect_refused("OMNIBUS_EAGER_POOL", "lots");
    expect_refused("OMNIBUS_EAGER_POOL", "-1M");
}

/* ---- OMNIBUS_MEMORY ---------------------------------------------------- */

static void test_memory_defaults_to_256m(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    load_table(NULL, 0, &s, err);
    CHECK(s.memory == ((size_t)256 << 20),
          "OMNIBUS_MEMORY must default to 256M, got %zu", s.memory);
}

static void test_memory_accepts_sizes_in_range(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_MEMORY", "1M", &s);
    CHECK(s.memory == ((size_t)1 << 20),
          "MEMORY=1M (the least) must be 1048576, got %zu", s.memory);
    expect_accepted("OMNIBUS_MEMORY", "1048576M", &s);
    CHECK(s.memory == ((size_t)1 << 40),
          "MEMORY=1048576M (the most) must be 1 TiB, got %zu", s.memory);
}

static void test_memory_refuses_bad_values(void)
{
    expect_refused("OMNIBUS_MEMORY", "1023K");
    expect_refused("OMNIBUS_MEMORY", "1048577M");
    expect_refused("OMNIBUS_MEMORY", "0");
    expect_refused("OMNIBUS_MEMORY", "much");
}

/* ---- OMNIBUS_BUFFER_SIZE ----------------------------------------------- */

static void test_buffer_size_accepts_plain_bytes(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_BUFFER_SIZE", "65536", &s);
    CHECK(s.buffer_size == 65536, "BUFFER_SIZE=65536 must be 65536, got %zu",
          s.buffer_size);
}

static void test_buffer_size_accepts_k_suffix_either_case(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_BUFFER_SIZE", "64K", &s);
    CHECK(s.buffer_size == 65536, "BUFFER_SIZE=64K must be 65536, got %zu",
          s.buffer_size);
    expect_accepted("OMNIBUS_BUFFER_SIZE", "8k", &s);
    CHECK(s.buffer_size == 8192, "BUFFER_SIZE=8k must be 8192, got %zu",
          s.buffer_size);
}

static void test_buffer_size_accepts_m_suffix_either_case(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_BUFFER_SIZE", "1M", &s);
    CHECK(s.buffer_size == 1048576, "BUFFER_SIZE=1M must be 1048576, got %zu",
          s.buffer_size);
    expect_accepted("OMNIBUS_BUFFER_SIZE", "2m", &s);
    CHECK(s.buffer_size == 2097152, "BUFFER_SIZE=2m must be 2097152, got %zu",
          s.buffer_size);
}

static void test_buffer_size_accepts_both_bounds(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_BUFFER_SIZE", "64", &s);
    CHECK(s.buffer_size == CFG_MIN_BUFFER_SIZE,
          "BUFFER_SIZE=64 must be the minimum, got %zu", s.buffer_size);
    expect_accepted("OMNIBUS_BUFFER_SIZE", "64M", &s);
    CHECK(s.buffer_size == CFG_MAX_BUFFER_SIZE,
          "BUFFER_SIZE=64M must be the maximum, got %zu", s.buffer_size);
}

static void test_buffer_size_rejects_trailing_garbage(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "12Q");
    expect_refused("OMNIBUS_BUFFER_SIZE", "12KB");
}

static void test_buffer_size_rejects_zero(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "0");
    expect_refused("OMNIBUS_BUFFER_SIZE", "0K");
}

static void test_buffer_size_rejects_negative(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "-5");
}

static void test_buffer_size_rejects_plus_sign(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "+5");
}

static void test_buffer_size_rejects_letters(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "abc");
    expect_refused("OMNIBUS_BUFFER_SIZE", "K");
}

static void test_buffer_size_rejects_empty(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "");
}

static void test_buffer_size_rejects_overflow(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "99999999999999999999");
    expect_refused("OMNIBUS_BUFFER_SIZE", "17592186044416M");
}

static void test_buffer_size_rejects_fraction(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "1.5K");
}

static void test_buffer_size_rejects_surrounding_spaces(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "64K ");
    expect_refused("OMNIBUS_BUFFER_SIZE", " 64K");
    expect_refused("OMNIBUS_BUFFER_SIZE", "64 K");
}

static void test_buffer_size_rejects_out_of_range(void)
{
    expect_refused("OMNIBUS_BUFFER_SIZE", "63");
    expect_refused("OMNIBUS_BUFFER_SIZE", "65M");
    expect_refused("OMNIBUS_BUFFER_SIZE", "67108865");
}

static void test_buffer_size_message_is_the_documented_line(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    const char *want = "OMNIBUS_BUFFER_SIZE=12Q is not valid: expected a "
                       "positive byte count such as 65536, 64K or 1M "
                       "(64 to 64M)";
    load_one("OMNIBUS_BUFFER_SIZE", "12Q", &s, err);
    CHECK(strcmp(err, want) == 0,
          "BUFFER_SIZE=12Q must give\n      \"%s\"\n    but gave\n      "
          "\"%s\"",
          want, err);
}

/* ---- OMNIBUS_THRESHOLD ------------------------------------------------- */

static void test_threshold_accepts_zero(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_THRESHOLD", "0", &s);
    CHECK(s.threshold == 0, "THRESHOLD=0 must mean 0 bytes, got %zu",
          s.threshold);
}

static void test_threshold_accepts_plain_and_suffixed(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_THRESHOLD", "2048", &s);
    CHECK(s.threshold == 2048, "THRESHOLD=2048 must be 2048, got %zu",
          s.threshold);
    expect_accepted("OMNIBUS_THRESHOLD", "4k", &s);
    CHECK(s.threshold == 4096, "THRESHOLD=4k must be 4096, got %zu",
          s.threshold);
    expect_accepted("OMNIBUS_THRESHOLD", "1M", &s);
    CHECK(s.threshold == 1048576, "THRESHOLD=1M must be 1048576, got %zu",
          s.threshold);
}

static void test_threshold_rejects_trailing_garbage(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "12Q");
    expect_refused("OMNIBUS_THRESHOLD", "12KB");
}

static void test_threshold_rejects_negative(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "-5");
}

static void test_threshold_rejects_plus_sign(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "+5");
}

static void test_threshold_rejects_letters(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "abc");
}

static void test_threshold_rejects_empty(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "");
}

static void test_threshold_rejects_overflow(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "99999999999999999999");
    if (SIZE_MAX == UINT64_MAX) {
        /* 2^44 M = 2^64 and 2^54 K = 2^64: one past what size_t holds. */
        expect_refused("OMNIBUS_THRESHOLD", "17592186044416M");
        expect_refused("OMNIBUS_THRESHOLD", "18014398509481984K");
    }
}

static void test_threshold_accepts_largest_representable_suffixed(void)
{
    cfg_settings s;
    if (SIZE_MAX == UINT64_MAX) {
        expect_accepted("OMNIBUS_THRESHOLD", "17592186044415M", &s);
        CHECK(s.threshold == (size_t)17592186044415ULL << 20,
              "THRESHOLD=17592186044415M must not be taken as overflow, "
              "got %zu",
              s.threshold);
    } else {
        CHECK(1, "only meaningful with a 64-bit size_t");
    }
}

static void test_threshold_rejects_fraction(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "1.5K");
}

static void test_threshold_rejects_surrounding_spaces(void)
{
    expect_refused("OMNIBUS_THRESHOLD", "1024 ");
    expect_refused("OMNIBUS_THRESHOLD", " 1024");
}

/* ---- OMNIBUS_IDLE_ROUNDS ----------------------------------------------- */

static void test_idle_rounds_default_is_sixteen(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    CHECK(cfg_load(&s, NULL, NULL, err, sizeof err) == 0 &&
              s.idle_rounds == CFG_DEFAULT_IDLE_ROUNDS &&
              CFG_DEFAULT_IDLE_ROUNDS == 16,
          "with OMNIBUS_IDLE_ROUNDS unset a buffer may stay unwritten 16 "
          "rounds, got %ld", s.idle_rounds);
}

static void test_idle_rounds_accepts_one_to_the_maximum(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_IDLE_ROUNDS", "1", &s);
    CHECK(s.idle_rounds == 1, "IDLE_ROUNDS=1 (the old rule) must be kept, "
          "got %ld", s.idle_rounds);
    expect_accepted("OMNIBUS_IDLE_ROUNDS", "1000000", &s);
    CHECK(s.idle_rounds == 1000000L, "IDLE_ROUNDS=1000000 must be kept, got "
          "%ld", s.idle_rounds);
}

static void test_idle_rounds_rejects_zero_and_junk(void)
{
    expect_refused("OMNIBUS_IDLE_ROUNDS", "0");
    expect_refused("OMNIBUS_IDLE_ROUNDS", "1000001");
    expect_refused("OMNIBUS_IDLE_ROUNDS", "-3");
    expect_refused("OMNIBUS_IDLE_ROUNDS", "16x");
    expect_refused("OMNIBUS_IDLE_ROUNDS", "");
    expect_refused("OMNIBUS_IDLE_ROUNDS", " 16");
}

/* ---- OMNIBUS_FLUSH_US -------------------------------------------------- */

static void test_flush_accepts_zero_and_the_maximum(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_FLUSH_US", "0", &s);
    CHECK(s.flush_us == 0, "FLUSH_US=0 must be 0, got %ld", s.flush_us);
    expect_accepted("OMNIBUS_FLUSH_US", "10000000", &s);
    CHECK(s.flush_us == 10000000L, "FLUSH_US=10000000 must be kept, got %ld",
          s.flush_us);
    expect_accepted("OMNIBUS_FLUSH_US", "250", &s);
    CHECK(s.flush_us == 250, "FLUSH_US=250 must be 250, got %ld", s.flush_us);
}

static void test_flush_rejects_above_maximum(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "10000001");
}

static void test_flush_rejects_suffix(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "12Q");
    expect_refused("OMNIBUS_FLUSH_US", "5K");
    expect_refused("OMNIBUS_FLUSH_US", "500us");
}

static void test_flush_rejects_negative(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "-5");
}

static void test_flush_rejects_plus_sign(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "+5");
}

static void test_flush_rejects_letters(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "abc");
}

static void test_flush_rejects_empty(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "");
}

static void test_flush_rejects_overflow(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "99999999999999999999");
}

static void test_flush_rejects_fraction(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "1.5");
}

static void test_flush_rejects_surrounding_spaces(void)
{
    expect_refused("OMNIBUS_FLUSH_US", "500 ");
    expect_refused("OMNIBUS_FLUSH_US", " 500");
}

/* ---- OMNIBUS_TOPOLOGY -------------------------------------------------- */

static void test_topology_accepts_auto(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "auto", &s);
    CHECK(s.topo_kind == CFG_TOPO_AUTO, "TOPOLOGY=auto must give auto, got %d",
          (int)s.topo_kind);
    CHECK(s.topology_text && strcmp(s.topology_text, "auto") == 0,
          "topology_text must keep the text \"auto\", got \"%s\"",
          s.topology_text ? s.topology_text : "(null)");
}

static void test_topology_accepts_direct(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "direct", &s);
    CHECK(s.topo_kind == CFG_TOPO_DIRECT,
          "TOPOLOGY=direct must give direct, got %d", (int)s.topo_kind);
}

static void test_topology_accepts_nodes(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "nodes", &s);
    CHECK(s.topo_kind == CFG_TOPO_NODES,
          "TOPOLOGY=nodes must give the node grid, got %d", (int)s.topo_kind);
}

static void test_topology_accepts_balanced_dimensions(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "2d", &s);
    CHECK(s.topo_kind == CFG_TOPO_BALANCED && s.ndims == 2,
          "TOPOLOGY=2d must give 2 balanced dims, got kind %d ndims %d",
          (int)s.topo_kind, s.ndims);
    expect_accepted("OMNIBUS_TOPOLOGY", "3D", &s);
    CHECK(s.topo_kind == CFG_TOPO_BALANCED && s.ndims == 3,
          "TOPOLOGY=3D must give 3 balanced dims, got kind %d ndims %d",
          (int)s.topo_kind, s.ndims);
    expect_accepted("OMNIBUS_TOPOLOGY", "1d", &s);
    CHECK(s.ndims == 1, "TOPOLOGY=1d must give 1 dim, got %d", s.ndims);
    expect_accepted("OMNIBUS_TOPOLOGY", "8d", &s);
    CHECK(s.ndims == 8, "TOPOLOGY=8d must give 8 dims, got %d", s.ndims);
}

static void test_topology_accepts_explicit_sizes(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "4x2", &s);
    CHECK(s.topo_kind == CFG_TOPO_EXPLICIT && s.ndims == 2 &&
              s.dims[0] == 4 && s.dims[1] == 2,
          "TOPOLOGY=4x2 must give explicit [4,2], got kind %d ndims %d",
          (int)s.topo_kind, s.ndims);
    expect_accepted("OMNIBUS_TOPOLOGY", "2X2x2", &s);
    CHECK(s.topo_kind == CFG_TOPO_EXPLICIT && s.ndims == 3 &&
              s.dims[0] == 2 && s.dims[1] == 2 && s.dims[2] == 2,
          "TOPOLOGY=2X2x2 must give explicit [2,2,2], got kind %d ndims %d",
          (int)s.topo_kind, s.ndims);
    expect_accepted("OMNIBUS_TOPOLOGY", "1x1x1x1x1x1x1x1", &s);
    CHECK(s.ndims == 8, "TOPOLOGY with 8 sizes must give 8 dims, got %d",
          s.ndims);
}

static void test_topology_accepts_single_size(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_TOPOLOGY", "16", &s);
    CHECK(s.topo_kind == CFG_TOPO_EXPLICIT && s.ndims == 1 && s.dims[0] == 16,
          "TOPOLOGY=16 must give one explicit dimension of 16, got kind %d "
          "ndims %d",
          (int)s.topo_kind, s.ndims);
}

static void test_topology_rejects_zero_size(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "0x4");
    expect_refused("OMNIBUS_TOPOLOGY", "4x0");
}

static void test_topology_rejects_too_many_balanced_dimensions(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "9d");
    expect_refused("OMNIBUS_TOPOLOGY", "0d");
    expect_refused("OMNIBUS_TOPOLOGY", "99999999999999999999d");
}

static void test_topology_rejects_nine_explicit_sizes(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "1x1x1x1x1x1x1x1x1");
}

static void test_topology_rejects_missing_sizes(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "x4");
    expect_refused("OMNIBUS_TOPOLOGY", "4x");
    expect_refused("OMNIBUS_TOPOLOGY", "4xx2");
    expect_refused("OMNIBUS_TOPOLOGY", "d");
}

static void test_topology_rejects_unknown_words(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "4y");
    expect_refused("OMNIBUS_TOPOLOGY", "Auto");
    expect_refused("OMNIBUS_TOPOLOGY", "2dd");
    expect_refused("OMNIBUS_TOPOLOGY", "-2x4");
    expect_refused("OMNIBUS_TOPOLOGY", "4*2");
}

static void test_topology_rejects_size_overflowing_int(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "2147483648x2");
}

static void test_topology_rejects_empty(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "");
}

static void test_topology_rejects_surrounding_spaces(void)
{
    expect_refused("OMNIBUS_TOPOLOGY", "4x2 ");
    expect_refused("OMNIBUS_TOPOLOGY", " auto");
    expect_refused("OMNIBUS_TOPOLOGY", "4 x 2");
}

static void test_topology_message_is_the_documented_line(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN];
    const char *want = "OMNIBUS_TOPOLOGY=4y is not valid: expected auto, "
                       "direct, nodes, Nd (1d to 8d) or sizes such as 4x2 "
                       "or 2x2x2";
    load_one("OMNIBUS_TOPOLOGY", "4y", &s, err);
    CHECK(strcmp(err, want) == 0,
          "TOPOLOGY=4y must give\n      \"%s\"\n    but gave\n      \"%s\"",
          want, err);
}

/* ---- cfg_check_job ------------------------------------------------------ */

static void test_check_job_accepts_incomplete_grid(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    expect_accepted("OMNIBUS_TOPOLOGY", "3x3", &s);
    int rc = cfg_check_job(&s, 7, err, sizeof err);
    CHECK(rc == 0, "TOPOLOGY=3x3 must be accepted for 7 ranks, got %d (%s)",
          rc, err);
}

static void test_check_job_accepts_exact_grid(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    expect_accepted("OMNIBUS_TOPOLOGY", "4x2", &s);
    int rc = cfg_check_job(&s, 8, err, sizeof err);
    CHECK(rc == 0, "TOPOLOGY=4x2 must be accepted for 8 ranks, got %d (%s)",
          rc, err);
}

static void test_check_job_refuses_too_small_grid(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    const char *want = "OMNIBUS_TOPOLOGY=2x2 is not valid for 7 ranks: the "
                       "product of the sizes (4) must be at least the number "
                       "of ranks";
    expect_accepted("OMNIBUS_TOPOLOGY", "2x2", &s);
    int rc = cfg_check_job(&s, 7, err, sizeof err);
    CHECK(rc == -1, "TOPOLOGY=2x2 must be refused for 7 ranks, got %d", rc);
    CHECK(strcmp(err, want) == 0,
          "TOPOLOGY=2x2 with 7 ranks must give\n      \"%s\"\n    but gave\n"
          "      \"%s\"",
          want, err);
}

static void test_check_job_handles_huge_products_without_overflow(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    expect_accepted("OMNIBUS_TOPOLOGY",
                    "2147483647x2147483647x2147483647x2147483647x"
                    "2147483647x2147483647x2147483647x2147483647",
                    &s);
    int rc = cfg_check_job(&s, 2147483647, err, sizeof err);
    CHECK(rc == 0,
          "eight sizes of INT_MAX must cover INT_MAX ranks, got %d (%s)", rc,
          err);
}

static void test_check_job_quotes_sizes_when_text_is_missing(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    memset(&s, 0, sizeof s);
    s.topo_kind = CFG_TOPO_EXPLICIT;
    s.ndims = 2;
    s.dims[0] = 3;
    s.dims[1] = 2;
    int rc = cfg_check_job(&s, 7, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "OMNIBUS_TOPOLOGY=3x2 ") != NULL,
          "settings built by hand must be refused quoting 3x2, got %d (%s)",
          rc, err);
}

static void test_check_job_accepts_any_balanced_and_auto(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    int rc;
    expect_accepted("OMNIBUS_TOPOLOGY", "8d", &s);
    rc = cfg_check_job(&s, 1, err, sizeof err);
    CHECK(rc == 0, "TOPOLOGY=8d must be accepted for 1 rank, got %d (%s)",
          rc, err);
    expect_accepted("OMNIBUS_TOPOLOGY", "3d", &s);
    rc = cfg_check_job(&s, 7, err, sizeof err);
    CHECK(rc == 0, "TOPOLOGY=3d must be accepted for 7 ranks, got %d (%s)",
          rc, err);
    expect_accepted("OMNIBUS_TOPOLOGY", "direct", &s);
    rc = cfg_check_job(&s, 1000, err, sizeof err);
    CHECK(rc == 0, "TOPOLOGY=direct must be accepted for 1000 ranks, got %d",
          rc);
}

/* ---- OMNIBUS_DISABLE, OMNIBUS_STATS, OMNIBUS_YIELD ---------------------- */

static void test_disable_accepts_zero_and_one(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_DISABLE", "1", &s);
    CHECK(s.disable == 1, "DISABLE=1 must set disable, got %d", s.disable);
    expect_accepted("OMNIBUS_DISABLE", "0", &s);
    CHECK(s.disable == 0, "DISABLE=0 must clear disable, got %d", s.disable);
}

static void test_disable_rejects_other_values(void)
{
    expect_refused("OMNIBUS_DISABLE", "");
    expect_refused("OMNIBUS_DISABLE", "2");
    expect_refused("OMNIBUS_DISABLE", "yes");
    expect_refused("OMNIBUS_DISABLE", "true");
    expect_refused("OMNIBUS_DISABLE", "01");
    expect_refused("OMNIBUS_DISABLE", "1 ");
}

static void test_stats_accepts_zero_and_one(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_STATS", "1", &s);
    CHECK(s.stats == 1, "STATS=1 must set stats, got %d", s.stats);
    expect_accepted("OMNIBUS_STATS", "0", &s);
    CHECK(s.stats == 0, "STATS=0 must clear stats, got %d", s.stats);
}

static void test_stats_rejects_other_values(void)
{
    expect_refused("OMNIBUS_STATS", "");
    expect_refused("OMNIBUS_STATS", "on");
    expect_refused("OMNIBUS_STATS", "-1");
    expect_refused("OMNIBUS_STATS", " 1");
}

static void test_stats_file_accepts_a_path(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_STATS_FILE", "/tmp/run 1/stats.json", &s);
    CHECK(s.stats_file && strcmp(s.stats_file, "/tmp/run 1/stats.json") == 0,
          "STATS_FILE must keep the path as given, got \"%s\"",
          s.stats_file ? s.stats_file : "(null)");
}

static void test_stats_file_rejects_empty(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    int rc = load_one("OMNIBUS_STATS_FILE", "", &s, err);
    CHECK(rc == -1, "OMNIBUS_STATS_FILE= must be refused, got %d", rc);
    CHECK(strstr(err, "OMNIBUS_STATS_FILE=\"\" is not valid") != NULL,
          "an empty value must be shown as \"\", but err is \"%s\"", err);
}

static void test_stats_file_rejects_surrounding_spaces(void)
{
    expect_refused("OMNIBUS_STATS_FILE", "stats.json ");
    expect_refused("OMNIBUS_STATS_FILE", " stats.json");
}

static void test_yield_accepts_auto_on_off(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_YIELD", "auto", &s);
    CHECK(s.yield == CFG_YIELD_AUTO, "YIELD=auto must give auto, got %d",
          (int)s.yield);
    expect_accepted("OMNIBUS_YIELD", "on", &s);
    CHECK(s.yield == CFG_YIELD_ON, "YIELD=on must give on, got %d",
          (int)s.yield);
    expect_accepted("OMNIBUS_YIELD", "off", &s);
    CHECK(s.yield == CFG_YIELD_OFF, "YIELD=off must give off, got %d",
          (int)s.yield);
}

static void test_yield_rejects_other_values(void)
{
    expect_refused("OMNIBUS_YIELD", "");
    expect_refused("OMNIBUS_YIELD", "1");
    expect_refused("OMNIBUS_YIELD", "ON");
    expect_refused("OMNIBUS_YIELD", "sometimes");
    expect_refused("OMNIBUS_YIELD", "on ");
}

static void test_progress_defaults_to_calls_and_accepts_thread(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0, "no variables set must load, got: %s", err);
    CHECK(s.progress == CFG_PROGRESS_CALLS,
          "unset OMNIBUS_PROGRESS must mean progress in calls, got %d",
          (int)s.progress);
    expect_accepted("OMNIBUS_PROGRESS", "thread", &s);
    CHECK(s.progress == CFG_PROGRESS_THREAD,
          "PROGRESS=thread must give the thread, got %d", (int)s.progress);
    expect_accepted("OMNIBUS_PROGRESS", "calls", &s);
    CHECK(s.progress == CFG_PROGRESS_CALLS,
          "PROGRESS=calls must give calls, got %d", (int)s.progress);
}

static void test_progress_rejects_other_values(void)
{
    expect_refused("OMNIBUS_PROGRESS", "");
    expect_refused("OMNIBUS_PROGRESS", "threads");
    expect_refused("OMNIBUS_PROGRESS", "1");
    expect_refused("OMNIBUS_PROGRESS", "THREAD");
}

/* ---- OMNIBUS_COLLECTIVES -------------------------------------------------- */

static void test_collectives_default_to_omnibus(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0 &&
              s.collectives == CFG_COLLECTIVES_OMNIBUS,
          "unset OMNIBUS_COLLECTIVES must let Omnibus run the small "
          "collectives (%d), got %d", CFG_COLLECTIVES_OMNIBUS, s.collectives);
    expect_accepted("OMNIBUS_COLLECTIVES", "mpi", &s);
    CHECK(s.collectives == CFG_COLLECTIVES_MPI,
          "OMNIBUS_COLLECTIVES=mpi must give %d, got %d",
          CFG_COLLECTIVES_MPI, s.collectives);
    expect_accepted("OMNIBUS_COLLECTIVES", "omnibus", &s);
    CHECK(s.collectives == CFG_COLLECTIVES_OMNIBUS,
          "OMNIBUS_COLLECTIVES=omnibus must give %d, got %d",
          CFG_COLLECTIVES_OMNIBUS, s.collectives);
}

static void test_collectives_rejects_other_values(void)
{
    expect_refused("OMNIBUS_COLLECTIVES", "");
    expect_refused("OMNIBUS_COLLECTIVES", "MPI");
    expect_refused("OMNIBUS_COLLECTIVES", "mpich");
    expect_refused("OMNIBUS_COLLECTIVES", "auto");
    expect_refused("OMNIBUS_COLLECTIVES", "off");
}

/* ---- OMNIBUS_NEIGHBOR, OMNIBUS_NEIGHBOR_THETA ---------------------------- */

static void test_neighbor_defaults_to_auto(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0 && s.neighbor == CFG_NEIGHBOR_AUTO &&
              s.neighbor_theta == CFG_DEFAULT_NEIGHBOR_THETA,
          "unset OMNIBUS_NEIGHBOR must be auto with theta %d; got mode %d, "
          "theta %d", CFG_DEFAULT_NEIGHBOR_THETA, s.neighbor, s.neighbor_theta);
}

static void test_neighbor_auto_combines_one_hop_with_a_core_per_rank(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    load_table(NULL, 0, &s, err);
    CHECK(cfg_neighbor_mode(&s, 1, 0) == CFG_NEIGHBOR_COMBINE,
          "auto under a one-hop topology with a core per rank must combine "
          "(measured 0.14x to 0.75x of MPICH's time), got %d",
          cfg_neighbor_mode(&s, 1, 0));
    cfg_use_network_defaults(&s);
    CHECK(cfg_neighbor_mode(&s, 1, 0) == CFG_NEIGHBOR_COMBINE,
          "auto over a network must combine as well (two emulated nodes: "
          "0.27x to 0.30x of MPICH's time), got %d", cfg_neighbor_mode(&s, 1, 0));
}

static void test_neighbor_auto_is_plain_when_crowded_or_multi_hop(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    load_table(NULL, 0, &s, err);
    CHECK(cfg_neighbor_mode(&s, 1, 1) == CFG_NEIGHBOR_PLAIN,
          "auto where a node runs more ranks than cores must be plain (each "
          "dependent step waits for the scheduler), got %d",
          cfg_neighbor_mode(&s, 1, 1));
    CHECK(cfg_neighbor_mode(&s, 0, 0) == CFG_NEIGHBOR_PLAIN,
          "auto under a multi-hop grid must be plain (a relay may be outside "
          "MPI), got %d", cfg_neighbor_mode(&s, 0, 0));
}

static void test_neighbor_mode_set_by_user_stands(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_NEIGHBOR", "grid", &s);
    cfg_use_network_defaults(&s);
    CHECK(cfg_neighbor_mode(&s, 0, 1) == CFG_NEIGHBOR_GRID,
          "a mode the user set must stand on a crowded multi-hop network job, "
          "got %d", cfg_neighbor_mode(&s, 0, 1));
    expect_accepted("OMNIBUS_NEIGHBOR", "plain", &s);
    CHECK(cfg_neighbor_mode(&s, 1, 0) == CFG_NEIGHBOR_PLAIN,
          "OMNIBUS_NEIGHBOR=plain must stay plain where auto would combine, "
          "got %d", cfg_neighbor_mode(&s, 1, 0));
}

static void test_neighbor_accepts_each_mode(void)
{
    static const struct { const char *v; cfg_neighbor m; } ok[] = {
        {"auto", CFG_NEIGHBOR_AUTO}, {"plain", CFG_NEIGHBOR_PLAIN},
        {"combine", CFG_NEIGHBOR_COMBINE}, {"grid", CFG_NEIGHBOR_GRID}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cfg_settings s;
        expect_accepted("OMNIBUS_NEIGHBOR", ok[i].v, &s);
        CHECK(s.neighbor == ok[i].m, "OMNIBUS_NEIGHBOR=%s must give mode %d, "
              "got %d", ok[i].v, ok[i].m, s.neighbor);
    }
    cfg_settings s;
    expect_accepted("OMNIBUS_NEIGHBOR_THETA", "1", &s);
    CHECK(s.neighbor_theta == 1, "THETA=1 must give 1, got %d",
          s.neighbor_theta);
    expect_accepted("OMNIBUS_NEIGHBOR_THETA", "65536", &s);
    CHECK(s.neighbor_theta == 65536, "THETA=65536 must give 65536, got %d",
          s.neighbor_theta);
}

static void test_neighbor_rejects_other_values(void)
{
    expect_refused("OMNIBUS_NEIGHBOR", "");
    expect_refused("OMNIBUS_NEIGHBOR", "combining");
    expect_refused("OMNIBUS_NEIGHBOR", "GRID");
    expect_refused("OMNIBUS_NEIGHBOR", "plain ");
    expect_refused("OMNIBUS_NEIGHBOR_THETA", "0");
    expect_refused("OMNIBUS_NEIGHBOR_THETA", "-4");
    expect_refused("OMNIBUS_NEIGHBOR_THETA", "65537");
    expect_refused("OMNIBUS_NEIGHBOR_THETA", "4.5");
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    load_one("OMNIBUS_NEIGHBOR", "mesh", &s, err);
    CHECK(strcmp(err, "OMNIBUS_NEIGHBOR=mesh is not valid: expected auto, "
                      "plain, combine or grid") == 0,
          "the refusal must name the variable, the value and the modes; "
          "got \"%s\"", err);
}

/* ---- OMNIBUS_SHM ---------------------------------------------------------- */

static void test_shm_auto_follows_ucx_tls(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0 && s.shm == CFG_SHM_AUTO,
          "unset OMNIBUS_SHM must be auto, got %d", s.shm);
    CHECK(cfg_shm_wanted(&s, cfg_ucx_tls_is_network(NULL)) && cfg_shm_wanted(&s, cfg_ucx_tls_is_network("sm,self")),
          "auto must use node rings when MPI itself may use shared memory");
    CHECK(!cfg_shm_wanted(&s, cfg_ucx_tls_is_network("tcp,self")),
          "auto must not use node rings under UCX_TLS=tcp,self: the user "
          "asked ranks of one node to talk as over a network");
}

static void test_shm_on_and_off_override_ucx_tls(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_SHM", "on", &s);
    CHECK(s.shm == CFG_SHM_ON && cfg_shm_wanted(&s, cfg_ucx_tls_is_network("tcp,self")),
          "OMNIBUS_SHM=on must use node rings even under UCX_TLS=tcp,self");
    expect_accepted("OMNIBUS_SHM", "off", &s);
    CHECK(s.shm == CFG_SHM_OFF && !cfg_shm_wanted(&s, cfg_ucx_tls_is_network(NULL)),
          "OMNIBUS_SHM=off must send every block through MPICH");
    expect_accepted("OMNIBUS_SHM", "auto", &s);
    CHECK(s.shm == CFG_SHM_AUTO, "OMNIBUS_SHM=auto must give auto, got %d",
          s.shm);
}

static void test_shm_rejects_other_values(void)
{
    expect_refused("OMNIBUS_SHM", "");
    expect_refused("OMNIBUS_SHM", "1");
    expect_refused("OMNIBUS_SHM", "ON");
    expect_refused("OMNIBUS_SHM", "shm");
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    load_one("OMNIBUS_SHM", "yes", &s, err);
    CHECK(strcmp(err, "OMNIBUS_SHM=yes is not valid: expected auto, on or "
                      "off") == 0,
          "the refusal must name the variable, the value and the choices; "
          "got \"%s\"", err);
}

/* ---- OMNIBUS_PATHS, OMNIBUS_RING_MPI_FROM --------------------------------- */

static void test_paths_default_to_measured_and_the_crossover_unpinned(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0 &&
              s.paths == CFG_PATHS_MEASURED && s.ring_mpi_from == 0,
          "unset OMNIBUS_PATHS must be measured (%d) and unset "
          "OMNIBUS_RING_MPI_FROM 0 (unpinned); got %d and %zu",
          CFG_PATHS_MEASURED, s.paths, s.ring_mpi_from);
    expect_accepted("OMNIBUS_PATHS", "default", &s);
    CHECK(s.paths == CFG_PATHS_DEFAULT,
          "OMNIBUS_PATHS=default must give %d, got %d", CFG_PATHS_DEFAULT,
          s.paths);
}

static void test_paths_rejects_other_values(void)
{
    expect_refused("OMNIBUS_PATHS", "");
    expect_refused("OMNIBUS_PATHS", "auto");
    expect_refused("OMNIBUS_PATHS", "MEASURED");
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    load_one("OMNIBUS_PATHS", "yes", &s, err);
    CHECK(strcmp(err, "OMNIBUS_PATHS=yes is not valid: expected measured or "
                      "default") == 0,
          "the refusal must name the variable, the value and the choices; "
          "got \"%s\"", err);
}

static void test_ring_mpi_from_takes_sizes_from_one_byte(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_RING_MPI_FROM", "16K", &s);
    CHECK(s.ring_mpi_from == 16384,
          "OMNIBUS_RING_MPI_FROM=16K must give 16384, got %zu",
          s.ring_mpi_from);
    expect_accepted("OMNIBUS_RING_MPI_FROM", "1", &s);
    CHECK(s.ring_mpi_from == 1,
          "OMNIBUS_RING_MPI_FROM=1 (the MPI underneath for every large "
          "message) must give 1, got %zu", s.ring_mpi_from);
    expect_accepted("OMNIBUS_RING_MPI_FROM", "1M", &s);
    CHECK(s.ring_mpi_from == 1048576,
          "OMNIBUS_RING_MPI_FROM=1M must give 1048576, got %zu",
          s.ring_mpi_from);
}

/* The settings that pin one of the path sizes (calib.h), each a byte
 * count held in the cfg_settings field at `off`: 0 when unset (measured,
 * or built-in), `text` giving `want`, 0 and `word` refused. */
static const struct {
    const char *name;
    size_t off;
    const char *text;
    size_t want;
    const char *word;
} pinned_sizes[] = {
    {"OMNIBUS_WAIT_FROM", offsetof(cfg_settings, wait_from), "16K", 16384,
     "eager"},
    {"OMNIBUS_READ_FROM", offsetof(cfg_settings, read_from), "64K", 65536,
     "read"},
    /* 1M: no read below a ring record. */
    {"OMNIBUS_READ_FROM", offsetof(cfg_settings, read_from), "1M", 1048576,
     "read"},
    {"OMNIBUS_WIRE_ALONE_MAX", offsetof(cfg_settings, wire_alone_max), "32K",
     32768, "block"},
    /* 1: no message alone in a block. */
    {"OMNIBUS_WIRE_ALONE_MAX", offsetof(cfg_settings, wire_alone_max), "1", 1,
     "block"},
    /* 1: every large message keeps its header. */
    {"OMNIBUS_ENVELOPE_MAX", offsetof(cfg_settings, envelope_max), "1", 1,
     "header"},
    {"OMNIBUS_ENVELOPE_MAX", offsetof(cfg_settings, envelope_max), "4M",
     4194304, "header"},
};

static void test_path_size_pins_take_sizes_and_reject_zero_and_words(void)
{
    for (size_t i = 0; i < sizeof pinned_sizes / sizeof pinned_sizes[0];
         i++) {
        const char *name = pinned_sizes[i].name;
        size_t off = pinned_sizes[i].off;
        cfg_settings s;
        char err[CFG_ERR_LEN] = "";
        size_t got = SIZE_MAX;
        if (load_table(NULL, 0, &s, err) == 0)
            memcpy(&got, (const char *)&s + off, sizeof got);
        CHECK(got == 0, "unset %s must be 0 (measured, or the built-in "
                        "size); got %zu", name, got);
        expect_accepted(name, pinned_sizes[i].text, &s);
        memcpy(&got, (const char *)&s + off, sizeof got);
        CHECK(got == pinned_sizes[i].want, "%s=%s must give %zu, got %zu",
              name, pinned_sizes[i].text, pinned_sizes[i].want, got);
        expect_refused(name, "0");
        expect_refused(name, pinned_sizes[i].word);
    }
}

static void test_envelopes_default_on_and_take_off(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    CHECK(load_table(NULL, 0, &s, err) == 0 &&
              s.envelopes == CFG_ENVELOPES_ON,
          "unset OMNIBUS_ENVELOPES must be on (%d), got %d",
          CFG_ENVELOPES_ON, s.envelopes);
    expect_accepted("OMNIBUS_ENVELOPES", "off", &s);
    CHECK(s.envelopes == CFG_ENVELOPES_OFF,
          "OMNIBUS_ENVELOPES=off must give %d, got %d", CFG_ENVELOPES_OFF,
          s.envelopes);
    expect_refused("OMNIBUS_ENVELOPES", "yes");
    expect_refused("OMNIBUS_ENVELOPES", "");
}

static void test_ring_mpi_from_rejects_zero_and_words(void)
{
    expect_refused("OMNIBUS_RING_MPI_FROM", "0");
    expect_refused("OMNIBUS_RING_MPI_FROM", "ring");
    expect_refused("OMNIBUS_RING_MPI_FROM", "-16K");
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    load_one("OMNIBUS_RING_MPI_FROM", "0", &s, err);
    CHECK(strcmp(err, "OMNIBUS_RING_MPI_FROM=0 is not valid: expected a "
                      "positive byte count such as 16K or 1M") == 0,
          "the refusal must name the variable, the value and what is "
          "accepted; got \"%s\"", err);
}

/* ---- message rendering -------------------------------------------------- */

static void test_message_shows_trailing_space_in_quotes(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    load_one("OMNIBUS_BUFFER_SIZE", "64K ", &s, err);
    CHECK(strstr(err, "OMNIBUS_BUFFER_SIZE=\"64K \" is not valid") != NULL,
          "a value with a trailing space must be shown quoted, but err is "
          "\"%s\"",
          err);
}

static void test_message_escapes_newline_to_stay_one_line(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    int rc = load_one("OMNIBUS_YIELD", "on\noff", &s, err);
    CHECK(rc == -1 && strchr(err, '\n') == NULL &&
              strstr(err, "\"on\\noff\"") != NULL,
          "a value with a newline must be refused on one line with \\n, got "
          "%d (%s)",
          rc, err);
}

static void test_message_cuts_very_long_values_but_keeps_the_advice(void)
{
    char value[2000];
    char err[CFG_ERR_LEN] = "";
    cfg_settings s;
    memset(value, '7', sizeof value - 2);
    value[sizeof value - 2] = 'Q';
    value[sizeof value - 1] = '\0';
    int rc = load_one("OMNIBUS_THRESHOLD", value, &s, err);
    CHECK(rc == -1 && strstr(err, "...") != NULL &&
              strstr(err, "expected") != NULL,
          "a 2000-byte value must be cut with ... and keep the advice, got "
          "%d (%s)",
          rc, err);
}

static void test_message_fits_a_small_buffer(void)
{
    cfg_settings s;
    char err[16];
    table t;
    pair p = {"OMNIBUS_BUFFER_SIZE", "12Q"};
    t.pairs = &p;
    t.n = 1;
    memset(err, 'z', sizeof err);
    int rc = cfg_load(&s, fake_lookup, &t, err, sizeof err);
    CHECK(rc == -1 && memchr(err, '\0', sizeof err) != NULL,
          "a refusal must stay NUL-terminated inside a 16-byte err, got %d",
          rc);
}

/* ---- cfg_parse_size ---------------------------------------------------- */

static void test_parse_size_contract(void)
{
    size_t v = 7;
    CHECK(cfg_parse_size("3K", &v) == 0 && v == 3072,
          "cfg_parse_size(\"3K\") must give 3072, got %zu", v);
    CHECK(cfg_parse_size("0", &v) == -1,
          "cfg_parse_size(\"0\") must refuse zero");
    CHECK(cfg_parse_size(NULL, &v) == -1,
          "cfg_parse_size(NULL) must refuse");
    CHECK(cfg_parse_size("18446744073709551616", &v) == -1,
          "cfg_parse_size must refuse 2^64");
}

/* ---- cfg_unknown_variable ----------------------------------------------- */

static void test_unknown_variable_suggests_closest_name(void)
{
    char *env[] = {"PATH=/bin", "OMNIBUS_TOPOLOGY=2d",
                   "OMNIBUS_BUFER_SIZE=64K", "OMNIBUS_STAT=1", NULL};
    char suggestion[64] = "junk";
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad != NULL && strcmp(bad, "OMNIBUS_BUFER_SIZE=64K") == 0,
          "OMNIBUS_BUFER_SIZE must be reported as unknown, got \"%s\"",
          bad ? bad : "(null)");
    CHECK(strcmp(suggestion, "OMNIBUS_BUFFER_SIZE") == 0,
          "OMNIBUS_BUFER_SIZE must suggest OMNIBUS_BUFFER_SIZE, got \"%s\"",
          suggestion);
}

static void test_unknown_variable_accepts_all_known_names(void)
{
    char *env[] = {"OMNIBUS_TOPOLOGY=auto",   "OMNIBUS_BUFFER_SIZE=1",
                   "OMNIBUS_THRESHOLD=1",     "OMNIBUS_FLUSH_US=1",
                   "OMNIBUS_DISABLE=0",       "OMNIBUS_STATS=0",
                   "OMNIBUS_STATS_FILE=x",    "OMNIBUS_YIELD=on",
                   "OMNIBUS_PROGRESS=1",      "OMNIBUS_IDLE_ROUNDS=2",
                   "OMNIBUS_FAKE_NODES=2",    "OMNIBUS_NEIGHBOR=grid",
                   "OMNIBUS_LIB=/x.so",       "OMNIBUS_MPIEXEC=mpiexec",
                   "OMNIBUS_NEIGHBOR_THETA=4", "OMNIBUSX=1",
                   "omnibus_typo=1",          "HOME=/root",
                   NULL};
    char suggestion[64] = "junk";
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad == NULL, "every known name must pass, but \"%s\" was reported",
          bad ? bad : "");
    CHECK(suggestion[0] == '\0',
          "suggestion must be empty when nothing is unknown, got \"%s\"",
          suggestion);
}

/* OMNIBUS_MAX_MEMORY was once accepted and did nothing: a program that
 * sets it must now hear that it has no effect rather than believe it. */
static void test_unknown_variable_reports_max_memory(void)
{
    char *env[] = {"OMNIBUS_MAX_MEMORY=1G", NULL};
    char suggestion[64] = "";
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad == env[0],
          "OMNIBUS_MAX_MEMORY does nothing and must be reported as unknown, "
          "got \"%s\"", bad ? bad : "(null)");
}

static void test_unknown_variable_reports_the_first_unknown(void)
{
    char *env[] = {"OMNIBUS_TOPOLGY=2d", "OMNIBUS_STAT=1", NULL};
    char suggestion[64] = "";
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad == env[0] && strcmp(suggestion, "OMNIBUS_TOPOLOGY") == 0,
          "the first unknown (OMNIBUS_TOPOLGY) must be reported with "
          "OMNIBUS_TOPOLOGY, got \"%s\" / \"%s\"",
          bad ? bad : "(null)", suggestion);
}

static void test_unknown_variable_ignores_case_when_suggesting(void)
{
    char *env[] = {"OMNIBUS_flush_us=5", NULL};
    char suggestion[64] = "";
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad == env[0] && strcmp(suggestion, "OMNIBUS_FLUSH_US") == 0,
          "OMNIBUS_flush_us must be unknown and suggest OMNIBUS_FLUSH_US, got "
          "\"%s\" / \"%s\"",
          bad ? bad : "(null)", suggestion);
}

static void test_unknown_variable_handles_entry_without_value(void)
{
    char *env[] = {"OMNIBUS_YIELDS", NULL};
    char suggestion[8];
    const char *bad = cfg_unknown_variable(env, suggestion, sizeof suggestion);
    CHECK(bad == env[0] && strcmp(suggestion, "OMNIBUS") == 0,
          "an entry with no '=' must be checked by its whole name and the "
          "suggestion truncated to fit, got \"%s\" / \"%s\"",
          bad ? bad : "(null)", suggestion);
}

static void test_unknown_variable_accepts_null_array(void)
{
    char suggestion[4] = "zz";
    const char *bad = cfg_unknown_variable(NULL, suggestion, sizeof suggestion);
    CHECK(bad == NULL && suggestion[0] == '\0',
          "a NULL array must report nothing, got \"%s\"", bad ? bad : "");
}

/* ---- the table (config/settings.def) ------------------------------------ */

static void test_table_rows_are_consistent(void)
{
    for (int i = 0; i < CFG_NVARS; i++) {
        const cfg_var *v = &cfg_vars[i];
        CHECK(strncmp(v->name, "OMNIBUS_", 8) == 0 && v->doc[0] != '\0',
              "row %d must name an OMNIBUS_ variable and document it, got "
              "\"%s\"", i, v->name);
        if (v->kind == CFG_KIND_NAME)
            continue;
        CHECK(v->width == 4 || v->width == 8,
              "%s: its field must be 4 or 8 bytes wide, is %zu", v->name,
              v->width);
        if (v->kind == CFG_KIND_SIZE || v->kind == CFG_KIND_COUNT) {
            CHECK(v->min <= v->max && v->def <= v->max,
                  "%s: its range must hold its default (%llu in %llu..%llu)",
                  v->name, v->def, v->min, v->max);
            CHECK(v->arg[0] != '\0',
                  "%s: a number needs its words for errors", v->name);
        }
        if (v->network != 0)
            CHECK(v->network >= v->min && v->network <= v->max,
                  "%s: its network default %llu must be in its range",
                  v->name, v->network);
        if (v->kind == CFG_KIND_WORDS)
            CHECK(v->width == sizeof(int) && strchr(v->arg, ' ') != NULL,
                  "%s: a choice of words needs an enum field and two words",
                  v->name);
    }
}

static void test_unknown_variable_accepts_every_row_of_the_table(void)
{
    for (int i = 0; i < CFG_NVARS; i++) {
        char entry[96];
        char *env[] = {entry, NULL};
        snprintf(entry, sizeof entry, "%s=1", cfg_vars[i].name);
        CHECK(cfg_unknown_variable(env, NULL, 0) == NULL,
              "%s is in the table, so it must not be reported as unknown",
              cfg_vars[i].name);
    }
}

static void test_choices_follow_their_enums(void)
{
    cfg_settings s;
    expect_accepted("OMNIBUS_SHM", "off", &s);
    CHECK(s.shm == CFG_SHM_OFF, "SHM=off must give CFG_SHM_OFF, got %d",
          (int)s.shm);
    expect_accepted("OMNIBUS_NEIGHBOR", "grid", &s);
    CHECK(s.neighbor == CFG_NEIGHBOR_GRID,
          "NEIGHBOR=grid must give CFG_NEIGHBOR_GRID, got %d", (int)s.neighbor);
    expect_accepted("OMNIBUS_COLLECTIVES", "mpi", &s);
    CHECK(s.collectives == CFG_COLLECTIVES_MPI,
          "COLLECTIVES=mpi must give CFG_COLLECTIVES_MPI, got %d",
          (int)s.collectives);
}

static void test_fake_nodes_is_parsed_strictly(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    expect_accepted("OMNIBUS_FAKE_NODES", "3", &s);
    CHECK(s.fake_nodes == 3, "FAKE_NODES=3 must give 3, got %d", s.fake_nodes);
    expect_refused("OMNIBUS_FAKE_NODES", "2x");
    expect_refused("OMNIBUS_FAKE_NODES", "0");
    expect_refused("OMNIBUS_FAKE_NODES", "");
    load_table(NULL, 0, &s, err);
    CHECK(s.fake_nodes == 0, "FAKE_NODES must default to 0 (unset), got %d",
          s.fake_nodes);
}

static void test_flow_ranks_is_at_least_the_jobs_ranks(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    load_table(NULL, 0, &s, err);
    CHECK(s.flow_ranks == 0, "FLOW_RANKS must default to 0 (the job's own "
          "ranks), got %d", s.flow_ranks);
    expect_accepted("OMNIBUS_FLOW_RANKS", "65536", &s);
    CHECK(s.flow_ranks == 65536 && cfg_check_job(&s, 2, err, sizeof err) == 0,
          "FLOW_RANKS=65536 must be valid for 2 ranks (%s)", err);
    expect_refused("OMNIBUS_FLOW_RANKS", "1");
    expect_refused("OMNIBUS_FLOW_RANKS", "16777217");
    expect_refused("OMNIBUS_FLOW_RANKS", "1K");
    expect_accepted("OMNIBUS_FLOW_RANKS", "3", &s);
    CHECK(cfg_check_job(&s, 4, err, sizeof err) == -1 &&
              strstr(err, "OMNIBUS_FLOW_RANKS=3") != NULL &&
              strstr(err, "4 ranks") != NULL,
          "FLOW_RANKS=3 must be refused for 4 ranks naming both, got \"%s\"",
          err);
}

static void test_check_job_holds_fake_nodes_to_the_ranks(void)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    expect_accepted("OMNIBUS_FAKE_NODES", "4", &s);
    CHECK(cfg_check_job(&s, 4, err, sizeof err) == 0,
          "FAKE_NODES=4 must be valid for 4 ranks (%s)", err);
    CHECK(cfg_check_job(&s, 3, err, sizeof err) == -1 &&
              strstr(err, "OMNIBUS_FAKE_NODES=4") != NULL &&
              strstr(err, "3 ranks") != NULL,
          "FAKE_NODES=4 must be refused for 3 ranks naming both, got \"%s\"",
          err);
}

/* ---- the record ranks compare at MPI_Init ------------------------------- */

/* The record of a rank that read NAME=value alone (NULL: nothing). */
static void record_of(const char *name, const char *value, long long *rec)
{
    cfg_settings s;
    char err[CFG_ERR_LEN] = "";
    int rc = value ? load_one(name, value, &s, err) : load_table(NULL, 0, &s, err);
    CHECK(rc == 0, "%s=%s must load (%s)", name, value ? value : "", err);
    cfg_record(&s, rec);
}

/* cfg_record_diff between rank ra, which read NAME=a alone, and rank rb,
 * which read NAME=b alone (a NULL value: unset); line may be NULL. */
static int compare(const char *name, const char *a, int ra, const char *b,
                   int rb, char *line)
{
    long long x[CFG_RECORD_SLOTS], y[CFG_RECORD_SLOTS];
    record_of(name, a, x);
    record_of(name, b, y);
    return cfg_record_diff(x, ra, y, rb, line, line ? CFG_ERR_LEN : 0);
}

static void test_record_names_the_variable_values_and_ranks(void)
{
    char line[CFG_ERR_LEN] = "";
    int row = compare("OMNIBUS_SHM", "on", 0, "off", 1, line);
    CHECK(row == CFG_VAR_SHM &&
              strcmp(line, "OMNIBUS_SHM is \"on\" on rank 0 and \"off\" on "
                           "rank 1") == 0,
          "SHM on against off must be told apart naming both, got row %d "
          "\"%s\"", row, line);
}

static void test_record_tells_grids_of_one_size_apart(void)
{
    char line[CFG_ERR_LEN] = "";
    int row = compare("OMNIBUS_TOPOLOGY", "4x2", 0, "2x4", 3, line);
    CHECK(row == CFG_VAR_TOPOLOGY &&
              strcmp(line, "OMNIBUS_TOPOLOGY is \"4x2\" on rank 0 and "
                           "\"2x4\" on rank 3") == 0,
          "4x2 against 2x4 (same product) must differ, got row %d \"%s\"",
          row, line);
    CHECK(compare("OMNIBUS_TOPOLOGY", "2X4", 0, "2x4", 1, NULL) == -1,
          "2X4 and 2x4 are one grid and must compare equal");
}

static void test_record_leaves_out_per_rank_variables(void)
{
    CHECK(compare("OMNIBUS_FLUSH_US", "1", 0, "2", 1, NULL) == -1 &&
              compare("OMNIBUS_YIELD", "on", 0, "off", 1, NULL) == -1,
          "FLUSH_US and YIELD may differ between ranks and must not be "
          "compared");
}

static void test_record_compares_a_network_default_as_set_or_unset(void)
{
    char line[CFG_ERR_LEN] = "";
    int row = compare("OMNIBUS_BUFFER_SIZE", NULL, 0, "1K", 2, line);
    CHECK(row == CFG_VAR_BUFFER_SIZE &&
              strstr(line, "is unset on rank 0 and \"1K\" on rank 2") != NULL,
          "BUFFER_SIZE unset against 1K must differ (unset may become 256K "
          "over a network), got row %d \"%s\"", row, line);
}

static void test_record_compares_a_stats_file_as_set_or_unset(void)
{
    char line[CFG_ERR_LEN] = "";
    CHECK(compare("OMNIBUS_STATS_FILE", "a.json", 0, "b.json", 1, NULL) == -1,
          "only rank 0 writes the file: two paths must compare equal");
    int row = compare("OMNIBUS_STATS_FILE", "a.json", 0, NULL, 1, line);
    CHECK(row == CFG_VAR_STATS_FILE && strstr(line, "is set on rank 0 and "
                                                    "unset on rank 1") != NULL,
          "a stats file on one rank only must differ, got row %d \"%s\"", row,
          line);
}

/* Two values of a job-wide variable that both load (the first two words,
 * or the ends of the range). */
static void two_values(const cfg_var *v, char *x, char *y, size_t cap)
{
    switch (v->kind) {
    case CFG_KIND_WORDS:
        snprintf(x, cap, "%.*s", (int)strcspn(v->arg, " "), v->arg);
        snprintf(y, cap, "%.*s", (int)strcspn(v->arg + strlen(x) + 1, " "),
                 v->arg + strlen(x) + 1);
        break;
    case CFG_KIND_TOPOLOGY:
        snprintf(x, cap, "2x1");
        snprintf(y, cap, "1x2");
        break;
    case CFG_KIND_SIZE:
    case CFG_KIND_COUNT:
        snprintf(x, cap, "%llu", v->min > 0 ? v->min : 1);
        snprintf(y, cap, "%llu", v->min > 0 ? v->min + 1 : 2);
        break;
    default: /* FLAG; PATH compares set against unset */
        snprintf(x, cap, "1");
        y[0] = '\0';
    }
}

static void test_record_compares_every_job_wide_variable(void)
{
    for (int i = 0; i < CFG_NVARS; i++) {
        const cfg_var *v = &cfg_vars[i];
        char x[32], y[32];
        if (!v->job_wide || v->kind == CFG_KIND_NAME)
            continue;
        two_values(v, x, y, sizeof x);
        int row = compare(v->name, x, 0, y[0] ? y : NULL, 1, NULL);
        CHECK(row == i, "%s is job-wide: %s against %s must be told apart, "
                        "got row %d", v->name, x, y[0] ? y : "unset", row);
    }
}

int main(void)
{
    RUN(test_table_rows_are_consistent);
    RUN(test_unknown_variable_accepts_every_row_of_the_table);
    RUN(test_choices_follow_their_enums);
    RUN(test_fake_nodes_is_parsed_strictly);
    RUN(test_check_job_holds_fake_nodes_to_the_ranks);
    RUN(test_flow_ranks_is_at_least_the_jobs_ranks);
    RUN(test_record_names_the_variable_values_and_ranks);
    RUN(test_record_tells_grids_of_one_size_apart);
    RUN(test_record_leaves_out_per_rank_variables);
    RUN(test_record_compares_a_network_default_as_set_or_unset);
    RUN(test_record_compares_a_stats_file_as_set_or_unset);
    RUN(test_record_compares_every_job_wide_variable);
    RUN(test_defaults_when_nothing_is_set);
    RUN(test_null_lookup_means_nothing_set);
    RUN(test_all_variables_together);
    RUN(test_refusal_leaves_output_untouched);

    RUN(test_eager_pool_is_unset_unless_given);
    RUN(test_memory_defaults_to_256m);
    RUN(test_memory_accepts_sizes_in_range);
    RUN(test_memory_refuses_bad_values);
    RUN(test_eager_pool_accepts_sizes_in_range);
    RUN(test_eager_pool_refuses_bad_values);
    RUN(test_buffer_size_accepts_plain_bytes);
    RUN(test_buffer_size_accepts_k_suffix_either_case);
    RUN(test_buffer_size_accepts_m_suffix_either_case);
    RUN(test_buffer_size_accepts_both_bounds);
    RUN(test_buffer_size_rejects_trailing_garbage);
    RUN(test_buffer_size_rejects_zero);
    RUN(test_buffer_size_rejects_negative);
    RUN(test_buffer_size_rejects_plus_sign);
    RUN(test_buffer_size_rejects_letters);
    RUN(test_buffer_size_rejects_empty);
    RUN(test_buffer_size_rejects_overflow);
    RUN(test_buffer_size_rejects_fraction);
    RUN(test_buffer_size_rejects_surrounding_spaces);
    RUN(test_buffer_size_rejects_out_of_range);
    RUN(test_buffer_size_message_is_the_documented_line);

    RUN(test_threshold_accepts_zero);
    RUN(test_threshold_accepts_plain_and_suffixed);
    RUN(test_threshold_rejects_trailing_garbage);
    RUN(test_threshold_rejects_negative);
    RUN(test_threshold_rejects_plus_sign);
    RUN(test_threshold_rejects_letters);
    RUN(test_threshold_rejects_empty);
    RUN(test_threshold_rejects_overflow);
    RUN(test_threshold_accepts_largest_representable_suffixed);
    RUN(test_threshold_rejects_fraction);
    RUN(test_threshold_rejects_surrounding_spaces);

    RUN(test_idle_rounds_default_is_sixteen);
    RUN(test_idle_rounds_accepts_one_to_the_maximum);
    RUN(test_idle_rounds_rejects_zero_and_junk);
    RUN(test_flush_accepts_zero_and_the_maximum);
    RUN(test_flush_rejects_above_maximum);
    RUN(test_flush_rejects_suffix);
    RUN(test_flush_rejects_negative);
    RUN(test_flush_rejects_plus_sign);
    RUN(test_flush_rejects_letters);
    RUN(test_flush_rejects_empty);
    RUN(test_flush_rejects_overflow);
    RUN(test_flush_rejects_fraction);
    RUN(test_flush_rejects_surrounding_spaces);

    RUN(test_topology_accepts_auto);
    RUN(test_topology_accepts_direct);
    RUN(test_topology_accepts_nodes);
    RUN(test_topology_accepts_balanced_dimensions);
    RUN(test_topology_accepts_explicit_sizes);
    RUN(test_topology_accepts_single_size);
    RUN(test_topology_rejects_zero_size);
    RUN(test_topology_rejects_too_many_balanced_dimensions);
    RUN(test_topology_rejects_nine_explicit_sizes);
    RUN(test_topology_rejects_missing_sizes);
    RUN(test_topology_rejects_unknown_words);
    RUN(test_topology_rejects_size_overflowing_int);
    RUN(test_topology_rejects_empty);
    RUN(test_topology_rejects_surrounding_spaces);
    RUN(test_topology_message_is_the_documented_line);

    RUN(test_check_job_accepts_incomplete_grid);
    RUN(test_check_job_accepts_exact_grid);
    RUN(test_check_job_refuses_too_small_grid);
    RUN(test_check_job_handles_huge_products_without_overflow);
    RUN(test_check_job_quotes_sizes_when_text_is_missing);
    RUN(test_check_job_accepts_any_balanced_and_auto);

    RUN(test_disable_accepts_zero_and_one);
    RUN(test_disable_rejects_other_values);
    RUN(test_stats_accepts_zero_and_one);
    RUN(test_stats_rejects_other_values);
    RUN(test_stats_file_accepts_a_path);
    RUN(test_stats_file_rejects_empty);
    RUN(test_stats_file_rejects_surrounding_spaces);
    RUN(test_several_nodes_take_network_defaults_when_unset);
    RUN(test_several_nodes_keep_what_the_user_set);
    RUN(test_ucx_tls_without_shared_memory_is_network);
    RUN(test_btl_without_shared_memory_is_network);
    RUN(test_yield_accepts_auto_on_off);
    RUN(test_yield_rejects_other_values);
    RUN(test_progress_defaults_to_calls_and_accepts_thread);
    RUN(test_progress_rejects_other_values);
    RUN(test_collectives_default_to_omnibus);
    RUN(test_collectives_rejects_other_values);
    RUN(test_neighbor_defaults_to_auto);
    RUN(test_neighbor_auto_combines_one_hop_with_a_core_per_rank);
    RUN(test_neighbor_auto_is_plain_when_crowded_or_multi_hop);
    RUN(test_neighbor_mode_set_by_user_stands);
    RUN(test_neighbor_accepts_each_mode);
    RUN(test_neighbor_rejects_other_values);
    RUN(test_shm_auto_follows_ucx_tls);
    RUN(test_shm_on_and_off_override_ucx_tls);
    RUN(test_shm_rejects_other_values);
    RUN(test_paths_default_to_measured_and_the_crossover_unpinned);
    RUN(test_paths_rejects_other_values);
    RUN(test_ring_mpi_from_takes_sizes_from_one_byte);
    RUN(test_ring_mpi_from_rejects_zero_and_words);
    RUN(test_path_size_pins_take_sizes_and_reject_zero_and_words);
    RUN(test_envelopes_default_on_and_take_off);

    RUN(test_message_shows_trailing_space_in_quotes);
    RUN(test_message_escapes_newline_to_stay_one_line);
    RUN(test_message_cuts_very_long_values_but_keeps_the_advice);
    RUN(test_message_fits_a_small_buffer);

    RUN(test_parse_size_contract);

    RUN(test_unknown_variable_suggests_closest_name);
    RUN(test_unknown_variable_accepts_all_known_names);
    RUN(test_unknown_variable_reports_max_memory);
    RUN(test_unknown_variable_reports_the_first_unknown);
    RUN(test_unknown_variable_ignores_case_when_suggesting);
    RUN(test_unknown_variable_handles_entry_without_value);
    RUN(test_unknown_variable_accepts_null_array);

    CHECK_MAIN_END();
}
