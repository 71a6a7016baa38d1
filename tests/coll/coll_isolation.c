/*
 * coll_isolation: collective traffic never matches user point-to-point
 * receives. Every rank posts MPI_ANY_SOURCE / MPI_ANY_TAG receives on the
 * same communicator before running every collective (each algorithm of
 * bcast, alltoall and allreduce forced in turn), then the user messages are
 * sent; the receives must get exactly the user messages, with their tags,
 * and the collectives must give the right results.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILX(...)                                                                                           \
    do {                                                                                                     \
        fprintf(stderr, "FAIL coll_isolation: " __VA_ARGS__);                                                \
        fprintf(stderr, "\n");                                                                               \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

int main(int argc, char **argv)
{
    static const char *ops[] = {"bcast", "alltoall", "allreduce"};
    int rank, size;
    int user[2] = {-1, -1};
    MPI_Request req;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int o = 0; o < 3; o++) {
        int nalgo;
        MPIX_Coll_algo_count(ops[o], &nalgo);
        for (int a = 0; a < nalgo; a++) {
            char name[64];
            int *buf = calloc((size_t)size * 64, sizeof(int));
            int *out = calloc((size_t)size * 64, sizeof(int));
            MPIX_Coll_algo_name(ops[o], a, name, sizeof(name));
            MPIX_Coll_force(ops[o], name);
            MPI_Irecv(user, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
            for (int i = 0; i < size * 64; i++)
                buf[i] = rank == 0 ? i + 1 : 0;
            if (o == 0) {
                MPI_Bcast(buf, size * 64, MPI_INT, 0, MPI_COMM_WORLD);
                for (int i = 0; i < size * 64; i++)
                    if (buf[i] != i + 1)
                        FAILX("bcast/%s wrong at rank %d", name, rank);
            } else if (o == 1) {
                for (int i = 0; i < size * 64; i++)
                    buf[i] = rank * 100000 + i;
                MPI_Alltoall(buf, 64, MPI_INT, out, 64, MPI_INT, MPI_COMM_WORLD);
                for (int s = 0; s < size; s++)
                    for (int i = 0; i < 64; i++)
                        if (out[s * 64 + i] != s * 100000 + rank * 64 + i)
                            FAILX("alltoall/%s wrong at rank %d", name, rank);
            } else {
                for (int i = 0; i < size * 64; i++)
                    buf[i] = rank + i;
                MPI_Allreduce(buf, out, size * 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                for (int i = 0; i < size * 64; i++)
                    if (out[i] != size * (size - 1) / 2 + size * i)
                        FAILX("allreduce/%s wrong at rank %d", name, rank);
            }
            /* the wildcard receive must still be pending: nothing matched (the
             * barriers keep every user send after every rank's test) */
            MPI_Barrier(MPI_COMM_WORLD);
            {
                int flag;
                MPI_Test(&req, &flag, &st);
                if (flag)
                    FAILX("%s/%s: a collective message matched the user's ANY_SOURCE receive (rank %d)",
                          ops[o], name, rank);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            /* now the user's own message, from the left neighbour */
            {
                int msg[2] = {rank, 4242 + a};
                MPI_Send(msg, 2, MPI_INT, (rank + 1) % size, 77 + o, MPI_COMM_WORLD);
            }
            MPI_Wait(&req, &st);
            if (st.MPI_SOURCE != (rank - 1 + size) % size || st.MPI_TAG != 77 + o ||
                user[0] != st.MPI_SOURCE || user[1] != 4242 + a)
                FAILX("%s/%s: user receive got source %d tag %d data %d %d (rank %d)", ops[o], name,
                      st.MPI_SOURCE, st.MPI_TAG, user[0], user[1], rank);
            free(buf);
            free(out);
            MPIX_Coll_force(ops[o], "auto");
        }
    }
    if (rank == 0)
        printf("coll_isolation P=%d: ok\n", size);
    MPI_Finalize();
    return 0;
}
