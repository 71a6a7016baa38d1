/*
 * bench/bw.c: unidirectional streaming bandwidth from rank 0 to rank 1.
 *
 * For every size (powers of two from 1 B to the maximum), rank 0 posts a
 * window of 64 Isends and waits for them; rank 1 posts 64 Irecvs (each
 * into its own slot of a window-sized buffer), waits for them and answers
 * with a 4-byte acknowledgement, after which the next window starts. After
 * a warm-up window, `loops` windows are timed at rank 0, `reps` times.
 * Reported: median and maximum over the repetitions, in MB/s (10^6 bytes
 * per second).
 *
 * usage: mpirun -n 2 bw [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]
 *   -i SCALE  multiply the window counts (default 1.0; 1000 windows up to
 *             1 KiB, then 64 MiB worth per repetition, at least 2 windows)
 *   -r REPS   repetitions per size (default 5)
 *   -m MAX    largest size in bytes (default 4M; K and M suffixes allowed)
 *   -s LIST   explicit sizes, comma separated (e.g. 1,8,1K,64K)
 *   --csv F   also write the table to F as CSV
 * Ranks other than 0 and 1 only take part in start-up and shut-down.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define WINDOW 64

static void usage(void)
{
    fprintf(stderr, "usage: bw [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]\n");
}

static long windows_for(long size, double scale)
{
    long w = size <= 1024 ? 1000 : (long)(1000.0 * 1024.0 / (double)size);
    if (w < 2)
        w = 2;
    w = (long)(w * scale);
    return w < 1 ? 1 : w;
}

/* one window; returns nothing, both sides */
static void window(int rank, char *sbuf, char *rbuf, int n, MPI_Request *rq)
{
    int ack = 0;
    if (rank == 0) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Isend(sbuf, n, MPI_BYTE, 1, 100, MPI_COMM_WORLD, &rq[w]);
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(rbuf + (size_t)w * (size_t)n, n, MPI_BYTE, 0, 100, MPI_COMM_WORLD, &rq[w]);
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    static const bench_limits_t lim = {4L << 20, 1, 0, 64L << 20, 0};
    bench_args_t o;
    int bad;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    bad = bench_parse_args(argc, argv, &lim, &o) != 0;
    if (bad || size < 2) {
        if (rank == 0) {
            if (size < 2)
                fprintf(stderr, "bw: needs at least 2 ranks\n");
            usage();
        }
        MPI_Finalize();
        return 2;
    }
    double scale = o.scale;
    int reps = o.reps, nsizes = o.nsizes;
    const long *sizes = o.sizes;
    const char *csv = o.csv;
    long maxn = o.maxn;

    /* the sender reuses one buffer for the whole window (concurrent reads
     * of a send buffer are allowed since MPI 3.0); the receiver gives each
     * receive of the window its own slot */
    char *sbuf = NULL, *rbuf = NULL;
    if (rank == 0 && posix_memalign((void **)&sbuf, 4096, (size_t)maxn) == 0)
        for (size_t i = 0; i < (size_t)maxn; i++)
            sbuf[i] = (char)(i * 7 + 3); /* checked by the receiver after each size */
    if (rank == 1 && posix_memalign((void **)&rbuf, 4096, (size_t)maxn * WINDOW) == 0)
        memset(rbuf, 'b', (size_t)maxn * WINDOW);
    if ((rank == 0 && !sbuf) || (rank == 1 && !rbuf)) {
        fprintf(stderr, "bw: cannot allocate buffers\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    FILE *cf = NULL;
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = '\0';
        for (char *c = ver; *c; c++)
            if (*c == '\t')
                *c = ' ';
        printf("# mbmpi bw (MPI: %s)\n", ver);
        printf("# Size  Bandwidth-median(MB/s)  Bandwidth-max(MB/s)\n");
        fflush(stdout);
        if (csv) {
            cf = fopen(csv, "w");
            if (!cf) {
                fprintf(stderr, "bw: cannot open %s\n", csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fprintf(cf, "size,bandwidth_median_mb_s,bandwidth_max_mb_s\n");
        }
    }

    MPI_Request rq[WINDOW];
    double *bw = malloc(sizeof(double) * reps);
    for (int k = 0; k < nsizes; k++) {
        int n = (int)sizes[k];
        long loops = windows_for(n, scale);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank > 1)
                continue;
            window(rank, sbuf, rbuf, n, rq); /* warm-up */
            double t0 = MPI_Wtime();
            for (long l = 0; l < loops; l++)
                window(rank, sbuf, rbuf, n, rq);
            double t = MPI_Wtime() - t0;
            bw[r] = (double)n * WINDOW * (double)loops / t / 1e6;
            if (rank == 1) {
                /* a fast wrong answer is no answer: every slot of the last window */
                for (int w = 0; w < WINDOW; w++)
                    for (int i = 0; i < n; i++)
                        if (rbuf[(size_t)w * (size_t)n + (size_t)i] != (char)(i * 7 + 3)) {
                            fprintf(stderr, "bw: wrong data at size %d, slot %d, byte %d\n", n, w, i);
                            MPI_Abort(MPI_COMM_WORLD, 2);
                        }
                memset(rbuf, 'b', (size_t)n * WINDOW);
            }
        }
        if (rank == 0) {
            double mx = bw[0];
            for (int r = 1; r < reps; r++)
                mx = bw[r] > mx ? bw[r] : mx;
            double med = median(bw, reps);
            printf("%-10d %16.2f %16.2f\n", n, med, mx);
            fflush(stdout);
            if (cf)
                fprintf(cf, "%d,%.3f,%.3f\n", n, med, mx);
        }
    }
    if (cf)
        fclose(cf);
    free(bw);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
