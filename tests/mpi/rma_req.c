/*
 * rma_req: request-based RMA (MPI 3.1 11.3.5): MPI_Rput, MPI_Rget,
 * MPI_Raccumulate and MPI_Rget_accumulate inside an MPI_Win_lock_all epoch,
 * every rank targeting every rank including itself, completed with MPI_Wait
 * and MPI_Waitall.
 *
 * - completion of an MPI_Rget / MPI_Rget_accumulate request means the data
 *   is in the origin's buffer: checked right after MPI_Waitall;
 * - completion of an MPI_Rput / MPI_Raccumulate request means only local
 *   completion: the origin buffers are overwritten right after MPI_Wait and
 *   the targets must still receive the original values, checked with
 *   MPI_Get after MPI_Win_flush_all and by the owners with local loads
 *   after MPI_Barrier and MPI_Win_sync;
 * - MPI_Rget_accumulate(MPI_SUM) from every rank: per element the values
 *   fetched form one chain from the initial value; MPI_Rget_accumulate
 *   (MPI_REPLACE) into a slot per origin fetches the initial contents.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "rma_req"
#define CHECK_LINE
#include "check.h"

enum { M = 6 };

static int rank, size;
static int o_put, o_ro, o_acc, o_ga, o_rep, nint;

static int init(int i)
{
    return -3000 - i;
}
static int pv(int o, int t, int j)
{
    return o * 10000 + t * 100 + j + 1;
}
static int rov(int t, int j)
{
    return -(t * 1000 + j) - 11;
}
static int av(int o, int t, int j)
{
    return (o + 1) * (j + 2) + t;
}
static int gv(int o, int t, int j)
{
    return (o + 1) * 7 + t * 3 + j + 1;
} /* > 0 */

static int cmp_pair(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    int *w = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size;
    o_put = 0;
    o_ro = o_put + p * M;
    o_acc = o_ro + M;
    o_ga = o_acc + M;
    o_rep = o_ga + M;
    nint = o_rep + p * M;

    /* a multiple of 16 bytes: MPICH 4.0.2 misplaces RMA into MPI_Win_allocate
     * windows of other sizes (see rma_fence.c) */
    MPI_Aint bytes = (nint * sizeof(int) + 63) / 64 * 64;
    CHECK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win) == MPI_SUCCESS,
          "Win_allocate");
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "Win_lock_all");
    for (int i = 0; i < nint; i++)
        w[i] = init(i);
    for (int j = 0; j < M; j++)
        w[o_ro + j] = rov(rank, j);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int *put = malloc((size_t)p * M * sizeof(int)), *get = malloc((size_t)p * M * sizeof(int));
    int *acc = malloc((size_t)p * M * sizeof(int)), *ga = malloc((size_t)p * M * sizeof(int));
    int *gares = malloc((size_t)p * M * sizeof(int)), *rep = malloc((size_t)p * M * sizeof(int));
    int *repres = malloc((size_t)p * M * sizeof(int)), *chk = malloc((size_t)p * M * sizeof(int));
    MPI_Request *rq = malloc((size_t)p * 5 * sizeof(MPI_Request));
    CHECK(put && get && acc && ga && gares && rep && repres && chk && rq, "out of memory");

    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++) {
            put[t * M + j] = pv(rank, t, j);
            acc[t * M + j] = av(rank, t, j);
            ga[t * M + j] = gv(rank, t, j);
            rep[t * M + j] = pv(rank, t, j) + 5;
            get[t * M + j] = gares[t * M + j] = repres[t * M + j] = -1;
        }
    for (int i = 0; i < p; i++) {
        int t = (rank + i) % p;
        CHECK(MPI_Rput(put + t * M, M, MPI_INT, t, o_put + rank * M, M, MPI_INT, win, &rq[t]) == MPI_SUCCESS,
              "Rput");
        CHECK(MPI_Rget(get + t * M, M, MPI_INT, t, o_ro, M, MPI_INT, win, &rq[p + t]) == MPI_SUCCESS, "Rget");
        CHECK(MPI_Raccumulate(acc + t * M, M, MPI_INT, t, o_acc, M, MPI_INT, MPI_SUM, win, &rq[2 * p + t]) ==
                  MPI_SUCCESS,
              "Raccumulate");
        CHECK(MPI_Rget_accumulate(ga + t * M, M, MPI_INT, gares + t * M, M, MPI_INT, t, o_ga, M, MPI_INT,
                                  MPI_SUM, win, &rq[3 * p + t]) == MPI_SUCCESS,
              "Rget_accumulate SUM");
        CHECK(MPI_Rget_accumulate(rep + t * M, M, MPI_INT, repres + t * M, M, MPI_INT, t, o_rep + rank * M, M,
                                  MPI_INT, MPI_REPLACE, win, &rq[4 * p + t]) == MPI_SUCCESS,
              "Rget_accumulate REPLACE");
    }
    /* the Rput and Raccumulate requests one by one; their buffers are free again at once */
    for (int t = 0; t < p; t++) {
        CHECK(MPI_Wait(&rq[t], MPI_STATUS_IGNORE) == MPI_SUCCESS && rq[t] == MPI_REQUEST_NULL, "Wait Rput");
        for (int j = 0; j < M; j++)
            put[t * M + j] = -999;
        CHECK(MPI_Wait(&rq[2 * p + t], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait Raccumulate");
        for (int j = 0; j < M; j++)
            acc[t * M + j] = -999;
    }
    /* a status array, not MPI_STATUSES_IGNORE: gcc 12 -Werror=stringop-overflow
     * trips on MPICH's (MPI_Status *)1 */
    MPI_Status *st = malloc((size_t)p * 5 * sizeof(MPI_Status));
    CHECK(st, "out of memory");
    CHECK(MPI_Waitall(5 * p, rq, st) == MPI_SUCCESS, "Waitall");
    free(st);
    for (int i = 0; i < 5 * p; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    /* results of Rget and Rget_accumulate are at the origin now */
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++) {
            CHECK(get[t * M + j] == rov(t, j), "Rget from %d [%d] = %d", t, j, get[t * M + j]);
            CHECK(repres[t * M + j] == init(o_rep + rank * M + j),
                  "Rget_accumulate REPLACE from %d [%d] = %d", t, j, repres[t * M + j]);
            ga[t * M + j] = rep[t * M + j] = -999;
        }

    /* after the flush, a Get sees what the Rputs carried */
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "Win_flush_all");
    for (int t = 0; t < p; t++) {
        for (int j = 0; j < M; j++)
            chk[t * M + j] = -1;
        MPI_Get(chk + t * M, M, MPI_INT, t, o_put + rank * M, M, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++)
            CHECK(chk[t * M + j] == pv(rank, t, j), "Get after flush from %d [%d] = %d", t, j,
                  chk[t * M + j]);

    /* the owners' view */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int j = 0; j < M; j++) {
        int sum = init(o_acc + j), gsum = init(o_ga + j);
        for (int o = 0; o < p; o++) {
            CHECK(w[o_put + o * M + j] == pv(o, rank, j), "Rput from %d [%d] = %d", o, j,
                  w[o_put + o * M + j]);
            CHECK(w[o_rep + o * M + j] == pv(o, rank, j) + 5, "Rget_accumulate REPLACE from %d [%d] = %d", o,
                  j, w[o_rep + o * M + j]);
            sum += av(o, rank, j);
            gsum += gv(o, rank, j);
        }
        CHECK(w[o_acc + j] == sum, "Raccumulate [%d] = %d, expected %d", j, w[o_acc + j], sum);
        CHECK(w[o_ga + j] == gsum, "Rget_accumulate SUM [%d] = %d, expected %d", j, w[o_ga + j], gsum);
        CHECK(w[o_ro + j] == rov(rank, j), "read-only region changed");
    }

    /* the values fetched by Rget_accumulate(MPI_SUM) at this rank: a chain per element */
    {
        int *all = malloc((size_t)p * p * M * sizeof(int)), *pair = malloc((size_t)p * 2 * sizeof(int));
        CHECK(all && pair, "out of memory");
        MPI_Allgather(gares, p * M, MPI_INT, all, p * M, MPI_INT, MPI_COMM_WORLD);
        for (int j = 0; j < M; j++) {
            for (int o = 0; o < p; o++) {
                pair[2 * o] = all[(o * p + rank) * M + j];
                pair[2 * o + 1] = gv(o, rank, j);
            }
            qsort(pair, p, 2 * sizeof(int), cmp_pair);
            int v = init(o_ga + j);
            for (int o = 0; o < p; o++) {
                CHECK(pair[2 * o] == v, "Rget_accumulate chain at %d [%d]: fetched %d, expected %d", rank, j,
                      pair[2 * o], v);
                v += pair[2 * o + 1];
            }
            CHECK(v == w[o_ga + j], "chain end %d", v);
        }
        free(all);
        free(pair);
    }

    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    free(put);
    free(get);
    free(acc);
    free(ga);
    free(gares);
    free(rep);
    free(repres);
    free(chk);
    free(rq);
    if (rank == 0)
        printf("rma_req: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
