/*
 * abort: after a barrier, the last rank calls MPI_Abort(MPI_COMM_WORLD, 3)
 * while every other rank blocks in a receive that is never satisfied. The
 * whole job must end, with exit status 3 (manifest: exit:3).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Abort(MPI_COMM_WORLD, 3);
        fprintf(stderr, "FAIL abort: MPI_Abort returned (rank %d)\n", rank);
        return 1;
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL abort: a receive that nobody sends to completed (rank %d)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
