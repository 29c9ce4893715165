/* state: the one structure that holds all of Omnibus's mutable state.
 *
 * Everything a rank knows at run time lives in `omni`, defined in state.c,
 * and nothing else in Omnibus is a mutable global.  `omni` is made of one
 * part per layer, each a struct declared in base/part_<layer>.h and
 * written only by that layer's modules; any module may read any part.  The
 * types sit in base/, below every layer, so that this file needs nothing
 * from above; `scripts/test/check-layers` checks that a write to
 * `omni.<part>` comes from the layer its part_<layer>.h names.  Two parts
 * are shared by rule:
 *
 *   job      the settings and topology, written by entry/ in MPI_Init and
 *            MPI_Finalize only, read by all (part_entry.h);
 *   stats    the counters, each incremented by the module that does what
 *            it counts, read by stats.c (counters.h).
 *
 * Omnibus runs on one thread at a time (the application's, under
 * MPI_THREAD_SINGLE/FUNNELED/SERIALIZED, or its progress thread under
 * omni.prog.lock); a job that gets MPI_THREAD_MULTIPLE runs pass-through
 * (see init.c).
 */
#ifndef OMNIBUS_STATE_H
#define OMNIBUS_STATE_H

#include <stddef.h>
#include "router/wire.h"
#include "shim/base/block.h"
#include "shim/base/counters.h"
#include "shim/base/part_entry.h"
#include "shim/base/part_ops.h"
#include "shim/base/part_engine.h"
#include "shim/base/part_match.h"
#include "shim/base/part_progress.h"
#include "shim/base/part_transport.h"

/* The parts in the order the message paths touch them, hot first. */
typedef struct omni_state {
    omni_job job;           /* entry/: settings and topology */
    omni_tx tx;             /* transport/ */
    omni_eng eng;           /* engine/ */
    omni_match match;       /* match/ */
    omni_prog prog;         /* progress/: rounds, pollers, waits */
    omni_credit credit;     /* progress/: flow control (credit.h) */
    omni_ops ops;           /* ops/ */
    omni_counters stats;    /* every layer, by rule (counters.h) */
    omni_entry entry;       /* entry/ */
} omni_state;

extern omni_state omni;

/* The base helpers every module may use (state.c). */
uint64_t omni_now_ns(void);
/* The nanoseconds the host has taken from this virtual machine's cores
 * since boot, summed over its cores (steal time, /proc/stat); 0 where the
 * kernel does not count it.  A system call: for waits already long. */
uint64_t omni_stolen_ns(void);

/* What an early payload of `bytes` takes from OMNIBUS_EAGER_POOL: what it
 * holds, as an eager item would (its bytes and an item header), never more,
 * so that the payloads of a pair that fell back to the MPI underneath cost the
 * pool no more than the same messages aggregated. */
static inline size_t omni_early_charge(MPI_Count bytes)
{
    return (size_t)bytes + RT_HDR_SIZE;
}
/* Early payloads received at once at most: each keeps a receive posted in
 * the MPI underneath ahead of its message, whose supply of requests is finite,
 * and a flood of small payloads once exhausted it.  A count of its own, not a
 * charge on the pool. */
#define OMNI_EARLY_MAX 16384

/* Wrappers must be visible: the library is built with -fvisibility=hidden
 * so that only the MPI_ entry points override the MPI underneath. */
#ifndef OMNI_EXPORT
#define OMNI_EXPORT __attribute__((visibility("default")))
#endif

#endif
