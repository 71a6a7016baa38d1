/*
 * mpi/coll/bcast_bintree.c: MPI_Bcast along a segmented binary tree.
 *
 * Algorithm:
 *   Ranks renumbered from the root, v = (rank - root) mod P, form a complete
 *   binary tree: the parent of v is (v - 1) / 2, its children 2v + 1 and
 *   2v + 2 (when < P). The buffer is cut into k segments of `seg` elements;
 *   each rank receives segment i from its parent and immediately starts
 *   sending it to both children, then receives segment i + 1: a pipeline of
 *   depth floor(log2 P) instead of the chain's P - 1.
 *
 *              0
 *           1     2
 *          3 4   5 6        (P = 7)
 *
 * Cost (pLogP: L latency, g(s) gap of an s-byte segment, k = ceil(m/s),
 * h = floor(log2 P) the depth of the deepest rank, d = 2 children, 1 at P=2):
 *   T = h * (d * g(s) + L) + (k - 1) * max(d * g(s), o_r(s) + d * o_s(s))
 *   for a full tree; model.c walks the tree for the first segment (the
 *   first child's subtree is served first: at P = 4 the way to rank 3 is
 *   two hops, 0 -> 1 -> 3, with no g in it).
 *   Each inner rank's link carries every segment twice, and its CPU
 *   receives it once and sends it twice (P <= 3: only the root forwards,
 *   the step is d * g(s)). The selector
 *   searches s = m / 2^i for the minimum.
 *
 * Limits:
 *   Intracommunicators only; any P. Segments are whole elements (at least
 *   one). Up to two requests per segment are kept (on the stack up to 32, else
 *   one allocation).
 */
#include "coll.h"

#include <stdlib.h>

int mpii_bcast_bintree(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);
    int p = comm->size;
    int v = (comm->rank - root + p) % p;
    int parent = (((v - 1) / 2) + root) % p;
    int child[2], nchild = 0;
    int nseg, nreq = 0;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs = NULL;
    int rc = MPI_SUCCESS, wrc;

    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    for (int c = 1; c <= 2; c++)
        if (2 * v + c < p)
            child[nchild++] = (2 * v + c + root) % p;
    if (seg < 1 || seg > count)
        seg = count;
    nseg = (count + seg - 1) / seg;
    if (nchild > 0) {
        reqs = mpii_coll_reqs(reqs_stack, (size_t)nseg * (size_t)nchild);
        if (reqs == NULL)
            return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < nseg && rc == MPI_SUCCESS; i++) {
        int start = i * seg;
        int n = count - start < seg ? count - start : seg;
        void *at = mpii_coll_at(buf, (MPI_Aint)start * dtp->extent);

        if (v != 0)
            rc = mpii_recv_ctx(at, n, dt, parent, MPII_COLL_TAG_BCAST, comm, 1, MPI_STATUS_IGNORE);
        for (int c = 0; c < nchild && rc == MPI_SUCCESS; c++) {
            rc = mpii_isend_coll_fanout(at, n, dt, child[c], MPII_COLL_TAG_BCAST, comm, &reqs[nreq]);
            if (rc == MPI_SUCCESS)
                nreq++;
        }
    }
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack); /* free(NULL) when there was none */
    return rc != MPI_SUCCESS ? rc : wrc;
}
