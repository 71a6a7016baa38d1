/*
 * mpi/coll/alltoallv_pairwise.c: MPI_Alltoallv by pairwise exchange.
 *
 * Algorithm:
 *   As alltoall_pairwise.c with per-peer counts and displacements: rank r
 *   copies its own block locally, then in steps i = 1 .. P-1 sends
 *   sendcounts[dst] elements at sendbuf + sdispls[dst] * extent to
 *   dst = (r + i) mod P and receives recvcounts[src] elements at
 *   recvbuf + rdispls[src] * extent from src = (r - i) mod P. An empty
 *   block is neither sent nor received (the peer sees the same byte count,
 *   by MPI's type signature rule), so a step may be one-sided.
 *
 *     P = 3:   step 1: 0->1  1->2  2->0
 *              step 2: 0->2  1->0  2->1
 *
 *   MPI_IN_PLACE: the input is recvbuf laid out by recvcounts/rdispls; the
 *   non-empty blocks for the other ranks are first copied into temporaries
 *   (one per block, laid out by the receive type) and sent from there.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, m_ij the block
 * from i to j):
 *   T = sum over the P - 1 steps of (L + max over the pairs of the step of
 *   g(m_ij)); uneven blocks make each step as slow as its largest block.
 *
 * Limits:
 *   Intracommunicators only; any P. MPI_IN_PLACE costs up to P - 1
 *   temporary blocks and a local copy of the buffer.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_alltoallv_pairwise(const void *sendbuf, const int *sendcounts, const int *sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                            const int *rdispls, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
    const mpii_datatype_t *sdt = NULL;
    int p = comm->size;
    int rank = comm->rank;
    MPI_Aint rext = rdt->extent;
    void **saved = NULL;     /* MPI_IN_PLACE: copies of the blocks to send */
    void **saved_base = NULL;
    int rc = MPI_SUCCESS;

    if (sendbuf == MPI_IN_PLACE) {
        saved = calloc((size_t)p, sizeof(*saved));
        saved_base = calloc((size_t)p, sizeof(*saved_base));
        if (saved == NULL || saved_base == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out_free_saved;
        }
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
            if (j == rank || (size_t)recvcounts[j] * rdt->size == 0)
                continue;
            rc = mpii_coll_tmp_alloc(recvcounts[j], rdt, &saved[j], &saved_base[j]);
            if (rc == MPI_SUCCESS)
                rc = mpii_coll_copy(mpii_coll_at(recvbuf, rdispls[j] * rext), saved[j], recvcounts[j], rdt);
        }
    } else {
        sdt = mpii_datatype_get(sendtype);
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, sdispls[rank] * sdt->extent), sendcounts[rank], sendtype,
                                  mpii_coll_at(recvbuf, rdispls[rank] * rext), recvcounts[rank], recvtype);
    }

    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (rank + i) % p;
        int src = (rank - i + p) % p;
        int rpeer = (size_t)recvcounts[src] * rdt->size > 0 ? src : MPI_PROC_NULL;
        void *rptr = mpii_coll_at(recvbuf, rdispls[src] * rext);
        if (saved != NULL)
            rc = mpii_sendrecv_ctx(saved[dst], recvcounts[dst], recvtype,
                                   saved[dst] != NULL ? dst : MPI_PROC_NULL, MPII_COLL_TAG_ALLTOALLV, rptr,
                                   recvcounts[src], recvtype, rpeer, MPII_COLL_TAG_ALLTOALLV, comm, 1,
                                   MPI_STATUS_IGNORE);
        else
            rc = mpii_sendrecv_ctx(mpii_coll_at(sendbuf, sdispls[dst] * sdt->extent), sendcounts[dst], sendtype,
                                   (size_t)sendcounts[dst] * sdt->size > 0 ? dst : MPI_PROC_NULL,
                                   MPII_COLL_TAG_ALLTOALLV, rptr, recvcounts[src], recvtype, rpeer,
                                   MPII_COLL_TAG_ALLTOALLV, comm, 1, MPI_STATUS_IGNORE);
    }

out_free_saved:
    if (saved_base != NULL)
        for (int j = 0; j < p; j++)
            mpii_scratch_free(saved_base[j]);
    free(saved_base);
    free(saved);
    return rc;
}
