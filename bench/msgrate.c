/*
 * bench/msgrate.c: aggregate small-message rate and bandwidth of several
 * pairs at once (the OSU osu_mbw_mr scheme).
 *
 * With P ranks, rank i < P/2 sends to rank i + P/2 (P/2 pairs; with an odd
 * P the last rank only takes part in start-up and shut-down). For every
 * size (powers of two from 1 B to the maximum, 4 KiB by default), each
 * sender posts a window of 64 Isends and waits for them; its receiver posts
 * 64 Irecvs (each into its own slot), waits, and answers with a 4-byte
 * acknowledgement; then the next window starts. After a barrier and a
 * warm-up window, `loops` windows are timed at every sender, `reps` times.
 * The aggregate rate is all pairs' messages over the slowest sender's time
 * (MPI_Reduce with MPI_MAX; summing per-pair rates instead, as osu_mbw_mr
 * does, overstates it when the pairs do not run at the same time, e.g. on
 * an oversubscribed host). Reported: the
 * median over the repetitions of the aggregate bandwidth (MB/s, 10^6 B/s)
 * and of the aggregate message rate (messages per second), plus the
 * maximum message rate.
 *
 * At the end of each size every receiver checks all its slots against its
 * sender's fill pattern for that size (it changes with the size and the
 * pair, so a lost or misrouted message is caught) and aborts the job on a
 * mismatch. MPI errors are fatal (MPI_ERRORS_ARE_FATAL, the default).
 *
 * usage: mpirun -n P msgrate [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]
 *   -i SCALE  multiply the window counts (default 1.0; 500 windows, i.e.
 *             32000 messages per pair and repetition, up to 1 KiB, fewer
 *             above, at least 10 windows)
 *   -r REPS   repetitions per size (default 5)
 *   -m MAX    largest size in bytes (default 4K; K and M suffixes allowed)
 *   -s LIST   explicit sizes, comma separated (e.g. 1,8,64)
 *   --csv F   also write the table to F as CSV
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
    fprintf(stderr, "usage: msgrate [-i SCALE] [-r REPS] [-m MAX] [-s LIST] [--csv FILE]\n");
}

static long windows_for(long size, double scale)
{
    long w = size <= 1024 ? 500 : (long)(500.0 * 1024.0 / (double)size);
    if (w < 10)
        w = 10;
    w = (long)(w * scale);
    return w < 1 ? 1 : w;
}

/* fill byte of sender `s` for the k-th size (never 0) */
static unsigned char pattern(int k, int s)
{
    return (unsigned char)(1 + (k * 37 + s) % 251);
}

static void window(int sender, int peer, char *sbuf, char *rbuf, int n, MPI_Request *rq)
{
    int ack = 0;
    if (sender) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Isend(sbuf, n, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &rq[w]);
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_INT, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(rbuf + (size_t)w * (size_t)n, n, MPI_BYTE, peer, 100, MPI_COMM_WORLD, &rq[w]);
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_INT, peer, 101, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    static const bench_limits_t lim = {4096, 1, 64L << 20, 64L << 20, 0};
    bench_args_t o;
    int bad;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    bad = bench_parse_args(argc, argv, &lim, &o) != 0;
    if (bad || size < 2) {
        if (rank == 0) {
            if (size < 2)
                fprintf(stderr, "msgrate: needs at least 2 ranks\n");
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

    int pairs = size / 2;
    int active = rank < 2 * pairs;
    int sender = rank < pairs;
    int peer = sender ? rank + pairs : rank - pairs;
    int me_sender = sender ? rank : peer; /* the pair's sender: names the pattern */

    char *sbuf = NULL, *rbuf = NULL;
    if (active && sender && posix_memalign((void **)&sbuf, 4096, (size_t)maxn) == 0)
        memset(sbuf, 0, (size_t)maxn);
    if (active && !sender && posix_memalign((void **)&rbuf, 4096, (size_t)maxn * WINDOW) == 0)
        memset(rbuf, 0, (size_t)maxn * WINDOW);
    if (active && !sbuf && !rbuf) {
        fprintf(stderr, "msgrate: rank %d cannot allocate buffers\n", rank);
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
        printf("# mbmpi msgrate (MPI: %s)\n", ver);
        printf("# %d pair(s): ranks 0..%d send to %d..%d, window of %d Isends\n", pairs, pairs - 1, pairs,
               2 * pairs - 1, WINDOW);
        printf("# Size  MB/s  Messages/s  Messages/s-max\n");
        fflush(stdout);
        if (csv) {
            cf = fopen(csv, "w");
            if (!cf) {
                fprintf(stderr, "msgrate: cannot open %s\n", csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fprintf(cf, "size,pairs,mb_s_median,msgs_s_median,msgs_s_max\n");
        }
    }

    MPI_Request rq[WINDOW];
    double *rate = malloc(sizeof(double) * reps);
    for (int k = 0; k < nsizes; k++) {
        int n = (int)sizes[k];
        long loops = windows_for(n, scale);
        if (active && sender)
            memset(sbuf, pattern(k, rank), (size_t)n);
        for (int r = 0; r < reps; r++) {
            double mine = 0, tmax = 0;
            if (active)
                window(sender, peer, sbuf, rbuf, n, rq); /* warm-up */
            MPI_Barrier(MPI_COMM_WORLD);
            if (active) {
                double t0 = MPI_Wtime();
                for (long l = 0; l < loops; l++)
                    window(sender, peer, sbuf, rbuf, n, rq);
                if (sender)
                    mine = MPI_Wtime() - t0;
            }
            MPI_Reduce(&mine, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            rate[r] = (double)pairs * WINDOW * (double)loops / tmax;
        }
        if (active && !sender) {
            unsigned char want = pattern(k, me_sender);
            for (size_t i = 0; i < (size_t)n * WINDOW; i++)
                if ((unsigned char)rbuf[i] != want) {
                    fprintf(stderr,
                            "msgrate: rank %d: DATA ERROR at size %d: slot %zu byte %zu is %u, expected %u (from "
                            "rank %d)\n",
                            rank, n, i / (size_t)n, i % (size_t)n, (unsigned char)rbuf[i], want, peer);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
        }
        if (rank == 0) {
            double mx = rate[0];
            for (int r = 1; r < reps; r++)
                mx = rate[r] > mx ? rate[r] : mx;
            double med = median(rate, reps);
            printf("%-10d %12.2f %14.0f %14.0f\n", n, med * n / 1e6, med, mx);
            fflush(stdout);
            if (cf)
                fprintf(cf, "%d,%d,%.3f,%.0f,%.0f\n", n, pairs, med * n / 1e6, med, mx);
        }
    }
    if (cf)
        fclose(cf);
    free(rate);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
