/*
 * rma_manyget: many operations outstanding at once on a window of
 * MPI_Win_create (served by active messages): every rank but 0 issues
 * 20000 MPI_Get of 64 bytes from rank 0's window in one passive epoch,
 * every 500th of them an MPI_Rget whose request it waits for inside the
 * epoch (the window now reaps its pending operations 32 per progress call,
 * and such a request must still complete), then checks
 * every byte after MPI_Win_unlock_all. The time of MPICH's rma/manyget
 * (100000 Gets of 128 KiB) went from 261 s to 1.6 s with that change;
 * this test checks what it must still do, not its speed.
 */
#define TEST_NAME "rma_manyget"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK rank
#include "check.h"

#define NGET 20000
#define LEN 64
#define WIN (64 * 1024)

static int rank = -1;

int main(int argc, char **argv)
{
    int size, nr = 0;
    unsigned char *base = NULL, *out;
    MPI_Request rq[NGET / 500];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        base = malloc(WIN);
        for (int i = 0; i < WIN; i++)
            base[i] = (unsigned char)(i * 7 + (i >> 8));
    }
    MPI_Win_create(base, rank == 0 ? WIN : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    out = malloc((size_t)NGET * LEN);
    if (rank > 0) {
        MPI_Win_lock_all(0, win);
        for (int k = 0; k < NGET; k++) {
            MPI_Aint disp = (MPI_Aint)((k * 997L) % (WIN - LEN));
            if (k % 500 == 0)
                CHECK(MPI_Rget(out + (size_t)k * LEN, LEN, MPI_BYTE, 0, disp, LEN, MPI_BYTE, win,
                               &rq[nr++]) == MPI_SUCCESS,
                      "Rget %d", k);
            else
                CHECK(MPI_Get(out + (size_t)k * LEN, LEN, MPI_BYTE, 0, disp, LEN, MPI_BYTE, win) ==
                          MPI_SUCCESS,
                      "Get %d", k);
        }
        CHECK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall of the Rgets");
        MPI_Win_unlock_all(win);
        for (int k = 0; k < NGET; k++) {
            long disp = (k * 997L) % (WIN - LEN);
            for (int j = 0; j < LEN; j++) {
                long i = disp + j;
                CHECK(out[(size_t)k * LEN + (size_t)j] == (unsigned char)(i * 7 + (i >> 8)), "get %d byte %d",
                      k, j);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(base);
    free(out);
    MPI_Finalize();
    if (rank == 0)
        printf("%s: ok\n", TEST_NAME);
    return 0;
}
