/*
 * bsend_fatal: a Bsend that does not fit the attached buffer under the
 * default handler (MPI_ERRORS_ARE_FATAL) must end the job, naming
 * MPI_ERR_BUFFER (the manifest checks the exit status and the message).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char buf[MPI_BSEND_OVERHEAD + 8], data[64] = {0};
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Buffer_attach(buf, sizeof buf);
    if (rank == 0)
        MPI_Bsend(data, sizeof data, MPI_CHAR, size - 1, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: the oversized Bsend returned\n", rank);
    MPI_Finalize();
    return 0;
}
