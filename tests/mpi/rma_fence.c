/*
 * rma_fence: active-target one-sided communication synchronized with
 * MPI_Win_fence (MPI 3.1 11.5.1), on windows from MPI_Win_create and from
 * MPI_Win_allocate, every rank accessing every rank including itself.
 *
 * An int window (disp_unit sizeof(int)): MPI_Put and MPI_Get; MPI_Accumulate
 * with MPI_SUM, MPI_MAX, MPI_REPLACE and MPI_BXOR; an origin vector type;
 * target vector and indexed types (put, get, accumulate) and a target struct
 * of one basic type repeated (accumulate, get); operations of count 0.
 * A byte window (disp_unit 1): puts at odd byte displacements, an MPI_INT at
 * a byte displacement, MPI_Accumulate of doubles (MPI_SUM, MPI_MAX,
 * MPI_REPLACE; integral and dyadic values, so that every sum is exact in
 * any order), a 1 MiB put to the right neighbour and a 1 MiB get from the
 * left one. The assertions MPI_MODE_NOPRECEDE, NOSUCCEED, NOSTORE and NOPUT
 * are given where they hold.
 *
 * After every epoch the whole window is compared with a reference computed
 * locally, so that a stray write anywhere in it is caught too.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "rma_fence"
#define CHECK_LINE
#include "check.h"

enum { M = 8, RO = 16, BIG = 1 << 20 };

static int rank, size;

/* ---- the int window ---- */

/* region offsets in ints */
static int o_put, o_ro, o_sum, o_max, o_rep, o_bxor, o_ovec, o_tvec, o_tidx, o_tstr, o_tvmax, nint;

static void int_layout(void)
{
    int p = size;
    o_put = 0;                /* P*M: Put, slot per origin */
    o_ro = o_put + p * M;     /* RO: read only (gets) */
    o_sum = o_ro + RO;        /* M: SUM from everyone */
    o_max = o_sum + M;        /* M: MAX from everyone */
    o_rep = o_max + M;        /* P*M: REPLACE, slot per origin */
    o_bxor = o_rep + p * M;   /* M: BXOR from everyone */
    o_ovec = o_bxor + M;      /* P*M: put from an origin vector */
    o_tvec = o_ovec + p * M;  /* P*M: put into a target vector of stride P */
    o_tidx = o_tvec + p * M;  /* P*10: put into a target indexed type */
    o_tstr = o_tidx + p * 10; /* 8: SUM into a target struct, count 2 */
    o_tvmax = o_tstr + 8;     /* 2*M: MAX into a target vector of stride 2 */
    nint = o_tvmax + 2 * M;
}

static int pv(int o, int t, int j)
{
    return o * 100000 + t * 1000 + j + 1;
}
static int rov(int t, int j)
{
    return -500000 - t * 1000 - j;
}
static int sv(int o, int t, int j)
{
    return o * 3 + t + j * j;
}
static int mv(int o, int t, int j)
{
    return ((o + 1) * 37 + j * 11 + t * 5) % 101;
}
static int bv(int o, int t, int j)
{
    return ((o + 1) * 0x1111) ^ (j << (t % 8)) ^ (o << 20);
}

/* the window's initial contents: a sentinel everywhere, the RO region */
static void int_init(int *ref)
{
    for (int i = 0; i < nint; i++)
        ref[i] = -7 - i;
    for (int j = 0; j < RO; j++)
        ref[o_ro + j] = rov(rank, j);
}

static void int_compare(const int *w, const int *ref, const char *what)
{
    for (int i = 0; i < nint; i++)
        CHECK(w[i] == ref[i], "%s: rank %d window[%d] = %d, expected %d", what, rank, i, w[i], ref[i]);
}

static const int idx_len[3] = {2, 1, 3}, idx_disp[3] = {0, 4, 7};
static const int idx_pos[6] = {0, 1, 4, 7, 8, 9}; /* ints the indexed type covers */
static const int str_pos[6] = {0, 1, 3, 4, 5, 7}; /* ints 2 structs {int[2] at 0, int at 12} cover */

static void exercise_int(MPI_Win win, int *w, const char *what)
{
    int p = size;
    int *ref = malloc(nint * sizeof(int));
    int *src = malloc((size_t)p * 2 * M * sizeof(int));
    int *get = malloc((size_t)p * 2 * M * sizeof(int));
    MPI_Datatype vec_o, vec_t, vec2, idx, st;
    CHECK(ref && src && get, "out of memory");

    MPI_Type_vector(M, 1, 2, MPI_INT, &vec_o);
    MPI_Type_vector(M, 1, p, MPI_INT, &vec_t);
    MPI_Type_vector(M, 1, 2, MPI_INT, &vec2);
    MPI_Type_indexed(3, idx_len, idx_disp, MPI_INT, &idx);
    {
        int bl[2] = {2, 1};
        MPI_Aint dp[2] = {0, 3 * sizeof(int)};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, bl, dp, ty, &st);
    }
    MPI_Type_commit(&vec_o);
    MPI_Type_commit(&vec_t);
    MPI_Type_commit(&vec2);
    MPI_Type_commit(&idx);
    MPI_Type_commit(&st);
    {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(st, &lb, &ext);
        CHECK(lb == 0 && ext == 4 * (MPI_Aint)sizeof(int), "struct extent %ld", (long)ext);
    }

    /* 1: Put into a slot per origin, Get from the read-only region */
    int_init(ref);
    memcpy(w, ref, nint * sizeof(int));
    for (int i = 0; i < p * M; i++)
        get[i] = -1;
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS, "fence NOPRECEDE");
    for (int t = 0; t < p; t++) {
        for (int j = 0; j < M; j++)
            src[t * M + j] = pv(rank, t, j);
        CHECK(MPI_Put(src + t * M, M, MPI_INT, t, o_put + rank * M, M, MPI_INT, win) == MPI_SUCCESS, "Put");
        CHECK(MPI_Get(get + t * M, M, MPI_INT, t, o_ro + 1, M, MPI_INT, win) == MPI_SUCCESS, "Get");
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence NOSTORE");
    for (int o = 0; o < p; o++)
        for (int j = 0; j < M; j++)
            ref[o_put + o * M + j] = pv(o, rank, j);
    int_compare(w, ref, what);
    for (int t = 0; t < p; t++)
        for (int j = 0; j < M; j++)
            CHECK(get[t * M + j] == rov(t, j + 1), "%s: Get from %d [%d] = %d", what, t, j, get[t * M + j]);

    /* 2: accumulate, the same op on a location from every origin */
    int_init(ref);
    memcpy(w, ref, nint * sizeof(int));
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "fence");
    for (int t = 0; t < p; t++) {
        int *s = src + t * 2 * M;
        for (int j = 0; j < M; j++)
            s[j] = sv(rank, t, j);
        MPI_Accumulate(s, M, MPI_INT, t, o_sum, M, MPI_INT, MPI_SUM, win);
    }
    /* the origin buffers stay untouched until the epoch ends: one per op and target */
    int *src_max = malloc((size_t)p * 3 * M * sizeof(int));
    CHECK(src_max, "out of memory");
    for (int t = 0; t < p; t++) {
        int *mx = src_max + t * 3 * M, *rp = mx + M, *bx = rp + M;
        for (int j = 0; j < M; j++) {
            mx[j] = mv(rank, t, j);
            rp[j] = pv(rank, t, j) + 7;
            bx[j] = bv(rank, t, j);
        }
        MPI_Accumulate(mx, M, MPI_INT, t, o_max, M, MPI_INT, MPI_MAX, win);
        MPI_Accumulate(rp, M, MPI_INT, t, o_rep + rank * M, M, MPI_INT, MPI_REPLACE, win);
        MPI_Accumulate(bx, M, MPI_INT, t, o_bxor, M, MPI_INT, MPI_BXOR, win);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "fence NOSUCCEED");
    for (int o = 0; o < p; o++)
        for (int j = 0; j < M; j++) {
            ref[o_sum + j] += sv(o, rank, j);
            if (mv(o, rank, j) > ref[o_max + j])
                ref[o_max + j] = mv(o, rank, j);
            ref[o_rep + o * M + j] = pv(o, rank, j) + 7;
            ref[o_bxor + j] ^= bv(o, rank, j);
        }
    int_compare(w, ref, what);
    free(src_max);

    /* 3: derived datatypes at the origin and at the target */
    int_init(ref);
    memcpy(w, ref, nint * sizeof(int));
    for (int i = 0; i < p * 2 * M; i++)
        get[i] = -1;
    int *src3 = malloc((size_t)p * 6 * M * sizeof(int));
    CHECK(src3, "out of memory");
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS, "fence");
    for (int t = 0; t < p; t++) {
        int *ov = src3 + t * 6 * M, *tv = ov + 2 * M, *ti = tv + M, *ts = ti + M, *tm = ts + M;
        for (int j = 0; j < M; j++) {
            ov[2 * j] = pv(rank, t, j) + 11;
            ov[2 * j + 1] = -99; /* in the gaps of the vector: must not travel */
            tv[j] = pv(rank, t, j) + 22;
            ti[j] = pv(rank, t, j) + 33;
            ts[j] = sv(rank, t, j);
            tm[j] = mv(rank, t, j);
        }
        MPI_Put(ov, 1, vec_o, t, o_ovec + rank * M, M, MPI_INT, win);
        MPI_Put(tv, M, MPI_INT, t, o_tvec + rank, 1, vec_t, win);
        MPI_Put(ti, 6, MPI_INT, t, o_tidx + rank * 10, 1, idx, win);
        MPI_Accumulate(ts, 6, MPI_INT, t, o_tstr, 2, st, MPI_SUM, win);
        MPI_Accumulate(tm, M, MPI_INT, t, o_tvmax, 1, vec2, MPI_MAX, win);
    }
    /* gets with derived types: an origin vector, a target indexed, a target struct */
    int *g_ov = malloc((size_t)p * 2 * M * sizeof(int)), *g_ti = malloc((size_t)p * 6 * sizeof(int)),
        *g_ts = malloc((size_t)p * 6 * sizeof(int));
    CHECK(g_ov && g_ti && g_ts, "out of memory");
    for (int i = 0; i < p * 2 * M; i++)
        g_ov[i] = -1;
    for (int i = 0; i < p * 6; i++)
        g_ti[i] = g_ts[i] = -1;
    for (int t = 0; t < p; t++) {
        MPI_Get(g_ov + t * 2 * M, 1, vec_o, t, o_ro, M, MPI_INT, win);
        MPI_Get(g_ti + t * 6, 6, MPI_INT, t, o_ro + 2, 1, idx, win);
        MPI_Get(g_ts + t * 6, 6, MPI_INT, t, o_ro + 3, 2, st, win);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence");
    for (int o = 0; o < p; o++) {
        for (int j = 0; j < M; j++) {
            ref[o_ovec + o * M + j] = pv(o, rank, j) + 11;
            ref[o_tvec + o + j * p] = pv(o, rank, j) + 22;
            if (mv(o, rank, j) > ref[o_tvmax + 2 * j])
                ref[o_tvmax + 2 * j] = mv(o, rank, j);
        }
        for (int k = 0; k < 6; k++) {
            ref[o_tidx + o * 10 + idx_pos[k]] = pv(o, rank, k) + 33;
            ref[o_tstr + str_pos[k]] += sv(o, rank, k);
        }
    }
    int_compare(w, ref, what);
    for (int t = 0; t < p; t++) {
        for (int j = 0; j < M; j++) {
            CHECK(g_ov[t * 2 * M + 2 * j] == rov(t, j), "%s: vector Get from %d [%d]", what, t, j);
            CHECK(g_ov[t * 2 * M + 2 * j + 1] == -1, "%s: vector Get wrote a gap", what);
        }
        for (int k = 0; k < 6; k++) {
            CHECK(g_ti[t * 6 + k] == rov(t, 2 + idx_pos[k]), "%s: indexed Get from %d [%d] = %d", what, t, k,
                  g_ti[t * 6 + k]);
            CHECK(g_ts[t * 6 + k] == rov(t, 3 + str_pos[k]), "%s: struct Get from %d [%d] = %d", what, t, k,
                  g_ts[t * 6 + k]);
        }
    }
    free(g_ov);
    free(g_ti);
    free(g_ts);
    free(src3);

    /* 4: operations of count 0 change nothing (the window was not stored
     * to since the last fence: NOSTORE holds at both fences) */
    for (int i = 0; i < p * 2 * M; i++)
        get[i] = -3;
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence");
    for (int t = 0; t < p; t++) {
        CHECK(MPI_Put(src, 0, MPI_INT, t, o_put, 0, MPI_INT, win) == MPI_SUCCESS, "Put count 0");
        CHECK(MPI_Get(get + t, 0, MPI_INT, t, o_ro, 0, MPI_INT, win) == MPI_SUCCESS, "Get count 0");
        CHECK(MPI_Accumulate(src, 0, MPI_INT, t, o_sum, 0, MPI_INT, MPI_SUM, win) == MPI_SUCCESS,
              "Accumulate count 0");
        CHECK(MPI_Put(src, 0, vec_o, t, o_put, 0, idx, win) == MPI_SUCCESS, "Put count 0 derived");
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "fence");
    int_compare(w, ref, what);
    for (int i = 0; i < p * 2 * M; i++)
        CHECK(get[i] == -3, "%s: Get of count 0 wrote [%d]", what, i);

    MPI_Type_free(&vec_o);
    MPI_Type_free(&vec_t);
    MPI_Type_free(&vec2);
    MPI_Type_free(&idx);
    MPI_Type_free(&st);
    free(ref);
    free(src);
    free(get);
}

/* ---- the byte window (disp_unit 1) ---- */

static size_t b_chr, b_int, b_dsum, b_dmax, b_drep, b_big, nbyte;

static size_t up8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void byte_layout(void)
{
    size_t p = size;
    b_chr = 0;                                   /* 1 + 7P: 7 bytes per origin at odd offsets */
    b_int = up8(b_chr + 1 + 7 * p);              /* P ints */
    b_dsum = up8(b_int + p * sizeof(int));       /* M doubles, SUM */
    b_dmax = b_dsum + M * sizeof(double);        /* M doubles, MAX */
    b_drep = b_dmax + M * sizeof(double);        /* P*M doubles, REPLACE */
    b_big = b_drep + p * M * sizeof(double) + 3; /* BIG bytes, at an odd offset */
    nbyte = b_big + BIG;
}

static unsigned char chv(int o, int t, int k)
{
    return (unsigned char)(o * 31 + t * 7 + k + 1);
}
static unsigned char bigv(int src, size_t k)
{
    return (unsigned char)(k * 131 + (size_t)src * 17 + (k >> 12));
}
static double dsv(int o, int t, int j)
{
    return (o + 1) * 0.25 + t + j * 1024.0;
}
static double dmv(int o, int t, int j)
{
    return ((o * 5 + t * 3 + j * 7) % 13) * 0.5 - 2.0;
}

static void byte_init(unsigned char *ref)
{
    for (size_t i = 0; i < nbyte; i++)
        ref[i] = (unsigned char)(i * 7 + 3);
    for (int j = 0; j < M; j++) {
        double a = j * 0.5, b = -1.5;
        memcpy(ref + b_dsum + j * sizeof(double), &a, sizeof a);
        memcpy(ref + b_dmax + j * sizeof(double), &b, sizeof b);
    }
}

static void byte_compare(const unsigned char *w, const unsigned char *ref, const char *what)
{
    if (memcmp(w, ref, nbyte) == 0)
        return;
    for (size_t i = 0; i < nbyte; i++)
        CHECK(w[i] == ref[i], "%s: rank %d byte window[%zu] = %d, expected %d", what, rank, i, w[i], ref[i]);
}

static void exercise_bytes(MPI_Win win, unsigned char *w, const char *what)
{
    int p = size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *ref = malloc(nbyte), *chr = malloc((size_t)p * 7), *big = malloc(BIG), *gbig = malloc(BIG);
    int *ints = malloc(p * sizeof(int));
    double *dbl = malloc((size_t)p * 3 * M * sizeof(double));
    CHECK(ref && chr && big && gbig && ints && dbl, "out of memory");

    /* 1: bytes at odd displacements, an int, doubles accumulated */
    byte_init(ref);
    memcpy(w, ref, nbyte);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS, "fence");
    for (int t = 0; t < p; t++) {
        for (int k = 0; k < 7; k++)
            chr[t * 7 + k] = chv(rank, t, k);
        ints[t] = pv(rank, t, 5);
        double *ds = dbl + t * 3 * M, *dm = ds + M, *dr = dm + M;
        for (int j = 0; j < M; j++) {
            ds[j] = dsv(rank, t, j);
            dm[j] = dmv(rank, t, j);
            dr[j] = pv(rank, t, j) * 0.125;
        }
        MPI_Put(chr + t * 7, 7, MPI_BYTE, t, b_chr + 1 + rank * 7, 7, MPI_BYTE, win);
        MPI_Put(ints + t, 1, MPI_INT, t, b_int + rank * sizeof(int), 1, MPI_INT, win);
        MPI_Accumulate(ds, M, MPI_DOUBLE, t, b_dsum, M, MPI_DOUBLE, MPI_SUM, win);
        MPI_Accumulate(dm, M, MPI_DOUBLE, t, b_dmax, M, MPI_DOUBLE, MPI_MAX, win);
        MPI_Accumulate(dr, M, MPI_DOUBLE, t, b_drep + rank * M * sizeof(double), M, MPI_DOUBLE, MPI_REPLACE,
                       win);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence");
    for (int o = 0; o < p; o++) {
        for (int k = 0; k < 7; k++)
            ref[b_chr + 1 + o * 7 + k] = chv(o, rank, k);
        int v = pv(o, rank, 5);
        memcpy(ref + b_int + o * sizeof(int), &v, sizeof v);
        for (int j = 0; j < M; j++) {
            double s, m, r = pv(o, rank, j) * 0.125;
            memcpy(&s, ref + b_dsum + j * sizeof(double), sizeof s);
            memcpy(&m, ref + b_dmax + j * sizeof(double), sizeof m);
            s += dsv(o, rank, j);
            if (dmv(o, rank, j) > m)
                m = dmv(o, rank, j);
            memcpy(ref + b_dsum + j * sizeof(double), &s, sizeof s);
            memcpy(ref + b_dmax + j * sizeof(double), &m, sizeof m);
            memcpy(ref + b_drep + (o * M + j) * sizeof(double), &r, sizeof r);
        }
    }
    byte_compare(w, ref, what);

    /* 2: 1 MiB put to the right neighbour, as MPI_INTs at an odd byte displacement */
    for (size_t k = 0; k < BIG; k++)
        big[k] = bigv(rank, k);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence");
    MPI_Put(big, BIG / sizeof(int), MPI_INT, right, b_big, BIG / sizeof(int), MPI_INT, win);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS, "fence");
    for (size_t k = 0; k < BIG; k++)
        ref[b_big + k] = bigv(left, k);
    byte_compare(w, ref, what);

    /* 3: 1 MiB get from the left neighbour (holding its left neighbour's
     * data): nobody puts in this epoch (NOPUT) */
    memset(gbig, 0, BIG);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win) == MPI_SUCCESS, "fence NOPUT");
    MPI_Get(gbig, BIG, MPI_BYTE, left, b_big, BIG, MPI_BYTE, win);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "fence");
    for (size_t k = 0; k < BIG; k++)
        CHECK(gbig[k] == bigv((left + size - 1) % size, k), "%s: 1 MiB Get [%zu] = %d", what, k, gbig[k]);
    byte_compare(w, ref, what);

    free(ref);
    free(chr);
    free(big);
    free(gbig);
    free(ints);
    free(dbl);
}

static MPI_Aint round64(size_t n)
{
    return (MPI_Aint)((n + 63) / 64 * 64);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int_layout();
    byte_layout();

    /* MPI_Win_create over user memory */
    int *iw = malloc(nint * sizeof(int));
    unsigned char *bw = malloc(nbyte);
    CHECK(iw && bw, "out of memory");
    CHECK(MPI_Win_create(iw, (MPI_Aint)nint * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win) == MPI_SUCCESS,
          "Win_create int");
    exercise_int(win, iw, "create/int");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    CHECK(MPI_Win_create(bw, (MPI_Aint)nbyte, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS,
          "Win_create bytes");
    exercise_bytes(win, bw, "create/bytes");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    free(iw);
    free(bw);

    /* MPI_Win_allocate: the same on memory MPI gives. The sizes are rounded
     * up to 64 bytes: MPICH 4.0.2 (ch4) misplaces RMA into windows of
     * MPI_Win_allocate whose size is not a multiple of 16 bytes (MPI 3.1
     * allows any size; MPI_Win_create above keeps the odd sizes). */
    iw = NULL;
    CHECK(MPI_Win_allocate(round64(nint * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &iw,
                           &win) == MPI_SUCCESS,
          "Win_allocate int");
    CHECK(iw != NULL, "Win_allocate gave no memory");
    exercise_int(win, iw, "allocate/int");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    bw = NULL;
    CHECK(MPI_Win_allocate(round64(nbyte), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bw, &win) == MPI_SUCCESS,
          "Win_allocate bytes");
    CHECK(bw != NULL, "Win_allocate gave no memory");
    exercise_bytes(win, bw, "allocate/bytes");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_fence: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
