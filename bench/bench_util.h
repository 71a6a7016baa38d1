/*
 * bench/bench_util.h: the small helpers every benchmark program shares
 * (sizes on the command line, medians). Header-only, plain C11, so each
 * benchmark still builds alone with any MPI's compiler wrapper.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <string.h>

/* "64", "8K", "4M" at the start of s -> bytes, *endp after it; -1 on error */
static inline long parse_size_end(const char *s, char **endp)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    if (*end == 'K' || *end == 'k') {
        v *= 1024;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        v *= 1024 * 1024;
        end++;
    }
    *endp = end;
    return v;
}

/* "64", "8K", "4M" -> bytes; -1 on error (also with anything after it) */
static inline long parse_size(const char *s)
{
    char *end;
    long v = parse_size_end(s, &end);
    return v < 0 || *end ? -1 : v;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n-1] (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median of the values of v[0..n-1] that are not negative (calls timed
 * from synchronised starts mark a call started late -1), or -1 when none
 * is. Reorders v. */
static inline double median_on_time(double *v, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (v[i] >= 0.0)
            v[k++] = v[i];
    return k > 0 ? median(v, k) : -1.0;
}

#define BENCH_MAX_SIZES 64

/* The options rtt, bw, bibw and msgrate share, and their limits. */
typedef struct bench_args {
    double scale;        /* -i: iterations scale */
    int reps;            /* -r: repetitions, 1..1000 */
    long maxsize;        /* -m: largest default size */
    const char *csv;     /* --csv FILE */
    long sizes[BENCH_MAX_SIZES];
    int nsizes;          /* -s LIST, else (0,) 1, 2, 4 .. maxsize */
    long maxn;           /* the largest size (at least 1): buffer length */
} bench_args_t;

typedef struct bench_limits {
    long maxsize;        /* default -m */
    long min_max;        /* smallest -m accepted */
    long max_max;        /* largest -m accepted (0: no bound) */
    long size_cap;       /* largest size in a -s list */
    int with_zero;       /* the default list starts with 0 bytes */
} bench_limits_t;

/* Parse -i SCALE, -r REPS, -m MAX, -s LIST, --csv FILE into *o. 0, or -1 on
 * a bad or unknown argument (the caller prints its usage). */
static inline int bench_parse_args(int argc, char **argv, const bench_limits_t *lim, bench_args_t *o)
{
    int explicit_sizes = 0, bad = 0;

    o->scale = 1.0;
    o->reps = 5;
    o->maxsize = lim->maxsize;
    o->csv = NULL;
    o->nsizes = 0;
    for (int a = 1; a < argc && !bad; a++) {
        if (!strcmp(argv[a], "-i") && a + 1 < argc) {
            o->scale = atof(argv[++a]);
            bad = o->scale <= 0;
        } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
            o->reps = atoi(argv[++a]);
            bad = o->reps < 1 || o->reps > 1000;
        } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
            o->maxsize = parse_size(argv[++a]);
            bad = o->maxsize < lim->min_max || (lim->max_max && o->maxsize > lim->max_max);
        } else if (!strcmp(argv[a], "-s") && a + 1 < argc) {
            char *list = strdup(argv[++a]), *save = NULL;
            explicit_sizes = 1;
            bad = list == NULL;
            for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && !bad; t = strtok_r(NULL, ",", &save)) {
                long v = parse_size(t);
                if (v < 0 || v > lim->size_cap || o->nsizes == BENCH_MAX_SIZES)
                    bad = 1;
                else
                    o->sizes[o->nsizes++] = v;
            }
            free(list);
        } else if (!strcmp(argv[a], "--csv") && a + 1 < argc) {
            o->csv = argv[++a];
        } else {
            bad = 1;
        }
    }
    if (bad)
        return -1;
    if (!explicit_sizes) {
        if (lim->with_zero)
            o->sizes[o->nsizes++] = 0;
        for (long s = 1; s <= o->maxsize && o->nsizes < BENCH_MAX_SIZES; s *= 2)
            o->sizes[o->nsizes++] = s;
    }
    o->maxn = 1;
    for (int k = 0; k < o->nsizes; k++)
        if (o->sizes[k] > o->maxn)
            o->maxn = o->sizes[k];
    return 0;
}

#ifdef MPI_VERSION
/*
 * Clocks matched to rank 0's, for timing from synchronised starts (the
 * window method of SKaMPI and ReproMPI): bench_sync_clocks() measures, by
 * 20 ping-pongs per rank (point to point only, tag `tag`), this rank's
 * MPI_Wtime minus rank 0's at the ping-pong with the shortest round trip,
 * taking its midpoint as the moment the rank read its clock;
 * bench_gnow() is then rank 0's clock. MPI_Wtime need not be global (it is
 * not in mbmpi: each process counts from its own MPI_Init).
 */
static double bench_clock_off;

static inline void bench_sync_clocks(MPI_Comm comm, int tag)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    bench_clock_off = 0.0;
    for (int r = 1; r < size; r++) {
        if (rank == 0) {
            double best = 1e9, off = 0.0;
            for (int k = 0; k < 20; k++) {
                double t0 = MPI_Wtime(), tr, t1;
                MPI_Send(&t0, 1, MPI_DOUBLE, r, tag, comm);
                MPI_Recv(&tr, 1, MPI_DOUBLE, r, tag, comm, MPI_STATUS_IGNORE);
                t1 = MPI_Wtime();
                if (t1 - t0 < best) {
                    best = t1 - t0;
                    off = tr - (t0 + t1) / 2.0;
                }
            }
            MPI_Send(&off, 1, MPI_DOUBLE, r, tag, comm);
        } else if (rank == r) {
            for (int k = 0; k < 20; k++) {
                double x, t;
                MPI_Recv(&x, 1, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
                t = MPI_Wtime();
                MPI_Send(&t, 1, MPI_DOUBLE, 0, tag, comm);
            }
            MPI_Recv(&bench_clock_off, 1, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
        }
    }
}

static inline double bench_gnow(void)
{
    return MPI_Wtime() - bench_clock_off;
}
#endif

#endif
