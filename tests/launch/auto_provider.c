/*
 * auto_provider: a small MPI job for the launch tests' "off-host default"
 * case (ranks spread over --host localhost,fakehost, MBMPI_PROVIDER=auto):
 * a ring of MPI_Sendrecv and an Allreduce, checked, then "auto_provider ok"
 * from rank 0. The test reads which transport MPI_Init opened from the
 * MBMPI_LOG=debug line "transport <provider> <version>".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, left, right, got = -1, i, sum = 0, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (i = 0; i < 100; i++) {
        int v = rank * 1000 + i;
        MPI_Sendrecv(&v, 1, MPI_INT, right, i, &got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got != left * 1000 + i)
            bad++;
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        bad++;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0)
        printf("auto_provider ok\n");
    MPI_Finalize();
    return bad != 0;
}
