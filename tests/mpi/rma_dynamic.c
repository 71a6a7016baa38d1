/*
 * rma_dynamic: windows of MPI_Win_create_dynamic (MPI 3.1 11.2.4).
 * Every rank attaches two malloc'd buffers with MPI_Win_attach, publishes
 * their MPI_Get_address values with MPI_Allgather (MPI_AINT), and every
 * rank accesses every rank (itself included) with target_disp = address
 * (+ offsets by MPI_Aint_add): MPI_Put into a slot per origin, MPI_Get of a
 * read-only part, MPI_Accumulate(MPI_SUM) from everyone, under
 * MPI_Win_lock_all (checked with MPI_Get after MPI_Win_flush_all and by
 * the owners after MPI_Barrier + MPI_Win_sync) and again between
 * MPI_Win_fence calls. Then one buffer is detached, a third attached and
 * used; a put and a get span two regions attached side by side (MPICH's
 * win_dynamic_rma_flush_get does this); everything is detached and the
 * window freed: the buffers keep their contents.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_dynamic"
#define CHECK_LINE
#include "check.h"

enum { M = 7 };

static int rank, size;

static int pv(int round, int o, int t, int j)
{
    return round * 1000000 + o * 10000 + t * 100 + j + 1;
}
static int rov(int t, int j)
{
    return -(t * 100 + j) - 3;
}

/* target displacement of int i in a buffer at address base */
static MPI_Aint at(MPI_Aint base, int i)
{
    return MPI_Aint_add(base, (MPI_Aint)i * (MPI_Aint)sizeof(int));
}

static void exchange(void *buf, MPI_Aint *addrs)
{
    MPI_Aint a;
    CHECK(MPI_Get_address(buf, &a) == MPI_SUCCESS, "Get_address");
    MPI_Allgather(&a, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    CHECK(addrs[rank] == a, "Allgather of addresses");
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size;
    int n1 = p * M + M; /* slots per origin, then read-only */
    int *b1 = malloc(n1 * sizeof(int)), *b2 = malloc(M * sizeof(int)), *b3 = malloc(p * sizeof(int));
    MPI_Aint *a1 = malloc(p * sizeof(MPI_Aint)), *a2 = malloc(p * sizeof(MPI_Aint)),
             *a3 = malloc(p * sizeof(MPI_Aint));
    int *src = malloc((size_t)p * M * sizeof(int)), *get = malloc((size_t)p * M * sizeof(int));
    int *acc = malloc((size_t)p * M * sizeof(int));
    CHECK(b1 && b2 && b3 && a1 && a2 && a3 && src && get && acc, "out of memory");

    for (int i = 0; i < n1; i++)
        b1[i] = -1;
    for (int j = 0; j < M; j++) {
        b1[p * M + j] = rov(rank, j);
        b2[j] = 10 * j;
    }
    for (int i = 0; i < p; i++)
        b3[i] = -2;

    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS, "Win_create_dynamic");
    CHECK(MPI_Win_attach(win, b1, (MPI_Aint)n1 * sizeof(int)) == MPI_SUCCESS, "Win_attach b1");
    CHECK(MPI_Win_attach(win, b2, M * sizeof(int)) == MPI_SUCCESS, "Win_attach b2");
    exchange(b1, a1);
    exchange(b2, a2);

    /* ---- passive target ---- */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "Win_lock_all");
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD); /* every buffer attached and initialized */
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++) {
            src[t * M + j] = pv(1, rank, t, j);
            acc[t * M + j] = (rank + 1) * (j + 1) + t;
            get[t * M + j] = 0;
        }
    for (int i = 0; i < p; i++) {
        int t = (rank + i) % p;
        CHECK(MPI_Put(src + t * M, M, MPI_INT, t, at(a1[t], rank * M), M, MPI_INT, win) == MPI_SUCCESS,
              "Put");
        CHECK(MPI_Get(get + t * M, M, MPI_INT, t, at(a1[t], p * M), M, MPI_INT, win) == MPI_SUCCESS, "Get");
        CHECK(MPI_Accumulate(acc + t * M, M, MPI_INT, t, a2[t], M, MPI_INT, MPI_SUM, win) == MPI_SUCCESS,
              "Accumulate");
    }
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "Win_flush_all");
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++) {
            CHECK(get[t * M + j] == rov(t, j), "Get from %d [%d] = %d", t, j, get[t * M + j]);
            get[t * M + j] = 0;
        }
    for (int t = 0; t < p; t++)
        MPI_Get(get + t * M, M, MPI_INT, t, at(a1[t], rank * M), M, MPI_INT, win);
    MPI_Win_flush_all(win);
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++)
            CHECK(get[t * M + j] == pv(1, rank, t, j), "Get after flush from %d [%d] = %d", t, j,
                  get[t * M + j]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int j = 0; j < M; j++) {
        int sum = 10 * j;
        for (int o = 0; o < p; o++) {
            CHECK(b1[o * M + j] == pv(1, o, rank, j), "put from %d [%d] = %d", o, j, b1[o * M + j]);
            sum += (o + 1) * (j + 1) + rank;
        }
        CHECK(b2[j] == sum, "accumulated [%d] = %d, expected %d", j, b2[j], sum);
        CHECK(b1[p * M + j] == rov(rank, j), "read-only part changed");
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "Win_unlock_all");

    /* ---- fence epochs on the same window ---- */
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS, "Win_fence");
    for (int t = 0; t < p; t++) {
        for (int j = 0; j < M; j++)
            src[t * M + j] = pv(2, rank, t, j);
        MPI_Put(src + t * M, M, MPI_INT, t, at(a1[t], rank * M), M, MPI_INT, win);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "Win_fence");
    for (int o = 0; o < p; o++)
        for (int j = 0; j < M; j++)
            CHECK(b1[o * M + j] == pv(2, o, rank, j), "fence put from %d [%d] = %d", o, j, b1[o * M + j]);

    /* ---- detach b2, attach b3 ---- */
    MPI_Barrier(MPI_COMM_WORLD); /* nobody accesses b2 any more */
    CHECK(MPI_Win_detach(win, b2) == MPI_SUCCESS, "Win_detach b2");
    CHECK(MPI_Win_attach(win, b3, p * sizeof(int)) == MPI_SUCCESS, "Win_attach b3");
    exchange(b3, a3);
    MPI_Win_lock_all(0, win);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < p; t++) {
        src[t] = pv(3, rank, t, 0);
        MPI_Put(src + t, 1, MPI_INT, t, at(a3[t], rank), 1, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int o = 0; o < p; o++)
        CHECK(b3[o] == pv(3, o, rank, 0), "put into b3 from %d = %d", o, b3[o]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK(MPI_Win_detach(win, b1) == MPI_SUCCESS, "Win_detach b1");
    CHECK(MPI_Win_detach(win, b3) == MPI_SUCCESS, "Win_detach b3");

    /* ---- one access across two regions attached side by side ---- */
    {
        enum { H = 6 };
        int two[2 * H], out[2 * H], back[2 * H];
        MPI_Aint a4;
        int t = (rank + 1) % p, from = (rank + p - 1) % p;
        for (int j = 0; j < 2 * H; j++) {
            two[j] = -1;
            out[j] = pv(4, rank, t, j);
        }
        CHECK(MPI_Win_attach(win, two, H * sizeof(int)) == MPI_SUCCESS, "Win_attach low half");
        CHECK(MPI_Win_attach(win, two + H, H * sizeof(int)) == MPI_SUCCESS, "Win_attach high half");
        MPI_Aint *a4s = malloc(p * sizeof(MPI_Aint));
        CHECK(a4s, "out of memory");
        exchange(two, a4s);
        a4 = a4s[t];
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        CHECK(MPI_Put(out, 2 * H, MPI_INT, t, a4, 2 * H, MPI_INT, win) == MPI_SUCCESS, "Put across regions");
        MPI_Win_flush(t, win);
        CHECK(MPI_Get(back, 2 * H, MPI_INT, t, a4, 2 * H, MPI_INT, win) == MPI_SUCCESS, "Get across regions");
        MPI_Win_unlock(t, win);
        for (int j = 0; j < 2 * H; j++)
            CHECK(back[j] == out[j], "get across regions [%d] = %d", j, back[j]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int j = 0; j < 2 * H; j++)
            CHECK(two[j] == pv(4, from, rank, j), "put across regions [%d] = %d", j, two[j]);
        CHECK(MPI_Win_detach(win, two) == MPI_SUCCESS, "Win_detach low half");
        CHECK(MPI_Win_detach(win, two + H) == MPI_SUCCESS, "Win_detach high half");
        free(a4s);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    /* the memory is the process's own again, with its contents */
    for (int j = 0; j < M; j++) {
        int sum = 10 * j;
        for (int o = 0; o < p; o++)
            sum += (o + 1) * (j + 1) + rank;
        CHECK(b2[j] == sum && b1[p * M + j] == rov(rank, j), "contents after detach");
    }
    free(b1);
    free(b2);
    free(b3);
    free(a1);
    free(a2);
    free(a3);
    free(src);
    free(get);
    free(acc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_dynamic: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
