/* stats: the counters every rank keeps (omni.stats, omni.eng.sent_to), summed
 * over the job at MPI_Finalize.  Rank 0 prints a short summary on stderr
 * (OMNIBUS_STATS=1) and writes the JSON file docs/statistics.md describes
 * (OMNIBUS_STATS_FILE),
 * to a temporary name first and renamed into place, so a reader never sees
 * half a file.  Collective over MPI_COMM_WORLD; nothing goes to stdout. */
#ifndef OMNIBUS_STATS_H
#define OMNIBUS_STATS_H

#include <stdint.h>

void stats_report(void);

/* Bytes of blocks one rank may hold at most (docs/design/flow-control.md,
 * The memory bound). */
uint64_t stats_memory_bound(void);

#endif
