/* npb/common/npb.c: random numbers, timers and the report (see npb.h). */
#include "npb.h"

#include <ctype.h>
#include <mpi.h>
#include <stdio.h>

#define MASK46 ((UINT64_C(1) << 46) - 1)
#define R46 (1.0 / 70368744177664.0) /* 2^-46 */

/* The reference codes split the product into 23-bit halves to stay exact
 * in doubles; a 128-bit integer product gives the same residues. */
static inline uint64_t mulmod46(uint64_t a, uint64_t x)
{
    __extension__ unsigned __int128 p = (unsigned __int128)a * x;
    return (uint64_t)p & MASK46;
}

double randlc(double *x, double a)
{
    uint64_t v = mulmod46((uint64_t)a, (uint64_t)*x);
    *x = (double)v;
    return (double)v * R46;
}

void vranlc(int n, double *x, double a, double *y)
{
    uint64_t ai = (uint64_t)a, v = (uint64_t)*x;
    for (int i = 0; i < n; i++) {
        v = mulmod46(ai, v);
        y[i] = (double)v * R46;
    }
    *x = (double)v;
}

double npb_skip(double x, double a, uint64_t n)
{
    uint64_t r = (uint64_t)x, b = (uint64_t)a;
    while (n) {
        if (n & 1)
            r = mulmod46(b, r);
        b = mulmod46(b, b);
        n >>= 1;
    }
    return (double)r;
}

static double t_start[NPB_TIMERS], t_elapsed[NPB_TIMERS];

void timer_clear(int n) { t_elapsed[n] = 0.0; }
void timer_start(int n) { t_start[n] = MPI_Wtime(); }
void timer_stop(int n) { t_elapsed[n] += MPI_Wtime() - t_start[n]; }
double timer_read(int n) { return t_elapsed[n]; }

char npb_class_arg(int argc, char **argv, int rank)
{
    char c = 'S';
    if (argc > 1) {
        c = (char)toupper((unsigned char)argv[1][0]);
        if (argv[1][0] == '\0' || argv[1][1] != '\0' ||
            (c != 'S' && c != 'W' && c != 'A' && c != 'B' && c != 'C')) {
            if (rank == 0)
                fprintf(stderr, "%s: unknown class '%s' (use S, W, A, B or C)\n", argv[0], argv[1]);
            return 0;
        }
    }
    return c;
}

void npb_print_results(const char *name, char cls, long n1, long n2, long n3, int niter, int nprocs,
                       double t, double mops, const char *optype, int verified)
{
    printf("\n\n %s Benchmark Completed.\n", name);
    printf(" Class           =             %12c\n", cls);
    if (n2 == 0 && n3 == 0)
        printf(" Size            =             %12ld\n", n1);
    else
        printf(" Size            =           %4ldx%4ldx%4ld\n", n1, n2, n3);
    printf(" Iterations      =             %12d\n", niter);
    printf(" Time in seconds =             %12.2f\n", t);
    printf(" Total processes =             %12d\n", nprocs);
    printf(" Mop/s total     =             %12.2f\n", mops);
    printf(" Mop/s/process   =             %12.2f\n", nprocs > 0 ? mops / nprocs : 0.0);
    printf(" Operation type  = %24s\n", optype);
    printf(" Verification    =             %12s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    printf(" Version         =             %12s\n", "mbmpi-npb");
    fflush(stdout);
}

int npb_finish(int verified)
{
    MPI_Bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return verified ? 0 : 1;
}

int npb_invalid(int rank, const char *msg)
{
    if (rank == 0 && msg) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
    MPI_Finalize();
    return 2;
}

int npb_is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }
