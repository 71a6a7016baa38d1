/*
 * coll_scratch: collectives that need temporary vectors keep them between
 * calls (mpi/coll/coll.c, the scratch cache). Without the cache every
 * Reduce / Allreduce of a long vector got fresh memory from malloc (mmap,
 * or a heap that free had just trimmed) and page-faulted all of it in
 * again: Reduce of 1 MiB by Rabenseifner's algorithm at P = 2 took about
 * 200 page faults per call and rank.
 *
 * For each reduction algorithm (forced with MPIX_Coll_force), after two
 * warm-up calls, ten more calls on the same 1 MiB vectors must cause fewer
 * minor page faults (getrusage) than one vector has pages. The results are
 * checked too. Exit status 0 when every algorithm passes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { COUNT = 1 << 18 }; /* 1 MiB of floats */

static long minor_faults(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* one Reduce or Allreduce; returns the number of wrong elements */
static int run(int allreduce, float *in, float *out, int rank, int size)
{
    int bad = 0;

    if (allreduce)
        MPI_Allreduce(in, out, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Reduce(in, out, COUNT, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (allreduce || rank == 0)
        for (int i = 0; i < COUNT; i += 97)
            if (out[i] != (float)(size * (i % 5)) + (float)(size * (size - 1) / 2))
                bad++;
    return bad;
}

int main(int argc, char **argv)
{
    const char *ops[] = {"reduce", "allreduce"};
    int rank, size, failed = 0;
    float *in, *out;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in = malloc(sizeof(float) * COUNT);
    out = malloc(sizeof(float) * COUNT);
    for (int i = 0; i < COUNT; i++) {
        in[i] = (float)(i % 5 + rank);
        out[i] = 0.0f;
    }
    for (int o = 0; o < 2; o++) {
        int n = 0;
        MPIX_Coll_algo_count(ops[o], &n);
        for (int a = 0; a < n; a++) {
            char name[64];
            long before, faults;
            int bad = 0;
            MPIX_Coll_algo_name(ops[o], a, name, sizeof name);
            MPIX_Coll_force(ops[o], name);
            bad += run(o, in, out, rank, size);
            bad += run(o, in, out, rank, size);
            before = minor_faults();
            for (int k = 0; k < 10; k++)
                bad += run(o, in, out, rank, size);
            faults = minor_faults() - before;
            if (bad || faults >= (long)(COUNT * sizeof(float) / 4096)) {
                fprintf(stderr,
                        "FAIL coll_scratch: %s %s at rank %d: %d wrong, %ld page faults in 10 calls\n",
                        ops[o], name, rank, bad, faults);
                failed = 1;
            }
        }
        MPIX_Coll_force(ops[o], "auto");
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("coll_scratch: ok\n");
    free(in);
    free(out);
    MPI_Finalize();
    return failed;
}
