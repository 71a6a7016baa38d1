/*
 * bench/plogp.c: measure the pLogP parameters L, o_s(m), o_r(m), g(m)
 * between ranks 0 and 1, after the method of the MPI LogP Benchmark
 * (Kielmann, Bal, Verstoep, "Fast measurement of LogP parameters for message
 * passing platforms", 2000). Plain MPI: builds with any mpicc.
 *
 * For m = 0 and every power of two from 1 to MAX (default 4 MiB), each
 * quantity is the median over REPS repetitions of a mean over n(m)
 * iterations (n shrinks as m grows):
 *
 *   RTT(m)  ping-pong round trip (0 -> 1 -> 0, m bytes each way).
 *   o_s(m)  duration of MPI_Send(m) at rank 0 with the receive already
 *           posted at rank 1: rank 1 posts MPI_Irecv, then sends a 0-byte
 *           "ready" token; rank 0 times the MPI_Send that follows the token.
 *   o_r(m)  duration of MPI_Recv(m) at rank 1 for a message that has already
 *           arrived: rank 0 sends, rank 1 polls MPI_Iprobe until the message
 *           is there, then times MPI_Recv, then acknowledges (0 bytes).
 *           (Above the eager limit "arrived" means the envelope / RTS: o_r
 *           then includes the transfer, as with the benchmark's delay
 *           method.)
 *   g(m)    gap from a saturating stream: rank 0 sends N = 2n messages
 *           back to back, rank 1 receives them and answers with one 0-byte
 *           ack; the stream takes T(N) = N g(m) + 2L + g(0) = N g(m) +
 *           RTT(0) - g(0), so g(m) = (T(N) - RTT(0)) / N (off by g(0)/N,
 *           and less noisy than a difference of two streams).
 *   L       end-to-end latency as pLogP defines it, from RTT(0) = 2 (L + g(0)):
 *           L = RTT(0)/2 - g(0) (clamped at 0.01 us).
 *   OW(m)   one message of m bytes from rank 0 to rank 1 from a synchronised
 *           start: both ranks' clocks are matched to rank 0's (ping-pong
 *           midpoints, bench_util.h), call i starts at both at the same
 *           planned moment, one window (3 RTT(m) + 20 us) apart, and takes
 *           until rank 1's MPI_Recv returns; the median over up to 64 calls
 *           (leaving out the calls that a rank started more than half a
 *           window late).
 *           What a hop of a collective costs when its ranks enter together
 *           (bench/coll times collectives the same way).
 *   XW(m)   the same for an exchange: both ranks MPI_Sendrecv m bytes with
 *           each other, until the later one returns.
 *   gamma   (mbmpi's reduction models) the local cost of combining one byte:
 *           MPI_Reduce_local of 1 MiB of floats with MPI_SUM at rank 0,
 *           microseconds per byte.
 * The cost of one MPI_Wtime call is measured and subtracted from o_s, o_r.
 *
 * Output (-o FILE, default stdout): the mbmpi pLogP parameter file
 *     # mbmpi pLogP parameters v1
 *     # provider <name>, measured <date> by bench/plogp
 *     L <us>
 *     gamma <us per byte>
 *     # m_bytes  os_us  or_us  g_us  rtt_us  ow_us  xw_us
 *     1 0.30 0.35 0.50 1.20 0.70 0.90
 *     ...
 * and with --csv FILE also m,os_us,or_us,g_us,rtt_us,ow_us,xw_us (m = 0
 * included).
 *
 * usage: mpirun -n 2 plogp [-o FILE] [--csv FILE] [-m MAX] [-r REPS] [-i SCALE]
 *                          [-p PROVIDER]
 *   -m MAX     largest size (default 4M; K and M suffixes)
 *   -r REPS    repetitions per quantity and size (default 5)
 *   -i SCALE   multiply the iteration counts (default 1.0: 400 iterations up
 *              to 4 KiB, then fewer, at least 4)
 *   -p NAME    provider name for the header (default: MBMPI_PROVIDER, "tcp"
 *              written as "tcp;ofi_rxm", else "unknown")
 * Ranks other than 0 and 1 only take part in start-up and shut-down.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define MAX_SIZES 40
#define TAG_DATA 1
#define TAG_TOKEN 2

#define TAG_SYNC 3
#define SYNC_CALLS 64 /* calls timed per batch from synchronised starts */

enum { Q_RTT, Q_OS, Q_OR, Q_G, Q_OW, Q_XW, NQ };

static void usage(void)
{
    fprintf(stderr, "usage: plogp [-o FILE] [--csv FILE] [-m MAX] [-r REPS] [-i SCALE] [-p PROVIDER]\n");
}

/* Iterations per repetition: constant for small sizes (where one message
 * costs a few microseconds), then inversely proportional to m so that a
 * repetition moves about 1.6 MB; never fewer than 4. */
static long iterations(long m, double scale)
{
    long it = m <= 4096 ? 400 : (long)(400.0 * 4096.0 / (double)m);
    it = (long)((double)it * scale);
    return it < 4 ? 4 : it;
}

/* Cost of one MPI_Wtime call (seconds), subtracted from the per-call times. */
static double wtime_cost(void)
{
    double v[7];
    for (int r = 0; r < 7; r++) {
        double t0 = MPI_Wtime(), t = t0;
        for (int i = 0; i < 1000; i++)
            t = MPI_Wtime();
        v[r] = (t - t0) / 1000.0;
    }
    return median(v, 7);
}

/* gamma: microseconds per byte of MPI_Reduce_local (MPI_SUM, floats), the
 * median of reps repetitions over 1 MiB; -1 when it cannot be measured.
 * The size is where gamma matters (for small m the latencies dwarf it),
 * and where a collective's buffers no longer sit in the cache: on a Xeon
 * with 2 MiB of L2 per core, 0.099 ns per byte at 1 MiB against 0.058 at
 * 256 KiB and below (2026-12-03). */
static double measure_gamma(int reps, double scale)
{
    enum { N = 262144 };
    float *in = malloc(N * sizeof(float)), *io = malloc(N * sizeof(float));
    double *v = malloc(sizeof(double) * (size_t)reps), gamma = -1.0;
    long iters = (long)(20 * scale) < 2 ? 2 : (long)(20 * scale);
    if (in && io && v) {
        for (int i = 0; i < N; i++) {
            in[i] = (float)(i % 7);
            io[i] = 1.0f;
        }
        MPI_Reduce_local(in, io, N, MPI_FLOAT, MPI_SUM); /* warm-up: page faults, caches */
        for (int r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            for (long i = 0; i < iters; i++)
                MPI_Reduce_local(in, io, N, MPI_FLOAT, MPI_SUM);
            v[r] = (MPI_Wtime() - t0) / (double)iters;
        }
        gamma = median(v, reps) * 1e6 / (double)(N * sizeof(float));
    }
    free(in);
    free(io);
    free(v);
    return gamma;
}

/* One repetition of quantity q at size m with n iterations; returns seconds
 * per iteration at rank 0 (RTT, o_s, g) or rank 1 (o_r), 0 elsewhere. tw is
 * the cost of MPI_Wtime, rtt0 the round trip of an empty message (seconds,
 * rank 0; subtracted from the stream time of g). */
/* OW / XW: n (at most SYNC_CALLS) calls from synchronised starts one
 * period apart (the window method of bench/coll: clocks matched to rank
 * 0's at start-up); the median over the calls of the receiver's (OW) or
 * the later rank's (XW) completion minus the planned start, seconds, at
 * rank 0 (OW: at rank 1), or -1 when every call was late. As in bench/coll,
 * a call that either rank starts more than half a period late is left out
 * (after a rank lost its CPU for a while, its calls run back to back until
 * it is on schedule again). */
static double measure_sync(int q, int rank, char *buf, long m, long n, double period)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int cnt = (int)m, peer = 1 - rank;
    double d[SYNC_CALLS], x[SYNC_CALLS], start;

    if (n > SYNC_CALLS)
        n = SYNC_CALLS;
    if (rank == 0) {
        start = bench_gnow() + 1e-3;
        MPI_Send(&start, 1, MPI_DOUBLE, 1, TAG_SYNC, w);
    } else {
        MPI_Recv(&start, 1, MPI_DOUBLE, 0, TAG_SYNC, w, MPI_STATUS_IGNORE);
    }
    for (long i = 0; i < n; i++) {
        double ti = start + (double)i * period, now;
        while ((now = bench_gnow()) < ti)
            ;
        int was_late = now - ti > period / 2;
        if (q == Q_XW)
            MPI_Sendrecv(buf, cnt, MPI_BYTE, peer, TAG_DATA, buf + m, cnt, MPI_BYTE, peer, TAG_DATA, w,
                         MPI_STATUS_IGNORE);
        else if (rank == 0)
            MPI_Send(buf, cnt, MPI_BYTE, 1, TAG_DATA, w);
        else
            MPI_Recv(buf, cnt, MPI_BYTE, 0, TAG_DATA, w, MPI_STATUS_IGNORE);
        d[i] = was_late ? -1.0 : bench_gnow() - ti;
    }
    /* OW: the receiver's times, gathered at rank 1; XW: the later rank's,
     * at rank 0 */
    int gather = q == Q_OW ? 1 : 0;
    if (rank != gather) {
        MPI_Send(d, (int)n, MPI_DOUBLE, gather, TAG_SYNC, w);
        return 0.0;
    }
    MPI_Recv(x, (int)n, MPI_DOUBLE, peer, TAG_SYNC, w, MPI_STATUS_IGNORE);
    for (long i = 0; i < n; i++)
        if (x[i] < 0.0 || (d[i] >= 0.0 && q == Q_XW && x[i] > d[i]))
            d[i] = x[i];
    return median_on_time(d, (int)n);
}

static double measure(int q, int rank, char *buf, long m, long n, double tw, double rtt0, double period)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int cnt = (int)m;
    double acc = 0.0, t0;
    MPI_Request req;

    if (q == Q_OW || q == Q_XW)
        return measure_sync(q, rank, buf, m, n, period);
    switch (q) {
    case Q_RTT:
        t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, cnt, MPI_BYTE, 1, TAG_DATA, w);
                MPI_Recv(buf, cnt, MPI_BYTE, 1, TAG_DATA, w, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, cnt, MPI_BYTE, 0, TAG_DATA, w, MPI_STATUS_IGNORE);
                MPI_Send(buf, cnt, MPI_BYTE, 0, TAG_DATA, w);
            }
        }
        return rank == 0 ? (MPI_Wtime() - t0) / (double)n : 0.0;
    case Q_OS:
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TOKEN, w, MPI_STATUS_IGNORE);
                t0 = MPI_Wtime();
                MPI_Send(buf, cnt, MPI_BYTE, 1, TAG_DATA, w);
                acc += MPI_Wtime() - t0 - tw;
            } else {
                MPI_Irecv(buf, cnt, MPI_BYTE, 0, TAG_DATA, w, &req);
                MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TOKEN, w);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
        }
        return rank == 0 ? acc / (double)n : 0.0;
    case Q_OR:
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, cnt, MPI_BYTE, 1, TAG_DATA, w);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TOKEN, w, MPI_STATUS_IGNORE);
            } else {
                int flag = 0;
                while (!flag)
                    MPI_Iprobe(0, TAG_DATA, w, &flag, MPI_STATUS_IGNORE);
                t0 = MPI_Wtime();
                MPI_Recv(buf, cnt, MPI_BYTE, 0, TAG_DATA, w, MPI_STATUS_IGNORE);
                acc += MPI_Wtime() - t0 - tw;
                MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TOKEN, w);
            }
        }
        return rank == 1 ? acc / (double)n : 0.0;
    default: /* Q_G: a stream of 2n messages, then one ack */
        n *= 2;
        t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (rank == 0)
                MPI_Send(buf, cnt, MPI_BYTE, 1, TAG_DATA, w);
            else
                MPI_Recv(buf, cnt, MPI_BYTE, 0, TAG_DATA, w, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_TOKEN, w, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_TOKEN, w);
        return rank == 0 ? (MPI_Wtime() - t0 - rtt0) / (double)n : 0.0;
    }
}

static void provider_name(const char *opt, char *name, size_t len)
{
    const char *p = opt ? opt : getenv("MBMPI_PROVIDER");
    if (!p || !*p || !strcmp(p, "auto"))
        p = "unknown";
    else if (!strcmp(p, "tcp"))
        p = "tcp;ofi_rxm";
    snprintf(name, len, "%s", p);
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, reps = 5;
    double scale = 1.0;
    long maxsize = 4L << 20;
    const char *out = NULL, *csv = NULL, *prov_opt = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int a = 1; a < argc && !bad; a++) {
        if (!strcmp(argv[a], "-o") && a + 1 < argc) {
            out = argv[++a];
        } else if (!strcmp(argv[a], "--csv") && a + 1 < argc) {
            csv = argv[++a];
        } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
            maxsize = parse_size(argv[++a]);
            bad = maxsize < 1 || maxsize > (1L << 30);
        } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
            reps = atoi(argv[++a]);
            bad = reps < 1 || reps > 1000;
        } else if (!strcmp(argv[a], "-i") && a + 1 < argc) {
            scale = atof(argv[++a]);
            bad = scale <= 0;
        } else if (!strcmp(argv[a], "-p") && a + 1 < argc) {
            prov_opt = argv[++a];
        } else {
            bad = 1;
        }
    }
    if (bad || size < 2) {
        if (rank == 0) {
            if (size < 2)
                fprintf(stderr, "plogp: needs at least 2 ranks\n");
            usage();
        }
        MPI_Finalize();
        return 2;
    }

    long sizes[MAX_SIZES];
    int nsizes = 0;
    sizes[nsizes++] = 0;
    for (long s = 1; s <= maxsize && nsizes < MAX_SIZES; s *= 2)
        sizes[nsizes++] = s;

    char *buf = NULL;
    if (rank < 2) {
        /* twice: an exchange (XW) receives beside what it sends */
        if (posix_memalign((void **)&buf, 4096, 2 * (size_t)maxsize)) {
            fprintf(stderr, "plogp: cannot allocate %ld bytes\n", 2 * maxsize);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(buf, rank + 1, 2 * (size_t)maxsize);
    }
    double tw = wtime_cost();
    /* res[k][q]: microseconds; o_r comes from rank 1 */
    static double res[MAX_SIZES][NQ];
    double *v = malloc(sizeof(double) * (size_t)reps);
    if (!v)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* The first messages of a job pay for connection set-up and protocol
     * windows opening: run every quantity once at a few sizes first. */
    double rtt0 = 0.0;
    bench_sync_clocks(MPI_COMM_WORLD, TAG_SYNC);
    for (int q = 0; q < NQ && rank < 2; q++)
        for (long m = 0; m <= 65536 && m <= maxsize; m = m ? m * 16 : 1)
            measure(q, rank, buf, m, 50, tw, 0.0, 100e-6);

    for (int k = 0; k < nsizes && rank < 2; k++) {
        long m = sizes[k], n = iterations(m, scale);
        double period = 0.0;
        for (int q = 0; q < NQ; q++) {
            measure(q, rank, buf, m, n / 10 + 1, tw, rtt0, period); /* warm-up */
            for (int r = 0; r < reps; r++)
                v[r] = measure(q, rank, buf, m, n, tw, rtt0, period);
            /* OW, XW: -1 when every call of that batch was late */
            res[k][q] = (q == Q_OW || q == Q_XW ? median_on_time(v, reps) : median(v, reps)) * 1e6;
            if (k == 0 && q == Q_RTT)
                rtt0 = res[0][Q_RTT] * 1e-6;
            if (q == Q_RTT) {
                /* the window of OW and XW: three round trips and 20 us, the
                 * same at both ranks (rank 0 measured it) */
                period = 3.0 * res[k][Q_RTT] * 1e-6 + 20e-6;
                if (rank == 0)
                    MPI_Send(&period, 1, MPI_DOUBLE, 1, TAG_SYNC, MPI_COMM_WORLD);
                else
                    MPI_Recv(&period, 1, MPI_DOUBLE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        if (rank == 1) {
            MPI_Send(&res[k][Q_OR], 1, MPI_DOUBLE, 0, TAG_TOKEN, MPI_COMM_WORLD);
            MPI_Send(&res[k][Q_OW], 1, MPI_DOUBLE, 0, TAG_TOKEN, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&res[k][Q_OR], 1, MPI_DOUBLE, 1, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&res[k][Q_OW], 1, MPI_DOUBLE, 1, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0) {
            fprintf(stderr, "plogp: m=%-8ld os %9.3f  or %9.3f  g %9.3f  rtt %9.3f  ow %9.3f  xw %9.3f us\n", m,
                    res[k][Q_OS], res[k][Q_OR], res[k][Q_G], res[k][Q_RTT], res[k][Q_OW], res[k][Q_XW]);
        }
    }

    int rc = 0;
    if (rank == 0) {
        double gamma = measure_gamma(reps, scale);
        char prov[128], date[64];
        time_t now = time(NULL);
        provider_name(prov_opt, prov, sizeof prov);
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        /* clamp noise (g from a difference can dip below zero on a loaded host) */
        for (int k = 0; k < nsizes; k++)
            for (int q = 0; q < NQ; q++)
                if (res[k][q] < 0.001)
                    res[k][q] = 0.001;
        double L = res[0][Q_RTT] / 2.0 - res[0][Q_G];
        if (L < 0.01)
            L = 0.01;
        FILE *f = out ? fopen(out, "w") : stdout;
        if (!f) {
            perror(out);
            rc = 1;
        } else {
            fprintf(f, "# mbmpi pLogP parameters v1\n");
            fprintf(f, "# provider %s, measured %s by bench/plogp\n", prov, date);
            fprintf(f, "# RTT(0) %.3f us, g(0) %.3f us, o_s(0) %.3f us, o_r(0) %.3f us, L = RTT(0)/2 - g(0); "
                       "%d reps, -i %g\n",
                    res[0][Q_RTT], res[0][Q_G], res[0][Q_OS], res[0][Q_OR], reps, scale);
            fprintf(f, "L %.3f\n", L);
            if (gamma > 0)
                fprintf(f, "gamma %.6f\n", gamma);
            fprintf(f, "# m_bytes  os_us  or_us  g_us  rtt_us  ow_us  xw_us\n");
            for (int k = 1; k < nsizes; k++)
                fprintf(f, "%ld %.3f %.3f %.3f %.3f %.3f %.3f\n", sizes[k], res[k][Q_OS], res[k][Q_OR], res[k][Q_G],
                        res[k][Q_RTT], res[k][Q_OW], res[k][Q_XW]);
            if (f != stdout && fclose(f) != 0) {
                perror(out);
                rc = 1;
            }
        }
        if (csv) {
            FILE *c = fopen(csv, "w");
            if (!c) {
                perror(csv);
                rc = 1;
            } else {
                fprintf(c, "m,os_us,or_us,g_us,rtt_us,ow_us,xw_us\n");
                for (int k = 0; k < nsizes; k++)
                    fprintf(c, "%ld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", sizes[k], res[k][Q_OS], res[k][Q_OR],
                            res[k][Q_G], res[k][Q_RTT], res[k][Q_OW], res[k][Q_XW]);
                fclose(c);
            }
        }
    }
    free(v);
    free(buf);
    MPI_Finalize();
    return rc;
}
