/*
 * mpi/coll/scatterv_linear.c: MPI_Scatterv by a flat tree.
 *
 * Algorithm:
 *   The root starts one send per other rank i with a non-empty block
 *   (sendcounts[i] elements of sendtype at sendbuf + displs[i] * extent),
 *   all at once, copies its own block locally (unless recvbuf is
 *   MPI_IN_PLACE) and waits for the sends. Every other rank receives its
 *   block straight into recvbuf. Empty blocks are not sent: the receiver's
 *   recvcount * size is then 0 too (matching type signatures).
 *
 *     P = 4, root 1:   1 --[c0]--> 0
 *                      1 --[c2]--> 2      all posted at once
 *                      1 --[c3]--> 3
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, m_i the block of
 * rank i):
 *   T = L + sum over i != root of g(m_i); every block crosses the network
 *   once. A tree would need the counts at every rank (only the root has
 *   them), so the flat tree is the natural algorithm for the v variant.
 *
 * Limits:
 *   Intracommunicators only. The root holds up to P - 1 requests at once
 *   (one allocation).
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_scatterv_linear(const void *sendbuf, const int *sendcounts, const int *displs,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, mpii_comm_t *comm)
{
    int p = comm->size;
    const mpii_datatype_t *sdt;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs;
    int nreq = 0;
    int rc = MPI_SUCCESS;
    int wrc;

    if (comm->rank != root) {
        if ((size_t)recvcount * mpii_datatype_get(recvtype)->size == 0)
            return MPI_SUCCESS;
        return mpii_recv_ctx(recvbuf, recvcount, recvtype, root, MPII_COLL_TAG_SCATTERV, comm, 1,
                             MPI_STATUS_IGNORE);
    }
    sdt = mpii_datatype_get(sendtype);
    reqs = mpii_coll_reqs(reqs_stack, (size_t)p);
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        if (i == root || (size_t)sendcounts[i] * sdt->size == 0)
            continue;
        rc = mpii_isend_coll_flat(mpii_coll_at(sendbuf, (MPI_Aint)displs[i] * sdt->extent), sendcounts[i],
                                  sendtype, i, MPII_COLL_TAG_SCATTERV, comm, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, (MPI_Aint)displs[root] * sdt->extent), sendcounts[root],
                                  sendtype, recvbuf, recvcount, recvtype);
    /* complete what was started even after an error: sendbuf stays in use */
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
