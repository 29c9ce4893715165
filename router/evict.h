/* evict: the cap on partly filled buffers, and which one leaves when the
 * cap is reached.  No MPI here; the library's transport and the planning
 * model (plan/) call the same functions, so the model cannot drift from the
 * rule.  tests/unit/test_evict.c.
 *
 * The cap counts bytes: the buffers filling at once hold at most
 * cap_bytes = FL_FILL_CAP x B of room (router/flow.h), the same memory as
 * FL_FILL_CAP full buffers.  A buffer opens with the room ev_start_room
 * gives a rank of its number of next hops: all of B while FL_FILL_CAP full
 * buffers cover every next hop (so a rank of few next hops fills its
 * buffers exactly as before), otherwise the cap's share of one next hop
 * rounded down to a power of two, but never below B / EV_START_SHARE
 * (rounded up to one): the transport's block classes are powers of two.  A
 * buffer whose next item does not fit its room grows (ev_grown_room:
 * doubling, up to B) before it ships for being full.  So a rank of K next
 * hops keeps all K buffers open while each holds little, up to
 * EV_START_SHARE x FL_FILL_CAP of them, which is what lets a grid of few
 * dimensions and many next hops aggregate at 10^6 ranks
 * (docs/planning.md, The cap counts bytes).
 *
 * The buffers filling form a list (ev_list) threaded through an array of
 * records: the record of buffer p holds, at fixed offsets, the ints that
 * name the next and the previous buffer of the list (-1 ends it).  New
 * buffers go in at the head, so the tail is the oldest.  Before a buffer
 * opens or grows past the cap, the oldest one other than `keep` (the
 * buffer about to open or grow) and `self` (this rank's own: shipping it
 * delivers in place, which may append to `keep`) ships, until the room
 * fits.  Both links make every step O(1) whatever the number of buffers
 * filling: a rank of thousands of next hops ships, opens and evicts as
 * cheaply as a rank of one.
 */
#ifndef OMNIBUS_EVICT_H
#define OMNIBUS_EVICT_H

#include <stddef.h>

#include <stdint.h>

/* A buffer never opens with less than B / EV_START_SHARE of room, so at
 * most EV_START_SHARE x cap buffers fill at once (and a progress round,
 * which visits each, stays short). */
#define EV_START_SHARE 4
/* Nor with less than this many bytes. */
#define EV_ROOM_MIN 64

/* The room a buffer opens with on a rank of `npeers` next hops, under a
 * cap of `cap` full buffers of `block` bytes (see above). */
static inline uint64_t ev_start_room(uint64_t block, int npeers, int cap)
{
    if (npeers <= cap)
        return block;
    uint64_t share = block * (uint64_t)cap / (uint64_t)npeers;
    uint64_t least = block / EV_START_SHARE;
    if (least < EV_ROOM_MIN)
        least = EV_ROOM_MIN;
    uint64_t room = EV_ROOM_MIN;
    while (2 * room <= share || room < least)
        room *= 2;
    return room < block ? room : block;
}

/* The room a buffer of `room` bytes grows to so that it holds `need`:
 * doubled until it does, and never beyond `block` (a need beyond it ships
 * the buffer instead). */
static inline uint64_t ev_grown_room(uint64_t room, uint64_t need,
                                     uint64_t block)
{
    while (room < need && room < block)
        room *= 2;
    return room < block ? room : block;
}

/* Whether `add` more bytes of room, with `filling` bytes already held by
 * the buffers filling, would pass the cap of `cap_bytes`: then one ships
 * first. */
static inline int ev_must_make_room(uint64_t filling, uint64_t add,
                                    uint64_t cap_bytes)
{
    return filling + add > cap_bytes;
}

/* A list threaded through records `stride` bytes apart: the record of
 * entry i holds its next link at next0 + i * stride and its previous one
 * at prev0 + i * stride. */
typedef struct {
    int head, tail; /* newest and oldest entry, -1 when empty */
    int count;
} ev_list;

#define EV_LINK(link0, stride, i)                                              \
    (*(int *)((char *)(link0) + (size_t)(i) * (stride)))

static inline void ev_list_init(ev_list *l)
{
    l->head = l->tail = -1;
    l->count = 0;
}

/* Entry i, not on the list, goes in as the newest. */
static inline void ev_push(ev_list *l, int *next0, int *prev0, size_t stride,
                           int i)
{
    EV_LINK(next0, stride, i) = l->head;
    EV_LINK(prev0, stride, i) = -1;
    if (l->head >= 0)
        EV_LINK(prev0, stride, l->head) = i;
    else
        l->tail = i;
    l->head = i;
    l->count++;
}

/* Entry i, on the list, leaves it; its own links are left as they were
 * (ev_push sets both). */
static inline void ev_unlink(ev_list *l, int *next0, int *prev0,
                             size_t stride, int i)
{
    int next = EV_LINK(next0, stride, i), prev = EV_LINK(prev0, stride, i);
    if (prev >= 0)
        EV_LINK(next0, stride, prev) = next;
    else
        l->head = next;
    if (next >= 0)
        EV_LINK(prev0, stride, next) = prev;
    else
        l->tail = prev;
    l->count--;
}

/* The buffer to ship: the oldest entry of l that is neither keep nor self,
 * or -1 when there is none.  At most three steps from the tail. */
static inline int ev_victim(const ev_list *l, const int *prev0, size_t stride,
                            int keep, int self)
{
    for (int p = l->tail; p >= 0;
         p = *(const int *)((const char *)prev0 + (size_t)p * stride))
        if (p != keep && p != self)
            return p;
    return -1;
}

#endif
