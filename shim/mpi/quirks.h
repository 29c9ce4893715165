/* quirks: what Omnibus does differently from the obvious because of MPICH
 * 4.0.2 (Debian 12's MPICH), in one place.
 *
 * Each entry says what MPICH does, what Omnibus does instead, and the
 * regression tests (tests/mpi/) that pin it; the code carries the quirk's
 * number where it works round it.  The workarounds are correct under any
 * MPI, so they stay on for every family: they cost nothing on the paths a
 * message takes.  A quirk that a later MPICH fixes stays listed until the
 * oldest MPICH Omnibus supports has the fix.
 *
 *  Q1  MPI_Testall decides per batch of 64 requests whether all are plain,
 *      but applies the last batch's answer to the whole array when
 *      statuses are ignored, and a generalized request in an earlier
 *      batch then fails an assertion: prog_testall (progress.c) passes a
 *      real status array.  mixed_request_arrays_large (100 requests,
 *      MPI_STATUSES_IGNORE, an MPI_Issend among them).
 *  Q2  MPI_Testall reports MPI_ERR_IN_STATUS for a completed persistent
 *      collective request, where MPI_Waitall succeeds: Omnibus's Waitall
 *      never stands in a Testall for MPICH's Waitall (mpich_waitall in engine/request.c,
 *      prog_waitall_done in progress.h); a program that meets the false
 *      error and completes its requests with MPI_Waitall then finalizes
 *      cleanly.  completion_calls_agree, persistent_coll_any_order
 *      (waitall, waitall+p2p), testall_persistent_colls.
 *  Q3  For the same reason, a persistent neighbourhood collective that
 *      MPICH runs is kept as Omnibus's own persistent request, each start
 *      MPICH's nonblocking form (ops/nbr_plain.h).  neighbor_collectives,
 *      persistent_coll_any_order.
 *  Q4  A repeated source's receives of a neighbourhood alltoall are posted
 *      in reverse list order; Omnibus's schedule fills them the same way
 *      (ops/nbr_exec.h, `reversed`).  neighbor_collectives.
 *  Q5  MPI_Pack and MPI_Unpack refuse a NULL buffer, so MPI_BOTTOM with
 *      absolute addresses goes through dtype_pack and dtype_unpack
 *      (base/dtype.h).  bottom_absolute_addresses.
 *  Q6  A floating-point MPI_Scan may run another algorithm than Omnibus's
 *      on a hierarchical communicator, so Omnibus runs only the prefixes
 *      that are exact in any order (ops/coll.c, scan_ours).
 *      small_collectives.
 * MPICH 4.0.2's own departures that Omnibus does not copy (an unset
 * Isendrecv status, a lost Isendrecv receive error, neighbourhood
 * truncation unreported) are accepted only without Omnibus by isendrecv,
 * waitall_reports_every_error and neighbor_truncation.
 */
#ifndef OMNIBUS_MPI_QUIRKS_H
#define OMNIBUS_MPI_QUIRKS_H

/* Q1: the requests MPICH 4.0.2's MPI_Testall judges at a time. */
#define MPI_QUIRK_TESTALL_BATCH 64

#endif
