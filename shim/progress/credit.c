#include "shim/progress/credit.h"
#include "shim/transport/transport.h"
#include "router/flow.h"
#include <stdlib.h>

int credit_init(void)
{
    omni.window = (uint32_t)fl_window(omni.cfg.eager_pool, omni.size);
    omni.credit = malloc(sizeof *omni.credit * (size_t)omni.size);
    omni.owed = calloc((size_t)omni.size, sizeof *omni.owed);
    if (!omni.credit || !omni.owed)
        return -1;
    for (int r = 0; r < omni.size; r++)
        omni.credit[r] = omni.window;
    omni.credit[omni.rank] = UINT32_MAX;
    return 0;
}

void credit_finalize(void)
{
    free(omni.credit);
    free(omni.owed);
    omni.credit = omni.owed = NULL;
}

void credit_return(uint32_t src)
{
    if ((int)src == omni.rank) {
        omni.credit[src] += omni.owed[src];
        omni.owed[src] = 0;
        return;
    }
    rt_item_hdr h = {.dst = src, .src = (uint32_t)omni.rank, .comm = 0,
                     .tag = 0, .len = 0,
                     .meta = rt_meta(RT_CREDIT, omni.owed[src])};
    omni.owed[src] = 0;
    rt_hdr_write(transport_reserve((int)src, RT_HDR_SIZE), &h);
    omni.stats.acks_sent++;
    /* The sender may be sending by rendezvous for want of it: it goes this
     * round, not at the next flush. */
    transport_push_soon((int)src);
}
