/*
 * mpi/coll/allreduce_recursive_doubling.c: MPI_Allreduce by recursive
 * doubling (pairwise exchange), for commutative ops.
 *
 * Algorithm:
 *   Let P' be the largest power of two <= P and rem = P - P'.
 *   1. Fold-in: among ranks 0 .. 2*rem-1, each even rank sends its input to
 *      the odd rank above it, which combines it and takes part in step 2
 *      with new rank r/2; the even ranks sit out. Ranks >= 2*rem take part
 *      with new rank r - rem. Now P' ranks hold the P inputs.
 *   2. Recursive doubling: for mask = 1, 2, ..., P'/2 each participant
 *      exchanges its partial result with new rank (newrank XOR mask) and
 *      combines. After log2 P' rounds all participants hold the result.
 *   3. Fold-out: each odd rank < 2*rem sends the result back to the even
 *      rank below it.
 *
 *     P = 6 (P' = 4, rem = 2; new ranks in brackets)
 *
 *       fold-in     0->1[0]  2->3[1]      4[2]  5[3]
 *       mask 1      1<->3    4<->5
 *       mask 2      1<->4    3<->5
 *       fold-out    1->0     3->2
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, gamma the
 * local reduction time per byte, not a pLogP parameter):
 *   T = log2 P' * (L + x(m) + gamma * m)            when P = P'
 *     + 2 * (L + g(m)) + gamma * m                  more when P != P'
 *     + gamma * m       the input copied to recvbuf (not in place)
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   Each round moves the full m bytes both ways, so for large m a
 *   reduce-scatter + allgather (Rabenseifner) would move about 2m instead of
 *   m log2 P per rank.
 *
 * Limits:
 *   Commutative ops only (the combination order differs between ranks);
 *   non-commutative ones go to reduce + bcast in coll.c. Intracommunicators
 *   only. One temporary buffer of count elements per rank.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_allreduce_recursive_doubling(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                                      MPI_Op op, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int rank = comm->rank;
    int pof2, rem, newrank;
    void *tmp = NULL;
    void *tmp_base = NULL;
    int rc = MPI_SUCCESS;

    if (count == 0)
        return MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_copy(sendbuf, recvbuf, count, dtp);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (p == 1)
        return MPI_SUCCESS;
    rc = mpii_coll_tmp_alloc(count, dtp, &tmp, &tmp_base);
    if (rc != MPI_SUCCESS)
        return rc;

    pof2 = mpii_coll_pof2_floor(p);
    rem = p - pof2;

    /* 1. fold-in of the extra ranks */
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = mpii_send_ctx(recvbuf, count, dt, rank + 1, MPII_COLL_TAG_ALLREDUCE, comm, 1);
            newrank = -1;
        } else {
            rc = mpii_recv_ctx(tmp, count, dt, rank - 1, MPII_COLL_TAG_ALLREDUCE, comm, 1,
                               MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                mpii_op_apply(op, tmp, recvbuf, count, dt);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (rc != MPI_SUCCESS)
        goto out_free_tmp;

    /* 2. recursive doubling among the pof2 participants */
    if (newrank != -1) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;

            /* recvbuf is combined into next: not pulled (p2p.c) */
            rc = mpii_sendrecv_coll_rewrite(recvbuf, count, dt, dst, MPII_COLL_TAG_ALLREDUCE, tmp, count, dt,
                                            dst, MPII_COLL_TAG_ALLREDUCE, comm);
            if (rc != MPI_SUCCESS)
                goto out_free_tmp;
            mpii_op_apply(op, tmp, recvbuf, count, dt);
        }
    }

    /* 3. fold-out: give the result back to the ranks that sat out */
    if (rank < 2 * rem) {
        if (rank % 2 == 0)
            rc = mpii_recv_ctx(recvbuf, count, dt, rank + 1, MPII_COLL_TAG_ALLREDUCE, comm, 1,
                               MPI_STATUS_IGNORE);
        else
            rc = mpii_send_ctx(recvbuf, count, dt, rank - 1, MPII_COLL_TAG_ALLREDUCE, comm, 1);
    }

out_free_tmp:
    mpii_scratch_free(tmp_base);
    return rc;
}
