/*
 * abort_output: what every rank wrote to stdout before a peer's MPI_Abort
 * reaches the output. Each rank prints a line (abort-line-of-rank-<r>),
 * all meet in a barrier, then rank 0 calls MPI_Abort(5) while the others
 * wait in a second barrier. tests/mpi/run.sh sends stdout to a file, where
 * C's stdout is fully buffered: the waiting ranks' lines were lost when the
 * job ended them. The manifest expects exit status 5 and the last rank's
 * line (and rank 0's, the aborting rank's).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("abort-line-of-rank-%d\n", rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "FAIL abort_output: the barrier completed (rank %d)\n", rank);
    MPI_Finalize();
    return 1;
}
