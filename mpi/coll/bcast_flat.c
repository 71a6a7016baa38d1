/*
 * mpi/coll/bcast_flat.c: MPI_Bcast along a flat tree (linear).
 *
 * Algorithm:
 *   The root posts one send of the whole buffer to every other rank, all at
 *   once, and waits for them; every other rank receives once from the root.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks):
 *   T = (P - 1) * g(m) + L; the root's link serialises the P - 1 messages,
 *   the last one then needs L to arrive. Best for few ranks and small m
 *   where g(m) << L.
 *
 * Limits:
 *   Intracommunicators only; any P. The root holds P - 1 requests (one
 *   allocation). Non-contiguous datatypes are handled by point-to-point.
 */
#include "coll.h"

#include <stdlib.h>

int mpii_bcast_flat(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm)
{
    int p = comm->size;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs;
    int nreq = 0;
    int rc = MPI_SUCCESS, wrc;

    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    if (comm->rank != root)
        return mpii_recv_ctx(buf, count, dt, root, MPII_COLL_TAG_BCAST, comm, 1, MPI_STATUS_IGNORE);

    reqs = mpii_coll_reqs(reqs_stack, (size_t)(p - 1));
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        rc = mpii_isend_coll_fanout(buf, count, dt, (root + i) % p, MPII_COLL_TAG_BCAST, comm, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
