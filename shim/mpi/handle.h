/* handle: how Omnibus's own MPI_Request and MPI_Message values are made
 * and recognised, and what keys a communicator in Omnibus's tables.
 *
 * Omnibus hands the program request and message handles for operations it
 * runs itself (base/handles.h numbers them 1 .. 2^26 - 1).  Every
 * completion call must tell them from the MPI library's own handles with
 * one compare, so each family maps a number to a handle no object of the
 * library can ever have:
 *  - MPICH: the number itself.  MPICH never issues a valid handle whose
 *    two top bits are 00, and its null handles have some of the four
 *    object-kind bits below (29..26) set, so no MPICH handle is below 2^26.
 *  - Open MPI (handles are pointers): the address `number` bytes into a
 *    range of 2^26 bytes that Omnibus owns and makes inaccessible at
 *    start-up (omni_handles_reserve): no object of Open MPI can live there,
 *    and a stray dereference by Open MPI faults at once instead of reading
 *    garbage.
 * omni_request_bits and omni_message_bits give back the number for one of
 * Omnibus's handles, and a value of 2^26 or more (in a full-width
 * unsigned, never truncated) for any other handle.
 *
 * Communicators: Omnibus's table of managed communicators is keyed on the
 * handle itself, omni_key wide (32 bits for MPICH's integers, a pointer's
 * width for Open MPI's addresses).
 */
#ifndef OMNIBUS_MPI_HANDLE_H
#define OMNIBUS_MPI_HANDLE_H

#include "shim/mpi/family.h"
#include <stdint.h>

/* The span of numbers a handle of Omnibus's can carry. */
#define OMNI_HANDLE_SPAN (1u << 26)

#ifdef OMNI_FAMILY_MPICH

typedef uint32_t omni_key;

static inline omni_key omni_comm_key(MPI_Comm c) { return (omni_key)c; }

static inline uintptr_t omni_request_bits(MPI_Request r)
{
    return (uintptr_t)(uint32_t)r;
}
static inline MPI_Request omni_request_of(uintptr_t bits)
{
    return (MPI_Request)bits;
}
static inline uintptr_t omni_message_bits(MPI_Message m)
{
    return (uintptr_t)(uint32_t)m;
}
static inline MPI_Message omni_message_of(uintptr_t bits)
{
    return (MPI_Message)bits;
}
/* Nothing to reserve: MPICH's handles are never in the span. */
static inline int omni_handles_reserve(void) { return 0; }

#else /* pointer handles */

typedef uintptr_t omni_key;

static inline omni_key omni_comm_key(MPI_Comm c) { return (omni_key)c; }

/* The reserved range: part of Omnibus's own image (so its address is a
 * link-time constant, one instruction away), never read or written. */
extern char omni_handle_space[];

static inline uintptr_t omni_request_bits(MPI_Request r)
{
    return (uintptr_t)r - (uintptr_t)omni_handle_space;
}
static inline MPI_Request omni_request_of(uintptr_t bits)
{
    return (MPI_Request)(void *)(omni_handle_space + bits);
}
static inline uintptr_t omni_message_bits(MPI_Message m)
{
    return (uintptr_t)m - (uintptr_t)omni_handle_space;
}
static inline MPI_Message omni_message_of(uintptr_t bits)
{
    return (MPI_Message)(void *)(omni_handle_space + bits);
}
/* Makes the range inaccessible (MPI_Init); 0, or -1 if mprotect failed. */
int omni_handles_reserve(void);

#endif

#endif
