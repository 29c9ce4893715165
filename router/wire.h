/* wire: the format of a wire message, the unit Omnibus hands to the MPI
 * underneath.
 *
 * A wire message is a block of items laid back to back with no padding and no
 * block header: the receiver learns the block's length from the MPI status.
 * Every item starts with a fixed 24-byte header followed by `len` body bytes.
 * Items are FIFO within a block and blocks are FIFO per link, which is what
 * keeps MPI's non-overtaking rule across any number of hops without
 * sequence numbers (docs/design/routing.md, One route per pair).
 *
 *   dst   world rank of the final destination, fixed at the source, so an
 *         intermediate never needs to know the user's communicator
 *   src   world rank of the original sender
 *   comm  Omnibus's id of the user's communicator (equal on all its members)
 *   tag   the user's tag
 *   len   body bytes that follow the header
 *   meta  kind in the low RT_KIND_BITS bits, a kind-specific value above
 *
 * Kinds and their bodies:
 *   EAGER       the packed message itself (len = message bytes)
 *   EAGER_SYNC  as EAGER, meta value = the sender's synchronous-send id; the
 *               receiver answers with an ACK once a receive has matched it
 *   LARGE       an 8-byte message size; meta value = the tag under which the
 *               payload travels straight to dst on the payload communicator
 *               (or, for a header a receiver made for a message that came
 *               without one, router/envelope.h, the inbox key it is kept
 *               under).  With no body (len 0) it is a link's mark instead,
 *               alone in its block: meta value = how many messages the
 *               sender has sent to dst without a header so far, modulo
 *               2^28, all of which come before the blocks after it
 *   LARGE_SYNC  as LARGE for a payload sent with MPI_Issend, whose
 *               completion is the sender's proof of a matching receive, so
 *               only the program's own receive may take it (never an early
 *               one)
 *   ACK         empty; meta value = the synchronous-send id being answered
 *   CREDIT      empty; meta value = item bytes from `dst` that the
 *               receiving application consumed, returned to the window of
 *               the item's dst towards its src
 *   STALL       empty; a source ran out of its window towards dst and asks
 *               for an answer; meta value = the item bytes of the send that
 *               stalled; tag = the growth of the window it can still take
 *               (0: none), lowered by each relay it passes to what that
 *               relay can still carry (router/flow.h, fl_relay_cap)
 *   GRANT       the answer to a STALL of a destination that consumed
 *               something since its last CREDIT: meta value = the bytes
 *               given back, tag = how many of them are growth
 *   REFUSED     empty; the answer to a STALL of a destination that
 *               consumed nothing since its last CREDIT
 *   RECLAIM     empty; a destination short of window to lend asks its dst
 *               to give back grown window it does not use; meta value =
 *               the bytes asked for
 *   RELEASE     empty; a source gives back unused grown window; meta value
 *               = the bytes (the answer to a RECLAIM, or given unasked), and
 *               the relays of the route carry that much less growth.  With
 *               tag RT_RELEASE_SETTLE it gives nothing back: the source
 *               tells the relays of its route that the answer to its STALL
 *               came, with meta value bytes of growth, so each turns what it
 *               reserved for that STALL into that growth; the destination
 *               ignores it
 *   HOLD        empty; a destination whose answer to a STALL waits (it
 *               sits in a call that waits for something else) still
 *               polls: the source's wait is not silence
 *   RNDV        a message that waits in the sender's buffer for its
 *               receive: an 8-byte message size, the sender's 4-byte
 *               rendezvous id and an 8-byte address, 0 unless the receiver
 *               is to read the message there itself (a single-copy read
 *               between ranks of a node); meta value RT_RNDV_EARLY when
 *               the receiver may read it before a receive matches (a
 *               blocking standard-mode send: MPI lets it be buffered, and
 *               its sender waits until it is), else 0.  The
 *               message stays in the sender's buffer until the receiver,
 *               having matched it or read it early, answers with a CTS
 *   CTS         a 4-byte id of the receive waiting for the data, or
 *               RT_CTS_READ_DONE once the receiver has read the message
 *               itself; meta value = the sender's rendezvous id
 *   RNDV_DATA   a rendezvous message's data, sent once its CTS arrived;
 *               meta value = the receive's id from the CTS
 *
 * Kind 0, PIECES, is not an item: it heads a block the transport sends in
 * pieces (docs/design/transport.md, Blocks in pieces), as the first
 * header of the first piece, never inside a block of items.  tag = the
 * whole block's bytes, len = the bytes of it that follow in this piece,
 * meta value = how many pieces follow, each of them nothing but the
 * block's next bytes; the receiver's transport puts the block together
 * and hands it on as if it had come whole.
 *
 * Headers are read and written with memcpy: blocks are not aligned, and the
 * compiler turns fixed-size memcpy into plain moves.
 */
#ifndef OMNIBUS_WIRE_H
#define OMNIBUS_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum rt_kind {
    RT_PIECES = 0, /* not an item: the head of a block in pieces */
    RT_EAGER = 1,
    RT_EAGER_SYNC = 2,
    RT_LARGE = 3,
    RT_ACK = 4,
    RT_CREDIT = 5,
    RT_RNDV = 6,
    RT_CTS = 7,
    RT_RNDV_DATA = 8,
    RT_LARGE_SYNC = 9,
    RT_STALL = 10,
    RT_GRANT = 11,
    RT_REFUSED = 12,
    RT_RECLAIM = 13,
    RT_RELEASE = 14,
    RT_HOLD = 15,
    RT_KIND_LAST = RT_HOLD /* the highest kind: RT_KIND_BITS holds no more */
};

/* The tag of a RELEASE that settles a relayed STALL (above). */
#define RT_RELEASE_SETTLE 1

#define RT_KIND_BITS 4u
#define RT_META_MAX ((1u << (32u - RT_KIND_BITS)) - 1u)
#define RT_LARGE_BODY 8u
#define RT_RNDV_BODY 20u
#define RT_CTS_BODY 4u
#define RT_CTS_READ_DONE UINT32_MAX
#define RT_RNDV_EARLY 1u

typedef struct {
    uint32_t dst;
    uint32_t src;
    uint32_t comm;
    int32_t tag;
    uint32_t len;
    uint32_t meta;
} rt_item_hdr;

#define RT_HDR_SIZE ((uint32_t)sizeof(rt_item_hdr))

static inline uint32_t rt_meta(enum rt_kind kind, uint32_t value)
{
    return (value << RT_KIND_BITS) | (uint32_t)kind;
}

static inline enum rt_kind rt_meta_kind(uint32_t meta)
{
    return (enum rt_kind)(meta & ((1u << RT_KIND_BITS) - 1u));
}

static inline uint32_t rt_meta_value(uint32_t meta)
{
    return meta >> RT_KIND_BITS;
}

/* The PIECES header that heads a block of `len` bytes sent in pieces of at
 * most `piece` bytes (RT_HDR_SIZE < piece < len), from world rank src to
 * world rank dst: the head carries the block's first `len` field bytes
 * after it, and the meta value counts the pieces that follow, each of
 * `piece` bytes but the last. */
static inline rt_item_hdr rt_pieces_head(uint32_t dst, uint32_t src,
                                         size_t len, uint32_t piece)
{
    uint32_t first = piece - RT_HDR_SIZE;
    uint32_t rest = (uint32_t)((len - first + piece - 1) / piece);
    return (rt_item_hdr){.dst = dst, .src = src, .comm = 0,
                         .tag = (int32_t)len, .len = first,
                         .meta = rt_meta(RT_PIECES, rest)};
}

/* An item is urgent when someone waits on it: it is pushed along its whole
 * route without waiting for buffers to fill.  A rendezvous header is not:
 * nobody waits on it before its sender's next progress call (a blocking
 * sender flushes before it waits), and a flood of them must aggregate. */
static inline int rt_kind_is_urgent(enum rt_kind kind)
{
    return kind != RT_EAGER && kind != RT_RNDV;
}

/* A control item is one Omnibus makes for its own protocol and that
 * carries no message of the program: the answers of synchronous and
 * rendezvous sends (ACK, CTS) and every flow-control item.  The others
 * are, or carry, a message the program sent. */
static inline int rt_kind_is_control(enum rt_kind kind)
{
    return kind == RT_ACK || kind == RT_CREDIT || kind == RT_CTS ||
           kind >= RT_STALL;
}

/* Eager items carry their message and take their pair's window (credit);
 * every other kind is a header or control item and takes none. */
static inline int rt_kind_is_eager(enum rt_kind kind)
{
    return kind == RT_EAGER || kind == RT_EAGER_SYNC;
}

/* Field by field, each one store into the block: a header built on the
 * stack and copied whole is read back with wider loads than the stores
 * that built it, and the failed store forwarding stalled the send path for
 * most of its time (perf annotate). */
static inline void rt_hdr_write(char *at, const rt_item_hdr *h)
{
    memcpy(at + offsetof(rt_item_hdr, dst), &h->dst, sizeof h->dst);
    memcpy(at + offsetof(rt_item_hdr, src), &h->src, sizeof h->src);
    memcpy(at + offsetof(rt_item_hdr, comm), &h->comm, sizeof h->comm);
    memcpy(at + offsetof(rt_item_hdr, tag), &h->tag, sizeof h->tag);
    memcpy(at + offsetof(rt_item_hdr, len), &h->len, sizeof h->len);
    memcpy(at + offsetof(rt_item_hdr, meta), &h->meta, sizeof h->meta);
}

/* Field by field too, for the same reason: the fields are then read back
 * with loads of the size they were stored with. */
static inline void rt_hdr_read(const char *at, rt_item_hdr *h)
{
    memcpy(&h->dst, at + offsetof(rt_item_hdr, dst), sizeof h->dst);
    memcpy(&h->src, at + offsetof(rt_item_hdr, src), sizeof h->src);
    memcpy(&h->comm, at + offsetof(rt_item_hdr, comm), sizeof h->comm);
    memcpy(&h->tag, at + offsetof(rt_item_hdr, tag), sizeof h->tag);
    memcpy(&h->len, at + offsetof(rt_item_hdr, len), sizeof h->len);
    memcpy(&h->meta, at + offsetof(rt_item_hdr, meta), sizeof h->meta);
}

/* Total bytes the item at `at` occupies in its block. */
static inline uint32_t rt_item_size(const rt_item_hdr *h)
{
    return RT_HDR_SIZE + h->len;
}

/* Copies a payload into or out of a block.  Fine-grained payloads are a few
 * words: copied inline in 8-byte moves they cost a few instructions, where a
 * call to memcpy costs tens; up to RT_COPY_INLINE bytes no call is made.
 * `to` and `from` never overlap. */
#define RT_COPY_INLINE 64u
static inline void rt_copy(void *to, const void *from, size_t n)
{
    if (n > RT_COPY_INLINE) {
        memcpy(to, from, n);
        return;
    }
    char *t = to;
    const char *f = from;
    if (n >= 8) {
        /* Whole words, the last one ending at the last byte (it may overlap
         * the one before): a single move for the commonest payload. */
        size_t last = n - 8;
        for (size_t i = 0; i < last; i += 8)
            memcpy(t + i, f + i, 8);
        memcpy(t + last, f + last, 8);
        return;
    }
    if (n >= 4) {
        memcpy(t, f, 4);
        memcpy(t + n - 4, f + n - 4, 4);
        return;
    }
    for (; n > 0; n--)
        *t++ = *f++;
}

/* Checks that a block of `n` bytes is a whole sequence of items: a truncated
 * or corrupt block is refused rather than read past its end.  Returns the
 * number of items, or -1. */
long rt_block_count_items(const char *block, size_t n);

#endif
