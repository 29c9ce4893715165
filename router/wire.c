/* wire: checks on whole blocks; the per-item accessors are inline in wire.h. */
#include "router/wire.h"

long rt_block_count_items(const char *block, size_t n)
{
    size_t at = 0;
    long items = 0;
    while (at < n) {
        rt_item_hdr h;
        if (n - at < RT_HDR_SIZE)
            return -1;
        rt_hdr_read(block + at, &h);
        if (rt_meta_kind(h.meta) < RT_EAGER ||
            rt_meta_kind(h.meta) > RT_KIND_LAST)
            return -1;
        if (h.len > n - at - RT_HDR_SIZE)
            return -1;
        at += rt_item_size(&h);
        items++;
    }
    return items;
}
