/*
 * coll_all: every collective beyond Barrier/Bcast/Reduce/Allreduce, checked
 * against locally computed references: Scatter, Scatterv, Gather, Gatherv,
 * Allgather, Allgatherv, Alltoall, Alltoallv, Reduce_scatter_block,
 * Reduce_scatter, Scan, Exscan, plus the local Reduce_local and
 * Op_commutative, and a few argument errors (MPI_ERRORS_RETURN).
 *
 * Runs on MPI_COMM_WORLD and on a split communicator (thirds, reversed
 * order); every root (the edge roots 0 and P-1 with every case, the others
 * with a rotating subset); counts 0, 1, 7, 1000; data movement with
 * MPI_INT, MPI_DOUBLE, a contiguous pair of ints and a vector type with
 * holes, the send and receive types differing where MPI allows (same type
 * signature: e.g. 2n MPI_INT received as n vectors); reductions with SUM
 * and MAX on int and double, MINLOC on MPI_DOUBLE_INT, a commutative user
 * op on the vector type and a non-commutative user op (2x2 integer matrix
 * product, which must see rank order); the
 * MPI_IN_PLACE form of every operation that has one (with the ignored
 * arguments passed as garbage).
 *
 * Up to 4 ranks MPI_COMM_WORLD runs the whole matrix; larger jobs and the
 * split communicator run a subset that rotates with the size (see
 * full_matrix), to stay within about a second on two shared cores.
 * COLL_ALL_TIMING=1 prints the time of each group of calls.
 *
 * Checking: every receive buffer starts filled with a byte pattern; the
 * expected image (pattern + expected values at the positions of the type
 * map) is built locally and compared byte for byte, so writes into holes,
 * gaps between blocks or past the end are caught too. Values are small
 * integers, exact in any evaluation order (double included).
 */
#define TEST_NAME "coll_all"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#define PATTERN 0xA5
#define GUARD 2 /* extra elements after every buffer, must stay untouched */

static const int counts[] = {0, 1, 7, 1000};
enum { NCOUNTS = 4 };

static int salt;     /* changes every call, so stale data never looks right */
static long nchecks; /* buffers compared */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL, "out of memory (%zu bytes)", n);
    return p;
}

/* ------------------------------------------------------------------ */
/* data-movement layouts                                               */

enum { SC_INT, SC_DOUBLE };

typedef struct layout {
    const char *name;
    MPI_Datatype dt;
    int scalar; /* SC_INT or SC_DOUBLE */
    int per;    /* values per element */
    int ext;    /* scalars per element extent */
    int off[2]; /* scalar offset of each value within an element */
} layout_t;

enum { L_INT, L_DBL, L_PAIR, L_VEC, NLAYOUTS };
static layout_t lay[NLAYOUTS];

/* (send layout, receive layout) pairs with the same type signature */
static const int combos[][2] = {
    {L_INT, L_INT}, {L_DBL, L_DBL}, {L_VEC, L_PAIR}, {L_INT, L_VEC}, {L_PAIR, L_INT}};
enum { NCOMBOS = 5 };

static void layouts_init(void)
{
    lay[L_INT] = (layout_t){"int", MPI_INT, SC_INT, 1, 1, {0, 0}};
    lay[L_DBL] = (layout_t){"double", MPI_DOUBLE, SC_DOUBLE, 1, 1, {0, 0}};
    lay[L_PAIR] = (layout_t){"pair", MPI_DATATYPE_NULL, SC_INT, 2, 2, {0, 1}};
    lay[L_VEC] = (layout_t){"vector", MPI_DATATYPE_NULL, SC_INT, 2, 3, {0, 2}};
    MPI_CHECK(MPI_Type_contiguous(2, MPI_INT, &lay[L_PAIR].dt));
    MPI_CHECK(MPI_Type_commit(&lay[L_PAIR].dt));
    MPI_CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &lay[L_VEC].dt));
    MPI_CHECK(MPI_Type_commit(&lay[L_VEC].dt));
}

static void layouts_free(void)
{
    MPI_CHECK(MPI_Type_free(&lay[L_PAIR].dt));
    MPI_CHECK(MPI_Type_free(&lay[L_VEC].dt));
}

static size_t scalar_size(const layout_t *l)
{
    return l->scalar == SC_INT ? sizeof(int) : sizeof(double);
}

/* bytes of `elems` elements plus the guard */
static size_t lay_bytes(const layout_t *l, long elems)
{
    return (size_t)(elems + GUARD) * (size_t)l->ext * scalar_size(l);
}

static void *lay_alloc(const layout_t *l, long elems)
{
    void *p = xmalloc(lay_bytes(l, elems));
    memset(p, PATTERN, lay_bytes(l, elems));
    return p;
}

/* value k of the block starting at element `base` */
static void lay_put(const layout_t *l, void *buf, long base, long k, int v)
{
    long idx = (base + k / l->per) * l->ext + l->off[k % l->per];
    if (l->scalar == SC_INT)
        ((int *)buf)[idx] = v;
    else
        ((double *)buf)[idx] = (double)v;
}

/* the value sent from src to dst at position k (exact as int and double) */
static int val(int src, int dst, long k)
{
    return (((salt & 31) * 256 + src * 16 + dst) * 4096) + (int)k;
}

static void put_block(const layout_t *l, void *buf, long base, long nvals, int src, int dst)
{
    for (long k = 0; k < nvals; k++)
        lay_put(l, buf, base, k, val(src, dst, k));
}

/* byte-for-byte comparison of a buffer against its expected image */
static void compare(const layout_t *l, const void *got, const void *exp, long elems, const char *what,
                    const char *cname, int root, int count, int combo, int inplace)
{
    size_t n = lay_bytes(l, elems);
    size_t ss = scalar_size(l);
    nchecks++;
    if (memcmp(got, exp, n) == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        if (((const unsigned char *)got)[i] != ((const unsigned char *)exp)[i]) {
            size_t s = i / ss;
            long elem = (long)(s / (size_t)l->ext);
            double g = l->scalar == SC_INT ? ((const int *)got)[s] : ((const double *)got)[s];
            double e = l->scalar == SC_INT ? ((const int *)exp)[s] : ((const double *)exp)[s];
            FAIL("%s: %s root %d count %d types %s->%s%s: %s scalar %zu (element %ld of %ld) is %.17g, "
                 "expected "
                 "%.17g",
                 cname, what, root, count, lay[combos[combo][0]].name, lay[combos[combo][1]].name,
                 inplace ? " IN_PLACE" : "", l == NULL ? "?" : l->name, s, elem, elems, g, e);
        }
    }
}

/* Which cases run. Up to 4 ranks: every (count, type combination, in
 * place) case. Beyond (each call costs more, and the whole test must stay
 * quick on two oversubscribed cores): every count once in place and once
 * not, the type combination rotating with count, mode and communicator
 * size, so the manifest's sizes together cover every combination. The
 * split communicator (which repeats the lot) always takes the subset. */
static int g_light; /* the split communicator: rotating subset only */

static int full_matrix(int size)
{
    return size <= 4 && !g_light;
}

static int movement_case(int size, int ci, int co, int ip)
{
    return full_matrix(size) || co == (2 * ci + ip + size) % NCOMBOS;
}

/* rooted operations: the edge roots 0 and P-1 as above, the other roots one
 * rotating case each without the large count */
static int rooted_case(int root, int size, int ci, int co, int ip)
{
    if (root == 0 || root == size - 1)
        return movement_case(size, ci, co, ip);
    return counts[ci] < 1000 && co == (root + ci + size) % NCOMBOS && ip == (root + ci) % 2;
}

/* reductions: every (type/op, count) in both modes up to 4 ranks, beyond
 * in one mode, alternating */
static int reduction_case(int size, int rc, int ci, int ip)
{
    return full_matrix(size) || (rc + ci + ip + size) % 2 == 0;
}

/* counts of the v variants, in units (a unit is one value of a per-1
 * layout, two of a per-2 one): uneven, with empty blocks */
static int vcount(int c, int b)
{
    if (c == 0 || b % 3 == 1)
        return 0;
    return c + b;
}

/* ------------------------------------------------------------------ */
/* Scatter / Gather                                                    */

static void scatter_gather_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    for (int root = 0; root < size; root++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int co = 0; co < NCOMBOS; co++)
                for (int ip = 0; ip < 2; ip++) {
                    if (!rooted_case(root, size, ci, co, ip))
                        continue;
                    const layout_t *S = &lay[combos[co][0]], *R = &lay[combos[co][1]];
                    int per = S->per > R->per ? S->per : R->per;
                    int c = counts[ci];
                    long nv = (long)c * per;
                    int sc = (int)(nv / S->per), rcnt = (int)(nv / R->per);
                    int inplace_here = ip && rank == root;

                    /* ---- Scatter ---- */
                    salt++;
                    void *sbuf = NULL, *sexp = NULL;
                    if (rank == root) {
                        sbuf = lay_alloc(S, (long)size * sc);
                        for (int b = 0; b < size; b++)
                            put_block(S, sbuf, (long)b * sc, nv, root, b);
                        sexp = xmalloc(lay_bytes(S, (long)size * sc));
                        memcpy(sexp, sbuf, lay_bytes(S, (long)size * sc));
                    }
                    void *rbuf = lay_alloc(R, rcnt), *rexp = lay_alloc(R, rcnt);
                    if (!inplace_here)
                        put_block(R, rexp, 0, nv, root, rank);
                    if (inplace_here)
                        MPI_CHECK(
                            MPI_Scatter(sbuf, sc, S->dt, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, comm));
                    else
                        MPI_CHECK(MPI_Scatter(rank == root ? sbuf : NULL, rank == root ? sc : -5,
                                              rank == root ? S->dt : MPI_DATATYPE_NULL, rbuf, rcnt, R->dt,
                                              root, comm));
                    compare(R, rbuf, rexp, rcnt, "Scatter recvbuf", cname, root, c, co, ip);
                    if (rank == root)
                        compare(S, sbuf, sexp, (long)size * sc, "Scatter sendbuf (changed)", cname, root, c,
                                co, ip);
                    free(sbuf);
                    free(sexp);
                    free(rbuf);
                    free(rexp);

                    /* ---- Gather ---- */
                    salt++;
                    sbuf = lay_alloc(S, sc);
                    put_block(S, sbuf, 0, nv, rank, root);
                    rbuf = rexp = NULL;
                    if (rank == root) {
                        rbuf = lay_alloc(R, (long)size * rcnt);
                        rexp = lay_alloc(R, (long)size * rcnt);
                        for (int b = 0; b < size; b++)
                            put_block(R, rexp, (long)b * rcnt, nv, b, root);
                        if (inplace_here)
                            put_block(R, rbuf, (long)root * rcnt, nv, root, root);
                    }
                    if (inplace_here)
                        MPI_CHECK(
                            MPI_Gather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rbuf, rcnt, R->dt, root, comm));
                    else
                        MPI_CHECK(MPI_Gather(sbuf, sc, S->dt, rank == root ? rbuf : NULL,
                                             rank == root ? rcnt : -5,
                                             rank == root ? R->dt : MPI_DATATYPE_NULL, root, comm));
                    if (rank == root)
                        compare(R, rbuf, rexp, (long)size * rcnt, "Gather recvbuf", cname, root, c, co, ip);
                    free(sbuf);
                    free(rbuf);
                    free(rexp);
                }
}

/* Scatterv / Gatherv: block b has vcount(c, b) units, placed in reverse
 * rank order with a one-element gap after each block. */
static void scatterv_gatherv_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    int *cnts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
    for (int root = 0; root < size; root++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int co = 0; co < NCOMBOS; co++)
                for (int ip = 0; ip < 2; ip++) {
                    if (!rooted_case(root, size, ci, co, ip))
                        continue;
                    const layout_t *S = &lay[combos[co][0]], *R = &lay[combos[co][1]];
                    int per = S->per > R->per ? S->per : R->per;
                    int c = counts[ci];
                    int inplace_here = ip && rank == root;
                    /* the root's side: counts and displacements in its layout */
                    const layout_t *V = NULL; /* layout of the root's v side */
                    long total = 0;

                    /* ---- Scatterv ---- */
                    salt++;
                    V = S;
                    total = 0;
                    for (int b = size - 1; b >= 0; b--) {
                        cnts[b] = (int)((long)vcount(c, b) * per / V->per);
                        displs[b] = (int)total;
                        total += cnts[b] + 1;
                    }
                    void *sbuf = NULL, *sexp = NULL;
                    if (rank == root) {
                        sbuf = lay_alloc(S, total);
                        for (int b = 0; b < size; b++)
                            put_block(S, sbuf, displs[b], (long)vcount(c, b) * per, root, b);
                        sexp = xmalloc(lay_bytes(S, total));
                        memcpy(sexp, sbuf, lay_bytes(S, total));
                    }
                    long nv = (long)vcount(c, rank) * per;
                    int rcnt = (int)(nv / R->per);
                    void *rbuf = lay_alloc(R, rcnt), *rexp = lay_alloc(R, rcnt);
                    if (!inplace_here)
                        put_block(R, rexp, 0, nv, root, rank);
                    if (inplace_here)
                        MPI_CHECK(MPI_Scatterv(sbuf, cnts, displs, S->dt, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL,
                                               root, comm));
                    else
                        MPI_CHECK(MPI_Scatterv(rank == root ? sbuf : NULL, rank == root ? cnts : NULL,
                                               rank == root ? displs : NULL,
                                               rank == root ? S->dt : MPI_DATATYPE_NULL, rbuf, rcnt, R->dt,
                                               root, comm));
                    compare(R, rbuf, rexp, rcnt, "Scatterv recvbuf", cname, root, c, co, ip);
                    if (rank == root)
                        compare(S, sbuf, sexp, total, "Scatterv sendbuf (changed)", cname, root, c, co, ip);
                    free(sbuf);
                    free(sexp);
                    free(rbuf);
                    free(rexp);

                    /* ---- Gatherv ---- */
                    salt++;
                    V = R;
                    total = 0;
                    for (int b = size - 1; b >= 0; b--) {
                        cnts[b] = (int)((long)vcount(c, b) * per / V->per);
                        displs[b] = (int)total;
                        total += cnts[b] + 1;
                    }
                    int sc = (int)(nv / S->per);
                    sbuf = lay_alloc(S, sc);
                    put_block(S, sbuf, 0, nv, rank, root);
                    rbuf = rexp = NULL;
                    if (rank == root) {
                        rbuf = lay_alloc(R, total);
                        rexp = lay_alloc(R, total);
                        for (int b = 0; b < size; b++)
                            put_block(R, rexp, displs[b], (long)vcount(c, b) * per, b, root);
                        if (inplace_here)
                            put_block(R, rbuf, displs[root], nv, root, root);
                    }
                    if (inplace_here)
                        MPI_CHECK(MPI_Gatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rbuf, cnts, displs, R->dt,
                                              root, comm));
                    else
                        MPI_CHECK(MPI_Gatherv(sbuf, sc, S->dt, rank == root ? rbuf : NULL,
                                              rank == root ? cnts : NULL, rank == root ? displs : NULL,
                                              rank == root ? R->dt : MPI_DATATYPE_NULL, root, comm));
                    if (rank == root)
                        compare(R, rbuf, rexp, total, "Gatherv recvbuf", cname, root, c, co, ip);
                    free(sbuf);
                    free(rbuf);
                    free(rexp);
                }
    free(cnts);
    free(displs);
}

/* ------------------------------------------------------------------ */
/* Allgather(v) / Alltoall(v)                                          */

static void allgather_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    int *cnts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int co = 0; co < NCOMBOS; co++)
            for (int ip = 0; ip < 2; ip++) {
                if (!movement_case(size, ci, co, ip))
                    continue;
                const layout_t *S = &lay[combos[co][0]], *R = &lay[combos[co][1]];
                int per = S->per > R->per ? S->per : R->per;
                int c = counts[ci];
                long nv = (long)c * per;
                int sc = (int)(nv / S->per), rcnt = (int)(nv / R->per);

                /* ---- Allgather ---- */
                salt++;
                void *sbuf = lay_alloc(S, sc);
                put_block(S, sbuf, 0, nv, rank, 15);
                void *rbuf = lay_alloc(R, (long)size * rcnt), *rexp = lay_alloc(R, (long)size * rcnt);
                for (int b = 0; b < size; b++)
                    put_block(R, rexp, (long)b * rcnt, nv, b, 15);
                if (ip) {
                    put_block(R, rbuf, (long)rank * rcnt, nv, rank, 15);
                    MPI_CHECK(MPI_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rbuf, rcnt, R->dt, comm));
                } else {
                    MPI_CHECK(MPI_Allgather(sbuf, sc, S->dt, rbuf, rcnt, R->dt, comm));
                }
                compare(R, rbuf, rexp, (long)size * rcnt, "Allgather recvbuf", cname, -1, c, co, ip);
                free(sbuf);
                free(rbuf);
                free(rexp);

                /* ---- Allgatherv: reverse order, one-element gaps ---- */
                salt++;
                long total = 0;
                for (int b = size - 1; b >= 0; b--) {
                    cnts[b] = (int)((long)vcount(c, b) * per / R->per);
                    displs[b] = (int)total;
                    total += cnts[b] + 1;
                }
                long mynv = (long)vcount(c, rank) * per;
                sbuf = lay_alloc(S, mynv / S->per);
                put_block(S, sbuf, 0, mynv, rank, 15);
                rbuf = lay_alloc(R, total);
                rexp = lay_alloc(R, total);
                for (int b = 0; b < size; b++)
                    put_block(R, rexp, displs[b], (long)vcount(c, b) * per, b, 15);
                if (ip) {
                    put_block(R, rbuf, displs[rank], mynv, rank, 15);
                    MPI_CHECK(
                        MPI_Allgatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rbuf, cnts, displs, R->dt, comm));
                } else {
                    MPI_CHECK(
                        MPI_Allgatherv(sbuf, (int)(mynv / S->per), S->dt, rbuf, cnts, displs, R->dt, comm));
                }
                compare(R, rbuf, rexp, total, "Allgatherv recvbuf", cname, -1, c, co, ip);
                free(sbuf);
                free(rbuf);
                free(rexp);
            }
    free(cnts);
    free(displs);
}

/* units sent from i to j by Alltoallv: asymmetric, or symmetric (needed
 * with MPI_IN_PLACE, where sendcounts are recvcounts) */
static int acount(int c, int i, int j, int symmetric)
{
    if (c == 0)
        return 0;
    if (symmetric)
        return (i + j) % 4 == 1 ? 0 : c + (i + j) % 3;
    return (3 * i + j) % 5 == 2 ? 0 : c + (2 * i + j) % 5;
}

static void alltoall_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    size_t ia = sizeof(int) * (size_t)size;
    int *scnts = xmalloc(ia), *sdispls = xmalloc(ia), *rcnts = xmalloc(ia), *rdispls = xmalloc(ia);
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int co = 0; co < NCOMBOS; co++)
            for (int ip = 0; ip < 2; ip++) {
                if (!movement_case(size, ci, co, ip))
                    continue;
                const layout_t *S = &lay[combos[co][0]], *R = &lay[combos[co][1]];
                int per = S->per > R->per ? S->per : R->per;
                int c = counts[ci];
                long nv = (long)c * per;
                int sc = (int)(nv / S->per), rcnt = (int)(nv / R->per);

                /* ---- Alltoall ---- */
                salt++;
                void *sbuf = lay_alloc(S, (long)size * sc);
                void *rbuf = lay_alloc(R, (long)size * rcnt), *rexp = lay_alloc(R, (long)size * rcnt);
                for (int b = 0; b < size; b++) {
                    put_block(S, sbuf, (long)b * sc, nv, rank, b);
                    put_block(R, rexp, (long)b * rcnt, nv, b, rank);
                }
                if (ip) {
                    for (int b = 0; b < size; b++)
                        put_block(R, rbuf, (long)b * rcnt, nv, rank, b);
                    MPI_CHECK(MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rbuf, rcnt, R->dt, comm));
                } else {
                    MPI_CHECK(MPI_Alltoall(sbuf, sc, S->dt, rbuf, rcnt, R->dt, comm));
                }
                compare(R, rbuf, rexp, (long)size * rcnt, "Alltoall recvbuf", cname, -1, c, co, ip);
                free(sbuf);
                free(rbuf);
                free(rexp);

                /* ---- Alltoallv: sends in reverse order with gaps of one
                 * element, receives in rank order with gaps of two ---- */
                salt++;
                long stotal = 0, rtotal = 0;
                for (int b = size - 1; b >= 0; b--) {
                    scnts[b] = (int)((long)acount(c, rank, b, ip) * per / S->per);
                    sdispls[b] = (int)stotal;
                    stotal += scnts[b] + 1;
                }
                for (int b = 0; b < size; b++) {
                    rcnts[b] = (int)((long)acount(c, b, rank, ip) * per / R->per);
                    rdispls[b] = (int)rtotal;
                    rtotal += rcnts[b] + 2;
                }
                sbuf = lay_alloc(S, stotal);
                rbuf = lay_alloc(R, rtotal);
                rexp = lay_alloc(R, rtotal);
                for (int b = 0; b < size; b++) {
                    put_block(S, sbuf, sdispls[b], (long)acount(c, rank, b, ip) * per, rank, b);
                    put_block(R, rexp, rdispls[b], (long)acount(c, b, rank, ip) * per, b, rank);
                }
                if (ip) {
                    for (int b = 0; b < size; b++)
                        put_block(R, rbuf, rdispls[b], (long)acount(c, rank, b, ip) * per, rank, b);
                    MPI_CHECK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rcnts, rdispls,
                                            R->dt, comm));
                } else {
                    MPI_CHECK(MPI_Alltoallv(sbuf, scnts, sdispls, S->dt, rbuf, rcnts, rdispls, R->dt, comm));
                }
                compare(R, rbuf, rexp, rtotal, "Alltoallv recvbuf", cname, -1, c, co, ip);
                free(sbuf);
                free(rbuf);
                free(rexp);
            }
    free(scnts);
    free(sdispls);
    free(rcnts);
    free(rdispls);
}

/* ------------------------------------------------------------------ */
/* reductions                                                          */

struct dint {
    double v;
    int i;
};

/* 2x2 integer matrices, product modulo 2^32: associative, not commutative.
 * inoutvec = invec x inoutvec (invec holds the lower ranks). */
static void matmul(const unsigned *a, const unsigned *b, unsigned *out)
{
    unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                     a[2] * b[1] + a[3] * b[3]};
    memcpy(out, r, sizeof r);
}

static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (int k = 0; k < *len; k++)
        matmul(x + 4 * k, y + 4 * k, y + 4 * k);
}

/* element-wise sum of a vector(2, 1, 2, MPI_INT) type: ints 0 and 2 of
 * each 3-int extent (predefined ops on derived types are beyond MPI 3.1,
 * so a user op; it also checks that user ops see the type's layout) */
static void vecsum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *x = in;
    int *y = inout;
    for (int k = 0; k < *len; k++) {
        y[3 * k] += x[3 * k];
        y[3 * k + 2] += x[3 * k + 2];
    }
}

static MPI_Op op_vecsum;      /* commutative user op on the vector type */
static MPI_Op op_mat;         /* non-commutative user op */
static MPI_Op op_mat_commute; /* the same function declared commutative (for Op_commutative) */
static MPI_Datatype dt_mat;   /* 4 contiguous ints */

/* reduction cases: (type, op) with an element generator and a reference */
enum { R_INT_SUM, R_INT_MAX, R_DBL_SUM, R_DBL_MAX, R_VEC_SUM, R_DINT_MINLOC, R_MAT, NRCASES };
static const char *rname[NRCASES] = {"int SUM",
                                     "int MAX",
                                     "double SUM",
                                     "double MAX",
                                     "vector sum (user, commutative)",
                                     "double_int MINLOC",
                                     "matrix product (user, non-commutative)"};

static MPI_Datatype rtype(int rc)
{
    switch (rc) {
    case R_INT_SUM:
    case R_INT_MAX:
        return MPI_INT;
    case R_DBL_SUM:
    case R_DBL_MAX:
        return MPI_DOUBLE;
    case R_VEC_SUM:
        return lay[L_VEC].dt;
    case R_DINT_MINLOC:
        return MPI_DOUBLE_INT;
    default:
        return dt_mat;
    }
}

static MPI_Op rop(int rc)
{
    switch (rc) {
    case R_INT_SUM:
    case R_DBL_SUM:
        return MPI_SUM;
    case R_VEC_SUM:
        return op_vecsum;
    case R_INT_MAX:
    case R_DBL_MAX:
        return MPI_MAX;
    case R_DINT_MINLOC:
        return MPI_MINLOC;
    default:
        return op_mat;
    }
}

/* bytes of one element's extent */
static size_t rext(int rc)
{
    switch (rc) {
    case R_INT_SUM:
    case R_INT_MAX:
        return sizeof(int);
    case R_DBL_SUM:
    case R_DBL_MAX:
        return sizeof(double);
    case R_VEC_SUM:
        return 3 * sizeof(int);
    case R_DINT_MINLOC:
        return sizeof(struct dint);
    default:
        return 4 * sizeof(int);
    }
}

/* the contribution of rank r at element index e, written at elem */
static void r_gen(int rc, int r, long e, void *elem)
{
    char *p = elem;
    int x = (int)((r * 7 + e * 3 + salt) % 11) - 5;
    switch (rc) {
    case R_INT_SUM:
    case R_INT_MAX:
        memcpy(p, &x, sizeof x);
        break;
    case R_DBL_SUM:
    case R_DBL_MAX: {
        double d = x * 0.5;
        memcpy(p, &d, sizeof d);
        break;
    }
    case R_VEC_SUM: {
        int y = (int)((r * 5 + e + salt) % 13) - 6; /* ints 0 and 2; int 1 is a hole */
        memcpy(p, &x, sizeof x);
        memcpy(p + 2 * sizeof(int), &y, sizeof y);
        break;
    }
    case R_DINT_MINLOC: {
        double v = (double)((r * 5 + e * 3 + salt) % 4) * 1.5; /* many ties: the lowest index wins */
        int i = r * 10;
        memcpy(p, &v, sizeof v);
        memcpy(p + offsetof(struct dint, i), &i, sizeof i);
        break;
    }
    default: {
        unsigned m[4] = {(unsigned)(r + e + salt) % 3u + 1u, (unsigned)(r * e + 1) % 3u,
                         (unsigned)(e + 2 * r) % 2u, (unsigned)(r + 2 * e + salt) % 3u + 1u};
        memcpy(p, m, sizeof m);
        break;
    }
    }
}

/* acc = acc op (contribution of rank r at element index e); acc holds the
 * lower ranks: folding r = 0, 1, ... gives the rank-order reference */
static void r_fold(int rc, int r, long e, void *acc)
{
    char tmp[32];
    char *a = acc;
    memset(tmp, PATTERN, sizeof tmp);
    r_gen(rc, r, e, tmp);
    switch (rc) {
    case R_INT_SUM:
    case R_INT_MAX: {
        int x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, tmp, sizeof y);
        x = rc == R_INT_SUM ? x + y : (x > y ? x : y);
        memcpy(a, &x, sizeof x);
        break;
    }
    case R_DBL_SUM:
    case R_DBL_MAX: {
        double x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, tmp, sizeof y);
        x = rc == R_DBL_SUM ? x + y : (x > y ? x : y);
        memcpy(a, &x, sizeof x);
        break;
    }
    case R_VEC_SUM:
        for (int j = 0; j < 3; j += 2) {
            int x, y;
            memcpy(&x, a + j * sizeof(int), sizeof x);
            memcpy(&y, tmp + j * sizeof(int), sizeof y);
            x += y;
            memcpy(a + j * sizeof(int), &x, sizeof x);
        }
        break;
    case R_DINT_MINLOC: {
        struct dint x, y;
        memcpy(&x.v, a, sizeof x.v);
        memcpy(&x.i, a + offsetof(struct dint, i), sizeof x.i);
        memcpy(&y.v, tmp, sizeof y.v);
        memcpy(&y.i, tmp + offsetof(struct dint, i), sizeof y.i);
        if (y.v < x.v || (y.v == x.v && y.i < x.i))
            x = y;
        memcpy(a, &x.v, sizeof x.v);
        memcpy(a + offsetof(struct dint, i), &x.i, sizeof x.i);
        break;
    }
    default: {
        unsigned x[4], y[4];
        memcpy(x, a, sizeof x);
        memcpy(y, tmp, sizeof y);
        matmul(x, y, x);
        memcpy(a, x, sizeof x);
        break;
    }
    }
}

static void *r_alloc(int rc, long elems)
{
    size_t n = (size_t)(elems + GUARD) * rext(rc);
    void *p = xmalloc(n);
    memset(p, PATTERN, n);
    return p;
}

static void *r_at(int rc, void *buf, long pos)
{
    return (char *)buf + (size_t)pos * rext(rc);
}

/* element pos of exp = x_first op ... op x_last at element index e */
static void r_ref(int rc, void *exp, long pos, long e, int first, int last)
{
    r_gen(rc, first, e, r_at(rc, exp, pos));
    for (int r = first + 1; r <= last; r++)
        r_fold(rc, r, e, r_at(rc, exp, pos));
}

/* compare `elems` elements (plus the guard when `guard`) byte for byte */
static void r_compare(int rc, const void *got, const void *exp, long elems, int guard, const char *what,
                      const char *cname, int c, int ip)
{
    size_t n = (size_t)(elems + (guard ? GUARD : 0)) * rext(rc);
    nchecks++;
    if (memcmp(got, exp, n) == 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)got)[i] != ((const unsigned char *)exp)[i])
            FAIL("%s: %s %s count %d%s: byte %zu (element %zu of %ld) is 0x%02x, expected 0x%02x", cname,
                 what, rname[rc], c, ip ? " IN_PLACE" : "", i, i / rext(rc), elems,
                 ((const unsigned char *)got)[i], ((const unsigned char *)exp)[i]);
}

static void reduce_scatter_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    int *rcnts = xmalloc(sizeof(int) * (size_t)size);
    for (int rc = 0; rc < NRCASES; rc++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < 2; ip++) {
                if (!reduction_case(size, rc, ci, ip))
                    continue;
                int c = counts[ci];
                MPI_Datatype dt = rtype(rc);
                MPI_Op op = rop(rc);

                /* ---- Reduce_scatter_block: c elements per rank ---- */
                salt++;
                long n = (long)size * c;
                void *in = r_alloc(rc, n), *out = r_alloc(rc, ip ? n : c), *exp = r_alloc(rc, c);
                for (long e = 0; e < n; e++)
                    r_gen(rc, rank, e, r_at(rc, in, e));
                for (long k = 0; k < c; k++)
                    r_ref(rc, exp, k, (long)rank * c + k, 0, size - 1);
                if (ip) {
                    memcpy(out, in, (size_t)n * rext(rc));
                    MPI_CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, out, c, dt, op, comm));
                } else {
                    MPI_CHECK(MPI_Reduce_scatter_block(in, out, c, dt, op, comm));
                }
                /* in place, the rest of recvbuf is not specified */
                r_compare(rc, out, exp, c, !ip, "Reduce_scatter_block", cname, c, ip);
                free(in);
                free(out);
                free(exp);

                /* ---- Reduce_scatter: uneven counts, some empty ---- */
                salt++;
                long off = 0, mine = 0;
                n = 0;
                for (int b = 0; b < size; b++) {
                    rcnts[b] = vcount(c, b);
                    if (b < rank)
                        off += rcnts[b];
                    n += rcnts[b];
                }
                mine = rcnts[rank];
                in = r_alloc(rc, n);
                out = r_alloc(rc, ip ? n : mine);
                exp = r_alloc(rc, mine);
                for (long e = 0; e < n; e++)
                    r_gen(rc, rank, e, r_at(rc, in, e));
                for (long k = 0; k < mine; k++)
                    r_ref(rc, exp, k, off + k, 0, size - 1);
                if (ip) {
                    memcpy(out, in, (size_t)n * rext(rc));
                    MPI_CHECK(MPI_Reduce_scatter(MPI_IN_PLACE, out, rcnts, dt, op, comm));
                } else {
                    MPI_CHECK(MPI_Reduce_scatter(in, out, rcnts, dt, op, comm));
                }
                r_compare(rc, out, exp, mine, !ip, "Reduce_scatter", cname, c, ip);
                free(in);
                free(out);
                free(exp);
            }
    free(rcnts);
}

static void scan_tests(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    for (int rc = 0; rc < NRCASES; rc++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < 2; ip++)
                for (int ex = 0; ex < 2; ex++) {
                    if (!reduction_case(size, rc, ci, ip))
                        continue;
                    int c = counts[ci];
                    MPI_Datatype dt = rtype(rc);
                    MPI_Op op = rop(rc);
                    salt++;
                    void *in = r_alloc(rc, c), *out = r_alloc(rc, c), *exp = r_alloc(rc, c);
                    for (long e = 0; e < c; e++)
                        r_gen(rc, rank, e, r_at(rc, in, e));
                    if (!ex || rank > 0)
                        for (long e = 0; e < c; e++)
                            r_ref(rc, exp, e, e, 0, ex ? rank - 1 : rank);
                    if (ip)
                        memcpy(out, in, (size_t)c * rext(rc));
                    if (ex)
                        MPI_CHECK(MPI_Exscan(ip ? MPI_IN_PLACE : in, out, c, dt, op, comm));
                    else
                        MPI_CHECK(MPI_Scan(ip ? MPI_IN_PLACE : in, out, c, dt, op, comm));
                    /* Exscan leaves rank 0's recvbuf undefined */
                    if (!ex || rank > 0)
                        r_compare(rc, out, exp, c, 1, ex ? "Exscan" : "Scan", cname, c, ip);
                    free(in);
                    free(out);
                    free(exp);
                }
}

/* Reduce_local (inoutbuf = inbuf op inoutbuf, inbuf on the left) and
 * Op_commutative; local, so run once */
static void local_tests(void)
{
    for (int rc = 0; rc < NRCASES; rc++)
        for (int ci = 0; ci < NCOUNTS; ci++) {
            int c = counts[ci];
            salt++;
            void *in = r_alloc(rc, c), *inout = r_alloc(rc, c), *exp = r_alloc(rc, c);
            for (long e = 0; e < c; e++) {
                r_gen(rc, 1, e, r_at(rc, in, e));
                r_gen(rc, 0, e, r_at(rc, inout, e));
                r_ref(rc, exp, e, e, 1, 1);
                r_fold(rc, 0, e, r_at(rc, exp, e));
            }
            MPI_CHECK(MPI_Reduce_local(in, inout, c, rtype(rc), rop(rc)));
            r_compare(rc, inout, exp, c, 1, "Reduce_local", "local", c, 0);
            free(in);
            free(inout);
            free(exp);
        }
    int f = -1;
    MPI_CHECK(MPI_Op_commutative(MPI_SUM, &f));
    CHECK(f == 1, "Op_commutative(MPI_SUM) = %d", f);
    MPI_CHECK(MPI_Op_commutative(MPI_MINLOC, &f));
    CHECK(f == 1, "Op_commutative(MPI_MINLOC) = %d", f);
    MPI_CHECK(MPI_Op_commutative(op_mat, &f));
    CHECK(f == 0, "Op_commutative(non-commutative user op) = %d", f);
    MPI_CHECK(MPI_Op_commutative(op_mat_commute, &f));
    CHECK(f == 1, "Op_commutative(commutative user op) = %d", f);
}

/* argument errors every rank detects alike, under MPI_ERRORS_RETURN */
static void error_tests(void)
{
    MPI_Comm comm;
    int rank, size, cls, ibuf[64], obuf[64 * 16];
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    memset(ibuf, 0, sizeof ibuf);
#define EXPECT_CLASS(call, want)                                                                             \
    do {                                                                                                     \
        int erc_ = (call);                                                                                   \
        CHECK(erc_ != MPI_SUCCESS, "%s succeeded, expected error class %d", #call, want);                    \
        MPI_CHECK(MPI_Error_class(erc_, &cls));                                                              \
        CHECK(cls == (want), "%s gave error class %d, expected %d", #call, cls, want);                       \
    } while (0)
    if (size <= 16) {
        /* a send block inside the receive buffer is an alias too (MPICH's
         * errors/coll/noalias2: the other ranks waited for rank 0's
         * contribution, refused at rank 0 only) */
        EXPECT_CLASS(MPI_Allgather(&obuf[rank], 1, MPI_INT, obuf, 1, MPI_INT, comm), MPI_ERR_BUFFER);
        if (size > 1)
            EXPECT_CLASS(MPI_Alltoall(obuf + 1, 1, MPI_INT, obuf, 1, MPI_INT, comm), MPI_ERR_BUFFER);
        EXPECT_CLASS(MPI_Scatter(ibuf, 1, MPI_INT, obuf, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Gather(ibuf, 1, MPI_INT, obuf, 1, MPI_INT, -1, comm), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Scatterv(ibuf, ibuf, ibuf, MPI_INT, obuf, 1, MPI_INT, size + 3, comm), MPI_ERR_ROOT);
        EXPECT_CLASS(MPI_Alltoall(ibuf, 1, MPI_INT, obuf, 1, MPI_DATATYPE_NULL, comm), MPI_ERR_TYPE);
        EXPECT_CLASS(MPI_Scan(ibuf, obuf, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
        EXPECT_CLASS(MPI_Reduce_scatter_block(ibuf, obuf, 1, MPI_INT, MPI_MINLOC, comm), MPI_ERR_OP);
#ifdef MBMPI_VERSION_STRING
        /* negative counts: MPICH 4.0 does not check them in these calls
         * (it crashes), so only against mbmpi */
        EXPECT_CLASS(MPI_Allgather(ibuf, -1, MPI_INT, obuf, 1, MPI_INT, comm), MPI_ERR_COUNT);
        EXPECT_CLASS(MPI_Exscan(ibuf, obuf, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
        EXPECT_CLASS(MPI_Reduce_scatter(ibuf, obuf, NULL, MPI_INT, MPI_SUM, comm), MPI_ERR_ARG);
#endif
    }
    MPI_CHECK(MPI_Comm_free(&comm));
    /* local calls report on MPI_COMM_WORLD */
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Reduce_local(ibuf, obuf, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Op_commutative(MPI_OP_NULL, &cls), MPI_ERR_OP);
    /* the two buffers may not alias (MPICH's errors/coll/reduce_local) */
    EXPECT_CLASS(MPI_Reduce_local(obuf, obuf, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
#ifdef MBMPI_VERSION_STRING
    EXPECT_CLASS(MPI_Reduce_local(ibuf, obuf, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
#endif
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#undef EXPECT_CLASS
}

/* COLL_ALL_TIMING=1 prints the time of each group on rank 0 of comm */
static void timed(void (*fn)(MPI_Comm, const char *), const char *name, MPI_Comm comm, const char *cname)
{
    static int show = -1;
    int rank;
    if (show < 0)
        show = getenv("COLL_ALL_TIMING") != NULL;
    double t = MPI_Wtime();
    fn(comm, cname);
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (show && rank == 0)
        printf("%s: %s %s: %.3f s\n", TEST_NAME, cname, name, MPI_Wtime() - t);
}

static void all_tests(MPI_Comm comm, const char *cname)
{
    timed(scatter_gather_tests, "Scatter/Gather", comm, cname);
    timed(scatterv_gatherv_tests, "Scatterv/Gatherv", comm, cname);
    timed(allgather_tests, "Allgather(v)", comm, cname);
    timed(alltoall_tests, "Alltoall(v)", comm, cname);
    timed(reduce_scatter_tests, "Reduce_scatter(_block)", comm, cname);
    timed(scan_tests, "Scan/Exscan", comm, cname);
}

int main(int argc, char **argv)
{
    int wrank, size;
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = wrank;
    layouts_init();
    MPI_CHECK(MPI_Type_contiguous(4, MPI_INT, &dt_mat));
    MPI_CHECK(MPI_Type_commit(&dt_mat));
    MPI_CHECK(MPI_Op_create(vecsum_op, 1, &op_vecsum));
    MPI_CHECK(MPI_Op_create(matmul_op, 0, &op_mat));
    MPI_CHECK(MPI_Op_create(matmul_op, 1, &op_mat_commute));

    local_tests();
    error_tests();
    all_tests(MPI_COMM_WORLD, "MPI_COMM_WORLD");

    /* a split communicator: thirds, in reversed order */
    MPI_Comm sub;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 3, size - wrank, &sub));
    g_light = 1;
    all_tests(sub, "split communicator");
    MPI_CHECK(MPI_Comm_free(&sub));

    MPI_CHECK(MPI_Op_free(&op_vecsum));
    MPI_CHECK(MPI_Op_free(&op_mat));
    MPI_CHECK(MPI_Op_free(&op_mat_commute));
    MPI_CHECK(MPI_Type_free(&dt_mat));
    layouts_free();
    if (wrank == 0)
        printf("%s: %d ranks, %ld buffers checked on rank 0\n", TEST_NAME, size, nchecks);
    MPI_CHECK(MPI_Finalize());
    return 0;
}
