/*
 * bench/rma.c: one-sided latency and bandwidth on 2 ranks, plain MPI (it
 * builds with any MPI's mpicc). Rank 1 exposes a window from
 * MPI_Win_allocate and waits in MPI_Barrier; rank 0, under
 * MPI_Win_lock(MPI_LOCK_SHARED), times ITERS rounds of one operation
 * followed by MPI_Win_flush: MPI_Put and MPI_Get of 8 bytes,
 * MPI_Fetch_and_op (MPI_LONG, MPI_SUM), MPI_Compare_and_swap; then
 * fence epochs, each one MPI_Put of SIZE bytes. Each figure is the median
 * of REPS repetitions: microseconds per operation (operation + flush), and
 * MB/s for the fence puts.
 *
 * usage: mpirun -n 2 rma [-i ITERS (2000)] [-r REPS (5)] [-s SIZE (1M)]
 * Output: one line per measure, "name value unit".
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PUT, GET, FOP, CAS, NOPS };
static const char *names[NOPS] = {"put+flush", "get+flush", "fetch_and_op+flush", "compare_and_swap+flush"};

int main(int argc, char **argv)
{
    int rank, size, iters = 2000, reps = 5, c;
    long bytes = 1 << 20;
    char *base, *buf;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "i:r:s:")) != -1) {
        if (c == 'i')
            iters = atoi(optarg);
        else if (c == 'r')
            reps = atoi(optarg);
        else if (c == 's')
            bytes = parse_size(optarg);
        else
            iters = -1;
    }
    if (size != 2 || iters < 1 || reps < 1 || bytes < 8) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 rma [-i ITERS] [-r REPS] [-s SIZE]\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, (size_t)bytes);
    buf = malloc((size_t)bytes);
    double *t = malloc((size_t)reps * sizeof(double));
    if (!buf || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int op = 0; op < NOPS; op++) {
        if (rank == 0) {
            long one = 1, cmp = 0, res;
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            for (int r = 0; r < reps; r++) {
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) {
                    if (op == PUT)
                        MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
                    else if (op == GET)
                        MPI_Get(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
                    else if (op == FOP)
                        MPI_Fetch_and_op(&one, &res, MPI_LONG, 1, 8, MPI_SUM, win);
                    else
                        MPI_Compare_and_swap(&one, &cmp, &res, MPI_LONG, 1, 16, win);
                    MPI_Win_flush(1, win);
                }
                t[r] = (MPI_Wtime() - t0) / iters * 1e6;
            }
            MPI_Win_unlock(1, win);
            printf("%s %.3f us\n", names[op], median(t, reps));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_fence(0, win);
    for (int r = 0; r < reps; r++) {
        int m = 50;
        double t0 = MPI_Wtime();
        for (int i = 0; i < m; i++) {
            if (rank == 0)
                MPI_Put(buf, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
            MPI_Win_fence(0, win);
        }
        t[r] = (double)bytes * m / (MPI_Wtime() - t0) / 1e6;
    }
    if (rank == 0)
        printf("fence_put_%ld %.0f MB/s\n", bytes, median(t, reps));
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(buf);
    free(t);
    MPI_Finalize();
    return 0;
}
