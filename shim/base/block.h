/* block: a block of bytes, the unit the transport carries and the free
 * lists hold.
 *
 * A block is a peer's fill buffer, a wire message in flight, or an arrived
 * wire message whose items the matching engine still points into.  Fill
 * buffers and wire receives have capacity omni.job.block_cap (cls < 0); a
 * partly filled buffer is cut, when it ships, to a block of the smallest
 * power-of-two class that holds it (cls = log2 of its capacity), so that
 * what is in flight costs at most about twice its content (router/flow.h).
 * Each class has its own free list.  `refs` counts the unexpected records
 * that point into an arrived block (a run's record counts once for all its
 * messages: shim/match/match.h); the block returns to its free list when it
 * drops to zero and parsing is done.
 */
#ifndef OMNIBUS_BLOCK_H
#define OMNIBUS_BLOCK_H

#include <stddef.h>

typedef struct omni_block {
    struct omni_block *next;
    int refs;
    int cls;
    size_t len;
    int from;   /* the world rank an arrived wire block came from; -1 for
                   any other block */
    char data[];
} omni_block;

#define OMNI_BLOCK_CLASSES 32

#endif
