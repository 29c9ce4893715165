/* paths: where the path a large message takes changes, from what each
 * candidate path cost on the machine the job runs on.  No MPI here;
 * tests/unit/test_paths.c.  The shim measures (shim/transport/calib.h);
 * this module only decides, so the decision can be tried on any costs
 * (docs/design/transport.md, Choosing a path by measurement).
 *
 * A pa_table holds, for a few message sizes in increasing order, the time
 * one message took by each candidate path.  pa_crossover(t, a, b, dflt)
 * answers the size from which path b replaces path a: path a below it, b
 * from it on.  Contract:
 *  - At each size the table says "a", "b" or "neither": b when it took
 *    less than (1 - PA_MARGIN) of a's time, a when a took less than
 *    (1 - PA_MARGIN) of b's, neither otherwise.  The margin is wide: a
 *    few round trips at start-up on a node that may be busy are not the
 *    steady state, and a path is left only for one clearly cheaper.
 *  - When no size says a or b, or some size says b below a size that says
 *    a (costs that cross back: noise, or a machine this rule cannot
 *    describe), the answer is the default, from PA_DEFAULT.
 *  - Otherwise the crossover lies above the largest size that says a and
 *    at or below the smallest that says b; the answer is the default moved
 *    into that interval (unchanged when it lies there already), from
 *    PA_MEASURED.  So a machine where a wins at every measured size keeps
 *    a at least up to the largest, and one where b wins everywhere goes to
 *    b from the smallest: the measurements move the default only as far
 *    as they show it wrong.
 * Costs are in any one unit; a cost of 0 or below, or not a number, is
 * "not measured" and says neither. */
#ifndef OMNIBUS_PATHS_H
#define OMNIBUS_PATHS_H

#include <stdint.h>

/* The two candidate paths of a message above the aggregation threshold,
 * to a rank of the node or to one reached through the MPI underneath. */
enum pa_path {
    PA_ALONE, /* an item alone: in a node ring record, or in a block of its
                 own through the MPI underneath; copied in and out */
    PA_APART, /* not copied into a record or block: header and payload
                 through the MPI underneath, a single-copy read where a
                 blocking send to a rank of the node may wait, or, to a
                 rank reached through the MPI underneath, the message
                 without a header */
    PA_PATHS
};

/* Where a crossover in force came from. */
enum pa_source {
    PA_DEFAULT,  /* the built-in constant (measurements absent or unclear) */
    PA_MEASURED, /* the constant moved to fit this machine's measurements */
    PA_SET       /* a setting pinned it */
};

#define PA_SIZES_MAX 8
/* How much cheaper a path must be to win at a size. */
#define PA_MARGIN 0.25
/* How close the two fastest timings of one path must be to make a cost. */
#define PA_AGREE 0.10

typedef struct {
    int nsizes;
    uint64_t size[PA_SIZES_MAX];            /* increasing */
    double cost[PA_SIZES_MAX][PA_PATHS];    /* time of one message */
} pa_table;

typedef struct {
    uint64_t from;          /* path b from this many bytes on */
    enum pa_source source;
} pa_choice;

pa_choice pa_crossover(const pa_table *t, enum pa_path a, enum pa_path b,
                       uint64_t dflt);

/* Where the MPI underneath's own standard send starts to wait for its
 * receive (its rendezvous), from a probe at each of n increasing sizes:
 * waits[i] is 1 when a send of sizes[i] did not complete before its
 * receive was posted, 0 when it did (eager), -1 when not probed.  The
 * answer is the smallest probed size from which every probed size waited
 * (PA_MEASURED): below it some size went eagerly, or was not probed, and a
 * program may rely on a send there returning before its receive.  When
 * the largest probed size went eagerly, or none was probed, the answer is
 * dflt (PA_DEFAULT).  Omnibus lets a blocking send wait for its receiver
 * only from this size on, where the MPI underneath would have waited too. */
pa_choice pa_wait_from(const uint64_t *sizes, const int *waits, int n,
                       uint64_t dflt);

/* The largest message the MPI underneath sends at once, without waiting
 * for its receive, from the same kind of probe at n increasing sizes
 * (waits[] as above): the largest probed size that went eagerly with every
 * smaller one (PA_MEASURED), so that no size up to it is known to wait; 0
 * (PA_DEFAULT) when the smallest waited or was not probed.  A block larger
 * than it may go as pieces of at most this size, each sent at once, where
 * the MPI underneath would make the whole block wait for its receive
 * (docs/design/transport.md, Blocks in pieces). */
pa_choice pa_piece(const uint64_t *sizes, const int *waits, int n);

/* The largest message a nonblocking send to a rank reached through the
 * MPI underneath sends alone in a block, from the blocking send's
 * (`blocking`, its `from` holding that largest size): nb_dflt, the
 * built-in value (PA_DEFAULT), unless the blocking one is smaller, whose
 * size and source it then takes.  A window of sends in flight weighs the
 * copies more than one send does (docs/design/transport.md, Messages
 * above the threshold), so a size one blocking send already sends apart
 * goes apart when nonblocking too. */
pa_choice pa_alone_nb_max(pa_choice blocking, uint64_t nb_dflt);

/* The cost of one path at one size from n >= 2 timings of it (sorted in
 * place): the least, when the next least is within PA_AGREE of it, so
 * that two runs agree on what it costs unhindered; 0, "not measured",
 * when they do not (every run met other work on a busy node). */
double pa_cost(uint64_t *times, int n);

/* "default", "measured", "set". */
const char *pa_source_name(enum pa_source s);

#endif
