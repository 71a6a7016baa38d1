/*
 * mpi/coll/reduce_binomial_ordered.c: MPI_Reduce along a binomial tree that
 * combines in rank order, so that it serves non-commutative ops in log2 P
 * steps (reduce_binomial.c needs commutativity, reduce_linear.c takes P - 1).
 *
 * Algorithm:
 *   The tree of reduce_binomial.c, but rooted at rank 0 whatever the root:
 *   for 2^k = 1, 2, 4, ..: a rank whose bit k is clear receives the partial
 *   result of rank + 2^k (if it exists), which covers ranks
 *   [rank + 2^k, rank + 2^(k+1)), and appends it on the right:
 *   acc = acc op child; a rank whose bit k is set sends acc to rank - 2^k.
 *   Every partial result is a contiguous range of ranks combined left to
 *   right, so rank 0 ends with r0 op r1 op ... op r(P-1). Rank 0 then sends
 *   it to the root when the root is another rank.
 *
 *     P = 6:   round 1: 1->0  3->2  5->4
 *              round 2: 2->0
 *              round 3: 4->0           (then 0 -> root if root != 0)
 *
 * Cost (pLogP: L, g; P ranks, m bytes, gamma the cost of combining a byte):
 *   T = ceil(log2 P) * (g(m) + L + gamma m) + [root != 0] (g(m) + L)
 *   The model does not know the root (MPIX_Coll_predict has none) and
 *   counts the root 0 case: for commutative ops reduce_binomial.c, listed
 *   first, wins the tie.
 *
 * Limits:
 *   Any op, any P; intracommunicators only. Ranks with children use two
 *   temporary buffers of count elements (the accumulator alternates between
 *   them, since MPI's op writes its right operand).
 */
#include "coll.h"

#include <stdlib.h>

int mpii_reduce_binomial_ordered(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                 int root, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int p = comm->size;
    int rank = comm->rank;
    int has_children = rank % 2 == 0 && rank + 1 < p;
    void *acc = NULL, *acc_base = NULL, *tmp = NULL, *tmp_base = NULL;
    const void *mine = in; /* this rank's partial result */
    int rc = MPI_SUCCESS;

    if (count == 0)
        return MPI_SUCCESS;
    if (p == 1)
        return mpii_coll_copy(in, recvbuf, count, dtp);
    if (has_children) {
        rc = mpii_coll_tmp_alloc(count, dtp, &acc, &acc_base);
        if (rc == MPI_SUCCESS)
            rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
        if (rc == MPI_SUCCESS)
            rc = mpii_coll_copy(in, acc, count, dtp);
        if (rc != MPI_SUCCESS)
            goto out;
        mine = acc;
    }

    for (int mask = 1; mask < p; mask <<= 1) {
        if (rank & mask) {
            rc = mpii_send_ctx(mine, count, dt, rank - mask, MPII_COLL_TAG_REDUCE, comm, 1);
            break;
        }
        if (rank + mask < p) {
            void *swap;
            rc = mpii_recv_ctx(tmp, count, dt, rank + mask, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                break;
            /* tmp = acc op tmp: the lower ranks stay on the left */
            mpii_op_apply(op, acc, tmp, count, dt);
            swap = acc;
            acc = tmp;
            tmp = swap;
            swap = acc_base;
            acc_base = tmp_base;
            tmp_base = swap;
            mine = acc;
        }
        if (mask > p / 2)
            break; /* the next mask would be >= p (and could overflow) */
    }
    if (rc != MPI_SUCCESS)
        goto out;

    if (rank == 0 && root == 0)
        rc = mpii_coll_copy(acc, recvbuf, count, dtp);
    else if (rank == 0)
        rc = mpii_send_ctx(acc, count, dt, root, MPII_COLL_TAG_REDUCE, comm, 1);
    else if (rank == root)
        rc = mpii_recv_ctx(recvbuf, count, dt, 0, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);
out:
    mpii_scratch_free(tmp_base);
    mpii_scratch_free(acc_base);
    return rc;
}
