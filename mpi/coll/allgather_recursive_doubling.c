/*
 * mpi/coll/allgather_recursive_doubling.c: MPI_Allgather by recursive
 * doubling, for a power-of-two number of ranks.
 *
 * Algorithm:
 *   Rank r starts with its own block at position r of recvbuf. For
 *   mask = 1, 2, .., P/2 it exchanges with r XOR mask the `mask` blocks it
 *   holds (positions r & ~(mask-1) ..) for the partner's `mask` blocks,
 *   which lie next to them; the range held doubles every round.
 *
 * Cost (pLogP: L, g; P ranks, m bytes per block):
 *   T = sum_{j=0}^{log2 P - 1} (x(2^j m) + L)
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   log2 P latencies (the ring's P - 1 for small m), the same bytes.
 *
 * Limits:
 *   P must be a power of two (the selector skips it otherwise and a forced
 *   choice falls back to the model). Intracommunicators only. No temporary
 *   buffer: the blocks are received in place.
 */
#include "coll_more.h"

int mpii_allgather_recursive_doubling(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    MPI_Aint bext = (MPI_Aint)recvcount * mpii_datatype_get(recvtype)->extent;
    int p = comm->size;
    int rank = comm->rank;
    int rc = MPI_SUCCESS;

    if ((size_t)recvcount * mpii_datatype_get(recvtype)->size == 0)
        return MPI_SUCCESS;
    if (mpii_coll_pof2_floor(p) != p)
        return MPI_ERR_OTHER; /* not offered by the selector */
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype, mpii_coll_at(recvbuf, rank * bext), recvcount,
                                  recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        int base = rank & ~(mask - 1);
        int pbase = base ^ mask;
        int partner = rank ^ mask;
        rc = mpii_sendrecv_ctx(mpii_coll_at(recvbuf, base * bext), recvcount * mask, recvtype, partner,
                               MPII_COLL_TAG_ALLGATHER, mpii_coll_at(recvbuf, pbase * bext), recvcount * mask,
                               recvtype, partner, MPII_COLL_TAG_ALLGATHER, comm, 1, MPI_STATUS_IGNORE);
    }
    return rc;
}
