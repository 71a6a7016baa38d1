/*
 * mpi/coll/scatter_linear.c: MPI_Scatter by a flat tree.
 *
 * Algorithm:
 *   The root starts one send per other rank at once (block i of sendbuf,
 *   sendcount elements of sendtype, to rank i), copies its own block
 *   locally, and waits for all the sends. Every other rank receives its
 *   block straight into recvbuf.
 *
 *     P = 4, root 1:   1 --> 0
 *                      1 --> 2      all posted at once
 *                      1 --> 3
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = (P - 1) * g(m) + L; the root's sends are serialised by its gap,
 *   every block crosses the network once. Better than the binomial tree
 *   (scatter_binomial.c) for large m, worse for small m where the
 *   (P - 1) * o_s(m) overheads dominate.
 *
 * Limits:
 *   Intracommunicators only. The root holds P - 1 requests at once (one
 *   allocation); no data is copied except the root's own block. Sends of
 *   non-contiguous types are packed by the point-to-point layer.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_scatter_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm)
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
        return mpii_recv_ctx(recvbuf, recvcount, recvtype, root, MPII_COLL_TAG_SCATTER, comm, 1,
                             MPI_STATUS_IGNORE);
    }
    sdt = mpii_datatype_get(sendtype);
    if ((size_t)sendcount * sdt->size == 0)
        return MPI_SUCCESS;
    reqs = mpii_coll_reqs(reqs_stack, (size_t)p);
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        if (i == root)
            continue;
        rc = mpii_isend_coll_flat(mpii_coll_at(sendbuf, (MPI_Aint)i * sendcount * sdt->extent), sendcount,
                                  sendtype, i, MPII_COLL_TAG_SCATTER, comm, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, (MPI_Aint)root * sendcount * sdt->extent), sendcount,
                                  sendtype, recvbuf, recvcount, recvtype);
    /* complete what was started even after an error: sendbuf stays in use */
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
