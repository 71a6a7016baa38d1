/*
 * comm_idup: MPI_Comm_idup is nonblocking (MPI 3.1 6.4.2).
 *   1. A ring of pair communicators (pair i = {i, i+1 mod size}, each
 *      built with MPI_Comm_split; at 2 ranks two communicators of the same
 *      two ranks): every rank idups its "left" pair's communicator first
 *      and its "right" one second, so neighbours start the two dups in
 *      opposite orders, all round the ring. A blocking dup would deadlock;
 *      context id agreements that retried the same way after failing
 *      together livelocked (MPICH's comm_idup_overlap).
 *   2. An idup of MPI_COMM_WORLD pending while MPI_Comm_create_group runs,
 *      the two started in opposite orders on even and odd ranks.
 *   3. Every new communicator works and is its own: the same tag is sent on
 *      a communicator and on its dup, and each receive (MPI_ANY_TAG) gets
 *      the message of its own communicator; an Allreduce on each.
 *   4. MPI_Comm_idup_with_info with MPI_INFO_NULL.
 *   5. Several idups pending on one communicator, interleaved with
 *      point-to-point traffic on it (as MPICH's comm_idup_isend).
 * Prints "comm_idup: ok"; a failed check aborts the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "comm_idup"
#define CHECK_RANK rank
#define CHECK_RANK_FIRST
#include "check.h"

static int rank, size;

/* comm and dup have the same ranks: a message on each, same tag, received
 * with MPI_ANY_TAG in the opposite order; each gets its own */
static void check_pair(MPI_Comm comm, MPI_Comm dup, const char *what)
{
    int n, me, sum = -1, one = 1;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS && sum == n, "%s: Allreduce %d",
          what, sum);
    if (n < 2)
        return;
    int to = (me + 1) % n, from = (me + n - 1) % n, a = 100 + rank, b = 200 + rank, ra = -1, rb = -1;
    MPI_Request rq[2];
    MPI_Isend(&a, 1, MPI_INT, to, 5, comm, &rq[0]);
    MPI_Isend(&b, 1, MPI_INT, to, 5, dup, &rq[1]);
    MPI_Recv(&rb, 1, MPI_INT, from, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
    MPI_Recv(&ra, 1, MPI_INT, from, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(ra >= 100 && ra < 200 && rb >= 200, "%s: got %d on the communicator and %d on its dup", what, ra,
          rb);
}

/* K idups pending together on comm, interleaved with messages from comm
 * rank 0 to every other rank (sent before each idup there, received after
 * it elsewhere); then every dup works and all are congruent */
static void pending_idups(MPI_Comm comm)
{
    enum { K = 8 };
    MPI_Comm dups[K];
    int n, me, in[K], out[K], nr = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(n + 1) * K);
    CHECK(r, "out of memory");
    for (int k = 0; k < K; k++) {
        out[k] = 1000 + k;
        in[k] = -1;
        if (me == 0) {
            for (int i = 1; i < n; i++)
                MPI_Isend(&out[k], 1, MPI_INT, i, 0, comm, &r[nr++]);
            MPI_Comm_idup(comm, &dups[k], &r[nr++]);
        } else {
            MPI_Comm_idup(comm, &dups[k], &r[nr++]);
            MPI_Irecv(&in[k], 1, MPI_INT, 0, 0, comm, &r[nr++]);
        }
    }
    MPI_Waitall(nr, r, MPI_STATUSES_IGNORE);
    free(r);
    for (int k = 0; k < K; k++) {
        CHECK(me == 0 || in[k] == 1000 + k, "message %d: got %d", k, in[k]);
        check_pair(comm, dups[k], "one of several pending idups");
        for (int j = 0; j < k; j++) {
            int cmp;
            MPI_Comm_compare(dups[j], dups[k], &cmp);
            CHECK(cmp == MPI_CONGRUENT, "dups %d and %d compare %d", j, k, cmp);
        }
    }
    for (int k = 0; k < K; k++)
        MPI_Comm_free(&dups[k]);
}

int main(int argc, char **argv)
{
    MPI_Comm left = MPI_COMM_NULL, right = MPI_COMM_NULL, ldup, rdup, wdup, grp;
    MPI_Request rq[2];
    MPI_Group wg;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 1. pair i = {i, i+1 mod size}: rank r is in pair r-1 (its left) and
     * pair r (its right) */
    for (int i = 0; i < size && size > 1; i++) {
        MPI_Comm c;
        int next = (i + 1) % size, in = rank == i || rank == next;
        MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &c);
        if (rank == i)
            right = c;
        else if (rank == next)
            left = c;
    }
    int n = 0;
    if (left != MPI_COMM_NULL)
        MPI_Comm_idup(left, &ldup, &rq[n++]);
    if (right != MPI_COMM_NULL)
        MPI_Comm_idup(right, &rdup, &rq[n++]);
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    /* checked in the order of the pairs' indices (the ring's last pair,
     * rank 0's left, last), as the checks are blocking collectives */
    for (int k = 0; k < 2 && size > 1; k++) {
        if ((k == 0) == (rank != 0)) {
            check_pair(left, ldup, "left pair");
            MPI_Comm_free(&ldup);
            MPI_Comm_free(&left);
        } else {
            check_pair(right, rdup, "right pair");
            MPI_Comm_free(&rdup);
            MPI_Comm_free(&right);
        }
    }

    /* 2. an idup and MPI_Comm_create_group, in opposite orders */
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, 3, &grp);
        MPI_Comm_idup(MPI_COMM_WORLD, &wdup, &rq[0]);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &wdup, &rq[0]);
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, 3, &grp);
    }
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Group_free(&wg);
    check_pair(MPI_COMM_WORLD, wdup, "idup of MPI_COMM_WORLD");
    check_pair(grp, wdup, "create_group and the idup");
    MPI_Comm_free(&grp);
    MPI_Comm_free(&wdup);

    /* 4. with info */
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &wdup, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    check_pair(MPI_COMM_WORLD, wdup, "idup_with_info");
    MPI_Comm_free(&wdup);

    /* 5. idups pending together on one communicator, with traffic: on
     * MPI_COMM_WORLD and on the even / odd ranks (as MPICH's
     * comm_idup_isend, which livelocked when the pending agreements all
     * retried from the same floor) */
    {
        MPI_Comm parity;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
        for (int rep = 0; rep < 4; rep++) {
            pending_idups(MPI_COMM_WORLD);
            pending_idups(parity);
        }
        MPI_Comm_free(&parity);
    }

    MPI_Finalize();
    if (rank == 0)
        printf("comm_idup: ok\n");
    return 0;
}
