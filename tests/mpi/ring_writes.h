/*
 * tests/mpi/ring_writes.h: the ending shared by the mbshm tests that check
 * which writes went through the rings (MPIX_Stat_get "shm_ring_writes").
 *
 * ring_writes_verdict(test, what, w0, ring, failed): sums this rank's ring
 * writes since w0 over all ranks; when `ring` is 0 none may have gone
 * through a ring, when 1 (MBMPI_SHM_CMA=0) at least one must have; then
 * prints "<test>: ok (N ring writes)" at rank 0 when nothing failed
 * anywhere. Returns the job's verdict: 1 when any rank failed, else 0.
 *
 * ring_writes_skip(test, ring): 1 (after printing SKIP at rank 0) when some
 * rank reaches no peer with single copies (ptrace rules, or not mbshm) and
 * `ring` is 0, so there is nothing to check; else 0. Collective.
 *
 * pin_to_one_cpu(): before MPI_Init, binds the process to the first CPU it
 * may run on, so that any P >= 2 has more ranks than CPUs (needs
 * _GNU_SOURCE before the first include).
 */
#ifndef TESTS_MPI_RING_WRITES_H
#define TESTS_MPI_RING_WRITES_H

#include <mpi.h>
#include <sched.h>
#include <stdio.h>

#ifdef CPU_SETSIZE
static inline void pin_to_one_cpu(void)
{
    cpu_set_t set, one;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            sched_setaffinity(0, sizeof(one), &one);
            return;
        }
}
#endif

static inline int ring_writes_skip(const char *test, int ring)
{
    unsigned long long peers = 0;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPIX_Stat_get("shm_cma_peers", &peers);
    MPI_Allreduce(MPI_IN_PLACE, &peers, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (peers != 0 || ring)
        return 0;
    if (rank == 0)
        printf("SKIP %s: no single copies between the ranks here\n", test);
    return 1;
}

static inline int ring_writes_verdict(const char *test, const char *what, unsigned long long w0, int ring,
                                      int failed)
{
    unsigned long long w1 = 0, sum = 0;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPIX_Stat_get("shm_ring_writes", &w1);
    w1 -= w0;
    MPI_Allreduce(&w1, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && !ring && sum != 0) {
        fprintf(stderr, "FAIL %s: %llu %s writes went through the rings\n", test, sum, what);
        failed = 1;
    }
    if (rank == 0 && ring && sum == 0) {
        fprintf(stderr, "FAIL %s: no %s write went through the rings with MBMPI_SHM_CMA=0\n", test, what);
        failed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("%s: ok (%llu ring writes)\n", test, sum);
    return failed;
}

#endif
