/*
 * pmpi: the profiling interface (MPI 3.1 chapter 14). This program defines
 * its own MPI_Init, MPI_Send and MPI_Allreduce, as a tool would: each counts
 * its calls and calls the PMPI_ version. The library must take ours (its
 * MPI_ names are weak) and still work through the PMPI_ names: rank 0
 * sends to every other rank, all reduce, and each checks the counts and
 * the data. PMPI_ functions are also called directly.
 * Prints "pmpi: ok"; a failed check aborts the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int n_init, n_send, n_allreduce;

int MPI_Init(int *argc, char ***argv)
{
    n_init++;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    n_allreduce++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL pmpi: " __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, x, sum = 0;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            x = 100 + r;
            MPI_Send(&x, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
        }
        CHECK(n_send == size - 1, "our MPI_Send ran %d times, not %d", n_send, size - 1);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(x == 100 + rank, "received %d", x);
        CHECK(n_send == 0, "our MPI_Send ran %d times on a receiver", n_send);
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "Allreduce gave %d", sum);
    CHECK(n_init == 1 && n_allreduce == 1, "our MPI_Init ran %d times, MPI_Allreduce %d", n_init,
          n_allreduce);
    PMPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(sum == size - 1 && n_allreduce == 1, "PMPI_Allreduce gave %d (ours ran %d times)", sum,
          n_allreduce);
    PMPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("pmpi: ok\n");
    MPI_Finalize();
    return 0;
}
