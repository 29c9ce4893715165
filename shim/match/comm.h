/* comm: the table of communicators Omnibus manages.
 *
 * A communicator is either wholly managed (Omnibus matches all of its
 * point-to-point traffic) or wholly passed through, on every rank alike
 * (docs/semantics.md, Which communicators are managed).  Managed are
 * MPI_COMM_WORLD, MPI_COMM_SELF and
 * every intracommunicator made from a managed one by a constructor Omnibus
 * wraps; anything else (intercommunicators, communicators from constructors
 * not wrapped) is never registered, so no rank treats it as managed.
 *
 * Each record carries an id that all its members agree on (an allreduce at
 * creation), the rank translations, and the two matching queues.  A freed
 * communicator leaves the handle table at once (the MPI underneath reuses
 * handles) but stays in the id table while receives posted on it are still
 * pending.  The calls that make and free communicators are comm_calls.c's.
 */
#ifndef OMNIBUS_COMM_H
#define OMNIBUS_COMM_H

#include <mpi.h>
#include <stdint.h>
#include "shim/base/state.h"
#include "shim/base/table.h"
#include "shim/match/comm_rec.h"


/* The id of a communicator's collective shadow is its own with this bit
 * set: every member knows it without agreeing on it, and ids handed out
 * by agreement (next_comm_id) never reach it. */
#define COMM_ID_COLL_BIT 0x80000000u

int comm_table_init(void);
/* Registers MPI_COMM_WORLD (id 0) and MPI_COMM_SELF (id 1). */
int comm_register_world(void);
void comm_table_destroy(void);

/* The record of comm when it is the one last looked up, else NULL: the
 * part of comm_lookup that a wrapper's fast function (wrappers.tbl) takes. */
static inline comm_rec *comm_last(MPI_Comm comm)
{
    comm_rec *c = omni.match.last_comm;
    return c && c->handle == comm ? c : NULL;
}

/* The record of a managed communicator, or NULL (pass it through). */
static inline comm_rec *comm_lookup(MPI_Comm comm)
{
    comm_rec *c = omni.match.last_comm;
    if (c && c->handle == comm)
        return c;
    c = table_get(&omni.match.comm_by_handle, omni_comm_key(comm));
    if (c)
        omni.match.last_comm = c;
    return c;
}

/* The record an arriving item's communicator id names.  An id this rank
 * has not reached yet belongs to a communicator it is still creating (its
 * peers finished first): a placeholder keeps those items until comm_add
 * adopts them.  NULL for a communicator freed here already. */
comm_rec *comm_for_arrival_slow(uint32_t id);
static inline comm_rec *comm_for_arrival(uint32_t id)
{
    comm_rec *c = omni.match.last_arrival;
    return c && c->id == id ? c : comm_for_arrival_slow(id);
}

/* Builds the record of an intracommunicator whose members agreed on `id`
 * (comm_calls.c agrees on it), and takes every id up to `id` out of the
 * next agreement, even when it fails; -1 when out of memory. */
int comm_add(MPI_Comm comm, uint32_t id);

/* Removes comm from the table of handles and marks its record freed; the
 * record, or NULL for an unmanaged communicator.  The caller drops what
 * waits on it and releases it (comm_release_if_idle). */
comm_rec *comm_unregister(MPI_Comm comm);

/* Releases a freed record once nothing refers to it. */
void comm_release_if_idle(comm_rec *c);

/* A private record for Omnibus's own traffic among c's members, under an
 * id they agreed on: matched apart from c's, found by id only (no handle;
 * it packs and raises errors on MPI_COMM_WORLD).  NULL when out of memory. */
comm_rec *comm_add_shadow(const comm_rec *c, uint32_t id);

/* Frees a shadow record once nothing is posted on it. */
void comm_drop_shadow(comm_rec *s);

#endif
