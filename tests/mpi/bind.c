/*
 * tests/mpi/bind.c: MBMPI_BIND (mpirun --bind-to). Each rank compares its
 * CPU set after MPI_Init with mpirun's (its parent's, the set it started
 * with): bound, it holds exactly one CPU of that set, ranks of one host
 * hold different CPUs while they are no more than the CPUs, and no CPU
 * holds more than ceil(ranks / CPUs) of them when they are more; unbound,
 * it holds the whole set. "auto" binds when the host runs 2 or more ranks.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "bind: rank %d: ", rank);                                                        \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
            errors++;                                                                                        \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    cpu_set_t parent, own;
    int rank, size, errors = 0, total = 0, cpu = -1, bound;
    const char *mode = getenv("MBMPI_BIND");
    const char *ls = getenv("MBMPI_LOCAL_SIZE");
    int local = ls ? atoi(ls) : 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!mode || !*mode)
        mode = "auto";
    if (sched_getaffinity(getppid(), sizeof(parent), &parent) != 0 ||
        sched_getaffinity(0, sizeof(own), &own) != 0) {
        perror("sched_getaffinity");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bound = !strcmp(mode, "core") || (!strcmp(mode, "auto") && local >= 2);
    if (bound) {
        CHECK(CPU_COUNT(&own) == 1, "bound (%s, %d local ranks, %d CPUs) but holds %d CPUs", mode, local,
              CPU_COUNT(&parent), CPU_COUNT(&own));
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &own)) {
                cpu = c;
                break;
            }
        CHECK(cpu >= 0 && CPU_ISSET(cpu, &parent), "bound to CPU %d, not one mpirun may use", cpu);
    } else {
        CHECK(CPU_EQUAL(&own, &parent), "not bound (%s, %d local ranks, %d CPUs) but holds %d CPUs of %d",
              mode, local, CPU_COUNT(&parent), CPU_COUNT(&own), CPU_COUNT(&parent));
    }
    /* different CPUs while the ranks fit (every rank of this test is local) */
    int *cpus = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
    if (bound && size <= CPU_COUNT(&parent))
        for (int r = 0; r < size; r++)
            CHECK(r == rank || cpus[r] != cpu, "rank %d is bound to my CPU %d too", r, cpu);
    /* more ranks than CPUs: spread evenly, at most ceil(size / CPUs) each */
    if (bound && size > CPU_COUNT(&parent)) {
        int most = (size + CPU_COUNT(&parent) - 1) / CPU_COUNT(&parent), here = 0;
        for (int r = 0; r < size; r++)
            here += cpus[r] == cpu;
        CHECK(here <= most, "%d ranks share my CPU %d (%d ranks on %d CPUs: at most %d)", here, cpu, size,
              CPU_COUNT(&parent), most);
    }
    free(cpus);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bind (%s, %d ranks): %s\n", mode, size, total ? "FAILED" : "ok");
    MPI_Finalize();
    return total ? 1 : 0;
}
