/*
 * reqfree: MPI_Request_free on an active receive of a derived datatype
 * (MPI 3.1 3.7.3: the receive still completes; the program learns of it by
 * other means). Rank 1 sends a strided column to rank 0, whose receive was
 * freed right after MPI_Irecv; rank 0 then makes blocking calls until the
 * column has landed in its matrix (mbmpi finishes freed requests in every
 * blocking call), bounded by 20 s. Both orders: receive posted before the
 * send (write protocol) and after (eager). Pairs (2k, 2k+1).
 */
#define TEST_NAME "reqfree"
#include "mpi3_test.h"

int main(int argc, char **argv)
{
    int rank, size, round;
    MPI_Datatype col;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    MPI_CHECK(MPI_Type_vector(16, 1, 4, MPI_INT, &col));
    MPI_CHECK(MPI_Type_commit(&col));
    for (round = 0; round < 2; round++) {
        int peer = rank ^ 1, i, x = 0;
        if (peer >= size) {
            /* the last rank of an odd job has no partner */
        } else if (rank % 2 == 0) {
            volatile int mat[16][4];
            MPI_Request r;
            double t0;
            int ok = 0;
            for (i = 0; i < 64; i++)
                ((volatile int *)mat)[i] = -1;
            if (round == 1) /* the message is already there (eager path) */
                MPI_CHECK(MPI_Recv(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CHECK(MPI_Irecv((void *)&mat[0][2], 1, col, peer, 1, MPI_COMM_WORLD, &r));
            MPI_CHECK(MPI_Request_free(&r));
            CHECK(r == MPI_REQUEST_NULL, "Request_free did not reset the handle");
            if (round == 0)
                MPI_CHECK(MPI_Send(&x, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
            t0 = MPI_Wtime();
            while (!ok && MPI_Wtime() - t0 < 20) {
                int flag;
                /* Iprobe moves the network; a blocking call finishes freed requests */
                MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                MPI_CHECK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 9, &i, 1, MPI_INT, 0, 9, MPI_COMM_SELF,
                                       MPI_STATUS_IGNORE));
                for (ok = 1, i = 0; i < 16; i++)
                    ok &= mat[i][2] == 1000 * round + i;
            }
            CHECK(ok, "round %d: the freed receive never filled the column (%d %d %d)", round, mat[0][2], mat[1][2],
                  mat[15][2]);
            for (i = 0; i < 16; i++)
                CHECK(mat[i][0] == -1 && mat[i][1] == -1 && mat[i][3] == -1, "written outside the column");
        } else {
            int v[16];
            for (i = 0; i < 16; i++)
                v[i] = 1000 * round + i;
            if (round == 0) /* receive posted first */
                MPI_CHECK(MPI_Recv(&x, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CHECK(MPI_Send(v, 16, MPI_INT, peer, 1, MPI_COMM_WORLD));
            if (round == 1)
                MPI_CHECK(MPI_Send(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
        }
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_CHECK(MPI_Type_free(&col));
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
