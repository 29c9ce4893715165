/* neighbor: MPI neighbourhood collectives on the topology communicators
 * Omnibus manages (distributed graph, Cartesian and graph), run by a
 * schedule over Omnibus's own transport (OMNIBUS_NEIGHBOR).
 *
 * When such a communicator is made (the constructors are collective, so
 * every member is there), its members gather the whole neighbour graph, each
 * computes its plan (router/nbr_sched.h: combining, or one message per
 * destination for `grid`) and they agree on the id of a private shadow
 * record: the schedule's messages are matched there, apart from the user's
 * point-to-point traffic on the same communicator.  In `plain` mode nothing
 * is built and every neighbourhood collective goes to the MPI underneath.
 *
 * A collective runs as an operation (nbr_exec.h) that progress drives:
 * nbr_poll (nbr_exec.h) is one of progress's pollers (progress.h), run
 * after each round.  The schedule's types live with the operations that
 * run it (nbr_exec.h), so that this module calls down into that one and
 * nothing there points back here.
 */
#ifndef OMNIBUS_NEIGHBOR_H
#define OMNIBUS_NEIGHBOR_H

#include <mpi.h>
#include <stdint.h>
#include "shim/match/comm.h"

/* A managed communicator was just made: builds its schedule when it has a
 * topology and the mode is not plain.  Collective over its members. */
int nbr_comm_created(comm_rec *c);

/* The user freed c: its schedule lives on while operations need it. */
void nbr_comm_freed(comm_rec *c);

/* MPI_Finalize: frees every schedule (before the records go). */
void nbr_finalize(void);

/* The neighbourhood collectives, called by the generated wrappers; _c
 * forms share the int form's implementation except where their arrays
 * differ. */
int impl_Neighbor_allgather(const void *sbuf, MPI_Count scount,
                            MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                            MPI_Datatype rtype, MPI_Comm comm);
int impl_Ineighbor_allgather(const void *sbuf, MPI_Count scount,
                             MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                             MPI_Datatype rtype, MPI_Comm comm,
                             MPI_Request *request);
int impl_Neighbor_allgather_init(const void *sbuf, MPI_Count scount,
                                 MPI_Datatype stype, void *rbuf,
                                 MPI_Count rcount, MPI_Datatype rtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int impl_Neighbor_alltoall(const void *sbuf, MPI_Count scount,
                           MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                           MPI_Datatype rtype, MPI_Comm comm);
int impl_Ineighbor_alltoall(const void *sbuf, MPI_Count scount,
                            MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                            MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request *request);
int impl_Neighbor_alltoall_init(const void *sbuf, MPI_Count scount,
                                MPI_Datatype stype, void *rbuf,
                                MPI_Count rcount, MPI_Datatype rtype,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int impl_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                             void *rbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rtype,
                             MPI_Comm comm);
int impl_Neighbor_allgatherv_c(const void *sbuf, MPI_Count scount,
                               MPI_Datatype stype, void *rbuf,
                               const MPI_Count rcounts[],
                               const MPI_Aint displs[], MPI_Datatype rtype,
                               MPI_Comm comm);
int impl_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                              void *rbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rtype,
                              MPI_Comm comm, MPI_Request *request);
int impl_Ineighbor_allgatherv_c(const void *sbuf, MPI_Count scount,
                                MPI_Datatype stype, void *rbuf,
                                const MPI_Count rcounts[],
                                const MPI_Aint displs[], MPI_Datatype rtype,
                                MPI_Comm comm, MPI_Request *request);
int impl_Neighbor_allgatherv_init(const void *sbuf, int scount,
                                  MPI_Datatype stype, void *rbuf,
                                  const int rcounts[], const int displs[],
                                  MPI_Datatype rtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request);
int impl_Neighbor_allgatherv_init_c(const void *sbuf, MPI_Count scount,
                                    MPI_Datatype stype, void *rbuf,
                                    const MPI_Count rcounts[],
                                    const MPI_Aint displs[],
                                    MPI_Datatype rtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);
int impl_Neighbor_alltoallv(const void *sbuf, const int scounts[],
                            const int sdispls[], MPI_Datatype stype, void *rbuf,
                            const int rcounts[], const int rdispls[],
                            MPI_Datatype rtype, MPI_Comm comm);
int impl_Neighbor_alltoallv_c(const void *sbuf, const MPI_Count scounts[],
                              const MPI_Aint sdispls[], MPI_Datatype stype,
                              void *rbuf, const MPI_Count rcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype rtype,
                              MPI_Comm comm);
int impl_Ineighbor_alltoallv(const void *sbuf, const int scounts[],
                             const int sdispls[], MPI_Datatype stype,
                             void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request *request);
int impl_Ineighbor_alltoallv_c(const void *sbuf, const MPI_Count scounts[],
                               const MPI_Aint sdispls[], MPI_Datatype stype,
                               void *rbuf, const MPI_Count rcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype rtype,
                               MPI_Comm comm, MPI_Request *request);
int impl_Neighbor_alltoallv_init(const void *sbuf, const int scounts[],
                                 const int sdispls[], MPI_Datatype stype,
                                 void *rbuf, const int rcounts[],
                                 const int rdispls[], MPI_Datatype rtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int impl_Neighbor_alltoallv_init_c(const void *sbuf, const MPI_Count scounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype stype,
                                   void *rbuf, const MPI_Count rcounts[],
                                   const MPI_Aint rdispls[],
                                   MPI_Datatype rtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);
int impl_Neighbor_alltoallw(const void *sbuf, const int scounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void *rbuf,
                            const int rcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype rtypes[], MPI_Comm comm);
int impl_Neighbor_alltoallw_c(const void *sbuf, const MPI_Count scounts[],
                              const MPI_Aint sdispls[],
                              const MPI_Datatype stypes[], void *rbuf,
                              const MPI_Count rcounts[],
                              const MPI_Aint rdispls[],
                              const MPI_Datatype rtypes[], MPI_Comm comm);
int impl_Ineighbor_alltoallw(const void *sbuf, const int scounts[],
                             const MPI_Aint sdispls[],
                             const MPI_Datatype stypes[], void *rbuf,
                             const int rcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype rtypes[], MPI_Comm comm,
                             MPI_Request *request);
int impl_Ineighbor_alltoallw_c(const void *sbuf, const MPI_Count scounts[],
                               const MPI_Aint sdispls[],
                               const MPI_Datatype stypes[], void *rbuf,
                               const MPI_Count rcounts[],
                               const MPI_Aint rdispls[],
                               const MPI_Datatype rtypes[], MPI_Comm comm,
                               MPI_Request *request);
int impl_Neighbor_alltoallw_init(const void *sbuf, const int scounts[],
                                 const MPI_Aint sdispls[],
                                 const MPI_Datatype stypes[], void *rbuf,
                                 const int rcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype rtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int impl_Neighbor_alltoallw_init_c(const void *sbuf, const MPI_Count scounts[],
                                   const MPI_Aint sdispls[],
                                   const MPI_Datatype stypes[], void *rbuf,
                                   const MPI_Count rcounts[],
                                   const MPI_Aint rdispls[],
                                   const MPI_Datatype rtypes[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);

#endif
