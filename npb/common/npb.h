/*
 * npb/common/npb.h: what the NPB kernels in npb/ share.
 *
 * - The NPB pseudo-random generator (NPB 3 report, "Pseudorandom number
 *   generator"): x_{k+1} = a * x_k mod 2^46 with a = 5^13, returning
 *   x_{k+1} * 2^-46 in (0, 1). Seeds and multipliers are doubles holding
 *   integers below 2^46, as in the reference codes, so the streams (and hence
 *   the verification values) are the official ones.
 * - Timers on MPI_Wtime, and the NPB-style report.
 * - The class letter from the command line: `kernel [S|W|A|B|C]` (default S).
 */
#ifndef NPB_COMMON_NPB_H
#define NPB_COMMON_NPB_H

#include <stdint.h>

#define NPB_A 1220703125.0 /* 5^13 */

/* One step: *x = a * *x mod 2^46; returns the new *x * 2^-46. */
double randlc(double *x, double a);
/* n steps: y[i] = value of step i + 1; *x is left at the last one. */
void vranlc(int n, double *x, double a, double *y);
/* a^n mod 2^46 applied to x without the n steps: the seed that the stream
 * starting at x reaches after n steps (used to give each rank its offset). */
double npb_skip(double x, double a, uint64_t n);

/* Timers 0..NPB_TIMERS-1 on MPI_Wtime. */
#define NPB_TIMERS 64
void timer_clear(int n);
void timer_start(int n);
void timer_stop(int n);
double timer_read(int n);

/* Class letter from argv[1] ("S", "W", "A", "B", "C", case-insensitive);
 * 'S' when absent. Returns 0 and prints a message (rank 0) on a bad one. */
char npb_class_arg(int argc, char **argv, int rank);

/* The NPB report, printed by rank 0:
 *   name, class, size (n1 x n2 x n3, n2 = n3 = 0 for a 1-D size), iterations,
 *   processes, time, Mop/s total and per process, operation type,
 *   "Verification = SUCCESSFUL" or "UNSUCCESSFUL". */
void npb_print_results(const char *name, char cls, long n1, long n2, long n3, int niter, int nprocs,
                       double t, double mops, const char *optype, int verified);

/* The end of every kernel: rank 0's verdict (verified = 1) is broadcast so
 * that every rank exits with the same status, then MPI_Finalize. Returns the
 * exit status: 0 verified, 1 not. */
int npb_finish(int verified);

/* An invalid run (class or process count): rank 0 prints msg to stderr
 * (nothing when msg is NULL), every rank finalizes; returns the exit
 * status 2. */
int npb_invalid(int rank, const char *msg);

/* 1 when n is a power of two (n > 0). */
int npb_is_pow2(long n);

#endif
