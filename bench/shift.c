/*
 * bench/shift.c: measures MPIX_Shift (the Shift halo exchange, issue 7) and
 * compares it with its max-plus prediction and the seed's simple model, both
 * fed with ping-pong times measured in the same run.
 *
 * For every payload (default 10 B, 1 KB, 100 KB per rank, the seed's sizes),
 * depth d (default 1..3) and variant (Ssend, Send, non-blocking):
 *   - the Shift from a synchronised start (--sync window, the default:
 *     clocks matched to rank 0's once, then every rank starts MPIX_Shift at
 *     the same planned moment and the time is the last rank's completion
 *     minus that moment, what the max-plus graph predicts; --sync barrier:
 *     after an MPI_Barrier, each rank from its own exit), the slowest
 *     rank's time (Allreduce MAX); repeated until a time budget or a
 *     repetition cap, at least 5 times; median and standard deviation;
 *   - the protocol each message took: mbmpi's counters (write_msgs,
 *     eager_msgs, rts_msgs, summed over ranks) around 3 extra Shift calls
 *     with no collective in between;
 *   - predictions: max-plus (mxp_shift_predict; for the non-blocking variant
 *     also with one message at a time per rank, "1-port") and simple (one
 *     message time per sequential exchange), from a table of ping-pong half round
 *     trips (MPI_Send and MPI_Ssend) and eager send overheads measured first
 *     (see --pp), at every message size the Shift uses (m, (2d+1) m,
 *     (2d+1)^2 m);
 * then the non-blocking variant's speed-up over the others.
 *
 * usage: mpirun -n 8 shift [--depths 1,2,3] [--sizes 10,1000,100000]
 *            [--variants 0,1,2] [--budget SEC] [--max-reps N] [--open]
 *            [--pp concurrent|isolated] [--sync window|barrier] [--cpu-bound] [--label NAME]
 *            [--dat FILE]
 * --cpu-bound: the predictions are at least the sum of the call's message
 *   times divided by the messages the ping-pong ran at once (its pairs, or
 *   CPUs / 2 isolated): the ranks share the CPUs (mxp_cost_t.work_div).
 *   Off by default: over mbshm a concurrent ping-pong's time is partly
 *   waiting for a turn on a CPU, not CPU work, and the bound overshoots
 *   (10 B non-blocking: +63..+92 %); over tcp it helps (median error of
 *   the 10 B and 1 KB points 29 % against 36 %).
 * --pp: ping-pong of every pair of ranks along the first axis at once
 *   (concurrent, default: the load the Shift itself puts on the CPUs and the
 *   network) or of one pair while the other ranks sleep (isolated)
 * --dat writes one line per measurement for bench/run_shift.sh's plot:
 *   bytes d variant median_us std_us maxplus_us simple_us write eager rts reps oneport_us
 * The eager limit used by the model is MBMPI_EAGER_LIMIT (default 16384).
 */
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#include "mpi/shift/maxplus.h"

#define MAXL 16
#define MAXSIZES 64
#define TAG_PP 1
#define TAG_DONE 2
#define TAG_GO 3
#define TAG_SYNC 4

static int rank, nranks;
static int oversub; /* more ranks than CPUs: the start wait yields */
static const char *vname[3] = {"ssend", "send", "nonblock"};

static void die(const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "shift: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int parse_ints(const char *s, long *out, int max)
{
    char buf[256], *tok;
    int n = 0;
    snprintf(buf, sizeof(buf), "%s", s);
    for (tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = atol(tok);
    return n;
}

static double stddev(const double *v, int n)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m += v[i];
    m /= n;
    for (int i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    return n > 1 ? sqrt(s / (n - 1)) : 0.0;
}

static unsigned long long stat(const char *name)
{
    unsigned long long v = 0;
    if (MPIX_Stat_get(name, &v) != MPI_SUCCESS)
        return 0;
    return v;
}

/* Who ping-pongs: pairs along one axis (even coordinate with the next one),
 * all at once ("concurrent", the default: every rank communicates, as in
 * the Shift) or only the pair at the origin ("isolated": the other ranks
 * sleep so that the pair has the CPUs). */
typedef struct pairing {
    int partner; /* MPI_PROC_NULL: idle */
    int leader;  /* 1: times the round trips */
    int waker;   /* isolated mode: the rank that wakes the idle ones */
    int isolated;
} pairing_t;

static void pairing_make(MPI_Comm cart, const int dims[3], int isolated, pairing_t *p)
{
    int axis = dims[0] > 1 ? 0 : dims[1] > 1 ? 1 : 2, me, c[3], pc[3], o[3] = {0, 0, 0};
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 3, c);
    p->isolated = isolated;
    MPI_Cart_rank(cart, o, &p->waker);
    p->partner = MPI_PROC_NULL;
    p->leader = c[axis] % 2 == 0;
    for (int a = 0; a < 3; a++)
        pc[a] = c[a];
    if (p->leader && c[axis] + 1 >= dims[axis])
        return; /* the last of an odd-length axis */
    pc[axis] += p->leader ? 1 : -1;
    if (isolated) { /* only the origin and its neighbour */
        for (int a = 0; a < 3; a++)
            if (a != axis && c[a] != 0)
                return;
        if (c[axis] > 1)
            return;
    }
    MPI_Cart_rank(cart, pc, &p->partner);
}

/* Idle ranks of the isolated mode sleep until the pair is done. */
static void pair_end(const pairing_t *p)
{
    char b = 0;
    if (!p->isolated) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    if (p->partner == MPI_PROC_NULL) {
        MPI_Request r;
        int flag = 0;
        MPI_Irecv(&b, 1, MPI_BYTE, p->waker, TAG_DONE, MPI_COMM_WORLD, &r);
        while (!flag) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
    } else if (rank == p->waker) {
        for (int i = 0; i < nranks; i++)
            if (i != rank && i != p->partner)
                MPI_Send(&b, 1, MPI_BYTE, i, TAG_DONE, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Mean over the leaders of their values. */
static double pair_mean(const pairing_t *p, double v)
{
    int active = p->leader && p->partner != MPI_PROC_NULL;
    double in[2] = {active ? v : 0, active}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out[1] > 0 ? out[0] / out[1] : 0;
}

/* Half round trip (median over reps) of `bytes`, with MPI_Send or MPI_Ssend. */
static double pingpong(const pairing_t *p, char *buf, long bytes, int sync, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps), res = 0;
    int warm = 3, o = p->partner;
    if (!t)
        die("no memory");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = -warm; i < reps && o != MPI_PROC_NULL; i++) {
        if (p->leader) {
            double t0 = MPI_Wtime();
            if (sync)
                MPI_Ssend(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD);
            else
                MPI_Send(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= 0)
                t[i] = (MPI_Wtime() - t0) / 2;
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (sync)
                MPI_Ssend(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD);
            else
                MPI_Send(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD);
        }
    }
    if (p->leader && o != MPI_PROC_NULL)
        res = median(t, reps);
    pair_end(p);
    free(t);
    return pair_mean(p, res);
}

/* Time a leader spends in an MPI_Send that goes eagerly (its partner is not
 * receiving yet: it first waits for a message sent after the burst).
 * Median over a burst that stays within the per-peer credits. */
static double send_overhead(const pairing_t *p, char *buf, long bytes)
{
    int n = (int)(200000 / (bytes + 64)), o = p->partner;
    double t[50], res = 0;
    char done = 0;
    if (n > 50)
        n = 50;
    if (n < 1)
        n = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (o != MPI_PROC_NULL && p->leader) {
        for (int i = 0; i < n; i++) {
            double t0 = MPI_Wtime();
            MPI_Send(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD);
            t[i] = MPI_Wtime() - t0;
        }
        MPI_Send(&done, 1, MPI_BYTE, o, TAG_GO, MPI_COMM_WORLD);
        res = median(t, n);
    } else if (o != MPI_PROC_NULL) {
        MPI_Recv(&done, 1, MPI_BYTE, o, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            MPI_Recv(buf, (int)bytes, MPI_BYTE, o, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    pair_end(p);
    return pair_mean(p, res);
}

typedef struct meas {
    double med;
    double sd;
    double maxplus;
    double oneport; /* max-plus with one message at a time per rank (= maxplus when blocking) */
    double simple;
    double share[3]; /* write, eager, rts messages per call (all ranks) */
    int reps;
} meas_t;

typedef struct config {
    long depths[MAXL], sizes[MAXL], variants[MAXL], maxreps;
    int nd, ns, nv, periodic, isolated, sync_barrier, cpu_bound;
    double budget, eager_limit;
    const char *label, *datpath;
} config_t;

/* The ping-pong table of one payload m: every message size the Shift uses
 * (m, (2d+1) m, (2d+1)^2 m for every d), sorted, unique. */
typedef struct table {
    int n;
    double bytes[MAXSIZES], send[MAXSIZES], ssend[MAXSIZES], overhead[MAXSIZES];
} table_t;

static void measure_table(const config_t *cf, const pairing_t *pairs, long m, table_t *tb, mxp_cost_t *cost)
{
    tb->n = 0;
    for (int di = 0; di < cf->nd; di++) {
        long w = 2 * cf->depths[di] + 1, cand[3] = {m, w * m, w * w * m};
        for (int j = 0; j < 3; j++) {
            int dup = 0;
            for (int k = 0; k < tb->n; k++)
                dup |= tb->bytes[k] == (double)cand[j];
            if (!dup && tb->n < MAXSIZES)
                tb->bytes[tb->n++] = (double)cand[j];
        }
    }
    qsort(tb->bytes, (size_t)tb->n, sizeof(double), cmp_double);
    size_t big = (size_t)tb->bytes[tb->n - 1] + 1;
    char *buf = malloc(big);
    if (!buf)
        die("no memory");
    memset(buf, 1, big);
    for (int k = 0; k < tb->n; k++) {
        long b = (long)tb->bytes[k];
        int reps = b <= 16384 ? 200 : b <= (1 << 20) ? 40 : 10;
        tb->send[k] = pingpong(pairs, buf, b, 0, reps);
        tb->ssend[k] = pingpong(pairs, buf, b, 1, reps);
        tb->overhead[k] = b <= cf->eager_limit ? send_overhead(pairs, buf, b) : tb->send[k];
    }
    free(buf);
    if (rank == 0) {
        printf("# ping-pong for %ld B payloads: bytes, half round trip Send / Ssend, "
               "eager send overhead (us)\n",
               m);
        for (int k = 0; k < tb->n; k++)
            printf("#   %9.0f %9.2f %9.2f %9.2f\n", tb->bytes[k], tb->send[k] * 1e6, tb->ssend[k] * 1e6,
                   tb->overhead[k] * 1e6);
    }
    memset(cost, 0, sizeof(*cost));
    cost->ntab = tb->n;
    cost->tab_bytes = tb->bytes;
    cost->eager_limit = cf->eager_limit;
    cost->tab_t[MXP_T_SEND] = tb->send;
    cost->tab_t[MXP_T_SSEND] = tb->ssend;
    cost->tab_t[MXP_T_OVERHEAD] = tb->overhead;
}

/* Median and std of the slowest rank's time of one Shift, repeated until the
 * budget is spent (at least 5 times); then the protocol counters over 3
 * more calls with no collective in between (rank 0 gets the sums). */
static void measure_shift(const config_t *cf, MPI_Comm cart, long m, int d, int v, char *sendbuf,
                          char *recvbuf, meas_t *r)
{
    static const char *cn[3] = {"write_msgs", "eager_msgs", "rts_msgs"};
    unsigned long long c0[3], dc[3], sum[3];
    int n = 0, cap = cf->maxreps > 5 ? (int)cf->maxreps : 5;
    double *t = malloc(sizeof(double) * (size_t)cap), total = 0;

    if (!t)
        die("no memory");
    for (int i = 0; i < 2; i++) /* warm-up */
        MPIX_Shift(sendbuf, (int)m, MPI_BYTE, recvbuf, d, v, cart);
    while (n < 5 || (n < cap && total < cf->budget)) {
        double t0, dt, dmax;
        if (cf->sync_barrier) {
            MPI_Barrier(cart);
            t0 = MPI_Wtime();
        } else {
            /* synchronised start: every rank begins at rank 0's planned
             * moment t0 and counts from it (bench_gnow: rank 0's clock), so
             * no barrier exit skew is in the time; a rank that is not
             * scheduled at t0 counts its delay too */
            if (rank == 0)
                t0 = bench_gnow() + 1e-3;
            MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, cart);
            while (bench_gnow() < t0)
                if (oversub)
                    sched_yield();
        }
        if (MPIX_Shift(sendbuf, (int)m, MPI_BYTE, recvbuf, d, v, cart) != MPI_SUCCESS)
            die("MPIX_Shift failed");
        dt = (cf->sync_barrier ? MPI_Wtime() : bench_gnow()) - t0;
        /* every rank gets the same sample, so every rank stops together */
        MPI_Allreduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, cart);
        t[n++] = dmax;
        total += dmax;
    }
    r->reps = n;
    r->sd = stddev(t, n);
    r->med = median(t, n);
    free(t);

    MPI_Barrier(cart);
    for (int j = 0; j < 3; j++)
        c0[j] = stat(cn[j]);
    for (int i = 0; i < 3; i++)
        MPIX_Shift(sendbuf, (int)m, MPI_BYTE, recvbuf, d, v, cart);
    for (int j = 0; j < 3; j++)
        dc[j] = stat(cn[j]) - c0[j];
    MPI_Reduce(dc, sum, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, cart);
    for (int j = 0; j < 3; j++)
        r->share[j] = rank == 0 ? sum[j] / 3.0 : 0;
}

static void print_point(FILE *dat, long m, int d, int v, const meas_t *r)
{
    double tot = r->share[0] + r->share[1] + r->share[2], div = tot > 0 ? tot : 1;
    char op[32] = "-";
    if (v == 2)
        snprintf(op, sizeof(op), "%.2f %+6.1f", r->oneport * 1e6, 100 * (r->oneport - r->med) / r->med);
    printf("%-8ld %-2d %-8s %10.2f %9.2f %5d %10.2f %+7.1f %10.2f %+7.1f %17s %6.1f %6.1f %6.1f %5.0f\n", m,
           d, vname[v], r->med * 1e6, r->sd * 1e6, r->reps, r->maxplus * 1e6,
           100 * (r->maxplus - r->med) / r->med, r->simple * 1e6, 100 * (r->simple - r->med) / r->med, op,
           100 * r->share[0] / div, 100 * r->share[1] / div, 100 * r->share[2] / div, tot);
    fflush(stdout);
    if (dat)
        fprintf(dat, "%ld %d %d %.3f %.3f %.3f %.3f %.1f %.1f %.1f %d %.3f\n", m, d, v, r->med * 1e6,
                r->sd * 1e6, r->maxplus * 1e6, r->simple * 1e6, r->share[0], r->share[1], r->share[2],
                r->reps, r->oneport * 1e6);
}

static void print_speedups(const config_t *cf, meas_t res[MAXL][MAXL][3])
{
    int have[3] = {0, 0, 0};
    for (int vi = 0; vi < cf->nv; vi++)
        have[cf->variants[vi]] = 1;
    if (!have[2] || !(have[0] || have[1]))
        return;
    printf("# speed-up of the non-blocking variant: measured medians (max-plus predicted, overlapping /"
           " 1-port)\n");
    printf("%-8s %-2s %22s %22s\n", "bytes", "d", "over ssend", "over send");
    for (int si = 0; si < cf->ns; si++)
        for (int di = 0; di < cf->nd; di++) {
            meas_t *r = res[si][di];
            char a[48] = "-", b[48] = "-";
            if (have[0])
                snprintf(a, sizeof(a), "%.2f (%.2f / %.2f)", r[0].med / r[2].med, r[0].maxplus / r[2].maxplus,
                         r[0].maxplus / r[2].oneport);
            if (have[1])
                snprintf(b, sizeof(b), "%.2f (%.2f / %.2f)", r[1].med / r[2].med, r[1].maxplus / r[2].maxplus,
                         r[1].maxplus / r[2].oneport);
            printf("%-8ld %-2ld %22s %22s\n", cf->sizes[si], cf->depths[di], a, b);
        }
}

static void parse_args(int argc, char **argv, config_t *cf)
{
    static const long dd[3] = {1, 2, 3}, ds[3] = {10, 1000, 100000}, dv[3] = {0, 1, 2};
    memset(cf, 0, sizeof(*cf));
    for (int i = 0; i < 3; i++) {
        cf->depths[i] = dd[i];
        cf->sizes[i] = ds[i];
        cf->variants[i] = dv[i];
    }
    cf->nd = cf->ns = cf->nv = 3;
    cf->maxreps = 300;
    cf->periodic = 1;
    cf->budget = 0.4;
    cf->eager_limit = getenv("MBMPI_EAGER_LIMIT") ? atof(getenv("MBMPI_EAGER_LIMIT")) : 16384;
    cf->label = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--open")) {
            cf->periodic = 0;
            continue;
        }
        if (!strcmp(a, "--cpu-bound")) {
            cf->cpu_bound = 1;
            continue;
        }
        if (i + 1 >= argc)
            die("usage: shift [--depths L] [--sizes L] [--variants L] [--budget S] [--max-reps N] [--open] "
                "[--pp concurrent|isolated] [--sync window|barrier] [--cpu-bound] [--label S] [--dat FILE]");
        i++;
        if (!strcmp(a, "--depths"))
            cf->nd = parse_ints(v, cf->depths, MAXL);
        else if (!strcmp(a, "--sizes"))
            cf->ns = parse_ints(v, cf->sizes, MAXL);
        else if (!strcmp(a, "--variants"))
            cf->nv = parse_ints(v, cf->variants, MAXL);
        else if (!strcmp(a, "--budget"))
            cf->budget = atof(v);
        else if (!strcmp(a, "--max-reps"))
            cf->maxreps = atol(v);
        else if (!strcmp(a, "--label"))
            cf->label = v;
        else if (!strcmp(a, "--dat"))
            cf->datpath = v;
        else if (!strcmp(a, "--pp"))
            cf->isolated = !strcmp(v, "isolated");
        else if (!strcmp(a, "--sync"))
            cf->sync_barrier = !strcmp(v, "barrier");
        else
            die("unknown option (see the head of bench/shift.c)");
    }
    for (int i = 0; i < cf->nv; i++)
        if (cf->variants[i] < 0 || cf->variants[i] > 2)
            die("variants are 0 (ssend), 1 (send), 2 (nonblock)");
    for (int i = 0; i < cf->nd; i++)
        if (cf->depths[i] < 1 || cf->depths[i] > 10)
            die("depths are 1..10");
    for (int i = 0; i < cf->ns; i++)
        if (cf->sizes[i] < 1 || cf->sizes[i] > (1 << 24))
            die("sizes are 1 B .. 16 MiB");
}

int main(int argc, char **argv)
{
    static meas_t res[MAXL][MAXL][3];
    config_t cf;
    FILE *dat = NULL;
    MPI_Comm cart;
    pairing_t pairs;
    int dims[3] = {0, 0, 0}, periods[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    parse_args(argc, argv, &cf);
    if (nranks < 2)
        die("needs at least 2 ranks");
    if (rank == 0 && cf.datpath && !(dat = fopen(cf.datpath, "w")))
        die("cannot open the --dat file");
    for (int a = 0; a < 3; a++)
        periods[a] = cf.periodic;
    MPI_Dims_create(nranks, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart); /* no reordering: cart rank = world rank */
    pairing_make(cart, dims, cf.isolated, &pairs);
    oversub = nranks > sysconf(_SC_NPROCESSORS_ONLN);
    /* The CPU bound of the max-plus prediction (mxp_cost_t.work_div): with
     * concurrent ping-pongs the pairs' times already share the CPUs, so the
     * machine completes `pairs` messages per ping-pong time; alone, a pair's
     * message keeps two CPUs busy (sender and receiver copy), so CPUs / 2
     * run at once. */
    int mine = pairs.leader && pairs.partner != MPI_PROC_NULL, npairs = 0;
    MPI_Allreduce(&mine, &npairs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double work_div = cf.isolated ? (ncpu > 1 ? ncpu / 2.0 : 1.0) : (npairs > 0 ? npairs : 1);

    if (!cf.sync_barrier)
        bench_sync_clocks(cart, TAG_SYNC);
    if (rank == 0) {
        printf("# bench/shift %s: %d ranks (%dx%dx%d %s), eager limit %.0f B, budget %.2f s per point, "
               "%s ping-pong, %s start\n",
               cf.label, nranks, dims[0], dims[1], dims[2], cf.periodic ? "periodic" : "open", cf.eager_limit,
               cf.budget, cf.isolated ? "isolated" : "concurrent",
               cf.sync_barrier ? "barrier" : "synchronised");
        printf("# times in microseconds; err%% = (prediction - measured median) / measured median\n");
        printf("# protocol shares of the messages of a call, all ranks (write: receive posted first, "
               "REQ used;\n#   eager: FIFO; rts: FIFO RTS then CTS + write), from MPIX_Stat_get\n");
        printf("# 1-port: max-plus with a rank's sends one after the other (non-blocking only; the\n"
               "#   max-plus column lets them overlap)\n");
        if (cf.cpu_bound)
            printf("# --cpu-bound: max-plus and 1-port are at least the sum of the call's message times\n"
                   "#   / %g (%s)\n",
                   work_div,
                   cf.isolated ? "CPUs / 2: an isolated message keeps two CPUs busy"
                               : "the concurrent ping-pong's pairs, whose times share the CPUs");
        printf("%-8s %-2s %-8s %10s %9s %5s %10s %7s %10s %7s %17s %6s %6s %6s %5s\n", "bytes", "d",
               "variant", "measured", "std", "reps", "max-plus", "err%", "simple", "err%", "1-port   err%",
               "write%", "eager%", "rts%", "msgs");
    }

    for (int si = 0; si < cf.ns; si++) {
        long m = cf.sizes[si];
        table_t tb;
        mxp_cost_t cost;
        measure_table(&cf, &pairs, m, &tb, &cost);
        cost.work_div = cf.cpu_bound ? work_div : 0.0;
        for (int di = 0; di < cf.nd; di++) {
            int d = (int)cf.depths[di], w = 2 * d + 1;
            size_t rsize = (size_t)m * w * w * w + 1;
            char *sendbuf = malloc((size_t)m + 1), *recvbuf = malloc(rsize);
            if (!sendbuf || !recvbuf)
                die("no memory for the buffers");
            memset(sendbuf, rank & 0xff, (size_t)m + 1);
            memset(recvbuf, 0, rsize);
            for (int vi = 0; vi < cf.nv; vi++) {
                int v = (int)cf.variants[vi];
                meas_t *r = &res[si][di][v];
                mxp_shift_spec_t spec = {.depth = d, .variant = v, .slot_bytes = (double)m};
                mxp_shift_result_t pr;

                measure_shift(&cf, cart, m, d, v, sendbuf, recvbuf, r);
                for (int a = 0; a < 3; a++) {
                    spec.dims[a] = dims[a];
                    spec.periods[a] = periods[a];
                }
                if (mxp_shift_predict(&spec, &cost, NULL, &pr) != MXP_OK)
                    die("max-plus evaluation failed");
                r->maxplus = pr.tmax;
                r->simple = pr.simple;
                cost.one_port = 1;
                if (mxp_shift_predict(&spec, &cost, NULL, &pr) != MXP_OK)
                    die("max-plus evaluation failed");
                cost.one_port = 0;
                r->oneport = pr.tmax;
                if (rank == 0)
                    print_point(dat, m, d, v, r);
            }
            free(recvbuf);
            free(sendbuf);
        }
    }
    if (rank == 0) {
        print_speedups(&cf, res);
        if (dat)
            fclose(dat);
    }
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
