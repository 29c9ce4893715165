#include "router/ring.h"

void rg_format(void *mem)
{
    rg_shared *sh = mem;
    *rg_word(sh->data, 0) = 0;
    __atomic_store_n(&sh->head, 0, __ATOMIC_RELEASE);
}

void rg_tx_open(rg_tx *t, void *mem, size_t cap)
{
    t->sh = mem;
    t->mask = cap - 1;
    t->soft = cap;
    t->soft_len = 0;
    t->head_seen = __atomic_load_n(&t->sh->head, __ATOMIC_ACQUIRE);
    t->tail = t->head_seen; /* a ring is empty when it is opened */
    t->skip = 0;
    t->zlo = t->zhi = t->tail;
}

void rg_tx_soft(rg_tx *t, size_t soft, size_t soft_len)
{
    t->soft = soft < t->mask + 1 ? soft : t->mask + 1;
    t->soft_len = soft_len;
}

void rg_rx_open(rg_rx *r, void *mem, size_t cap)
{
    r->sh = mem;
    r->mask = cap - 1;
    r->head = __atomic_load_n(&r->sh->head, __ATOMIC_ACQUIRE);
    r->cur = 0;
}
