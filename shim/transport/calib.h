/* calib: the sizes where a message above the threshold changes path
 * (omni.tx.paths, part_transport.h's OMNI_CROSSOVERS), chosen at MPI_Init
 * from what the paths cost on the machine the job runs on
 * (docs/design/transport.md, Choosing a path by measurement).
 *
 * Why the built-in values are what they are, measured on the development
 * machine (same document, Messages above the threshold, Single-copy reads):
 *  - ring_mpi_from, 128 KiB: a blocking send to a rank of the node goes
 *    alone through its ring (two copies) as far as a ring record reaches,
 *    where that beat a header and a payload of the MPI underneath, which
 *    waits for a round of Omnibus's in the middle.  Another machine's MPI
 *    was twice as fast from 16 KiB: this one is measured.
 *  - read_from, 16 KiB: below, the ring's two copies cost less than the
 *    single-copy read's round trip (a 64-send window at 8 KiB: the read
 *    at plain MPICH's rate, the ring at about twice it).
 *  - wire_alone_max, 16 KiB: above it a message apart without a header,
 *    found by the receiver's matched probe and received into the
 *    program's buffer, costs less than alone in a block with its two
 *    copies: in plain MPI over TCP loopback on an Intel Xeon VM the two
 *    tied at 16 KiB and the probe won from 32 to 128 KiB; in Omnibus on
 *    an AMD EPYC VM apart beat alone at 32 and 64 KiB.  Where the job
 *    cannot send without a header (envelopes off, or a tag bound too
 *    small for them) apart means header and payload, and alone holds to
 *    CALIB_WIRE_ALONE_WITH_HEADER.  Timed at start-up where the job
 *    talks through a network (calib_wire.c), and learned by each pair.
 *  - wire_alone_nb_max, 16 KiB: with several nonblocking sends in flight
 *    the two copies cost more than the header, and the MPI underneath
 *    moves the payloads without them.
 *  - under_wait_from, 128 KiB: where the MPI underneath's own standard
 *    send starts to wait for its receive is not known without a probe, so
 *    a blocking send waits for its receiver (single-copy read) only where
 *    it is too large for a ring record, as before the probe.
 *  - wire_piece, 0 (no block in pieces): what the MPI underneath sends at
 *    once is not known without a probe either, and a piece that waited
 *    for its receive would pay the rendezvous a piece, where the whole
 *    block paid it once.  Probed by the wire pair before it times
 *    (calib_wire.c).
 *
 * Contract: calib_paths is collective over MPI_COMM_WORLD, called once the
 * node rings exist (shm.h) and before anything is sent through them.  On
 * return every rank holds the same omni.tx.paths (compared over the job
 * before it returns: a difference ends the job): each crossover is its
 * built-in value (source PA_DEFAULT), OMNIBUS_RING_MPI_FROM's,
 * OMNIBUS_READ_FROM's, OMNIBUS_WAIT_FROM's, OMNIBUS_WIRE_ALONE_MAX's or
 * OMNIBUS_ENVELOPE_MAX's (PA_SET), or, under OMNIBUS_PATHS=measured,
 * ring_mpi_from as router/paths.h decides it from one pair of ranks per
 * node timing both paths at a few sizes, the smallest over the nodes, and
 * under_wait_from as pa_wait_from decides it from the same pair's probe of
 * the MPI underneath's sends, the largest over the nodes (PA_MEASURED;
 * PA_DEFAULT where no node had a pair or the findings were unclear), and
 * wire_alone_max one less than calib_wire_alone's crossover, and
 * wire_piece (unless pinned, by OMNIBUS_WIRE_PIECE) as its probe finds it.
 * wire_alone_nb_max follows wire_alone_max where that is smaller
 * (pa_alone_nb_max).  A node that runs more ranks than it
 * has cores (omni.job.crowded, the same on all its ranks) has no say: a round
 * trip there times the scheduler, not the path.  The timing goes through
 * the pair's rings and the MPI underneath's point-to-point calls on the
 * node communicator, and leaves both as it found them; it takes a few
 * milliseconds, and stops, the sizes left unmeasured, once it has taken
 * CALIB_BUDGET_NS (the probe and the wire timing have budgets of their
 * own).  read_from (unless pinned) and envelope_max keep their built-in
 * values so far: the bare read timed cheaper than the ring where the
 * library's own nonblocking sends ran faster through the ring
 * (transport.md). */
#ifndef OMNIBUS_CALIB_H
#define OMNIBUS_CALIB_H

#include "router/paths.h"
#include <mpi.h>

void calib_paths(void);

/* calib_wire.c, for the probes of the node pair (calib.c) and the wire
 * pair: whether the send the caller just started (*req), whose
 * receive is not posted yet, completes within CALIB_EAGER_NS (1: the MPI
 * underneath sent it at once), or still waits for its receive (0: *req
 * is left for the caller to wait on once the receiver may post it). */
int calib_sent_at_once(MPI_Request *req);

/* wire_alone_max's built-in value where messages apart carry a header:
 * up to 64 KiB a message alone in a block waited less for its two copies
 * than a header's payload waits for the header to match (a TCP ping-pong
 * on an Intel Xeon VM: 55.5 us alone, 60.6 as header and payload, at
 * 64 KiB). */
#define CALIB_WIRE_ALONE_WITH_HEADER 65536

/* calib_wire.c: whether a message apart to a rank reached through the MPI
 * underneath goes without a header in this job (shim/engine/envelope.h):
 * envelopes are not off and the MPI underneath's tag bound leaves room
 * for them.  The same on every rank. */
int calib_apart_is_bare(void);

/* calib_wire.c, for calib_paths: the size from which a blocking send to a
 * rank reached through the MPI underneath is cheaper apart (without a
 * header, or as header and payload) than alone in a block, as
 * pa_crossover finds it from world rank 0 and the first rank it reaches
 * through the MPI underneath timing both at the sizes a block holds above
 * the threshold; dflt (PA_DEFAULT) when there is no such rank, no such
 * size, either end's node is crowded, the two share a node whose MPI
 * talks through shared memory, or the timings are unclear.
 * *piece comes in as the piece in force (wire_piece) and, unless a
 * setting pinned it, goes out as pa_piece finds it from the same pair's
 * probe of the sizes the MPI underneath sends at once, before the timing
 * (PA_MEASURED), or unchanged where the pair does not time.  A block
 * alone larger than the piece is timed in pieces, as the transport sends
 * it (transport_in_pieces).  Collective over MPI_COMM_WORLD; the same on
 * every rank. */
pa_choice calib_wire_alone(int crowded, uint64_t dflt, pa_choice *piece);

#endif
