/* quirks: the one list of what the MPI library underneath gets wrong and
 * what Omnibus does about it.
 *
 * Two kinds of entry.  A Q entry is a workaround: the library departs
 * from MPI, or does something Omnibus must match, and Omnibus does
 * something other than the obvious because of it; the code carries the
 * entry's number where it works round it.  A D entry is a departure of
 * the library that Omnibus does not copy: Omnibus keeps the standard
 * there, and the tests that check the point accept the library's
 * behaviour only without Omnibus (every test must pass without it).
 *
 * Each entry is "<id>  <library and version>: what it does.", then
 * "Omnibus: what Omnibus does.", then "Tests: the regression tests of
 * tests/mpi/ that pin it" (a name, with what it does in parentheses if
 * need be).  Code and calls stand in backquotes.  The workarounds are
 * correct under any MPI, so they stay on for every family; they cost
 * nothing on the paths a message takes.  An entry stays until the oldest
 * version of the library Omnibus supports has the fix.
 *
 * docs/semantics.md's list is generated from this comment: after a change,
 * run scripts/gen/gen-quirks --write.  scripts/gen/gen-quirks (make test)
 * fails when the docs differ, an entry lacks a part, a test it names is
 * not in tests/mpi/tests.list, or no other file of shim/ names a Q entry.
 *
 *  Q1  MPICH 4.0.2: `MPI_Testall` decides per batch of 64 requests whether
 *      all are plain sends and receives, but applies the last batch's
 *      answer to the whole array when statuses are ignored, and a
 *      generalized request in an earlier batch then fails an assertion.
 *      Omnibus: `prog_testall` (progress/progress.c) passes a real status
 *      array.
 *      Tests: mixed_request_arrays_large (100 requests,
 *      `MPI_STATUSES_IGNORE`, an `MPI_Issend` among them).
 *  Q2  MPICH 4.0.2: `MPI_Testall` reports `MPI_ERR_IN_STATUS` for a
 *      completed persistent collective request, where `MPI_Waitall`
 *      succeeds.
 *      Omnibus: its `MPI_Waitall` never stands in a Testall for MPICH's
 *      Waitall (`under_waitall` in engine/request.c, `prog_waitall_done`
 *      in progress/progress.h); a program that meets the false error and
 *      completes its requests with `MPI_Waitall` then finalizes cleanly.
 *      Tests: completion_calls_agree, persistent_coll_any_order (waitall,
 *      waitall+p2p), testall_persistent_colls.
 *  Q3  MPICH 4.0.2: `MPI_Testall` fails on an array holding an active
 *      persistent collective request and any other request.
 *      Omnibus: a persistent neighbourhood collective that MPICH runs
 *      (under `plain`) is Omnibus's own persistent request, each start
 *      MPICH's nonblocking form (ops/nbr_plain.h).
 *      Tests: neighbor_collectives, persistent_coll_any_order.
 *  Q4  MPICH 4.0.2: a repeated source's receives of a neighbourhood
 *      alltoall are posted in reverse list order.
 *      Omnibus: its schedule fills them the same way (ops/nbr_exec.h,
 *      `reversed`).
 *      Tests: neighbor_collectives.
 *  Q5  MPICH 4.0.2: `MPI_Pack` and `MPI_Unpack` refuse a NULL buffer.
 *      Omnibus: `MPI_BOTTOM` with absolute addresses goes through
 *      `dtype_pack` and `dtype_unpack` (base/dtype.h).
 *      Tests: bottom_absolute_addresses.
 *  Q6  MPICH 4.0.2: a floating-point `MPI_Scan` may run another algorithm
 *      than Omnibus's on a hierarchical communicator.
 *      Omnibus: runs only the prefixes that are exact in any order
 *      (ops/coll.c, `scan_ours`).
 *      Tests: small_collectives.
 *  Q7  MPICH 4.0.2: an error returned by a generalized request's query
 *      function surfaces through `MPI_Waitall` as class `MPI_ERR_OTHER`
 *      on no communicator.
 *      Omnibus: its query functions always succeed and record the error
 *      in a ledger (progress/greq.h); the completion calls put it in the
 *      right status and raise it through the receive's communicator.
 *      Tests: waitall_reports_every_error, neighbor_truncation.
 *  Q8  Open MPI 4.1: `MPI_Ialltoallv` posts a send for every positive
 *      send count and a receive for every positive receive count,
 *      whatever the datatype's size, so a rank that receives 1 element of
 *      an empty datatype from a rank that sends it 0 `MPI_INT` waits for a
 *      message that never comes: the call never completes, where the
 *      blocking `MPI_Alltoallv` does.  `MPI_Ialltoallw` does the same on
 *      an intercommunicator, where `MPI_Alltoallw` completes.
 *      Omnibus: runs both blocking calls as their nonblocking forms with
 *      every positive count of an empty datatype passed as 0
 *      (ops/alltoallv.h), so that a send is posted where a receive is.
 *      Tests: alltoallvw_empty_pieces_complete.
 *  D1  MPICH 4.0.2: leaves the status of an `MPI_Isendrecv` request unset.
 *      Omnibus: fills it with the receive's status.
 *      Tests: isendrecv.
 *  D2  MPICH 4.0.2: loses the receive error of an `MPI_Isendrecv` (its
 *      `MPI_Waitall` returns `MPI_SUCCESS`).
 *      Omnibus: reports it (Q7's ledger).
 *      Tests: waitall_reports_every_error.
 *  D3  MPICH 4.0.2: reports no truncation in neighbourhood collectives
 *      (every call returns `MPI_SUCCESS`).
 *      Omnibus: reports `MPI_ERR_TRUNCATE` under `combine` and `grid`;
 *      under `plain` MPICH runs them, and it goes unreported.
 *      Tests: neighbor_truncation.
 *  D4  MPICH 4.0.2: `MPI_Neighbor_alltoallw` and `MPI_Ineighbor_alltoallw`
 *      with `int` counts convert the send counts with the in-degree and
 *      the receive counts with the out-degree, so where a rank's degrees
 *      differ they send garbage counts.
 *      Omnibus: follows the standard under `combine` and `grid`.
 *      Tests: neighbor_collectives (the large-count forms on such ranks,
 *      so that it checks MPI, not the bug).
 */
#ifndef OMNIBUS_MPI_QUIRKS_H
#define OMNIBUS_MPI_QUIRKS_H

/* Q1: the requests MPICH 4.0.2's MPI_Testall judges at a time. */
#define OMNI_QUIRK_TESTALL_BATCH 64

#endif
