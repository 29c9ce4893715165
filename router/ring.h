/* ring: a single-producer, single-consumer ring of byte records in memory
 * that two processes share (blocks between ranks of one node,
 * shim/transport/shm.h; docs/design/transport.md, Node rings).  No MPI
 * here; tests/unit/test_ring.c.
 *
 * The shared region (rg_region_bytes(cap)) holds the producer's position,
 * the consumer's position, each on its own cache line, then `cap` data
 * bytes (a power of two).  Positions count bytes since the ring was
 * formatted and never wrap.  A record is an 8-byte length word and the
 * payload, padded to 8 bytes; a record never straddles the end of the data
 * area: when it would, the producer writes a SKIP word there and starts the
 * record at offset 0.
 *
 * Contract: exactly one process produces and one consumes.
 *  - rg_put copies a whole record in and publishes it (release), or, when
 *    the ring has no room for it, writes nothing and returns 0: it never
 *    waits.  A record of up to rg_max_record(cap) bytes always fits an
 *    empty ring.
 *  - rg_reserve is rg_put in two steps, for a producer that builds the
 *    payload in place: it returns the room for a payload of `len` bytes
 *    (NULL when there is none, as rg_put), and rg_commit(len) publishes
 *    it.  Until then the consumer sees nothing of it; a producer that
 *    does not commit just reserves again, or puts, later.
 *  - rg_peek shows the oldest record in place (acquire), or NULL; the
 *    payload stays valid and unchanged until rg_pop, which hands its room
 *    back to the producer.
 *  - Records come out in the order they went in, none lost or repeated.
 *  - rg_tx_soft(t, soft, soft_len) makes the producer put a record of at
 *    most soft_len bytes at offset 0 once a lap has passed `soft` bytes,
 *    when the ring has room for it there: while the consumer keeps up,
 *    such records stay within the ring's first `soft` bytes, whose cache
 *    lines stay warm; a burst it has not taken still has the whole ring.
 * Each side keeps its own position and a cached copy of the other's, and
 * reads the shared one again only when the cache says full (producer) or
 * empty (consumer), so an empty poll reads one shared line.
 */
#ifndef OMNIBUS_RING_H
#define OMNIBUS_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RG_LINE 64
#define RG_SKIP UINT64_MAX

typedef struct {
    _Alignas(RG_LINE) uint64_t tail; /* written by the producer only */
    _Alignas(RG_LINE) uint64_t head; /* written by the consumer only */
    _Alignas(RG_LINE) char data[];
} rg_shared;

typedef struct {
    rg_shared *sh;
    uint64_t mask;      /* cap - 1 */
    uint64_t soft;      /* offset from which a lap ends early (rg_tx_soft) */
    uint64_t soft_len;  /* ... before a record of at most this many bytes */
    uint64_t tail;      /* next free byte (ours) */
    uint64_t head_seen; /* the consumer's position, last read */
} rg_tx;

typedef struct {
    rg_shared *sh;
    uint64_t mask;
    uint64_t head;      /* oldest unconsumed byte (ours) */
    uint64_t tail_seen; /* the producer's position, last read */
    uint64_t cur;       /* bytes of the record rg_peek showed, 0 if none */
} rg_rx;

/* Bytes of a shared region with `cap` data bytes. */
static inline size_t rg_region_bytes(size_t cap)
{
    return sizeof(rg_shared) + cap;
}

/* The largest payload that always fits a ring of `cap` data bytes: at most
 * half of it, so that a SKIP before it never makes it wait for ever. */
static inline size_t rg_max_record(size_t cap)
{
    return cap / 2 - 8;
}

/* Makes `mem` an empty ring; done by one side before either opens it. */
void rg_format(void *mem);
/* Views of a formatted ring; cap must be a power of two, at least 64. */
void rg_tx_open(rg_tx *t, void *mem, size_t cap);
void rg_rx_open(rg_rx *r, void *mem, size_t cap);
/* Laps end early at `soft` bytes for records of at most soft_len bytes
 * (see above); rg_tx_open sets no such bound. */
void rg_tx_soft(rg_tx *t, size_t soft, size_t soft_len);

static inline uint64_t rg_record_bytes(uint64_t len)
{
    return 8 + ((len + 7) & ~(uint64_t)7);
}

/* Whether `bytes` more fit the ring now. */
static inline int rg_room(rg_tx *t, uint64_t bytes)
{
    uint64_t cap = t->mask + 1;
    if (t->tail + bytes - t->head_seen <= cap)
        return 1;
    t->head_seen = __atomic_load_n(&t->sh->head, __ATOMIC_ACQUIRE);
    return t->tail + bytes - t->head_seen <= cap;
}

static inline void *rg_reserve(rg_tx *t, uint32_t len)
{
    uint64_t need = rg_record_bytes(len), cap = t->mask + 1;
    uint64_t off = t->tail & t->mask;
    uint64_t skip = off + need > cap ? cap - off : 0;
    if (!skip && off >= t->soft && len <= t->soft_len &&
        rg_room(t, cap - off + need))
        skip = cap - off;
    if (!rg_room(t, skip + need))
        return NULL;
    if (skip) {
        /* Unpublished until the record after it is: a reservation not
         * committed leaves the SKIP for the next record, which starts at
         * offset 0 as this one would have. */
        memcpy(t->sh->data + off, &(uint64_t){RG_SKIP}, 8);
        t->tail += skip;
        off = 0;
    }
    return t->sh->data + off + 8;
}

static inline void rg_commit(rg_tx *t, uint32_t len)
{
    memcpy(t->sh->data + (t->tail & t->mask), &(uint64_t){len}, 8);
    t->tail += rg_record_bytes(len);
    __atomic_store_n(&t->sh->tail, t->tail, __ATOMIC_RELEASE);
}

static inline int rg_put(rg_tx *t, const void *payload, uint32_t len)
{
    void *at = rg_reserve(t, len);
    if (!at)
        return 0;
    memcpy(at, payload, len);
    rg_commit(t, len);
    return 1;
}

static inline const void *rg_peek(rg_rx *r, uint32_t *len)
{
    if (r->head == r->tail_seen) {
        r->tail_seen = __atomic_load_n(&r->sh->tail, __ATOMIC_ACQUIRE);
        if (r->head == r->tail_seen)
            return NULL;
    }
    uint64_t off = r->head & r->mask, word;
    memcpy(&word, r->sh->data + off, 8);
    if (word == RG_SKIP) {
        /* The producer publishes a SKIP only with the record after it. */
        r->head += r->mask + 1 - off;
        off = 0;
        memcpy(&word, r->sh->data, 8);
    }
    *len = (uint32_t)word;
    r->cur = rg_record_bytes(word);
    return r->sh->data + off + 8;
}

/* Whether rg_peek would show a record now: the cached position first, the
 * shared one only when that says empty, as rg_peek reads them. */
static inline int rg_ready(rg_rx *r)
{
    if (r->head != r->tail_seen)
        return 1;
    r->tail_seen = __atomic_load_n(&r->sh->tail, __ATOMIC_ACQUIRE);
    return r->head != r->tail_seen;
}

static inline void rg_pop(rg_rx *r)
{
    r->head += r->cur;
    r->cur = 0;
    __atomic_store_n(&r->sh->head, r->head, __ATOMIC_RELEASE);
}

#endif
