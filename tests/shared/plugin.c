/* tests/shared/plugin.c: a shared object that uses MPI, built with
 * `bin/mpicc -shared`. Loaded two ways by tests/suites/shared.sh: linked
 * into prog.c (a program that calls MPI itself), and dlopen'ed by host.c (a
 * program that knows nothing of MPI, as Python loads an MPI module). */
#include <mpi.h>
#include <stdio.h>

/* after the program's MPI_Init: the same library must see it initialized */
int plugin_sum_ranks(void)
{
    int flag = 0, rank, size, sum = -1;

    if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return sum == size * (size - 1) / 2 ? sum : -1;
}

/* the whole MPI life inside the shared object */
int plugin_main(int *argc, char ***argv)
{
    int rank, size, sum, flag = 0;

    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum = plugin_sum_ranks();
    if (sum < 0)
        return 1;
    /* a message around the ring, and MPI_IN_PLACE (a library constant) */
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int v = got;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (got != (rank + size - 1) % size || v != size - 1)
        return 1;
    MPI_Finalize();
    MPI_Finalized(&flag);
    if (rank == 0 && flag)
        printf("plugin: ok %d ranks\n", size);
    return flag ? 0 : 1;
}
