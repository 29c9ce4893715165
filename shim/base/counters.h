/* counters: what the statistics file reports (stats.h), as this rank
 * counts it; the figures are the rows of counters.def, which says what
 * each one means.
 *
 * The one part of `omni` (state.h) that every layer writes: each module
 * increments the counters of what it does, and only stats.c reads them all.
 * A counter only grows, except the maxima (peak_*, window_max), which only
 * rise; the rows a rank does not count as it goes (user_sends,
 * aggregated_items, memory_bound, ...) stats.c sets when the job reports.
 */
#ifndef OMNIBUS_COUNTERS_H
#define OMNIBUS_COUNTERS_H

#include <stdint.h>
#include "router/grid.h"

typedef struct omni_counters {
    /* The statistics file's figures, one field per row of counters.def. */
#define STAT(FIELD, HOW, SECTION, KEY, DOC) uint64_t FIELD;
#include "shim/base/counters.def"
#undef STAT
    /* Counted here, reported only through the figures above or the route
     * lists of stats.c. */
    uint64_t wire_by_dim[RT_MAX_DIMS]; /* blocks sent, by hop dimension */
    uint64_t coll_by_hops[RT_MAX_DIMS + 1]; /* coll_items by route length */
} omni_counters;

#endif
