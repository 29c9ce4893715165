#include "shim/transport/calib.h"
#include "shim/transport/shm.h"
#include "shim/transport/transport.h"
#include "shim/base/fail.h"
#include "shim/base/state.h"
#include "router/paths.h"
#include "router/wire.h"
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The sizes timed: above the largest aggregation threshold that matters
 * on a node, up to what a ring record of 128 KiB holds. */
static const uint32_t calib_sizes[] = {8192, 16384, 32768, 65536, 122880};
#define CALIB_NSIZES ((int)(sizeof calib_sizes / sizeof calib_sizes[0]))
/* Round trips timed per size and path, the two paths taking turns so
 * that both see the same load; pa_cost makes a cost of them. */
#define CALIB_TRIPS 9
#define CALIB_TAG 77
/* Untimed round trips through the MPI underneath before any is timed.
 * Its first messages between a pair can cost several times what later
 * ones do (docs/design/transport.md, Choosing a path by measurement), and
 * a path timed in that state loses a size it wins: the crossover was then
 * decided by the MPI underneath's start-up, not its cost. */
#define CALIB_MPI_WARMUP 96
/* Untimed round trips of each path at each size before its timed ones. */
#define CALIB_WARM_TRIPS 2
/* Round trips per timing of the header: one takes a few hundred ns, where
 * two timings of one trip seldom agree within PA_AGREE, and without the
 * header's cost the MPI underneath's is unknown at every size. */
#define CALIB_HEADER_BATCH 16
#define CALIB_PROBE_TAG 78
/* Polls of an empty ring between yields: the other end may be waiting
 * for this core. */
#define CALIB_SPINS 4096
/* The longest the timing may take; an idle node needs a few ms. */
#define CALIB_BUDGET_NS ((uint64_t)20000000)

/* The two ends of the pair: the ring to the other rank and the ring from
 * it, the other's rank on the node communicator and in the world (-1
 * when this rank cannot read the other's memory), and which end leads. */
typedef struct {
    rg_tx *tx;
    rg_rx *rx;
    int other;
    int other_world;
    int leads;
    char *out, *in;
} calib_pair;

/* As a message alone goes into a ring: reserved, written, committed. */
static void ring_put(calib_pair *p, const void *data, uint32_t len)
{
    char *at;
    while (!(at = rg_reserve(p->tx, len)))
        sched_yield();
    transport_copy_uncounted(at, data, len);
    rg_commit(p->tx, len);
}

static void ring_send(calib_pair *p, uint32_t len)
{
    ring_put(p, p->out, len);
}

/* What a receive through the ring costs: waiting for the record, and the
 * copy out of it into `into`. */
static void ring_take(calib_pair *p, void *into)
{
    uint32_t len;
    const void *at;
    for (unsigned spins = 1; !(at = rg_peek(p->rx, &len)); spins++)
        if (spins % CALIB_SPINS == 0)
            sched_yield();
    transport_copy_uncounted(into, at, len);
    rg_pop(p->rx);
}

static void ring_recv(calib_pair *p)
{
    ring_take(p, p->in);
}

/* `trips` round trips of `len` bytes by single-copy read, as a blocking
 * send to a rank of the node goes from under_wait_from: the sender's
 * buffer address through the ring, the receiver's read of the bytes, and
 * its answer through the ring; their time in ns, or 0 when a read failed
 * (the pair cannot read: not a cost). */
static uint64_t read_trips(calib_pair *p, uint32_t len, int trips)
{
    uint64_t t0 = omni_now_ns();
    int failed = 0;
    char ack = 0;
    for (int turn = 0; turn < 2 * trips; turn++) {
        if ((turn % 2 == 0) == (p->leads != 0)) {
            uint64_t addr = (uint64_t)(uintptr_t)p->out;
            ring_put(p, &addr, sizeof addr);
            ring_take(p, &ack);
        } else {
            uint64_t addr;
            ring_take(p, &addr);
            failed |= shm_read_peer(p->other_world, p->in, addr, len) != 0;
            ring_put(p, &ack, 1);
        }
    }
    uint64_t t = omni_now_ns() - t0;
    return failed ? 0 : t;
}

/* `trips` round trips of `len` bytes, by ring or by the MPI underneath,
 * the leader sending first; their time in ns. */
static uint64_t round_trips(calib_pair *p, uint32_t len, int by_ring,
                            int trips)
{
    uint64_t t0 = omni_now_ns();
    for (int turn = 0; turn < 2 * trips; turn++) {
        if ((turn % 2 == 0) == (p->leads != 0)) {
            if (by_ring)
                ring_send(p, len);
            else
                PMPI_Send(p->out, (int)len, MPI_BYTE, p->other, CALIB_TAG,
                          omni.tx.ring_comm);
        } else if (by_ring) {
            ring_recv(p);
        } else {
            PMPI_Recv(p->in, (int)len, MPI_BYTE, p->other, CALIB_TAG,
                      omni.tx.ring_comm, MPI_STATUS_IGNORE);
        }
    }
    return omni_now_ns() - t0;
}

static uint64_t round_trip(calib_pair *p, uint32_t len, int by_ring)
{
    return round_trips(p, len, by_ring, 1);
}

/* The one-way times, in ns, of `len` bytes through the ring (as one
 * record with an item header, when it fits one; else 0, not measured),
 * through the MPI underneath, and, when `by_read`, by single-copy read
 * (else 0), as pa_cost settles them (0 when the trips disagree). */
static void one_way(calib_pair *p, uint32_t len, int by_read, double *ring,
                    double *mpi, double *read)
{
    int fits = len + RT_HDR_SIZE <= omni.tx.ring_alone_max;
    uint64_t r[CALIB_TRIPS], m[CALIB_TRIPS], d[CALIB_TRIPS];
    if (fits)
        round_trips(p, len + RT_HDR_SIZE, 1, CALIB_WARM_TRIPS);
    round_trips(p, len, 0, CALIB_WARM_TRIPS);
    if (by_read)
        read_trips(p, len, CALIB_WARM_TRIPS);
    for (int i = 0; i < CALIB_TRIPS; i++) {
        r[i] = fits ? round_trip(p, len + RT_HDR_SIZE, 1) : 0;
        m[i] = round_trip(p, len, 0);
        d[i] = by_read ? read_trips(p, len, 1) : 0;
    }
    *ring = fits ? pa_cost(r, CALIB_TRIPS) / 2 : 0;
    *mpi = pa_cost(m, CALIB_TRIPS) / 2;
    *read = by_read && d[0] ? pa_cost(d, CALIB_TRIPS) / 2 : 0;
}

/* The one-way time of an item header alone through the ring, from
 * timings of CALIB_HEADER_BATCH round trips each. */
static double header_one_way(calib_pair *p)
{
    uint64_t h[CALIB_TRIPS];
    round_trips(p, RT_HDR_SIZE, 1, CALIB_HEADER_BATCH);
    for (int i = 0; i < CALIB_TRIPS; i++)
        h[i] = round_trips(p, RT_HDR_SIZE, 1, CALIB_HEADER_BATCH);
    return pa_cost(h, CALIB_TRIPS) / (2.0 * CALIB_HEADER_BATCH);
}

/* Whether both ends go on: the leader's word (`go`) after a round trip
 * through the ring, which the other end takes. */
static int both_go(calib_pair *p, int go)
{
    p->out[0] = (char)go;
    round_trip(p, 1, 1);
    return p->leads ? go : p->in[0];
}

/* The pair's costs: the ring's at each size that fits a record alone, and
 * the other path's: from wait_from (where the MPI underneath waits, so a
 * blocking send may) and read_from, when the pair can read, the
 * single-copy read's; elsewhere the MPI underneath's as header and
 * payload would pay them, its own time plus a header's through the ring
 * (the payload's receive is posted once the header has matched); 0 at
 * the sizes CALIB_BUDGET_NS left unmeasured.
 * A lap of the ring goes first, untimed, so that no timed record is the
 * first to touch its pages, and CALIB_MPI_WARMUP trips through the MPI
 * underneath, so that none is timed in its start-up. */
static void pair_costs(calib_pair *p, pa_table *t, uint64_t wait_from)
{
    uint64_t t0 = omni_now_ns();
    uint32_t lap = (uint32_t)omni.tx.ring_alone_max - 8;
    for (uint64_t done = 0; done <= p->tx->mask + 1; done += lap)
        round_trip(p, lap, 1);
    round_trips(p, calib_sizes[0], 0, CALIB_MPI_WARMUP);
    double header = header_one_way(p);
    memset(t, 0, sizeof *t);
    t->nsizes = CALIB_NSIZES;
    for (int i = 0; i < CALIB_NSIZES; i++) {
        t->size[i] = calib_sizes[i];
        if (!both_go(p, omni_now_ns() - t0 < CALIB_BUDGET_NS))
            continue;
        int by_read = p->other_world >= 0 && calib_sizes[i] >= wait_from &&
                      calib_sizes[i] >= omni.tx.paths.at[OMNI_CX_read_from];
        double read;
        one_way(p, calib_sizes[i], by_read, &t->cost[i][PA_ALONE],
                &t->cost[i][PA_APART], &read);
        /* Without the header's cost, the MPI underneath's is not known. */
        t->cost[i][PA_APART] = header > 0 && t->cost[i][PA_APART] > 0
                                 ? t->cost[i][PA_APART] + header
                                 : 0;
        if (by_read)
            t->cost[i][PA_APART] = read;
    }
}

/* Whether the MPI underneath's standard send of `len` bytes from the
 * leader waits for its receive: the leader starts it and tests it for
 * CALIB_EAGER_NS before the partner, told through the ring, posts the
 * receive.  1 waits, 0 eager; both ends return the leader's finding. */
static int under_waits(calib_pair *p, uint32_t len)
{
    if (!p->leads) {
        int waits = both_go(p, 0);
        PMPI_Recv(p->in, (int)len, MPI_BYTE, p->other, CALIB_PROBE_TAG,
                  omni.tx.ring_comm, MPI_STATUS_IGNORE);
        return waits;
    }
    MPI_Request req;
    PMPI_Isend(p->out, (int)len, MPI_BYTE, p->other, CALIB_PROBE_TAG,
               omni.tx.ring_comm, &req);
    int done = calib_sent_at_once(&req);
    both_go(p, !done);
    if (!done)
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
    return !done;
}

/* The pair's probe of where the MPI underneath's own sends start to wait
 * (pa_wait_from), at the sizes timed, within the same budget. */
static pa_choice pair_wait_from(calib_pair *p)
{
    uint64_t t0 = omni_now_ns();
    uint64_t sizes[CALIB_NSIZES];
    int waits[CALIB_NSIZES];
    for (int i = 0; i < CALIB_NSIZES; i++) {
        sizes[i] = calib_sizes[i];
        waits[i] = both_go(p, omni_now_ns() - t0 < CALIB_BUDGET_NS)
                       ? under_waits(p, calib_sizes[i])
                       : -1;
    }
    return pa_wait_from(sizes, waits, CALIB_NSIZES,
                        omni.tx.paths.at[OMNI_CX_under_wait_from]);
}

/* The world rank of node rank `node_rank` when this rank may read its
 * memory (shm.h, single-copy reads), else -1. */
static int other_world_reading(int node_rank)
{
    MPI_Group node, world;
    int w = MPI_UNDEFINED;
    PMPI_Comm_group(omni.tx.ring_comm, &node);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(node, 1, &node_rank, world, &w);
    PMPI_Group_free(&node);
    PMPI_Group_free(&world);
    return w != MPI_UNDEFINED && omni.tx.read_pid && omni.tx.read_pid[w]
               ? w
               : -1;
}

/* The timing's message buffers, a ring record's size each, are mapped
 * here and not taken from malloc: glibc serves a request of 128 KiB or
 * more by mmap, and freeing such a chunk raises its mmap threshold to the
 * chunk's size, so that the program's own later buffers of that size would
 * come from the heap instead, at other offsets within their pages.  On an
 * AMD EPYC VM that made a 128 KiB ping-pong take four times as long
 * (docs/design/transport.md, Copies and alignment;
 * tests/mpi/heap_layout_kept.c).  NULL when the memory cannot be mapped. */
static char *calib_buffer(void)
{
    void *p = mmap(NULL, omni.tx.ring_alone_max, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void calib_buffer_free(char *p)
{
    if (p)
        munmap(p, omni.tx.ring_alone_max);
}

/* What one node found, the same on every rank of the node. */
typedef struct {
    long ring_mpi_from; /* LONG_MAX: no pair, or no measured crossover */
    long wait_from;     /* 0: no pair; LONG_MAX: a pair, but not known */
} node_paths;

/* This node's findings: its rank 0 and the first rank of the node it has
 * a ring to time both paths and probe the MPI underneath's sends.  Rings
 * are open both ways or not at all (shm.h), and each end's views of the
 * rings in are in node rank order: so the first ring in is the other
 * end's at both ends. */
static node_paths node_measure(void)
{
    int me, n, partner = -1;
    PMPI_Comm_rank(omni.tx.ring_comm, &me);
    PMPI_Comm_size(omni.tx.ring_comm, &n);
    for (int j = 1; me == 0 && j < n && partner < 0; j++)
        if (omni.tx.ring_tx[j].mask) /* a view that was opened */
            partner = j;
    PMPI_Bcast(&partner, 1, MPI_INT, 0, omni.tx.ring_comm);
    node_paths found = {LONG_MAX, 0};
    if (partner >= 0 && (me == 0 || me == partner)) {
        int other = me == 0 ? partner : 0;
        calib_pair p = {&omni.tx.ring_tx[other], &omni.tx.ring_rx[0], other,
                        other_world_reading(other), me == 0,
                        calib_buffer(), calib_buffer()};
        if (!p.out || !p.in)
            omni_out_of_memory("the start-up timing of the paths");
        memset(p.out, 1, omni.tx.ring_alone_max);
        /* The probe first: where a blocking send may wait decides which
         * path the timing holds against the ring. */
        const omni_paths *in_force = &omni.tx.paths;
        pa_choice w =
            in_force->source[OMNI_CX_under_wait_from] == PA_SET
                ? (pa_choice){in_force->at[OMNI_CX_under_wait_from], PA_SET}
                : pair_wait_from(&p);
        found.wait_from = w.source == PA_MEASURED ? (long)w.from : LONG_MAX;
        pa_table t;
        pair_costs(&p, &t, w.from);
        pa_choice c = pa_crossover(&t, PA_ALONE, PA_APART,
                                   omni.tx.paths.at[OMNI_CX_ring_mpi_from]);
        if (c.source == PA_MEASURED)
            found.ring_mpi_from = (long)c.from;
        calib_buffer_free(p.out);
        calib_buffer_free(p.in);
    }
    PMPI_Bcast(&found, 2, MPI_LONG, 0, omni.tx.ring_comm);
    return found;
}

/* Every rank must send by the same sizes: a sender's path decides what
 * its receiver is asked to take, and a job whose ranks disagreed would
 * show it only in its timings.  So the sizes in force are compared over
 * the job (smallest and largest at once), and a difference ends it. */
static void check_agreement(void)
{
    long long mine[2 * OMNI_CX_COUNT], least[2 * OMNI_CX_COUNT];
    for (int i = 0; i < OMNI_CX_COUNT; i++) {
        mine[2 * i] = (long long)omni.tx.paths.at[i];
        mine[2 * i + 1] = -(long long)omni.tx.paths.at[i];
    }
    PMPI_Allreduce(mine, least, 2 * OMNI_CX_COUNT, MPI_LONG_LONG, MPI_MIN,
                   MPI_COMM_WORLD);
    for (int i = 0; i < OMNI_CX_COUNT; i++)
        if (least[2 * i] != -least[2 * i + 1]) {
            fprintf(stderr,
                    "omnibus: rank %d: the ranks hold different path sizes "
                    "(crossover %d from %lld to %lld bytes); this is a bug\n",
                    omni.job.rank, i, least[2 * i], -least[2 * i + 1]);
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/* The settings that pin a crossover (PA_SET), each 0 when unset.
 * wire_alone_nb_max has none: it follows wire_alone_max
 * (pa_alone_nb_max). */
static const struct {
    enum omni_crossover cx;
    const size_t *pin;
} calib_pins[] = {
    {OMNI_CX_ring_mpi_from, &omni.job.cfg.ring_mpi_from},
    {OMNI_CX_read_from, &omni.job.cfg.read_from},
    {OMNI_CX_under_wait_from, &omni.job.cfg.wait_from},
    {OMNI_CX_wire_alone_max, &omni.job.cfg.wire_alone_max},
    {OMNI_CX_envelope_max, &omni.job.cfg.envelope_max},
    {OMNI_CX_wire_piece, &omni.job.cfg.wire_piece},
};

void calib_paths(void)
{
    static const uint64_t defaults[OMNI_CX_COUNT] = {
#define CALIB_DEFAULT(name, dflt) [OMNI_CX_##name] = dflt,
        OMNI_CROSSOVERS(CALIB_DEFAULT)
#undef CALIB_DEFAULT
    };
    int crowded = omni.job.crowded;
    omni_paths *p = &omni.tx.paths;
    for (int i = 0; i < OMNI_CX_COUNT; i++) {
        p->at[i] = defaults[i];
        p->source[i] = PA_DEFAULT;
    }
    if (!calib_apart_is_bare())
        p->at[OMNI_CX_wire_alone_max] = CALIB_WIRE_ALONE_WITH_HEADER;
    for (size_t i = 0; i < sizeof calib_pins / sizeof calib_pins[0]; i++) {
        size_t set = *calib_pins[i].pin;
        if (set) {
            p->at[calib_pins[i].cx] = set;
            p->source[calib_pins[i].cx] = PA_SET;
        }
    }
    if (omni.job.cfg.paths == CFG_PATHS_MEASURED) {
        /* The nodes measured apart; the job takes the smallest crossover,
         * so that no node's MPI loses to its ring, and the largest size
         * from which the MPI underneath waits, so that no node's blocking
         * send waits where its MPI's would not have. */
        node_paths mine = {LONG_MAX, 0};
        if (omni.tx.ring_comm != MPI_COMM_NULL && !crowded)
            mine = node_measure();
        long both[2] = {mine.ring_mpi_from, -mine.wait_from}, least[2];
        PMPI_Allreduce(both, least, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        if (least[0] != LONG_MAX &&
            p->source[OMNI_CX_ring_mpi_from] != PA_SET) {
            p->at[OMNI_CX_ring_mpi_from] = (uint64_t)least[0];
            p->source[OMNI_CX_ring_mpi_from] = PA_MEASURED;
        }
        long wait_from = -least[1];
        if (wait_from != 0 && wait_from != LONG_MAX &&
            p->source[OMNI_CX_under_wait_from] != PA_SET) {
            p->at[OMNI_CX_under_wait_from] = (uint64_t)wait_from;
            p->source[OMNI_CX_under_wait_from] = PA_MEASURED;
        }
        if (p->source[OMNI_CX_wire_alone_max] != PA_SET) {
            pa_choice piece = {p->at[OMNI_CX_wire_piece],
                               p->source[OMNI_CX_wire_piece]};
            pa_choice w = calib_wire_alone(
                crowded, p->at[OMNI_CX_wire_alone_max] + 1, &piece);
            if (w.source == PA_MEASURED) {
                p->at[OMNI_CX_wire_alone_max] = w.from - 1;
                p->source[OMNI_CX_wire_alone_max] = PA_MEASURED;
            }
            p->at[OMNI_CX_wire_piece] = piece.from;
            p->source[OMNI_CX_wire_piece] = piece.source;
        }
    }
    pa_choice nb = pa_alone_nb_max(
        (pa_choice){p->at[OMNI_CX_wire_alone_max],
                    p->source[OMNI_CX_wire_alone_max]},
        p->at[OMNI_CX_wire_alone_nb_max]);
    p->at[OMNI_CX_wire_alone_nb_max] = nb.from;
    p->source[OMNI_CX_wire_alone_nb_max] = nb.source;
    check_agreement();
}
