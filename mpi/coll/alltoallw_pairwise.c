/*
 * mpi/coll/alltoallw_pairwise.c: MPI_Alltoallw by pairwise exchange.
 *
 * Algorithm:
 *   As alltoallv_pairwise.c, with a datatype per peer and displacements in
 *   bytes: rank r copies its own block locally, then in steps i = 1 .. P-1
 *   sends sendcounts[dst] elements of sendtypes[dst] at sendbuf + sdispls[dst]
 *   to dst = (r + i) mod P and receives recvcounts[src] elements of
 *   recvtypes[src] at recvbuf + rdispls[src] from src = (r - i) mod P. An
 *   empty block is neither sent nor received (the type signatures match, so
 *   the peer sees an empty block too).
 *
 *   MPI_IN_PLACE: the input is recvbuf laid out by recvcounts / rdispls /
 *   recvtypes; the non-empty blocks for the other ranks are first copied into
 *   temporaries and sent from there.
 *
 * Cost (pLogP): T = sum over the P - 1 steps of (L + max over the pairs of
 *   the step of g(m_ij)), m_ij the bytes from i to j; not modelled for the
 *   selection (one algorithm).
 *
 * Limits:
 *   Intracommunicators only; any P. MPI_IN_PLACE costs up to P - 1
 *   temporary blocks.
 */
#include "coll_more.h"

#include <stdlib.h>

static size_t bytes_of(int count, MPI_Datatype dt)
{
    return (size_t)count * mpii_datatype_get(dt)->size;
}

int mpii_alltoallw_pairwise(const void *sendbuf, const int *sendcounts, const int *sdispls,
                            const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts, const int *rdispls,
                            const MPI_Datatype *recvtypes, mpii_comm_t *comm)
{
    int p = comm->size, rank = comm->rank, rc = MPI_SUCCESS;
    void **saved = NULL, **saved_base = NULL; /* MPI_IN_PLACE: copies of the blocks to send */

    if (sendbuf == MPI_IN_PLACE) {
        saved = calloc((size_t)p, sizeof(*saved));
        saved_base = calloc((size_t)p, sizeof(*saved_base));
        if (saved == NULL || saved_base == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
            const mpii_datatype_t *dt = mpii_datatype_get(recvtypes[j]);
            if (j == rank || bytes_of(recvcounts[j], recvtypes[j]) == 0)
                continue;
            rc = mpii_coll_tmp_alloc(recvcounts[j], dt, &saved[j], &saved_base[j]);
            if (rc == MPI_SUCCESS)
                rc = mpii_coll_copy(mpii_coll_at(recvbuf, rdispls[j]), saved[j], recvcounts[j], dt);
        }
    } else {
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, sdispls[rank]), sendcounts[rank], sendtypes[rank],
                                  mpii_coll_at(recvbuf, rdispls[rank]), recvcounts[rank], recvtypes[rank]);
    }

    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (rank + i) % p, src = (rank - i + p) % p;
        int rpeer = bytes_of(recvcounts[src], recvtypes[src]) > 0 ? src : MPI_PROC_NULL;
        void *rptr = mpii_coll_at(recvbuf, rdispls[src]);
        if (saved != NULL)
            rc = mpii_sendrecv_ctx(saved[dst], recvcounts[dst], recvtypes[dst],
                                   saved[dst] != NULL ? dst : MPI_PROC_NULL, MPII_COLL_TAG_ALLTOALLW, rptr,
                                   recvcounts[src], recvtypes[src], rpeer, MPII_COLL_TAG_ALLTOALLW, comm, 1,
                                   MPI_STATUS_IGNORE);
        else
            rc = mpii_sendrecv_ctx(mpii_coll_at(sendbuf, sdispls[dst]), sendcounts[dst], sendtypes[dst],
                                   bytes_of(sendcounts[dst], sendtypes[dst]) > 0 ? dst : MPI_PROC_NULL,
                                   MPII_COLL_TAG_ALLTOALLW, rptr, recvcounts[src], recvtypes[src], rpeer,
                                   MPII_COLL_TAG_ALLTOALLW, comm, 1, MPI_STATUS_IGNORE);
    }
out:
    if (saved_base != NULL)
        for (int j = 0; j < p; j++)
            mpii_scratch_free(saved_base[j]);
    free(saved_base);
    free(saved);
    return rc;
}
