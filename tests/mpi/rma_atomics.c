/*
 * rma_atomics: the atomic read-modify-write calls of MPI 3.1 11.3.4, every
 * rank targeting every rank (itself included) inside one
 * MPI_Win_lock_all epoch, on a window from MPI_Win_allocate (disp_unit 1).
 *
 * - MPI_Fetch_and_op(MPI_SUM) on an int and on a long long counter, K times
 *   from every rank: the values fetched at a target, gathered from all
 *   ranks, are exactly {base + step*i : i < P*K}; MPI_NO_OP then reads
 *   base + step*P*K.
 * - MPI_Fetch_and_op(MPI_REPLACE) once from every rank: the values fetched
 *   plus the final value are exactly the initial value plus every rank's.
 * - MPI_Compare_and_swap on an int: exactly one rank finds the initial value
 *   and every other rank finds the winner's value; on a long long: K
 *   increments per rank by CAS retry loops give exactly {base .. base+P*K-1}
 *   as the values replaced.
 * - MPI_Get_accumulate(MPI_SUM) of N ints, several times from every rank:
 *   per element, the (fetched, added) pairs sorted by fetched value form one
 *   chain from the initial value (each operation atomic per element);
 *   MPI_Get_accumulate(MPI_NO_OP) reads the final sums.
 * Phases are separated by MPI_Win_flush_all and MPI_Barrier, so that ops
 * other than the one of a phase (and MPI_NO_OP) never meet on a location.
 *
 * Open MPI 4.1.4's default osc rdma (over btl vader) crashes in
 * MPI_Compare_and_swap on MPI_LONG_LONG (segfault in
 * mca_btl_vader_emu_acswap); run it there with OMPI_MCA_osc=sm,pt2pt.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "rma_atomics"
#define CHECK_LINE
#include "check.h"

enum { K = 8, KG = 3, N = 4 };

/* byte displacements in the window */
enum {
    OFF_CI = 0,    /* int: Fetch_and_op SUM */
    OFF_CL = 8,    /* long long: Fetch_and_op SUM */
    OFF_SW = 16,   /* int: Fetch_and_op REPLACE */
    OFF_CASI = 24, /* int: Compare_and_swap, one winner */
    OFF_CASL = 32, /* long long: Compare_and_swap increments */
    OFF_GA = 40,   /* N ints: Get_accumulate SUM */
    WIN_BYTES = 64
};

static const long long LBASE = 1LL << 40, LSTEP = 3;
static const int IBASE = 0;

static int rank, size;

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int read_int(MPI_Win win, int t, MPI_Aint off)
{
    int dummy = 0, v = -1;
    CHECK(MPI_Fetch_and_op(&dummy, &v, MPI_INT, t, off, MPI_NO_OP, win) == MPI_SUCCESS, "Fetch_and_op NO_OP");
    MPI_Win_flush(t, win);
    return v;
}

static long long read_ll(MPI_Win win, int t, MPI_Aint off)
{
    long long dummy = 0, v = -1;
    CHECK(MPI_Fetch_and_op(&dummy, &v, MPI_LONG_LONG, t, off, MPI_NO_OP, win) == MPI_SUCCESS,
          "Fetch_and_op NO_OP");
    MPI_Win_flush(t, win);
    return v;
}

/* gather, for target `rank`, the n values per (origin, target) from every origin */
static void gather_mine(const long long *per_target, int n, long long *out)
{
    long long *all = malloc((size_t)size * size * n * sizeof(long long));
    CHECK(all, "out of memory");
    MPI_Allgather(per_target, size * n, MPI_LONG_LONG, all, size * n, MPI_LONG_LONG, MPI_COMM_WORLD);
    for (int o = 0; o < size; o++)
        memcpy(out + (size_t)o * n, all + ((size_t)o * size + rank) * n, n * sizeof(long long));
    free(all);
}

static int ga_init(int j)
{
    return 100 * j - 7;
}
static int ga_add(int o, int k, int j)
{
    return (o + 1) * (j + 1) + k * 50 + 1;
}

int main(int argc, char **argv)
{
    MPI_Win win;
    unsigned char *base = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size;
    long long *res = malloc((size_t)p * K * N * sizeof(long long));
    long long *mine = malloc((size_t)p * K * N * sizeof(long long));
    CHECK(res && mine, "out of memory");

    CHECK(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS,
          "Win_allocate");
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS, "Win_lock_all");
    {
        int ci = IBASE, sw = -5, casi = -1, ga[N];
        long long cl = LBASE, casl = LBASE;
        for (int j = 0; j < N; j++)
            ga[j] = ga_init(j);
        memcpy(base + OFF_CI, &ci, sizeof ci);
        memcpy(base + OFF_CL, &cl, sizeof cl);
        memcpy(base + OFF_SW, &sw, sizeof sw);
        memcpy(base + OFF_CASI, &casi, sizeof casi);
        memcpy(base + OFF_CASL, &casl, sizeof casl);
        memcpy(base + OFF_GA, ga, sizeof ga);
    }
    MPI_Win_sync(win); /* the stores into the public copy before anyone accesses it */
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- Fetch_and_op SUM, int and long long ---- */
    {
        int one = 1, *ri = malloc((size_t)p * K * sizeof(int));
        long long step = LSTEP, *rl = malloc((size_t)p * K * sizeof(long long));
        CHECK(ri && rl, "out of memory");
        for (int k = 0; k < K; k++)
            for (int i = 0; i < p; i++) {
                int t = (rank + i) % p;
                CHECK(MPI_Fetch_and_op(&one, ri + t * K + k, MPI_INT, t, OFF_CI, MPI_SUM, win) == MPI_SUCCESS,
                      "Fetch_and_op int");
                CHECK(MPI_Fetch_and_op(&step, rl + t * K + k, MPI_LONG_LONG, t, OFF_CL, MPI_SUM, win) ==
                          MPI_SUCCESS,
                      "Fetch_and_op long long");
            }
        CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "Win_flush_all");
        for (int i = 0; i < p * K; i++)
            res[i] = ri[i];
        gather_mine(res, K, mine);
        qsort(mine, (size_t)p * K, sizeof(long long), cmp_ll);
        for (int i = 0; i < p * K; i++)
            CHECK(mine[i] == IBASE + i, "int fetch-and-add at %d: sorted [%d] = %lld", rank, i, mine[i]);
        gather_mine(rl, K, mine);
        qsort(mine, (size_t)p * K, sizeof(long long), cmp_ll);
        for (int i = 0; i < p * K; i++)
            CHECK(mine[i] == LBASE + LSTEP * i, "long long fetch-and-add at %d: sorted [%d] = %lld", rank, i,
                  mine[i]);
        free(ri);
        free(rl);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < p; t++) {
        int v = read_int(win, t, OFF_CI);
        long long l = read_ll(win, t, OFF_CL);
        CHECK(v == IBASE + p * K, "int counter of %d = %d", t, v);
        CHECK(l == LBASE + LSTEP * p * K, "long long counter of %d = %lld", t, l);
    }

    /* ---- Fetch_and_op REPLACE: a swap ---- */
    {
        int *rs = malloc(p * sizeof(int)), *vals = malloc(p * sizeof(int));
        CHECK(rs && vals, "out of memory");
        for (int i = 0; i < p; i++) {
            int t = (rank + i) % p;
            vals[t] = rank * 10 + 7 + t * 1000;
            MPI_Fetch_and_op(vals + t, rs + t, MPI_INT, t, OFF_SW, MPI_REPLACE, win);
        }
        MPI_Win_flush_all(win);
        for (int t = 0; t < p; t++)
            res[t] = rs[t];
        gather_mine(res, 1, mine);
        MPI_Barrier(MPI_COMM_WORLD);
        mine[p] = read_int(win, rank, OFF_SW);
        long long *want = malloc((p + 1) * sizeof(long long));
        CHECK(want, "out of memory");
        want[0] = -5;
        for (int o = 0; o < p; o++)
            want[o + 1] = o * 10 + 7 + rank * 1000;
        qsort(mine, p + 1, sizeof(long long), cmp_ll);
        qsort(want, p + 1, sizeof(long long), cmp_ll);
        for (int i = 0; i <= p; i++)
            CHECK(mine[i] == want[i], "swap at %d: sorted [%d] = %lld, expected %lld", rank, i, mine[i],
                  want[i]);
        free(want);
        free(rs);
        free(vals);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- Compare_and_swap on an int: one winner ---- */
    {
        int cmp = -1, mynew = rank;
        int *rc = malloc(p * sizeof(int));
        CHECK(rc, "out of memory");
        for (int i = 0; i < p; i++) {
            int t = (rank + i) % p;
            CHECK(MPI_Compare_and_swap(&mynew, &cmp, rc + t, MPI_INT, t, OFF_CASI, win) == MPI_SUCCESS,
                  "Compare_and_swap int");
        }
        MPI_Win_flush_all(win);
        for (int t = 0; t < p; t++)
            res[t] = rc[t];
        gather_mine(res, 1, mine);
        MPI_Barrier(MPI_COMM_WORLD);
        int final = read_int(win, rank, OFF_CASI), winners = 0;
        CHECK(final >= 0 && final < p, "CAS at %d: final value %d", rank, final);
        for (int o = 0; o < p; o++) {
            if (mine[o] == -1) {
                winners++;
                CHECK(o == final, "CAS at %d: rank %d found -1 but %d is stored", rank, o, final);
            } else
                CHECK(mine[o] == final, "CAS at %d: rank %d found %lld, winner %d", rank, o, mine[o], final);
        }
        CHECK(winners == 1, "CAS at %d: %d winners", rank, winners);
        free(rc);
    }

    /* ---- Compare_and_swap on a long long: increments by retry ---- */
    {
        long long *cur = malloc(p * sizeof(long long)), *won = malloc((size_t)p * K * sizeof(long long));
        int *n = calloc(p, sizeof(int));
        CHECK(cur && won && n, "out of memory");
        for (int t = 0; t < p; t++)
            cur[t] = LBASE; /* a guess: the first CAS tells the truth */
        for (int k = 0; k < K; k++)
            for (int i = 0; i < p; i++) {
                int t = (rank + i) % p;
                for (;;) {
                    long long next = cur[t] + 1, found = -1;
                    MPI_Compare_and_swap(&next, cur + t, &found, MPI_LONG_LONG, t, OFF_CASL, win);
                    MPI_Win_flush(t, win);
                    if (found == cur[t]) {
                        won[t * K + n[t]++] = found;
                        cur[t] = next;
                        break;
                    }
                    CHECK(found > cur[t] && found < LBASE + p * K, "CAS loop at %d found %lld", t, found);
                    cur[t] = found;
                }
            }
        gather_mine(won, K, mine);
        qsort(mine, (size_t)p * K, sizeof(long long), cmp_ll);
        for (int i = 0; i < p * K; i++)
            CHECK(mine[i] == LBASE + i, "CAS increments at %d: sorted [%d] = %lld", rank, i, mine[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        long long final = read_ll(win, rank, OFF_CASL);
        CHECK(final == LBASE + p * K, "CAS counter at %d = %lld", rank, final);
        free(cur);
        free(won);
        free(n);
    }

    /* ---- Get_accumulate SUM, then NO_OP ---- */
    {
        int *add = malloc((size_t)p * KG * N * sizeof(int)), *got = malloc((size_t)p * KG * N * sizeof(int));
        CHECK(add && got, "out of memory");
        for (int k = 0; k < KG; k++)
            for (int i = 0; i < p; i++) {
                int t = (rank + i) % p, *a = add + (t * KG + k) * N;
                for (int j = 0; j < N; j++)
                    a[j] = ga_add(rank, k, j);
                CHECK(MPI_Get_accumulate(a, N, MPI_INT, got + (t * KG + k) * N, N, MPI_INT, t, OFF_GA, N,
                                         MPI_INT, MPI_SUM, win) == MPI_SUCCESS,
                      "Get_accumulate");
            }
        MPI_Win_flush_all(win);
        for (int i = 0; i < p * KG * N; i++)
            res[i] = got[i];
        gather_mine(res, KG * N, mine);
        MPI_Barrier(MPI_COMM_WORLD);
        int fin[N], dummy[N] = {0};
        MPI_Get_accumulate(dummy, N, MPI_INT, fin, N, MPI_INT, rank, OFF_GA, N, MPI_INT, MPI_NO_OP, win);
        MPI_Win_flush(rank, win);
        /* per element: pairs (fetched, added) in order of fetched value */
        long long *pair = malloc((size_t)p * KG * 2 * sizeof(long long));
        CHECK(pair, "out of memory");
        for (int j = 0; j < N; j++) {
            int np = 0;
            for (int o = 0; o < p; o++)
                for (int k = 0; k < KG; k++) {
                    pair[2 * np] = mine[((size_t)o * KG + k) * N + j];
                    pair[2 * np + 1] = ga_add(o, k, j);
                    np++;
                }
            qsort(pair, np, 2 * sizeof(long long), cmp_ll);
            long long v = ga_init(j);
            for (int i = 0; i < np; i++) {
                CHECK(pair[2 * i] == v, "Get_accumulate at %d [%d]: fetched %lld, expected %lld in the chain",
                      rank, j, pair[2 * i], v);
                v += pair[2 * i + 1];
            }
            CHECK(fin[j] == v, "Get_accumulate NO_OP at %d [%d] = %d, expected %lld", rank, j, fin[j], v);
        }
        /* and from the others */
        for (int t = 0; t < p; t++) {
            MPI_Get_accumulate(dummy, N, MPI_INT, fin, N, MPI_INT, t, OFF_GA, N, MPI_INT, MPI_NO_OP, win);
            MPI_Win_flush(t, win);
            for (int j = 0; j < N; j++) {
                long long v = ga_init(j);
                for (int o = 0; o < p; o++)
                    for (int k = 0; k < KG; k++)
                        v += ga_add(o, k, j);
                CHECK(fin[j] == v, "Get_accumulate NO_OP from %d [%d] = %d, expected %lld", t, j, fin[j], v);
            }
        }
        free(pair);
        free(add);
        free(got);
    }

    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS, "Win_unlock_all");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    free(res);
    free(mine);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_atomics: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
