/* config: the OMNIBUS_* environment, read once and checked before any traffic.
 *
 * Every variable is one row of config/settings.def (name, kind of value,
 * field, range and default, whether the job must agree on it, its
 * documentation line); cfg_vars is that table.
 *
 * Contract: cfg_load() reads every variable through the caller's lookup
 * function (so tests need no real environment), fills a cfg_settings with the
 * documented defaults for what is unset, and refuses anything it cannot
 * parse.  A refusal is one line in `err` naming the variable, the value and
 * what is accepted; the caller (rank 0 at MPI_Init) prints it prefixed with
 * "omnibus: " and stops the job.  Nothing here knows about MPI: the job size
 * is checked separately by cfg_check_job() once it is known, and the ranks
 * compare their cfg_record()s.
 */
#ifndef OMNIBUS_CONFIG_H
#define OMNIBUS_CONFIG_H

#include <stddef.h>

#define CFG_MAX_DIMS 8
#define CFG_ERR_LEN 512

typedef enum {
    CFG_TOPO_AUTO,     /* "auto": chosen at MPI_Init from the node layout */
    CFG_TOPO_DIRECT,   /* "direct": one hop, every rank is a peer */
    CFG_TOPO_NODES,    /* "nodes": the node grid nodes x ranks_per_node,
                          which auto builds only where it halves a rank's
                          peers (direct on unequal nodes) */
    CFG_TOPO_BALANCED, /* "Nd": N balanced dimensions, sizes chosen later */
    CFG_TOPO_EXPLICIT  /* "AxBxC": the sizes given */
} cfg_topo_kind;

typedef enum { CFG_YIELD_AUTO, CFG_YIELD_ON, CFG_YIELD_OFF } cfg_yield;
typedef enum { CFG_PROGRESS_CALLS, CFG_PROGRESS_THREAD } cfg_progress;
/* How neighbourhood collectives travel (OMNIBUS_NEIGHBOR). */
typedef enum {
    CFG_NEIGHBOR_AUTO,    /* what the benchmarks showed fastest
                             (cfg_neighbor_mode; docs/design/
                             neighbourhood.md, Which mode auto
                             picks) */
    CFG_NEIGHBOR_PLAIN,   /* the underlying MPI's own: one message per
                             neighbour */
    CFG_NEIGHBOR_COMBINE, /* Omnibus's message-combining schedule */
    CFG_NEIGHBOR_GRID     /* one item per neighbour over Omnibus's grid */
} cfg_neighbor;
/* Who runs the small blocking collectives (OMNIBUS_COLLECTIVES). */
typedef enum {
    CFG_COLLECTIVES_OMNIBUS, /* Omnibus, over its own transport
                                (shim/ops/coll.h) */
    CFG_COLLECTIVES_MPI      /* the underlying MPI's nonblocking form plus
                                progress */
} cfg_collectives;
/* How blocks travel between ranks of one node (OMNIBUS_SHM). */
typedef enum {
    CFG_SHM_AUTO, /* node rings unless UCX_TLS keeps MPI off shared memory */
    CFG_SHM_ON,   /* node rings whatever UCX_TLS says */
    CFG_SHM_OFF   /* every block through PMPI_Isend */
} cfg_shm;

/* How large messages to a rank of the node choose their path
 * (OMNIBUS_PATHS; docs/design/transport.md, Choosing a path by
 * measurement). */
typedef enum {
    CFG_PATHS_MEASURED, /* the crossovers timed at MPI_Init */
    CFG_PATHS_DEFAULT   /* the built-in crossovers */
} cfg_paths;

/* Whether large messages to a neighbour reached through the MPI underneath
 * may travel without a header (OMNIBUS_ENVELOPES; shim/engine/envelope.h). */
typedef enum {
    CFG_ENVELOPES_ON,
    CFG_ENVELOPES_OFF
} cfg_envelopes;

/* How Omnibus copies a message's bytes at a short distance from their
 * source (OMNIBUS_COPIES; router/copy.h). */
typedef enum {
    CFG_COPIES_TIMED,  /* by what memcpy cost at each distance, timed */
    CFG_COPIES_MEMCPY, /* memcpy at every distance */
    CFG_COPIES_LOOP    /* for tests: Omnibus's loop at every distance that
                          is timed */
} cfg_copies;

/* Whether a pair's large blocking sends learn their path while the job
 * runs (OMNIBUS_LEARN; router/learn.h). */
typedef enum {
    CFG_LEARN_ON,       /* from the time between sends, where the crossover
                           in force was not set */
    CFG_LEARN_OFF,      /* the crossovers in force decide alone */
    CFG_LEARN_ALTERNATE /* for tests: the two paths in turns, whatever the
                           crossovers */
} cfg_learn;

typedef struct {
    cfg_topo_kind topo_kind;
    int ndims;              /* BALANCED and EXPLICIT: number of dimensions */
    int dims[CFG_MAX_DIMS]; /* EXPLICIT: the sizes, first dimension first */
    size_t buffer_size;     /* OMNIBUS_BUFFER_SIZE, bytes per peer buffer */
    size_t threshold;       /* OMNIBUS_THRESHOLD, largest aggregated message */
    unsigned long given;    /* bit CFG_VAR_x: the user set OMNIBUS_x, so no
                               default replaces it */
    long flush_us;          /* OMNIBUS_FLUSH_US, oldest an item may wait */
    long idle_rounds;       /* OMNIBUS_IDLE_ROUNDS: expected gaps between
                               appends a buffer may go unwritten while the
                               rank sends elsewhere (router/adapt.h) */
    size_t memory;          /* OMNIBUS_MEMORY: blocks and tables a rank
                               holds at most, which sizes the eager pool
                               when OMNIBUS_EAGER_POOL is unset
                               (router/pool.h) */
    size_t eager_pool;      /* OMNIBUS_EAGER_POOL: unreceived eager bytes a
                               rank accepts, shared among its senders
                               (router/flow.h); 0 until MPI_Init derives it
                               from `memory` when unset */
    int disable;            /* OMNIBUS_DISABLE=1: pure pass-through */
    int stats;              /* OMNIBUS_STATS=1: summary on stderr at finalize */
    const char *stats_file; /* OMNIBUS_STATS_FILE, NULL when unset; points
                               into the lookup's storage */
    cfg_yield yield;        /* OMNIBUS_YIELD=auto|on|off */
    cfg_progress progress;  /* OMNIBUS_PROGRESS=calls|thread */
    cfg_neighbor neighbor;  /* OMNIBUS_NEIGHBOR=auto|plain|combine|grid;
                               cfg_neighbor_mode resolves auto */
    int neighbor_theta;     /* OMNIBUS_NEIGHBOR_THETA, friendship threshold */
    cfg_collectives collectives; /* OMNIBUS_COLLECTIVES=omnibus|mpi */
    cfg_shm shm;            /* OMNIBUS_SHM=auto|on|off */
    cfg_paths paths;        /* OMNIBUS_PATHS=measured|default */
    cfg_envelopes envelopes; /* OMNIBUS_ENVELOPES=on|off */
    cfg_copies copies;      /* OMNIBUS_COPIES=timed|memcpy|loop */
    cfg_learn learn;        /* OMNIBUS_LEARN=on|off|alternate */
    size_t ring_mpi_from;   /* OMNIBUS_RING_MPI_FROM, 0 when unset: the
                               payload bytes from which a blocking send to
                               a rank of the node goes through the MPI
                               underneath (shim/transport/calib.h) */
    size_t read_from;       /* OMNIBUS_READ_FROM, 0 when unset: the payload
                               bytes from which a nonblocking or
                               synchronous send to a rank of the node goes
                               by single-copy read, where it can (calib.h) */
    size_t wire_alone_max;  /* OMNIBUS_WIRE_ALONE_MAX, 0 when unset: the
                               largest payload a blocking send to a rank
                               reached through the MPI underneath sends
                               alone in a block (calib.h) */
    size_t wire_piece;      /* OMNIBUS_WIRE_PIECE, 0 when unset: the
                               largest piece of a block sent in pieces
                               through the MPI underneath (calib.h) */
    size_t wait_from;       /* OMNIBUS_WAIT_FROM, 0 when unset: the size
                               from which the MPI underneath's own blocking
                               send waits for its receive (calib.h) */
    size_t envelope_max;    /* OMNIBUS_ENVELOPE_MAX, 0 when unset: the
                               largest payload a standard send to a rank
                               reached through the MPI underneath sends
                               without a header (calib.h) */
    int flow_ranks;         /* OMNIBUS_FLOW_RANKS (tests only): the rank
                               count the window rule uses, 0 for the job's
                               own (router/flow.h) */
    const char *topology_text; /* OMNIBUS_TOPOLOGY as given, NULL when unset;
                                  points into the lookup's storage (kept so
                                  cfg_check_job can quote it) */
    int fake_nodes;         /* OMNIBUS_FAKE_NODES, 0 when unset (the real
                               node layout) */
} cfg_settings;

/* Returns the value of an environment variable, or NULL when unset. */
typedef const char *(*cfg_lookup_fn)(const char *name, void *ctx);

/* The defaults, documented in docs/configuration.md; cfg_load starts from
 * these.  The buffer size is the smallest message size at which plain
 * MPICH's streamed sends reach 75% of their peak bandwidth, the threshold
 * the largest size up to which aggregation beats them at every size
 * (docs/performance.md, Calibrated defaults; `make calibrate`), measured
 * over shared memory for a job on one node, and over TCP, standing in for
 * a network, for a job whose ranks talk over the network
 * (cfg_use_network_defaults). */
#define CFG_DEFAULT_BUFFER_SIZE ((size_t)1024)
#define CFG_DEFAULT_THRESHOLD ((size_t)512)
#define CFG_NETWORK_BUFFER_SIZE ((size_t)256 << 10)
#define CFG_NETWORK_THRESHOLD ((size_t)16384)
#define CFG_DEFAULT_FLUSH_US 500L
#define CFG_MAX_FLUSH_US 10000000L
#define CFG_DEFAULT_IDLE_ROUNDS 16L
#define CFG_MAX_IDLE_ROUNDS 1000000L
/* The most pool OMNIBUS_MEMORY gives, however large: 4 MiB windows for 16
 * streaming pairs.  The default memory gives a few ranks on one node 40 to
 * 60 MiB (their bound is 4 to 6 pools) and a million ranks about 15. */
#define CFG_DEFAULT_EAGER_POOL ((size_t)64 << 20)
#define CFG_DEFAULT_MEMORY ((size_t)256 << 20)
#define CFG_MIN_MEMORY ((size_t)1 << 20)
#define CFG_MAX_MEMORY ((size_t)1 << 40)
#define CFG_MIN_EAGER_POOL ((size_t)64 << 10)
#define CFG_MAX_EAGER_POOL ((size_t)1 << 30)
#define CFG_MIN_BUFFER_SIZE ((size_t)64)
#define CFG_MAX_BUFFER_SIZE ((size_t)64 << 20)
/* Fewer than 4 common neighbours cannot save a message once the exchange
 * between the two friends is paid: splitting c common destinations saves
 * each friend about c/2 messages and the exchange costs it one
 * (docs/design/neighbourhood.md, Pairing friends). */
#define CFG_DEFAULT_NEIGHBOR_THETA 4
#define CFG_MAX_NEIGHBOR_THETA 65536
/* A COUNT whose bound is the job's size: parsed up to INT_MAX, then held
 * to the number of ranks by cfg_check_job. */
#define CFG_RANKS 2147483647ULL

/* ---- the table of variables (config/settings.def) ----------------------- */

typedef enum {
    CFG_KIND_SIZE,
    CFG_KIND_COUNT,
    CFG_KIND_WORDS,
    CFG_KIND_FLAG,
    CFG_KIND_PATH,
    CFG_KIND_TOPOLOGY,
    CFG_KIND_NAME /* known by name, read by no one here */
} cfg_kind;

/* CFG_VAR_<NAME>: a variable's row in cfg_vars, and its bit in `given`. */
enum {
#define CFG_VAR(n, ...) CFG_VAR_##n,
#define CFG_NAME(n, ...) CFG_VAR_##n,
#include "config/settings.def"
#undef CFG_VAR
#undef CFG_NAME
    CFG_NVARS
};

typedef struct {
    const char *name;         /* "OMNIBUS_BUFFER_SIZE" */
    cfg_kind kind;
    size_t offset, width;     /* the cfg_settings member; width 0: none */
    int job_wide;             /* must agree across the job */
    unsigned long long def, min, max, network; /* SIZE and COUNT */
    const char *arg;          /* see settings.def */
    const char *doc;
} cfg_var;

extern const cfg_var cfg_vars[CFG_NVARS];

/* What a rank read, as CFG_RECORD_SLOTS signed numbers (no value is below
 * -1, so that ~v orders them in reverse): one per job-wide variable
 * (2 + CFG_MAX_DIMS for the topology: kind, dimensions, sizes).  Ranks
 * whose records are equal read the same job-wide settings. */
#define CFG_SLOTS_JOB 1
#define CFG_SLOTS_RANK 0
#define CFG_SLOTS_KIND_TOPOLOGY (2 + CFG_MAX_DIMS)
#define CFG_SLOTS_KIND_SIZE 1
#define CFG_SLOTS_KIND_COUNT 1
#define CFG_SLOTS_KIND_WORDS 1
#define CFG_SLOTS_KIND_FLAG 1
#define CFG_SLOTS_KIND_PATH 1
enum {
    CFG_RECORD_SLOTS = 0
#define CFG_VAR(n, kind, f, scope, ...) +CFG_SLOTS_##scope * CFG_SLOTS_KIND_##kind
#define CFG_NAME(n, ...)
#include "config/settings.def"
#undef CFG_VAR
#undef CFG_NAME
};

/* Fills rec with the job-wide values of s (cfg_load's result). */
void cfg_record(const cfg_settings *s, long long *rec);

/* Compares the records of two ranks.  Returns -1 when they are equal; else
 * the row (CFG_VAR_x) of the first variable they differ in, and writes into
 * line, when not NULL, one line naming it with both values and ranks:
 * `OMNIBUS_SHM is "on" on rank 0 and "off" on rank 1`. */
int cfg_record_diff(const long long *a, int rank_a, const long long *b,
                    int rank_b, char *line, size_t len);
#define CFG_MAX_FLOW_RANKS 16777216

/* For a job whose ranks talk over the network (several nodes, or
 * cfg_ucx_tls_is_network): the buffer size and threshold the user left
 * unset take their network-calibrated defaults. */
void cfg_use_network_defaults(cfg_settings *s);

/* The neighbourhood-collective mode in force.  A mode the user set stands.
 * auto is combine when the job's topology is one hop (`one_hop`: every
 * message goes straight to its destination) and no node runs more ranks
 * than it has cores (`crowded` is 0 on every rank: the caller agrees on it
 * job-wide, since members of one communicator must choose alike); else
 * plain.  Why (halo benchmarks; docs/design/neighbourhood.md, Which mode
 * auto picks): with a core per rank, combine took 0.14x to 0.75x of
 * MPICH's time on one node and across two emulated nodes, while on
 * crowded cores a schedule's dependent steps each wait for the scheduler,
 * and over a multi-hop grid a message waits at relays that may be outside
 * MPI. */
cfg_neighbor cfg_neighbor_mode(const cfg_settings *s, int one_hop, int crowded);

/* 1 when a UCX_TLS value leaves UCX no shared-memory transport (sm, shm,
 * posix, sysv, cma, knem, xpmem, or "all"), so that even ranks on one node
 * talk through the network stack, as with UCX_TLS=tcp,self; 0 for NULL, an
 * empty value, or a list with any of those.  A leading "^" (UCX's
 * exclusion syntax) counts as network only when it excludes "sm" or
 * "shm". */
int cfg_ucx_tls_is_network(const char *ucx_tls);

/* The same for Open MPI's byte transfer layers (OMPI_MCA_btl): 1 when the
 * list names neither "vader" nor "sm", or excludes one of them ("^vader"),
 * as with OMPI_MCA_btl=self,tcp; 0 for NULL or an empty value. */
int cfg_btl_is_network(const char *btl);

/* Whether blocks between ranks of one node go through the node rings
 * (shim/transport/shm.h): auto means yes unless the MPI library was told
 * to keep off shared memory (under_on_network: UCX_TLS as
 * cfg_ucx_tls_is_network reads it, or OMPI_MCA_btl as cfg_btl_is_network
 * does; shim/mpi/hint.h), which a user does to make ranks of one node talk
 * as if over a network. */
int cfg_shm_wanted(const cfg_settings *s, int under_on_network);

/* 0 on success; -1 with a one-line message in err (no trailing newline). */
int cfg_load(cfg_settings *out, cfg_lookup_fn lookup, void *ctx, char *err,
             size_t errlen);

/* Checks the settings against a job of nranks ranks (explicit dimensions
 * whose product is smaller than the job, and a count bounded by CFG_RANKS
 * above it, are refused).  0 or -1 with err. */
int cfg_check_job(const cfg_settings *s, int nranks, char *err, size_t errlen);

/* Parses a byte size: decimal digits with an optional K or M suffix
 * (powers of 1024).  0 on success, -1 when malformed, zero, negative or
 * overflowing. */
int cfg_parse_size(const char *text, size_t *out);

/* Scans a NULL-terminated array of "NAME=value" strings (environ or a copy)
 * for a name that starts with OMNIBUS_ but is not one Omnibus knows.  Returns
 * the first such entry, whole ("NAME=value"), and writes into suggestion (at
 * most len bytes, NUL-terminated) the known name closest to it by edit
 * distance, ignoring case; returns NULL, with suggestion set to "", when every
 * OMNIBUS_ name is known.  suggestion may be NULL when len is 0. */
const char *cfg_unknown_variable(char **environ_like, char *suggestion,
                                 size_t len);

#endif
