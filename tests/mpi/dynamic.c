/*
 * dynamic: the process-management calls of a job whose processes all start
 * together (mpi/dynamic.c). MPI_Comm_get_parent gives MPI_COMM_NULL;
 * MPI_Comm_disconnect of a dup of MPI_COMM_WORLD and of an
 * inter-communicator with requests still in flight on them (they complete
 * with their data, the handle becomes MPI_COMM_NULL); predefined
 * communicators are refused; MPI_Comm_spawn and MPI_Comm_spawn_multiple
 * fail with MPI_ERR_SPAWN at every member, with the root's errcodes set.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "dynamic"
#define CHECK_LINE
#include "check.h"

enum { N = 1 << 20 }; /* ints: long enough not to go in one eager message */

int main(int argc, char **argv)
{
    int rank, size, cls, flag, codes[3] = {0, 0, 0};
    MPI_Comm parent, dup, inter, spawned = MPI_COMM_WORLD, world = MPI_COMM_WORLD;
    MPI_Request rq[2];
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(out && in, "out of memory");

    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "a parent communicator %d", parent);

    /* a ring exchange in flight when the communicator is disconnected */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < N; i++)
        out[i] = rank * 7 + i, in[i] = -1;
    MPI_Irecv(in, N, MPI_INT, (rank + size - 1) % size, 5, dup, &rq[0]);
    MPI_Isend(out, N, MPI_INT, (rank + 1) % size, 5, dup, &rq[1]);
    CHECK(MPI_Comm_disconnect(&dup) == MPI_SUCCESS, "Comm_disconnect of a dup");
    CHECK(dup == MPI_COMM_NULL, "handle not reset: %d", dup);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == ((rank + size - 1) % size) * 7 + i, "in[%d] = %d", i, in[i]);

    /* an inter-communicator between the even and the odd ranks */
    if (size > 1) {
        MPI_Comm half;
        int rsize, lrank, mine = rank, got = -1;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_rank(inter, &lrank);
        MPI_Comm_free(&half);
        /* local rank r and remote rank r exchange, for r in both groups */
        rq[0] = rq[1] = MPI_REQUEST_NULL;
        if (lrank < rsize) {
            MPI_Irecv(&got, 1, MPI_INT, lrank, 1, inter, &rq[0]);
            MPI_Isend(&mine, 1, MPI_INT, lrank, 1, inter, &rq[1]);
        }
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "Comm_disconnect of an inter-communicator");
        CHECK(inter == MPI_COMM_NULL, "inter handle not reset");
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK(lrank >= rsize || got == 2 * lrank + (rank % 2 ? 0 : 1), "rank %d got %d", rank, got);
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Comm_disconnect(&world), &cls);
    CHECK(cls == MPI_ERR_COMM, "Comm_disconnect(MPI_COMM_WORLD): class %d", cls);
    MPI_Error_class(MPI_Comm_disconnect(NULL), &cls);
    CHECK(cls == MPI_ERR_ARG, "Comm_disconnect(NULL): class %d", cls);

    MPI_Error_class(
        MPI_Comm_spawn("true", MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &spawned, codes), &cls);
    CHECK(cls == MPI_ERR_SPAWN, "Comm_spawn: class %d", cls);
    CHECK(spawned == MPI_COMM_NULL, "Comm_spawn gave a communicator");
    flag = rank != 0 || (codes[0] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN);
    CHECK(flag, "root's errcodes %d %d", codes[0], codes[2]);
    {
        char *cmds[2] = {"true", "false"};
        int np[2] = {1, 1};
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
        spawned = MPI_COMM_WORLD;
        MPI_Error_class(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos, size - 1, MPI_COMM_WORLD,
                                                &spawned, MPI_ERRCODES_IGNORE),
                        &cls);
        CHECK(cls == MPI_ERR_SPAWN && spawned == MPI_COMM_NULL, "Comm_spawn_multiple: class %d", cls);
    }
    MPI_Error_class(
        MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &spawned, codes), &cls);
    CHECK(cls == MPI_ERR_ROOT, "Comm_spawn with root = size: class %d", cls);

    free(out);
    free(in);
    MPI_Finalize();
    if (rank == 0)
        printf("dynamic: ok\n");
    return 0;
}
