/*
 * xchg_pull: four MPI_Allreduce (or, with argument "alltoall", MPI_Alltoall)
 * of 128 KiB at 2 ranks, nothing else, with the algorithm the environment
 * forces (MBMPI_ALLREDUCE_ALGO / MBMPI_ALLTOALL_ALGO). tests/suites/coll.sh
 * runs it with MBMPI_SHM_CMA=exchange and counts what rank 1 copied out of
 * rank 0's memory (the reductions' exchanges must keep to the rings). Not
 * in the manifest: it checks no results of its own beyond the sums.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "xchg_pull"
static int rank = -1;
#define CHECK_RANK rank
#include "../mpi/check.h"

#define N (128 * 1024 / (int)sizeof(double))

int main(int argc, char **argv)
{
    int size, a2a = argc > 1 && !strcmp(argv[1], "alltoall");
    double *a, *b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    a = malloc((size_t)N * (size_t)size * sizeof *a);
    b = malloc((size_t)N * (size_t)size * sizeof *b);
    CHECK(a && b, "out of memory");
    for (int i = 0; i < N * size; i++)
        a[i] = rank + 1;
    for (int k = 0; k < 4; k++) {
        if (a2a)
            MPI_CHECK(MPI_Alltoall(a, N, MPI_DOUBLE, b, N, MPI_DOUBLE, MPI_COMM_WORLD));
        else
            MPI_CHECK(MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    }
    CHECK(a2a || b[N - 1] == size * (size + 1) / 2, "sum %g", b[N - 1]);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
