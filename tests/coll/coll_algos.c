/*
 * coll_algos: every collective algorithm, forced one after the other with
 * MPIX_Coll_force, against locally computed references.
 *
 * For each communicator (MPI_COMM_WORLD, a dup, a split into even/odd
 * ranks in reversed order, a 2-D Cartesian one with reordering) and each
 * operation of mpi/coll/ (every name MPIX_Coll_algo_name lists, then
 * "auto"): roots 0, P-1 and P/2; counts 0, 1, 7 and a larger one; data
 * movement with MPI_INT, MPI_DOUBLE and a vector type with holes (checked
 * untouched); reductions with SUM PROD MIN MAX LAND LOR LXOR BAND BOR BXOR
 * on int, SUM PROD MIN MAX on double, SUM on a contiguous and on a vector
 * type of ints, MAXLOC/MINLOC on MPI_2INT and a non-commutative user op (2x2
 * integer matrix product mod 1009, which must see rank order); MPI_IN_PLACE
 * wherever MPI defines it. An algorithm that does not apply to a call (a
 * power-of-two-only one at P = 6, a commutative-only one with the user op)
 * falls back to the model: the result must be right either way.
 *
 * Arguments [OP|all] [light], or the environment COLL_ALGOS_OP=OP and
 * COLL_ALGOS_LIGHT=1 (the manifest cannot pass arguments). An operation
 * name restricts the run to it; "light" runs every algorithm on MPI_COMM_WORLD but only one (rotating)
 * algorithm per other communicator, to keep the large-P jobs short on two
 * shared cores.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank;
static int g_errors;
static const char *g_ctx = "";

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            if (g_errors++ < 20) {                                                                           \
                fprintf(stderr, "FAIL coll_algos [%s] rank %d: ", g_ctx, g_rank);                            \
                fprintf(stderr, __VA_ARGS__);                                                                \
                fprintf(stderr, "\n");                                                                       \
            }                                                                                                \
        }                                                                                                    \
    } while (0)
#define MPI_CHECK(call)                                                                                      \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != MPI_SUCCESS) {                                                                            \
            fprintf(stderr, "FAIL coll_algos [%s] rank %d: %s returned %d (line %d)\n", g_ctx, g_rank,       \
                    #call, rc_, __LINE__);                                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

#define HOLE (-7777)

/* ------------------------------------------------------------------ */
/* data-movement types: element k of a buffer, value v                 */

enum { T_INT, T_DOUBLE, T_VEC, T_NTYPES };
static MPI_Datatype t_dt[T_NTYPES];
static const char *t_name[T_NTYPES] = {"int", "double", "vector"};
/* bytes per element (extent) */
static size_t t_ext(int t)
{
    return t == T_INT ? sizeof(int) : t == T_DOUBLE ? sizeof(double) : 3 * sizeof(int);
}

static void *t_alloc(int t, long n)
{
    size_t bytes = t_ext(t) * (size_t)(n > 0 ? n : 1);
    int *b = malloc(bytes);
    for (size_t i = 0; i < bytes / sizeof(int); i++)
        b[i] = HOLE;
    return b;
}

static void t_put(void *buf, int t, long k, int v)
{
    if (t == T_INT)
        ((int *)buf)[k] = v;
    else if (t == T_DOUBLE)
        ((double *)buf)[k] = v + 0.5;
    else {
        ((int *)buf)[3 * k] = v;
        ((int *)buf)[3 * k + 2] = -v;
    }
}

/* 1 when element k holds v (and a vector's hole is untouched) */
static int t_is(const void *buf, int t, long k, int v)
{
    if (t == T_INT)
        return ((const int *)buf)[k] == v;
    if (t == T_DOUBLE)
        return ((const double *)buf)[k] == v + 0.5;
    return ((const int *)buf)[3 * k] == v && ((const int *)buf)[3 * k + 1] == HOLE &&
           ((const int *)buf)[3 * k + 2] == -v;
}

static int untouched(const void *buf, int t, long k)
{
    const int *b = (const int *)((const char *)buf + t_ext(t) * (size_t)k);
    for (size_t i = 0; i < t_ext(t) / sizeof(int); i++)
        if (b[i] != HOLE)
            return 0;
    return 1;
}

/* the value of element i of the block rank `src` sends to `dst` */
static int val(int src, int dst, long i)
{
    return (src * 1009 + dst * 101 + (int)i * 7 + 3) % 100003;
}

static const int counts[] = {0, 1, 7, 250};
#define NCOUNTS 4

static void roots_of(int p, int *roots, int *nroots)
{
    int n = 0;
    roots[n++] = 0;
    if (p > 1)
        roots[n++] = p - 1;
    if (p > 2)
        roots[n++] = p / 2;
    *nroots = n;
}

/* ------------------------------------------------------------------ */
/* bcast, scatter, gather, allgather, alltoall                         */

static void test_bcast(MPI_Comm comm, int rank, int p)
{
    int roots[3], nroots;
    roots_of(p, roots, &nroots);
    for (int t = 0; t < T_NTYPES; t++)
        for (int ci = 0; ci <= NCOUNTS; ci++) {
            /* the extra count is large enough for several segments */
            long n = ci < NCOUNTS ? counts[ci] : (t == T_INT ? 40000 : t == T_VEC ? 12000 : 0);
            if (ci == NCOUNTS && n == 0)
                continue;
            for (int ri = 0; ri < nroots; ri++) {
                int root = roots[ri];
                void *b = t_alloc(t, n);
                if (rank == root)
                    for (long i = 0; i < n; i++)
                        t_put(b, t, i, val(root, 0, i));
                MPI_CHECK(MPI_Bcast(b, (int)n, t_dt[t], root, comm));
                for (long i = 0; i < n; i++)
                    if (!t_is(b, t, i, val(root, 0, i))) {
                        CHECK(0, "bcast %s n=%ld root=%d: element %ld wrong", t_name[t], n, root, i);
                        break;
                    }
                free(b);
            }
        }
}

static void test_scatter(MPI_Comm comm, int rank, int p)
{
    int roots[3], nroots;
    roots_of(p, roots, &nroots);
    for (int t = 0; t < T_NTYPES; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ri = 0; ri < nroots; ri++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    long n = counts[ci];
                    int root = roots[ri];
                    void *s = t_alloc(t, n * p), *r = t_alloc(t, n);
                    int in_place_here = inplace && rank == root;
                    if (rank == root)
                        for (int d = 0; d < p; d++)
                            for (long i = 0; i < n; i++)
                                t_put(s, t, d * n + i, val(root, d, i));
                    MPI_CHECK(MPI_Scatter(s, (int)n, t_dt[t], in_place_here ? MPI_IN_PLACE : r, (int)n,
                                          t_dt[t], root, comm));
                    for (long i = 0; i < n; i++) {
                        int ok = in_place_here ? t_is(s, t, rank * n + i, val(root, rank, i))
                                               : t_is(r, t, i, val(root, rank, i));
                        if (!ok) {
                            CHECK(0, "scatter %s n=%ld root=%d inplace=%d: element %ld wrong", t_name[t], n,
                                  root, inplace, i);
                            break;
                        }
                    }
                    free(s);
                    free(r);
                }
}

static void test_gather(MPI_Comm comm, int rank, int p)
{
    int roots[3], nroots;
    roots_of(p, roots, &nroots);
    for (int t = 0; t < T_NTYPES; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ri = 0; ri < nroots; ri++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    long n = counts[ci];
                    int root = roots[ri];
                    void *s = t_alloc(t, n), *r = t_alloc(t, n * p);
                    int in_place_here = inplace && rank == root;
                    for (long i = 0; i < n; i++)
                        t_put(in_place_here ? r : s, t, (in_place_here ? rank * n : 0) + i, val(rank, 0, i));
                    MPI_CHECK(MPI_Gather(in_place_here ? MPI_IN_PLACE : s, (int)n, t_dt[t], r, (int)n,
                                         t_dt[t], root, comm));
                    if (rank == root)
                        for (int src = 0; src < p; src++)
                            for (long i = 0; i < n; i++)
                                if (!t_is(r, t, src * n + i, val(src, 0, i))) {
                                    CHECK(0, "gather %s n=%ld root=%d inplace=%d: block %d element %ld wrong",
                                          t_name[t], n, root, inplace, src, i);
                                    src = p;
                                    break;
                                }
                    free(s);
                    free(r);
                }
}

static void test_allgather(MPI_Comm comm, int rank, int p)
{
    for (int t = 0; t < T_NTYPES; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                long n = counts[ci];
                void *s = t_alloc(t, n), *r = t_alloc(t, n * p + 1);
                for (long i = 0; i < n; i++)
                    t_put(inplace ? r : s, t, (inplace ? rank * n : 0) + i, val(rank, 0, i));
                MPI_CHECK(
                    MPI_Allgather(inplace ? MPI_IN_PLACE : s, (int)n, t_dt[t], r, (int)n, t_dt[t], comm));
                for (int src = 0; src < p; src++)
                    for (long i = 0; i < n; i++)
                        if (!t_is(r, t, src * n + i, val(src, 0, i))) {
                            CHECK(0, "allgather %s n=%ld inplace=%d: block %d element %ld wrong", t_name[t],
                                  n, inplace, src, i);
                            src = p;
                            break;
                        }
                CHECK(untouched(r, t, n * p), "allgather %s n=%ld: wrote past the end", t_name[t], n);
                free(s);
                free(r);
            }
}

static void test_alltoall(MPI_Comm comm, int rank, int p)
{
    for (int t = 0; t < T_NTYPES; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                long n = counts[ci];
                void *s = t_alloc(t, n * p), *r = t_alloc(t, n * p + 1);
                for (int d = 0; d < p; d++)
                    for (long i = 0; i < n; i++)
                        t_put(inplace ? r : s, t, d * n + i, val(rank, d, i));
                MPI_CHECK(
                    MPI_Alltoall(inplace ? MPI_IN_PLACE : s, (int)n, t_dt[t], r, (int)n, t_dt[t], comm));
                for (int src = 0; src < p; src++)
                    for (long i = 0; i < n; i++)
                        if (!t_is(r, t, src * n + i, val(src, rank, i))) {
                            CHECK(0, "alltoall %s n=%ld inplace=%d: block %d element %ld wrong", t_name[t], n,
                                  inplace, src, i);
                            src = p;
                            break;
                        }
                CHECK(untouched(r, t, n * p), "alltoall %s n=%ld: wrote past the end", t_name[t], n);
                free(s);
                free(r);
            }
}

/* ------------------------------------------------------------------ */
/* reductions                                                          */

/* reduction cases: a type, an op, an element size in ints/doubles */
enum { R_INT, R_DOUBLE, R_CONTIG, R_VEC, R_2INT, R_MAT };
typedef struct rcase {
    int kind;
    MPI_Op op;
    const char *name;
} rcase_t;

static MPI_Datatype r_contig, r_vec, r_mat;
static MPI_Op op_mat;

/* 2x2 matrix product mod 1009: inout = in * inout (in comes from lower ranks) */
static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        const int *a = (const int *)in + 4 * k;
        int *b = (int *)inout + 4 * k;
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1009, (a[0] * b[1] + a[1] * b[3]) % 1009,
                    (a[2] * b[0] + a[3] * b[2]) % 1009, (a[2] * b[1] + a[3] * b[3]) % 1009};
        memcpy(b, c, sizeof(c));
    }
}

static int ints_per(int kind)
{
    return kind == R_INT ? 1 : kind == R_CONTIG ? 2 : kind == R_VEC ? 3 : kind == R_2INT ? 2 : 4;
}

static MPI_Datatype r_type(int kind)
{
    switch (kind) {
    case R_INT:
        return MPI_INT;
    case R_DOUBLE:
        return MPI_DOUBLE;
    case R_CONTIG:
        return r_contig;
    case R_VEC:
        return r_vec;
    case R_2INT:
        return MPI_2INT;
    default:
        return r_mat;
    }
}

/* input int j of element i at rank r (a vector's hole j = 1 is skipped) */
static int rin(const rcase_t *c, int r, long i, int j)
{
    int v = (r * 37 + (int)i * 11 + j * 5) % 97;
    if (c->kind == R_2INT)
        return j == 0 ? (r * 7 + (int)i * 3) % 5 : r;
    if (c->kind == R_MAT)
        return (r * 13 + (int)i * 3 + j * 29 + 1) % 1009;
    if (c->op == MPI_PROD)
        return (r + i) % 3 == 0 ? 2 : (r + i) % 5 == 0 ? -1 : 1;
    if (c->op == MPI_LAND || c->op == MPI_LOR || c->op == MPI_LXOR)
        return (v % 3 == 0) ? 0 : v;
    return v - 40;
}

static double din(const rcase_t *c, int r, long i)
{
    if (c->op == MPI_PROD)
        return (r + i) % 3 == 0 ? 2.0 : (r + i) % 4 == 0 ? 0.5 : 1.0;
    return ((r * 37 + i * 11) % 97 - 40) * 0.25;
}

static int iop(MPI_Op op, int a, int b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_LAND)
        return a && b;
    if (op == MPI_LOR)
        return a || b;
    if (op == MPI_LXOR)
        return !a != !b;
    if (op == MPI_BAND)
        return a & b;
    if (op == MPI_BOR)
        return a | b;
    return a ^ b;
}

static double dop(MPI_Op op, double a, double b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    return a > b ? a : b;
}

static void r_fill(const rcase_t *c, void *buf, int r, long n)
{
    int per = ints_per(c->kind);
    for (long i = 0; i < n; i++) {
        if (c->kind == R_DOUBLE) {
            ((double *)buf)[i] = din(c, r, i);
            continue;
        }
        for (int j = 0; j < per; j++)
            if (!(c->kind == R_VEC && j == 1))
                ((int *)buf)[i * per + j] = rin(c, r, i, j);
    }
}

/* the reference of element i over ranks 0..p-1, in rank order */
static void r_ref(const rcase_t *c, int p, long i, int *iref, double *dref)
{
    int per = ints_per(c->kind);
    if (c->kind == R_DOUBLE) {
        *dref = din(c, 0, i);
        for (int r = 1; r < p; r++)
            *dref = dop(c->op, *dref, din(c, r, i));
        return;
    }
    for (int j = 0; j < per; j++)
        iref[j] = c->kind == R_VEC && j == 1 ? HOLE : rin(c, 0, i, j);
    for (int r = 1; r < p; r++) {
        if (c->kind == R_MAT) {
            int b[4], a[4];
            memcpy(a, iref, sizeof(a));
            for (int j = 0; j < 4; j++)
                b[j] = rin(c, r, i, j);
            iref[0] = (a[0] * b[0] + a[1] * b[2]) % 1009;
            iref[1] = (a[0] * b[1] + a[1] * b[3]) % 1009;
            iref[2] = (a[2] * b[0] + a[3] * b[2]) % 1009;
            iref[3] = (a[2] * b[1] + a[3] * b[3]) % 1009;
        } else if (c->kind == R_2INT) {
            int v = rin(c, r, i, 0);
            int better = c->op == MPI_MAXLOC ? v > iref[0] : v < iref[0];
            if (better) {
                iref[0] = v;
                iref[1] = r;
            }
        } else {
            for (int j = 0; j < per; j++)
                if (!(c->kind == R_VEC && j == 1))
                    iref[j] = iop(c->op, iref[j], rin(c, r, i, j));
        }
    }
}

static int r_check(const rcase_t *c, const void *buf, int p, long n)
{
    int per = ints_per(c->kind);
    for (long i = 0; i < n; i++) {
        int iref[4];
        double dref;
        r_ref(c, p, i, iref, &dref);
        if (c->kind == R_DOUBLE) {
            if (((const double *)buf)[i] != dref)
                return (int)i;
            continue;
        }
        for (int j = 0; j < per; j++)
            if (((const int *)buf)[i * per + j] != iref[j])
                return (int)i;
    }
    return -1;
}

static void *r_alloc(const rcase_t *c, long n)
{
    size_t bytes =
        (size_t)(n > 0 ? n : 1) * (c->kind == R_DOUBLE ? sizeof(double) : sizeof(int) * ints_per(c->kind));
    int *b = malloc(bytes);
    for (size_t i = 0; i < bytes / sizeof(int); i++)
        b[i] = HOLE;
    return b;
}

static rcase_t rcases[32];
static int nrcases;

static void make_rcases(void)
{
    MPI_Op iops[] = {MPI_SUM, MPI_PROD, MPI_MIN,  MPI_MAX, MPI_LAND,
                     MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    const char *inames[] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};
    for (int i = 0; i < 10; i++)
        rcases[nrcases++] = (rcase_t){R_INT, iops[i], inames[i]};
    for (int i = 0; i < 4; i++)
        rcases[nrcases++] = (rcase_t){R_DOUBLE, iops[i], inames[i]};
    rcases[nrcases++] = (rcase_t){R_CONTIG, MPI_SUM, "SUM(contig)"};
    rcases[nrcases++] = (rcase_t){R_VEC, MPI_MAX, "MAX(vector)"};
    rcases[nrcases++] = (rcase_t){R_2INT, MPI_MAXLOC, "MAXLOC"};
    rcases[nrcases++] = (rcase_t){R_2INT, MPI_MINLOC, "MINLOC"};
    rcases[nrcases++] = (rcase_t){R_MAT, op_mat, "user-noncommutative"};
}

static const int rcounts[] = {0, 1, 7, 300};

static void test_reduce(MPI_Comm comm, int rank, int p)
{
    int roots[3], nroots;
    roots_of(p, roots, &nroots);
    for (int k = 0; k < nrcases; k++)
        for (int ci = 0; ci < 4; ci++)
            for (int ri = 0; ri < nroots; ri++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    const rcase_t *c = &rcases[k];
                    long n = rcounts[ci];
                    int root = roots[ri];
                    int iph = inplace && rank == root;
                    void *s = r_alloc(c, n), *r = r_alloc(c, n);
                    int bad;
                    /* the big count only with a few ops, to keep the run short */
                    if (n > 7 && k % 3 != 0 && c->kind != R_MAT) {
                        free(s);
                        free(r);
                        continue;
                    }
                    r_fill(c, iph ? r : s, rank, n);
                    MPI_CHECK(
                        MPI_Reduce(iph ? MPI_IN_PLACE : s, r, (int)n, r_type(c->kind), c->op, root, comm));
                    if (rank == root && (bad = r_check(c, r, p, n)) >= 0)
                        CHECK(0, "reduce %s n=%ld root=%d inplace=%d: element %d wrong", c->name, n, root,
                              inplace, bad);
                    free(s);
                    free(r);
                }
}

static void test_allreduce(MPI_Comm comm, int rank, int p)
{
    for (int k = 0; k < nrcases; k++)
        for (int ci = 0; ci < 4; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const rcase_t *c = &rcases[k];
                long n = rcounts[ci];
                void *s = r_alloc(c, n), *r = r_alloc(c, n);
                int bad;
                r_fill(c, inplace ? r : s, rank, n);
                MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, (int)n, r_type(c->kind), c->op, comm));
                if ((bad = r_check(c, r, p, n)) >= 0)
                    CHECK(0, "allreduce %s n=%ld inplace=%d: element %d wrong", c->name, n, inplace, bad);
                free(s);
                free(r);
            }
}

/* reduce_scatter_block, reduce_scatter, scan, exscan (one algorithm each):
 * a few ops, IN_PLACE */
static void test_scans(MPI_Comm comm, int rank, int p, const char *which)
{
    int pick[] = {0, 10, 14, 18}; /* SUM int, SUM double, SUM contiguous, user non-commutative */
    for (int kk = 0; kk < 4; kk++)
        for (int ci = 0; ci < 4; ci++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const rcase_t *c = &rcases[pick[kk]];
                long n = rcounts[ci] > 7 ? 20 : rcounts[ci];
                int per = c->kind == R_DOUBLE ? (int)sizeof(double) : (int)sizeof(int) * ints_per(c->kind);
                MPI_Datatype dt = r_type(c->kind);
                int bad;
                if (!strcmp(which, "scan") || !strcmp(which, "exscan")) {
                    int ex = !strcmp(which, "exscan");
                    void *s = r_alloc(c, n), *r = r_alloc(c, n);
                    r_fill(c, inplace ? r : s, rank, n);
                    if (ex)
                        MPI_CHECK(MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, (int)n, dt, c->op, comm));
                    else
                        MPI_CHECK(MPI_Scan(inplace ? MPI_IN_PLACE : s, r, (int)n, dt, c->op, comm));
                    if ((!ex || rank > 0) && (bad = r_check(c, r, ex ? rank : rank + 1, n)) >= 0)
                        CHECK(0, "%s %s n=%ld inplace=%d: element %d wrong", which, c->name, n, inplace, bad);
                    free(s);
                    free(r);
                } else {
                    /* reduce a vector of n*p elements; rank i gets block i */
                    int blk = !strcmp(which, "reduce_scatter_block");
                    int *rc = malloc(sizeof(int) * (size_t)p);
                    long total = 0, off = 0;
                    for (int i = 0; i < p; i++) {
                        rc[i] = blk ? (int)n : (int)((n + i) % 5);
                        total += rc[i];
                        if (i < rank)
                            off += rc[i];
                    }
                    char *s = r_alloc(c, total), *r = r_alloc(c, total), *full = r_alloc(c, total);
                    r_fill(c, inplace ? r : s, rank, total);
                    if (blk)
                        MPI_CHECK(
                            MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, r, (int)n, dt, c->op, comm));
                    else
                        MPI_CHECK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, r, rc, dt, c->op, comm));
                    /* compare the own block against the full reference */
                    for (long i = 0; i < rc[rank]; i++) {
                        int iref[4];
                        double dref;
                        r_ref(c, p, off + i, iref, &dref);
                        if (c->kind == R_DOUBLE ? ((double *)r)[i] != dref
                                                : memcmp(r + i * per, iref, (size_t)per) != 0) {
                            CHECK(0, "%s %s n=%ld inplace=%d: element %ld wrong", which, c->name, n, inplace,
                                  i);
                            break;
                        }
                    }
                    free(full);
                    free(s);
                    free(r);
                    free(rc);
                }
            }
}

/* ------------------------------------------------------------------ */

typedef void (*test_fn)(MPI_Comm comm, int rank, int p);

static void run_op(const char *op, MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (!strcmp(op, "barrier"))
        MPI_CHECK(MPI_Barrier(comm));
    else if (!strcmp(op, "bcast"))
        test_bcast(comm, rank, p);
    else if (!strcmp(op, "scatter"))
        test_scatter(comm, rank, p);
    else if (!strcmp(op, "gather"))
        test_gather(comm, rank, p);
    else if (!strcmp(op, "allgather"))
        test_allgather(comm, rank, p);
    else if (!strcmp(op, "alltoall"))
        test_alltoall(comm, rank, p);
    else if (!strcmp(op, "reduce"))
        test_reduce(comm, rank, p);
    else if (!strcmp(op, "allreduce"))
        test_allreduce(comm, rank, p);
    else
        test_scans(comm, rank, p, op);
}

int main(int argc, char **argv)
{
    static const char *ops[] = {"barrier",   "bcast",    "scatter",        "gather",
                                "allgather", "alltoall", "reduce",         "allreduce",
                                "scan",      "exscan",   "reduce_scatter", "reduce_scatter_block"};
    const char *only = argc > 1 ? argv[1] : getenv("COLL_ALGOS_OP");
    const char *lt = getenv("COLL_ALGOS_LIGHT");
    int light = (argc > 2 && !strcmp(argv[2], "light")) || (lt != NULL && !strcmp(lt, "1"));
    MPI_Comm comms[4];
    const char *cnames[4] = {"world", "dup", "split", "cart"};
    int size, dims[2] = {0, 0}, periods[2] = {1, 0}, total;
    char ctx[160];

    if (only != NULL && !strcmp(only, "all"))
        only = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &t_dt[T_VEC]));
    MPI_CHECK(MPI_Type_commit(&t_dt[T_VEC]));
    t_dt[T_INT] = MPI_INT;
    t_dt[T_DOUBLE] = MPI_DOUBLE;
    r_vec = t_dt[T_VEC];
    MPI_CHECK(MPI_Type_contiguous(2, MPI_INT, &r_contig));
    MPI_CHECK(MPI_Type_commit(&r_contig));
    MPI_CHECK(MPI_Type_contiguous(4, MPI_INT, &r_mat));
    MPI_CHECK(MPI_Type_commit(&r_mat));
    MPI_CHECK(MPI_Op_create(mat_fn, 0, &op_mat));
    make_rcases();

    comms[0] = MPI_COMM_WORLD;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &comms[2]));
    MPI_CHECK(MPI_Dims_create(size, 2, dims));
    MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &comms[3]));

    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
        int nalgo;
        if (only != NULL && strcmp(only, ops[o]) != 0)
            continue;
        MPI_CHECK(MPIX_Coll_algo_count(ops[o], &nalgo));
        for (int a = 0; a <= nalgo; a++) {
            char name[64] = "auto";
            if (a < nalgo)
                MPI_CHECK(MPIX_Coll_algo_name(ops[o], a, name, sizeof(name)));
            MPI_CHECK(MPIX_Coll_force(ops[o], name));
            for (int c = 0; c < 4; c++) {
                if (light && c > 0 && (a + c) % (nalgo + 1) != 0)
                    continue;
                snprintf(ctx, sizeof(ctx), "%s/%s on %s P=%d", ops[o], name, cnames[c], size);
                g_ctx = ctx;
                run_op(ops[o], comms[c]);
            }
        }
        MPI_CHECK(MPIX_Coll_force(ops[o], "auto"));
    }
    g_ctx = "end";

    /* the extension API's errors */
    {
        int n;
        double t;
        char nm[8];
        CHECK(MPIX_Coll_algo_count("nosuchop", &n) == MPI_ERR_ARG, "algo_count of an unknown op");
        CHECK(MPIX_Coll_force("bcast", "nosuchalgo") == MPI_ERR_ARG, "force of an unknown algorithm");
        CHECK(MPIX_Coll_predict("allgather", "recursive_doubling", 6, 8, &t, NULL, 0) == MPI_ERR_ARG,
              "predict of a power-of-two-only algorithm at P=6");
        CHECK(MPIX_Coll_predict("bcast", NULL, 8, 8, &t, nm, sizeof(nm)) == MPI_SUCCESS && t > 0,
              "predict of the model's choice");
    }

    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    MPI_Comm_free(&comms[3]);
    MPI_Op_free(&op_mat);
    MPI_Type_free(&r_contig);
    MPI_Type_free(&r_mat);
    MPI_Type_free(&t_dt[T_VEC]);
    MPI_Allreduce(&g_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("coll_algos %s P=%d: %s (%d errors)\n", only ? only : "all", size, total ? "FAILED" : "ok",
               total);
    MPI_Finalize();
    return total ? 1 : 0;
}
