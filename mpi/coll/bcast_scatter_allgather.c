/*
 * mpi/coll/bcast_scatter_allgather.c: MPI_Bcast for long messages by a
 * binomial scatter followed by a ring allgather (van de Geijn).
 *
 * Algorithm:
 *   The count elements are split into P chunks (the first count % P one
 *   element longer), chunk j belonging to the rank v = j in root-relative
 *   numbering v = (rank - root) mod P.
 *   1. Scatter along a binomial tree: rank v != 0 receives from v - 2^k
 *      (2^k the lowest set bit of v) the chunks of its subtree, v .. v+2^k-1,
 *      which are consecutive elements of buf; it forwards the upper halves
 *      to its children v + 2^j, 2^j < 2^k.
 *   2. Ring allgather: in steps i = 0 .. P-2, v sends chunk v - i to v + 1
 *      and receives chunk v - i - 1 from v - 1 (mod P).
 *
 * Cost (pLogP: L latency, g(x) gap of x bytes, P ranks, m bytes in all):
 *   T = sum_{j=0}^{ceil(log2 P)-1} (g(2^j m/P) + L) + (P - 1) * (x(m/P) + L)
 *   x(m) = max(g(m), o_s(m) + o_r(m)) is an exchange step's cost (each rank
 *   sends and receives at once: see mpi/coll/model.c).
 *   Every rank sends and receives about 2m bytes instead of m log2 P, so it
 *   wins for large m; the P - 1 ring steps cost latency for small m.
 *
 * Limits:
 *   Intracommunicators only; any P; count >= P (every chunk non-empty: the
 *   selector does not offer it otherwise). No temporary buffer.
 */
#include "coll.h"

/* Elements [chunk a, chunk b) of buf as (pointer, count). */
static void *chunks(void *buf, int count, int p, int a, int b, MPI_Aint ext, int *n)
{
    int s = mpii_coll_block_start(count, p, a);
    *n = mpii_coll_block_start(count, p, b) - s;
    return mpii_coll_at(buf, (MPI_Aint)s * ext);
}

int mpii_bcast_scatter_allgather(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm)
{
    MPI_Aint ext = mpii_datatype_get(dt)->extent;
    int p = comm->size;
    int v = (comm->rank - root + p) % p;
    int mask = 1;
    int rc = MPI_SUCCESS;
    int n;
    void *at;

    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    if (count < p)
        return MPI_ERR_COUNT; /* not offered by the selector */

    /* 1. binomial scatter; mask ends as the subtree size of v */
    while (mask < p) {
        if (v & mask) {
            int hi = v + mask < p ? v + mask : p;
            at = chunks(buf, count, p, v, hi, ext, &n);
            rc = mpii_recv_ctx(at, n, dt, (v - mask + root) % p, MPII_COLL_TAG_BCAST, comm, 1,
                               MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask < p) {
            int hi = v + 2 * mask < p ? v + 2 * mask : p;
            at = chunks(buf, count, p, v + mask, hi, ext, &n);
            rc = mpii_send_ctx(at, n, dt, (v + mask + root) % p, MPII_COLL_TAG_BCAST, comm, 1);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }

    /* 2. ring allgather of the chunks */
    for (int i = 0; i < p - 1 && rc == MPI_SUCCESS; i++) {
        int sc = (v - i + p) % p;
        int rcidx = (v - i - 1 + p) % p;
        int sn, rn;
        void *sat = chunks(buf, count, p, sc, sc + 1, ext, &sn);
        void *rat = chunks(buf, count, p, rcidx, rcidx + 1, ext, &rn);
        rc = mpii_sendrecv_ctx(sat, sn, dt, (comm->rank + 1) % p, MPII_COLL_TAG_BCAST, rat, rn, dt,
                               (comm->rank - 1 + p) % p, MPII_COLL_TAG_BCAST, comm, 1, MPI_STATUS_IGNORE);
    }
    return rc;
}
