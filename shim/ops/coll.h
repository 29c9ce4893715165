/* coll: small blocking collectives run as Omnibus messages
 * (MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Scan,
 * MPI_Exscan, MPI_Reduce_scatter(_block), MPI_Gather, MPI_Scatter,
 * MPI_Allgather, MPI_Allgatherv, MPI_Alltoall).
 *
 * Why: a rank inside a blocking collective must keep forwarding for
 * others (docs/design/progress.md), so Omnibus cannot call the underlying
 * MPI's blocking form, and a blocking call never matches a nonblocking one, so
 * it cannot switch to it alone either (docs/design/decisions.md, Blocking
 * collectives never call the underlying MPI's blocking form).  Run as the
 * underlying MPI's nonblocking form plus progress, a small collective costs
 * what that form costs, which for small data is far more than the blocking one
 * (docs/design/collectives.md).  Omnibus's own transport carries one small
 * message between ranks of a node in about 0.15 µs, so it runs these
 * collectives itself.
 *
 * Contract:
 *  - Which calls: on a managed intracommunicator, under a one-hop topology
 *    (rt_grid_one_hop: direct, what auto is on one node, or nodes x 1
 *    rank), unless OMNIBUS_COLLECTIVES=mpi,
 *    MPI_Barrier; MPI_Bcast, MPI_Gather, MPI_Scatter, MPI_Allgather and
 *    MPI_Alltoall (not in place) whose piece per member is at most
 *    omni.job.threshold bytes; MPI_Allgatherv whose every piece is (every
 *    member has every count); MPI_Allreduce and MPI_Reduce with a predefined
 *    operation on a predefined, contiguous datatype it is valid for, with
 *    at most omni.job.threshold bytes of data; MPI_Scan, MPI_Exscan and
 *    MPI_Reduce_scatter(_block) (per block) as those, on datatypes whose
 *    reductions are exact in any order (not floating point).  Every
 *    other call is the underlying MPI's nonblocking form plus Omnibus
 *    progress.  The choice reads only what MPI requires to be the same on
 *    every member (the communicator and root; the byte count of a member's
 *    piece, which equal type signatures give; for a predefined operation the
 *    operation, datatype and count: MPI-4.1 §6.9.1), plus buffer
 *    arguments that only an erroneous call gets wrong, so in a correct
 *    program every member takes the same path and a collective Omnibus
 *    runs never waits for one that the MPI underneath runs.
 *  - Traffic goes on a private shadow record of the communicator (comm.h),
 *    whose id is the communicator's with COMM_ID_COLL_BIT set, so every
 *    member knows it without agreeing on it, and no receive or probe of the
 *    program, wildcards included, sees it.  Messages between two members
 *    arrive in the order they were sent (one route per pair, FIFO at every
 *    hop) and the members call collectives in the same order, so one tag
 *    per kind of collective is enough to match them.
 *  - Why one hop only: over a grid a collective's message would wait at a
 *    relay that the program keeps outside MPI (a rank that left the barrier
 *    and computes, or sleeps), which the underlying MPI's own collectives
 *    never do; measured: a barrier at 9 ranks on a 3x3 grid waited 0.5 s for a
 *    sleeping relay.  One hop leaves every message's fate to its sender
 *    and its destination, as without Omnibus.
 *  - Progress: every wait is Omnibus's receive wait, which keeps polling,
 *    forwarding and flushing, so a rank in one of these collectives still
 *    serves every route through it.
 *  - Results: MPI_Allreduce is recursive doubling, MPICH's algorithm for
 *    short data, reducing in its operand order (what arrived, then what the
 *    rank holds), with the same fold of the ranks above a power of two;
 *    MPI_Reduce and MPI_Bcast are binomial trees, as its short ones;
 *    MPI_Scan and MPI_Exscan recursive doubling, as its;
 *    MPI_Reduce_scatter(_block) a block to each member, reduced there;
 *    MPI_Barrier is a dissemination barrier; the gathers, the scatter and
 *    the all-to-all send a message per member and piece.  Data travel in
 *    each member's own datatypes; a root's MPI_Bcast and a non-root's
 *    MPI_Reduce complete once their data is copied, as MPI allows.
 *  - Errors: nothing the fast path accepts can fail in MPI terms; the
 *    checks MPI defines (count, buffers, operation and datatype) send every
 *    doubtful call to the underlying MPI's path, which raises them.
 */
#ifndef OMNIBUS_COLL_H
#define OMNIBUS_COLL_H

#include <mpi.h>

/* Releases the scratch buffer at MPI_Finalize. */
void coll_finalize(void);

/* The small blocking collectives, called by the generated wrappers. */
int impl_Barrier(MPI_Comm comm);
int impl_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                   MPI_Datatype dtype, MPI_Op op, MPI_Comm comm);
int impl_Scan(const void *sendbuf, void *recvbuf, MPI_Count count,
              MPI_Datatype dtype, MPI_Op op, MPI_Comm comm);
int impl_Exscan(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype dtype, MPI_Op op, MPI_Comm comm);
int impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              MPI_Count count, MPI_Datatype dtype, MPI_Op op,
                              MPI_Comm comm);
int impl_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype dtype, MPI_Op op,
                        MPI_Comm comm);
int impl_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                          const MPI_Count recvcounts[], MPI_Datatype dtype,
                          MPI_Op op, MPI_Comm comm);
int impl_Bcast(void *buf, MPI_Count count, MPI_Datatype dtype, int root,
               MPI_Comm comm);
int impl_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype dtype, MPI_Op op, int root, MPI_Comm comm);
int impl_Gather(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm);
int impl_Scatter(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                 MPI_Comm comm);
int impl_Allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                   MPI_Comm comm);
int impl_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                    void *rbuf, const int rcounts[], const int displs[],
                    MPI_Datatype rtype, MPI_Comm comm);
int impl_Allgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                      void *rbuf, const MPI_Count rcounts[],
                      const MPI_Aint displs[], MPI_Datatype rtype,
                      MPI_Comm comm);
int impl_Alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                  MPI_Comm comm);

#endif
