/* sent: the items this rank injected for each destination
 * (omni.eng.sent_to), which the statistics file and the finalize's
 * quiescence count.
 *
 * Contract.  The count of world rank r is omni.eng.sent_to[r] plus 2^32
 * for each time r appears in omni.eng.sent_wraps: four bytes per job rank,
 * exact for any run (stats.c adds the wraps back).
 */
#ifndef OMNIBUS_SENT_H
#define OMNIBUS_SENT_H

#include "shim/base/state.h"

/* Lists dst in omni.eng.sent_wraps (send.c). */
void sent_wrapped(int dst);

/* One item injected for world rank dst. */
static inline void sent_count(int dst)
{
    if (__builtin_expect(++omni.eng.sent_to[dst] == 0, 0))
        sent_wrapped(dst);
}

#endif
