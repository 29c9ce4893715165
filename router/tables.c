#include "router/tables.h"

uint64_t tb_bytes_per_rank(int rings)
{
    uint64_t n = 0;
#define TB_ADD(name, bytes, when, entry)                                       \
    n += (when) == TB_ALWAYS || rings ? (uint64_t)(bytes) : 0;
    TB_TABLES(TB_ADD)
#undef TB_ADD
    return n;
}
