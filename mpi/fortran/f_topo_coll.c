/*
 * mpi/fortran/f_topo_coll.c: Fortran 77 bindings of the graph and
 * distributed graph topologies, the neighborhood collectives (blocking,
 * nonblocking, persistent) and the persistent collectives of MPI 4.0.
 * Buffers go through mf_buf (MPI_IN_PLACE, MPI_BOTTOM); LOGICAL arguments
 * are read as non-zero and written with mf_logical; MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY are recognized by address (their common blocks).
 * Displacements of the w variants are INTEGER(KIND=MPI_ADDRESS_KIND)
 * arrays, the C MPI_Aint.
 */
#include "mpi/fortran/fortran.h"

_Alignas(64) MPI_Fint mbmpi_funweighted_[1];
_Alignas(64) MPI_Fint mbmpi_fwempty_[1];

static const int *mf_weights(const MPI_Fint *w)
{
    if (w == mbmpi_funweighted_)
        return MPI_UNWEIGHTED;
    if (w == mbmpi_fwempty_)
        return MPI_WEIGHTS_EMPTY;
    return w;
}

/* ---- graph topologies ---- */

void mpi_graph_create_(MPI_Fint *comm_old, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges,
                       MPI_Fint *reorder, MPI_Fint *comm_graph, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Graph_create(*comm_old, *nnodes, index, edges, *reorder != 0, &c);
    *comm_graph = c;
}

void mpi_graphdims_get_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *nedges, MPI_Fint *ierr)
{
    *ierr = MPI_Graphdims_get(*comm, nnodes, nedges);
}

void mpi_graph_get_(MPI_Fint *comm, MPI_Fint *maxindex, MPI_Fint *maxedges, MPI_Fint *index, MPI_Fint *edges,
                    MPI_Fint *ierr)
{
    *ierr = MPI_Graph_get(*comm, *maxindex, *maxedges, index, edges);
}

void mpi_graph_neighbors_count_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *nneighbors, MPI_Fint *ierr)
{
    *ierr = MPI_Graph_neighbors_count(*comm, *rank, nneighbors);
}

void mpi_graph_neighbors_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *maxneighbors, MPI_Fint *neighbors,
                          MPI_Fint *ierr)
{
    *ierr = MPI_Graph_neighbors(*comm, *rank, *maxneighbors, neighbors);
}

void mpi_graph_map_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges, MPI_Fint *newrank,
                    MPI_Fint *ierr)
{
    *ierr = MPI_Graph_map(*comm, *nnodes, index, edges, newrank);
}

void mpi_cart_map_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods, MPI_Fint *newrank,
                   MPI_Fint *ierr)
{
    int p[64];
    if (*ndims > 64) {
        *ierr = MPI_Cart_map(*comm, *ndims, dims, NULL, newrank); /* names the problem */
        return;
    }
    for (int i = 0; i < *ndims; i++)
        p[i] = periods[i] != 0;
    *ierr = MPI_Cart_map(*comm, *ndims, dims, p, newrank);
}

void mpi_dist_graph_create_adjacent_(MPI_Fint *comm_old, MPI_Fint *indegree, MPI_Fint *sources,
                                     MPI_Fint *sourceweights, MPI_Fint *outdegree, MPI_Fint *destinations,
                                     MPI_Fint *destweights, MPI_Fint *info, MPI_Fint *reorder, MPI_Fint *comm,
                                     MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr =
        MPI_Dist_graph_create_adjacent(*comm_old, *indegree, sources, mf_weights(sourceweights), *outdegree,
                                       destinations, mf_weights(destweights), *info, *reorder != 0, &c);
    *comm = c;
}

void mpi_dist_graph_create_(MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources, MPI_Fint *degrees,
                            MPI_Fint *destinations, MPI_Fint *weights, MPI_Fint *info, MPI_Fint *reorder,
                            MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Dist_graph_create(*comm_old, *n, sources, degrees, destinations, mf_weights(weights), *info,
                                  *reorder != 0, &c);
    *comm = c;
}

void mpi_dist_graph_neighbors_count_(MPI_Fint *comm, MPI_Fint *indegree, MPI_Fint *outdegree,
                                     MPI_Fint *weighted, MPI_Fint *ierr)
{
    int w = 0;
    *ierr = MPI_Dist_graph_neighbors_count(*comm, indegree, outdegree, &w);
    *weighted = mf_logical(w);
}

void mpi_dist_graph_neighbors_(MPI_Fint *comm, MPI_Fint *maxindegree, MPI_Fint *sources,
                               MPI_Fint *sourceweights, MPI_Fint *maxoutdegree, MPI_Fint *destinations,
                               MPI_Fint *destweights, MPI_Fint *ierr)
{
    *ierr = MPI_Dist_graph_neighbors(
        *comm, *maxindegree, sources, sourceweights == mbmpi_funweighted_ ? MPI_UNWEIGHTED : sourceweights,
        *maxoutdegree, destinations, destweights == mbmpi_funweighted_ ? MPI_UNWEIGHTED : destweights);
}

/* ---- neighborhood collectives ---- */

void mpi_neighbor_allgather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                             MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_allgather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                   *recvtype, *comm);
}

void mpi_neighbor_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                              MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                              MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_allgatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts,
                                    displs, *recvtype, *comm);
}

void mpi_neighbor_alltoall_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                            MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoall(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                  *recvtype, *comm);
}

void mpi_neighbor_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                             void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                             MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoallv(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf),
                                   recvcounts, rdispls, *recvtype, *comm);
}

void mpi_neighbor_alltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                             MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls,
                             MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoallw(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf),
                                   recvcounts, rdispls, recvtypes, *comm);
}

void mpi_ineighbor_allgather_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                              MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                              MPI_Fint *ierr)
{
    *ierr = MPI_Ineighbor_allgather(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                    *recvtype, *comm, request);
}

void mpi_ineighbor_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                               MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                               MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ineighbor_allgatherv(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts,
                                     displs, *recvtype, *comm, request);
}

void mpi_ineighbor_alltoall_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                             MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                             MPI_Fint *ierr)
{
    *ierr = MPI_Ineighbor_alltoall(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                   *recvtype, *comm, request);
}

void mpi_ineighbor_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                              MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ineighbor_alltoallv(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf),
                                    recvcounts, rdispls, *recvtype, *comm, request);
}

void mpi_ineighbor_alltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                              MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls,
                              MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Ineighbor_alltoallw(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf),
                                    recvcounts, rdispls, recvtypes, *comm, request);
}

void mpi_neighbor_allgather_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                  MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                                  MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_allgather_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                        *recvtype, *comm, *info, request);
}

void mpi_neighbor_allgatherv_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                                   void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype,
                                   MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_allgatherv_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts,
                                         displs, *recvtype, *comm, *info, request);
}

void mpi_neighbor_alltoall_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                                 MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoall_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount,
                                       *recvtype, *comm, *info, request);
}

void mpi_neighbor_alltoallv_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                                  MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                                  MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                  MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoallv_init(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf),
                                        recvcounts, rdispls, *recvtype, *comm, *info, request);
}

void mpi_neighbor_alltoallw_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                                  MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls,
                                  MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                  MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoallw_init(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf),
                                        recvcounts, rdispls, recvtypes, *comm, *info, request);
}

/* ---- persistent collectives (MPI 4.0) ---- */

void mpi_barrier_init_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Barrier_init(*comm, *info, request);
}

void mpi_bcast_init_(void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,
                     MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Bcast_init(mf_buf(buffer), *count, *datatype, *root, *comm, *info, request);
}

void mpi_reduce_init_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_init(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *root, *comm, *info,
                            request);
}

void mpi_allreduce_init_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                         MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr =
        MPI_Allreduce_init(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, *info, request);
}

void mpi_scatter_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                       MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Scatter_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                             *root, *comm, *info, request);
}

void mpi_scatterv_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,
                        MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Scatterv_init(mf_buf(sendbuf), sendcounts, displs, *sendtype, mf_buf(recvbuf), *recvcount,
                              *recvtype, *root, *comm, *info, request);
}

void mpi_gather_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                      MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                      MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Gather_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                            *root, *comm, *info, request);
}

void mpi_gatherv_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
                       MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Gatherv_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs,
                             *recvtype, *root, *comm, *info, request);
}

void mpi_allgather_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                         MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Allgather_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                               *comm, *info, request);
}

void mpi_allgatherv_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                          MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                          MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Allgatherv_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), recvcounts, displs,
                                *recvtype, *comm, *info, request);
}

void mpi_alltoall_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                        MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                        MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoall_init(mf_buf(sendbuf), *sendcount, *sendtype, mf_buf(recvbuf), *recvcount, *recvtype,
                              *comm, *info, request);
}

void mpi_alltoallv_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                         MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallv_init(mf_buf(sendbuf), sendcounts, sdispls, *sendtype, mf_buf(recvbuf), recvcounts,
                               rdispls, *recvtype, *comm, *info, request);
}

void mpi_alltoallw_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
                         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
                         MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallw_init(mf_buf(sendbuf), sendcounts, sdispls, sendtypes, mf_buf(recvbuf), recvcounts,
                               rdispls, recvtypes, *comm, *info, request);
}

void mpi_reduce_scatter_init_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype,
                              MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter_init(mf_buf(sendbuf), mf_buf(recvbuf), recvcounts, *datatype, *op, *comm,
                                    *info, request);
}

void mpi_reduce_scatter_block_init_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcount,
                                    MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info,
                                    MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter_block_init(mf_buf(sendbuf), mf_buf(recvbuf), *recvcount, *datatype, *op, *comm,
                                          *info, request);
}

void mpi_scan_init_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                    MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Scan_init(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, *info, request);
}

void mpi_exscan_init_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
                      MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Exscan_init(mf_buf(sendbuf), mf_buf(recvbuf), *count, *datatype, *op, *comm, *info, request);
}
