/*
 * mpi/coll/reduce_rabenseifner.c: MPI_Reduce by Rabenseifner's algorithm
 * (reduce-scatter by recursive halving, then a binomial gather), for
 * commutative ops and long vectors. Also the recursive-halving
 * reduce-scatter that the Rabenseifner allreduce shares.
 *
 * Algorithm:
 *   Let P' be the largest power of two <= P, rem = P - P'.
 *   1. Fold-in: among ranks 0 .. 2*rem-1, each even rank sends its vector to
 *      the odd rank above, which combines; the odd ones take part with new
 *      rank r/2, the even ones sit out; ranks >= 2*rem become r - rem.
 *   2. Reduce-scatter by recursive halving over P' blocks of the vector:
 *      for mask = P'/2 .. 1, exchange with new rank XOR mask the half of the
 *      current block range the partner keeps, combine the half kept. After
 *      log2 P' rounds new rank i holds block i fully reduced.
 *   3. Binomial gather of the blocks to new rank 0: for mask = 1 .. P'/2, a
 *      rank with that bit set sends its range of blocks to new rank - mask
 *      and stops; the others receive the partner's range next to theirs.
 *   4. New rank 0 sends the result to the root (if it is not the root).
 *
 * Cost (pLogP: L, g; P ranks, m bytes, gamma the cost of combining a byte):
 *   T = [P != P'] (g(m) + L + gamma m)
 *     + sum_{j=1}^{log2 P'} (x(m/2^j) + L + gamma m/2^j)     reduce-scatter
 *     + sum_{j=1}^{log2 P'} (g(m/2^j) + L)                   gather
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   (the final hop to a root other than new rank 0 is not modelled.) About
 *   2m bytes per rank instead of the binomial tree's m log2 P: wins for
 *   large m, loses to the binomial tree's log2 P latencies for small m.
 *
 * Limits:
 *   Commutative ops only (the combination order differs per block);
 *   count >= P' so that every block holds at least one element (the
 *   selector does not offer it otherwise). Intracommunicators only. Two
 *   temporary vectors of count elements per rank.
 */
#include "coll.h"

#include <stdlib.h>

/* Elements of blocks [a, b) of a count-element vector split in n blocks. */
static void *blocks(const void *buf, int count, int n, int a, int b, MPI_Aint ext, int *len)
{
    int s = mpii_coll_block_start(count, n, a);
    *len = mpii_coll_block_start(count, n, b) - s;
    return mpii_coll_at(buf, (MPI_Aint)s * ext);
}

int mpii_coll_reduce_scatter_halving(void *buf, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int newrank,
                                     int pof2, int rem, int tag, mpii_comm_t *comm)
{
    MPI_Aint ext = mpii_datatype_get(dt)->extent;
    int lo = 0, hi = pof2;

    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
        int partner = mpii_coll_fold_rank(newrank ^ mask, rem);
        int mid = lo + mask;
        int klo, khi, slo, shi, kn, sn, rc;
        void *kat, *sat;

        if (newrank & mask) { /* keep the upper half, send the lower */
            klo = mid;
            khi = hi;
            slo = lo;
            shi = mid;
        } else {
            klo = lo;
            khi = mid;
            slo = mid;
            shi = hi;
        }
        sat = blocks(buf, count, pof2, slo, shi, ext, &sn);
        kat = blocks(buf, count, pof2, klo, khi, ext, &kn);
        rc = mpii_sendrecv_coll_rewrite(sat, sn, dt, partner, tag,
                                        blocks(tmp, count, pof2, klo, khi, ext, &kn), kn, dt, partner, tag,
                                        comm);
        if (rc != MPI_SUCCESS)
            return rc;
        mpii_op_apply(op, blocks(tmp, count, pof2, klo, khi, ext, &kn), kat, kn, dt);
        lo = klo;
        hi = khi;
    }
    return MPI_SUCCESS;
}

int mpii_reduce_rabenseifner(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                             int root, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int p = comm->size;
    int rank = comm->rank;
    int pof2 = mpii_coll_pof2_floor(p);
    int rem = p - pof2;
    int newrank, owner;
    void *acc, *acc_base, *tmp, *tmp_base;
    int rc;

    if (count == 0)
        return MPI_SUCCESS;
    if (p == 1)
        return mpii_coll_copy(in, recvbuf, count, dtp);
    if (count < pof2)
        return MPI_ERR_COUNT; /* not offered by the selector */
    rc = mpii_coll_tmp_alloc(count, dtp, &acc, &acc_base);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
    if (rc != MPI_SUCCESS) {
        mpii_scratch_free(acc_base);
        return rc;
    }
    rc = mpii_coll_copy(in, acc, count, dtp);
    if (rc != MPI_SUCCESS)
        goto out;

    /* 1. fold-in */
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = mpii_send_ctx(acc, count, dt, rank + 1, MPII_COLL_TAG_REDUCE, comm, 1);
            newrank = -1;
        } else {
            rc = mpii_recv_ctx(tmp, count, dt, rank - 1, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                mpii_op_apply(op, tmp, acc, count, dt);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (rc != MPI_SUCCESS)
        goto out;

    if (newrank >= 0) {
        /* 2. reduce-scatter */
        rc = mpii_coll_reduce_scatter_halving(acc, tmp, count, dt, op, newrank, pof2, rem,
                                              MPII_COLL_TAG_REDUCE, comm);
        /* 3. binomial gather to new rank 0: before round `mask` this rank
         * holds blocks [newrank, newrank + mask) */
        for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask <<= 1) {
            int n;
            if (newrank & mask) {
                void *at = blocks(acc, count, pof2, newrank, newrank + mask, dtp->extent, &n);
                rc = mpii_send_ctx(at, n, dt, mpii_coll_fold_rank(newrank - mask, rem), MPII_COLL_TAG_REDUCE,
                                   comm, 1);
                break;
            } else {
                void *at = blocks(acc, count, pof2, newrank + mask, newrank + 2 * mask, dtp->extent, &n);
                rc = mpii_recv_ctx(at, n, dt, mpii_coll_fold_rank(newrank + mask, rem), MPII_COLL_TAG_REDUCE,
                                   comm, 1, MPI_STATUS_IGNORE);
            }
        }
    }
    if (rc != MPI_SUCCESS)
        goto out;

    /* 4. to the root */
    owner = mpii_coll_fold_rank(0, rem);
    if (rank == owner && rank == root)
        rc = mpii_coll_copy(acc, recvbuf, count, dtp);
    else if (rank == owner)
        rc = mpii_send_ctx(acc, count, dt, root, MPII_COLL_TAG_REDUCE, comm, 1);
    else if (rank == root)
        rc = mpii_recv_ctx(recvbuf, count, dt, owner, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);

out:
    mpii_scratch_free(tmp_base);
    mpii_scratch_free(acc_base);
    return rc;
}
