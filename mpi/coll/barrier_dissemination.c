/*
 * mpi/coll/barrier_dissemination.c: MPI_Barrier by dissemination
 * (Hensgen, Finkel and Manber 1988).
 *
 * Algorithm:
 *   In round k = 0, 1, ... while 2^k < P, rank r sends an empty message to
 *   (r + 2^k) mod P and receives one from (r - 2^k) mod P. After round k a
 *   rank has heard, directly or through a chain, from the 2^(k+1) - 1 ranks
 *   before it, so after ceil(log2 P) rounds every rank knows that every other
 *   rank has entered the barrier. Works for any P, no power-of-two fold.
 *
 *     P = 5     round 0 (+1)      round 1 (+2)      round 2 (+4)
 *               0->1 1->2 2->3    0->2 1->3 2->4    0->4 1->0 2->1
 *               3->4 4->0         3->0 4->1         3->2 4->3
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks):
 *   T = ceil(log2 P) * (L + x(1)), x the exchange step of mpi/coll/model.c
 *   (max(g, o_s + o_r)); every rank sends and receives
 *   ceil(log2 P) empty messages, all rounds fully parallel.
 *
 * Limits:
 *   Intracommunicators only. Within one barrier the sources of the rounds
 *   (r - 2^k mod P, 2^k < P) are distinct, so a single fixed tag is enough:
 *   the next barrier's message from the same source cannot overtake.
 */
#include "coll.h"

int mpii_barrier_dissemination(mpii_comm_t *comm)
{
    int p = comm->size;
    int rank = comm->rank;
    char dummy = 0;

    for (int dist = 1; dist < p; dist <<= 1) {
        int dst = (rank + dist) % p;
        int src = (rank - dist + p) % p;
        int rc = mpii_sendrecv_ctx(&dummy, 0, MPI_BYTE, dst, MPII_COLL_TAG_BARRIER, &dummy, 0, MPI_BYTE,
                                   src, MPII_COLL_TAG_BARRIER, comm, 1, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        /* 2 * dist >= p ends the loop anyway; stop before it can overflow */
        if (dist > p / 2)
            break;
    }
    return MPI_SUCCESS;
}
