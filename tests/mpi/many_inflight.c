/*
 * many_inflight: 20000 one-int messages in flight between each pair at
 * once: rank 2k Isends them to rank 2k+1, which has as many Irecvs posted
 * (or, in the second round, posts them only after a barrier, so the sends
 * arrive first), then both complete them with one MPI_Waitall. Past the
 * eager credits each small send goes as an RTS, whose receive exposes its
 * buffer: over mbshm the receives beyond its 16384 registrations failed
 * ("could not expose its receive buffer; the send fails") until proto
 * made them wait for a registration to come back.
 */
#define TEST_NAME "many_inflight"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_RANK g_rank
#include "check.h"

#define N 20000

static int g_rank = -1;

int main(int argc, char **argv)
{
    int size, *b;
    MPI_Request *r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b = malloc(sizeof(int) * N);
    r = malloc(sizeof(MPI_Request) * N);
    CHECK(b && r, "out of memory");
    for (int prepost = 1; prepost >= 0; prepost--) {
        int peer = g_rank ^ 1, active = peer < size;

        if (!prepost)
            MPI_Barrier(MPI_COMM_WORLD);
        if (active && g_rank % 2 == 0) {
            for (int k = 0; k < N; k++) {
                b[k] = k * 3 + prepost;
                MPI_CHECK(MPI_Isend(&b[k], 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[k]));
            }
        } else if (active) {
            for (int k = 0; k < N; k++) {
                b[k] = -1;
                MPI_CHECK(MPI_Irecv(&b[k], 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[k]));
            }
        }
        if (prepost)
            MPI_Barrier(MPI_COMM_WORLD);
        if (active) {
            MPI_CHECK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
            if (g_rank % 2)
                for (int k = 0; k < N; k++)
                    CHECK(b[k] == k * 3 + prepost, "message %d holds %d, want %d (prepost %d)", k, b[k],
                          k * 3 + prepost, prepost);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(b);
    free(r);
    MPI_Finalize();
    return 0;
}
