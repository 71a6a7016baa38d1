/*
 * mpi/coll/bcast_chain.c: MPI_Bcast by a segmented chain (pipeline).
 *
 * Algorithm:
 *   Ranks form a chain in the order root, root+1, ..., root+P-1 (mod P). The
 *   buffer is cut into k segments of `seg` elements (the last may be
 *   shorter). Every rank but the root receives segment i from its
 *   predecessor, then starts sending it to its successor without waiting,
 *   and receives segment i+1 while segment i is in flight: after the chain
 *   has filled, every link carries one segment at a time in parallel.
 *
 *     root -> r+1 -> r+2 -> ... -> r+P-1        segments 0, 1, .., k-1
 *
 * Cost (pLogP: L latency, g(s) gap of an s-byte segment, k = ceil(m/s)):
 *   T = (P - 1) * (g(s) + L) + (k - 1) * max(g(s), o_r(s) + o_s(s))
 *   The first segment needs P - 1 hops, the remaining k - 1 follow one step
 *   apart: a gap of the link, or (where the CPU copies, as on shm) the time
 *   an inner rank needs to receive and resend a segment (with P = 2 there is
 *   no inner rank: g(s)). The selector searches s = m / 2^i for the minimum (the seed's
 *   method); with s = m it is an unsegmented chain, (P - 1) * (g(m) + L).
 *
 * Limits:
 *   Intracommunicators only; any P. Segments are whole elements of the
 *   datatype (at least one), so a large derived element is never split.
 *   Each rank keeps one request per segment it sends (on the stack up to
 *   32, else one allocation).
 */
#include "coll.h"

#include <stdlib.h>

int mpii_bcast_chain(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int v = (comm->rank - root + p) % p;
    int prev = (comm->rank - 1 + p) % p;
    int next = (comm->rank + 1) % p;
    int nseg, nreq = 0;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs = NULL;
    int rc = MPI_SUCCESS, wrc;

    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    if (seg < 1 || seg > count)
        seg = count;
    nseg = (count + seg - 1) / seg;
    if (v != p - 1) {
        reqs = mpii_coll_reqs(reqs_stack, (size_t)nseg);
        if (reqs == NULL)
            return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < nseg && rc == MPI_SUCCESS; i++) {
        int start = i * seg;
        int n = count - start < seg ? count - start : seg;
        void *at = mpii_coll_at(buf, (MPI_Aint)start * dtp->extent);

        if (v != 0)
            rc = mpii_recv_ctx(at, n, dt, prev, MPII_COLL_TAG_BCAST, comm, 1, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && v != p - 1) {
            rc = mpii_isend_coll_fanout(at, n, dt, next, MPII_COLL_TAG_BCAST, comm, &reqs[nreq]);
            if (rc == MPI_SUCCESS)
                nreq++;
        }
    }
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack); /* free(NULL) when there was none */
    return rc != MPI_SUCCESS ? rc : wrc;
}
