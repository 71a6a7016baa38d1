/*
 * rma_lockfair: lock requests are granted in the order they arrive
 * (MPI 3.1 11.5.3: a lock that is requested is eventually granted once
 * the holder releases it). Rank 0 polls its own window under an exclusive
 * self-lock, unlocking and locking again at once, until every other rank
 * has added its mark with MPI_Accumulate under an exclusive lock on rank
 * 0. If rank 0's own lock requests could overtake the waiting ones, it
 * would hold the lock forever and the job would hang (the run times out).
 * The same with a shared self-lock against exclusive requests.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_lockfair"
#define CHECK_LINE
#include "check.h"

static void round_of(MPI_Win win, int rank, int size, int self_type)
{
    int one = 1, zero = 0, seen = 0;

    if (rank == 0) {
        while (seen < size - 1) {
            CHECK(MPI_Win_lock(self_type, 0, 0, win) == MPI_SUCCESS, "Win_lock self");
            CHECK(MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win) == MPI_SUCCESS, "Get");
            CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS, "Win_unlock self");
        }
        CHECK(seen == size - 1, "marks = %d, want %d", seen, size - 1);
        /* reset for the next round */
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS, "Win_lock self");
        CHECK(MPI_Put(&zero, 1, MPI_INT, 0, 0, 1, MPI_INT, win) == MPI_SUCCESS, "Put");
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS, "Win_unlock self");
    } else {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS, "Win_lock");
        CHECK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win) == MPI_SUCCESS, "Accumulate");
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS, "Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, *base;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
              MPI_SUCCESS,
          "Win_allocate");
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < 3; r++) {
        round_of(win, rank, size, MPI_LOCK_EXCLUSIVE);
        round_of(win, rank, size, MPI_LOCK_SHARED);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    if (rank == 0)
        printf("rma_lockfair: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
