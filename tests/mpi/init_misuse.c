/*
 * init_misuse: MPI_Init called wrongly is an error of the program, raised
 * like any other (fatal by default). INIT_MISUSE selects the case:
 *   twice   MPI_Init, MPI_Init: the second one ends the job ("called twice")
 *   after   MPI_Init, MPI_Finalize, MPI_Init: ends the job ("called after
 *           MPI_Finalize"); both only printed a line, returned an error
 *           code and let the job exit 0
 *   before  rank 1 calls MPI_Comm_rank before MPI_Init: ends the job; the
 *           message names rank 1 (every rank said "rank 0" before MPI_Init)
 * The manifest expects a non-zero exit and the message.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = getenv("INIT_MISUSE");
    int rank = -1;

    if (!mode)
        mode = "twice";
    if (!strcmp(mode, "before")) {
        /* rank 1 only (bin/mpirun's MBMPI_RANK): the others wait for it */
        const char *r = getenv("MBMPI_RANK");
        if (r && !strcmp(r, "1"))
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Init(&argc, &argv);
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "FAIL init_misuse: the barrier completed\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Init(&argc, &argv);
    if (!strcmp(mode, "twice")) {
        MPI_Init(&argc, &argv);
    } else if (!strcmp(mode, "after")) {
        MPI_Finalize();
        MPI_Init(&argc, &argv);
        fprintf(stderr, "FAIL init_misuse: MPI_Init after MPI_Finalize returned\n");
        return 1;
    }
    fprintf(stderr, "FAIL init_misuse: the %s misuse did not end the job\n", mode);
    MPI_Finalize();
    return 1;
}
