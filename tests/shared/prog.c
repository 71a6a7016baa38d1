/* tests/shared/prog.c: a program that calls MPI and a shared object
 * (plugin.c) that calls it too: both must use one library, initialized
 * once. */
#include <mpi.h>
#include <stdio.h>

int plugin_sum_ranks(void);

int main(int argc, char **argv)
{
    int rank, size, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum = plugin_sum_ranks();
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "prog: rank %d: the shared object's MPI gave %d\n", rank, sum);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("prog: ok %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
