#include "shim/deliver.h"
#include "shim/transport.h"
#include "shim/recv.h"
#include "shim/send.h"
#include "shim/credit.h"
#include "shim/rndv.h"
#include <string.h>

/* Every item of an arrived block is either delivered here or appended to the
 * buffer of its next hop, in block order.  Urgent items make their next hop's
 * buffer go out once the whole block has been handled, so a block's worth of
 * them still travels together. */
void deliver_block(omni_block *b)
{
    int urgent_peers[8], nurgent = 0, urgent_overflow = 0;
    b->refs++; /* held while parsing, so delivery cannot free it under us */
    for (size_t at = 0; at < b->len;) {
        rt_item_hdr h;
        rt_hdr_read(b->data + at, &h);
        const char *body = b->data + at + RT_HDR_SIZE;
        uint32_t size = rt_item_size(&h);
        if ((int)h.dst == omni.rank) {
            omni.stats.delivered++;
            switch (rt_meta_kind(h.meta)) {
            case RT_ACK:
                send_sync_acked(rt_meta_value(h.meta));
                break;
            case RT_CREDIT:
                credit_returned(h.src, rt_meta_value(h.meta));
                break;
            case RT_CTS:
                rndv_clear_to_send(rt_meta_value(h.meta), body);
                break;
            case RT_RNDV_DATA:
                recv_rndv_data(rt_meta_value(h.meta), body, h.len);
                break;
            default:
                recv_arrived(&h, body, b);
            }
        } else {
            char *to = transport_reserve((int)h.dst, size);
            memcpy(to, b->data + at, size);
            omni.stats.forwarded_items++;
            if (rt_kind_is_urgent(rt_meta_kind(h.meta))) {
                int p = omni.next_hop[h.dst];
                if (nurgent < 8)
                    urgent_peers[nurgent++] = p;
                else
                    urgent_overflow = 1;
            }
        }
        at += size;
    }
    transport_block_unref(b);
    if (urgent_overflow)
        transport_flush_all(&omni.stats.flush_urgent);
    else
        for (int i = 0; i < nurgent; i++)
            transport_ship(urgent_peers[i], &omni.stats.flush_urgent);
}
