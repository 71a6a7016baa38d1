/*
 * mpi/coll/allgatherv_ring.c: MPI_Allgatherv around a ring.
 *
 * Algorithm:
 *   As allgather_ring.c, with block j of recvcounts[j] elements at
 *   recvbuf + displs[j] * extent: each rank places its own block (unless
 *   MPI_IN_PLACE), then in step i = 0 .. P-2 rank r sends block (r - i)
 *   mod P to r + 1 and receives block (r - i - 1) mod P from r - 1. An
 *   empty block is neither sent nor received (both ends see the same
 *   recvcounts[j] * size, by MPI's type signature rule).
 *
 *     P = 3, counts (2, 0, 1): step 0: 0 -[b0]-> 1, 1 -( )-> 2, 2 -[b2]-> 0
 *                              step 1: 0 -[b2]-> 1, 1 -[b0]-> 2, 2 -( )-> 0
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, m_j block j):
 *   T = sum over the P - 1 steps of (L + max over ranks of g(m_j) of the
 *   block forwarded in that step), at most (P - 1) * (L + g(max m_j));
 *   each block crosses each link once.
 *
 * Limits:
 *   Intracommunicators only; any P. No temporary buffer. Uneven blocks
 *   make the ring wait for the largest block of every step.
 */
#include "coll_more.h"

int mpii_allgatherv_ring(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                         mpii_comm_t *comm)
{
    const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
    int p = comm->size;
    int rank = comm->rank;
    int right = (rank + 1) % p;
    int left = (rank - 1 + p) % p;
    MPI_Aint ext = rdt->extent;
    int rc = MPI_SUCCESS;

    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype, mpii_coll_at(recvbuf, displs[rank] * ext),
                                  recvcounts[rank], recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (rdt->size == 0)
        return MPI_SUCCESS;
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int sblock = (rank - i + p) % p;
        int rblock = (rank - i - 1 + p) % p;
        rc = mpii_sendrecv_ctx(mpii_coll_at(recvbuf, displs[sblock] * ext), recvcounts[sblock], recvtype,
                               recvcounts[sblock] > 0 ? right : MPI_PROC_NULL, MPII_COLL_TAG_ALLGATHERV,
                               mpii_coll_at(recvbuf, displs[rblock] * ext), recvcounts[rblock], recvtype,
                               recvcounts[rblock] > 0 ? left : MPI_PROC_NULL, MPII_COLL_TAG_ALLGATHERV, comm, 1,
                               MPI_STATUS_IGNORE);
    }
    return rc;
}
