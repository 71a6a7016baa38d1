/*
 * errors_fatal: with the default handler (MPI_ERRORS_ARE_FATAL), rank 0
 * sends to an invalid rank. The job must end with a non-zero exit status
 * and the library's message should name the failing call (the manifest
 * looks for "MPI_Send" in stderr; this program's own messages never
 * contain that word). The other ranks wait in a barrier that rank 0 never
 * enters. With ERRORS_FATAL_OP set, every rank calls MPI_Allreduce with
 * MPI_SUM on MPI_BYTE instead (the manifest looks for both names). With
 * ERRORS_FATAL_ABORT set, MPI_COMM_WORLD's handler is MPI_ERRORS_ABORT
 * (MPI 4.0 9.3), which the message must name.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, buf = 42;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("ERRORS_FATAL_ABORT"))
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
    if (getenv("ERRORS_FATAL_OP")) {
        /* MPI_SUM is not defined on MPI_BYTE (MPI 3.1 section 5.9.2): the
         * message names both ("op MPI_SUM is invalid or not defined on
         * MPI_BYTE"), not their handle numbers */
        unsigned char c = 1, r;
        MPI_Allreduce(&c, &r, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD);
        fprintf(stderr, "FAIL errors_fatal: Allreduce(MPI_BYTE, MPI_SUM) returned (rank %d)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (rank == 0) {
        int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
        /* not reached when the handler is fatal, as it must be */
        fprintf(stderr, "FAIL errors_fatal: the invalid-rank send returned %d instead of aborting (rank 0)\n", rc);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "FAIL errors_fatal: barrier completed without rank 0 (rank %d)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
