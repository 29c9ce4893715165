/* init: MPI_Init sets Omnibus up, MPI_Finalize drains it and tears it down.
 *
 * Set-up order matters: the configuration is checked before anything else
 * (a bad value stops the job with one line from rank 0), then every rank
 * confirms that all ranks read the same settings, then the private
 * communicators, the route table, the communicator table and the transport
 * are built.  Only then does `omni.job.on` let the wrappers act.
 */
#include "shim/base/state.h"
#include "shim/mpi/family.h"
#include "shim/mpi/hint.h"
#include "shim/ops/coll.h"
#include "shim/match/comm.h"
#include "shim/progress/credit.h"
#include "shim/engine/deliver.h"
#include "shim/engine/envelope.h"
#include "shim/entry/init.h"
#include "shim/ops/isendrecv.h"
#include "shim/match/match.h"
#include "shim/ops/neighbor.h"
#include "shim/ops/drain.h"
#include "shim/ops/nbr_exec.h"
#include "shim/progress/progress.h"
#include "shim/progress/greq.h"
#include "shim/ops/mprobe.h"
#include "shim/engine/preq.h"
#include "shim/engine/recv.h"
#include "shim/engine/request.h"
#include "shim/engine/rndv.h"
#include "shim/engine/send.h"
#include "shim/base/stats.h"
#include "shim/entry/topology.h"
#include "shim/transport/transport.h"
#include "shim/transport/calib.h"
#include "shim/base/fail.h"
#include "router/tables.h"
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The per-rank tables as router/tables.h counts them for the statistics
 * file and omnibus-plan: each entry the size written there. */
#define TB_ASSERT(name, bytes, when, entry)                                    \
    _Static_assert(sizeof(entry) == (bytes),                                   \
                   #entry " is not the size router/tables.h counts");
TB_TABLES(TB_ASSERT)
#undef TB_ASSERT


extern char **environ;

static const char *env_lookup(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

/* Stops the job from MPI_Init: rank `speaker` says why, on one line, and
 * every rank exits 1.  Every rank reaches the same verdict (the settings
 * are checked alike everywhere, or agreed on collectively), so the job
 * ends through MPI_Finalize rather than MPI_Abort: an abort races
 * mpiexec's forwarding of stderr, and lost rank 0's line about once in a
 * hundred jobs.  A failure of one rank alone goes through
 * omni_out_of_memory. */
static _Noreturn void init_refuse(int speaker, const char *why)
{
    if (omni.job.rank == speaker)
        fprintf(stderr, "omnibus: %s\n", why);
    fflush(stderr);
    PMPI_Finalize();
    exit(1);
}

static void warn_unknown_variables(void)
{
    char suggestion[64];
    const char *bad =
        cfg_unknown_variable(environ, suggestion, sizeof suggestion);
    if (bad && omni.job.rank == 0)
        fprintf(stderr, "omnibus: warning: %s is not an Omnibus variable "
                        "(did you mean %s?)\n", bad, suggestion);
}

/* Every rank must have read its settings, and read the job-wide ones
 * (config/settings.def) alike: routes follow from the grid's sizes, a
 * rank with another buffer size would send blocks its neighbours cannot
 * receive, and one that skips a collective the others enter (OMNIBUS_SHM,
 * OMNIBUS_COLLECTIVES, OMNIBUS_STATS) hangs the job.  One allreduce of a
 * fixed-size record answers whether all agree (minima of the values and of
 * their complements); only when they do not do three more collectives find
 * the first variable and rank that differ from rank 0, for the line.
 * `err` holds this rank's refusal when `loaded` is 0; the lowest refusing
 * rank says it. */
static void check_same_settings(int loaded, const char *err)
{
    enum { N = CFG_RECORD_SLOTS };
    /* Signed: MPICH 4.0.2's MPI_MIN orders unsigned 64-bit integers as if
     * they were signed. */
    long long mine[2 * N + 1], lo[2 * N + 1];
    cfg_record(&omni.job.cfg, mine);
    for (int i = 0; i < N; i++)
        mine[N + i] = ~mine[i];
    mine[2 * N] = loaded ? LLONG_MAX : omni.job.rank;
    PMPI_Allreduce(mine, lo, 2 * N + 1, MPI_LONG_LONG, MPI_MIN,
                   MPI_COMM_WORLD);
    if (lo[2 * N] != LLONG_MAX)
        init_refuse((int)lo[2 * N], err);
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= lo[i] == ~lo[N + i];
    if (same)
        return;

    long long first[N], other[N], key;
    memcpy(first, mine, sizeof first);
    PMPI_Bcast(first, N, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    int row = cfg_record_diff(first, 0, mine, omni.job.rank, NULL, 0);
    long long me = row < 0 ? LLONG_MAX : (long long)row * omni.job.size + omni.job.rank;
    PMPI_Allreduce(&me, &key, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    int who = (int)(key % omni.job.size);
    memcpy(other, mine, sizeof other);
    PMPI_Bcast(other, N, MPI_LONG_LONG, who, MPI_COMM_WORLD);
    char line[CFG_ERR_LEN], why[CFG_ERR_LEN + 128];
    cfg_record_diff(first, 0, other, who, line, sizeof line);
    snprintf(why, sizeof why,
             "the ranks of this job read different OMNIBUS_* settings: %s "
             "(pass them to every rank: mpiexec -genv)",
             line);
    init_refuse(0, why);
}

/* The cores the ranks of the node may run on, together: the union of
 * their affinity masks, not this rank's own, which a launcher that binds
 * each rank to a core (mpiexec -bind-to core, srun --cpu-bind) narrows to
 * one core while its neighbours have theirs.  Collective over `shared`. */
static int node_cores(MPI_Comm shared)
{
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &mine);
    }
    PMPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, shared);
    int n = CPU_COUNT(&all);
    return n > 0 ? n : 1;
}

/* 1 when this node runs more ranks than its ranks have cores. */
static int node_crowded(void)
{
    MPI_Comm shared;
    int local = 1;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                         MPI_INFO_NULL, &shared);
    PMPI_Comm_size(shared, &local);
    int crowded = local > node_cores(shared);
    PMPI_Comm_free(&shared);
    return crowded;
}

/* Yield when this node is crowded: with more ranks than cores, the rank
 * being waited for must get a core (docs/design/progress.md, Yielding).
 * The neighbourhood mode takes whether any node is: every member of a
 * communicator must build the same kind of schedule, whatever its own node
 * looks like.  Sets omni.job.crowded for this node. */
static void choose_yield_and_neighbor_mode(void)
{
    int crowded = omni.job.crowded = node_crowded(),
        crowded_anywhere = crowded;
    PMPI_Allreduce(&crowded, &crowded_anywhere, 1, MPI_INT, MPI_MAX,
                   MPI_COMM_WORLD);
    omni.job.nbr_mode = cfg_neighbor_mode(&omni.job.cfg, rt_grid_one_hop(&omni.job.grid),
                                      crowded_anywhere);
    switch (omni.job.cfg.yield) {
    case CFG_YIELD_ON:
        omni.job.yield = 1;
        break;
    case CFG_YIELD_OFF:
        omni.job.yield = 0;
        break;
    default:
        omni.job.yield = crowded;
    }
}

/* The work progress rounds do besides the transport's, in the order a
 * round does it (progress.h).  The probe for messages without a header
 * comes before the tests of payloads: PMPI_Iprobe turns the engine of the
 * MPI underneath after it has looked, so what that turn reads is seen by
 * the next test in the same round, not by the next round
 * (docs/design/progress.md, a progress round). */
static void register_pollers(void)
{
    env_add_poller();
    recv_add_poller();
    isendrecv_add_poller();
    send_add_poller();
    nbr_add_poller();
    credit_add_poller();
    deliver_add_poller();
}

static void omni_setup(int app_level, int real_level)
{
    char err[CFG_ERR_LEN];
    PMPI_Comm_rank(MPI_COMM_WORLD, &omni.job.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &omni.job.size);
    int loaded =
        cfg_load(&omni.job.cfg, env_lookup, NULL, err, sizeof err) == 0 &&
        cfg_check_job(&omni.job.cfg, omni.job.size, err, sizeof err) == 0;
    if (loaded)
        warn_unknown_variables();
    check_same_settings(loaded, err);
    omni.job.initialized = 1;
    if (omni.job.cfg.disable)
        return;
    /* Only a guard: the reserved range is Omnibus's own memory whether or
     * not it could be made inaccessible. */
    (void)omni_handles_reserve();
    omni.entry.app_thread_level = app_level;
    if (app_level == MPI_THREAD_MULTIPLE) {
        if (omni.job.rank == 0)
            fprintf(stderr,
                    "omnibus: MPI_THREAD_MULTIPLE: running pass-through "
                    "(Omnibus serves one thread at a time)\n");
        return;
    }
    void *ub = NULL;
    int found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
    omni.job.tag_ub = found ? *(int *)ub : 32767;
    /* Half of an item's values: the inbox keys of messages without a
     * header sit above (shim/engine/envelope.h). */
    omni.job.payload_tag_max = omni.job.tag_ub < (int)(RT_META_MAX >> 1)
                                   ? omni.job.tag_ub
                                   : (int)(RT_META_MAX >> 1);
    PMPI_Comm_dup(MPI_COMM_WORLD, &omni.job.wire_comm);
    PMPI_Comm_dup(MPI_COMM_WORLD, &omni.job.payload_comm);
    PMPI_Comm_set_errhandler(omni.job.wire_comm, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(omni.job.payload_comm, MPI_ERRORS_RETURN);
    if (topology_setup(err, sizeof err) != 0)
        init_refuse(0, err);
    /* All ranks see the same launcher environment (mpi/hint.h), so they
     * choose alike; check_same_settings covers what they set. */
    if (omni.job.nodes > 1 || omni_transport_is_network())
        cfg_use_network_defaults(&omni.job.cfg);
    omni.job.block_cap = omni.job.cfg.buffer_size;
    /* An item and its header must fit one block. */
    size_t room = omni.job.block_cap - RT_HDR_SIZE;
    omni.job.threshold = omni.job.cfg.threshold < room ? omni.job.cfg.threshold : room;
    choose_yield_and_neighbor_mode();
    mprobe_init();
    recv_init();
    env_init(deliver_header);
    preq_init();
    if (comm_table_init() != 0 || comm_register_world() != 0 ||
        request_init() != 0 || send_init() != 0 || rndv_init() != 0 ||
        credit_init() != 0 ||
        transport_init(deliver_block, deliver_in_place) != 0 ||
        prog_init() != 0)
        omni_out_of_memory("its state at start-up");
    calib_paths();
    register_pollers();
    omni.job.on = 1;
    if (omni.job.cfg.progress == CFG_PROGRESS_THREAD) {
        if (real_level < MPI_THREAD_MULTIPLE || prog_thread_start() != 0)
            if (omni.job.rank == 0)
                fprintf(stderr,
                        "omnibus: OMNIBUS_PROGRESS=thread needs "
                        "MPI_THREAD_MULTIPLE and a thread, which this "
                        "job could not have: progress runs in MPI calls "
                        "only\n");
    }
}

/* The progress thread needs MPI_THREAD_MULTIPLE, which must be asked for in
 * the initialization call itself, before the settings are checked across
 * ranks (that needs MPI): so they are read once first, here. */
static int progress_thread_wanted(void)
{
    cfg_settings s;
    return cfg_load(&s, env_lookup, NULL, NULL, 0) == 0 &&
           s.progress == CFG_PROGRESS_THREAD && !s.disable;
}

/* The application is told the level it asked for when MPI gives more for
 * the progress thread's sake: Omnibus serves its threads as that level
 * allows, no more. */
static int initialize(int *argc, char ***argv, int required, int *provided)
{
    int real = MPI_THREAD_SINGLE, rc;
    /* A library built for the other MPI family would read every handle
     * wrongly: it stops here (mpi/family.h). */
    omni_family_check();
    if (progress_thread_wanted() && required < MPI_THREAD_MULTIPLE) {
        rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &real);
        *provided = real >= required ? required : real;
    } else {
        rc = PMPI_Init_thread(argc, argv, required, &real);
        *provided = real;
    }
    if (rc == MPI_SUCCESS)
        omni_setup(*provided, real);
    return rc;
}

int impl_Query_thread(int *provided)
{
    *provided = omni.entry.app_thread_level;
    return MPI_SUCCESS;
}

OMNI_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int provided;
    return initialize(argc, argv, MPI_THREAD_SINGLE, &provided);
}

OMNI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                                int *provided)
{
    return initialize(argc, argv, required, provided);
}

static uint64_t injected_here(void)
{
    uint64_t n = omni.stats.acks_sent;
    for (int r = 0; r < omni.job.size; r++)
        n += omni.eng.sent_to[r];
    return n;
}

/* Forwards until the job is quiescent: the items injected everywhere equal
 * the items delivered everywhere, twice in a row with the same totals (one
 * equal round could be a coincidence of counters sampled at different
 * moments; two rounds with no change cannot, since nothing new is injected
 * once every rank is in MPI_Finalize). */
static void finalize_until_quiescent(void)
{
    uint64_t prev[2] = {UINT64_MAX, 0};
    for (;;) {
        prog_block_enter();
        uint64_t local[2] = {injected_here(), omni.stats.delivered}, sum[2];
        MPI_Request req;
        PMPI_Iallreduce(local, sum, 2, MPI_UINT64_T, MPI_SUM, omni.job.wire_comm,
                        &req);
        prog_wait(&req, MPI_STATUS_IGNORE);
        if (sum[0] == sum[1] && sum[0] == prev[0] && sum[1] == prev[1])
            return;
        prev[0] = sum[0];
        prev[1] = sum[1];
    }
}

OMNI_EXPORT int MPI_Finalize(void)
{
    if (omni.job.on) {
        prog_thread_stop();
        finalize_until_quiescent();
        prog_close();
        stats_report();
        omni.job.on = 0;
        prog_finalize();
        transport_finalize();
        nbr_finalize();
        drain_finalize();
        coll_finalize();
        comm_table_destroy();
        match_release_slabs();
        send_finalize();
        rndv_finalize();
        credit_finalize();
        mprobe_finalize();
        recv_finalize();
        env_finalize();
        preq_finalize();
        request_finalize();
        greq_finalize();
        topology_free();
        PMPI_Comm_free(&omni.job.wire_comm);
        PMPI_Comm_free(&omni.job.payload_comm);
    }
    return PMPI_Finalize();
}
