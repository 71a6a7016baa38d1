/*
 * mpi/coll/gather_linear.c: MPI_Gather by a flat tree.
 *
 * Algorithm:
 *   The root posts one receive per other rank at once (rank i's block into
 *   block i of recvbuf, recvcount elements of recvtype), copies its own
 *   block locally and waits for all of them. Every other rank sends its
 *   block straight from sendbuf.
 *
 *     P = 4, root 1:   0 --.
 *                      2 --+--> 1      all receives posted at once
 *                      3 --'
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = L + (P - 1) * g(m); the root's receives are serialised by its gap
 *   (and, over shared memory, by the copies), every block crosses the
 *   network once. Better than the binomial tree (gather_binomial.c) for
 *   large m, worse for small m where (P - 1) * o_r(m) dominates.
 *
 * Limits:
 *   Intracommunicators only. The root holds P - 1 requests at once (one
 *   allocation); with many ranks the root's receive queue and the
 *   unexpected messages grow linearly (incast).
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_gather_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm)
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
        return mpii_send_coll_flat(sendbuf, sendcount, sendtype, root, MPII_COLL_TAG_GATHER, comm);
    }
    rdt = mpii_datatype_get(recvtype);
    if ((size_t)recvcount * rdt->size == 0)
        return MPI_SUCCESS;
    reqs = mpii_coll_reqs(reqs_stack, (size_t)p);
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        if (i == root)
            continue;
        rc = mpii_irecv_ctx(mpii_coll_at(recvbuf, (MPI_Aint)i * recvcount * rdt->extent), recvcount, recvtype, i,
                            MPII_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = mpii_coll_local_copy(sendbuf, sendcount, sendtype,
                                  mpii_coll_at(recvbuf, (MPI_Aint)root * recvcount * rdt->extent), recvcount,
                                  recvtype);
    /* complete what was started even after an error: recvbuf stays in use */
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
