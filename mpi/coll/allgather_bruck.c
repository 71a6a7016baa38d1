/*
 * mpi/coll/allgather_bruck.c: MPI_Allgather by Bruck's algorithm (any P,
 * log2 P steps), for short blocks.
 *
 * Algorithm:
 *   A temporary buffer of P blocks starts with this rank's block at index
 *   0. In step j (dist = 2^j < P), rank r sends its first min(dist, P-dist)
 *   blocks to r - dist and receives as many from r + dist, appended at
 *   index dist. Afterwards index i holds the block of rank r + i (mod P); a
 *   final local rotation puts every block at its place in recvbuf.
 *
 *     P = 5, rank 0 holds after each step:  [0] -> [0 1] -> [0 1 2 3] -> [0 1 2 3 4]
 *
 * Cost (pLogP: L, g; P ranks, m bytes per block, gamma local copy per byte):
 *   T = sum_{j: 2^j < P} (x(min(2^j, P - 2^j) m) + L) + P m gamma
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   ceil(log2 P) latencies for any P, at the price of the final copy.
 *
 * Limits:
 *   Any P; P blocks must fit an int count (the selector checks). One
 *   temporary buffer of P blocks laid out by the receive type.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_allgather_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
    MPI_Aint bext = (MPI_Aint)recvcount * rdt->extent;
    int p = comm->size;
    int rank = comm->rank;
    void *tmp, *tmp_base;
    int rc;

    if ((size_t)recvcount * rdt->size == 0)
        return MPI_SUCCESS;
    rc = mpii_coll_tmp_alloc(recvcount * p, rdt, &tmp, &tmp_base);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        rc = mpii_coll_copy(mpii_coll_at(recvbuf, rank * bext), tmp, recvcount, rdt);
    else
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype, tmp, recvcount, recvtype);

    for (int dist = 1; dist < p && rc == MPI_SUCCESS; dist <<= 1) {
        int n = dist < p - dist ? dist : p - dist;
        rc = mpii_sendrecv_ctx(tmp, recvcount * n, recvtype, (rank - dist + p) % p, MPII_COLL_TAG_ALLGATHER,
                               mpii_coll_at(tmp, dist * bext), recvcount * n, recvtype, (rank + dist) % p,
                               MPII_COLL_TAG_ALLGATHER, comm, 1, MPI_STATUS_IGNORE);
    }
    /* index i holds rank (rank + i)'s block: two contiguous runs */
    if (rc == MPI_SUCCESS)
        rc = mpii_coll_copy(tmp, mpii_coll_at(recvbuf, rank * bext), recvcount * (p - rank), rdt);
    if (rc == MPI_SUCCESS && rank > 0)
        rc = mpii_coll_copy(mpii_coll_at(tmp, (p - rank) * bext), recvbuf, recvcount * rank, rdt);
    mpii_scratch_free(tmp_base);
    return rc;
}
