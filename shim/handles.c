#include "shim/handles.h"
#include "shim/state.h"
#include <stdlib.h>
#include <string.h>

#define HANDLE_CHUNK 256

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

static void *slot_at(const handle_pool *p, int index)
{
    return (char *)p->chunks[index / HANDLE_CHUNK] +
           (size_t)(index % HANDLE_CHUNK) * p->slot_size;
}

/* Handles stay below HANDLE_RECV_BIT, so that a pool's handles never look
 * like another pool's or like one of MPICH's (handles.h). */
#define HANDLE_MAX_CHUNKS ((HANDLE_RECV_BIT - 1) / HANDLE_CHUNK)

static void pool_grow(handle_pool *p)
{
    if (p->nchunks >= HANDLE_MAX_CHUNKS)
        omni_out_of_memory("a handle (2^25 of one kind are alive)");
    void **chunks = realloc(p->chunks, sizeof *chunks * (size_t)(p->nchunks + 1));
    void *chunk = chunks ? malloc(p->slot_size * HANDLE_CHUNK) : NULL;
    if (!chunk)
        omni_out_of_memory("a handle");
    p->chunks = chunks;
    p->chunks[p->nchunks++] = chunk;
    int base = (p->nchunks - 1) * HANDLE_CHUNK;
    for (int i = HANDLE_CHUNK - 1; i >= 0; i--) {
        *(int *)slot_at(p, base + i) = p->free_head;
        p->free_head = base + i;
    }
}

void *handle_new(handle_pool *p, int *handle)
{
    if (p->free_head < 0)
        pool_grow(p);
    int index = p->free_head;
    void *slot = slot_at(p, index);
    p->free_head = *(int *)slot;
    memset(slot, 0, p->slot_size);
    *handle = index + 1;
    return slot;
}

void *handle_get(const handle_pool *p, int handle)
{
    int index = handle - 1;
    if (!handle_is_omni(handle) || index >= p->nchunks * HANDLE_CHUNK)
        return NULL;
    return slot_at(p, index);
}

void handle_release(handle_pool *p, int handle)
{
    void *slot = handle_get(p, handle);
    if (!slot)
        return;
    *(int *)slot = p->free_head;
    p->free_head = handle - 1;
}
