/*
 * bench/bibw.c: bidirectional streaming bandwidth between ranks 0 and 1.
 *
 * For every size (powers of two from 1 B to the maximum), both ranks post a
 * window of 64 Irecvs (each into its own slot of a window-sized buffer) and
 * then a window of 64 Isends to each other at once, and wait for all 128
 * requests; then the next window starts (the OSU osu_bibw scheme). After a
 * warm-up window, `loops` windows are timed at rank 0, `reps` times.
 * Reported: median and maximum over the repetitions of the bytes moved in
 * both directions per second, in MB/s (10^6 bytes per second).
 *
 * At the end of each size both ranks check every receive slot against the
 * peer's fill pattern for that size (the pattern changes with the size, so
 * a receive that was never written is caught too) and abort the job on a
 * mismatch. MPI errors are fatal (MPI_ERRORS_ARE_FATAL, the default).
 *
 * usage: mpirun -n 2 bibw [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]
 *   -i SCALE  multiply the window counts (default 1.0; 1000 windows up to
 *             1 KiB, then 64 MiB worth per direction and repetition, at
 *             least 2 windows)
 *   -r REPS   repetitions per size (default 5)
 *   -m MAX    largest size in bytes (default 4M; K and M suffixes allowed)
 *   -s LIST   explicit sizes, comma separated (e.g. 1,8,1K,64K)
 *   --csv F   also write the table to F as CSV
 * Each of ranks 0 and 1 holds 64 x MAX bytes of receive slots (256 MiB at
 * 4 MiB). Ranks other than 0 and 1 only take part in start-up and shut-down.
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
    fprintf(stderr, "usage: bibw [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]\n");
}

static long windows_for(long size, double scale)
{
    long w = size <= 1024 ? 1000 : (long)(1000.0 * 1024.0 / (double)size);
    if (w < 2)
        w = 2;
    w = (long)(w * scale);
    return w < 1 ? 1 : w;
}

/* fill byte of `rank`'s send buffer for the k-th size (never 0) */
static unsigned char pattern(int k, int rank)
{
    return (unsigned char)(1 + (k * 2 + rank) % 251);
}

/* one window: both directions at once */
static void window(int peer, char *sbuf, char *rbuf, int n, MPI_Request *rq)
{
    for (int w = 0; w < WINDOW; w++)
        MPI_Irecv(rbuf + (size_t)w * (size_t)n, n, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &rq[w]);
    for (int w = 0; w < WINDOW; w++)
        MPI_Isend(sbuf, n, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &rq[WINDOW + w]);
    MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE);
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
                fprintf(stderr, "bibw: needs at least 2 ranks\n");
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

    /* one send buffer for the whole window (concurrent reads of a send
     * buffer are allowed since MPI 3.0); every receive has its own slot */
    char *sbuf = NULL, *rbuf = NULL;
    int peer = 1 - rank;
    if (rank < 2) {
        if (posix_memalign((void **)&sbuf, 4096, (size_t)maxn) ||
            posix_memalign((void **)&rbuf, 4096, (size_t)maxn * WINDOW)) {
            fprintf(stderr, "bibw: rank %d cannot allocate %ld bytes of buffers\n", rank, maxn * (WINDOW + 1));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(rbuf, 0, (size_t)maxn * WINDOW);
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
        printf("# mbmpi bibw (MPI: %s)\n", ver);
        printf("# Size  Bandwidth-median(MB/s)  Bandwidth-max(MB/s)\n");
        fflush(stdout);
        if (csv) {
            cf = fopen(csv, "w");
            if (!cf) {
                fprintf(stderr, "bibw: cannot open %s\n", csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fprintf(cf, "size,bandwidth_median_mb_s,bandwidth_max_mb_s\n");
        }
    }

    MPI_Request rq[2 * WINDOW];
    double *bw = malloc(sizeof(double) * reps);
    for (int k = 0; k < nsizes; k++) {
        int n = (int)sizes[k];
        long loops = windows_for(n, scale);
        if (rank < 2)
            memset(sbuf, pattern(k, rank), (size_t)n);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank > 1)
                continue;
            window(peer, sbuf, rbuf, n, rq); /* warm-up */
            double t0 = MPI_Wtime();
            for (long l = 0; l < loops; l++)
                window(peer, sbuf, rbuf, n, rq);
            double t = MPI_Wtime() - t0;
            bw[r] = 2.0 * (double)n * WINDOW * (double)loops / t / 1e6;
        }
        if (rank < 2) {
            unsigned char want = pattern(k, peer);
            for (size_t i = 0; i < (size_t)n * WINDOW; i++)
                if ((unsigned char)rbuf[i] != want) {
                    fprintf(stderr,
                            "bibw: rank %d: DATA ERROR at size %d: slot %zu byte %zu is %u, expected %u\n", rank,
                            n, i / (size_t)n, i % (size_t)n, (unsigned char)rbuf[i], want);
                    MPI_Abort(MPI_COMM_WORLD, 3);
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
