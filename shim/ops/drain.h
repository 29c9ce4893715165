/* drain: the MPI calls Omnibus cannot drive are entered only once every
 * member of their communicator has reached them.
 *
 * A collective with no nonblocking form (making a communicator, opening,
 * closing, resizing or syncing a file, making, fencing or freeing a
 * window) runs inside the MPI underneath, where a rank forwards nothing.
 * Under a multi-hop grid such a rank may be the relay of an item that another
 * member still waits for before it can reach the same call: the member
 * never arrives and the job hangs, though MPI promises the item arrives
 * (tests/mpi/relay_in_opaque_collectives.c).  So before the call the
 * members meet in a barrier of the MPI underneath that Omnibus progress
 * drives: when it completes, every member has reached the call and none still
 * waits for an item that must pass through another.
 *
 * MPI may make any collective synchronizing, so the added barrier changes
 * the outcome of no correct program.  It is paid only where there are
 * relays (a grid with two or more dimensions longer than one) and only on
 * a communicator Omnibus manages, whose handle needs no MPI call to be
 * known valid: an invalid one reaches the MPI underneath untouched and gets
 * the underlying MPI's error.
 *
 * Files and windows do not name the communicator they were made on, and
 * the program may free that communicator, so the drain keeps a private
 * duplicate of it from the object's creation (where duplicating is the
 * first barrier) to its free.  Ownership: the records and duplicates
 * belong to this module; drain_finalize releases what the program never
 * freed.
 */
#ifndef OMNIBUS_DRAIN_H
#define OMNIBUS_DRAIN_H

#include <mpi.h>
#include <stdint.h>

/* The objects a record stands for; a handle is its key in its own kind. */
enum drain_kind { DRAIN_FILE, DRAIN_WIN };

/* Flushes, then meets the other members of `comm` when it is managed and
 * relays exist.  For the communicator constructors. */
void drain_comm(MPI_Comm comm);

/* Before a call that makes a file or window on `comm`: flushes, then meets
 * the other members by duplicating `comm` when it is managed and relays
 * exist.  Returns the duplicate, or MPI_COMM_NULL; drain_made takes it. */
MPI_Comm drain_before_make(MPI_Comm comm);

/* After that call: when it succeeded (rc MPI_SUCCESS) and `dup` is a
 * communicator, the object `handle` of `kind` keeps it; otherwise `dup`
 * is freed. */
void drain_made(enum drain_kind kind, uintptr_t handle, MPI_Comm dup, int rc);

/* Before a collective call on an existing file or window: flushes, then
 * meets the object's other members when it has a duplicate. */
void drain_object(enum drain_kind kind, uintptr_t handle);

/* After a successful close or free of `handle`: its duplicate is freed. */
void drain_forget(enum drain_kind kind, uintptr_t handle);

/* Frees every record and duplicate left (objects the program never freed);
 * from MPI_Finalize, before the underlying MPI's. */
void drain_finalize(void);

#endif
