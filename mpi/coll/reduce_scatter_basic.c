/*
 * mpi/coll/reduce_scatter_basic.c: MPI_Reduce_scatter and
 * MPI_Reduce_scatter_block as a reduce to rank 0 followed by a scatterv.
 *
 * Algorithm:
 *   1. Reduce the n = sum(recvcounts) elements of every rank to rank 0,
 *      into a temporary there: reduce_binomial.c for commutative ops,
 *      reduce_linear.c (rank order r0 op r1 op ... op r(P-1)) otherwise,
 *      the same rule as MPI_Reduce's selector.
 *   2. Scatter the result from rank 0 with scatterv_linear.c: rank i gets
 *      recvcounts[i] elements from displacement sum(recvcounts[<i]).
 *
 *     P = 3, counts (2, 1, 1):
 *
 *       reduce:    x0 x1 x2 --> [ s s | s | s ] at rank 0
 *       scatterv:  rank 0 keeps [s s], sends [s] to 1 and [s] to 2
 *
 *   MPI_IN_PLACE: each rank's input is recvbuf (n elements); the reduce
 *   sends it (or, at rank 0, reads it) before the scatterv overwrites its
 *   first recvcounts[i] elements.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, n bytes
 * of input per rank, gamma the local reduction time per byte):
 *   T = T_reduce(n) + T_scatterv, i.e. for a commutative op
 *   ceil(log2 P) * (L + g(n) + gamma * n) + L + (P - 1) * g(n / P);
 *   every rank's whole input reaches rank 0's subtree, so it moves about
 *   log2 P times more data than a recursive-halving reduce-scatter.
 *
 * Limits:
 *   Intracommunicators only. n must fit in an int (the caller checks).
 *   Rank 0 needs a temporary of n elements and the reduce's own ones.
 *   Composed of two algorithms, so no better than their sum; kept because
 *   it is correct for non-commutative ops with no extra care.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_reduce_scatter_basic(const void *sendbuf, void *recvbuf, const int *recvcounts,
                              MPI_Datatype dt, MPI_Op op, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int rank = comm->rank;
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int *displs = NULL;
    void *result = NULL;   /* rank 0: the whole reduction */
    void *result_base = NULL;
    int total = 0;
    int rc;

    for (int i = 0; i < p; i++)
        total += recvcounts[i];
    if (total == 0)
        return MPI_SUCCESS;

    if (rank == 0) {
        displs = malloc(sizeof(*displs) * (size_t)p);
        if (displs == NULL)
            return MPI_ERR_NO_MEM;
        displs[0] = 0;
        for (int i = 1; i < p; i++)
            displs[i] = displs[i - 1] + recvcounts[i - 1];
        rc = mpii_coll_tmp_alloc(total, dtp, &result, &result_base);
        if (rc != MPI_SUCCESS)
            goto out_free_displs;
    }

    if (mpii_op_is_commutative(op))
        rc = mpii_reduce_binomial(input, result, total, dt, op, 0, comm);
    else
        rc = mpii_reduce_linear(input, result, total, dt, op, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = mpii_scatterv_linear(result, recvcounts, displs, dt, recvbuf, recvcounts[rank], dt, 0, comm);

    mpii_scratch_free(result_base);
out_free_displs:
    free(displs);
    return rc;
}
