/* job.c: a job's totals from some of its ranks (job.h). */
#include "plan/job.h"

#include <stdlib.h>
#include <string.h>

static int ranks_alike(const pl_pattern *pat)
{
    return pat->kind == PL_UNIFORM || pat->kind == PL_ALLTOALL;
}

/* One simulated rank's figures into the job's, scaled to the ranks it
 * stands for. */
static void add_rank(pl_job *j, const pl_sim_result *r, double scale)
{
    j->forwarded += (r->appended - r->own) * scale;
    j->wire += r->blocks * scale;
    j->off_node += r->blocks_off_node * scale;
    for (int d = 0; d < RT_MAX_DIMS; d++) {
        j->wire_dim[d] += r->blocks_dim[d] * scale;
        j->items_dim[d] += r->items_dim[d] * scale;
    }
    j->full += r->full * scale;
    j->cap += r->cap * scale;
    j->idle += r->idle * scale;
    j->end += r->end * scale;
    j->urgent += r->urgent * scale;
    j->stalls += r->stalls * scale;
    j->grants += r->grants * scale;
    if (r->window_max > j->window_max)
        j->window_max = r->window_max;
    j->appended += r->appended * scale;
    if (r->peak_bytes > j->peak)
        j->peak = r->peak_bytes;
    if (r->peak_fill_bytes > j->peak_fill)
        j->peak_fill = r->peak_fill_bytes;
}

int pl_job_predict(const rt_grid *g, const pl_pattern *pat,
                   const pl_layout *nodes, const pl_sim_params *sp,
                   pl_job *j)
{
    memset(j, 0, sizeof *j);
    int P = g->nranks;
    j->nsim = P <= PL_EACH_MAX ? P : ranks_alike(pat) ? 1 : PL_EACH_MAX;
    /* One rank from each of nsim equal stretches, at an offset that
     * varies from stretch to stretch: evenly spaced ranks would fall on
     * the same coordinates of a grid whose strides divide the spacing. */
    uint64_t mix = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < j->nsim && j->nsim > 1; k++) {
        int64_t lo = (int64_t)k * P / j->nsim;
        int64_t hi = (int64_t)(k + 1) * P / j->nsim;
        mix = mix * 6364136223846793005ULL + 1442695040888963407ULL;
        j->sim_rank[k] = P <= PL_EACH_MAX
                             ? k
                             : (int)(lo + (int64_t)((mix >> 33) %
                                                    (uint64_t)(hi - lo)));
    }
    double scale = (double)P / j->nsim;
    pl_traffic *ts = calloc((size_t)j->nsim, sizeof *ts);
    if (!ts)
        return -1;
    int rc = pl_traffic_of_ranks(g, pat, nodes, j->nsim, j->sim_rank, ts);
    for (int k = 0; rc == 0 && k < j->nsim; k++) {
        const pl_traffic *t = &ts[k];
        pl_sim_params p = *sp;
        p.seed = 0x9e3779b97f4a7c15ULL + (uint64_t)t->me * 7919;
        pl_sim_result r;
        if (pl_sim_rank(t, &p, &r) != 0) {
            rc = -1;
            break;
        }
        if (k == 0) {
            j->npeers = t->npeers;
            j->exact = t->exact;
            double senders = t->senders * P * (double)sp->n;
            for (int a = 0; a <= g->ndims; a++)
                j->hops[a] = t->hops[a] * senders;
            j->sends = senders;
        }
        j->sim_npeers[k] = t->npeers;
        add_rank(j, &r, scale);
    }
    for (int k = 0; k < j->nsim; k++)
        pl_traffic_free(&ts[k]);
    free(ts);
    return rc;
}
