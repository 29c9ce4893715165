/* evict: which partly filled buffer leaves when one more would exceed the
 * cap of buffers filling at once (router/flow.h, FL_FILL_CAP).  No MPI here;
 * the library's transport and the planning model (plan/) call the same two
 * functions, so the model cannot drift from the rule.  tests/unit/
 * test_evict.c.
 *
 * The buffers filling form a list threaded through an array of records:
 * the record of buffer p holds, at a fixed offset, the int that names the
 * next buffer of the list (-1 ends it).  New buffers go in at the head, so
 * the last entry is the oldest.  Before a buffer opens while `cap` are
 * filling, the oldest one other than `keep` (the buffer about to open) and
 * `self` (this rank's own: shipping it delivers in place, which may append
 * to `keep`) ships.
 */
#ifndef OMNIBUS_EVICT_H
#define OMNIBUS_EVICT_H

#include <stddef.h>

/* Whether opening another buffer while `filling` are filling must ship one
 * first. */
static inline int ev_must_make_room(int filling, int cap)
{
    return filling >= cap;
}

/* The buffer to ship: the last entry of the list from `head` that is
 * neither keep nor self, or -1 when there is none.  `link0` points at
 * buffer 0's link and consecutive records are `stride` bytes apart. */
static inline int ev_victim(const int *link0, size_t stride, int head,
                            int keep, int self)
{
    int victim = -1;
    for (int p = head; p >= 0;
         p = *(const int *)((const char *)link0 + (size_t)p * stride))
        if (p != keep && p != self)
            victim = p;
    return victim;
}

#endif
