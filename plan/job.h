/* job: a whole job's predicted totals, as the statistics file sums them
 * over ranks (docs/planning.md), from the simulation of some of its ranks
 * (sim.h).
 *
 * Which ranks.  Up to PL_EACH_MAX ranks every rank is simulated and the
 * totals are their sums.  Above, under uniform traffic (uniform,
 * alltoall), rank 0 stands for every rank: exact on a complete grid, where
 * all ranks are alike.  Any other pattern (a one-way stream, a stencil, a
 * histogram) loads ranks unequally, the more so on an incomplete grid, so
 * PL_EACH_MAX ranks spread evenly over the job are simulated and their
 * sums scaled by P / PL_EACH_MAX.
 */
#ifndef OMNIBUS_PLAN_JOB_H
#define OMNIBUS_PLAN_JOB_H

#include <stdint.h>
#include "plan/model.h"
#include "plan/sim.h"

#define PL_EACH_MAX 64

typedef struct {
    double sends, forwarded, wire, wire_dim[RT_MAX_DIMS], off_node;
    double hops[RT_MAX_DIMS + 1];
    double full, cap, idle, end, appended, items_dim[RT_MAX_DIMS];
    double peak, peak_fill; /* all blocks held; the filling buffers alone */
    double fallbacks;       /* sends past their pair's window, to MPI */
    double urgent, stalls, grants, window_max; /* flow control (sim.h) */
    int npeers;             /* rank 0's */
    int exact;
    int nsim;               /* ranks simulated */
    int sim_rank[PL_EACH_MAX];
    int sim_npeers[PL_EACH_MAX];
} pl_job;

/* Predicts g's job under pat: 0, or -1 when out of memory. */
int pl_job_predict(const rt_grid *g, const pl_pattern *pat,
                   const pl_layout *nodes, const pl_sim_params *sp,
                   pl_job *j);

#endif
