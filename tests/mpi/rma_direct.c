/*
 * rma_direct: puts, gets and accumulates into a window of MPI_Win_allocate
 * whose ranks share one host need no work at the target (the origin
 * copies into the shared segment itself, MBMPI_WIN_SHM=1): rank 1 waits
 * for rank 0's put by reading its own window with plain loads, making no
 * MPI call, then stores an answer that rank 0 reads with MPI_Get; rank 0
 * also adds to and reads back rank 1's counter with MPI_Accumulate and
 * MPI_Fetch_and_op while rank 1 is still outside MPI. Where operations
 * wait for their target to serve them, this test hangs (its run's timeout
 * fails it).
 *
 * Then the ranks (any number) check that a derived target type and a
 * derived origin type land where they should, in a fence epoch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "rma_direct"
#define CHECK_LINE
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, *base;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 16; i++)
        base[i] = -1;
    base[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (size >= 2 && rank == 0) {
        int v = 42, got = 0, one = 1, old = -5;
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        MPI_Accumulate(&one, 1, MPI_INT, 1, 2, 1, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 1, 2, MPI_SUM, win);
        MPI_Win_flush(1, win);
        CHECK(old == 1, "MPI_Fetch_and_op read %d, want 1", old);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
        while (got != 7) {
            MPI_Get(&got, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            CHECK(got == -1 || got == 7, "MPI_Get read %d, want -1 or 7", got);
        }
        MPI_Win_unlock_all(win);
    } else if (size >= 2 && rank == 1) {
        /* no MPI call until the put has arrived */
        while (__atomic_load_n(&base[0], __ATOMIC_ACQUIRE) != 42)
            ;
        CHECK(__atomic_load_n(&base[2], __ATOMIC_ACQUIRE) == 2, "counter %d after the accumulates, want 2",
              base[2]);
        __atomic_store_n(&base[1], 7, __ATOMIC_RELEASE);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* a vector of 3 ints, stride 2, into the right neighbour's window at
       displacement 5; an origin of every other int of 6 */
    {
        int src[6] = {rank * 10, -9, rank * 10 + 1, -9, rank * 10 + 2, -9}, right = (rank + 1) % size;
        int left = (rank + size - 1) % size, back[3] = {0, 0, 0};
        MPI_Datatype vec;
        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (int i = 0; i < 16; i++)
            base[i] = -1;
        MPI_Win_fence(0, win);
        MPI_Put(src, 1, vec, right, 5, 1, vec, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < 3; i++) {
            CHECK(base[5 + 2 * i] == left * 10 + i, "base[%d] = %d, want %d", 5 + 2 * i, base[5 + 2 * i],
                  left * 10 + i);
            CHECK(base[6 + 2 * i] == -1, "base[%d] = %d, want -1 (the gap)", 6 + 2 * i, base[6 + 2 * i]);
        }
        MPI_Get(back, 3, MPI_INT, right, 5, 1, vec, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < 3; i++)
            CHECK(back[i] == rank * 10 + i, "MPI_Get through a vector: %d, want %d", back[i], rank * 10 + i);
        MPI_Type_free(&vec);
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
