/*
 * coll_env: a small program for the manifest's environment checks of the
 * collective selection: MBMPI_BCAST_ALGO=nonsense must make MPI_Init fail
 * (listing the valid names), MBMPI_COLL_VERBOSE=1 must print each choice
 * with its predicted time and runner-up, a forced MBMPI_BCAST_ALGO=chain
 * must give correct results, and MBMPI_PLOGP_FILE must load a valid file
 * and refuse a missing one.
 *
 * Runs a Bcast of 8 B and one of 4 MiB (the check that they pick
 * different algorithms), an Allreduce and an Alltoall, checking the data.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    const int big = 4 << 20;
    char *b;
    int *s, *r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b = malloc((size_t)big);
    for (int i = 0; i < big; i++)
        b[i] = rank == 0 ? (char)(i * 7 + 1) : 0;
    MPI_Bcast(b, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(b, big, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < big; i++)
        if (b[i] != (char)(i * 7 + 1)) {
            fprintf(stderr, "FAIL coll_env: bcast byte %d wrong at rank %d\n", i, rank);
            errors++;
            break;
        }
    s = malloc(sizeof(int) * (size_t)size * 4);
    r = malloc(sizeof(int) * (size_t)size * 4);
    for (int i = 0; i < size * 4; i++)
        s[i] = rank * 1000 + i;
    MPI_Alltoall(s, 4, MPI_INT, r, 4, MPI_INT, MPI_COMM_WORLD);
    for (int src = 0; src < size; src++)
        for (int i = 0; i < 4; i++)
            if (r[src * 4 + i] != src * 1000 + rank * 4 + i) {
                fprintf(stderr, "FAIL coll_env: alltoall wrong at rank %d\n", rank);
                errors++;
                src = size;
                break;
            }
    MPI_Allreduce(&rank, r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r[0] != size * (size - 1) / 2) {
        fprintf(stderr, "FAIL coll_env: allreduce wrong at rank %d\n", rank);
        errors++;
    }
    free(s);
    free(r);
    free(b);
    MPI_Finalize();
    return errors ? 1 : 0;
}
