/*
 * mpi/coll/gatherv_linear.c: MPI_Gatherv by a flat tree.
 *
 * Algorithm:
 *   The root posts one receive per other rank i with a non-empty block
 *   (recvcounts[i] elements of recvtype at recvbuf + displs[i] * extent),
 *   all at once, copies its own block locally (unless sendbuf is
 *   MPI_IN_PLACE) and waits for them. Every other rank sends its block
 *   straight from sendbuf. Empty blocks are not sent: the sender's
 *   sendcount * size is then 0 too (matching type signatures).
 *
 *     P = 4, root 1:   0 --[c0]--.
 *                      2 --[c2]--+--> 1      all receives posted at once
 *                      3 --[c3]--'
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, m_i the block of
 * rank i):
 *   T = L + sum over i != root of g(m_i); every block crosses the network
 *   once. Only the root knows the counts, hence the flat tree.
 *
 * Limits:
 *   Intracommunicators only. The root holds up to P - 1 requests at once
 *   (one allocation); incast at the root grows linearly with P.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_gatherv_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                        mpii_comm_t *comm)
{
    int p = comm->size;
    const mpii_datatype_t *rdt;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs;
    int nreq = 0;
    int rc = MPI_SUCCESS;
    int wrc;

    if (comm->rank != root) {
        if ((size_t)sendcount * mpii_datatype_get(sendtype)->size == 0)
            return MPI_SUCCESS;
        return mpii_send_coll_flat(sendbuf, sendcount, sendtype, root, MPII_COLL_TAG_GATHERV, comm);
    }
    rdt = mpii_datatype_get(recvtype);
    reqs = mpii_coll_reqs(reqs_stack, (size_t)p);
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        if (i == root || (size_t)recvcounts[i] * rdt->size == 0)
            continue;
        rc = mpii_irecv_ctx(mpii_coll_at(recvbuf, (MPI_Aint)displs[i] * rdt->extent), recvcounts[i], recvtype, i,
                            MPII_COLL_TAG_GATHERV, comm, 1, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype,
                                  mpii_coll_at(recvbuf, (MPI_Aint)displs[root] * rdt->extent), recvcounts[root],
                                  recvtype);
    /* complete what was started even after an error: recvbuf stays in use */
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
