/*
 * info_noinit: the info calls work before MPI_Init and after
 * MPI_Finalize (MPI 4.0 11.4.1), and an object made before MPI_Init
 * neither takes MPI_INFO_ENV's handle nor loses its keys at MPI_Init;
 * MPI_Info_create_env (MPI 4.0) gives the keys of MPI_INFO_ENV.
 * Prints "info_noinit: ok"; a failed check exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, what)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL info_noinit: %s\n", what);                                                 \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Info before, env, after;
    char val[MPI_MAX_INFO_VAL + 1], maxprocs[MPI_MAX_INFO_VAL + 1];
    int flag = 0, rank, n;

    CHECK(MPI_Info_create(&before) == MPI_SUCCESS, "MPI_Info_create before MPI_Init");
    CHECK(before != MPI_INFO_ENV, "MPI_Info_create before MPI_Init took MPI_INFO_ENV's handle");
    CHECK(MPI_Info_set(before, "color", "blue") == MPI_SUCCESS, "MPI_Info_set before MPI_Init");
    CHECK(MPI_Info_create_env(argc, argv, &env) == MPI_SUCCESS, "MPI_Info_create_env before MPI_Init");
    CHECK(MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag &&
              strstr(val, "info_noinit"),
          "MPI_Info_create_env: no command key naming the program");
    CHECK(MPI_Info_get(env, "maxprocs", MPI_MAX_INFO_VAL, maxprocs, &flag) == MPI_SUCCESS && flag,
          "MPI_Info_create_env before MPI_Init: no maxprocs");
    MPI_Info_free(&env);
    CHECK(env == MPI_INFO_NULL, "MPI_Info_free before MPI_Init");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(MPI_Info_get(before, "color", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag &&
              !strcmp(val, "blue"),
          "the info object made before MPI_Init lost its key");
    CHECK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag,
          "MPI_INFO_ENV has no maxprocs");
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(atoi(val) == n, "MPI_INFO_ENV maxprocs is not the job size");
    CHECK(atoi(maxprocs) == n, "MPI_Info_create_env before MPI_Init: maxprocs is not the job size");
    CHECK(MPI_Info_get(MPI_INFO_ENV, "color", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && !flag,
          "MPI_INFO_ENV has the key of another object");
    MPI_Finalize();

    CHECK(MPI_Info_create(&after) == MPI_SUCCESS, "MPI_Info_create after MPI_Finalize");
    CHECK(MPI_Info_get_nkeys(before, &n) == MPI_SUCCESS && n == 1, "MPI_Info_get_nkeys after MPI_Finalize");
    MPI_Info_free(&after);
    MPI_Info_free(&before);
    if (rank == 0)
        printf("info_noinit: ok\n");
    return 0;
}
