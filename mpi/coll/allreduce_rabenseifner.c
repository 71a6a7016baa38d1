/*
 * mpi/coll/allreduce_rabenseifner.c: MPI_Allreduce by Rabenseifner's
 * algorithm (reduce-scatter by recursive halving + allgather by recursive
 * doubling), for commutative ops and long vectors.
 *
 * Algorithm:
 *   P' the largest power of two <= P, rem = P - P'.
 *   1. Fold-in as in the recursive-doubling allreduce: even ranks below
 *      2*rem hand their vector to the odd rank above and sit out.
 *   2. Reduce-scatter by recursive halving over P' blocks
 *      (mpii_coll_reduce_scatter_halving, reduce_rabenseifner.c): new rank i
 *      ends with block i reduced.
 *   3. Allgather by recursive doubling: for mask = 1 .. P'/2 exchange the
 *      range of `mask` blocks held so far with new rank XOR mask.
 *   4. Fold-out: odd ranks below 2*rem send the result to the even below.
 *
 * Cost (pLogP: L, g; P ranks, m bytes, gamma the cost of combining a byte):
 *   T = [P != P'] (2 (g(m) + L) + gamma m)
 *     + sum_{j=1}^{log2 P'} (x(m/2^j) + L + gamma m/2^j)    reduce-scatter
 *     + sum_{j=1}^{log2 P'} (x(m/2^j) + L)                  allgather
 *     + gamma m          the input copied to recvbuf (not in place)
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   About 2m bytes per rank against recursive doubling's m log2 P'.
 *
 * Limits:
 *   Commutative ops only; count >= P' (every block non-empty; the selector
 *   does not offer it otherwise). Intracommunicators only. One temporary
 *   vector of count elements per rank.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_allreduce_rabenseifner(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    MPI_Aint ext = dtp->extent;
    int p = comm->size;
    int rank = comm->rank;
    int pof2 = mpii_coll_pof2_floor(p);
    int rem = p - pof2;
    int newrank;
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
    if (count < pof2)
        return MPI_ERR_COUNT; /* not offered by the selector */
    rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
    if (rc != MPI_SUCCESS)
        return rc;

    /* 1. fold-in */
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = mpii_send_ctx(recvbuf, count, dt, rank + 1, MPII_COLL_TAG_ALLREDUCE, comm, 1);
            newrank = -1;
        } else {
            rc = mpii_recv_ctx(tmp, count, dt, rank - 1, MPII_COLL_TAG_ALLREDUCE, comm, 1, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                mpii_op_apply(op, tmp, recvbuf, count, dt);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }

    if (rc == MPI_SUCCESS && newrank >= 0) {
        /* 2. reduce-scatter */
        rc = mpii_coll_reduce_scatter_halving(recvbuf, tmp, count, dt, op, newrank, pof2, rem,
                                              MPII_COLL_TAG_ALLREDUCE, comm);
        /* 3. allgather: before round `mask` this rank holds the `mask`
         * blocks starting at its new rank with the low bits cleared */
        for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask <<= 1) {
            int base = newrank & ~(mask - 1);
            int pbase = base ^ mask;
            int s0 = mpii_coll_block_start(count, pof2, base);
            int s1 = mpii_coll_block_start(count, pof2, base + mask);
            int r0 = mpii_coll_block_start(count, pof2, pbase);
            int r1 = mpii_coll_block_start(count, pof2, pbase + mask);
            int partner = mpii_coll_fold_rank(newrank ^ mask, rem);
            rc =
                mpii_sendrecv_coll_rewrite(mpii_coll_at(recvbuf, (MPI_Aint)s0 * ext), s1 - s0, dt, partner,
                                           MPII_COLL_TAG_ALLREDUCE, mpii_coll_at(recvbuf, (MPI_Aint)r0 * ext),
                                           r1 - r0, dt, partner, MPII_COLL_TAG_ALLREDUCE, comm);
        }
    }

    /* 4. fold-out */
    if (rc == MPI_SUCCESS && rank < 2 * rem) {
        if (rank % 2 == 0)
            rc = mpii_recv_ctx(recvbuf, count, dt, rank + 1, MPII_COLL_TAG_ALLREDUCE, comm, 1,
                               MPI_STATUS_IGNORE);
        else
            rc = mpii_send_ctx(recvbuf, count, dt, rank - 1, MPII_COLL_TAG_ALLREDUCE, comm, 1);
    }
    mpii_scratch_free(tmp_base);
    return rc;
}
