/*
 * reduce_order: the order in which MPI_Reduce and MPI_Allreduce add
 * doubles (a commutative op). Open MPI 4.1 and MPICH 4.0 both return the
 * sum in the association of recursive doubling over absolute ranks (for P
 * not a power of two, ranks 2j and 2j + 1 of the first 2 (P - pof2) paired
 * first): measured at P = 2..8 on 8 B and 800 KB. A flat reduce, which has
 * every operand at the root, must give that same sum to the last bit, so
 * that a program's floating-point results (hypre's saved residuals) match
 * the other MPIs'; this test runs with the algorithm forced by the manifest
 * and checks every element of the result on every rank, bitwise, for
 * roots 0 and P - 1 and MPI_IN_PLACE. The operands span 16 decades, so
 * that two associations almost never give the same double.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static double val(int r, int e)
{
    unsigned long long h =
        ((unsigned long long)r * 7919u + (unsigned long long)e * 104729u + 12345u) * 6364136223846793005ULL +
        1442695040888963407ULL;
    double m, p = 1;
    int ex;

    h ^= h >> 29;
    m = (double)(h % 1000003) / 1000003.0;
    ex = (int)((h >> 20) % 17) - 8;
    for (int i = 0; i < (ex < 0 ? -ex : ex); i++)
        p *= 10;
    return ex < 0 ? m / p : m * p;
}

/* the recursive-doubling association of x[0..P-1] */
static double rd_sum(const double *x, int p)
{
    double v[64];
    int pof2 = 1, rem, n = 0;

    while (pof2 * 2 <= p)
        pof2 *= 2;
    rem = p - pof2;
    for (int j = 0; j < rem; j++)
        v[n++] = x[2 * j] + x[2 * j + 1];
    for (int i = 2 * rem; i < p; i++)
        v[n++] = x[i];
    for (int m = 1; m < pof2; m *= 2)
        for (int k = 0; k < pof2; k += 2 * m)
            v[k] = v[k] + v[k + m];
    return v[0];
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    double s[N], r[N], ref[N], x[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) {
        fprintf(stderr, "FAIL reduce_order: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int e = 0; e < N; e++) {
        s[e] = val(rank, e);
        for (int q = 0; q < size; q++)
            x[q] = val(q, e);
        ref[e] = rd_sum(x, size);
    }
    for (int round = 0; round < 5; round++) {
        const char *what[] = {"MPI_Allreduce", "MPI_Reduce to 0", "MPI_Reduce to P - 1",
                              "MPI_Reduce IN_PLACE to 0", "MPI_Allreduce IN_PLACE"};
        int root = round == 2 ? size - 1 : 0, check = round == 0 || round == 4 || rank == root;
        memset(r, 0, sizeof r);
        if (round == 0)
            MPI_Allreduce(s, r, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (round == 4) {
            memcpy(r, s, sizeof r);
            MPI_Allreduce(MPI_IN_PLACE, r, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (round == 3) {
            memcpy(r, s, sizeof r);
            MPI_Reduce(rank == root ? MPI_IN_PLACE : (void *)r, r, N, MPI_DOUBLE, MPI_SUM, root,
                       MPI_COMM_WORLD);
        } else
            MPI_Reduce(s, r, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        for (int e = 0; check && e < N; e++)
            if (memcmp(&r[e], &ref[e], sizeof(double)) != 0) {
                fprintf(stderr,
                        "FAIL reduce_order: %s, rank %d element %d: %.17g, recursive doubling's "
                        "association gives %.17g\n",
                        what[round], rank, e, r[e], ref[e]);
                errors++;
                break;
            }
    }
    MPI_Finalize();
    if (rank == 0 && errors == 0)
        printf("reduce_order: ok\n");
    return errors != 0;
}
