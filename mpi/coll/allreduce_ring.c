/*
 * mpi/coll/allreduce_ring.c: MPI_Allreduce by a ring (reduce-scatter ring
 * followed by an allgather ring), for commutative ops and long vectors.
 *
 * Algorithm:
 *   The vector is split into P blocks. Reduce-scatter: in steps
 *   i = 0 .. P-2, rank r sends block r - i to r + 1 and receives block
 *   r - i - 1 from r - 1, combining it into its copy; after P - 1 steps rank
 *   r holds block r + 1 fully reduced. Allgather: in steps i = 0 .. P-2,
 *   rank r sends block r + 1 - i to r + 1 and receives block r - i from
 *   r - 1 (all indices mod P).
 *
 * Cost (pLogP: L, g; P ranks, m bytes, gamma the cost of combining a byte):
 *   T = 2 (P - 1) (x(m/P) + L) + (P - 1) gamma m / P
 *     + gamma m          the input copied to recvbuf (not in place)
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   Bandwidth-optimal (2m (P-1)/P bytes per rank, every link busy every
 *   step) but 2 (P - 1) latencies: only for long vectors.
 *
 * Limits:
 *   Commutative ops only; count >= P (the selector does not offer it
 *   otherwise). Any P. Intracommunicators only. One temporary block.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_allreduce_ring(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                        mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    MPI_Aint ext = dtp->extent;
    int p = comm->size;
    int rank = comm->rank;
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    void *tmp, *tmp_base;
    int rc;

    if (count == 0)
        return MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_copy(sendbuf, recvbuf, count, dtp);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (p == 1)
        return MPI_SUCCESS;
    if (count < p)
        return MPI_ERR_COUNT; /* not offered by the selector */
    rc = mpii_coll_tmp_alloc(mpii_coll_block_len(count, p, 0), dtp, &tmp, &tmp_base);
    if (rc != MPI_SUCCESS)
        return rc;

    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int sb = (rank - i + p) % p, rb = (rank - i - 1 + p) % p;
        int rn = mpii_coll_block_len(count, p, rb);
        void *rat = mpii_coll_at(recvbuf, (MPI_Aint)mpii_coll_block_start(count, p, rb) * ext);
        rc = mpii_sendrecv_coll_rewrite(
            mpii_coll_at(recvbuf, (MPI_Aint)mpii_coll_block_start(count, p, sb) * ext),
            mpii_coll_block_len(count, p, sb), dt, right, MPII_COLL_TAG_ALLREDUCE, tmp, rn, dt, left,
            MPII_COLL_TAG_ALLREDUCE, comm);
        if (rc == MPI_SUCCESS)
            mpii_op_apply(op, tmp, rat, rn, dt);
    }
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int sb = (rank + 1 - i + p) % p, rb = (rank - i + p) % p;
        rc = mpii_sendrecv_coll_rewrite(
            mpii_coll_at(recvbuf, (MPI_Aint)mpii_coll_block_start(count, p, sb) * ext),
            mpii_coll_block_len(count, p, sb), dt, right, MPII_COLL_TAG_ALLREDUCE,
            mpii_coll_at(recvbuf, (MPI_Aint)mpii_coll_block_start(count, p, rb) * ext),
            mpii_coll_block_len(count, p, rb), dt, left, MPII_COLL_TAG_ALLREDUCE, comm);
    }
    mpii_scratch_free(tmp_base);
    return rc;
}
