/*
 * rma_forged: a target refuses malformed one-sided headers (bytes from the
 * network are untrusted). Rank 0 locks rank 1's window and sends, on the
 * window's private communicator (mpii_win_send_raw, mpi/win_wire.h), a put
 * and an accumulate whose inline data is shorter than their count says;
 * then a real MPI_Get, served after them (one origin's operations are
 * served in order), must find the window untouched. Rank 1 prints that it
 * refused them (the manifest checks stderr).
 */
#include "../../mpi/win_wire.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define TEST_NAME "rma_forged"
#define CHECK_LINE
#include "check.h"

enum { N = 64 };

/* a header for N ints at displacement 0 with 8 bytes of inline data */
static void forge(MPI_Win win, int kind, MPI_Op op)
{
    union {
        rma_hdr_t h;
        char bytes[sizeof(rma_hdr_t) + 8];
    } m;

    memset(&m, 0, sizeof(m));
    m.h.kind = kind;
    m.h.count = N;
    m.h.dt = MPI_INT;
    m.h.op = op;
    m.h.inl = 8;
    memset(m.bytes + sizeof(rma_hdr_t), 0x55, 8);
    CHECK(mpii_win_send_raw(win, 1, m.bytes, (int)sizeof(m.bytes)) == MPI_SUCCESS, "send_raw");
}

int main(int argc, char **argv)
{
    int rank, size, *base, back[N];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    CHECK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
              MPI_SUCCESS,
          "Win_allocate");
    for (int i = 0; i < N; i++)
        base[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        forge(win, K_PUT, MPI_REPLACE);
        forge(win, K_ACC, MPI_SUM);
        CHECK(MPI_Get(back, N, MPI_INT, 1, 0, N, MPI_INT, win) == MPI_SUCCESS, "Get");
        MPI_Win_unlock(1, win);
        for (int i = 0; i < N; i++)
            CHECK(back[i] == -1, "window [%d] = %#x after the forged headers", i, (unsigned)back[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(base[i] == -1, "own window [%d] = %#x", i, (unsigned)base[i]);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    if (rank == 0)
        printf("rma_forged: ok\n");
    MPI_Finalize();
    return 0;
}
