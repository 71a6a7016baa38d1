/*
 * npb/mg.c: NAS Parallel Benchmark MG (multigrid) over MPI, written from the
 * NPB 2/3 specification (NAS reports RNR-94-007 and NAS-95-020).
 *
 * The problem: solve the discrete Poisson problem  A u = v  on a periodic
 * N x N x N grid with `nit` V-cycles, starting from u = 0, where v is zero
 * except for +1 at the 10 points holding the largest values of the NPB random
 * field and -1 at the 10 holding the smallest (zran3). After the iterations
 * the L2 norm of the residual r = v - A u is compared with the official
 * value. One V-cycle (mg3P):
 *
 *     r_lt --P--> r_lt-1 --P--> ... --P--> r_1        restrict (rprj3)
 *                                           u_1 = S r_1   (psinv)
 *     u_k = Q u_k-1;  r_k = r_k - A u_k;  u_k += S r_k  for k = 2 .. lt-1
 *     u_lt += Q u_lt-1;  r_lt = v - A u_lt;  u_lt += S r_lt
 *
 * with the 27-point stencils of the specification (coefficient by number of
 * non-zero offsets: centre, 6 faces, 12 edges, 8 corners):
 *     A = (-8/3, 0, 1/6, 1/12)          residual operator
 *     P = (1/2, 1/4, 1/8, 1/16)         restriction (trilinear projection)
 *     Q = (1, 1/2, 1/4, 1/8)            prolongation (trilinear interpolation)
 *     S = (-3/8, 1/32, -1/64, 0)        smoother for classes S, W, A
 *     S = (-3/17, 1/33, -1/61, 0)       smoother for classes B and up
 * Level k has 2^k points per axis; coarse point G sits on fine point 2G+1.
 *
 * Decomposition (as in the reference NPB-MPI code): a power-of-two number of
 * processes forms a P0 x P1 x P2 grid (P0 <= P1 <= P2, each a power of two);
 * every level is split into equal blocks with one ghost layer per face, and
 * comm3 refreshes the ghosts after each operator: per axis, each rank sends
 * its two boundary faces to its periodic neighbours (MPI_Irecv + MPI_Send).
 * The axes are done in order, the later ones including the ghost lines just
 * received, so edges and corners come out right. Levels too coarse to give
 * every process a point (2^k < max P) are not split: the residual of the
 * coarsest split level is gathered to every rank (MPI_Allgather) and the
 * levels below it are computed redundantly by all; the reference instead
 * leaves processes idle there. Both give the same numbers.
 *
 * Usage: mg [S|W|A|B|C]. Exit 0 when verification succeeded, 1 when it
 * failed, 2 for an invalid class or process count. With NPB_TIMERS=1 in the
 * environment (the reference's timer.flag) rank 0 also prints where the
 * time went: halo exchanges, reductions, computation.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npb.h"

#define MAXLEVEL 12
#define NCHARGE 10             /* +1 and -1 charges placed by zran3 */
#define SEED 314159265.0       /* zran3 seed (specification) */
#define TAG_UP 701             /* face travelling towards higher coordinates */
#define TAG_DOWN 702           /* face travelling towards lower coordinates */

/* Timers (npb.h numbers them); all but T_BENCH and T_INIT only with NPB_TIMERS. */
enum { T_BENCH, T_INIT, T_COMM3, T_RCOMM, T_LAST };

/* One grid level as held by this rank. */
typedef struct {
    int n[3];      /* interior points held here per axis (axis 0 = x, fastest) */
    int m[3];      /* n + 2: with the ghost layer on both sides */
    int o[3];      /* global index of the first interior point */
    int rep;       /* 1: too coarse to split, every rank holds all of it */
    size_t size;   /* m[0] * m[1] * m[2] */
} level_t;

static struct {
    int rank, nprocs;
    int P[3], c[3];             /* process grid and this rank's coordinates */
    int nbr[3][2];              /* periodic neighbours per axis: [0] lower, [1] higher */
    int lt, nit;
    long N;                     /* points per axis on the finest level */
    level_t lv[MAXLEVEL + 1];
    level_t full;               /* replicated copy of the level gathered, if any */
    int kgather;                /* level whose residual is gathered (0: none) */
    double *u[MAXLEVEL + 1], *r[MAXLEVEL + 1], *v;
    double *rfull;              /* data of `full` */
    double *gsend, *grecv;      /* allgather buffers */
    double *fbuf[4];            /* face buffers: send low, send high, recv low, recv high */
    double *t1, *t2;            /* row temporaries of the stencils */
    int *tab1, *tab2;           /* interpolation / restriction index tables */
    double a[4], cs[4];         /* residual and smoother coefficients */
    int timeron;                /* NPB_TIMERS set: time the communication */
} g;

static void tstart(int t)
{
    if (g.timeron)
        timer_start(t);
}

static void tstop(int t)
{
    if (g.timeron)
        timer_stop(t);
}

/* Index of local point (i1, i2, i3) of level L; 0 and m-1 are the ghosts. */
#define IX(L, i1, i2, i3) \
    ((size_t)(i1) + (size_t)(L)->m[0] * ((size_t)(i2) + (size_t)(L)->m[1] * (size_t)(i3)))

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "mg: rank %d: out of memory (%zu bytes)\n", g.rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static int ilog2(long n)
{
    int l = 0;
    while ((1L << l) < n)
        l++;
    return l;
}

/* ------------------------------------------------------------ halo exchange */

/* Ghost faces of axis `ax` of array `x` on level L: periodic copy when the
 * axis is not split, else one exchange with each neighbour. The face spans
 * the interior of the axes not yet done and the full (ghost-included) extent
 * of the axes already done. */
static void comm3_axis(const level_t *L, double *x, int ax)
{
    int a1 = (ax == 0) ? 1 : 0, a2 = (ax == 2) ? 1 : 2;   /* the two other axes, a1 < a2 */
    int lo1 = (a1 < ax) ? 0 : 1, hi1 = (a1 < ax) ? L->m[a1] : L->m[a1] - 1;
    int lo2 = (a2 < ax) ? 0 : 1, hi2 = (a2 < ax) ? L->m[a2] : L->m[a2] - 1;
    size_t st[3] = {1, (size_t)L->m[0], (size_t)L->m[0] * L->m[1]};
    size_t sa = st[ax], s1 = st[a1], s2 = st[a2];
    size_t in_lo = sa, in_hi = sa * (size_t)L->n[ax];            /* first and last interior plane */
    size_t gh_lo = 0, gh_hi = sa * (size_t)(L->n[ax] + 1);        /* the two ghost planes */

    if (L->rep || g.P[ax] == 1) {
        for (int j2 = lo2; j2 < hi2; j2++)
            for (int j1 = lo1; j1 < hi1; j1++) {
                size_t b = (size_t)j1 * s1 + (size_t)j2 * s2;
                x[b + gh_lo] = x[b + in_hi];
                x[b + gh_hi] = x[b + in_lo];
            }
        return;
    }

    int cnt = 0;
    double *slo = g.fbuf[0], *shi = g.fbuf[1], *rlo = g.fbuf[2], *rhi = g.fbuf[3];
    for (int j2 = lo2; j2 < hi2; j2++)
        for (int j1 = lo1; j1 < hi1; j1++) {
            size_t b = (size_t)j1 * s1 + (size_t)j2 * s2;
            slo[cnt] = x[b + in_lo];
            shi[cnt] = x[b + in_hi];
            cnt++;
        }
    MPI_Request rq[2];
    tstart(T_COMM3);
    MPI_Irecv(rlo, cnt, MPI_DOUBLE, g.nbr[ax][0], TAG_UP, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rhi, cnt, MPI_DOUBLE, g.nbr[ax][1], TAG_DOWN, MPI_COMM_WORLD, &rq[1]);
    MPI_Send(shi, cnt, MPI_DOUBLE, g.nbr[ax][1], TAG_UP, MPI_COMM_WORLD);
    MPI_Send(slo, cnt, MPI_DOUBLE, g.nbr[ax][0], TAG_DOWN, MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    tstop(T_COMM3);
    cnt = 0;
    for (int j2 = lo2; j2 < hi2; j2++)
        for (int j1 = lo1; j1 < hi1; j1++) {
            size_t b = (size_t)j1 * s1 + (size_t)j2 * s2;
            x[b + gh_lo] = rlo[cnt];
            x[b + gh_hi] = rhi[cnt];
            cnt++;
        }
}

static void comm3(const level_t *L, double *x)
{
    for (int ax = 0; ax < 3; ax++)
        comm3_axis(L, x, ax);
}

/* ------------------------------------------------------------ operators */

/* r = v - A u on the interior (r may be v), then the ghosts of r.
 * A's face coefficient a[1] is zero in the specification, so faces are skipped. */
static void resid(const level_t *L, const double *u, const double *v, double *r)
{
    int m1 = L->m[0];
    double *restrict u1 = g.t1, *restrict u2 = g.t2;
    const double a0 = g.a[0], a2 = g.a[2], a3 = g.a[3];
    for (int i3 = 1; i3 <= L->n[2]; i3++)
        for (int i2 = 1; i2 <= L->n[1]; i2++) {
            const double *c = u + IX(L, 0, i2, i3);
            const double *s = c - m1, *n = c + m1;                   /* i2 -/+ 1 */
            const double *b = c - (size_t)m1 * L->m[1], *t = c + (size_t)m1 * L->m[1]; /* i3 -/+ 1 */
            const double *sb = b - m1, *nb = b + m1, *st = t - m1, *nt = t + m1;
            for (int i1 = 0; i1 < m1; i1++) {
                u1[i1] = s[i1] + n[i1] + b[i1] + t[i1];
                u2[i1] = sb[i1] + nb[i1] + st[i1] + nt[i1];
            }
            /* r may be v (same element read then written) but never u */
            const double *vv = v + IX(L, 0, i2, i3);
            double *rr = r + IX(L, 0, i2, i3);
            for (int i1 = 1; i1 < m1 - 1; i1++)
                rr[i1] = vv[i1] - a0 * c[i1] - a2 * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) -
                         a3 * (u2[i1 - 1] + u2[i1 + 1]);
        }
    comm3(L, r);
}

/* u = u + S r on the interior (smoother), then the ghosts of u.
 * S's corner coefficient c[3] is zero in the specification. */
static void psinv(const level_t *L, const double *r, double *u)
{
    int m1 = L->m[0];
    double *restrict r1 = g.t1, *restrict r2 = g.t2;
    const double c0 = g.cs[0], c1 = g.cs[1], c2 = g.cs[2];
    for (int i3 = 1; i3 <= L->n[2]; i3++)
        for (int i2 = 1; i2 <= L->n[1]; i2++) {
            const double *c = r + IX(L, 0, i2, i3);
            const double *s = c - m1, *n = c + m1;
            const double *b = c - (size_t)m1 * L->m[1], *t = c + (size_t)m1 * L->m[1];
            const double *sb = b - m1, *nb = b + m1, *st = t - m1, *nt = t + m1;
            for (int i1 = 0; i1 < m1; i1++) {
                r1[i1] = s[i1] + n[i1] + b[i1] + t[i1];
                r2[i1] = sb[i1] + nb[i1] + st[i1] + nt[i1];
            }
            double *restrict uu = u + IX(L, 0, i2, i3);
            for (int i1 = 1; i1 < m1 - 1; i1++)
                uu[i1] += c0 * c[i1] + c1 * (c[i1 - 1] + c[i1 + 1] + r1[i1]) +
                          c2 * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
        }
    comm3(L, u);
}

/* s = P r: restriction from fine level F (array r) to coarse level C (array s).
 * Coarse point G sits on fine point 2G+1; the weights are P by the number of
 * non-zero offsets of the 27 fine neighbours. */
static void rprj3(const level_t *F, const double *r, const level_t *C, double *s)
{
    int *fi[3] = {g.tab1, g.tab1 + C->m[0], g.tab1 + C->m[0] + C->m[1]};
    for (int d = 0; d < 3; d++)
        for (int j = 1; j <= C->n[d]; j++)
            fi[d][j] = 2 * (C->o[d] + j - 1) + 2 - F->o[d];   /* fine local index of coarse j */
    int m1 = F->m[0];
    double *restrict x1 = g.t1, *restrict y1 = g.t2;
    for (int j3 = 1; j3 <= C->n[2]; j3++)
        for (int j2 = 1; j2 <= C->n[1]; j2++) {
            const double *c = r + IX(F, 0, fi[1][j2], fi[2][j3]);
            const double *sn = c - m1, *nn = c + m1;
            const double *b = c - (size_t)m1 * F->m[1], *t = c + (size_t)m1 * F->m[1];
            const double *sb = b - m1, *nb = b + m1, *st = t - m1, *nt = t + m1;
            for (int i1 = 0; i1 < m1; i1++) {
                x1[i1] = sn[i1] + nn[i1] + b[i1] + t[i1];      /* yz faces */
                y1[i1] = sb[i1] + nb[i1] + st[i1] + nt[i1];    /* yz corners */
            }
            double *restrict ss = s + IX(C, 0, j2, j3);
            for (int j1 = 1; j1 <= C->n[0]; j1++) {
                int i1 = fi[0][j1];
                ss[j1] = 0.5 * c[i1] + 0.25 * (c[i1 - 1] + c[i1 + 1] + x1[i1]) +
                         0.125 * (x1[i1 - 1] + x1[i1 + 1] + y1[i1]) + 0.0625 * (y1[i1 - 1] + y1[i1 + 1]);
            }
        }
    comm3(C, s);
}

/* For each fine local index i (ghosts included) of one axis: the coarse local
 * index lo[i] of its first coarse neighbour, and two[i] = 1 when the point lies
 * between two coarse points (weight 1/2 each) instead of on one (weight 1). */
static void interp_table(int of, int mf, int oc, int *lo, int *two)
{
    for (int i = 0; i < mf; i++) {
        int gf = of + i - 1;                /* global index; -1 for the low ghost at 0 */
        int G = (gf & 1) ? (gf - 1) / 2 : gf / 2 - 1;   /* gf = 2G+1 or 2G+2 (gf = -1: G = -1) */
        lo[i] = G - oc + 1;
        two[i] = !(gf & 1);
    }
}

/* u = u + Q z: prolongation from coarse level C (array z) to fine level F
 * (array u), over every fine point including the ghosts: the coarse ghosts
 * are up to date, so no exchange is needed afterwards. */
static void interp(const level_t *C, const double *z, const level_t *F, double *u)
{
    int *lo[3], *two[3];
    int off = 0;
    for (int d = 0; d < 3; d++) {
        lo[d] = g.tab1 + off;
        two[d] = g.tab2 + off;
        interp_table(F->o[d], F->m[d], C->o[d], lo[d], two[d]);
        off += F->m[d];
    }
    double *restrict zr = g.t1;
    int mc1 = C->m[0];
    for (int i3 = 0; i3 < F->m[2]; i3++)
        for (int i2 = 0; i2 < F->m[1]; i2++) {
            /* zr: the coarse row at this fine (y, z), interpolated in y and z. */
            const double *z00 = z + IX(C, 0, lo[1][i2], lo[2][i3]);
            size_t dy = (size_t)mc1, dz = (size_t)mc1 * C->m[1];   /* next coarse y, next coarse z */
            switch (two[1][i2] | (two[2][i3] << 1)) {
            case 0:
                for (int j = 0; j < mc1; j++)
                    zr[j] = z00[j];
                break;
            case 1:
                for (int j = 0; j < mc1; j++)
                    zr[j] = 0.5 * (z00[j] + z00[j + dy]);
                break;
            case 2:
                for (int j = 0; j < mc1; j++)
                    zr[j] = 0.5 * (z00[j] + z00[j + dz]);
                break;
            default:
                for (int j = 0; j < mc1; j++)
                    zr[j] = 0.25 * (z00[j] + z00[j + dy] + z00[j + dz] + z00[j + dy + dz]);
                break;
            }
            double *restrict uu = u + IX(F, 0, i2, i3);
            const int *l1 = lo[0], *t1 = two[0];
            for (int i1 = 0; i1 < F->m[0]; i1++)
                uu[i1] += t1[i1] ? 0.5 * (zr[l1[i1]] + zr[l1[i1] + 1]) : zr[l1[i1]];
        }
}

/* Every rank gets the whole of level k's residual (interior from the
 * allgather, ghosts by periodic copy) in g.rfull. */
static void gather_level(int k)
{
    const level_t *L = &g.lv[k];
    size_t blk = (size_t)L->n[0] * L->n[1] * L->n[2], c = 0;
    for (int i3 = 1; i3 <= L->n[2]; i3++)
        for (int i2 = 1; i2 <= L->n[1]; i2++)
            for (int i1 = 1; i1 <= L->n[0]; i1++)
                g.gsend[c++] = g.r[k][IX(L, i1, i2, i3)];
    tstart(T_RCOMM);
    MPI_Allgather(g.gsend, (int)blk, MPI_DOUBLE, g.grecv, (int)blk, MPI_DOUBLE, MPI_COMM_WORLD);
    tstop(T_RCOMM);
    for (int q = 0; q < g.nprocs; q++) {
        int qc[3] = {q % g.P[0], (q / g.P[0]) % g.P[1], q / (g.P[0] * g.P[1])};
        const double *src = g.grecv + (size_t)q * blk;
        c = 0;
        for (int i3 = 1; i3 <= L->n[2]; i3++)
            for (int i2 = 1; i2 <= L->n[1]; i2++)
                for (int i1 = 1; i1 <= L->n[0]; i1++)
                    g.rfull[IX(&g.full, qc[0] * L->n[0] + i1, qc[1] * L->n[1] + i2, qc[2] * L->n[2] + i3)] =
                        src[c++];
    }
    comm3(&g.full, g.rfull);
}

static void zero3(const level_t *L, double *x) { memset(x, 0, L->size * sizeof(double)); }

/* One V-cycle: see the header. u[lt], r[lt] are u and r of the caller. */
static void mg3p(void)
{
    int lt = g.lt;
    for (int k = lt; k >= 2; k--) {
        if (k == g.kgather) {
            gather_level(k);
            rprj3(&g.full, g.rfull, &g.lv[k - 1], g.r[k - 1]);
        } else {
            rprj3(&g.lv[k], g.r[k], &g.lv[k - 1], g.r[k - 1]);
        }
    }
    zero3(&g.lv[1], g.u[1]);
    psinv(&g.lv[1], g.r[1], g.u[1]);
    for (int k = 2; k < lt; k++) {
        zero3(&g.lv[k], g.u[k]);
        interp(&g.lv[k - 1], g.u[k - 1], &g.lv[k], g.u[k]);
        resid(&g.lv[k], g.u[k], g.r[k], g.r[k]);
        psinv(&g.lv[k], g.r[k], g.u[k]);
    }
    interp(&g.lv[lt - 1], g.u[lt - 1], &g.lv[lt], g.u[lt]);
    resid(&g.lv[lt], g.u[lt], g.v, g.r[lt]);
    psinv(&g.lv[lt], g.r[lt], g.u[lt]);
}

/* L2 norm (root mean square over the N^3 points) and max norm of x on the top level. */
static void norm2u3(const double *x, double *rnm2, double *rnmu)
{
    const level_t *L = &g.lv[g.lt];
    double s = 0.0, mx = 0.0;
    for (int i3 = 1; i3 <= L->n[2]; i3++)
        for (int i2 = 1; i2 <= L->n[1]; i2++) {
            const double *row = x + IX(L, 0, i2, i3);
            for (int i1 = 1; i1 <= L->n[0]; i1++) {
                s += row[i1] * row[i1];
                double a = fabs(row[i1]);
                if (a > mx)
                    mx = a;
            }
        }
    double in[1] = {s}, out[1];
    tstart(T_RCOMM);
    MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mx, rnmu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    tstop(T_RCOMM);
    *rnm2 = sqrt(out[0] / ((double)g.N * (double)g.N * (double)g.N));
}

/* ------------------------------------------------------------ zran3 */

typedef struct {
    double val, pos;   /* value and global linear index x + N (y + N z) */
} cand_t;

static int cand_desc(const void *a, const void *b)
{
    double x = ((const cand_t *)a)->val, y = ((const cand_t *)b)->val;
    return (x < y) - (x > y);
}

static int cand_asc(const void *a, const void *b) { return -cand_desc(a, b); }

/* The NPB random field on the top level (value at global linear index L: the
 * generator after L+1 steps from SEED), then v = +1 at the NCHARGE largest and
 * -1 at the NCHARGE smallest values of the whole grid, 0 elsewhere. */
static void zran3(double *z)
{
    const level_t *L = &g.lv[g.lt];
    long N = g.N;
    zero3(L, z);
    /* hi: the largest seen, ascending (hi[0] is the one to beat); lo: the
     * smallest, descending. The values are in (0, 1). */
    cand_t hi[NCHARGE], lo[NCHARGE];
    for (int i = 0; i < NCHARGE; i++) {
        hi[i] = (cand_t){-1.0, -1.0};
        lo[i] = (cand_t){2.0, -1.0};
    }
    for (int i3 = 1; i3 <= L->n[2]; i3++)
        for (int i2 = 1; i2 <= L->n[1]; i2++) {
            long g2 = L->o[1] + i2 - 1, g3 = L->o[2] + i3 - 1;
            uint64_t lin0 = (uint64_t)L->o[0] + (uint64_t)N * ((uint64_t)g2 + (uint64_t)N * (uint64_t)g3);
            double x = npb_skip(SEED, NPB_A, lin0);
            double *row = z + IX(L, 0, i2, i3);
            vranlc(L->n[0], &x, NPB_A, row + 1);
            for (int i1 = 1; i1 <= L->n[0]; i1++) {
                double val = row[i1], pos = (double)(lin0 + (uint64_t)(i1 - 1));
                if (val > hi[0].val) {
                    int j = 0;
                    while (j + 1 < NCHARGE && hi[j + 1].val < val) {
                        hi[j] = hi[j + 1];
                        j++;
                    }
                    hi[j] = (cand_t){val, pos};
                }
                if (val < lo[0].val) {
                    int j = 0;
                    while (j + 1 < NCHARGE && lo[j + 1].val > val) {
                        lo[j] = lo[j + 1];
                        j++;
                    }
                    lo[j] = (cand_t){val, pos};
                }
            }
        }
    /* The global extremes are among the ranks' local ones. */
    int nc = g.nprocs * NCHARGE;
    cand_t *all = xmalloc(sizeof(cand_t) * (size_t)nc * 2);
    MPI_Allgather(hi, 2 * NCHARGE, MPI_DOUBLE, all, 2 * NCHARGE, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgather(lo, 2 * NCHARGE, MPI_DOUBLE, all + nc, 2 * NCHARGE, MPI_DOUBLE, MPI_COMM_WORLD);
    qsort(all, (size_t)nc, sizeof(cand_t), cand_desc);
    qsort(all + nc, (size_t)nc, sizeof(cand_t), cand_asc);

    zero3(L, z);
    for (int pass = 1; pass >= 0; pass--) {     /* the -1s first, then the +1s */
        const cand_t *list = pass ? all + nc : all;
        for (int i = 0; i < NCHARGE && i < nc; i++) {
            if (list[i].pos < 0)
                continue;
            uint64_t p = (uint64_t)list[i].pos;
            long gc[3] = {(long)(p % (uint64_t)N), (long)((p / (uint64_t)N) % (uint64_t)N),
                          (long)(p / ((uint64_t)N * (uint64_t)N))};
            int mine = 1, li[3];
            for (int d = 0; d < 3; d++) {
                li[d] = (int)(gc[d] - L->o[d]) + 1;
                if (li[d] < 1 || li[d] > L->n[d])
                    mine = 0;
            }
            if (mine)
                z[IX(L, li[0], li[1], li[2])] = pass ? -1.0 : 1.0;
        }
    }
    free(all);
    comm3(L, z);
}

/* ------------------------------------------------------------ setup */

static void setup(void)
{
    int logp = ilog2(g.nprocs);
    int dx = logp / 3, dy = (logp - dx) / 2;
    g.P[0] = 1 << dx;
    g.P[1] = 1 << dy;
    g.P[2] = g.nprocs / (g.P[0] * g.P[1]);
    g.c[0] = g.rank % g.P[0];
    g.c[1] = (g.rank / g.P[0]) % g.P[1];
    g.c[2] = g.rank / (g.P[0] * g.P[1]);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            int cc[3] = {g.c[0], g.c[1], g.c[2]};
            cc[d] = (cc[d] + (s ? 1 : -1) + g.P[d]) % g.P[d];
            g.nbr[d][s] = cc[0] + g.P[0] * (cc[1] + g.P[1] * cc[2]);
        }
    int maxp = g.P[2];
    g.kgather = 0;
    size_t maxm = 0;
    for (int k = g.lt; k >= 1; k--) {
        level_t *L = &g.lv[k];
        long n = 1L << k;
        L->rep = n < maxp;
        for (int d = 0; d < 3; d++) {
            L->n[d] = L->rep ? (int)n : (int)(n / g.P[d]);
            L->o[d] = L->rep ? 0 : g.c[d] * L->n[d];
            L->m[d] = L->n[d] + 2;
            if ((size_t)L->m[d] > maxm)
                maxm = (size_t)L->m[d];
        }
        L->size = (size_t)L->m[0] * L->m[1] * L->m[2];
        if (k < g.lt && L->rep && !g.lv[k + 1].rep)
            g.kgather = k + 1;
    }
    if (g.kgather) {
        level_t *F = &g.full;
        long n = 1L << g.kgather;
        for (int d = 0; d < 3; d++) {
            F->n[d] = (int)n;
            F->o[d] = 0;
            F->m[d] = (int)n + 2;
        }
        F->rep = 1;
        F->size = (size_t)F->m[0] * F->m[1] * F->m[2];
        g.rfull = xmalloc(F->size * sizeof(double));
        const level_t *K = &g.lv[g.kgather];
        size_t blk = (size_t)K->n[0] * K->n[1] * K->n[2];
        g.gsend = xmalloc(blk * sizeof(double));
        g.grecv = xmalloc(blk * (size_t)g.nprocs * sizeof(double));
    }
    for (int k = 1; k <= g.lt; k++) {
        g.u[k] = xmalloc(g.lv[k].size * sizeof(double));
        g.r[k] = xmalloc(g.lv[k].size * sizeof(double));
        zero3(&g.lv[k], g.u[k]);
        zero3(&g.lv[k], g.r[k]);
    }
    g.v = xmalloc(g.lv[g.lt].size * sizeof(double));
    for (int i = 0; i < 4; i++)
        g.fbuf[i] = xmalloc(maxm * maxm * sizeof(double));
    g.t1 = xmalloc(maxm * sizeof(double));
    g.t2 = xmalloc(maxm * sizeof(double));
    g.tab1 = xmalloc(3 * maxm * sizeof(int));
    g.tab2 = xmalloc(3 * maxm * sizeof(int));
}

/* ------------------------------------------------------------ main */

/* With NPB_TIMERS: per timer the minimum, maximum and average over ranks. */
static void print_timers(void)
{
    static const char *const names[T_LAST + 2] = {"total", "init", "comm3", "rcomm", "totcomp", "totcomm"};
    double t1[T_LAST + 2], tmin[T_LAST + 2], tmax[T_LAST + 2], tsum[T_LAST + 2];
    for (int i = 0; i < T_LAST; i++)
        t1[i] = timer_read(i);
    t1[T_LAST + 1] = t1[T_COMM3] + t1[T_RCOMM];
    t1[T_LAST] = t1[T_BENCH] - t1[T_LAST + 1];
    MPI_Reduce(t1, tmin, T_LAST + 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(t1, tmax, T_LAST + 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(t1, tsum, T_LAST + 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g.rank != 0)
        return;
    printf(" nprocs = %6d           minimum     maximum     average\n", g.nprocs);
    for (int i = 0; i < T_LAST + 2; i++)
        printf(" timer %2d (%8s) :  %10.4f  %10.4f  %10.4f\n", i, names[i], tmin[i], tmax[i],
               tsum[i] / g.nprocs);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.nprocs);

    char cls = npb_class_arg(argc, argv, g.rank);
    /* Sizes, iterations and verification values: the official NPB 3.x MG
     * results, as in NPB3.4-MPI/MG/mg.f (program mg_mpi, `verify_value`; the
     * same in NPB3.3). Class W is NPB 3's 128^3 x 4 (NPB 2's was 64^3 x 40). */
    double verify_value = 0.0;
    switch (cls) {
    case 'S': g.N = 32;  g.nit = 4;  verify_value = 0.5307707005734e-04; break;
    case 'W': g.N = 128; g.nit = 4;  verify_value = 0.6467329375339e-05; break;
    case 'A': g.N = 256; g.nit = 4;  verify_value = 0.2433365309069e-05; break;
    case 'B': g.N = 256; g.nit = 20; verify_value = 0.1800564401355e-05; break;
    case 'C': g.N = 512; g.nit = 20; verify_value = 0.5706732285740e-06; break;
    default: break;
    }
    if (!cls)
        return npb_invalid(g.rank, NULL);      /* npb_class_arg said why */
    g.lt = ilog2(g.N);
    int logp = ilog2(g.nprocs);
    int maxp = 1 << (logp - logp / 3 - (logp - logp / 3) / 2);
    if (!npb_is_pow2(g.nprocs) || g.N / maxp < 2) {
        char msg[200];
        snprintf(msg, sizeof msg, "mg: invalid number of processes %d (class %c needs a power of two, "
                 "at most %ld along each axis of the process grid)", g.nprocs, cls, g.N / 2);
        return npb_invalid(g.rank, msg);
    }

    g.a[0] = -8.0 / 3.0;
    g.a[1] = 0.0;
    g.a[2] = 1.0 / 6.0;
    g.a[3] = 1.0 / 12.0;
    if (cls == 'S' || cls == 'W' || cls == 'A') {
        g.cs[0] = -3.0 / 8.0;
        g.cs[1] = 1.0 / 32.0;
        g.cs[2] = -1.0 / 64.0;
    } else {
        g.cs[0] = -3.0 / 17.0;
        g.cs[1] = 1.0 / 33.0;
        g.cs[2] = -1.0 / 61.0;
    }
    g.cs[3] = 0.0;

    if (g.rank == 0) {
        printf("\n\n NAS Parallel Benchmarks (mbmpi C version) - MG Benchmark\n\n");
        printf(" Size: %4ldx%4ldx%4ld  (class %c)\n", g.N, g.N, g.N, cls);
        printf(" Iterations: %4d\n", g.nit);
        printf(" Number of processes: %6d\n\n", g.nprocs);
        fflush(stdout);
    }

    const char *tf = getenv("NPB_TIMERS");
    g.timeron = tf && *tf && strcmp(tf, "0") != 0;
    for (int i = 0; i < T_LAST; i++)
        timer_clear(i);
    timer_start(T_INIT);
    setup();
    const level_t *T = &g.lv[g.lt];
    double rnm2, rnmu;

    /* One untimed iteration touches every array (as the reference does). */
    zran3(g.v);
    resid(T, g.u[g.lt], g.v, g.r[g.lt]);
    norm2u3(g.r[g.lt], &rnm2, &rnmu);
    mg3p();
    resid(T, g.u[g.lt], g.v, g.r[g.lt]);
    zero3(T, g.u[g.lt]);
    zran3(g.v);
    timer_stop(T_INIT);
    if (g.rank == 0)
        printf(" Initialization time: %15.3f seconds\n\n", timer_read(T_INIT));
    timer_clear(T_COMM3);
    timer_clear(T_RCOMM);

    MPI_Barrier(MPI_COMM_WORLD);
    timer_start(T_BENCH);
    resid(T, g.u[g.lt], g.v, g.r[g.lt]);
    norm2u3(g.r[g.lt], &rnm2, &rnmu);
    for (int it = 1; it <= g.nit; it++) {
        if (g.rank == 0 && (it == 1 || it == g.nit || it % 5 == 0)) {
            printf("  iter %4d\n", it);
            fflush(stdout);
        }
        mg3p();
        resid(T, g.u[g.lt], g.v, g.r[g.lt]);
    }
    norm2u3(g.r[g.lt], &rnm2, &rnmu);
    timer_stop(T_BENCH);

    double t0 = timer_read(T_BENCH), t = 0.0;
    MPI_Reduce(&t0, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int verified = 0;
    if (g.rank == 0) {
        double err = fabs(rnm2 - verify_value) / verify_value;
        verified = err <= 1.0e-8;      /* false for NaN too */
        printf("\n Benchmark completed\n");
        if (verified) {
            printf(" VERIFICATION SUCCESSFUL\n");
            printf(" L2 Norm is %20.13e\n", rnm2);
            printf(" Error is   %20.13e\n", err);
        } else {
            printf(" VERIFICATION FAILED\n");
            printf(" L2 Norm is             %20.13e\n", rnm2);
            printf(" The correct L2 Norm is %20.13e\n", verify_value);
        }
        double nn = (double)g.N * (double)g.N * (double)g.N;
        double mops = t > 0.0 ? 58.0 * 1.0e-6 * g.nit * nn / t : 0.0;  /* reference's operation count */
        npb_print_results("MG", cls, g.N, g.N, g.N, g.nit, g.nprocs, t, mops, "floating point", verified);
        printf(" Precise time    = %.6f s\n", t); /* for npb/run_npb.sh */
    }
    if (g.timeron)
        print_timers();
    return npb_finish(verified);
}
