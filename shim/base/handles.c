#include "shim/base/handles.h"
#include "shim/base/fail.h"
#include <stdlib.h>
#include <string.h>

void handle_pool_init(handle_pool *p, size_t slot_size)
{
    p->chunks = NULL;
    p->nchunks = 0;
    p->slot_size = slot_size < sizeof(int) ? sizeof(int) : slot_size;
    p->free_head = -1;
}

void handle_pool_destroy(handle_pool *p)
{
    for (int i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    handle_pool_init(p, p->slot_size);
}

/* Handles stay below HANDLE_RECV_BIT, so that a pool's handles never look
 * like another pool's or like one of the underlying MPI's (handles.h). */
#define HANDLE_MAX_CHUNKS ((HANDLE_RECV_BIT - 1) / HANDLE_CHUNK)

void handle_pool_grow(handle_pool *p)
{
    if (p->nchunks >= HANDLE_MAX_CHUNKS)
        omni_out_of_memory("a handle (2^25 of one kind are alive)");
    void **chunks =
        realloc(p->chunks, sizeof *chunks * (size_t)(p->nchunks + 1));
    void *chunk = chunks ? malloc(p->slot_size * HANDLE_CHUNK) : NULL;
    if (!chunk)
        omni_out_of_memory("a handle");
    p->chunks = chunks;
    p->chunks[p->nchunks++] = chunk;
    int base = (p->nchunks - 1) * HANDLE_CHUNK;
    for (int i = HANDLE_CHUNK - 1; i >= 0; i--) {
        *(int *)handle_slot_at(p, base + i) = p->free_head;
        p->free_head = base + i;
    }
}

void *handle_new(handle_pool *p, int *handle)
{
    void *slot = handle_take(p, handle);
    memset(slot, 0, p->slot_size);
    return slot;
}
