/*
 * coll_placement: on a host whose CPUs the ranks outnumber, the binomial
 * trees (Bcast, Scatter, Gather, Reduce) put relays on other CPUs than the
 * root's (mpi/coll/tree_map.c). With v = rank - root on 2 CPUs, every
 * rank that forwards a Bcast or Scatter (v = 2, 4, 6 ...) shares the
 * root's CPU; placed in blocks, the root's largest subtree starts on
 * another CPU.
 *
 * Each rank counts the messages it sent during one forced binomial call
 * (MPIX_Stat_get) and reads the CPU it is pinned to (sched_getcpu: mpirun
 * pins ranks, round robin when they outnumber the CPUs). With fewer CPUs
 * in use than ranks (and P even: with P odd the rotation already spreads
 * the relays), at least one rank other than the root that sent during a
 * Bcast or Scatter (a relay) must run on a CPU other than the root's.
 * Gather and Reduce walk the same trees the other way: their results are
 * checked, from every root, like the others'.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILX(...)                                                                                           \
    do {                                                                                                     \
        fprintf(stderr, "FAIL coll_placement: " __VA_ARGS__);                                                \
        fprintf(stderr, "\n");                                                                               \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

static unsigned long long sent(void)
{
    static const char *names[] = {"eager_msgs", "write_msgs", "rts_msgs"};
    unsigned long long n = 0, v;

    for (int i = 0; i < 3; i++) {
        if (MPIX_Stat_get(names[i], &v) != MPI_SUCCESS)
            FAILX("MPIX_Stat_get(%s) failed", names[i]);
        n += v;
    }
    return n;
}

enum { BCAST, SCATTER, GATHER, REDUCE, NOPS };
static const char *op_names[NOPS] = {"bcast", "scatter", "gather", "reduce"};

/* one forced binomial call from root; returns the messages this rank sent */
static int one_call(int op, int root, int rank, int size)
{
    int buf[64], all[64 * 16], out[64];
    unsigned long long before;

    for (int i = 0; i < 64; i++)
        buf[i] = rank == root || op == GATHER || op == REDUCE ? rank * 1000 + i : -1;
    for (int i = 0; i < 64 * size; i++)
        all[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    before = sent();
    switch (op) {
    case BCAST:
        MPI_Bcast(buf, 64, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case SCATTER:
        MPI_Scatter(all, 64, MPI_INT, out, 64, MPI_INT, root, MPI_COMM_WORLD);
        break;
    case GATHER:
        MPI_Gather(buf, 64, MPI_INT, all, 64, MPI_INT, root, MPI_COMM_WORLD);
        break;
    default:
        MPI_Reduce(buf, out, 64, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        break;
    }
    int n = (int)(sent() - before);
    /* the data */
    for (int i = 0; i < 64; i++) {
        int want, got;
        if (op == BCAST)
            want = root * 1000 + i, got = buf[i];
        else if (op == SCATTER)
            want = rank * 64 + i, got = out[i];
        else if (rank != root)
            break;
        else if (op == GATHER) {
            for (int r = 0; r < size; r++)
                if (all[r * 64 + i] != r * 1000 + i)
                    FAILX("gather from root %d: block %d element %d is %d", root, r, i, all[r * 64 + i]);
            continue;
        } else
            want = size * (size - 1) / 2 * 1000 + size * i, got = out[i];
        if (got != want)
            FAILX("%s from root %d: rank %d element %d is %d, want %d", op_names[op], root, rank, i, got,
                  want);
    }
    return n;
}

int main(int argc, char **argv)
{
    int rank, size, cpu, *cpus, *counts, ncpus = 0, checked = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 16)
        FAILX("at most 16 ranks");
    cpu = sched_getcpu();
    cpus = malloc(sizeof(int) * (size_t)size);
    counts = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        int seen = 0;
        for (int q = 0; q < r; q++)
            seen |= cpus[q] == cpus[r];
        ncpus += !seen;
    }
    for (int op = 0; op < NOPS; op++) {
        MPIX_Coll_force(op_names[op], "binomial");
        for (int root = 0; root < size; root++) {
            int n = one_call(op, root, rank, size), other = 0;
            MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
            if (size < 3 || ncpus >= size || size % 2)
                continue; /* no oversubscription, or no relay to look at */
            if (op >= GATHER)
                continue;
            for (int r = 0; r < size; r++)
                if (r != root && counts[r] > 0 && cpus[r] != cpus[root])
                    other = 1;
            checked++;
            if (!other)
                FAILX("%s (binomial) from root %d at P = %d on %d CPUs: every relay shares the root's CPU %d",
                      op_names[op], root, size, ncpus, cpus[root]);
        }
    }
    if (rank == 0)
        printf("coll_placement: P = %d on %d CPUs, %d calls checked for placement, results checked\n", size,
               ncpus, checked);
    free(cpus);
    free(counts);
    MPI_Finalize();
    return 0;
}
