/*
 * comm_free_pending: MPI_Comm_free of a communicator with requests still
 * pending on it. MPI 3.1 6.4.3: the handle goes at once, pending
 * operations complete normally. On a duplicate of MPI_COMM_WORLD each rank
 * posts an MPI_Irecv and a started persistent receive from its left
 * neighbour and two MPI_Isends to its right one, frees the duplicate, then
 * completes everything: the data must arrive, the handles be freed. Under
 * ASan (the asan part of make test) a use of the freed communicator's
 * memory fails the run. Prints "comm_free_pending: ok" at rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "comm_free_pending"
#include "check.h"

int main(int argc, char **argv)
{
    int rank, p, in[64], out[64], pin[64], pout[64];
    MPI_Comm dup;
    MPI_Request req[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int right = (rank + 1) % p, left = (rank + p - 1) % p;
    for (int i = 0; i < 64; i++) {
        out[i] = rank * 1000 + i;
        pout[i] = -rank * 1000 - i;
        in[i] = pin[i] = 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Irecv(in, 64, MPI_INT, left, 1, dup, &req[0]);
    MPI_Recv_init(pin, 64, MPI_INT, left, 2, dup, &req[1]);
    MPI_Start(&req[1]);
    /* everyone has posted its receives before anyone sends */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(out, 64, MPI_INT, right, 1, dup, &req[2]);
    MPI_Isend(pout, 64, MPI_INT, right, 2, dup, &req[3]);
    MPI_Comm_free(&dup);
    if (dup != MPI_COMM_NULL)
        FAIL("MPI_Comm_free left the handle");
    /* a new communicator meanwhile must not take the old one's place */
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    if (MPI_Waitall(4, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        FAIL("MPI_Waitall failed");
    for (int i = 0; i < 64; i++)
        if (in[i] != left * 1000 + i || pin[i] != -left * 1000 - i)
            FAIL("rank %d: element %d: %d / %d", rank, i, in[i], pin[i]);
    if (req[0] != MPI_REQUEST_NULL || req[2] != MPI_REQUEST_NULL || req[1] == MPI_REQUEST_NULL)
        FAIL("request handles after MPI_Waitall");
    MPI_Request_free(&req[1]); /* the last user: the communicator goes now */
    MPI_Comm_free(&other);
    MPI_Finalize();
    if (rank == 0)
        printf("comm_free_pending: ok\n");
    return 0;
}
