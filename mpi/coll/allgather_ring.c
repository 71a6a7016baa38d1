/*
 * mpi/coll/allgather_ring.c: MPI_Allgather around a ring.
 *
 * Algorithm:
 *   Each rank first puts its own block into its place in recvbuf (nothing
 *   to do with MPI_IN_PLACE). Then, in P - 1 steps, rank r sends to
 *   r + 1 the block it received in the previous step (its own in step 0)
 *   and receives from r - 1 the next one: in step i it forwards block
 *   (r - i) mod P and receives block (r - i - 1) mod P, straight into its
 *   place in recvbuf with the receive type.
 *
 *     P = 4, blocks held after each step:
 *
 *       rank:     0        1        2        3
 *       start:    0        1        2        3
 *       step 0:   0 3      1 0      2 1      3 2
 *       step 1:   0 3 2    1 0 3    2 1 0    3 2 1
 *       step 2:   all      all      all      all
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = (P - 1) * (L + x(m)), where x(m) = max(g(m), o_s(m) + o_r(m)) is an
 *   exchange step's cost (each rank sends and receives at once: see
 *   mpi/coll/model.c). Every rank sends and receives P - 1 blocks, each
 *   link carries each block once: bandwidth-optimal, latency linear in P
 *   (recursive doubling or Bruck would take log2 P steps for small m).
 *
 * Limits:
 *   Intracommunicators only; any P. No temporary buffer. Steps are
 *   synchronous send-receives, so a slow rank delays its successors step by
 *   step.
 */
#include "coll_more.h"

int mpii_allgather_ring(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
    int p = comm->size;
    int rank = comm->rank;
    int right = (rank + 1) % p;
    int left = (rank - 1 + p) % p;
    MPI_Aint bext = (MPI_Aint)recvcount * rdt->extent; /* distance between blocks */
    int rc = MPI_SUCCESS;

    if ((size_t)recvcount * rdt->size == 0)
        return MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype, mpii_coll_at(recvbuf, rank * bext), recvcount,
                                  recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int sblock = (rank - i + p) % p;
        int rblock = (rank - i - 1 + p) % p;
        rc = mpii_sendrecv_ctx(mpii_coll_at(recvbuf, sblock * bext), recvcount, recvtype, right,
                               MPII_COLL_TAG_ALLGATHER, mpii_coll_at(recvbuf, rblock * bext), recvcount, recvtype,
                               left, MPII_COLL_TAG_ALLGATHER, comm, 1, MPI_STATUS_IGNORE);
    }
    return rc;
}
