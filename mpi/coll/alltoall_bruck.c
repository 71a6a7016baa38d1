/*
 * mpi/coll/alltoall_bruck.c: MPI_Alltoall by Bruck's algorithm (ceil(log2 P)
 * steps, any P), for short blocks.
 *
 * Algorithm (blocks packed to bytes, b bytes each):
 *   1. Local rotation: tmp[i] = the block for rank r + i (mod P).
 *   2. For dist = 1, 2, 4, .. < P: pack every tmp[i] with bit `dist` set in
 *      i, send them to r + dist, receive as many from r - dist and unpack
 *      them into the same indices. A block at index i has then travelled the
 *      bits of i already handled; after the last step tmp[i] holds the block
 *      that rank r - i sent to r.
 *   3. Inverse rotation: recvbuf block (r - i) mod P = tmp[i].
 *
 * Cost (pLogP: L, g; P ranks, m bytes per block, n_j the number of indices
 * in 0..P-1 with bit j set (about P/2), gamma local copy per byte):
 *   T = sum_{j: 2^j < P} (x(n_j m) + L + 2 n_j m gamma) + 2 P m gamma
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   ceil(log2 P) latencies instead of P - 1, but every block travels
 *   log2 P / 2 times on average: a win only for short blocks.
 *
 * Limits:
 *   Any P; P blocks must fit an int byte count (the selector checks).
 *   sendbuf is never MPI_IN_PLACE here (coll_more.c copies it aside).
 *   Three temporary buffers: P blocks and two of about P/2 blocks.
 */
#include "coll_more.h"

#include <stdlib.h>
#include <string.h>

int mpii_alltoall_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    MPI_Aint sbext = (MPI_Aint)sendcount * mpii_datatype_get(sendtype)->extent;
    MPI_Aint rbext = (MPI_Aint)recvcount * mpii_datatype_get(recvtype)->extent;
    size_t b = (size_t)recvcount * mpii_datatype_get(recvtype)->size;
    int p = comm->size;
    int rank = comm->rank;
    char *tmp, *sbuf, *rbuf;
    int rc = MPI_SUCCESS;

    if (b == 0)
        return MPI_SUCCESS;
    tmp = mpii_scratch_alloc(b * (size_t)p);
    sbuf = mpii_scratch_alloc(b * (size_t)(p / 2 + 1));
    rbuf = mpii_scratch_alloc(b * (size_t)(p / 2 + 1));
    if (tmp == NULL || sbuf == NULL || rbuf == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    /* 1. rotation while packing */
    for (int i = 0; i < p; i++)
        mpii_coll_pack(mpii_coll_at(sendbuf, ((rank + i) % p) * sbext), sendcount, sendtype,
                       tmp + (size_t)i * b);

    /* 2. log2 P exchanges */
    for (int dist = 1; dist < p && rc == MPI_SUCCESS; dist <<= 1) {
        size_t n = 0;
        for (int i = 0; i < p; i++)
            if (i & dist)
                memcpy(sbuf + (n++) * b, tmp + (size_t)i * b, b);
        rc = mpii_sendrecv_ctx(sbuf, (int)(n * b), MPI_BYTE, (rank + dist) % p, MPII_COLL_TAG_ALLTOALL, rbuf,
                               (int)(n * b), MPI_BYTE, (rank - dist + p) % p, MPII_COLL_TAG_ALLTOALL, comm, 1,
                               MPI_STATUS_IGNORE);
        n = 0;
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            if (i & dist)
                memcpy(tmp + (size_t)i * b, rbuf + (n++) * b, b);
    }

    /* 3. inverse rotation while unpacking */
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        mpii_coll_unpack(tmp + (size_t)i * b, mpii_coll_at(recvbuf, ((rank - i + p) % p) * rbext), recvcount,
                         recvtype);
out:
    mpii_scratch_free(rbuf);
    mpii_scratch_free(sbuf);
    mpii_scratch_free(tmp);
    return rc;
}
