/* envelope: a large message whose MPI envelope carries what matching
 * needs, so that it travels without a header (docs/design/transport.md,
 * Messages whose envelope is their header).  No MPI here;
 * tests/unit/test_envelope.c.
 *
 * Such a message goes straight to its receiver, its own next hop reached
 * through the MPI underneath, on the communicator the link's blocks use,
 * under a tag that holds:
 *  - a flag that no block's tag has (the top bit the MPI's tag bound
 *    leaves);
 *  - the number of blocks the sender had sent on the link before it,
 *    modulo EV_SEQ_MOD;
 *  - the Omnibus id of the program's communicator;
 *  - the program's tag.
 * A message whose communicator id or tag does not fit takes the header
 * and payload path instead.
 *
 * Order.  The receiver finds the message with a probe of any tag from its
 * sender on that communicator, which MPI answers with the oldest message
 * of that sender still unmatched: so every block sent before it has been
 * matched, by the receiver's posted wire receives, of which it has fewer
 * than EV_SEQ_MOD.  The receiver takes the message in the pair's order
 * once it has processed as many blocks of the link as the tag says
 * (ev_in_order): the difference is below EV_SEQ_MOD, so the count modulo
 * EV_SEQ_MOD is exact.  Blocks sent after it are preceded on the link by
 * a mark that says how many such messages the sender had sent so far; a
 * block behind a mark waits until the receiver has taken that many. */
#ifndef OMNIBUS_ENVELOPE_H
#define OMNIBUS_ENVELOPE_H

#include <stdint.h>

/* Blocks of a link counted modulo this, which must exceed the receives a
 * rank keeps posted for blocks (transport.c's RX_SLOTS). */
#define EV_SEQ_BITS 4u
#define EV_SEQ_MOD (1u << EV_SEQ_BITS)

/* The fewest bits for the program's tag below which the path is not
 * worth having: a tag bound of 2^15 - 1, MPI's least, leaves 6. */
#define EV_TAG_BITS_MIN 6u

/* Where each field sits in a tag, from the MPI's tag bound. */
typedef struct {
    int ok;             /* the bound leaves room for the path */
    unsigned tag_bits;  /* the program's tag: bits 0 .. tag_bits - 1 */
    unsigned comm_bits; /* the communicator id, above the tag */
    unsigned flag_bit;  /* the flag, the highest bit under the bound */
} ev_layout;

/* The layout for a tag bound of tag_ub (MPI_TAG_UB, at least 32767). */
ev_layout ev_layout_for(int tag_ub);

/* The tag of a message on the communicator with id comm and the
 * program's tag `tag`, after `blocks` blocks on the link; -1 when comm or
 * tag do not fit (the message then takes a header). */
int ev_tag(const ev_layout *l, uint32_t comm, int tag, uint32_t blocks);

/* Whether an MPI tag on the blocks' communicator is such a message's. */
static inline int ev_is_envelope(const ev_layout *l, int wire_tag)
{
    return l->ok && ((uint32_t)wire_tag >> l->flag_bit) == 1u;
}

/* The fields of such a message's tag. */
typedef struct {
    uint32_t comm;
    int tag;
    uint32_t seq; /* blocks before it on the link, modulo EV_SEQ_MOD */
} ev_fields;

ev_fields ev_fields_of(const ev_layout *l, int wire_tag);

/* Whether a message whose tag says `seq` comes next on a link of which
 * the receiver has processed `blocks_done` blocks. */
static inline int ev_in_order(uint32_t seq, uint32_t blocks_done)
{
    return seq == blocks_done % EV_SEQ_MOD;
}

#endif
