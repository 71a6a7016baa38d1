/*
 * mpi/coll/reduce_binomial.c: MPI_Reduce along a binomial tree, for
 * commutative ops.
 *
 * Algorithm:
 *   The broadcast tree of bcast_binomial.c run backwards. Ranks are
 *   renumbered relative to the root, v = (rank - root) mod P (with more
 *   ranks than CPUs, the CPUs' ranks in blocks: tree_map.c). For 2^k =
 *   1, 2, 4, ...: a rank whose bit k is clear receives the partial result of
 *   v + 2^k (if that rank exists) and combines it into its accumulator; a
 *   rank whose bit k is set sends its accumulator to v - 2^k and is done.
 *   The root (v = 0) ends with the full result in recvbuf.
 *
 *     P = 8, root 0 (v = rank):
 *
 *       round 1: 1->0  3->2  5->4  7->6
 *       round 2: 2->0  6->4
 *       round 3: 4->0
 *
 *   Partial results combine ranges of v that are not in rank order when
 *   root != 0 (and are combined as child op parent), hence commutative ops
 *   only; reduce_linear.c handles the others.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, gamma the
 * local reduction time per byte, not a pLogP parameter):
 *   T = ceil(log2 P) * (L + g(m) + gamma * m); the root receives and
 *   combines ceil(log2 P) messages of m bytes, every other rank sends one.
 *
 * Limits:
 *   Commutative ops only; intracommunicators only. Ranks with children need
 *   two temporary buffers of count elements (accumulator and receive), the
 *   root one (it accumulates in recvbuf), leaves none.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_reduce_binomial(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int rank = comm->rank;
    mpii_tree_map_t tm;
    int rc = mpii_coll_tree_map(comm, root, &tm);
    int vrank = tm.me;
    int has_children = (vrank % 2 == 0) && vrank + 1 < p;
    int peer[8 * sizeof(int)], npeer = 0; /* children, smallest first, then the parent */
    void *acc = NULL;      /* this rank's partial result (when it has children) */
    void *acc_base = NULL;
    void *tmp = NULL;      /* receive buffer for a child's partial result */
    void *tmp_base = NULL;
    const void *mine; /* what this rank sends to its parent */

    if (rc != MPI_SUCCESS || count == 0)
        return rc;
    /* read off the map before the first wait (coll.h) */
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vrank & mask) {
            peer[npeer++] = mpii_tree_rank(&tm, vrank - mask);
            break;
        }
        if (vrank + mask < p)
            peer[npeer++] = mpii_tree_rank(&tm, vrank + mask);
        if (mask > p / 2)
            break;
    }
    if (rank == root) {
        if (p == 1)
            return sendbuf != MPI_IN_PLACE ? mpii_coll_copy(sendbuf, recvbuf, count, dtp) : MPI_SUCCESS;
        acc = recvbuf;
    } else if (has_children) {
        rc = mpii_coll_tmp_alloc(count, dtp, &acc, &acc_base);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (has_children) {
        rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
        if (rc != MPI_SUCCESS)
            goto out_free_acc;
    }
    mine = acc != NULL ? acc : sendbuf;

    for (int mask = 1, k = 0; mask < p; mask <<= 1) {
        if (vrank & mask) {
            rc = mpii_send_coll_operand(mine, count, dt, peer[k], MPII_COLL_TAG_REDUCE, comm);
            break;
        }
        if (vrank + mask < p) {
            int child = peer[k++];
            /* The first child's vector lands in acc itself, and this
             * rank's own is combined into it (the op commutes): one pass
             * over the vector less than copying it into acc first (1 MiB at
             * P = 2: 530 -> 330 us). Not when acc already holds the
             * root's own (MPI_IN_PLACE). */
            int direct = mask == 1 && sendbuf != MPI_IN_PLACE;
            rc = mpii_recv_ctx(direct ? acc : tmp, count, dt, child, MPII_COLL_TAG_REDUCE, comm, 1,
                               MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                break;
            mpii_op_apply(op, direct ? sendbuf : tmp, acc, count, dt);
        }
        if (mask > p / 2)
            break; /* the next mask would be >= p (and could overflow) */
    }

    mpii_scratch_free(tmp_base);
out_free_acc:
    mpii_scratch_free(acc_base);
    return rc;
}
