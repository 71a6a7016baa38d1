/*
 * mpi/coll/alltoall_pairwise.c: MPI_Alltoall by pairwise exchange.
 *
 * Algorithm:
 *   Rank r copies its own block (block r of sendbuf to block r of recvbuf)
 *   locally, then in steps i = 1 .. P-1 sends block dst of sendbuf to
 *   dst = (r + i) mod P and receives block src of recvbuf from
 *   src = (r - i) mod P, in one send-receive. In every step each rank sends
 *   one block and receives one, so no rank is flooded; the shift form works
 *   for any P (the XOR form dst = src = r ^ i needs a power of two).
 *
 *     P = 3:   step 1: 0->1  1->2  2->0
 *              step 2: 0->2  1->0  2->1
 *
 *   MPI_IN_PLACE: the input is recvbuf itself. Block src, received in step
 *   i, is only sent in step P - i, so for i < P / 2 it would be overwritten
 *   first: the other P - 1 blocks are copied into temporaries (one per
 *   block, laid out by the receive type) up front and sent from there.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = (P - 1) * (L + x(m)) + gamma m; each step waits for the slowest
 *   pair; gamma m is the copy of the own block (first, priced as combining).
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c). The
 *   rotated direct exchange (all at once) overlaps the steps for small m;
 *   Bruck needs only log2 P steps for very small m.
 *
 * Limits:
 *   Intracommunicators only; any P. MPI_IN_PLACE costs P - 1 temporary
 *   blocks (P - 1 allocations) and a local copy of the whole buffer.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_alltoall_pairwise(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
    int p = comm->size;
    int rank = comm->rank;
    MPI_Aint rbext = (MPI_Aint)recvcount * rdt->extent; /* distance between receive blocks */
    MPI_Aint sbext;                                      /* ... and between send blocks */
    void **saved = NULL;     /* MPI_IN_PLACE: copies of the blocks to send */
    void **saved_base = NULL;
    int rc = MPI_SUCCESS;

    if ((size_t)recvcount * rdt->size == 0)
        return MPI_SUCCESS;

    if (sendbuf == MPI_IN_PLACE) {
        saved = calloc((size_t)p, sizeof(*saved));
        saved_base = calloc((size_t)p, sizeof(*saved_base));
        if (saved == NULL || saved_base == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out_free_saved;
        }
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
            if (j == rank)
                continue;
            rc = mpii_coll_tmp_alloc(recvcount, rdt, &saved[j], &saved_base[j]);
            if (rc == MPI_SUCCESS)
                rc = mpii_coll_copy(mpii_coll_at(recvbuf, j * rbext), saved[j], recvcount, rdt);
        }
        sbext = 0;
    } else {
        sbext = (MPI_Aint)sendcount * mpii_datatype_get(sendtype)->extent;
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, rank * sbext), sendcount, sendtype,
                                  mpii_coll_at(recvbuf, rank * rbext), recvcount, recvtype);
    }

    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (rank + i) % p;
        int src = (rank - i + p) % p;
        if (saved != NULL)
            rc = mpii_sendrecv_ctx(saved[dst], recvcount, recvtype, dst, MPII_COLL_TAG_ALLTOALL,
                                   mpii_coll_at(recvbuf, src * rbext), recvcount, recvtype, src,
                                   MPII_COLL_TAG_ALLTOALL, comm, 1, MPI_STATUS_IGNORE);
        else
            rc = mpii_sendrecv_ctx(mpii_coll_at(sendbuf, dst * sbext), sendcount, sendtype, dst,
                                   MPII_COLL_TAG_ALLTOALL, mpii_coll_at(recvbuf, src * rbext), recvcount,
                                   recvtype, src, MPII_COLL_TAG_ALLTOALL, comm, 1, MPI_STATUS_IGNORE);
    }

out_free_saved:
    if (saved_base != NULL)
        for (int j = 0; j < p; j++)
            mpii_scratch_free(saved_base[j]);
    free(saved_base);
    free(saved);
    return rc;
}
