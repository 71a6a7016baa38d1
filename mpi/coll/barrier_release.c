/*
 * mpi/coll/barrier_release.c: MPI_Barrier by a binomial fan-in to rank 0
 * and a flat release: rank 0 sends an empty message to every other rank
 * (the gather-release shape of MPICH's shared-memory barrier).
 *
 * Algorithm:
 *   The fan-in of barrier_tree.c (mpii_barrier_fan_in); then rank 0, which
 *   has heard from everyone, posts P - 1 empty sends, and every other rank
 *   leaves once it has one.
 *
 *     P = 6   fan-in                 release
 *             1->0 3->2 5->4         0->1 0->2 0->3 0->4 0->5
 *             2->0 4->0
 *
 * Cost (pLogP: L latency, g(m) gap, o_s(m) send overhead, P ranks):
 *   T = the binomial tree of an empty message + (P - 2) min(o_s(1), g(1))
 *   + L + g(1); 2 (P - 1) messages in all against dissemination's
 *   P ceil(log2 P). Every rank but 0 is released by one message, so the
 *   ranks leave about together, rank 0 first; a rooted operation from
 *   rank 0 right after it starts while its receivers are still being
 *   released. Measured with 4 and 8 ranks on 2 CPUs over mbshm
 *   (2026-12-04, bench/coll --osu --sync barrier, which runs a barrier
 *   before every call as the OSU benchmarks do): Bcast of 1 B after it
 *   0.6 / 2.4 us against 15 / 48 after dissemination; Alltoall of 1 B
 *   15 / 50 against 15 / 72; Reduce 13 / 42 against 16 / 58. With a
 *   binomial release (barrier_tree.c) the ranks leave a scheduling turn
 *   apart per level: Alltoall of 1 B after it took 20 / 84.
 *
 * Limits:
 *   Intracommunicators only, any P. One fixed tag, as in barrier_tree.c:
 *   between two ranks fan-in messages go one way and releases the other.
 */
#include "coll.h"

int mpii_barrier_release(mpii_comm_t *comm)
{
    int p = comm->size, rank = comm->rank;
    int bit, nreq = 0, rc;
    char dummy = 0;
    MPI_Request stack[MPII_COLL_REQS_STACK], *reqs;

    if (p == 1)
        return MPI_SUCCESS;
    rc = mpii_barrier_fan_in(comm, &bit);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank != 0)
        return mpii_recv_ctx(&dummy, 0, MPI_BYTE, 0, MPII_COLL_TAG_BARRIER, comm, 1, MPI_STATUS_IGNORE);
    reqs = mpii_coll_reqs(stack, (size_t)p - 1);
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int r = 1; r < p; r++) {
        rc = mpii_isend_ctx(&dummy, 0, MPI_BYTE, r, MPII_COLL_TAG_BARRIER, comm, 1, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }
    int wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}
