/*
 * mpi/coll/reduce_linear.c: MPI_Reduce by a flat tree, combining in rank
 * order (non-commutative ops) or in recursive doubling's association
 * (commutative ops, P > 2: the sums of Open MPI and MPICH, to the bit).
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
 *   A commutative op allows any order, and floating-point sums differ in
 *   their last bits between orders: the root receives all P operands at
 *   once into P slots and combines them as recursive doubling over absolute
 *   ranks would ((r0 op r1) op (r2 op r3) at P = 4; for P = pof2 + rem,
 *   pairs (0,1) .. (2 rem - 2, 2 rem - 1) first), the association Open MPI
 *   4.1 and MPICH 4.0 return for an MPI_Allreduce of doubles at P = 2..8
 *   (tests/coll/reduce_order.c). hypre's saved residuals then match.
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
 *   Linear in P at the root. Commutative ops at P > 2 need P temporary
 *   slots of count elements at the root (count x P <= INT_MAX, else the
 *   rank-order fold), and post all receives at once. A rank-order binomial
 *   tree rooted at rank 0 plus a final send to the root would give log2 P
 *   rounds; left for when a benchmark asks for it. Non-commutative ops: the
 *   root needs one temporary buffer of count elements, two with
 *   MPI_IN_PLACE when root != P - 1; receives are posted one by one in fold
 *   order, so messages from large ranks wait in the unexpected queue (or on
 *   their rendezvous) meanwhile.
 */
#include "coll.h"

#include <limits.h>
#include <stdlib.h>

/* Commutative ops: all P operands land in slots, then combine in the
 * association of recursive doubling over absolute ranks (MPICH's, for P
 * not a power of two too: pairs (0,1) .. (2 rem - 2, 2 rem - 1) first),
 * which Open MPI and MPICH give for an MPI_Allreduce of doubles, so that a
 * floating-point sum equals theirs to the last bit. */
static int reduce_linear_rd(const void *mine, void *recvbuf, int count, MPI_Datatype dt,
                            const mpii_datatype_t *dtp, MPI_Op op, int root, mpii_comm_t *comm)
{
    int p = comm->size, pof2 = 1, rem, n = 0, rc = MPI_SUCCESS, nreq = 0;
    void *slots, *base;
    MPI_Request stack[MPII_COLL_REQS_STACK], *reqs;
    int idx_stack[64], *idx;
    size_t stride = (size_t)count * (size_t)dtp->extent;

    rc = mpii_coll_tmp_alloc(count * p, dtp, &slots, &base);
    if (rc != MPI_SUCCESS)
        return rc;
    reqs = mpii_coll_reqs(stack, (size_t)p);
    idx = p <= 64 ? idx_stack : malloc((size_t)p * sizeof *idx);
    if (reqs == NULL || idx == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
#define SLOT(i) ((char *)slots + (size_t)(i)*stride)
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root) {
            rc = mpii_irecv_ctx(SLOT(i), count, dt, i, MPII_COLL_TAG_REDUCE, comm, 1, &reqs[nreq]);
            if (rc == MPI_SUCCESS)
                nreq++;
        }
    if (rc == MPI_SUCCESS)
        rc = mpii_coll_copy(mine, SLOT(root), count, dtp);
    {
        int wrc = mpii_waitall(nreq, reqs);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    if (rc != MPI_SUCCESS)
        goto out;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    rem = p - pof2;
    for (int j = 0; j < rem; j++) {
        mpii_op_apply(op, SLOT(2 * j + 1), SLOT(2 * j), count, dt);
        idx[n++] = 2 * j;
    }
    for (int i = 2 * rem; i < p; i++)
        idx[n++] = i;
    for (int m = 1; m < pof2; m *= 2)
        for (int k = 0; k < pof2; k += 2 * m)
            mpii_op_apply(op, SLOT(idx[k + m]), SLOT(idx[k]), count, dt);
    rc = mpii_coll_copy(SLOT(idx[0]), recvbuf, count, dtp);
#undef SLOT
out:
    if (idx != idx_stack)
        free(idx);
    mpii_coll_reqs_free(reqs, stack);
    mpii_scratch_free(base);
    return rc;
}

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

    if (comm->size > 2 && mpii_op_is_commutative(op) && count <= INT_MAX / comm->size)
        return reduce_linear_rd(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, dt, dtp, op,
                                root, comm);
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
