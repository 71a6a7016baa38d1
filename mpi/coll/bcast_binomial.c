/*
 * mpi/coll/bcast_binomial.c: MPI_Bcast along a binomial tree.
 *
 * Algorithm:
 *   Ranks are renumbered relative to the root, v = (rank - root) mod P
 *   (with more ranks than CPUs, the CPUs' ranks in blocks: tree_map.c). A
 *   rank v != 0 receives the whole buffer from its parent v - 2^k, where 2^k
 *   is the lowest set bit of v; it then forwards to its children v + 2^j for
 *   2^j < 2^k (largest subtree first), as long as v + 2^j < P. The root has
 *   children 2^j for all 2^j < P. Ranks that received in round k send from
 *   round k + 1 on, so the informed set doubles each round.
 *
 *     P = 8, root 0 (v = rank):
 *
 *       0 ---------> 4 ------> 6 ---> 7
 *       |            '-------> 5
 *       |----------> 2 ------> 3
 *       '----------> 1
 *       round 1      round 2   round 3
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks):
 *   T = ceil(log2 P) * (L + g(m)) for P a power of two; the root sends
 *   ceil(log2 P) messages of m bytes, every other rank receives one. For
 *   other P the subtrees are uneven and model.c walks the tree (P = 6:
 *   g(m) + 2 (L + g(m))). Good for small m; for large m the
 *   whole message is forwarded store-and-forward log2 P times, where a
 *   segmented chain or a scatter + allgather algorithm would win.
 *
 * Limits:
 *   Intracommunicators only. Data is never split: each message carries all
 *   `count` elements, so a non-contiguous datatype is handled by the
 *   point-to-point layer (no local packing here).
 */
#include "coll.h"

int mpii_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm)
{
    int p = comm->size;
    MPI_Request reqs[8 * sizeof(int)];
    int child[8 * sizeof(int)], nchild = 0, parent = -1, nreq = 0;
    int mask = 1, vrank;
    mpii_tree_map_t tm;
    int rc;

    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    rc = mpii_coll_tree_map(comm, root, &tm);
    if (rc != MPI_SUCCESS)
        return rc;
    vrank = tm.me;

    /* the parent: clear the lowest set bit of vrank */
    while (mask < p) {
        if (vrank & mask) {
            parent = mpii_tree_rank(&tm, vrank - mask);
            break;
        }
        if (mask > p / 2)
            break; /* the next mask would be >= p (and could overflow) */
        mask <<= 1;
    }
    /* the children, largest subtree first: below the bit that linked us to
     * the parent; for the root the loop above ended with a mask at least as
     * large as its largest child distance (all read from the map before the
     * first wait: see coll.h) */
    if (vrank != 0)
        mask >>= 1;
    for (; mask > 0; mask >>= 1)
        if (vrank + mask < p)
            child[nchild++] = mpii_tree_rank(&tm, vrank + mask);

    if (parent >= 0) {
        rc = mpii_recv_ctx(buf, count, dt, parent, MPII_COLL_TAG_BCAST, comm, 1, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int c = 0; c < nchild; c++) {
        rc = mpii_isend_coll_fanout(buf, count, dt, child[c], MPII_COLL_TAG_BCAST, comm, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }

    /* complete what was started even after an error: buf stays in use */
    int wrc = mpii_waitall(nreq, reqs);
    return rc != MPI_SUCCESS ? rc : wrc;
}
