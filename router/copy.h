/* copy: payload copies that do not depend on how the program's buffers
 * happen to be aligned.  No MPI here; tests/unit/test_copy.c.
 *
 * A message that Omnibus carries is copied by Omnibus twice (into a block
 * or node ring, and out into the receive's buffer) where the MPI
 * underneath may copy it once.  What a copy costs can depend on where its
 * destination lies relative to its source: on an AMD EPYC VM with glibc
 * 2.36, memcpy of 4 KiB to a few hundred KiB whose destination lay 1 to
 * 31 bytes past its source, modulo a 4 KiB page, ran 15 to 25 times
 * slower than at any other distance (its `rep movsb`; the kernel's copies
 * too).  A message's header is about that long, so a payload copied in
 * behind it from a buffer near the start of a page, as a large malloc's
 * is, lands there (docs/design/transport.md, Copies and alignment).
 * Which distances are slow is the machine's, so it is measured, not
 * listed:
 *
 *  - cp_time_skews() times, at each of the CP_SKEWS distances ("skews")
 *    (to - from) mod CP_PAGE = 0 .. CP_SKEWS - 1, memcpy against
 *    cp_loop(), a copy by 16-byte unaligned loads and aligned stores
 *    whose speed does not depend on the skew.  Each cost is the least of
 *    a few trials.  cp_find_slow_skews() times each size of
 *    cp_timed_sizes so: memcpy changes strategy at a size that is the
 *    machine's (glibc moves to `rep movsb` from 2 to 16 KiB, by the
 *    processor's features), and a skew slow only past that size would be
 *    missed by one small size.
 *  - cp_slow_skews() decides from those costs (any costs: the unit test
 *    injects them): skew k is slow when memcpy took more than
 *    1 / (1 - CP_MARGIN) times the loop's time there.  A cost of 0 or
 *    below, or not a number, is "not measured" and never slow.
 *  - cp_skew_slow() answers, for one copy, whether its skew is in the
 *    mask, and cp_takes_loop() whether it is that and CP_MIN bytes or
 *    more; the caller copies with cp_loop() then, and with memcpy
 *    otherwise, or lets cp_copy() decide and copy.  The mask is the union over the sizes timed.  Copies
 *    below CP_MIN bytes always use memcpy: glibc copies them with vector
 *    moves on every processor, which did not slow down at any skew, and a
 *    call to the loop buys nothing.
 *
 * cp_loop() copies exactly n bytes, n >= 16, the two ranges not
 * overlapping; it reads and writes nothing outside them. */
#ifndef OMNIBUS_COPY_H
#define OMNIBUS_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CP_SKEWS 64
#define CP_PAGE 4096u
#define CP_MIN 2048u
#define CP_MARGIN 0.2
/* The sizes timed: one past where glibc 2.36 moves to `rep movsb` on a
 * processor with fast short `rep movsb` (2112 bytes; the AMD EPYC VM's
 * slow skews showed there), and one past where it does with 256- or
 * 512-bit vectors otherwise (8 and 16 KiB); small enough that all 64
 * skews, both copies, the trials and the passes take a few milliseconds
 * even where every skew is slow only at the larger size. */
#define CP_TIMED_SIZES 2
#define CP_TIMED_MAX 32768u
extern const size_t cp_timed_sizes[CP_TIMED_SIZES];
#define CP_TRIALS 5

void cp_loop(void *to, const void *from, size_t n);

uint64_t cp_slow_skews(const double memcpy_ns[CP_SKEWS],
                       const double loop_ns[CP_SKEWS]);

/* Times both copies at every skew not in `skip`, `bytes` (at most
 * CP_TIMED_MAX) each, through the caller's CP_SCRATCH bytes at `scratch`;
 * a skew skipped costs 0, "not measured". */
#define CP_SCRATCH (2 * CP_TIMED_MAX + 3 * CP_PAGE)
void cp_time_skews(char *scratch, size_t bytes, uint64_t skip,
                   double memcpy_ns[CP_SKEWS], double loop_ns[CP_SKEWS]);

/* One timing of both copies at every skew, at one size. */
typedef struct {
    double memcpy_ns[CP_SKEWS], loop_ns[CP_SKEWS];
} cp_timing;

/* Each size is timed in CP_PASSES passes, and a skew is slow at a size
 * only when every pass found it slow there: a copy preempted in every
 * trial of one pass would otherwise send every copy at its skew through
 * the loop, which elsewhere costs about a third more than memcpy.  The
 * answer is the skews slow at any size of cp_timed_sizes;
 * t[pass][size]. */
#define CP_PASSES 2
uint64_t cp_slow_skews_timed(const cp_timing t[CP_PASSES][CP_TIMED_SIZES]);

/* The whole timing, through `scratch` as cp_time_skews: every pass at
 * each size, smallest first, and cp_slow_skews_timed's answer.  A skew
 * found slow at a smaller size is not timed at the larger ones: it is slow
 * whatever they say, and at 32 KiB a slow memcpy there costs more than
 * all the rest of the timing. */
uint64_t cp_find_slow_skews(char *scratch);

static inline int cp_skew_slow(uint64_t slow, const void *to,
                               const void *from)
{
    uintptr_t skew = ((uintptr_t)to - (uintptr_t)from) & (CP_PAGE - 1);
    return skew < CP_SKEWS && ((slow >> skew) & 1u);
}

/* Whether a copy of n bytes from `from` to `to` takes cp_loop under the
 * mask `slow`: at a slow skew, and from CP_MIN bytes on. */
static inline int cp_takes_loop(uint64_t slow, const void *to,
                                const void *from, size_t n)
{
    return n >= CP_MIN && cp_skew_slow(slow, to, from);
}

/* Copies n bytes from `from` to `to` as cp_takes_loop says, deciding
 * once; returns whether it took cp_loop (for a caller that counts). */
static inline int cp_copy(uint64_t slow, void *to, const void *from,
                          size_t n)
{
    if (cp_takes_loop(slow, to, from, n)) {
        cp_loop(to, from, n);
        return 1;
    }
    memcpy(to, from, n);
    return 0;
}

#endif
