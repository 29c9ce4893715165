#include "router/envelope.h"

/* Bits for the communicator id: enough for the communicators a program
 * keeps at once in most codes; more go by header. */
#define EV_COMM_BITS 7u

ev_layout ev_layout_for(int tag_ub)
{
    ev_layout l = {0, 0, 0, 0};
    unsigned bits = 0;
    while (bits < 31 && ((uint32_t)tag_ub >> bits) != 0)
        bits++;
    /* Every tag below 2^bits is within the bound only when the bound is
     * all ones below its top bit; otherwise use one bit fewer. */
    if (bits > 0 && (uint32_t)tag_ub != (1u << bits) - 1u)
        bits--;
    if (bits < 1 + EV_SEQ_BITS + EV_COMM_BITS + EV_TAG_BITS_MIN)
        return l;
    l.ok = 1;
    l.flag_bit = bits - 1;
    l.comm_bits = EV_COMM_BITS;
    l.tag_bits = bits - 1 - EV_SEQ_BITS - EV_COMM_BITS;
    return l;
}

int ev_tag(const ev_layout *l, uint32_t comm, int tag, uint32_t blocks)
{
    if (!l->ok || tag < 0 || (uint32_t)tag >> l->tag_bits ||
        comm >> l->comm_bits)
        return -1;
    uint32_t t = (uint32_t)tag;
    t |= comm << l->tag_bits;
    t |= (blocks % EV_SEQ_MOD) << (l->tag_bits + l->comm_bits);
    t |= 1u << l->flag_bit;
    return (int)t;
}

ev_fields ev_fields_of(const ev_layout *l, int wire_tag)
{
    uint32_t t = (uint32_t)wire_tag;
    ev_fields f;
    f.tag = (int)(t & ((1u << l->tag_bits) - 1u));
    f.comm = (t >> l->tag_bits) & ((1u << l->comm_bits) - 1u);
    f.seq = (t >> (l->tag_bits + l->comm_bits)) & (EV_SEQ_MOD - 1u);
    return f;
}
