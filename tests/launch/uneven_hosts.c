/*
 * tests/launch/uneven_hosts.c: collectives in a job whose hosts run
 * different numbers of ranks (tests/launch/run_launch_tests.sh starts it
 * with --host a:3,b:4 and a:2,b:3,c:1,d:1 through a launch agent that runs
 * locally). Every rank must pick the same algorithms: each one's result is
 * checked, a mismatch shows as a hang (the test's timeout). Rank 0 prints
 * "uneven_hosts ok P" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check(int ok, const char *what, int rank)
{
    if (!ok) {
        fprintf(stderr, "uneven_hosts: rank %d: %s wrong\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return ok;
}

int main(int argc, char **argv)
{
    static const int counts[] = {1, 1000, 65536};
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        int n = counts[k];
        int *a = malloc(sizeof(int) * (size_t)n * (size_t)size),
            *b = malloc(sizeof(int) * (size_t)n * (size_t)size);
        if (!a || !b)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            a[i] = rank == 1 % size ? i : -1;
        MPI_Bcast(a, n, MPI_INT, 1 % size, MPI_COMM_WORLD);
        check(a[0] == 0 && a[n - 1] == n - 1, "Bcast", rank);
        for (int i = 0; i < n; i++)
            a[i] = rank + i;
        MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(b[0] == size * (size - 1) / 2 && b[n - 1] == size * (size - 1) / 2 + size * (n - 1),
              "Allreduce", rank);
        MPI_Reduce(a, b, n, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD);
        if (rank == size - 1)
            check(b[0] == size - 1, "Reduce", rank);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                a[(size_t)r * (size_t)n + (size_t)i] = rank * 1000 + r;
        MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            check(b[(size_t)r * (size_t)n] == r * 1000 + rank, "Alltoall", rank);
        for (int i = 0; i < n; i++)
            a[i] = rank;
        MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            check(b[(size_t)r * (size_t)n + (size_t)n - 1] == r, "Allgather", rank);
        MPI_Scatter(b, n, MPI_INT, a, n, MPI_INT, 0, MPI_COMM_WORLD);
        check(a[0] == rank, "Scatter", rank);
        MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, size / 2, MPI_COMM_WORLD);
        if (rank == size / 2)
            check(b[(size_t)(size - 1) * (size_t)n] == size - 1, "Gather", rank);
        free(a);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("uneven_hosts ok %d\n", size);
    MPI_Finalize();
    return 0;
}
