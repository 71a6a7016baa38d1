/*
 * mpi/coll/reduce_linear.c: MPI_Reduce by a flat tree, combining in rank
 * order (for non-commutative ops).
 *
 * Algorithm:
 *   Every non-root rank sends its buffer to the root. The root folds from
 *   the right so that each mpii_op_apply (inout = in op inout) keeps the
 *   lower rank on the left:
 *
 *     acc = r(P-1)
 *     for i = P-2 down to 0:  acc = r(i) op acc
 *
 *   giving r0 op (r1 op (... op r(P-1))), which by associativity is the
 *   rank-order result MPI requires. acc is recvbuf; r(i) is received into
 *   one temporary buffer (or is the root's own input).
 *
 *     P = 4, root 1:   0 --.
 *                      2 --+--> 1     root combines r3, r2, r1, r0
 *                      3 --'
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, gamma the
 * local reduction time per byte, not a pLogP parameter):
 *   T = L + (P - 1) * (g(m) + gamma * m); all sends leave at once but the
 *   root receives and combines P - 1 messages one after another.
 *
 * Limits:
 *   Linear in P at the root: meant for non-commutative ops only (for
 *   commutative ones use reduce_binomial.c). A rank-order binomial tree
 *   rooted at rank 0 plus a final send to the root would give log2 P rounds;
 *   left for when a benchmark asks for it. The root needs one temporary
 *   buffer of count elements, two with MPI_IN_PLACE when root != P - 1.
 *   Receives are posted one by one in fold order, so messages from large
 *   ranks wait in the unexpected queue (or on their rendezvous) meanwhile.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_reduce_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    const void *mine = sendbuf; /* the root's own contribution */
    void *own_copy = NULL;
    void *own_copy_base = NULL;
    void *tmp = NULL;
    void *tmp_base = NULL;
    int rc;

    if (count == 0)
        return MPI_SUCCESS;
    if (comm->rank != root)
        return mpii_send_coll_operand(sendbuf, count, dt, root, MPII_COLL_TAG_REDUCE, comm);

    if (sendbuf == MPI_IN_PLACE) {
        mine = recvbuf;
        if (root != p - 1) {
            /* recvbuf becomes the accumulator before the root's turn */
            rc = mpii_coll_tmp_alloc(count, dtp, &own_copy, &own_copy_base);
            if (rc != MPI_SUCCESS)
                return rc;
            rc = mpii_coll_copy(recvbuf, own_copy, count, dtp);
            if (rc != MPI_SUCCESS)
                goto out_free_own_copy;
            mine = own_copy;
        }
    }
    if (p > 1) {
        rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
        if (rc != MPI_SUCCESS)
            goto out_free_own_copy;
    }

    /* acc = r(P-1) */
    if (root == p - 1)
        rc = mpii_coll_copy(mine, recvbuf, count, dtp);
    else
        rc = mpii_recv_ctx(recvbuf, count, dt, p - 1, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);

    /* acc = r(i) op acc, i descending */
    for (int i = p - 2; i >= 0 && rc == MPI_SUCCESS; i--) {
        if (i == root) {
            mpii_op_apply(op, mine, recvbuf, count, dt);
            continue;
        }
        rc = mpii_recv_ctx(tmp, count, dt, i, MPII_COLL_TAG_REDUCE, comm, 1, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            mpii_op_apply(op, tmp, recvbuf, count, dt);
    }

    mpii_scratch_free(tmp_base);
out_free_own_copy:
    mpii_scratch_free(own_copy_base);
    return rc;
}
