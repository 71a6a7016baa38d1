/*
 * mpi/coll/coll_more.h: internals of the collectives beyond Barrier, Bcast,
 * Reduce and Allreduce (not installed).
 *
 * mpi/coll/coll_more.c holds the public MPI_Scatter(v), Gather(v),
 * Allgather(v), Alltoall(v), Reduce_scatter(_block), Scan, Exscan,
 * Reduce_local and Op_commutative. Like coll.c it validates arguments, asks
 * a per-operation selector for an algorithm and runs it from a table indexed
 * by the algorithm enum below. Kept apart from coll.h so that the two halves
 * can evolve (model-based selection) without editing each other's files.
 *
 * Contract of every algorithm below: that of coll.h (arguments validated,
 * traffic on the collective context with the operation's fixed tag, returns
 * an MPI error class and never calls an error handler), plus:
 *   - MPI_IN_PLACE has been resolved by the caller wherever the comment of
 *     the function says so; where an algorithm accepts it, it says which
 *     buffer holds the input;
 *   - counts and displacements are in units of the extent of their datatype,
 *     block i of a buffer starts at buf + displs[i] * extent (v variants) or
 *     buf + i * count * extent;
 *   - a block of zero bytes is never sent: sender and receiver skip it alike,
 *     since matching type signatures give both the same byte count.
 */
#ifndef MPI_COLL_COLL_MORE_H
#define MPI_COLL_COLL_MORE_H

#include "coll.h"

#include <stdint.h>

/* Fixed tags of these operations inside the collective context, above the
 * range coll.h uses (so that both lists can grow independently). */
enum mpii_coll_more_tag {
    MPII_COLL_TAG_SCATTER = 32,
    MPII_COLL_TAG_SCATTERV = 33,
    MPII_COLL_TAG_GATHER = 34,
    MPII_COLL_TAG_GATHERV = 35,
    MPII_COLL_TAG_ALLGATHER = 36,
    MPII_COLL_TAG_ALLGATHERV = 37,
    MPII_COLL_TAG_ALLTOALL = 38,
    MPII_COLL_TAG_ALLTOALLV = 39,
    MPII_COLL_TAG_SCAN = 40,
    MPII_COLL_TAG_EXSCAN = 41,
    MPII_COLL_TAG_ALLTOALLW = 42,
    MPII_COLL_TAG_SHM_TUNE = 43, /* mpi/shm_tune.c, at MPI_Init */
    MPII_COLL_TAG_NEIGHBOR = 44, /* and 45: mpi/coll/neighbor.c */
};

/* ---- algorithms, one enum per collective (order = coll_more.c's tables) ---- */

typedef enum mpii_scatter_algo {
    MPII_SCATTER_BINOMIAL = 0,
    MPII_SCATTER_LINEAR,             /* "flat" */
    MPII_SCATTER_ALGO_COUNT
} mpii_scatter_algo_t;

typedef enum mpii_gather_algo {
    MPII_GATHER_BINOMIAL = 0,
    MPII_GATHER_LINEAR,              /* "flat" */
    MPII_GATHER_ALGO_COUNT
} mpii_gather_algo_t;

typedef enum mpii_scatterv_algo {
    MPII_SCATTERV_LINEAR = 0,
    MPII_SCATTERV_ALGO_COUNT
} mpii_scatterv_algo_t;

typedef enum mpii_gatherv_algo {
    MPII_GATHERV_LINEAR = 0,
    MPII_GATHERV_ALGO_COUNT
} mpii_gatherv_algo_t;

typedef enum mpii_allgather_algo {
    MPII_ALLGATHER_RING = 0,
    MPII_ALLGATHER_RECURSIVE_DOUBLING, /* P a power of two */
    MPII_ALLGATHER_BRUCK,
    MPII_ALLGATHER_ALGO_COUNT
} mpii_allgather_algo_t;

typedef enum mpii_allgatherv_algo {
    MPII_ALLGATHERV_RING = 0,
    MPII_ALLGATHERV_ALGO_COUNT
} mpii_allgatherv_algo_t;

typedef enum mpii_alltoall_algo {
    MPII_ALLTOALL_PAIRWISE = 0,
    MPII_ALLTOALL_DIRECT,            /* all posted at once, same order everywhere */
    MPII_ALLTOALL_ROTATED,           /* all posted at once, rotated order */
    MPII_ALLTOALL_BRUCK,             /* log2 P steps, for short blocks */
    MPII_ALLTOALL_ALGO_COUNT
} mpii_alltoall_algo_t;

typedef enum mpii_alltoallv_algo {
    MPII_ALLTOALLV_PAIRWISE = 0,
    MPII_ALLTOALLV_ALGO_COUNT
} mpii_alltoallv_algo_t;

typedef enum mpii_reduce_scatter_algo {
    MPII_REDUCE_SCATTER_BASIC = 0,   /* reduce to 0 + scatterv; any op */
    MPII_REDUCE_SCATTER_ALGO_COUNT
} mpii_reduce_scatter_algo_t;

typedef enum mpii_scan_algo {
    MPII_SCAN_LINEAR = 0,            /* chain in rank order; any op */
    MPII_SCAN_ALGO_COUNT
} mpii_scan_algo_t;

typedef enum mpii_exscan_algo {
    MPII_EXSCAN_LINEAR = 0,          /* chain in rank order; any op */
    MPII_EXSCAN_ALGO_COUNT
} mpii_exscan_algo_t;

/* mpi/coll/scatter_binomial.c, scatter_linear.c.
 * recvbuf may be MPI_IN_PLACE at the root (its block then stays in
 * sendbuf); recvcount/recvtype are then not used there. */
int mpii_scatter_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm);
int mpii_scatter_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm);

/* mpi/coll/gather_binomial.c, gather_linear.c.
 * sendbuf may be MPI_IN_PLACE at the root (its block is then already in
 * recvbuf); sendcount/sendtype are then not used there. */
int mpii_gather_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm);
int mpii_gather_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm);

/* mpi/coll/scatterv_linear.c: recvbuf may be MPI_IN_PLACE at the root. */
int mpii_scatterv_linear(const void *sendbuf, const int *sendcounts, const int *displs,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, mpii_comm_t *comm);

/* mpi/coll/gatherv_linear.c: sendbuf may be MPI_IN_PLACE at the root. */
int mpii_gatherv_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                        mpii_comm_t *comm);

/* mpi/coll/allgather_ring.c: sendbuf may be MPI_IN_PLACE (this rank's
 * block is then already in recvbuf). */
int mpii_allgather_ring(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);

/* mpi/coll/allgatherv_ring.c: sendbuf may be MPI_IN_PLACE. */
int mpii_allgatherv_ring(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                         mpii_comm_t *comm);

/* mpi/coll/alltoall_pairwise.c: sendbuf may be MPI_IN_PLACE (the input is
 * then recvbuf, laid out by recvcount/recvtype). */
int mpii_alltoall_pairwise(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);

/* mpi/coll/alltoall_direct.c: the posting of both direct exchanges (rotated
 * selects the order); alltoall_rotated.c calls it. */
int mpii_alltoall_post_all(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm, int rotated);

/* mpi/coll/alltoall_direct.c (rotated = 0: every rank posts to 0, 1, ..,
 * P-1; rotated = 1: rank r posts to r+1, r+2, .. and receives from r-1,
 * r-2, ..), alltoall_bruck.c: sendbuf is never MPI_IN_PLACE here (the
 * caller copies the input aside first). */
int mpii_alltoall_direct(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);
int mpii_alltoall_rotated(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);
int mpii_alltoall_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);

/* mpi/coll/allgather_recursive_doubling.c (P a power of two),
 * allgather_bruck.c (any P): sendbuf may be MPI_IN_PLACE. */
int mpii_allgather_recursive_doubling(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);
int mpii_allgather_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);

/* mpi/coll/alltoallw_pairwise.c: displacements in bytes, a type per peer;
 * sendbuf may be MPI_IN_PLACE (the input is recvbuf). */
int mpii_alltoallw_pairwise(const void *sendbuf, const int *sendcounts, const int *sdispls,
                            const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts, const int *rdispls,
                            const MPI_Datatype *recvtypes, mpii_comm_t *comm);
/* mpi/coll/alltoallv_pairwise.c: sendbuf may be MPI_IN_PLACE (the input is
 * then recvbuf, laid out by recvcounts/rdispls/recvtype). */
int mpii_alltoallv_pairwise(const void *sendbuf, const int *sendcounts, const int *sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                            const int *rdispls, MPI_Datatype recvtype, mpii_comm_t *comm);

/* mpi/coll/reduce_scatter_basic.c: any op (rank order kept). Rank i gets
 * elements [sum(recvcounts[<i]), + recvcounts[i]) of the reduction.
 * sendbuf may be MPI_IN_PLACE (the input is then in recvbuf). The sum of
 * recvcounts must fit in an int (the caller checks). */
int mpii_reduce_scatter_basic(const void *sendbuf, void *recvbuf, const int *recvcounts,
                              MPI_Datatype dt, MPI_Op op, mpii_comm_t *comm);

/* mpi/coll/scan_linear.c, exscan_linear.c: any op. sendbuf may be
 * MPI_IN_PLACE (the input is then in recvbuf). Exscan leaves recvbuf of
 * rank 0 untouched. */
int mpii_scan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     mpii_comm_t *comm);
int mpii_exscan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       mpii_comm_t *comm);

/* ---- helpers shared by these algorithms (mpi/coll/coll_more.c) ---- */

/* Copy scount elements of sdt at sbuf into rcount elements of rdt at rbuf
 * (the types may differ; only the byte streams must fit): a local
 * send-receive. MPI_SUCCESS, MPI_ERR_TRUNCATE when the data is longer than
 * the receive buffer (nothing is copied then), or MPI_ERR_NO_MEM. */
/* One side of a collective (send or receive, `what` names it in the
 * message): count >= 0, a committed type, a usable buffer of nelems
 * elements that is not MPI_IN_PLACE. An MPI error class (reported). */
int mpii_coll_check_side(mpii_comm_t *c, const char *fn, const char *what, const void *buf, int count,
                         long long nelems, MPI_Datatype dt);
int mpii_coll_local_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt);

/* Pack `count` elements of dt at src into contiguous bytes at dst, or unpack
 * them back; thin wrappers that take a handle and an int count. */
void mpii_coll_pack(const void *src, int count, MPI_Datatype dt, void *dst);
void mpii_coll_unpack(const void *src, void *dst, int count, MPI_Datatype dt);

#endif
