/*
 * alltoallw: MPI_Alltoallw and MPI_Ialltoallw (MPI 3.1 5.8), checked
 * against values computed here.
 *   Rank r sends j + 1 ints to rank j: to even j as MPI_INT, to odd j as one
 *   element of a vector type (every other int of a strided send area); the
 *   receiver takes block i (i + ... ints from rank i) as MPI_INT for even i
 *   and as one contiguous type of r + 1 ints for odd i. Displacements are in
 *   bytes, with gaps. Also MPI_IN_PLACE (types and counts of the receive
 *   side), zero counts, and the nonblocking variant.
 * Prints "alltoallw: ok"; a failed check aborts the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "alltoallw"
#define CHECK_RANK rank
#define CHECK_RANK_FIRST
#include "check.h"

static int rank, size;

static int val(int from, int to, int k)
{
    return from * 10000 + to * 100 + k;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size, *sc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p), *rc = malloc(sizeof(int) * p),
        *rd = malloc(sizeof(int) * p);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * p), *rt = malloc(sizeof(MPI_Datatype) * p);
    CHECK(sc && sd && rc && rd && st && rt, "out of memory");
    /* send area: block j at 64 ints per j, strided by 2 for odd j */
    int *sbuf = malloc(sizeof(int) * 64 * p), *rbuf = malloc(sizeof(int) * 64 * p);
    CHECK(sbuf && rbuf, "out of memory");
    MPI_Datatype mine; /* r + 1 contiguous ints: the receive type of odd blocks */
    MPI_Type_contiguous(rank + 1, MPI_INT, &mine);
    MPI_Type_commit(&mine);
    for (int j = 0; j < p; j++) {
        sd[j] = (int)sizeof(int) * 64 * j;
        for (int k = 0; k < 64; k++)
            sbuf[64 * j + k] = -1;
        if (j % 2 == 0) {
            sc[j] = j + 1;
            st[j] = MPI_INT;
            for (int k = 0; k <= j; k++)
                sbuf[64 * j + k] = val(rank, j, k);
        } else {
            MPI_Type_vector(j + 1, 1, 2, MPI_INT, &st[j]);
            MPI_Type_commit(&st[j]);
            sc[j] = 1;
            for (int k = 0; k <= j; k++)
                sbuf[64 * j + 2 * k] = val(rank, j, k);
        }
        /* from rank i: rank + 1 ints */
        rd[j] = (int)sizeof(int) * (64 * j + 3);
        if (j % 2 == 0) {
            rc[j] = rank + 1;
            rt[j] = MPI_INT;
        } else {
            rc[j] = 1;
            rt[j] = mine;
        }
    }
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 64 * p; k++)
            rbuf[k] = -7;
        if (round == 0) {
            CHECK(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD) == MPI_SUCCESS,
                  "Alltoallw");
        } else {
            MPI_Request rq;
            CHECK(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &rq) == MPI_SUCCESS,
                  "Ialltoallw");
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        for (int i = 0; i < p; i++)
            for (int k = 0; k < 64; k++) {
                int want = k >= 3 && k < 3 + rank + 1 ? val(i, rank, k - 3) : -7;
                CHECK(rbuf[64 * i + k] == want, "%s: block from %d [%d] = %d, expected %d",
                      round ? "Ialltoallw" : "Alltoallw", i, k, rbuf[64 * i + k], want);
            }
    }
    /* MPI_IN_PLACE: the receive side's counts, displacements and types */
    for (int i = 0; i < p; i++)
        for (int k = 0; k < 64; k++)
            rbuf[64 * i + k] = k >= 3 && k < 5 ? val(rank, i, k - 3) : -5;
    /* in place, a block goes and comes with the same signature: 2 ints
     * everywhere */
    for (int i = 0; i < p; i++) {
        rc[i] = 2;
        rt[i] = MPI_INT;
    }
    CHECK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, MPI_COMM_WORLD) == MPI_SUCCESS,
          "Alltoallw in place");
    for (int i = 0; i < p; i++)
        for (int k = 3; k < 5; k++)
            CHECK(rbuf[64 * i + k] == val(i, rank, k - 3), "in place: block from %d [%d] = %d", i, k,
                  rbuf[64 * i + k]);
    /* zero counts everywhere, NULL buffers */
    for (int i = 0; i < p; i++)
        sc[i] = rc[i] = 0;
    CHECK(MPI_Alltoallw(NULL, sc, sd, rt, NULL, rc, rd, rt, MPI_COMM_WORLD) == MPI_SUCCESS,
          "empty Alltoallw");

    for (int j = 1; j < p; j += 2)
        MPI_Type_free(&st[j]);
    MPI_Type_free(&mine);
    free(sbuf), free(rbuf), free(sc), free(sd), free(rc), free(rd), free(st), free(rt);
    MPI_Finalize();
    if (rank == 0)
        printf("alltoallw: ok\n");
    return 0;
}
