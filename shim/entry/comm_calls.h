/* comm_calls: the MPI calls that make and free communicators
 * (comm_calls.c says how), called by the generated wrappers.
 */
#ifndef OMNIBUS_COMM_CALLS_H
#define OMNIBUS_COMM_CALLS_H

#include <mpi.h>

/* The communicator constructors and MPI_Comm_free on managed
 * communicators, called by the generated wrappers. */
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

#endif
