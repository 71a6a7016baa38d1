/*
 * npb/cg.c: the NAS CG kernel (conjugate gradient), written from the NPB 2/3
 * specification with the MPI decomposition of the reference NPB-MPI suite.
 *
 * The inverse power method estimates the smallest eigenvalue of a random
 * sparse symmetric positive definite matrix A (na x na): niter times, solve
 * A z = x with 25 unpreconditioned CG iterations, zeta = shift + 1/(x.z),
 * x = z/||z||. A is the NPB one: the sum over i = 1..na of
 * size_i * v_i v_i^T, v_i a random sparse vector with nonzer nonzeros (from
 * the NPB generator, seed 314159265) plus 0.5 at position i, size_i falling
 * geometrically from 1 to rcond = 0.1; then rcond - shift on the diagonal.
 *
 * Decomposition (as in the reference): the processes form an nprows x npcols
 * grid (npcols = nprows or 2*nprows, a power of two in all); process
 * (prow, pcol) generates and holds the block of A for its row range and its
 * column range. q = A.p is a local block product, then a sum across the
 * process row by log2(npcols) pairwise exchanges of halves (recursive
 * halving), then the exchange with the "transpose" process that turns the
 * row-range result into the column-range piece of q. Dot products are summed
 * across the process row by log2(npcols) pairwise exchanges (every process
 * ends with the total); the column ranges of one process row cover all
 * columns, so that is the full dot product.
 *
 *   build/npb/cg [S|W|A|B|C]   (a power-of-two number of processes)
 * Exit status 0 verified, 1 not, 2 bad class or process count.
 */
#include "common/npb.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CGITMAX 25
#define RCOND 0.1
#define CG_EPSILON 1.0e-10
#define MAXL2 32

static int me, nprocs, nprows, npcols;
static long na;
static int nonzer;
static double shift;

/* my block: global 1-based row and column ranges */
static long firstrow, lastrow, firstcol, lastcol;
static long nrows, ncols;
/* exchange schedule (0-based offsets into local vectors) */
static int l2npcols, exch_proc;
static long send_start, send_len, exch_recv_length;
static int reduce_exch_proc[MAXL2];
static long reduce_send_start[MAXL2], reduce_send_len[MAXL2], reduce_recv_start[MAXL2],
    reduce_recv_len[MAXL2];

/* the local matrix block, CSR with local column indices */
static long *rowstr;
static int *colidx;
static double *aval;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "cg: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Block bounds of part `idx` of `parts` over 1..n: the first n % parts parts
 * are one longer. */
static void split(long n, int parts, int idx, long *first, long *size)
{
    long base = n / parts, rem = n % parts;
    if (idx < rem) {
        *size = base + 1;
        *first = idx * (base + 1) + 1;
    } else {
        *size = base;
        *first = rem * (base + 1) + (idx - rem) * base + 1;
    }
}

/* The reference's block layout and exchange partners. */
static void setup_submatrix(void)
{
    int prow = me / npcols, pcol = me % npcols;
    long size;

    if (na % npcols == 0) {
        /* then na is a multiple of nprows too: plain blocks */
        firstcol = pcol * (na / npcols) + 1;
        lastcol = firstcol + na / npcols - 1;
        firstrow = prow * (na / nprows) + 1;
        lastrow = firstrow + na / nprows - 1;
    } else {
        split(na, nprows, prow, &firstrow, &size);
        lastrow = firstrow + size - 1;
        if (npcols == nprows) {
            split(na, npcols, pcol, &firstcol, &size);
            lastcol = firstcol + size - 1;
        } else {
            /* column blocks = row blocks, each cut in two (even, odd pcol) */
            split(na, npcols / 2, pcol / 2, &firstcol, &size);
            if (me % 2 == 0) {
                lastcol = firstcol + (size - 1) / 2;
            } else {
                firstcol = firstcol + (size - 1) / 2 + 1;
                lastcol = firstcol + size / 2 - 1;
            }
        }
    }
    nrows = lastrow - firstrow + 1;
    ncols = lastcol - firstcol + 1;

    /* The part of my (row-summed) block result that my transpose partner
     * needs: all of it on a square grid, else one half. */
    if (npcols == nprows) {
        send_start = 0;
        send_len = nrows;
        exch_proc = (me % nprows) * nprows + me / nprows;
    } else {
        if (me % 2 == 0) {
            send_start = 0;
            send_len = (nrows + 1) / 2;
        } else {
            send_start = (nrows + 1) / 2;
            send_len = nrows / 2;
        }
        exch_proc = 2 * ((me / 2) % nprows * nprows + me / 2 / nprows) + me % 2;
    }

    l2npcols = 0;
    for (int i = npcols / 2; i > 0; i /= 2)
        l2npcols++;
    /* step i (0-based) pairs process columns that differ by npcols/2^(i+1) */
    int div = npcols;
    for (int i = 0; i < l2npcols; i++) {
        int j = (pcol + div / 2) % div + pcol / div * div;
        reduce_exch_proc[i] = prow * npcols + j;
        div /= 2;
    }
    for (int i = l2npcols - 1; i >= 0; i--) {
        if (nprows == npcols) {
            reduce_send_start[i] = send_start;
            reduce_send_len[i] = send_len;
            reduce_recv_len[i] = nrows;
        } else {
            reduce_recv_len[i] = send_len;
            if (i == l2npcols - 1) {
                /* the first (last-indexed) step hands over the other half */
                reduce_send_len[i] = nrows - send_len;
                reduce_send_start[i] = me % 2 == 0 ? send_start + send_len : 0;
            } else {
                reduce_send_len[i] = send_len;
                reduce_send_start[i] = send_start;
            }
        }
        reduce_recv_start[i] = send_start;
    }
    exch_recv_length = ncols;
}

/* ---- the matrix generator (NPB makea / sprnvc / vecset / sparse) ---- */

static double tran, amult = NPB_A;

/* A random sparse vector with nz distinct positions in 1..n: each entry is
 * a value, then a position drawn as int(nn1 * u) + 1 (nn1 = smallest power
 * of two >= n), redrawn when > n or already taken. */
static int sprnvc(long n, int nz, long nn1, double *v, long *iv, char *mark, long *taken)
{
    int nzv = 0, ntaken = 0;
    while (nzv < nz) {
        double val = randlc(&tran, amult);
        double loc = randlc(&tran, amult);
        long i = (long)(nn1 * loc) + 1;
        if (i > n)
            continue;
        if (!mark[i]) {
            mark[i] = 1;
            taken[ntaken++] = i;
            v[nzv] = val;
            iv[nzv] = i;
            nzv++;
        }
    }
    for (int k = 0; k < ntaken; k++)
        mark[taken[k]] = 0;
    return nzv;
}

/* Set position i of the sparse vector to val (appending it if absent). */
static int vecset(double *v, long *iv, int nzv, long i, double val)
{
    int set = 0;
    for (int k = 0; k < nzv; k++)
        if (iv[k] == i) {
            v[k] = val;
            set = 1;
        }
    if (!set) {
        v[nzv] = val;
        iv[nzv] = i;
        nzv++;
    }
    return nzv;
}

/* One pass over the outer products and the diagonal shift, keeping the
 * elements of my block in generation order. count != NULL: count them per
 * local row. Else store them at fill[row]++ (the CSR slots of the row). */
static void gen_elements(long *count, long *fill, char *mark, long *taken, double *v, long *iv)
{
    long n = na, nn1 = 1;
    while (nn1 < n)
        nn1 *= 2;
    double size = 1.0, ratio = pow(RCOND, 1.0 / (double)n);

    tran = 314159265.0;
    (void)randlc(&tran, amult); /* the reference draws one number (zeta) first */
    for (long iouter = 1; iouter <= n; iouter++) {
        int nzv = sprnvc(n, nonzer, nn1, v, iv, mark, taken);
        nzv = vecset(v, iv, nzv, iouter, 0.5);
        for (int a = 0; a < nzv; a++) {
            long jcol = iv[a];
            if (jcol < firstcol || jcol > lastcol)
                continue;
            double scale = size * v[a];
            for (int b = 0; b < nzv; b++) {
                long irow = iv[b];
                if (irow < firstrow || irow > lastrow)
                    continue;
                long r = irow - firstrow;
                if (count) {
                    count[r]++;
                } else {
                    long k = fill[r]++;
                    aval[k] = v[b] * scale;
                    colidx[k] = (int)jcol;
                }
            }
        }
        size *= ratio;
    }
    for (long i = firstrow; i <= lastrow; i++) {
        if (i < firstcol || i > lastcol)
            continue;
        long r = i - firstrow;
        if (count) {
            count[r]++;
        } else {
            long k = fill[r]++;
            aval[k] = RCOND - shift;
            colidx[k] = (int)i;
        }
    }
}

static void makea(void)
{
    long *count = xmalloc(sizeof(long) * (size_t)(nrows + 1));
    char *mark = calloc((size_t)na + 1, 1);
    long *taken = xmalloc(sizeof(long) * (size_t)(nonzer + 2));
    double *v = xmalloc(sizeof(double) * (size_t)(nonzer + 2));
    long *iv = xmalloc(sizeof(long) * (size_t)(nonzer + 2));
    if (!mark)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(count, 0, sizeof(long) * (size_t)(nrows + 1));

    /* generate twice (cheap) rather than keep a triple list: first count
     * per row, then drop each element into its row in generation order */
    gen_elements(count, NULL, mark, taken, v, iv);
    rowstr = xmalloc(sizeof(long) * (size_t)(nrows + 1));
    rowstr[0] = 0;
    for (long r = 0; r < nrows; r++)
        rowstr[r + 1] = rowstr[r] + count[r];
    long nnza = rowstr[nrows];
    aval = xmalloc(sizeof(double) * (size_t)(nnza > 0 ? nnza : 1));
    colidx = xmalloc(sizeof(int) * (size_t)(nnza > 0 ? nnza : 1));
    for (long r = 0; r < nrows; r++)
        count[r] = rowstr[r];
    gen_elements(NULL, count, mark, taken, v, iv);

    /* Sum the duplicates of each row with a dense accumulator; the entries
     * of a row keep the order in which their column first became nonzero,
     * and entries that sum to exactly zero are dropped (as in NPB sparse). */
    double *acc = calloc((size_t)na + 1, sizeof(double));
    long *order = xmalloc(sizeof(long) * (size_t)(na + 1));
    if (!acc)
        MPI_Abort(MPI_COMM_WORLD, 1);
    long out = 0, start = rowstr[0];
    for (long r = 0; r < nrows; r++) {
        long end = rowstr[r + 1], nz = 0;
        for (long k = start; k < end; k++) {
            long c = colidx[k];
            acc[c] += aval[k];
            if (!mark[c] && acc[c] != 0.0) {
                mark[c] = 1;
                order[nz++] = c;
            }
        }
        for (long t = 0; t < nz; t++) {
            long c = order[t];
            double val = acc[c];
            mark[c] = 0;
            acc[c] = 0.0;
            if (val != 0.0) {
                aval[out] = val;
                colidx[out] = (int)(c - firstcol); /* local column */
                out++;
            }
        }
        start = end;
        rowstr[r + 1] = out;
    }
    free(acc);
    free(order);
    free(count);
    free(mark);
    free(taken);
    free(v);
    free(iv);
}

/* ---- communication ---- */

/* Sum n doubles across my process row: log2(npcols) pairwise exchanges. */
static void row_sum(double *vals, int n)
{
    double other[2];
    for (int i = 0; i < l2npcols; i++) {
        MPI_Sendrecv(vals, n, MPI_DOUBLE, reduce_exch_proc[i], 200 + i, other, n, MPI_DOUBLE,
                     reduce_exch_proc[i], 200 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; k++)
            vals[k] += other[k];
    }
}

/* w holds my block's product (my rows); leave the full product's values for
 * my columns in out. w is summed across the row in place; out is used as
 * the receive area on the way. */
static void reduce_transpose(double *w, double *out)
{
    for (int i = l2npcols - 1; i >= 0; i--) {
        MPI_Sendrecv(w + reduce_send_start[i], (int)reduce_send_len[i], MPI_DOUBLE, reduce_exch_proc[i],
                     100 + i, out + reduce_recv_start[i], (int)reduce_recv_len[i], MPI_DOUBLE,
                     reduce_exch_proc[i], 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long j = send_start; j < send_start + reduce_recv_len[i]; j++)
            w[j] += out[j];
    }
    if (l2npcols != 0)
        MPI_Sendrecv(w + send_start, (int)send_len, MPI_DOUBLE, exch_proc, 1, out, (int)exch_recv_length,
                     MPI_DOUBLE, exch_proc, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        memcpy(out, w, sizeof(double) * (size_t)exch_recv_length);
}

static void matvec(const double *in, double *out)
{
    for (long j = 0; j < nrows; j++) {
        double sum = 0.0;
        for (long k = rowstr[j]; k < rowstr[j + 1]; k++)
            sum += aval[k] * in[colidx[k]];
        out[j] = sum;
    }
}

static long vlen; /* length of the local vectors */
static double *x, *z, *p, *q, *r, *w;

/* 25 CG iterations on A z = x from z = 0; returns ||x - A z||. */
static double conj_grad(void)
{
    for (long j = 0; j < vlen; j++) {
        q[j] = 0.0;
        z[j] = 0.0;
        r[j] = x[j];
        p[j] = r[j];
        w[j] = 0.0;
    }
    double rho = 0.0;
    for (long j = 0; j < ncols; j++)
        rho += r[j] * r[j];
    row_sum(&rho, 1);

    for (int it = 0; it < CGITMAX; it++) {
        matvec(p, w);
        reduce_transpose(w, q);
        long clear = nrows > ncols ? nrows : ncols;
        memset(w, 0, sizeof(double) * (size_t)clear);

        double d = 0.0;
        for (long j = 0; j < ncols; j++)
            d += p[j] * q[j];
        row_sum(&d, 1);
        double alpha = rho / d, rho0 = rho;
        for (long j = 0; j < ncols; j++) {
            z[j] += alpha * p[j];
            r[j] -= alpha * q[j];
        }
        rho = 0.0;
        for (long j = 0; j < ncols; j++)
            rho += r[j] * r[j];
        row_sum(&rho, 1);
        double beta = rho / rho0;
        for (long j = 0; j < ncols; j++)
            p[j] = r[j] + beta * p[j];
    }

    /* the explicit residual: r = A z, then ||x - r|| */
    matvec(z, w);
    reduce_transpose(w, r);
    double sum = 0.0;
    for (long j = 0; j < ncols; j++) {
        double d = x[j] - r[j];
        sum += d * d;
    }
    row_sum(&sum, 1);
    return sqrt(sum);
}

/* x.z and 1/||z|| (summed over the process row); x = z/||z||. */
static double normalize(void)
{
    double nt[2] = {0.0, 0.0};
    for (long j = 0; j < ncols; j++) {
        nt[0] += x[j] * z[j];
        nt[1] += z[j] * z[j];
    }
    row_sum(nt, 2);
    double inv = 1.0 / sqrt(nt[1]);
    for (long j = 0; j < ncols; j++)
        x[j] = inv * z[j];
    return nt[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    char cls = npb_class_arg(argc, argv, me);
    int niter;
    double zeta_ref;
    /* Sizes from the NPB 3.x specification; zeta_verify_value from the NPB
     * 3.4 reference, CG/cg.f verify block. */
    switch (cls) {
    case 'S': na = 1400; nonzer = 7; niter = 15; shift = 10.0; zeta_ref = 8.5971775078648; break;
    case 'W': na = 7000; nonzer = 8; niter = 15; shift = 12.0; zeta_ref = 10.362595087124; break;
    case 'A': na = 14000; nonzer = 11; niter = 15; shift = 20.0; zeta_ref = 17.130235054029; break;
    case 'B': na = 75000; nonzer = 13; niter = 75; shift = 60.0; zeta_ref = 22.712745482631; break;
    case 'C': na = 150000; nonzer = 15; niter = 75; shift = 110.0; zeta_ref = 28.973605592845; break;
    default: return npb_invalid(me, NULL); /* npb_class_arg said why */
    }
    if (!npb_is_pow2(nprocs)) {
        char msg[160];
        snprintf(msg, sizeof msg, "cg: invalid number of processes %d: CG needs a power of two", nprocs);
        return npb_invalid(me, msg);
    }
    int log_p = 0;
    while ((1 << log_p) < nprocs)
        log_p++;
    if (log_p / 2 >= MAXL2)
        return npb_invalid(me, "cg: too many processes");
    nprows = 1 << (log_p / 2);
    npcols = 1 << (log_p - log_p / 2);

    if (me == 0) {
        printf("\n\n NAS Parallel Benchmarks (mbmpi C version) -- CG Benchmark\n\n");
        printf(" Size: %10ld  (class %c)\n", na, cls);
        printf(" Iterations: %5d\n", niter);
        printf(" Number of processes: %5d (grid %d x %d)\n", nprocs, nprows, npcols);
        printf(" Number of nonzeroes per row: %8d\n", nonzer);
        printf(" Eigenvalue shift: %9.3f\n", shift);
    }

    setup_submatrix();
    makea();

    vlen = (nrows > ncols ? nrows : ncols) + 2;
    x = xmalloc(sizeof(double) * (size_t)vlen);
    z = xmalloc(sizeof(double) * (size_t)vlen);
    p = xmalloc(sizeof(double) * (size_t)vlen);
    q = xmalloc(sizeof(double) * (size_t)vlen);
    r = xmalloc(sizeof(double) * (size_t)vlen);
    w = xmalloc(sizeof(double) * (size_t)vlen);

    /* one untimed iteration touches every page, then start again */
    for (long j = 0; j < vlen; j++)
        x[j] = 1.0;
    (void)conj_grad();
    (void)normalize();
    for (long j = 0; j < vlen; j++)
        x[j] = 1.0;

    double zeta = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    timer_clear(0);
    timer_start(0);
    for (int it = 1; it <= niter; it++) {
        double rnorm = conj_grad();
        double xz = normalize();
        zeta = shift + 1.0 / xz;
        if (me == 0) {
            if (it == 1)
                printf("\n   iteration           ||r||                 zeta\n");
            printf("    %5d       %20.14e%20.13f\n", it, rnorm, zeta);
        }
    }
    timer_stop(0);
    double t = timer_read(0), tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int verified = 0;
    if (me == 0) {
        double err = fabs(zeta - zeta_ref) / zeta_ref;
        verified = err <= CG_EPSILON; /* false for NaN */
        printf(" Benchmark completed\n");
        if (verified)
            printf(" VERIFICATION SUCCESSFUL\n Zeta is    %20.13e\n Error is   %20.13e\n", zeta, err);
        else
            printf(" VERIFICATION FAILED\n Zeta                %20.13e\n The correct zeta is %20.13e\n", zeta,
                   zeta_ref);
        /* operation count of the reference (CG/cg.f) */
        double nz1 = (double)nonzer * (nonzer + 1);
        double flops = 2.0 * niter * (double)na * (3.0 + nz1 + 25.0 * (5.0 + nz1) + 3.0);
        double mops = tmax > 0.0 ? 1.0e-6 * flops / tmax : 0.0;
        printf(" Precise time    = %.6f s\n", tmax); /* for npb/run_npb.sh */
        npb_print_results("CG", cls, na, 0, 0, niter, nprocs, tmax, mops, "floating point", verified);
    }
    free(x);
    free(z);
    free(p);
    free(q);
    free(r);
    free(w);
    free(rowstr);
    free(colidx);
    free(aval);
    return npb_finish(verified);
}
