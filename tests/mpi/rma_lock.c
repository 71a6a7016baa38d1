/*
 * rma_lock: passive-target one-sided communication (MPI 3.1 11.5.3-11.5.4),
 * every rank accessing every rank including itself.
 *
 * - MPI_LOCK_EXCLUSIVE: ITER read-modify-write increments (MPI_Get, flush,
 *   MPI_Put) of a counter on every rank by every rank; mutual exclusion
 *   makes the counter exactly P*ITER and the values read exactly
 *   {0 .. P*ITER-1} at every target.
 * - MPI_LOCK_SHARED with MPI_Accumulate(MPI_SUM) from every rank, repeated.
 * - MPI_Win_lock_all / unlock_all with MPI_Win_flush, flush_all,
 *   flush_local and flush_local_all: a put is visible to an MPI_Get after
 *   flush / flush_all; an origin buffer is reusable after flush_local /
 *   flush_local_all and both values arrive.
 * - MPI_Win_sync: a local store, MPI_Win_sync, MPI_Barrier, then the others
 *   read it with MPI_Get; remote puts, flush, MPI_Barrier, MPI_Win_sync,
 *   then local loads see them.
 * - locks on the own rank: MPI_Put to self under an exclusive lock, local
 *   stores under an exclusive lock on self read by the others.
 * Check phases are separated by MPI_Barrier; local loads of the window
 * follow an MPI_Win_lock of the own rank (or MPI_Win_sync in a lock_all
 * epoch), as 11.7 requires for the separate memory model.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_lock"
#define CHECK_LINE
#include "check.h"

enum { ITER = 10, M = 6, REP = 3, SLOTS = 8 };

static int rank, size;
/* window layout, in ints */
static int o_cnt, o_sum, o_all, o_sync, o_self, o_selfst, nint;

static int sv(int o, int t, int j)
{
    return o * 5 + t * 3 + j + 1;
}
static int av(int o, int t, int k)
{
    return o * 10000 + t * 100 + k + 1;
}
static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size;

    o_cnt = 0;                  /* 1: the counter of exclusive increments */
    o_sum = 1;                  /* M: MPI_SUM under shared locks */
    o_all = o_sum + M;          /* P*SLOTS: a row per origin for the flush variants */
    o_sync = o_all + p * SLOTS; /* 1 + P: the own store, then a slot per origin */
    o_self = o_sync + 1 + p;    /* 4: put to self */
    o_selfst = o_self + 4;      /* 4: local stores under an exclusive lock on self */
    nint = o_selfst + 4;

    int *w = malloc(nint * sizeof(int));
    int *fetched = malloc((size_t)p * ITER * sizeof(int)), *all = malloc((size_t)p * p * ITER * sizeof(int));
    int *buf = malloc((size_t)p * 4 * sizeof(int)), *got = malloc((size_t)p * 4 * sizeof(int));
    CHECK(w && fetched && all && buf && got, "out of memory");
    for (int i = 0; i < nint; i++)
        w[i] = -1000 - i;
    w[o_cnt] = 0;
    CHECK(MPI_Win_create(w, (MPI_Aint)nint * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
              MPI_SUCCESS,
          "Win_create");

    /* ---- exclusive locks: read-modify-write increments ---- */
    for (int it = 0; it < ITER; it++)
        for (int k = 0; k < p; k++) {
            int t = (rank + k) % p, v = -1;
            CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == MPI_SUCCESS, "Win_lock exclusive %d", t);
            CHECK(MPI_Get(&v, 1, MPI_INT, t, o_cnt, 1, MPI_INT, win) == MPI_SUCCESS, "Get");
            CHECK(MPI_Win_flush(t, win) == MPI_SUCCESS, "Win_flush");
            fetched[t * ITER + it] = v;
            v++;
            CHECK(MPI_Put(&v, 1, MPI_INT, t, o_cnt, 1, MPI_INT, win) == MPI_SUCCESS, "Put");
            CHECK(MPI_Win_unlock(t, win) == MPI_SUCCESS, "Win_unlock %d", t);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(w[o_cnt] == p * ITER, "counter %d, expected %d: exclusive locks overlapped", w[o_cnt], p * ITER);
    MPI_Win_unlock(rank, win);
    MPI_Allgather(fetched, p * ITER, MPI_INT, all, p * ITER, MPI_INT, MPI_COMM_WORLD);
    {
        /* the values read at this rank's counter by all origins */
        int *mine = malloc((size_t)p * ITER * sizeof(int));
        CHECK(mine, "out of memory");
        for (int o = 0; o < p; o++)
            for (int it = 0; it < ITER; it++)
                mine[o * ITER + it] = all[(o * p + rank) * ITER + it];
        qsort(mine, (size_t)p * ITER, sizeof(int), cmp_int);
        for (int i = 0; i < p * ITER; i++)
            CHECK(mine[i] == i, "sorted values read at rank %d: [%d] = %d", rank, i, mine[i]);
        free(mine);
    }
    for (int t = 0; t < p; t++) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Get(&v, 1, MPI_INT, t, o_cnt, 1, MPI_INT, win);
        MPI_Win_unlock(t, win);
        CHECK(v == p * ITER, "counter of %d read remotely: %d", t, v);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- shared locks: concurrent MPI_Accumulate(MPI_SUM) ---- */
    for (int r = 0; r < REP; r++)
        for (int k = 0; k < p; k++) {
            int t = (rank + k) % p, s[M];
            for (int j = 0; j < M; j++)
                s[j] = sv(rank, t, j) + r;
            CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win) == MPI_SUCCESS, "Win_lock shared");
            CHECK(MPI_Accumulate(s, M, MPI_INT, t, o_sum, M, MPI_INT, MPI_SUM, win) == MPI_SUCCESS,
                  "Accumulate");
            CHECK(MPI_Win_unlock(t, win) == MPI_SUCCESS, "Win_unlock");
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int j = 0; j < M; j++) {
        int want = -1000 - (o_sum + j);
        for (int o = 0; o < p; o++)
            for (int r = 0; r < REP; r++)
                want += sv(o, rank, j) + r;
        CHECK(w[o_sum + j] == want, "shared-lock sum [%d] = %d, expected %d", j, w[o_sum + j], want);
    }
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- lock_all and the flush variants; this rank's row is o_all + rank*SLOTS ---- */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "Win_lock_all");
    int row = o_all + rank * SLOTS;
    for (int t = 0; t < p; t++) { /* flush */
        int x = av(rank, t, 0), y = -1;
        MPI_Put(&x, 1, MPI_INT, t, row + 0, 1, MPI_INT, win);
        CHECK(MPI_Win_flush(t, win) == MPI_SUCCESS, "Win_flush");
        MPI_Get(&y, 1, MPI_INT, t, row + 0, 1, MPI_INT, win);
        MPI_Win_flush(t, win);
        CHECK(y == x, "after Win_flush(%d): read %d, put %d", t, y, x);
    }
    for (int t = 0; t < p; t++) { /* flush_all */
        buf[t] = av(rank, t, 1);
        MPI_Put(buf + t, 1, MPI_INT, t, row + 1, 1, MPI_INT, win);
    }
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "Win_flush_all");
    for (int t = 0; t < p; t++) {
        got[t] = -1;
        MPI_Get(got + t, 1, MPI_INT, t, row + 1, 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++)
        CHECK(got[t] == av(rank, t, 1), "after Win_flush_all: read %d from %d", got[t], t);
    for (int t = 0; t < p; t++) { /* flush_local: the origin buffer is reusable */
        int x = av(rank, t, 2), y[2] = {-1, -1};
        MPI_Put(&x, 1, MPI_INT, t, row + 2, 1, MPI_INT, win);
        CHECK(MPI_Win_flush_local(t, win) == MPI_SUCCESS, "Win_flush_local");
        x = av(rank, t, 3);
        MPI_Put(&x, 1, MPI_INT, t, row + 3, 1, MPI_INT, win);
        MPI_Win_flush(t, win);
        MPI_Get(y, 2, MPI_INT, t, row + 2, 2, MPI_INT, win);
        MPI_Win_flush(t, win);
        CHECK(y[0] == av(rank, t, 2) && y[1] == av(rank, t, 3), "after Win_flush_local(%d): %d %d", t, y[0],
              y[1]);
    }
    for (int t = 0; t < p; t++) { /* flush_local_all */
        buf[t] = av(rank, t, 4);
        MPI_Put(buf + t, 1, MPI_INT, t, row + 4, 1, MPI_INT, win);
    }
    CHECK(MPI_Win_flush_local_all(win) == MPI_SUCCESS, "Win_flush_local_all");
    for (int t = 0; t < p; t++) {
        buf[t] = av(rank, t, 5);
        MPI_Put(buf + t, 1, MPI_INT, t, row + 5, 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++) {
        got[2 * t] = got[2 * t + 1] = -1;
        MPI_Get(got + 2 * t, 2, MPI_INT, t, row + 4, 2, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++)
        CHECK(got[2 * t] == av(rank, t, 4) && got[2 * t + 1] == av(rank, t, 5),
              "after Win_flush_local_all: %d %d from %d", got[2 * t], got[2 * t + 1], t);

    /* ---- MPI_Win_sync: a local store read remotely, remote puts read locally ---- */
    w[o_sync] = av(rank, rank, 7);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS, "Win_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < p; t++) {
        got[t] = -1;
        MPI_Get(got + t, 1, MPI_INT, t, o_sync, 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++)
        CHECK(got[t] == av(t, t, 7), "store of %d after Win_sync read as %d", t, got[t]);
    for (int t = 0; t < p; t++) {
        buf[t] = av(rank, t, 6);
        MPI_Put(buf + t, 1, MPI_INT, t, o_sync + 1 + rank, 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int o = 0; o < p; o++)
        CHECK(w[o_sync + 1 + o] == av(o, rank, 6), "put from %d seen after Win_sync as %d", o,
              w[o_sync + 1 + o]);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);

    /* the rows of every origin, read locally */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int o = 0; o < p; o++)
        for (int k = 0; k < SLOTS; k++) {
            int want = k < 6 ? av(o, rank, k) : -1000 - (o_all + o * SLOTS + k);
            CHECK(w[o_all + o * SLOTS + k] == want, "row of %d [%d] = %d, expected %d", o, k,
                  w[o_all + o * SLOTS + k], want);
        }
    MPI_Win_unlock(rank, win);

    /* ---- locks on the own rank ---- */
    int self[4];
    for (int k = 0; k < 4; k++)
        self[k] = av(rank, rank, 10 + k);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS, "Win_lock self");
    CHECK(MPI_Put(self, 4, MPI_INT, rank, o_self, 4, MPI_INT, win) == MPI_SUCCESS, "Put self");
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS, "Win_unlock self");
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int k = 0; k < 4; k++)
        CHECK(w[o_self + k] == self[k], "put to self [%d] = %d", k, w[o_self + k]);
    MPI_Win_unlock(rank, win);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS, "Win_lock self");
    for (int k = 0; k < 4; k++)
        w[o_selfst + k] = av(rank, rank, 20 + k);
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS, "Win_unlock self");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < p; t++) {
        for (int k = 0; k < 4; k++)
            got[k] = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Get(got, 4, MPI_INT, t, o_selfst, 4, MPI_INT, win);
        MPI_Win_unlock(t, win);
        for (int k = 0; k < 4; k++)
            CHECK(got[k] == av(t, t, 20 + k), "store of %d under a lock on self, read as %d", t, got[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    /* after MPI_Win_free the memory is the process's again: everything in place */
    for (int k = 0; k < 4; k++)
        CHECK(w[o_self + k] == self[k] && w[o_selfst + k] == av(rank, rank, 20 + k),
              "self region after free");
    free(w);
    free(fetched);
    free(all);
    free(buf);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_lock: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
