/*
 * rma_pscw: general active-target synchronization (MPI 3.1 11.5.2):
 * MPI_Win_post / MPI_Win_start / MPI_Win_complete / MPI_Win_wait and
 * MPI_Win_test, with groups.
 *
 * - Ring: every rank exposes its window to its left and right neighbours
 *   and accesses both (one group, the distinct neighbours: itself at np 1,
 *   the other rank at np 2): MPI_Put to the right neighbour's "from left"
 *   region and the left neighbour's "from right" region, MPI_Get of their
 *   read-only regions; closed by MPI_Win_wait, then again closed by an
 *   MPI_Win_test loop; then MPI_Accumulate(MPI_SUM) from both neighbours
 *   into one region; then a get-only round with MPI_MODE_NOPUT and
 *   MPI_MODE_NOSTORE on the post.
 * - Asymmetric groups: rank 0 exposes to all others and accesses the empty
 *   group; the others expose to the empty group and accumulate into rank 0.
 * - Both groups empty: MPI_Win_test completes at once.
 * Every value is checked against a locally computed reference, and the
 * regions nobody writes must keep their contents.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_pscw"
#define CHECK_LINE
#include "check.h"

enum { M = 5, O_FL = 0, O_FR = M, O_RO = 2 * M, O_ACC = 3 * M, O_ZERO = 4 * M, NINT = 5 * M };

static int rank, size, left, right;
static _Alignas(64) int w[NINT]; /* aligned: see rma_errors.c on MPICH 4.0.2 */

static int val(int round, int o, int t, int j)
{
    return round * 1000000 + o * 10000 + t * 100 + j + 1;
}
static int ro(int t, int j)
{
    return -(t * 100 + j) - 77;
}

static void check_untouched(int from, int to, const char *what)
{
    for (int i = from; i < to; i++)
        CHECK(w[i] == -5000 - i, "%s: rank %d window[%d] = %d changed", what, rank, i, w[i]);
}

/* one ring round of puts (and gets); closed by MPI_Win_wait or an MPI_Win_test loop */
static void ring_puts(MPI_Win win, MPI_Group nb, int round, int use_test)
{
    int to_right[M], to_left[M], g_left[M], g_right[M];
    for (int j = 0; j < M; j++) {
        w[O_FL + j] = w[O_FR + j] = -1; /* local stores before the post */
        to_right[j] = val(round, rank, right, j);
        to_left[j] = val(round, rank, left, j) + 50;
        g_left[j] = g_right[j] = -2;
    }
    CHECK(MPI_Win_post(nb, 0, win) == MPI_SUCCESS, "Win_post");
    CHECK(MPI_Win_start(nb, 0, win) == MPI_SUCCESS, "Win_start");
    CHECK(MPI_Put(to_right, M, MPI_INT, right, O_FL, M, MPI_INT, win) == MPI_SUCCESS, "Put");
    CHECK(MPI_Put(to_left, M, MPI_INT, left, O_FR, M, MPI_INT, win) == MPI_SUCCESS, "Put");
    CHECK(MPI_Get(g_left, M, MPI_INT, left, O_RO, M, MPI_INT, win) == MPI_SUCCESS, "Get");
    CHECK(MPI_Get(g_right, M, MPI_INT, right, O_RO, M, MPI_INT, win) == MPI_SUCCESS, "Get");
    CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "Win_complete");
    for (int j = 0; j < M; j++) /* the gets are complete at the origin after MPI_Win_complete */
        CHECK(g_left[j] == ro(left, j) && g_right[j] == ro(right, j), "round %d: Get [%d]: %d %d", round, j,
              g_left[j], g_right[j]);
    if (use_test) {
        int flag = 0;
        while (!flag)
            CHECK(MPI_Win_test(win, &flag) == MPI_SUCCESS, "Win_test");
    } else
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "Win_wait");
    for (int j = 0; j < M; j++) {
        CHECK(w[O_FL + j] == val(round, left, rank, j), "round %d: from left [%d] = %d", round, j,
              w[O_FL + j]);
        CHECK(w[O_FR + j] == val(round, right, rank, j) + 50, "round %d: from right [%d] = %d", round, j,
              w[O_FR + j]);
        CHECK(w[O_RO + j] == ro(rank, j), "read-only region changed");
    }
    check_untouched(O_ZERO, NINT, "ring");
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Group world, nb, others, zero;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    for (int i = 0; i < NINT; i++)
        w[i] = -5000 - i;
    for (int j = 0; j < M; j++)
        w[O_RO + j] = ro(rank, j);
    CHECK(MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS,
          "Win_create");

    /* the distinct neighbours, in increasing order */
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    {
        int nbr[2], n = 0;
        nbr[n++] = left < right ? left : right;
        if (left != right)
            nbr[n++] = left < right ? right : left;
        MPI_Group_incl(world, n, nbr, &nb);
        int excl0 = 0;
        MPI_Group_excl(world, 1, &excl0, &others);
        MPI_Group_incl(world, 1, &excl0, &zero);
    }

    ring_puts(win, nb, 1, 0);
    ring_puts(win, nb, 2, 1);
    ring_puts(win, nb, 3, 0);

    /* accumulate from both neighbours into one region (from one neighbour twice at np 2 and 1) */
    {
        int a[M], b[M];
        for (int j = 0; j < M; j++) {
            w[O_ACC + j] = j;
            a[j] = val(0, rank, right, j);
            b[j] = 3 * j + rank + 1;
        }
        MPI_Win_post(nb, 0, win);
        MPI_Win_start(nb, 0, win);
        MPI_Accumulate(a, M, MPI_INT, right, O_ACC, M, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(b, M, MPI_INT, left, O_ACC, M, MPI_INT, MPI_SUM, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        for (int j = 0; j < M; j++) {
            int want = j + val(0, left, rank, j) + 3 * j + right + 1;
            CHECK(w[O_ACC + j] == want, "accumulate [%d] = %d, expected %d", j, w[O_ACC + j], want);
        }
    }

    /* gets only: MPI_MODE_NOPUT, and no local store since the last wait: MPI_MODE_NOSTORE */
    {
        int gl[M], gr[M];
        for (int j = 0; j < M; j++)
            gl[j] = gr[j] = 0;
        CHECK(MPI_Win_post(nb, MPI_MODE_NOPUT | MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "Win_post NOPUT");
        MPI_Win_start(nb, 0, win);
        MPI_Get(gl, M, MPI_INT, left, O_FL, M, MPI_INT, win);
        MPI_Get(gr, M, MPI_INT, right, O_ACC, M, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        for (int j = 0; j < M; j++) {
            int lo = (left + size - 1) % size;
            CHECK(gl[j] == val(3, lo, left, j), "get of left's from-left [%d] = %d", j, gl[j]);
            int want = j + val(0, rank, right, j) + 3 * j + ((right + 1) % size) + 1;
            CHECK(gr[j] == want, "get of right's sums [%d] = %d, expected %d", j, gr[j], want);
        }
    }

    /* asymmetric groups: everyone accumulates into rank 0; rank 0 accesses nobody */
    {
        int a[M];
        for (int j = 0; j < M; j++) {
            if (rank == 0)
                w[O_ACC + j] = 10 * j;
            a[j] = val(0, rank, 0, j) - 7;
        }
        if (rank == 0) {
            CHECK(MPI_Win_post(others, 0, win) == MPI_SUCCESS, "Win_post others");
            CHECK(MPI_Win_start(MPI_GROUP_EMPTY, 0, win) == MPI_SUCCESS, "Win_start empty");
        } else {
            CHECK(MPI_Win_post(MPI_GROUP_EMPTY, 0, win) == MPI_SUCCESS, "Win_post empty");
            CHECK(MPI_Win_start(zero, 0, win) == MPI_SUCCESS, "Win_start {0}");
            MPI_Accumulate(a, M, MPI_INT, 0, O_ACC, M, MPI_INT, MPI_SUM, win);
        }
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "Win_complete");
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "Win_wait");
        if (rank == 0)
            for (int j = 0; j < M; j++) {
                int want = 10 * j;
                for (int o = 1; o < size; o++)
                    want += val(0, o, 0, j) - 7;
                CHECK(w[O_ACC + j] == want, "accumulate into 0 [%d] = %d, expected %d", j, w[O_ACC + j],
                      want);
            }
    }

    /* both groups empty: MPI_Win_test completes at once */
    {
        int flag = 0;
        CHECK(MPI_Win_post(MPI_GROUP_EMPTY, 0, win) == MPI_SUCCESS, "Win_post empty");
        CHECK(MPI_Win_start(MPI_GROUP_EMPTY, 0, win) == MPI_SUCCESS, "Win_start empty");
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "Win_complete empty");
        CHECK(MPI_Win_test(win, &flag) == MPI_SUCCESS && flag, "Win_test of an empty exposure: flag %d",
              flag);
    }
    check_untouched(O_ZERO, NINT, "end");

    MPI_Group_free(&nb);
    MPI_Group_free(&others);
    MPI_Group_free(&zero);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    if (rank == 0)
        printf("rma_pscw: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
