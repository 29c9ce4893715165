#include "shim/base/table.h"
#include <stdlib.h>

static size_t table_home(const table_map *t, omni_key key)
{
    return (size_t)((key * 2654435769u) >> 7) & (t->cap - 1);
}

int table_init(table_map *t)
{
    t->cap = 64;
    t->used = 0;
    t->slots = calloc(t->cap, sizeof *t->slots);
    return t->slots ? 0 : -1;
}

void table_destroy(table_map *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

void *table_get(const table_map *t, omni_key key)
{
    for (size_t i = table_home(t, key);; i = (i + 1) & (t->cap - 1)) {
        const table_slot *s = &t->slots[i];
        if (!s->value)
            return NULL;
        if (s->key == key)
            return s->value;
    }
}

static int table_grow(table_map *t)
{
    table_map bigger = {calloc(t->cap * 2, sizeof(table_slot)), t->cap * 2, 0};
    if (!bigger.slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].value)
            table_put(&bigger, t->slots[i].key, t->slots[i].value);
    free(t->slots);
    *t = bigger;
    return 0;
}

int table_put(table_map *t, omni_key key, void *value)
{
    if ((t->used + 1) * 2 > t->cap && table_grow(t) != 0)
        return -1;
    for (size_t i = table_home(t, key);; i = (i + 1) & (t->cap - 1)) {
        table_slot *s = &t->slots[i];
        if (!s->value) {
            s->key = key;
            s->value = value;
            t->used++;
            return 0;
        }
        if (s->key == key) {
            s->value = value;
            return 0;
        }
    }
}

void *table_remove(table_map *t, omni_key key)
{
    size_t mask = t->cap - 1, i = table_home(t, key);
    while (t->slots[i].value && t->slots[i].key != key)
        i = (i + 1) & mask;
    void *value = t->slots[i].value;
    if (!value)
        return NULL;
    /* Backward-shift: pull later members of the probe run into the hole so
     * that every key stays reachable from its home slot. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; t->slots[j].value; j = (j + 1) & mask) {
        size_t home = table_home(t, t->slots[j].key);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    t->slots[hole].value = NULL;
    t->used--;
    return value;
}
