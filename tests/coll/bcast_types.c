/*
 * bcast_types: MPI_Bcast and MPI_Ibcast where the ranks describe the same
 * data with different (count, datatype) pairs, which MPI allows as long as
 * the type signatures match (MPI 4.0 6.4). For every Bcast algorithm
 * forced in turn and the automatic choice, from three roots, n ints:
 *   one:    the root sends 1 element of MPI_Type_contiguous(n, MPI_INT),
 *           the others receive n MPI_INT;
 *   many:   the root sends n MPI_INT, the others receive 1 element of
 *           MPI_Type_vector(n, 1, 2, MPI_INT) (every other int; the gaps
 *           must stay untouched);
 *   mixed:  the root sends the vector, even ranks receive n MPI_INT, odd
 *           ranks n / 3 elements of a 3-int contiguous type and the rest
 *           (n % 3) as MPI_INT through a struct type.
 * The algorithms that split the message (segments, a block per rank) used
 * to split each rank's own count: a root with count 1 sent one segment
 * while the others waited for several (MPI_ERR_TRUNCATE), and the choice
 * itself depended on the count (scatter_allgather needs count >= P), so
 * ranks could pick different algorithms.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank;

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        fprintf(stderr, "FAIL bcast_types: ");                                                               \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fprintf(stderr, " (rank %d)\n", wrank);                                                              \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

enum { ONE, MANY, MIXED, NCASES };
static const char *const case_name[NCASES] = {"one", "many", "mixed"};

static int value(int i, int root, int n)
{
    return i * 7 + root * 1000003 + n;
}

/* Broadcast n ints from root, the types chosen by `kase`, and check. */
static void one_bcast(int kase, int n, int root, int nonblocking, const char *algo)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(sizeof(int) * (size_t)(2 * n + 2));
    MPI_Datatype t = MPI_DATATYPE_NULL, t3 = MPI_DATATYPE_NULL;
    int count = n, strided = 0;
    MPI_Datatype dt = MPI_INT;

    if (!buf)
        FAIL("out of memory");
    for (int i = 0; i < 2 * n + 2; i++)
        buf[i] = -1;
    if (kase == ONE && rank == root) {
        MPI_Type_contiguous(n, MPI_INT, &t);
        dt = t;
        count = 1;
    } else if ((kase == MANY && rank != root) || (kase == MIXED && rank == root)) {
        MPI_Type_vector(n, 1, 2, MPI_INT, &t);
        dt = t;
        count = 1;
        strided = 1;
    } else if (kase == MIXED && rank % 2 == 1) {
        /* n / 3 triples, then n % 3 ints: one struct element */
        int bl[2] = {n / 3, n % 3};
        MPI_Aint disp[2] = {0, (MPI_Aint)(n / 3) * 3 * (MPI_Aint)sizeof(int)};
        MPI_Datatype types[2];
        MPI_Type_contiguous(3, MPI_INT, &t3);
        types[0] = t3;
        types[1] = MPI_INT;
        MPI_Type_create_struct(2, bl, disp, types, &t);
        dt = t;
        count = 1;
    }
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_commit(&t);
    if (rank == root)
        for (int i = 0; i < n; i++)
            buf[strided ? 2 * i : i] = value(i, root, n);

    int rc;
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Ibcast(buf, count, dt, root, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Bcast(buf, count, dt, root, MPI_COMM_WORLD);
    }
    if (rc != MPI_SUCCESS)
        FAIL("%s%s, case %s, n %d, root %d: returned %d", nonblocking ? "MPI_Ibcast" : "MPI_Bcast", algo,
             case_name[kase], n, root, rc);
    for (int i = 0; i < n; i++) {
        int got = buf[strided ? 2 * i : i];
        if (got != value(i, root, n))
            FAIL("bcast %s, case %s, n %d, root %d: int %d is %d, want %d", algo, case_name[kase], n, root, i,
                 got, value(i, root, n));
        if (strided && buf[2 * i + 1] != -1)
            FAIL("bcast %s, case %s, n %d, root %d: gap after int %d written", algo, case_name[kase], n, root,
                 i);
    }
    for (int i = strided ? 2 * n : n; i < 2 * n + 2; i++)
        if (buf[i] != -1)
            FAIL("bcast %s, case %s, n %d, root %d: written past the data at %d", algo, case_name[kase], n,
                 root, i);
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t);
    if (t3 != MPI_DATATYPE_NULL)
        MPI_Type_free(&t3);
    free(buf);
}

int main(int argc, char **argv)
{
    int size, nalgo;
    char name[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPIX_Coll_algo_count("bcast", &nalgo) != MPI_SUCCESS || nalgo < 1)
        FAIL("MPIX_Coll_algo_count(bcast) failed");
    const int sizes[] = {1, 2, 7, 1000, 65537, 262147};
    const int roots[] = {0, size - 1, size / 2};
    for (int a = 0; a <= nalgo; a++) {
        char label[80];
        if (a < nalgo) {
            MPIX_Coll_algo_name("bcast", a, name, sizeof(name));
            if (MPIX_Coll_force("bcast", name) != MPI_SUCCESS)
                FAIL("MPIX_Coll_force(bcast, %s) failed", name);
            snprintf(label, sizeof(label), " (%s)", name);
        } else {
            MPIX_Coll_force("bcast", "auto");
            snprintf(label, sizeof(label), " (auto)");
        }
        for (int k = 0; k < NCASES; k++)
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
                for (int r = 0; r < 3; r++) {
                    /* the largest size from one root only: time */
                    if (sizes[s] > 100000 && r > 0)
                        continue;
                    one_bcast(k, sizes[s], roots[r], 0, label);
                }
    }
    MPIX_Coll_force("bcast", "auto");
    for (int k = 0; k < NCASES; k++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            one_bcast(k, sizes[s], size - 1, 1, " (auto)");
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("bcast_types: ok (%d algorithms + auto, P = %d)\n", nalgo, size);
    MPI_Finalize();
    return 0;
}
