/* ring: a single-producer, single-consumer ring of byte records in memory
 * that two processes share (blocks between ranks of one node,
 * shim/transport/shm.h; docs/design/transport.md, Node rings).  No MPI
 * here; tests/unit/test_ring.c.
 *
 * The shared region (rg_region_bytes(cap)) holds the consumer's position
 * on a cache line of its own, then `cap` data bytes (a power of two).
 * Positions count bytes since the ring was formatted and never wrap.  A
 * record is an 8-byte header word and the payload, padded to 8 bytes; a
 * record never straddles the end of the data area: when it would, a SKIP
 * word stands where it would have started and it starts at offset 0.  A
 * record that fits one cache line (a lone small message) takes a whole
 * one: it starts a line, after a PAD word where it would have started if
 * the position was inside one (rg_record_bytes says why).
 *
 * Publication is in the records, not in a shared producer position: the
 * header word at the consumer's position is 0 until the record there is
 * published, and the producer publishes a record by storing its header
 * (or the SKIP before it) with release, after it has zeroed the header
 * word of the record that will follow.  So the consumer reads one line to
 * learn of a record and its first bytes together, where a shared tail
 * made it two (the tail's line, then the record's), and a lone message
 * between two cores costs one line transfer instead of two.
 *
 * Contract: exactly one process produces and one consumes.
 *  - rg_put copies a whole record in and publishes it (release), or, when
 *    the ring has no room for it, writes nothing and returns 0: it never
 *    waits.  A record of up to rg_max_record(cap) bytes always fits an
 *    empty ring.
 *  - rg_reserve is rg_put in two steps, for a producer that builds the
 *    payload in place: it returns the room for a payload of `len` bytes
 *    (NULL when there is none, as rg_put), and rg_commit(len), with the
 *    same len, publishes it.  Until then the consumer sees nothing of it;
 *    a producer that does not commit just reserves again, or puts, later.
 *  - rg_peek shows the oldest record in place (acquire), or NULL; the
 *    payload stays valid and unchanged until rg_pop, which hands its room
 *    back to the producer.
 *  - Records come out in the order they went in, none lost or repeated.
 *  - rg_tx_soft(t, soft, soft_len) makes the producer put a record of at
 *    most soft_len bytes at offset 0 once a lap has passed `soft` bytes,
 *    when the ring has room for it there: while the consumer keeps up,
 *    such records stay within the ring's first `soft` bytes, whose cache
 *    lines stay warm; a burst it has not taken still has the whole ring.
 * The producer keeps a cached copy of the consumer's position and reads
 * the shared one again only when the cache says full, so an empty poll
 * reads one shared line and a put writes none but the record's own.
 */
#ifndef OMNIBUS_RING_H
#define OMNIBUS_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RG_LINE 64
#define RG_SKIP UINT64_MAX
#define RG_PAD (UINT64_MAX - 1)
/* A published header word: the payload's length with this bit, so that a
 * record of 0 bytes is not taken for "nothing yet". */
#define RG_PUBLISHED ((uint64_t)1 << 32)
/* Rings carry whole blocks; a block larger than this gains nothing from a
 * ring (one copy of a megabyte costs what the underlying MPI's own copy
 * does) and would make every rank hold node_size rings of twice that:
 * buffers above it go through the MPI, rings or not (shim/transport/shm.c,
 * omnibus-plan). */
#define RG_MAX_BLOCK ((size_t)1 << 20)

typedef struct {
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
    uint64_t skip;      /* bytes the last rg_reserve skips (SKIP or PAD) */
    uint64_t zlo, zhi;  /* every data byte in [zlo, zhi) is 0 (rg_commit) */
} rg_tx;

typedef struct {
    rg_shared *sh;
    uint64_t mask;
    uint64_t head;      /* oldest unconsumed byte (ours) */
    uint64_t cur;       /* bytes of the record rg_peek showed, 0 if none */
} rg_rx;

/* Bytes of a shared region with `cap` data bytes. */
static inline size_t rg_region_bytes(size_t cap)
{
    return sizeof(rg_shared) + cap;
}

/* The largest payload that always fits a ring of `cap` data bytes: at most
 * half of it, so that a SKIP before it never makes it wait for ever (the
 * SKIP, the record and the next record's header word then take at most
 * cap bytes). */
static inline size_t rg_max_record(size_t cap)
{
    return cap / 2 - 8;
}

/* Makes `mem` an empty ring; done by one side before either opens it. */
void rg_format(void *mem);
/* Views of a formatted ring; cap must be a power of two, at least 128. */
void rg_tx_open(rg_tx *t, void *mem, size_t cap);
void rg_rx_open(rg_rx *r, void *mem, size_t cap);
/* Laps end early at `soft` bytes for records of at most soft_len bytes
 * (see above); rg_tx_open sets no such bound. */
void rg_tx_soft(rg_tx *t, size_t soft, size_t soft_len);

/* A record that fits a cache line takes a whole one, starting a line, so
 * that a lone small message (8 + 32 bytes for 8 bytes of data) is one line
 * to its consumer: packed at 8 bytes, half of them straddled two lines,
 * and the consumer waited for the second line's transfer after the
 * first's.  Only the first such record after a longer one pays two lines
 * (the PAD's and its own); records one at a time then stay on lines.
 * Longer records stay packed: a stream's blocks (8 + 1,024 bytes) padded
 * to whole lines took 17 lines each instead of 16 1/8, and the stream ran
 * a few percent slower. */
static inline uint64_t rg_record_bytes(uint64_t len)
{
    uint64_t bytes = 8 + ((len + 7) & ~(uint64_t)7);
    return bytes <= RG_LINE ? RG_LINE : bytes;
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

static inline uint64_t *rg_word(char *data, uint64_t off)
{
    return (uint64_t *)(void *)(data + off);
}

/* Room for the record and for the header word after it, which rg_commit
 * zeroes: that word must not be one the consumer has yet to read.  The
 * caller may write anywhere in the record, so no byte of it counts as 0
 * any more. */
static inline void *rg_reserve(rg_tx *t, uint32_t len)
{
    uint64_t bytes = rg_record_bytes(len), cap = t->mask + 1;
    uint64_t off = t->tail & t->mask, skip = 0;
    if (off + bytes > cap || (off >= t->soft && len <= t->soft_len &&
                              rg_room(t, cap - off + bytes + 8)))
        skip = cap - off;
    else if (bytes == RG_LINE)
        skip = (RG_LINE - off) & (RG_LINE - 1);
    if (!rg_room(t, skip + bytes + 8))
        return NULL;
    t->skip = skip;
    if (t->zlo < t->tail + skip + bytes)
        t->zlo = t->tail + skip + bytes;
    if (t->zhi < t->zlo)
        t->zhi = t->zlo;
    return t->sh->data + ((off + skip) & t->mask) + 8;
}

/* Bytes past the line of the next header word that rg_commit keeps at 0. */
#define RG_ZERO_AHEAD (2 * RG_LINE)

/* Zeroes the free bytes of the RG_ZERO_AHEAD past the line that holds
 * position `next`, as far as the consumer's position last read allows.
 * Done after a small record is published, so off the path of its
 * consumer: if the next record is small too (messages one at a time), the
 * header word after it is then most likely known to be 0 already, and its
 * commit has no line to take from the consumer before the store that
 * publishes it (a store the consumer cannot see before the earlier ones).
 * After a large record the next one's following word is further away
 * than this reaches, and zeroing would only cost instructions. */
static inline void rg_zero_ahead(rg_tx *t, uint64_t next)
{
    uint64_t from = (next & ~(uint64_t)(RG_LINE - 1)) + RG_LINE;
    uint64_t to = from + RG_ZERO_AHEAD, limit = t->head_seen + t->mask + 1;
    if (t->zhi < from)
        t->zlo = t->zhi = from;
    if (to > limit)
        to = limit;
    while (t->zhi < to) {
        uint64_t off = t->zhi & t->mask, n = to - t->zhi;
        if (n > t->mask + 1 - off)
            n = t->mask + 1 - off;
        memset(t->sh->data + off, 0, n);
        t->zhi += n;
    }
}

/* Publishes the reserved record: the header word after it is 0 first,
 * known to be (zlo, zhi) or stored now, then the record's own header word,
 * or the SKIP or PAD before it, is stored with release. */
static inline void rg_commit(rg_tx *t, uint32_t len)
{
    uint64_t off = t->tail & t->mask, at = (off + t->skip) & t->mask;
    uint64_t bytes = rg_record_bytes(len), word = RG_PUBLISHED | len;
    uint64_t next = t->tail + t->skip + bytes;
    if (next < t->zlo || next + 8 > t->zhi)
        *rg_word(t->sh->data, (at + bytes) & t->mask) = 0;
    if (t->skip) {
        *rg_word(t->sh->data, at) = word;
        word = at ? RG_PAD : RG_SKIP;
    }
    __atomic_store_n(rg_word(t->sh->data, off), word, __ATOMIC_RELEASE);
    t->tail = next;
    t->skip = 0;
    if (bytes <= RG_ZERO_AHEAD)
        rg_zero_ahead(t, next);
}

/* The payload's bytes that share the line of the record's header word,
 * for the payload rg_reserve placed at `at`.  A producer writes them
 * last, next to the store that publishes the record: a consumer that waits
 * for the record reads that line over and over, and a line written early
 * in a long copy is taken back from the producer before the copy ends, to
 * be taken again by the commit.  A record of a line or two is written in
 * one go, over before a read can come (RG_LAST_LINE_FROM). */
static inline uint32_t rg_polled_bytes(const void *at)
{
    return RG_LINE - 8 - (uint32_t)(((uintptr_t)at - 8) & (RG_LINE - 1));
}
#define RG_LAST_LINE_FROM (2 * RG_LINE)

static inline int rg_put(rg_tx *t, const void *payload, uint32_t len)
{
    char *at = rg_reserve(t, len);
    if (!at)
        return 0;
    if (len > RG_LAST_LINE_FROM) {
        uint32_t first = rg_polled_bytes(at);
        memcpy(at + first, (const char *)payload + first, len - first);
        memcpy(at, payload, first);
    } else {
        memcpy(at, payload, len);
    }
    rg_commit(t, len);
    return 1;
}

/* The header word at the consumer's position, acquired: 0 while nothing
 * is published there. */
static inline uint64_t rg_head_word(rg_rx *r)
{
    return __atomic_load_n(rg_word(r->sh->data, r->head & r->mask),
                           __ATOMIC_ACQUIRE);
}

static inline const void *rg_peek(rg_rx *r, uint32_t *len)
{
    uint64_t word = rg_head_word(r);
    if (!word)
        return NULL;
    if (__builtin_expect(word >= RG_PAD, 0)) {
        /* Published after the record it skips to, so that one is there:
         * at offset 0 (SKIP) or at the next line (PAD). */
        r->head += word == RG_SKIP ? r->mask + 1 - (r->head & r->mask)
                                   : RG_LINE - (r->head & (RG_LINE - 1));
        word = *rg_word(r->sh->data, r->head & r->mask);
    }
    *len = (uint32_t)word;
    r->cur = rg_record_bytes((uint32_t)word);
    return r->sh->data + (r->head & r->mask) + 8;
}

/* Whether rg_peek would show a record now. */
static inline int rg_ready(rg_rx *r)
{
    return rg_head_word(r) != 0;
}

static inline void rg_pop(rg_rx *r)
{
    r->head += r->cur;
    r->cur = 0;
    __atomic_store_n(&r->sh->head, r->head, __ATOMIC_RELEASE);
}

#endif
