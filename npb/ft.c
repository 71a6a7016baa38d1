/*
 * npb/ft.c: NAS Parallel Benchmark FT (3-D FFT PDE solver) over MPI, written
 * from the NPB 2/3 specification (NAS reports RNR-94-007 and NAS-95-020).
 *
 * The problem: the heat equation du/dt = alpha lap(u) on a periodic
 * nx x ny x nz grid, solved spectrally. u(x, 0) comes from the NPB generator
 * (real and imaginary part of point (x, y, z) are numbers 2L+1 and 2L+2 of the
 * stream from seed 314159265, L = x + nx (y + ny z)). Then
 *     U = FFT3(u)                        once
 *     for t = 1 .. niter:
 *         U = U * exp(-4 alpha pi^2 |k|^2)     (so U holds U_0 exp(.. t))
 *         w = IFFT3(U)                   (unnormalised)
 *         checksum_t = sum_{j=1..1024} w(j mod nx, 3j mod ny, 5j mod nz) / (nx ny nz)
 * with alpha = 1e-6 and k the signed frequency (0 .. n/2-1, -n/2 .. -1) per
 * axis. Each checksum is compared with the official value.
 *
 * Decomposition: 1-D slabs over a power-of-two number of processes np that
 * divides ny and nz. Two layouts, x always fastest and whole:
 *     layout 1, z split:  this rank's zl = nz/np planes, stored [y][zz][x]
 *     layout 3, y split:  this rank's yl = ny/np rows,  stored [zs][yy][zz][x]
 *                         (z = zs zl + zz)
 * The forward transform does the x and y FFTs in layout 1, one MPI_Alltoall,
 * and the z FFTs in layout 3; the inverse goes back the same way. With these
 * orders each rank's block for rank p is contiguous in both directions, so
 * the Alltoall reads and writes the arrays directly: no packing or local
 * transpose. FFTs run on batches of B lines at once, gathered into split
 * real/imaginary scratch columns so that the inner loop is unit stride
 * (Stockham autosort, radix 4 with one radix-2 stage for odd log2 n, twiddles
 * precomputed per length); the time evolution is applied while gathering the
 * inverse z FFTs, so it costs no pass of its own.
 *
 * Usage: ft [S|W|A|B|C]. Exit 0 when verification succeeded, 1 when it
 * failed, 2 for an invalid class or process count. With NPB_TIMERS=1 in the
 * environment (the reference's timer.flag) rank 0 also prints where the
 * time went: FFTs (with the evolution), Alltoall, checksums.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npb.h"

#define SEED 314159265.0
#define ALPHA 1.0e-6
#define BATCH 16            /* lines transformed together */
#define MAXITER 20

/* Timers (npb.h numbers them); all but T_TOTAL and T_INIT only with NPB_TIMERS. */
enum { T_TOTAL, T_INIT, T_SETUP, T_FFT, T_ALLTOALL, T_CHECKSUM, T_LAST };

typedef struct {
    double re, im;
} cplx;

/* Twiddles of one FFT length n: w[k] = exp(-2 pi i k / n), k < n. */
typedef struct {
    int n;
    double *wr, *wi;
} fftplan_t;

static struct {
    int rank, nprocs;
    int nx, ny, nz, niter;
    int zl, yl;                 /* local planes (layout 1) and rows (layout 3) */
    size_t ntdivnp;             /* points held here */
    size_t blk;                 /* points sent to each rank by the Alltoall */
    fftplan_t px, py, pz;
    int *offy, *offz;           /* element offsets of y lines (layout 1), z lines (layout 3) */
    double *fx, *fyz;           /* evolution factors: fx[x], fyz[yy][z] */
    double *sr[2], *si[2];      /* scratch columns for the batched FFT */
    cplx *u0, *w1, *w2;
    double sums[MAXITER + 1][2];
    int timeron;                /* NPB_TIMERS set */
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

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "ft: rank %d: out of memory (%zu bytes)\n", g.rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* ------------------------------------------------------------ FFT */

static int ilog2n(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

static void plan_init(fftplan_t *p, int n)
{
    const double pi = 3.141592653589793238;
    p->n = n;
    p->wr = xmalloc(sizeof(double) * (size_t)n);
    p->wi = xmalloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
        p->wr[k] = cos(2.0 * pi * k / n);
        p->wi[k] = -sin(2.0 * pi * k / n);
    }
}

/* One radix-2 Stockham stage on nb lines: current length len, stride s
 * (len * s = n). Element p and p + len/2 of every length-len subsequence
 * (vectors of vl = s nb values: the q < s and b < nb loops fused) become
 * outputs 2p and 2p+1, the second times w^p. */
static void stage2(const fftplan_t *P, size_t len, size_t s, size_t vl, int dir,
                   const double *restrict xr, const double *restrict xi, double *restrict yr,
                   double *restrict yi)
{
    size_t half = len / 2;
    for (size_t p = 0; p < half; p++) {
        double wr = P->wr[p * s], wi = dir < 0 ? P->wi[p * s] : -P->wi[p * s];
        const double *ar = xr + p * vl, *ai = xi + p * vl;
        const double *br = ar + half * vl, *bi = ai + half * vl;
        double *cr = yr + 2 * p * vl, *ci = yi + 2 * p * vl, *dr = cr + vl, *di = ci + vl;
        for (size_t j = 0; j < vl; j++) {
            double tr = ar[j] - br[j], ti = ai[j] - bi[j];
            cr[j] = ar[j] + br[j];
            ci[j] = ai[j] + bi[j];
            dr[j] = tr * wr - ti * wi;
            di[j] = tr * wi + ti * wr;
        }
    }
}

/* One radix-4 stage (two radix-2 stages in one pass over the data): inputs
 * a, b, c, d = elements p + m len/4 (m = 0..3) give outputs 4p + k,
 *   k = 0: (a + c) + (b + d)            k = 2: ((a + c) - (b + d)) w^2p
 *   k = 1: ((a - c) + j (b - d)) w^p    k = 3: ((a - c) - j (b - d)) w^3p
 * with j = exp(dir 2 pi i / 4) = -i forward, +i inverse. */
static void stage4(const fftplan_t *P, size_t len, size_t s, size_t vl, int dir,
                   const double *restrict xr, const double *restrict xi, double *restrict yr,
                   double *restrict yi)
{
    size_t q4 = len / 4;
    double sg = dir < 0 ? 1.0 : -1.0;      /* conjugates the table for the inverse */
    for (size_t p = 0; p < q4; p++) {
        double w1r = P->wr[p * s], w1i = sg * P->wi[p * s];
        double w2r = P->wr[2 * p * s], w2i = sg * P->wi[2 * p * s];
        double w3r = P->wr[3 * p * s], w3i = sg * P->wi[3 * p * s];
        const double *ar = xr + p * vl, *ai = xi + p * vl;
        const double *br = ar + q4 * vl, *bi = ai + q4 * vl;
        const double *cr = br + q4 * vl, *ci = bi + q4 * vl;
        const double *er = cr + q4 * vl, *ei = ci + q4 * vl;      /* d */
        double *y0r = yr + 4 * p * vl, *y0i = yi + 4 * p * vl;
        double *y1r = y0r + vl, *y1i = y0i + vl, *y2r = y1r + vl, *y2i = y1i + vl;
        double *y3r = y2r + vl, *y3i = y2i + vl;
        for (size_t j = 0; j < vl; j++) {
            double t0r = ar[j] + cr[j], t0i = ai[j] + ci[j];
            double t1r = ar[j] - cr[j], t1i = ai[j] - ci[j];
            double t2r = br[j] + er[j], t2i = bi[j] + ei[j];
            double dr = br[j] - er[j], di = bi[j] - ei[j];
            /* t3 = j (b - d): times -i forward (sg = 1), +i inverse */
            double t3r = sg * di, t3i = -sg * dr;
            y0r[j] = t0r + t2r;
            y0i[j] = t0i + t2i;
            double ur = t1r + t3r, ui = t1i + t3i;
            y1r[j] = ur * w1r - ui * w1i;
            y1i[j] = ur * w1i + ui * w1r;
            ur = t0r - t2r;
            ui = t0i - t2i;
            y2r[j] = ur * w2r - ui * w2i;
            y2i[j] = ur * w2i + ui * w2r;
            ur = t1r - t3r;
            ui = t1i - t3i;
            y3r[j] = ur * w3r - ui * w3i;
            y3i[j] = ur * w3i + ui * w3r;
        }
    }
}

/* nb length-n DFTs at once on the scratch columns: element i of line b is at
 * [i * nb + b] of g.sr[0] / g.si[0]. dir = -1 forward (exp(-i ..)), +1
 * inverse (unnormalised). Stockham autosort: radix-4 stages, and one
 * radix-2 stage first when log2 n is odd; the output comes out in natural
 * order. Returns the index (0 or 1) of the scratch holding it. */
static int fft_cols(const fftplan_t *P, int nb, int dir)
{
    size_t n = (size_t)P->n, s = 1, len = n;
    int src = 0;
    if (ilog2n(P->n) & 1) {
        stage2(P, len, s, s * (size_t)nb, dir, g.sr[src], g.si[src], g.sr[1 - src], g.si[1 - src]);
        src = 1 - src;
        len /= 2;
        s *= 2;
    }
    for (; len > 1; len /= 4, s *= 4) {
        stage4(P, len, s, s * (size_t)nb, dir, g.sr[src], g.si[src], g.sr[1 - src], g.si[1 - src]);
        src = 1 - src;
    }
    return src;
}

/* FFT of every length-nx line (contiguous rows) of x: nlines of them. */
static void fft_rows(cplx *x, size_t nlines, int dir)
{
    int n = g.px.n;
    for (size_t l0 = 0; l0 < nlines; l0 += BATCH) {
        int nb = (int)(nlines - l0 < BATCH ? nlines - l0 : BATCH);
        double *sr = g.sr[0], *si = g.si[0];
        for (int b = 0; b < nb; b++) {
            const cplx *row = x + (l0 + (size_t)b) * (size_t)n;
            for (int i = 0; i < n; i++) {
                sr[(size_t)i * nb + b] = row[i].re;
                si[(size_t)i * nb + b] = row[i].im;
            }
        }
        int o = fft_cols(&g.px, nb, dir);
        sr = g.sr[o];
        si = g.si[o];
        for (int b = 0; b < nb; b++) {
            cplx *row = x + (l0 + (size_t)b) * (size_t)n;
            for (int i = 0; i < n; i++) {
                row[i].re = sr[(size_t)i * nb + b];
                row[i].im = si[(size_t)i * nb + b];
            }
        }
    }
}

/* FFT of the lines that run across x: element i of line x0 + b is at
 * src[off[i] + x0 + b], for every x0 in 0 .. nx-1; the result goes to the
 * same place in dst (which may be src). With fi non-null the time evolution
 * is done on the way in: src[..] *= fi[i] * fx[x0 + b] first (src is u0,
 * which keeps the evolved values), saving a separate pass over the data. */
static void fft_across(const fftplan_t *p, cplx *src, cplx *dst, const int *off, int dir,
                       const double *fi, const double *fx)
{
    int n = p->n;
    for (int x0 = 0; x0 < g.nx; x0 += BATCH) {
        int nb = g.nx - x0 < BATCH ? g.nx - x0 : BATCH;
        double *sr = g.sr[0], *si = g.si[0];
        for (int i = 0; i < n; i++) {
            cplx *c = src + off[i] + x0;
            if (fi) {
                for (int b = 0; b < nb; b++) {
                    double t = fi[i] * fx[x0 + b];
                    c[b].re *= t;
                    c[b].im *= t;
                }
            }
            for (int b = 0; b < nb; b++) {
                sr[(size_t)i * nb + b] = c[b].re;
                si[(size_t)i * nb + b] = c[b].im;
            }
        }
        int o = fft_cols(p, nb, dir);
        sr = g.sr[o];
        si = g.si[o];
        for (int i = 0; i < n; i++) {
            cplx *c = dst + off[i] + x0;
            for (int b = 0; b < nb; b++) {
                c[b].re = sr[(size_t)i * nb + b];
                c[b].im = si[(size_t)i * nb + b];
            }
        }
    }
}

/* x and y FFTs of an array in layout 1. */
static void fft_xy(cplx *x, int dir)
{
    fft_rows(x, (size_t)g.ny * g.zl, dir);
    for (int zz = 0; zz < g.zl; zz++)
        fft_across(&g.py, x + (size_t)zz * g.nx, x + (size_t)zz * g.nx, g.offy, dir, NULL, NULL);
}

/* Forward z FFTs of an array in layout 3, in place. */
static void fft_z_forward(cplx *x)
{
    for (int yy = 0; yy < g.yl; yy++) {
        cplx *b = x + (size_t)yy * g.zl * g.nx;
        fft_across(&g.pz, b, b, g.offz, -1, NULL, NULL);
    }
}

/* One time step and the inverse z FFTs (layout 3): u0 *= exp(-4 alpha pi^2
 * |k|^2), w = IFFT_z(u0). */
static void evolve_fft_z_inverse(cplx *u0, cplx *w)
{
    for (int yy = 0; yy < g.yl; yy++) {
        size_t o = (size_t)yy * g.zl * g.nx;
        fft_across(&g.pz, u0 + o, w + o, g.offz, +1, g.fyz + (size_t)yy * g.nz, g.fx);
    }
}

/* Layout 1 <-> layout 3 (the same exchange both ways, see the header).
 * On one process the layouts coincide and the buffers are swapped. */
static void transpose(cplx **src, cplx **dst)
{
    if (g.nprocs == 1) {
        cplx *t = *src;
        *src = *dst;
        *dst = t;
        return;
    }
    tstart(T_ALLTOALL);
    MPI_Alltoall(*src, (int)(2 * g.blk), MPI_DOUBLE, *dst, (int)(2 * g.blk), MPI_DOUBLE, MPI_COMM_WORLD);
    tstop(T_ALLTOALL);
}

/* ------------------------------------------------------------ the benchmark steps */

/* Initial conditions into layout 1: each plane z starts its part of the
 * stream 2 nx ny z steps after the seed. */
static void compute_initial_conditions(cplx *x)
{
    for (int zz = 0; zz < g.zl; zz++) {
        uint64_t z = (uint64_t)g.rank * (uint64_t)g.zl + (uint64_t)zz;
        double s = npb_skip(SEED, NPB_A, 2 * (uint64_t)g.nx * (uint64_t)g.ny * z);
        for (int y = 0; y < g.ny; y++)
            vranlc(2 * g.nx, &s, NPB_A, (double *)(x + ((size_t)y * g.zl + (size_t)zz) * g.nx));
    }
}

/* exp(-4 alpha pi^2 k^2) per axis, k the signed frequency of index i:
 * the 3-D factor is their product (the exponent is a sum of squares). */
static void compute_factors(void)
{
    const double pi = 3.141592653589793238;
    double ap = -4.0 * ALPHA * pi * pi;
    for (int x = 0; x < g.nx; x++) {
        int k = (x + g.nx / 2) % g.nx - g.nx / 2;
        g.fx[x] = exp(ap * (double)k * k);
    }
    for (int yy = 0; yy < g.yl; yy++) {
        int y = g.rank * g.yl + yy;
        int ky = (y + g.ny / 2) % g.ny - g.ny / 2;
        for (int z = 0; z < g.nz; z++) {
            int kz = (z + g.nz / 2) % g.nz - g.nz / 2;
            g.fyz[(size_t)yy * g.nz + z] = exp(ap * (double)ky * ky) * exp(ap * (double)kz * kz);
        }
    }
}

/* Checksum of iteration `it` over the 1024 specified points of x (layout 1). */
static void checksum(int it, const cplx *x)
{
    double c[2] = {0.0, 0.0}, all[2];
    int z0 = g.rank * g.zl;
    for (int j = 1; j <= 1024; j++) {
        int q = j % g.nx, r = (3 * j) % g.ny, s = (5 * j) % g.nz;
        if (s >= z0 && s < z0 + g.zl) {
            const cplx *e = x + ((size_t)r * g.zl + (size_t)(s - z0)) * g.nx + q;
            c[0] += e->re;
            c[1] += e->im;
        }
    }
    double nt = (double)g.nx * g.ny * g.nz;
    c[0] /= nt;
    c[1] /= nt;
    MPI_Reduce(c, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g.rank == 0) {
        printf(" T = %5d     Checksum = %22.12e %22.12e\n", it, all[0], all[1]);
        fflush(stdout);
        g.sums[it][0] = all[0];
        g.sums[it][1] = all[1];
    }
}

/* Official checksums (real, imaginary) per iteration: NPB3.4-MPI/FT/ft.f,
 * subroutine verify, csum_ref (the same values in NPB3.3). */
static const double ref_s[6][2] = {
    {5.546087004964e+02, 4.845363331978e+02}, {5.546385409189e+02, 4.865304269511e+02},
    {5.546148406171e+02, 4.883910722336e+02}, {5.545423607415e+02, 4.901273169046e+02},
    {5.544255039624e+02, 4.917475857993e+02}, {5.542683411902e+02, 4.932597244941e+02},
};
static const double ref_w[6][2] = {
    {5.673612178944e+02, 5.293246849175e+02}, {5.631436885271e+02, 5.282149986629e+02},
    {5.594024089970e+02, 5.270996558037e+02}, {5.560698047020e+02, 5.260027904925e+02},
    {5.530898991250e+02, 5.249400845633e+02}, {5.504159734538e+02, 5.239212247086e+02},
};
static const double ref_a[6][2] = {
    {5.046735008193e+02, 5.114047905510e+02}, {5.059412319734e+02, 5.098809666433e+02},
    {5.069376896287e+02, 5.098144042213e+02}, {5.077892868474e+02, 5.101336130759e+02},
    {5.085233095391e+02, 5.104914655194e+02}, {5.091487099959e+02, 5.107917842803e+02},
};
static const double ref_b[20][2] = {
    {5.177643571579e+02, 5.077803458597e+02}, {5.154521291263e+02, 5.088249431599e+02},
    {5.146409228649e+02, 5.096208912659e+02}, {5.142378756213e+02, 5.101023387619e+02},
    {5.139626667737e+02, 5.103976610617e+02}, {5.137423460082e+02, 5.105948019802e+02},
    {5.135547056878e+02, 5.107404165783e+02}, {5.133910925466e+02, 5.108576573661e+02},
    {5.132470705390e+02, 5.109577278523e+02}, {5.131197729984e+02, 5.110460304483e+02},
    {5.130070319283e+02, 5.111252433800e+02}, {5.129070537032e+02, 5.111968077718e+02},
    {5.128182883502e+02, 5.112616233064e+02}, {5.127393733383e+02, 5.113203605551e+02},
    {5.126691062020e+02, 5.113735928093e+02}, {5.126064276004e+02, 5.114218460548e+02},
    {5.125504076570e+02, 5.114656139760e+02}, {5.125002331720e+02, 5.115053595966e+02},
    {5.124551951846e+02, 5.115415130407e+02}, {5.124146770029e+02, 5.115744692211e+02},
};
static const double ref_c[20][2] = {
    {5.195078707457e+02, 5.149019699238e+02}, {5.155422171134e+02, 5.127578201997e+02},
    {5.144678022222e+02, 5.122251847514e+02}, {5.140150594328e+02, 5.121090289018e+02},
    {5.137550426810e+02, 5.121143685824e+02}, {5.135811056728e+02, 5.121496764568e+02},
    {5.134569343165e+02, 5.121870921893e+02}, {5.133651975661e+02, 5.122193250322e+02},
    {5.132955192805e+02, 5.122454735794e+02}, {5.132410471738e+02, 5.122663649603e+02},
    {5.131971141679e+02, 5.122830879827e+02}, {5.131605205716e+02, 5.122965869718e+02},
    {5.131290734194e+02, 5.123075927445e+02}, {5.131012720314e+02, 5.123166486553e+02},
    {5.130760908195e+02, 5.123241541685e+02}, {5.130528295923e+02, 5.123304037599e+02},
    {5.130310107773e+02, 5.123356167976e+02}, {5.130103090133e+02, 5.123399592211e+02},
    {5.129905029333e+02, 5.123435588985e+02}, {5.129714421109e+02, 5.123465164008e+02},
};

/* Relative error |sum - ref| / |ref| <= 1e-12 for every iteration (rank 0). */
static int verify(char cls)
{
    const double(*ref)[2] = cls == 'S' ? ref_s : cls == 'W' ? ref_w : cls == 'A' ? ref_a
                          : cls == 'B' ? ref_b : ref_c;
    int ok = 1;
    for (int i = 1; i <= g.niter; i++) {
        double dr = g.sums[i][0] - ref[i - 1][0], di = g.sums[i][1] - ref[i - 1][1];
        double err = hypot(dr, di) / hypot(ref[i - 1][0], ref[i - 1][1]);
        if (!(err <= 1.0e-12))     /* NaN fails too */
            ok = 0;
    }
    printf(" Result verification %s\n", ok ? "successful" : "failed");
    return ok;
}

/* Set-up, initial conditions and forward transform into g.u0; the twiddles
 * and factors are recomputed each time because the reference times them. */
static void init_and_forward(void)
{
    tstart(T_SETUP);
    compute_factors();
    compute_initial_conditions(g.w1);
    plan_init(&g.px, g.nx);
    plan_init(&g.py, g.ny);
    plan_init(&g.pz, g.nz);
    tstop(T_SETUP);
    tstart(T_FFT);
    fft_xy(g.w1, -1);
    tstop(T_FFT);
    transpose(&g.w1, &g.u0);
    tstart(T_FFT);
    fft_z_forward(g.u0);
    tstop(T_FFT);
}

static void plans_free(void)
{
    fftplan_t *ps[3] = {&g.px, &g.py, &g.pz};
    for (int i = 0; i < 3; i++) {
        free(ps[i]->wr);
        free(ps[i]->wi);
    }
}

/* With NPB_TIMERS: per timer the minimum, maximum and average over ranks. */
static void print_timers(void)
{
    /* "fft" includes the time evolution, done inside the inverse z FFTs */
    static const char *const names[T_LAST + 2] = {"total", "init", "setup", "fft", "alltoall",
                                                  "checksum", "totcomp", "totcomm"};
    double t1[T_LAST + 2], tmin[T_LAST + 2], tmax[T_LAST + 2], tsum[T_LAST + 2];
    for (int i = 0; i < T_LAST; i++)
        t1[i] = timer_read(i);
    t1[T_LAST + 1] = t1[T_ALLTOALL] + t1[T_CHECKSUM];     /* the checksum is mostly its MPI_Reduce */
    t1[T_LAST] = t1[T_TOTAL] - t1[T_LAST + 1];
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
    /* Sizes and iteration counts: NPB 3 classes (NPB3.4-MPI/FT/ft.f, set_class). */
    switch (cls) {
    case 'S': g.nx = 64;  g.ny = 64;  g.nz = 64;  g.niter = 6;  break;
    case 'W': g.nx = 128; g.ny = 128; g.nz = 32;  g.niter = 6;  break;
    case 'A': g.nx = 256; g.ny = 256; g.nz = 128; g.niter = 6;  break;
    case 'B': g.nx = 512; g.ny = 256; g.nz = 256; g.niter = 20; break;
    case 'C': g.nx = 512; g.ny = 512; g.nz = 512; g.niter = 20; break;
    default: break;
    }
    if (!cls)
        return npb_invalid(g.rank, NULL);      /* npb_class_arg said why */
    int np = g.nprocs;
    if (!npb_is_pow2(np) || np > g.ny || np > g.nz) {
        char msg[200];
        snprintf(msg, sizeof msg, "ft: invalid number of processes %d (class %c needs a power of two, "
                 "at most %d)", np, cls, g.ny < g.nz ? g.ny : g.nz);
        return npb_invalid(g.rank, msg);
    }
    g.zl = g.nz / np;
    g.yl = g.ny / np;
    g.ntdivnp = (size_t)g.nx * g.ny * g.zl;
    g.blk = g.ntdivnp / (size_t)np;

    if (g.rank == 0) {
        printf("\n\n NAS Parallel Benchmarks (mbmpi C version) - FT Benchmark\n\n");
        printf(" Size                : %4dx%4dx%4d  (class %c)\n", g.nx, g.ny, g.nz, cls);
        printf(" Iterations          : %13d\n", g.niter);
        printf(" Number of processes : %13d\n", np);
        printf(" Layout type         :            1D\n");
        fflush(stdout);
    }

    g.u0 = xmalloc(g.ntdivnp * sizeof(cplx));
    g.w1 = xmalloc(g.ntdivnp * sizeof(cplx));
    g.w2 = xmalloc(g.ntdivnp * sizeof(cplx));
    /* First touch here, not in the timed part (the warm-up pass below leaves
     * w2, and on one process one of the swapped buffers, untouched). */
    memset(g.u0, 0, g.ntdivnp * sizeof(cplx));
    memset(g.w1, 0, g.ntdivnp * sizeof(cplx));
    memset(g.w2, 0, g.ntdivnp * sizeof(cplx));
    g.fx = xmalloc((size_t)g.nx * sizeof(double));
    g.fyz = xmalloc((size_t)g.yl * g.nz * sizeof(double));
    int nmax = g.nx > g.ny ? g.nx : g.ny;
    nmax = nmax > g.nz ? nmax : g.nz;
    for (int i = 0; i < 2; i++) {
        g.sr[i] = xmalloc((size_t)nmax * BATCH * sizeof(double));
        g.si[i] = xmalloc((size_t)nmax * BATCH * sizeof(double));
    }
    g.offy = xmalloc((size_t)g.ny * sizeof(int));
    g.offz = xmalloc((size_t)g.nz * sizeof(int));
    for (int y = 0; y < g.ny; y++)
        g.offy[y] = y * g.zl * g.nx;
    for (int z = 0; z < g.nz; z++)
        g.offz[z] = (int)((size_t)(z / g.zl) * g.blk) + (z % g.zl) * g.nx;

    /* One untimed pass touches all data (as the reference does). */
    const char *tf = getenv("NPB_TIMERS");
    g.timeron = tf && *tf && strcmp(tf, "0") != 0;
    for (int i = 0; i < T_LAST; i++)
        timer_clear(i);
    timer_start(T_INIT);
    init_and_forward();
    plans_free();
    timer_stop(T_INIT);
    if (g.rank == 0)
        printf("\n Initialization time = %12.4f\n\n", timer_read(T_INIT));
    for (int i = T_SETUP; i < T_LAST; i++)
        timer_clear(i);

    MPI_Barrier(MPI_COMM_WORLD);
    timer_start(T_TOTAL);
    init_and_forward();
    for (int it = 1; it <= g.niter; it++) {
        tstart(T_FFT);
        evolve_fft_z_inverse(g.u0, g.w1);
        tstop(T_FFT);
        transpose(&g.w1, &g.w2);
        tstart(T_FFT);
        fft_xy(g.w2, +1);
        tstop(T_FFT);
        tstart(T_CHECKSUM);
        checksum(it, g.w2);
        tstop(T_CHECKSUM);
    }
    int verified = g.rank == 0 ? verify(cls) : 0;
    timer_stop(T_TOTAL);
    plans_free();

    double t0 = timer_read(T_TOTAL), t = 0.0;
    MPI_Reduce(&t0, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (g.rank == 0) {
        double nt = (double)g.nx * g.ny * g.nz;
        /* The reference's operation count for FT. */
        double mops = t > 0.0 ? 1.0e-6 * nt * (14.8157 + 7.19641 * log(nt) +
                                              (5.23518 + 7.21113 * log(nt)) * g.niter) / t : 0.0;
        npb_print_results("FT", cls, g.nx, g.ny, g.nz, g.niter, np, t, mops, "floating point", verified);
        printf(" Precise time    = %.6f s\n", t); /* for npb/run_npb.sh */
    }
    if (g.timeron)
        print_timers();
    return npb_finish(verified);
}
