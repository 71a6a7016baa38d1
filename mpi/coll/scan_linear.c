/*
 * mpi/coll/scan_linear.c: MPI_Scan along a chain in rank order.
 *
 * Algorithm:
 *   Rank 0's result is its input. Rank r > 0 receives the prefix
 *   x0 op ... op x(r-1) from r - 1 and combines it on the left of its own
 *   input (mpii_op_apply: inout = in op inout), then passes its result to
 *   r + 1. Combining in rank order makes it correct for non-commutative
 *   ops.
 *
 *     0 --x0--> 1 --x0.x1--> 2 --x0.x1.x2--> 3
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, gamma the
 * local reduction time per byte):
 *   T = (P - 1) * (L + g(m) + gamma * m) for the last rank; linear in P.
 *   Recursive doubling would take log2 P steps (for commutative ops, or
 *   with care for the order).
 *
 * Limits:
 *   Intracommunicators only; any P and op. Ranks > 0 need one temporary of
 *   count elements.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_scan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int rank = comm->rank;
    void *prefix = NULL;
    void *prefix_base = NULL;
    int rc = MPI_SUCCESS;

    if (count == 0)
        return MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_copy(sendbuf, recvbuf, count, dtp);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (rank > 0) {
        rc = mpii_coll_tmp_alloc(count, dtp, &prefix, &prefix_base);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = mpii_recv_ctx(prefix, count, dt, rank - 1, MPII_COLL_TAG_SCAN, comm, 1, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            mpii_op_apply(op, prefix, recvbuf, count, dt);
        mpii_scratch_free(prefix_base);
    }
    if (rc == MPI_SUCCESS && rank < p - 1)
        rc = mpii_send_ctx(recvbuf, count, dt, rank + 1, MPII_COLL_TAG_SCAN, comm, 1);
    return rc;
}
