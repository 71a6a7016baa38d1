/*
 * tests/launch/mpmd.c: a rank of an MPMD job (bin/mpirun "a : b"), for
 * tests/launch/run_launch_tests.sh. Prints "mpmd rank R size S appnum A
 * arg X sum T": its rank, MPI_COMM_WORLD's size, its MPI_APPNUM, its first
 * argument (or -) and an Allreduce of the ranks over every program.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, flag = 0, *appnum = NULL, sum = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpmd rank %d size %d appnum %d arg %s sum %d\n", rank, size, flag ? *appnum : -1,
           argc > 1 ? argv[1] : "-", sum);
    MPI_Finalize();
    return 0;
}
