/*
 * rma_shared: shared-memory windows (MPI 3.1 11.2.3).
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), then MPI_Win_allocate_shared
 * with a different size per rank (rank r: (r+1)*n*64 bytes, rank 0: 0 bytes
 * when there are several ranks) and disp_unit 1 or sizeof(int) alternately.
 * MPI_Win_shared_query of every rank gives its size and disp_unit, its own
 * base pointer, and segments contiguous across ranks (the default without
 * alloc_shared_noncontig); MPI_PROC_NULL gives the lowest rank with a
 * nonzero size. Every rank then stores into the segment of every rank
 * with memory, by plain stores, and the values are checked by plain loads
 * (of the own segment and of the next segment): once between
 * MPI_Win_fence calls, once in an MPI_Win_lock_all epoch with
 * MPI_Win_sync + MPI_Barrier + MPI_Win_sync; finally MPI_Put through the
 * window with the target's disp_unit.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_shared"
#define CHECK_LINE
#include "check.h"

static int me, n;

static MPI_Aint seg_size(int r)
{
    return (n > 1 && r == 0) ? 0 : (MPI_Aint)(r + 1) * n * 64;
}
static int seg_du(int r)
{
    return r % 2 ? (int)sizeof(int) : 1;
}
static int v(int round, int o, int t)
{
    return round * 100000 + o * 100 + t + 1;
}

int main(int argc, char **argv)
{
    MPI_Comm shm;
    MPI_Win win;
    int *mine = NULL;
    MPI_Init(&argc, &argv);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) == MPI_SUCCESS,
          "Comm_split_type");
    CHECK(shm != MPI_COMM_NULL, "no shared-memory communicator");
    MPI_Comm_rank(shm, &me);
    MPI_Comm_size(shm, &n);

    CHECK(MPI_Win_allocate_shared(seg_size(me), seg_du(me), MPI_INFO_NULL, shm, &mine, &win) == MPI_SUCCESS,
          "Win_allocate_shared");
    CHECK(seg_size(me) == 0 || mine != NULL, "no memory");

    /* every rank's segment */
    int **seg = malloc(n * sizeof(int *));
    CHECK(seg, "out of memory");
    int first = -1;
    char *prev_end = NULL;
    for (int r = 0; r < n; r++) {
        MPI_Aint s = -1;
        int d = -1;
        void *ptr = NULL;
        CHECK(MPI_Win_shared_query(win, r, &s, &d, &ptr) == MPI_SUCCESS, "Win_shared_query %d", r);
        CHECK(s == seg_size(r), "size of %d: %ld, expected %ld", r, (long)s, (long)seg_size(r));
        CHECK(d == seg_du(r), "disp_unit of %d: %d, expected %d", r, d, seg_du(r));
        seg[r] = ptr;
        if (s > 0) {
            CHECK(ptr != NULL, "no base for %d", r);
            if (first < 0)
                first = r;
            CHECK(prev_end == NULL || (char *)ptr == prev_end,
                  "segment of %d not contiguous with the previous one", r);
            prev_end = (char *)ptr + s;
        }
        if (r == me && s > 0)
            CHECK(ptr == (void *)mine, "own segment %p, allocated %p", ptr, (void *)mine);
    }
    CHECK(first >= 0, "no segment with memory");
    {
        MPI_Aint s = -1;
        int d = -1;
        void *ptr = NULL;
        CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &s, &d, &ptr) == MPI_SUCCESS,
              "Win_shared_query PROC_NULL");
        CHECK(s == seg_size(first) && d == seg_du(first) && ptr == (void *)seg[first],
              "MPI_PROC_NULL: size %ld disp_unit %d, expected rank %d's", (long)s, d, first);
    }
    /* the next rank with memory, cyclically */
    int next = me;
    do
        next = (next + 1) % n;
    while (seg_size(next) == 0);

    /* ---- stores between fences ---- */
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "Win_fence");
    for (int t = 0; t < n; t++)
        if (seg_size(t) > 0)
            seg[t][me] = v(1, me, t);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "Win_fence");
    for (int o = 0; o < n; o++) {
        if (seg_size(me) > 0)
            CHECK(mine[o] == v(1, o, me), "own segment [%d] = %d after fence", o, mine[o]);
        CHECK(seg[next][o] == v(1, o, next), "segment of %d [%d] = %d after fence", next, o, seg[next][o]);
    }

    /* ---- stores in a lock_all epoch, MPI_Win_sync + MPI_Barrier ---- */
    CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS, "Win_lock_all");
    for (int t = 0; t < n; t++)
        if (seg_size(t) > 0)
            seg[t][n + me] = v(2, me, t);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS, "Win_sync");
    MPI_Barrier(shm);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS, "Win_sync");
    for (int o = 0; o < n; o++) {
        if (seg_size(me) > 0)
            CHECK(mine[n + o] == v(2, o, me), "own segment [%d] = %d after Win_sync", n + o, mine[n + o]);
        CHECK(seg[next][n + o] == v(2, o, next), "segment of %d [%d] = %d after Win_sync", next, n + o,
              seg[next][n + o]);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "Win_unlock_all");

    /* ---- MPI_Put into the segments, with each target's disp_unit ---- */
    int *src = malloc(n * sizeof(int));
    CHECK(src, "out of memory");
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "Win_fence");
    for (int t = 0; t < n; t++)
        if (seg_size(t) > 0) {
            src[t] = v(3, me, t);
            MPI_Aint disp = (MPI_Aint)((2 * n + me) * sizeof(int)) / seg_du(t);
            CHECK(MPI_Put(src + t, 1, MPI_INT, t, disp, 1, MPI_INT, win) == MPI_SUCCESS, "Put");
        }
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "Win_fence");
    for (int o = 0; o < n; o++) {
        if (seg_size(me) > 0)
            CHECK(mine[2 * n + o] == v(3, o, me), "own segment [%d] = %d after Put", 2 * n + o,
                  mine[2 * n + o]);
        CHECK(seg[next][2 * n + o] == v(3, o, next), "segment of %d [%d] = %d after Put", next, 2 * n + o,
              seg[next][2 * n + o]);
    }

    MPI_Barrier(shm);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    MPI_Comm_free(&shm);
    free(seg);
    free(src);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("rma_shared: ok (%d ranks)\n", n);
    MPI_Finalize();
    return 0;
}
