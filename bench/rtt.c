/*
 * bench/rtt.c: ping-pong round-trip time between ranks 0 and 1.
 *
 * For every size (0 and the powers of two up to the maximum), rank 0 sends
 * a message to rank 1, which sends it straight back; after a warm-up, the
 * time of `iters` round trips is measured, `reps` times. Reported: the
 * median and the minimum over the repetitions of the half round trip, and
 * the median round trip, in microseconds.
 *
 * usage: mpirun -n 2 rtt [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]
 *   -i SCALE  multiply the iteration counts (default 1.0; 10000 round trips
 *             up to 8 KiB, then fewer, down to 20 at 4 MiB)
 *   -r REPS   repetitions per size (default 5)
 *   -m MAX    largest size in bytes (default 4M; K and M suffixes allowed)
 *   -s LIST   explicit sizes, comma separated (e.g. 0,8,1K,64K)
 *   --csv F   also write the table to F as CSV
 * Ranks other than 0 and 1 only take part in start-up and shut-down.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"


static void usage(void)
{
    fprintf(stderr, "usage: rtt [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]\n");
}

static long iterations(long size, double scale)
{
    long it = size <= 8192 ? 10000 : (long)(10000.0 * 8192.0 / (double)size);
    if (it < 20)
        it = 20;
    it = (long)(it * scale);
    return it < 1 ? 1 : it;
}

int main(int argc, char **argv)
{
    int rank, size;
    static const bench_limits_t lim = {4L << 20, 0, 0, 1L << 30, 1};
    bench_args_t o;
    int bad;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    bad = bench_parse_args(argc, argv, &lim, &o) != 0;
    if (bad || size < 2) {
        if (rank == 0) {
            if (size < 2)
                fprintf(stderr, "rtt: needs at least 2 ranks\n");
            usage();
        }
        MPI_Finalize();
        return 2;
    }
    double scale = o.scale;
    int reps = o.reps, nsizes = o.nsizes;
    const long *sizes = o.sizes;
    const char *csv = o.csv;
    long bufsize = o.maxn;

    char *buf = NULL;
    if (rank < 2) {
        if (posix_memalign((void **)&buf, 4096, (size_t)bufsize)) {
            fprintf(stderr, "rtt: cannot allocate %ld bytes\n", bufsize);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(buf, rank + 1, (size_t)bufsize);
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
        printf("# mbmpi rtt (MPI: %s)\n", ver);
        printf("# Size  Half-RTT-median(us)  Half-RTT-min(us)  RTT-median(us)\n");
        fflush(stdout);
        if (csv) {
            cf = fopen(csv, "w");
            if (!cf) {
                fprintf(stderr, "rtt: cannot open %s\n", csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fprintf(cf, "size,half_rtt_median_us,half_rtt_min_us,rtt_median_us\n");
        }
    }

    double *half = malloc(sizeof(double) * reps);
    for (int k = 0; k < nsizes; k++) {
        int n = (int)sizes[k];
        long iters = iterations(n, scale), warm = iters / 10 > 2 ? iters / 10 : 2;
        for (int r = 0; r < reps; r++) {
            /* rank 0 sends a pattern, rank 1 echoes it: both check it after
             * the repetition, so a fast wrong answer is caught */
            if (rank == 0)
                for (int i = 0; i < n; i++)
                    buf[i] = (char)(i * 13 + n + r);
            else if (rank == 1)
                memset(buf, 0, (size_t)n);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = 0;
            if (rank == 0) {
                for (long i = 0; i < warm + iters; i++) {
                    if (i == warm)
                        t0 = MPI_Wtime();
                    MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                half[r] = (MPI_Wtime() - t0) / (double)iters / 2.0 * 1e6;
            } else if (rank == 1) {
                for (long i = 0; i < warm + iters; i++) {
                    MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            if (rank <= 1)
                for (int i = 0; i < n; i++)
                    if (buf[i] != (char)(i * 13 + n + r)) {
                        fprintf(stderr, "rtt: rank %d: wrong data at size %d, byte %d\n", rank, n, i);
                        MPI_Abort(MPI_COMM_WORLD, 2);
                    }
        }
        if (rank == 0) {
            double mn = half[0];
            for (int r = 1; r < reps; r++)
                mn = half[r] < mn ? half[r] : mn;
            double med = median(half, reps);
            printf("%-10d %14.2f %14.2f %14.2f\n", n, med, mn, 2.0 * med);
            fflush(stdout);
            if (cf)
                fprintf(cf, "%d,%.3f,%.3f,%.3f\n", n, med, mn, 2.0 * med);
        }
    }
    if (cf)
        fclose(cf);
    free(half);
    free(buf);
    MPI_Finalize();
    return 0;
}
