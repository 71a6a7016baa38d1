/*
 * mpi/coll/barrier_tree.c: MPI_Barrier by a binomial fan-in to rank 0 and a
 * binomial release from it (Open MPI's "tree" barrier).
 *
 * Algorithm:
 *   Fan-in (mpii_barrier_fan_in, shared with barrier_release.c): rank r
 *   waits for an empty message from each child r + 2^j (2^j below r's
 *   lowest set bit, r + 2^j < P; at rank 0 every 2^j < P), smallest
 *   subtree first, then sends one to its parent r - lowbit(r). Rank 0 has
 *   then heard from everyone. Release: the same tree in reverse, each rank
 *   waits for its parent's empty message and sends one to each child,
 *   largest subtree first.
 *
 *     P = 6   fan-in                 release
 *             1->0 3->2 5->4         0->4 0->2 0->1
 *             2->0 4->0              4->5 2->3
 *
 * Cost (pLogP: L latency, g(m) gap, P ranks):
 *   T = 2 x the binomial tree of an empty message, about
 *   2 ceil(log2 P) (L + g(1)): twice dissemination's rounds, but 2 (P - 1)
 *   messages in all against P ceil(log2 P). Rank 0 leaves first and the
 *   deepest leaves last.
 *
 * Limits:
 *   Intracommunicators only, any P. One fixed tag: a pair of ranks carries
 *   fan-in messages one way and release messages the other, and a rank's
 *   next fan-in message waits for this barrier's release, so no message can
 *   be taken for another (MPI's non-overtaking order).
 */
#include "coll.h"

int mpii_barrier_fan_in(mpii_comm_t *comm, int *parent_bit)
{
    int p = comm->size, rank = comm->rank;
    char dummy = 0;

    for (int mask = 1; mask < p; mask <<= 1) {
        if (rank & mask) {
            *parent_bit = mask;
            return mpii_send_ctx(&dummy, 0, MPI_BYTE, rank - mask, MPII_COLL_TAG_BARRIER, comm, 1);
        }
        if (rank + mask < p) {
            int rc = mpii_recv_ctx(&dummy, 0, MPI_BYTE, rank + mask, MPII_COLL_TAG_BARRIER, comm, 1,
                                   MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (mask > p / 2)
            break; /* the next mask would be >= p (and could overflow) */
    }
    /* rank 0: past its largest child distance */
    *parent_bit = mpii_coll_pof2_floor(p - 1) << 1;
    return MPI_SUCCESS;
}

int mpii_barrier_tree(mpii_comm_t *comm)
{
    int p = comm->size, rank = comm->rank;
    int mask, nreq = 0, rc;
    char dummy = 0;
    MPI_Request reqs[8 * sizeof(int)];

    if (p == 1)
        return MPI_SUCCESS;
    rc = mpii_barrier_fan_in(comm, &mask);
    if (rc == MPI_SUCCESS && rank != 0)
        rc = mpii_recv_ctx(&dummy, 0, MPI_BYTE, rank - mask, MPII_COLL_TAG_BARRIER, comm, 1,
                           MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    /* release the children, largest subtree first */
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rank + mask < p) {
            rc =
                mpii_isend_ctx(&dummy, 0, MPI_BYTE, rank + mask, MPII_COLL_TAG_BARRIER, comm, 1, &reqs[nreq]);
            if (rc != MPI_SUCCESS)
                break;
            nreq++;
        }
    }
    int wrc = mpii_waitall(nreq, reqs);
    return rc != MPI_SUCCESS ? rc : wrc;
}
