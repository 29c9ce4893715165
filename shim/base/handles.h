/* handles: objects Omnibus owns that MPI hands out as handles.
 *
 * A handle's number, slot index + 1, is below 2^26; the MPI layer
 * (mpi/handle.h) turns it into an MPI_Request or MPI_Message that no object
 * of the MPI library can have, and back (its "bits").  Such a number names
 * an Omnibus object:
 *  - an MPI_Message for a message Omnibus holds (matched probes);
 *  - an MPI_Request for a persistent operation on a managed communicator,
 *    or for a large nonblocking send (engine/preq.h);
 *  - an MPI_Request for a receive on a managed communicator (request.h),
 *    with HANDLE_RECV_BIT set so that the two request pools never collide.
 * Every call that takes one of these handles is intercepted; calls that
 * take arrays of requests translate these handles (engine/preq.h) and
 * complete receive handles themselves (request.c) before the MPI underneath
 * sees them.
 */
#ifndef OMNIBUS_HANDLES_H
#define OMNIBUS_HANDLES_H

#include "shim/mpi/handle.h"
#include <stddef.h>
#include <stdint.h>

/* Each test below is one compare (the completion calls run them over
 * whole request arrays) on a handle's bits (omni_request_bits,
 * omni_message_bits): Omnibus handles are 1 .. 2^26 - 1, receive handles
 * those with bit 25 set, the rest persistent handles. */
static inline int handle_is_omni(uintptr_t bits)
{
    return bits - 1u < (uintptr_t)OMNI_HANDLE_SPAN - 1u;
}

/* Marks an Omnibus receive request; a pool never reaches 2^25 slots. */
#define HANDLE_RECV_BIT (1 << 25)

/* The one handle every small nonblocking send gets: such a send is
 * complete when it returns (its data is copied, send.h), so its request
 * carries nothing but the empty status of a completed send.  It has
 * HANDLE_RECV_BIT set and an index no pool reaches, so every completion
 * call treats it as a receive handle that is already done (request.c). */
#define HANDLE_SENT (HANDLE_RECV_BIT | (HANDLE_RECV_BIT - 1))

static inline int handle_is_recv(uintptr_t bits)
{
    return (bits >> 25) == 1u;
}

/* A pool of fixed-size slots addressed by handle; a free list threads the
 * unused ones through their first word.  Slots never move once handed out
 * (the pool grows by chunks), so pointers to them stay valid. */
typedef struct {
    void **chunks;
    int nchunks;
    size_t slot_size;
    int free_head;      /* slot index, -1 when none */
} handle_pool;

#define HANDLE_CHUNK 256

void handle_pool_init(handle_pool *p, size_t slot_size);
void handle_pool_destroy(handle_pool *p);
/* Adds a chunk of free slots; out of line, the rare half of handle_take. */
void handle_pool_grow(handle_pool *p);

static inline void *handle_slot_at(const handle_pool *p, int index)
{
    unsigned i = (unsigned)index;
    return (char *)p->chunks[i / HANDLE_CHUNK] +
           (size_t)(i % HANDLE_CHUNK) * p->slot_size;
}

/* A new slot and its handle; the slot's contents are undefined, for a
 * caller that writes all of it.  Inline, as are the two below: a receive
 * handle is taken, read and released once per message. */
static inline void *handle_take(handle_pool *p, int *handle)
{
    if (p->free_head < 0)
        handle_pool_grow(p);
    int index = p->free_head;
    void *slot = handle_slot_at(p, index);
    p->free_head = *(int *)slot;
    *handle = index + 1;
    return slot;
}

/* A new slot and its handle; the slot is zeroed. */
void *handle_new(handle_pool *p, int *handle);

/* The slot a handle's bits name, or NULL for a value no slot of this pool
 * ever had. */
static inline void *handle_get(const handle_pool *p, uintptr_t bits)
{
    if (!handle_is_omni(bits) ||
        bits - 1u >= (uintptr_t)p->nchunks * HANDLE_CHUNK)
        return NULL;
    return handle_slot_at(p, (int)(bits - 1u));
}

/* Releases the slot of a handle its caller has already looked up: slot
 * is handle_get(p, handle), not NULL. */
static inline void handle_release_slot(handle_pool *p, void *slot, int handle)
{
    *(int *)slot = p->free_head;
    p->free_head = handle - 1;
}

static inline void handle_release(handle_pool *p, uintptr_t bits)
{
    void *slot = handle_get(p, bits);
    if (slot)
        handle_release_slot(p, slot, (int)bits);
}

#endif
