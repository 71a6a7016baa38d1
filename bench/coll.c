/*
 * bench/coll.c: time one collective operation over a sweep of message sizes.
 *
 * For every size m (bytes per rank: the operation's count x type size, as
 * MPIX_Coll_predict takes it) and every algorithm timed, the ranks run a
 * batch of ITERS calls with synchronised starts (--sync window, the
 * default): the ranks' clocks are matched to rank 0's once (ping-pong
 * midpoints), every call i starts at all ranks at the same planned moment,
 * one window apart (three times the median of 5 lone calls, the widest
 * over the algorithms timed at that size, as the idle time between calls
 * changes their cost; doubled when too short), and its time is the last
 * rank's completion minus that moment: what the pLogP models predict for one call (the root's first
 * send to the last completion), without the exit skew of a barrier in it.
 * The batch's time is the median over its calls; the reported time is the
 * median over REPS batches. The algorithms' batches interleave (round r
 * times each algorithm once), so a drift of the machine's speed falls on
 * all of them alike. --sync barrier (the default with --osu) times
 * OSU-style instead: an MPI_Barrier before each call, each rank's mean time
 * per call (barriers excluded), the maximum over the ranks (with --osu, as
 * the OSU benchmarks report: the mean over the ranks as "Avg Latency", the
 * fastest and the slowest rank's as "Min" and "Max"). Before the batches
 * one call runs with a known pattern and its result is checked (a wrong
 * result is reported and makes the exit status 1). Root 0 for the rooted
 * operations.
 *
 * Built against mbmpi (MBMPI_HAVE_COLL_EXT from mpi.h), for every size it
 * forces each algorithm of the operation in turn (MPIX_Coll_force) that the
 * model says applies to (P, m), then "auto", and prints per algorithm the
 * measured and the predicted time (MPIX_Coll_predict), the automatic pick,
 * and whether the pick was the fastest algorithm measured (and, if not, by
 * how much it lost). Built against another MPI, or with --osu, it times only
 * the library's own choice and prints OSU-style lines ("# Size  Avg
 * Latency(us)") that diff against the OSU Micro-Benchmarks and the peers.
 *
 * Buffers: bcast m at every rank; scatter / gather m x P at the root, m
 * elsewhere; allgather m in, m x P out; alltoall m x P both ways;
 * allreduce / reduce m bytes of MPI_FLOAT summed (MPI_UNSIGNED_CHAR below
 * 4 bytes); barrier has no size (one line, size 0).
 *
 * usage: mpirun -n P coll -c OP [-m MIN:MAX] [-f FACTOR] [-i ITERS] [-r REPS]
 *                         [-a ALGO,...] [-t SECONDS] [--csv FILE] [--pipelined]
 *                         [--sync window|barrier] [--nonblocking]
 *                         [--osu | --predict-only]
 *   -c OP       bcast scatter gather alltoall allreduce reduce allgather barrier
 *   -m MIN:MAX  sizes in bytes, powers of two (default 1:1M; K, M suffixes)
 *   -f FACTOR   step between sizes, a power of two (default 2)
 *   -i ITERS    calls per batch (default: about 4 MiB moved per batch,
 *               between 2 and 50 calls)
 *   -r REPS     batches per point (default 5)
 *   -a LIST     only these algorithms (default all; mbmpi only)
 *   -t SECONDS  start no new size after this long (default: no limit)
 *   --csv FILE  also write CSV: op,P,m,algo,measured_us,predicted_us,chosen
 *               (chosen: the model's pick, on the "auto" rows; --osu:
 *               size,avg_latency_us,min_latency_us,max_latency_us; from
 *               synchronised starts, --sync window, all three are the
 *               last rank's completion)
 *   --osu       only the library's choice, OSU-style output (forced when
 *               built without MBMPI_HAVE_COLL_EXT)
 *   --sync S    window (default; not with --osu) or barrier (see above)
 *   --pipelined one barrier before each batch only: back-to-back calls may
 *               overlap, so this measures throughput rather than latency
 *   --nonblocking  each call is the nonblocking variant (MPI_Ibcast, ...,
 *               MPI_Ibarrier) followed by MPI_Wait
 *   --predict-only  mbmpi: print (and write) the predictions, time nothing
 *               (measured reads -1 in the CSV); bench/run_coll.sh uses it
 *               to fit the all-to-all contention ratio
 * Exit status: 0, 1 when a result was wrong or a call failed, 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_ALGOS 16
#define NAME_LEN 64
#define TAG_RESULT 7

enum op_kind {
    OP_BCAST,
    OP_SCATTER,
    OP_GATHER,
    OP_ALLTOALL,
    OP_ALLREDUCE,
    OP_REDUCE,
    OP_ALLGATHER,
    OP_BARRIER
};
static const char *const op_names[] = {"bcast",     "scatter", "gather",    "alltoall",
                                       "allreduce", "reduce",  "allgather", "barrier"};
#define N_OPS ((int)(sizeof op_names / sizeof op_names[0]))

static int rank, nprocs;
static enum op_kind op;
static unsigned char *sbuf, *rbuf;
static int errors;
static int pipelined;    /* --pipelined: one barrier per batch, not per call */
static int sync_barrier; /* --sync barrier (and --osu): a barrier before each call, OSU-style */
static int oversub;      /* more ranks than CPUs here: waits yield */
static int nonblocking;  /* --nonblocking: MPI_I<op> + MPI_Wait */
static int osu_avg;      /* --osu: the mean over the ranks, as OSU (after a barrier, or --pipelined) */

static void usage(void)
{
    fprintf(stderr,
            "usage: coll -c bcast|scatter|gather|alltoall|allreduce|reduce|allgather|barrier\n"
            "            [-m MIN:MAX] [-f FACTOR] [-i ITERS] [-r REPS] [-a ALGO,...] [-t SECONDS]\n"
            "            [--csv FILE] [--pipelined] [--sync window|barrier] [--nonblocking]\n"
            "            [--osu | --predict-only]\n");
}

static int is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Bytes one call moves in total (a rough volume, only to size the batches). */
static double volume(long m)
{
    double p = nprocs;
    switch (op) {
    case OP_ALLTOALL:
        return (double)m * p * (p - 1);
    case OP_ALLREDUCE:
    case OP_ALLGATHER:
        return 2.0 * (double)m * p;
    case OP_BARRIER:
        return 0.0;
    default:
        return (double)m * (p > 1 ? p - 1 : 1);
    }
}

static long default_iters(long m)
{
    double v = volume(m);
    long it = v > 0 ? (long)((4.0 * 1048576.0) / v) : 50;
    return it < 2 ? 2 : it > 50 ? 50 : it;
}

/* The reduction type for m bytes: MPI_FLOAT from 4 bytes, else bytes. */
static MPI_Datatype red_type(long m, int *count)
{
    if (m >= 4) {
        *count = (int)(m / 4);
        return MPI_FLOAT;
    }
    *count = (int)m;
    return MPI_UNSIGNED_CHAR;
}

/* One call of the operation on the benchmark buffers. */
/* --nonblocking: the I-variant of the operation, then MPI_Wait */
static int run_nonblocking(long m)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r = MPI_REQUEST_NULL;
    int c = (int)m, n, rc = MPI_ERR_ARG;
    MPI_Datatype t;
    switch (op) {
    case OP_BCAST:
        rc = MPI_Ibcast(sbuf, c, MPI_BYTE, 0, w, &r);
        break;
    case OP_SCATTER:
        rc = MPI_Iscatter(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w, &r);
        break;
    case OP_GATHER:
        rc = MPI_Igather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w, &r);
        break;
    case OP_ALLTOALL:
        rc = MPI_Ialltoall(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w, &r);
        break;
    case OP_ALLGATHER:
        rc = MPI_Iallgather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w, &r);
        break;
    case OP_ALLREDUCE:
        t = red_type(m, &n);
        rc = MPI_Iallreduce(sbuf, rbuf, n, t, MPI_SUM, w, &r);
        break;
    case OP_REDUCE:
        t = red_type(m, &n);
        rc = MPI_Ireduce(sbuf, rbuf, n, t, MPI_SUM, 0, w, &r);
        break;
    case OP_BARRIER:
        rc = MPI_Ibarrier(w, &r);
        break;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static int run_once(long m)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int c = (int)m, rc;
    if (nonblocking)
        return run_nonblocking(m);
    switch (op) {
    case OP_BCAST:
        return MPI_Bcast(sbuf, c, MPI_BYTE, 0, w);
    case OP_SCATTER:
        return MPI_Scatter(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w);
    case OP_GATHER:
        return MPI_Gather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w);
    case OP_ALLTOALL:
        return MPI_Alltoall(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w);
    case OP_ALLGATHER:
        return MPI_Allgather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w);
    case OP_ALLREDUCE: {
        int n;
        MPI_Datatype t = red_type(m, &n);
        return MPI_Allreduce(sbuf, rbuf, n, t, MPI_SUM, w);
    }
    case OP_REDUCE: {
        int n;
        MPI_Datatype t = red_type(m, &n);
        return MPI_Reduce(sbuf, rbuf, n, t, MPI_SUM, 0, w);
    }
    case OP_BARRIER:
        rc = MPI_Barrier(w);
        return rc;
    }
    return MPI_ERR_ARG;
}

static unsigned char pat(long a, long b, long i)
{
    return (unsigned char)(a * 31 + b * 17 + i * 7 + 3);
}

/* Fill the send buffer with the check pattern and clear the receive buffer. */
static void fill(long m)
{
    long p = nprocs;
    switch (op) {
    case OP_BCAST:
        for (long i = 0; i < m; i++)
            sbuf[i] = rank == 0 ? pat(0, 0, i) : 0;
        break;
    case OP_SCATTER:
        if (rank == 0)
            for (long j = 0; j < p; j++)
                for (long i = 0; i < m; i++)
                    sbuf[j * m + i] = pat(j, 0, i);
        memset(rbuf, 0, (size_t)m);
        break;
    case OP_GATHER:
    case OP_ALLGATHER:
        for (long i = 0; i < m; i++)
            sbuf[i] = pat(rank, 0, i);
        memset(rbuf, 0, (size_t)(m * p));
        break;
    case OP_ALLTOALL:
        for (long j = 0; j < p; j++)
            for (long i = 0; i < m; i++)
                sbuf[j * m + i] = pat(rank, j, i);
        memset(rbuf, 0, (size_t)(m * p));
        break;
    case OP_ALLREDUCE:
    case OP_REDUCE: {
        int n;
        if (red_type(m, &n) == MPI_FLOAT) {
            float *f = (float *)(void *)sbuf;
            for (int i = 0; i < n; i++)
                f[i] = (float)(rank + 1 + i % 13);
        } else {
            for (int i = 0; i < n; i++)
                sbuf[i] = (unsigned char)(rank + 1 + i % 13);
        }
        memset(rbuf, 0, (size_t)m);
        break;
    }
    case OP_BARRIER:
        break;
    }
}

/* Check the result of one call after fill(); returns the first bad byte or
 * element index, -1 when correct. */
static long check(long m)
{
    long p = nprocs;
    switch (op) {
    case OP_BCAST:
        for (long i = 0; i < m; i++)
            if (sbuf[i] != pat(0, 0, i))
                return i;
        break;
    case OP_SCATTER:
        for (long i = 0; i < m; i++)
            if (rbuf[i] != pat(rank, 0, i))
                return i;
        break;
    case OP_GATHER:
        if (rank != 0)
            break;
        /* fall through */
    case OP_ALLGATHER:
        for (long j = 0; j < p; j++)
            for (long i = 0; i < m; i++)
                if (rbuf[j * m + i] != pat(j, 0, i))
                    return j * m + i;
        break;
    case OP_ALLTOALL:
        for (long j = 0; j < p; j++)
            for (long i = 0; i < m; i++)
                if (rbuf[j * m + i] != pat(j, rank, i))
                    return j * m + i;
        break;
    case OP_ALLREDUCE:
    case OP_REDUCE: {
        int n;
        if (op == OP_REDUCE && rank != 0)
            break;
        if (red_type(m, &n) == MPI_FLOAT) {
            const float *f = (const float *)(const void *)rbuf;
            for (int i = 0; i < n; i++)
                if (f[i] != (float)(p * (p + 1) / 2 + p * (i % 13)))
                    return i;
        } else {
            for (int i = 0; i < n; i++)
                if (rbuf[i] != (unsigned char)(p * (p + 1) / 2 + p * (i % 13)))
                    return i;
        }
        break;
    }
    case OP_BARRIER:
        break;
    }
    return -1;
}

/* The minimum, mean and maximum of v over the ranks, at rank 0 (elsewhere
 * v in all three), by point-to-point messages so that no forced collective
 * algorithm is involved. */
static void stats_over_ranks(double v, double *lo, double *avg, double *hi)
{
    *lo = *avg = *hi = v;
    if (rank != 0) {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        return;
    }
    double sum = v;
    for (int r = 1; r < nprocs; r++) {
        double x;
        MPI_Recv(&x, 1, MPI_DOUBLE, r, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += x;
        *lo = x < *lo ? x : *lo;
        *hi = x > *hi ? x : *hi;
    }
    *avg = sum / nprocs;
}

/* The maximum of v over the ranks, at rank 0. */
static double max_over_ranks(double v)
{
    double lo, avg, hi;
    stats_over_ranks(v, &lo, &avg, &hi);
    return hi;
}

/* Rank 0's value of v at every rank (point to point, as above). */
static int from_root(int v)
{
    if (rank == 0) {
        for (int r = 1; r < nprocs; r++)
            MPI_Send(&v, 1, MPI_INT, r, TAG_RESULT, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

#ifdef MBMPI_HAVE_COLL_EXT
/* 1 at every rank when ok is nonzero at every rank. */
static int agree(int ok)
{
    return from_root(max_over_ranks(ok ? 0.0 : 1.0) == 0.0);
}
#endif

#define TAG_SYNC 8

/*
 * One batch with synchronised starts (the window method of SKaMPI and
 * ReproMPI): call i starts at every rank at the same moment start + i x
 * period of rank 0's clock, and its time is the latest rank's completion
 * minus that moment: what a pLogP model predicts (from the root's first
 * send to the last rank's completion), with no barrier's exit skew in it.
 * A call that some rank starts more than half a period late (it was still
 * busy, or not scheduled) is left out: after a rank lost the CPU for a
 * millisecond its next calls run back to back until it is on schedule
 * again, and they time a pipeline, not a call. Returns the median over the
 * other calls (the first call of a batch may meet cold caches and pages),
 * seconds, at rank 0 (-1 when every call was late). A batch times at most
 * 64 calls (-i above that only adds batches' worth of nothing: use -r for
 * more samples).
 */
static double window_batch(long m, long iters, double period, int *rc_p)
{
    double d[64], plan[2];
    double t = 0.0;
    long n = iters < 64 ? iters : 64;
    int rc = MPI_SUCCESS;

    if (rank == 0) {
        plan[0] = bench_gnow() + 2e-3 + 20e-6 * nprocs; /* time for the plan to reach everyone */
        plan[1] = period;
        for (int r = 1; r < nprocs; r++)
            MPI_Send(plan, 2, MPI_DOUBLE, r, TAG_SYNC, MPI_COMM_WORLD);
    } else {
        MPI_Recv(plan, 2, MPI_DOUBLE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    for (long i = 0; i < n; i++) {
        double ti = plan[0] + (double)i * plan[1], now;
        while ((now = bench_gnow()) < ti)
            if (oversub)
                sched_yield();
        int was_late = now - ti > plan[1] / 2;
        if (rc == MPI_SUCCESS)
            rc = run_once(m);
        d[i] = was_late ? -1.0 : bench_gnow() - ti;
    }
    if (rank != 0) {
        MPI_Send(d, (int)n, MPI_DOUBLE, 0, TAG_SYNC, MPI_COMM_WORLD);
    } else {
        double x[64];
        for (int r = 1; r < nprocs; r++) {
            MPI_Recv(x, (int)n, MPI_DOUBLE, r, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long i = 0; i < n; i++)
                if (x[i] < 0.0 || (d[i] >= 0.0 && x[i] > d[i]))
                    d[i] = x[i];
        }
        t = median_on_time(d, (int)n);
    }
    *rc_p = rc;
    return t;
}

/* One point (algorithm, size) being timed: its batches may interleave with
 * other algorithms' (see main). */
typedef struct {
    const char *algo;
    double period; /* the window; 0 with --sync barrier or --pipelined */
    int rc;        /* the last call's return code */
    int bad_rc;    /* a call failed: the point is reported as failed */
    int n;         /* batches timed */
    int all_late;  /* batches in a row with every call late (rank 0) */
    double v[1000];            /* per batch: the slowest rank's time, or with --osu the mean over the ranks */
    double lo[1000], hi[1000]; /* --osu: the fastest and the slowest rank's */
} point_t;

static void report_rc(point_t *pt, long m)
{
    if (pt->rc != MPI_SUCCESS && !pt->bad_rc) {
        fprintf(stderr, "coll: rank %d: %s (%s) m=%ld: call failed with error %d\n", rank, op_names[op],
                pt->algo, m, pt->rc);
        pt->bad_rc = 1;
    }
}

/* Check one call and size the window (the algorithm must be in force). */
static void point_begin(point_t *pt, const char *algo, long m)
{
    pt->algo = algo;
    pt->period = 0.0;
    pt->bad_rc = 0;
    pt->n = 0;
    pt->all_late = 0;
    fill(m);
    pt->rc = run_once(m);
    long bad = pt->rc == MPI_SUCCESS ? check(m) : 0;
    report_rc(pt, m);
    if (pt->rc == MPI_SUCCESS && bad >= 0) {
        fprintf(stderr, "coll: rank %d: %s (%s) m=%ld: WRONG RESULT at index %ld\n", rank, op_names[op],
                algo, m, bad);
        errors++;
    }
    if (!sync_barrier && !pipelined && pt->rc == MPI_SUCCESS) {
        /* the window: three times the slowest rank's time of a lone call
         * (after a barrier; the median of 5), plus 20 us; doubled when too
         * short (point_batch) */
        double lone[5];
        int k;
        for (k = 0; k < 5 && pt->rc == MPI_SUCCESS; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            pt->rc = run_once(m);
            lone[k] = max_over_ranks(MPI_Wtime() - t0);
        }
        pt->period = 3.0 * median(lone, k) + 20e-6;
        if (rank == 0)
            for (int q = 1; q < nprocs; q++)
                MPI_Send(&pt->period, 1, MPI_DOUBLE, q, TAG_SYNC, MPI_COMM_WORLD);
        else
            MPI_Recv(&pt->period, 1, MPI_DOUBLE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        report_rc(pt, m);
    }
}

/* Time one batch of ITERS calls (the algorithm must be in force). */
static void point_batch(point_t *pt, long m, long iters)
{
    double t = 0.0;
    int rc = MPI_SUCCESS;

    if (pt->bad_rc || pt->n >= (int)(sizeof pt->v / sizeof pt->v[0]))
        return;
    if (pt->period > 0.0) {
        t = window_batch(m, iters, pt->period, &rc);
        /* The window is too short when a call on time takes more than half
         * of it (calls that start late are not the sign: a rank that lost
         * its CPU for a while makes every call late until it catches up).
         * Every call late: the plan came late, or the window is far too
         * short; the second time in a row, it is the window. */
        pt->all_late = t < 0.0 ? pt->all_late + 1 : 0;
        if (from_root(t > pt->period / 2 || pt->all_late >= 2)) {
            pt->period *= 2.0;
            pt->all_late = 0;
        }
        pt->rc = rc;
        report_rc(pt, m);
        if (t >= 0.0) {
            pt->lo[pt->n] = pt->hi[pt->n] = t;
            pt->v[pt->n++] = t;
        }
        return;
    }
    if (pipelined) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
            rc = run_once(m);
        t = MPI_Wtime() - t0;
    } else {
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            rc = run_once(m);
            t += MPI_Wtime() - t0;
        }
    }
    t /= (double)iters;
    pt->rc = rc;
    report_rc(pt, m);
    double avg;
    stats_over_ranks(t, &pt->lo[pt->n], &avg, &pt->hi[pt->n]);
    /* OSU's Avg Latency is the mean over the ranks of each one's mean */
    pt->v[pt->n] = osu_avg ? avg : pt->hi[pt->n];
    pt->n++;
}

/* The median batch time in microseconds at rank 0 (negative when a call
 * failed). */
static double point_end(point_t *pt)
{
    if (pt->bad_rc) {
        errors++;
        return -1.0;
    }
    return pt->n > 0 ? median(pt->v, pt->n) * 1e6 : -1.0;
}

/* The medians over the batches of the fastest and the slowest rank's time
 * (us; call after point_end) */
static void point_range(point_t *pt, double *lo, double *hi)
{
    int ok = !pt->bad_rc && pt->n > 0;
    *lo = ok ? median(pt->lo, pt->n) * 1e6 : -1.0;
    *hi = ok ? median(pt->hi, pt->n) * 1e6 : -1.0;
}

#ifdef MBMPI_HAVE_COLL_EXT
/* Give the n points whose timed[] is set the widest of their windows (the
 * periods agree at every rank: rank 0 sent them). */
static void share_window(point_t *pts, const int *timed, int n)
{
    double w = 0.0;
    for (int i = 0; i < n; i++)
        if (timed[i] && pts[i].period > w)
            w = pts[i].period;
    for (int i = 0; i < n; i++)
        if (timed[i] && pts[i].period > 0.0)
            pts[i].period = w;
}
#endif

/* Check one call, then time REPS batches of ITERS calls in a row. */
static double time_point(const char *algo, long m, long iters, int reps, double *lo, double *hi)
{
    static point_t pt;

    point_begin(&pt, algo, m);
    for (int r = 0; r < reps; r++)
        point_batch(&pt, m, iters);
    double t = point_end(&pt);
    point_range(&pt, lo, hi);
    return t;
}

static void library_version(char *ver)
{
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    for (char *c = ver; *c; c++)
        if (*c == '\t')
            *c = ' ';
}

static const char *provider(void)
{
    const char *p = getenv("MBMPI_PROVIDER");
    return p && *p ? p : "default";
}

int main(int argc, char **argv)
{
    int bad = 0, osu = 0, predict_only = 0, reps = 5, nalgo_opt = 0;
    long mmin = 1, mmax = 1L << 20, factor = 2, iters_opt = 0;
    double budget = 0.0;
    const char *csv = NULL, *opname = NULL;
    char algo_opt[MAX_ALGOS][NAME_LEN];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* report failing calls instead of ending the job at the first one */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    for (int a = 1; a < argc && !bad; a++) {
        char *end;
        if (!strcmp(argv[a], "-c") && a + 1 < argc) {
            opname = argv[++a];
        } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
            mmin = parse_size_end(argv[++a], &end);
            bad = mmin < 0 || *end != ':';
            if (!bad) {
                mmax = parse_size_end(end + 1, &end);
                bad = mmax < 0 || *end;
            }
        } else if (!strcmp(argv[a], "-f") && a + 1 < argc) {
            factor = atol(argv[++a]);
            bad = !is_pow2(factor) || factor < 2;
        } else if (!strcmp(argv[a], "-i") && a + 1 < argc) {
            iters_opt = atol(argv[++a]);
            bad = iters_opt < 1;
        } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
            reps = atoi(argv[++a]);
            bad = reps < 1 || reps > 1000;
        } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
            budget = atof(argv[++a]);
            bad = budget <= 0;
        } else if (!strcmp(argv[a], "-a") && a + 1 < argc) {
            char *list = strdup(argv[++a]), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                bad = nalgo_opt == MAX_ALGOS || strlen(t) >= NAME_LEN;
                if (!bad)
                    snprintf(algo_opt[nalgo_opt++], NAME_LEN, "%s", t);
            }
            free(list);
        } else if (!strcmp(argv[a], "--csv") && a + 1 < argc) {
            csv = argv[++a];
        } else if (!strcmp(argv[a], "--osu")) {
            osu = 1;
        } else if (!strcmp(argv[a], "--predict-only")) {
            predict_only = 1;
        } else if (!strcmp(argv[a], "--pipelined")) {
            pipelined = 1;
        } else if (!strcmp(argv[a], "--nonblocking")) {
            nonblocking = 1;
        } else if (!strcmp(argv[a], "--sync") && a + 1 < argc &&
                   (!strcmp(argv[a + 1], "barrier") || !strcmp(argv[a + 1], "window"))) {
            sync_barrier = !strcmp(argv[++a], "barrier") ? 1 : -1;
        } else {
            bad = 1;
        }
    }
    int found = 0;
    for (int k = 0; opname && k < N_OPS; k++)
        if (!strcmp(opname, op_names[k])) {
            op = (enum op_kind)k;
            found = 1;
        }
    if (!bad && (!found || !is_pow2(mmin) || !is_pow2(mmax) || mmin > mmax || mmax > (1L << 28))) {
        if (rank == 0)
            fprintf(stderr, "coll: %s\n",
                    !found ? "-c: unknown or missing operation"
                           : "-m: sizes must be powers of two, MIN <= MAX <= 256M");
        bad = 1;
    }
    if (bad) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    if (op == OP_BARRIER)
        mmin = mmax = 0;
#ifndef MBMPI_HAVE_COLL_EXT
    if (predict_only && rank == 0)
        fprintf(stderr, "coll: --predict-only needs mbmpi (MBMPI_HAVE_COLL_EXT); "
                        "timing the library's choice\n");
    predict_only = 0;
    osu = 1;
    if (nalgo_opt && rank == 0)
        fprintf(stderr, "coll: -a needs mbmpi (MBMPI_HAVE_COLL_EXT); timing the library's choice only\n");
#endif

#ifdef MBMPI_HAVE_COLL_EXT
    /* the algorithms to time: none (--osu) or the operation's, in order */
    int nalgo = 0;
    char algo[MAX_ALGOS][NAME_LEN];
    if (!osu) {
        int count = 0;
        if (MPIX_Coll_algo_count(op_names[op], &count) != MPI_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "coll: the library has no algorithms for %s\n", op_names[op]);
            count = 0;
        }
        for (int i = 0; i < count && nalgo < MAX_ALGOS; i++) {
            char name[NAME_LEN];
            if (MPIX_Coll_algo_name(op_names[op], i, name, NAME_LEN) != MPI_SUCCESS)
                continue;
            int want = nalgo_opt == 0;
            for (int k = 0; k < nalgo_opt; k++)
                want |= !strcmp(algo_opt[k], name);
            if (want)
                snprintf(algo[nalgo++], NAME_LEN, "%s", name);
        }
        for (int k = 0; k < nalgo_opt; k++) {
            int known = 0;
            for (int i = 0; i < nalgo; i++)
                known |= !strcmp(algo[i], algo_opt[k]);
            if (!known && rank == 0)
                fprintf(stderr, "coll: -a: %s has no algorithm '%s' (ignored)\n", op_names[op], algo_opt[k]);
        }
    }
#endif

    /* buffers for the largest size */
    size_t big = (size_t)(mmax > 0 ? mmax : 1) * (size_t)nprocs;
    if (posix_memalign((void **)&sbuf, 4096, big) || posix_memalign((void **)&rbuf, 4096, big)) {
        fprintf(stderr, "coll: cannot allocate 2 x %zu bytes\n", big);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 0, big);
    memset(rbuf, 0, big);

    /* --osu times OSU-style (a barrier before each call) unless --sync window */
    sync_barrier = sync_barrier == 1 || (sync_barrier == 0 && osu);
    osu_avg = osu; /* the window (--sync window) times the last rank alone */
    oversub = nprocs > sysconf(_SC_NPROCESSORS_ONLN);
    if (!sync_barrier && !pipelined && !predict_only)
        bench_sync_clocks(MPI_COMM_WORLD, TAG_SYNC);

    FILE *cf = NULL;
    char ver[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    library_version(ver);
    if (rank == 0) {
        if (csv && !(cf = fopen(csv, "w"))) {
            perror(csv);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (osu) {
            printf("# mbmpi coll %s, P=%d (MPI: %s)\n", op_names[op], nprocs, ver);
            /* the columns of the OSU benchmarks' full format (-f) */
            printf("# %-10s%18s%18s%18s%12s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
                   "Max Latency(us)", "Iterations");
            if (cf)
                fprintf(cf, "size,avg_latency_us,min_latency_us,max_latency_us\n");
        } else {
            printf("# mbmpi coll %s, P=%d, provider %s, %d reps (MPI: %s)\n", op_names[op], nprocs,
                   provider(), reps, ver);
            if (sync_barrier)
                printf("# measured: median over batches of the slowest rank's mean time per call after a "
                       "barrier (us); predicted: the pLogP model (us)\n");
            else
                printf("# measured: median over batches of the median call, synchronised start to the last "
                       "rank's completion (us); predicted: the pLogP model (us)\n");
            printf("# %-9s %-26s %12s %12s %9s\n", "Size", "algorithm", "measured", "predicted", "pred/meas");
            if (cf)
                fprintf(cf, "op,P,m,algo,measured_us,predicted_us,chosen\n");
        }
        fflush(stdout);
    }

    double start = MPI_Wtime();
    int points = 0, fastest = 0, within10 = 0;
    for (long m = mmin;; m = m * factor) {
        if (m > mmax)
            break;
        int stop = budget > 0 && MPI_Wtime() - start > budget;
        if (from_root(stop)) {
            if (rank == 0)
                fprintf(stderr, "coll: time budget of %g s spent: stopping before size %ld\n", budget, m);
            break;
        }
        long iters = iters_opt ? iters_opt : default_iters(m);
        if (osu) {
            double lo, hi, t = time_point("library", m, iters, reps, &lo, &hi);
            if (rank == 0) {
                printf("%-12ld%18.2f%18.2f%18.2f%12ld\n", m, t, lo, hi, iters * reps);
                if (cf)
                    fprintf(cf, "%ld,%.3f,%.3f,%.3f\n", m, t, lo, hi);
                fflush(stdout);
                if (cf)
                    fflush(cf);
            }
            if (op == OP_BARRIER)
                break;
            continue;
        }
#ifdef MBMPI_HAVE_COLL_EXT
        double meas[MAX_ALGOS + 1], pred[MAX_ALGOS + 1];
        static point_t pts[MAX_ALGOS + 1];
        int timed[MAX_ALGOS + 1] = {0};
        char chosen[NAME_LEN] = "";
        int best = -1, pick = -1;
        for (int i = 0; i <= nalgo; i++) {
            /* i == nalgo: the automatic choice */
            const char *a = i < nalgo ? algo[i] : "auto";
            meas[i] = -1.0;
            /* (every rank asks, and all go by rank 0's answer, so a
             * disagreement cannot leave some ranks in a collective alone) */
            int ok = MPIX_Coll_predict(op_names[op], a, nprocs, (MPI_Count)m, &pred[i],
                                       i < nalgo ? NULL : chosen, NAME_LEN) == MPI_SUCCESS;
            if (!from_root(ok)) {
                pred[i] = -1.0; /* does not apply to (P, m): not timed */
                continue;
            }
            if (predict_only)
                continue;
            if (!agree(MPIX_Coll_force(op_names[op], a) == MPI_SUCCESS)) {
                if (rank == 0)
                    fprintf(stderr, "coll: MPIX_Coll_force(%s, %s) failed at some rank\n", op_names[op], a);
                errors++;
                MPIX_Coll_force(op_names[op], "auto");
                continue;
            }
            point_begin(&pts[i], a, m);
            timed[i] = 1;
            MPIX_Coll_force(op_names[op], "auto");
        }
        /* The batches interleave: round r times every algorithm once, so
         * that a change of the machine's speed during the point (another
         * job, the CPU's clock) falls on all of them alike instead of on
         * whichever was being timed then; each round starts one algorithm
         * further on, so no algorithm is always the one timed first. All
         * share one window, the widest of theirs: the idle time between
         * calls changes what a call costs (mbshm, P = 2, 1 B Bcast: 0.75-0.9
         * us with calls 25 us apart, 1.1-1.5 us at 150 us), and windows
         * sized per algorithm made identical algorithms differ by 30 %. */
        share_window(pts, timed, nalgo + 1);
        for (int r = 0; r < reps; r++) {
            for (int j = 0; j <= nalgo; j++) {
                int i = (j + r) % (nalgo + 1);
                if (!timed[i])
                    continue;
                MPIX_Coll_force(op_names[op], i < nalgo ? algo[i] : "auto");
                point_batch(&pts[i], m, iters);
                MPIX_Coll_force(op_names[op], "auto");
            }
            share_window(pts, timed, nalgo + 1);
        }
        /* an algorithm none of whose batches had a call on time (with -r 1
         * one plan that reached a rank late does it) gets up to 3 more */
        for (int i = 0; i <= nalgo; i++)
            for (int k = 0; k < 3 && timed[i] && from_root(pts[i].n == 0 && !pts[i].bad_rc); k++) {
                MPIX_Coll_force(op_names[op], i < nalgo ? algo[i] : "auto");
                point_batch(&pts[i], m, iters);
                MPIX_Coll_force(op_names[op], "auto");
            }
        for (int i = 0; i <= nalgo; i++) {
            if (!timed[i])
                continue;
            meas[i] = point_end(&pts[i]);
            if (i < nalgo && meas[i] >= 0 && (best < 0 || meas[i] < meas[best]))
                best = i;
            if (i < nalgo && !strcmp(chosen, algo[i]))
                pick = i;
        }
        for (int i = 0; i < nalgo && pick < 0; i++)
            if (!strcmp(chosen, algo[i]))
                pick = i;
        if (rank == 0) {
            for (int i = 0; i <= nalgo; i++) {
                char label[NAME_LEN + 8];
                if (i < nalgo)
                    snprintf(label, sizeof label, "%.63s", algo[i]);
                else
                    snprintf(label, sizeof label, "auto(%.63s)", chosen[0] ? chosen : "?");
                if (pred[i] < 0) {
                    printf("%-11ld %-26s %12s %12s %9s\n", m, label, "-", "n/a", "-");
                    continue;
                }
                if (meas[i] < 0)
                    printf("%-11ld %-26s %12s %12.2f %9s\n", m, label, predict_only ? "-" : "FAIL", pred[i],
                           "-");
                else
                    printf("%-11ld %-26s %12.2f %12.2f %9.2f\n", m, label, meas[i], pred[i],
                           meas[i] > 0 ? pred[i] / meas[i] : 0.0);
                if (cf)
                    fprintf(cf, "%s,%d,%ld,%s,%.3f,%.3f,%s\n", op_names[op], nprocs, m,
                            i < nalgo ? algo[i] : "auto", meas[i], pred[i], i < nalgo ? "" : chosen);
            }
            if (predict_only) {
                /* nothing measured, nothing to compare */
            } else if (best >= 0 && pick >= 0 && meas[pick] >= 0) {
                double lost = meas[pick] / meas[best] - 1.0;
                points++;
                fastest += pick == best;
                within10 += lost <= 0.10;
                if (pick == best)
                    printf("#   %ld: pick %s is the fastest measured\n", m, chosen);
                else
                    printf("#   %ld: pick %s is not the fastest: %s (%.2f us); the pick lost %.1f %%\n", m,
                           chosen, algo[best], meas[best], 100.0 * lost);
            } else {
                printf("#   %ld: no comparison (pick '%s' %s)\n", m, chosen,
                       pick < 0 ? "is not among the algorithms timed" : "was not measured");
            }
            fflush(stdout);
            if (cf)
                fflush(cf);
        }
#endif
        if (op == OP_BARRIER)
            break;
    }
    if (rank == 0 && !osu && !predict_only)
        printf("# summary %s P=%d: pick fastest at %d of %d sizes, within 10 %% of the fastest at %d of %d\n",
               op_names[op], nprocs, fastest, points, within10, points);
    if (cf)
        fclose(cf);
    int any = max_over_ranks((double)errors) > 0;
    any = from_root(any);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return any ? 1 : 0;
}
