/* impl: Omnibus's implementations of the MPI calls it takes over, as the
 * generated wrappers (wrappers_gen.c) call them once Omnibus is on.  Counts
 * are MPI_Count so that a call and its large-count _c form share one
 * implementation.  Each one passes anything it does not manage (an
 * unmanaged communicator, MPI_PROC_NULL, arguments MPI rejects) to PMPI. */
#ifndef OMNIBUS_IMPL_H
#define OMNIBUS_IMPL_H

#include <mpi.h>

/* recv.c (impl_Recv and impl_Irecv are inline in recv.h) */
int impl_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int impl_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status);
int impl_Sendrecv(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status);
int impl_Sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                          int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status);

/* send.c */
int impl_Buffer_attach(void *buffer, MPI_Count size);
int impl_Buffer_detach(void *buffer_addr, int *size);
int impl_Buffer_detach_c(void *buffer_addr, MPI_Count *size);

/* mprobe.c */
int impl_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status);
int impl_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status);
int impl_Mrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
               MPI_Message *message, MPI_Status *status);
int impl_Imrecv(void *buf, MPI_Count count, MPI_Datatype dtype,
                MPI_Message *message, MPI_Request *request);

/* persist.c */
int impl_Recv_init(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request);
int impl_Start(MPI_Request *request);
int impl_Startall(int count, MPI_Request requests[]);
int impl_Request_free(MPI_Request *request);
int impl_Cancel(MPI_Request *request);

/* isendrecv.c */
int impl_Isendrecv(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request);
int impl_Isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request);
/* Completes the pairs whose two halves are done; returns whether any is
 * left (a progress poller). */
int isendrecv_poll(void);

/* request.c */
int impl_Request_get_status(MPI_Request request, int *flag,
                            MPI_Status *status);

/* init.c */
int impl_Query_thread(int *provided);

/* comm.c */
int impl_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int impl_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int impl_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int impl_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm);
int impl_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int impl_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm);
int impl_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *newcomm);
int impl_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int impl_Graph_create(MPI_Comm comm, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *newcomm);
int impl_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *newcomm);
int impl_Dist_graph_create_adjacent(MPI_Comm comm, int indegree,
                                    const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[],
                                    const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *newcomm);
int impl_Comm_free(MPI_Comm *comm);

/* coll.c: small blocking collectives (coll.h) */
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

/* neighbor.c: neighbourhood collectives; _c forms share the int form's
 * implementation except where their arrays differ */
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
