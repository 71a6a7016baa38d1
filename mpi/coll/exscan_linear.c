/*
 * mpi/coll/exscan_linear.c: MPI_Exscan along a chain in rank order.
 *
 * Algorithm:
 *   Rank 0 sends its input to rank 1 and leaves its recvbuf alone (MPI
 *   leaves it undefined). Rank r > 0 receives the prefix x0 op ... op x(r-1)
 *   from r - 1 into recvbuf (its result) and, unless it is the last rank,
 *   sends recvbuf op x(r) to r + 1, combined in a temporary so that the
 *   lower ranks stay on the left (correct for non-commutative ops).
 *
 *     0 --x0--> 1 --x0.x1--> 2 --x0.x1.x2--> 3
 *     results:  -      x0        x0.x1          x0.x1.x2
 *
 *   MPI_IN_PLACE: the input is in recvbuf, so it is copied into the
 *   temporary before the prefix arrives there.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, gamma the
 * local reduction time per byte):
 *   T = (P - 2) * (L + g(m) + gamma * m) + L + g(m) for the last rank;
 *   linear in P.
 *
 * Limits:
 *   Intracommunicators only; any P and op. Ranks 1 .. P-2 need one
 *   temporary of count elements.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_exscan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int rank = comm->rank;
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    void *next = NULL;     /* what goes to rank + 1: prefix op input */
    void *next_base = NULL;
    int rc;

    if (count == 0 || p == 1)
        return MPI_SUCCESS;
    if (rank == 0)
        return mpii_send_ctx(input, count, dt, 1, MPII_COLL_TAG_EXSCAN, comm, 1);

    if (rank < p - 1) {
        rc = mpii_coll_tmp_alloc(count, dtp, &next, &next_base);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = mpii_coll_copy(input, next, count, dtp);
        if (rc != MPI_SUCCESS)
            goto out_free_next;
    }
    rc = mpii_recv_ctx(recvbuf, count, dt, rank - 1, MPII_COLL_TAG_EXSCAN, comm, 1, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && rank < p - 1) {
        mpii_op_apply(op, recvbuf, next, count, dt);
        rc = mpii_send_ctx(next, count, dt, rank + 1, MPII_COLL_TAG_EXSCAN, comm, 1);
    }

out_free_next:
    mpii_scratch_free(next_base);
    return rc;
}
