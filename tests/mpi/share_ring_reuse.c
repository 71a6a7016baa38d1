/*
 * share_ring_reuse: a large write the target copies itself (mbshm's SHARE,
 * here a flat Ibcast's 280 KB messages with more ranks than CPUs) stays
 * correct while its sender keeps sending to the same target. An Ibcast of
 * n ints from rank 1 on a dup of MPI_COMM_WORLD, then an Iallreduce of n
 * ints on a split with reversed keys, both completed by one MPI_Waitall,
 * several rounds. The sender had let its ring wrap over the SHARE's line
 * after the target passed it, then read the target's piece count from the
 * new bytes there and failed the Ibcast ("permission denied", MPI_ERR_OTHER):
 * every run at P = 4 with MBMPI_RTS_READ=0 (the manifest's setting).
 */
#define TEST_NAME "share_ring_reuse"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

int main(int argc, char **argv)
{
    int size, n = 70000;
    MPI_Comm a, b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - g_rank, &b));
    int *bc = malloc(sizeof(int) * (size_t)n), *s = malloc(sizeof(int) * (size_t)n),
        *r = malloc(sizeof(int) * (size_t)n);
    CHECK(bc && s && r, "out of memory");
    for (int round = 0; round < 4; round++) {
        int root = 1 % size;
        MPI_Request q[2];

        for (int i = 0; i < n; i++) {
            bc[i] = g_rank == root ? i + round : -1;
            s[i] = i + g_rank + round;
            r[i] = 0;
        }
        MPI_CHECK(MPI_Ibcast(bc, n, MPI_INT, root, a, &q[0]));
        MPI_CHECK(MPI_Iallreduce(s, r, n, MPI_INT, MPI_SUM, b, &q[1]));
        MPI_CHECK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            CHECK(bc[i] == i + round, "round %d: Ibcast int %d is %d", round, i, bc[i]);
            CHECK(r[i] == size * (i + round) + size * (size - 1) / 2, "round %d: Iallreduce int %d is %d",
                  round, i, r[i]);
        }
    }
    free(bc);
    free(s);
    free(r);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Finalize();
    return 0;
}
