/* table: a map from omni_key keys (mpi/handle.h) to pointers (open addressing, linear
 * probing, backward-shift deletion so no tombstones accumulate when
 * communicators are created and freed by the thousand).  Owns only its slot
 * array; the values belong to the caller. */
#ifndef OMNIBUS_TABLE_H
#define OMNIBUS_TABLE_H

#include "shim/mpi/handle.h"
#include <stddef.h>

typedef struct {
    omni_key key;
    void *value;   /* NULL marks an empty slot */
} table_slot;

typedef struct {
    table_slot *slots;
    size_t cap;    /* power of two */
    size_t used;
} table_map;

int table_init(table_map *t);
void table_destroy(table_map *t);
void *table_get(const table_map *t, omni_key key);
/* 0 on success, -1 when out of memory; replaces an existing key. */
int table_put(table_map *t, omni_key key, void *value);
void *table_remove(table_map *t, omni_key key);

#endif
