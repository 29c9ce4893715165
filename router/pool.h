/* pool: how large a rank's eager pool is when the program gives Omnibus a
 * memory budget instead of a pool, with no MPI (the shim applies it at
 * MPI_Init, shim/entry/init.c; omnibus-plan for each grid it weighs;
 * tests/unit/test_pool.c checks it; docs/design/flow-control.md states
 * it).
 *
 * The contract.  A rank's memory is its per-rank tables (router/tables.h)
 * plus the bound on its blocks (router/flow.h), and every term of that
 * bound but the buffers' grows with the pool.  So the pool is the largest
 * that keeps tables plus bound within the budget on the job's worst rank:
 * the most next hops, every wire receive posted, the most relayed pairs of
 * any rank of the grid.  Every rank derives it from what all ranks know
 * (the grid, the window rule's P, the buffer size, the budget), so all
 * ranks lend and assume the same windows; what the statistics file reports
 * for any rank is at most the budget.  A pool named by OMNIBUS_EAGER_POOL
 * is taken as it is.
 */
#ifndef OMNIBUS_POOL_H
#define OMNIBUS_POOL_H

#include <stdint.h>
#include "router/flow.h"
#include "router/grid.h"

/* The wire receives a rank keeps posted at most (shim/transport). */
#define PO_RX_BLOCKS 4

/* The largest multiple of `step`, at most `most`, for which
 * fl_memory_bound(worst) (its pool replaced) plus `tables` is at most
 * `memory`; 0 when none is (the buffers and tables alone take the budget,
 * and the caller takes `step` and says so). */
uint64_t po_pool_for_memory(const fl_params *worst, uint64_t tables,
                            uint64_t memory, uint64_t step, uint64_t most);

/* The pool of a job on grid g under a budget of `memory` bytes per rank,
 * where `job` gives the buffer size, the window rule's P (the job's size,
 * or OMNIBUS_FLOW_RANKS) and the build's fill cap: po_pool_for_memory on
 * the grid's worst rank, with the tables of job->nranks ranks that read
 * their node's memory (the larger kind). */
uint64_t po_pool_for_job(const rt_grid *g, const fl_params *job,
                         uint64_t memory, uint64_t step, uint64_t most);

/* The pool a job runs with: `set` (OMNIBUS_EAGER_POOL) when it is not 0,
 * else po_pool_for_job(g, job, memory, least, most), else, when the budget
 * is too small for even that, `least`, with *short_of_memory (when not
 * NULL) set: the library says so once; the plan reports the bound it
 * leads to.  The
 * library and omnibus-plan both call this, so their pools agree. */
uint64_t po_pool_in_force(const rt_grid *g, const fl_params *job, uint64_t set,
                          uint64_t memory, uint64_t least, uint64_t most,
                          int *short_of_memory);

#endif
