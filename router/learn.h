/* learn: which of two ways one pair's blocking sends of one size class
 * take, learned while the job runs from the time between those sends.  No
 * MPI here; tests/unit/test_learn.c (docs/design/transport.md, Learning a
 * pair's path while the job runs).
 *
 * A way is 0 or 1, and the caller says what each is: the lanes of
 * send.c's blocking sends that fit both paths hold paths.h's PA_ALONE and
 * PA_APART; those of its blocking sends to a neighbour through the MPI
 * underneath too large for a block hold whether the message carries a
 * header (shim/engine/envelope.h).  Both are "paths" below.
 *
 * The crossovers in force (paths.h, timed at MPI_Init or built in) give
 * every lane its first path, its prior.  A timing at start-up meets one
 * state of the machine and the program's buffers in one place; the job
 * may run in another.  So a lane tries the other path now and then, and
 * takes it when the program's own sends went clearly faster on it.
 *
 * A lane is one (peer, size class): the class of a message of b bytes is
 * floor(log2 b), so a lane holds sizes within a factor of two.
 *
 * Contract of ln_pick(lane, now):
 *  - It is called once per send of the lane, as the send starts, `now`
 *    from one monotonic clock in nanoseconds, and answers the path that
 *    send takes.
 *  - The time from one call to the next is charged to the path the first
 *    of the two answered: for a blocking send that is what the program saw
 *    of the send, plus whatever it did before its next send to that peer
 *    (in a ping-pong, the reply).  Which path is faster is decided only
 *    between intervals of one lane, so the program's own work weighs on
 *    both paths alike.
 *  - A lane runs in cycles.  KEEP: `keep` sends on its path, untimed.
 *    BASE: LN_EPOCH sends on it, timed.  TRY: LN_EPOCH sends on the other
 *    path, timed.  The other path becomes the lane's (a switch) when
 *    TRY's median interval is below (1 - LN_MARGIN) of BASE's, or below
 *    (1 - LN_MARGIN_STEADY) of it with the two phases apart: all but one
 *    of TRY's intervals shorter than all but one of BASE's.  Otherwise the lane keeps its path.  Medians
 *    and all-but-one: one send that was preempted, or that met the
 *    program's occasional work, does not decide.  The second rule lets
 *    the lane's own spread set the margin: in a ping-pong each rank's
 *    interval holds its partner's send too, so a path that halves one
 *    direction's cost shortens the interval by far less, and a quiet
 *    pair shows that plainly where a fixed 15% would not.
 *  - After a switch the next KEEP lasts LN_KEEP_MIN sends; each cycle that
 *    keeps the path doubles it, up to LN_KEEP_MAX.  A lane whose path is
 *    right thus spends at most LN_EPOCH of every LN_KEEP_MAX + 2 LN_EPOCH
 *    sends on the other path once it has settled, and one whose machine
 *    changes state finds out within a cycle.
 *  - LN_ALTERNATE (a test setting) answers the two paths in turns instead,
 *    so that every cross-path order a pair can see is seen.
 * Only the sender chooses: the receiver takes either path's message in
 * its place in the pair's order (transport.md, Order is kept across
 * paths), so two ranks never need to agree on a lane.
 *
 * ln_table maps (peer, class) to a lane, direct-mapped over LN_SLOTS
 * lanes: a lane taken by another pair starts again from that pair's
 * prior.  A program sending large messages to more pairs than the table
 * holds then keeps the crossovers, as it would without learning; nothing
 * is allocated. */
#ifndef OMNIBUS_LEARN_H
#define OMNIBUS_LEARN_H

#include <stdint.h>

#define LN_EPOCH 8
#define LN_KEEP_MIN 64u
#define LN_KEEP_MAX 16384u
#define LN_MARGIN 0.15
#define LN_MARGIN_STEADY 0.05
#define LN_SLOTS 64

enum ln_mode {
    LN_LEARN,     /* cycles of KEEP, BASE and TRY */
    LN_ALTERNATE  /* the two paths in turns (tests) */
};

enum ln_phase { LN_KEEP, LN_BASE, LN_TRY };

typedef struct {
    int peer;               /* -1: unused */
    int cls;
    uint8_t path;           /* the way in force, 0 or 1 (LN_ALTERNATE:
                               the next call's answer) */
    uint8_t phase;          /* enum ln_phase of the previous call */
    uint8_t n;              /* intervals timed in this phase */
    uint32_t keep;          /* the length of the next KEEP */
    uint32_t left;          /* sends left in this KEEP */
    uint32_t base_median;   /* ns, of the BASE just timed */
    uint32_t base_low;      /* ns, its second shortest interval */
    uint64_t last_ns;       /* when the previous call was made, 0 none */
    uint32_t iv[LN_EPOCH];  /* ns, intervals of this phase */
} ln_lane;

typedef struct {
    enum ln_mode mode;
    uint64_t trials;        /* TRY phases completed, over every lane */
    uint64_t switches;      /* of which made the other path the lane's */
    ln_lane lane[LN_SLOTS];
} ln_table;

void ln_init(ln_table *t, enum ln_mode mode);

/* The class of a message of `bytes`: floor(log2 bytes), 0 for 0 and 1. */
int ln_class(uint64_t bytes);

/* The lane of (peer, cls), started from `prior` when it was unused or
 * held another pair. */
ln_lane *ln_lane_of(ln_table *t, int peer, int cls, int prior);

/* The way, 0 or 1, of the lane's next send, which starts at `now_ns` (see
 * the contract above).  Counts t's trials and switches. */
int ln_pick(ln_table *t, ln_lane *l, uint64_t now_ns);

#endif
