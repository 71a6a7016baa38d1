/*
 * mpi/coll/alltoall_direct.c: MPI_Alltoall by direct exchange, every send
 * and receive posted at once, all ranks in the same order (LAM 6.5 style).
 *
 * Algorithm:
 *   Post P - 1 receives (from 0, 1, .., P-1, skipping self) and P - 1
 *   sends (to 0, 1, .., P-1) without waiting, copy the own block locally
 *   while they travel, then wait for all. Since every rank starts with the
 *   same destination, the first messages of all ranks converge on rank 0
 *   (then 1, ...): the contention the rotated variant (alltoall_rotated.c)
 *   avoids.
 *
 * Cost (pLogP: L, g, o_s, o_r; P ranks, m bytes per block, c the fitted
 * contention ratio of the network, in [0, 1]):
 *   lower = (P - 1) (o_s(m) + o_r(m)) + L    sends overlap fully
 *   upper = (P - 1) g(m) + L                 the link serialises them
 *   T = max(lower + min(1, 2c) (upper - lower) + (P - 2) o_r(m), X(m))
 *       + gamma m
 *   (rotated: c and no (P - 2) o_r term; the same order everywhere is
 *   modelled as twice the contention, and each receiver gets its P - 1
 *   blocks in a burst that it takes one after the other). X(m) is one
 *   exchange step: every rank sends and receives at once, which neither
 *   bound counts (P = 2 is exactly one exchange: measured like MPI_Sendrecv,
 *   35 % above the one-way bound over mbshm); gamma m the own block's copy,
 *   priced as combining (the two cost the same out of cache).
 *
 * Limits:
 *   Any P. sendbuf is never MPI_IN_PLACE here (coll_more.c copies the input
 *   aside first). 2 (P - 1) requests in flight (one allocation), which may
 *   flood the unexpected queues at large P: the model's job to avoid.
 */
#include "coll_more.h"

#include <stdlib.h>

/*
 * Every rank sends and receives at once, as in MPI_Sendrecv, so the blocks
 * are sent as exchanges (mpii_isend_coll_exchange): over mbshm, from 64
 * KiB, each receiver reads its blocks with one copy instead of two through
 * the rings. Measured at P = 8 on 2 CPUs (2026-12-04, bench/coll -c
 * alltoall --osu, alternated runs, Open MPI's times in brackets):
 *   --sync window: 64 KiB 388 -> 352 us (459), 128 KiB 759 -> 633 (735),
 *   256 KiB 1349 -> 1074 (1346); 512 KiB and 1 MiB 3-10 % slower;
 *   --sync barrier (OSU's way): 512 KiB 2951-4500 -> 1907-2356 (2094-3860),
 *   1 MiB 4929-5662 -> 3679-5207 (3394-4657), 2 MiB 8252-11017 ->
 *   8167-9927 (8285-9513).
 */

/* Shared with alltoall_rotated.c through this file: post everything in the
 * order `rotated` selects and wait. */
static int post_all(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, mpii_comm_t *comm, int rotated)
{
    MPI_Aint sbext = (MPI_Aint)sendcount * mpii_datatype_get(sendtype)->extent;
    MPI_Aint rbext = (MPI_Aint)recvcount * mpii_datatype_get(recvtype)->extent;
    int p = comm->size;
    int rank = comm->rank;
    MPI_Request reqs_stack[MPII_COLL_REQS_STACK], *reqs;
    int nreq = 0;
    int rc, wrc;

    if ((size_t)recvcount * mpii_datatype_get(recvtype)->size == 0)
        return MPI_SUCCESS;
    if (p == 1)
        return mpii_coll_local_copy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    reqs = mpii_coll_reqs(reqs_stack, 2 * (size_t)(p - 1));
    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    rc = MPI_SUCCESS;
    for (int i = rotated ? 1 : 0; i < p && rc == MPI_SUCCESS; i++) {
        int src = rotated ? (rank - i + p) % p : i;
        if (src == rank)
            continue;
        rc = mpii_irecv_coll_exchange(mpii_coll_at(recvbuf, src * rbext), recvcount, recvtype, src,
                                      MPII_COLL_TAG_ALLTOALL, comm, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    for (int i = rotated ? 1 : 0; i < p && rc == MPI_SUCCESS; i++) {
        int dst = rotated ? (rank + i) % p : i;
        if (dst == rank)
            continue;
        rc = mpii_isend_coll_exchange(mpii_coll_at(sendbuf, dst * sbext), sendcount, sendtype, dst,
                                      MPII_COLL_TAG_ALLTOALL, comm, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    /* the own block while the messages travel (before posting, it delayed
     * every message by the copy: P = 2, 1 MiB blocks, ~100 us) */
    if (rc == MPI_SUCCESS)
        rc = mpii_coll_local_copy(mpii_coll_at(sendbuf, rank * sbext), sendcount, sendtype,
                                  mpii_coll_at(recvbuf, rank * rbext), recvcount, recvtype);
    wrc = mpii_waitall(nreq, reqs);
    mpii_coll_reqs_free(reqs, reqs_stack);
    return rc != MPI_SUCCESS ? rc : wrc;
}

int mpii_alltoall_direct(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm)
{
    return post_all(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0);
}

/*
 * The rotated direct exchange (LAM 7.0.4 / MPICH 1.2.5 order) is the same
 * code with another order; its own file, alltoall_rotated.c, documents it
 * and calls this entry point.
 */
int mpii_alltoall_post_all(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm, int rotated)
{
    return post_all(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, rotated);
}
