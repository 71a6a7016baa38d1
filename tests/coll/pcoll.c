/*
 * pcoll: the persistent collectives (MPI 4.0 6.12: MPI_Barrier_init ...
 * MPI_Exscan_init, MPI_Start / MPI_Startall).
 *
 *   1. every operation, initialized once and started 3 times with new
 *      input each time, on MPI_COMM_WORLD and on a split communicator,
 *      gives the result of its blocking counterpart (computed here by
 *      hand), MPI_IN_PLACE where MPI defines it, counts 0, 1 and odd;
 *      all of them are also started together with MPI_Startall;
 *   2. after completion the request is inactive, not freed: a second
 *      MPI_Wait returns at once and leaves the handle, MPI_Request_free
 *      sets it to MPI_REQUEST_NULL;
 *   3. starts in different orders on different ranks (matching follows
 *      the order of the _init calls, MPI 4.0 6.12), with blocking and
 *      nonblocking collectives in between;
 *   4. the type and the op freed right after _init: later starts work;
 *   5. errors: a bad root is returned by MPI_Start (the request stays
 *      inactive, MPI_Request_free frees it); MPI_Start
 *      of an active request is MPI_ERR_REQUEST; an invalid info object is
 *      MPI_ERR_INFO; a NULL request pointer MPI_ERR_ARG.
 * Prints "pcoll: ok" on success; a failed check aborts the job.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILX(...)                                                                                           \
    do {                                                                                                     \
        fprintf(stderr, "FAIL pcoll (rank %d): ", wrank);                                                    \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fprintf(stderr, "\n");                                                                               \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

enum { NOPS = 17, ROUNDS = 3 };

static int wrank;

/* what rank r contributes at index i in round k */
static int val(int r, int i, int k)
{
    return (r + 1) * 1000 + i * 7 % 13 + k * 100000;
}

static void expect(const int *got, const int *want, int n, const char *what, int k)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            FAILX("%s round %d: [%d] = %d, expected %d", what, k, i, got[i], want[i]);
}

/* one communicator's buffers and persistent requests */
typedef struct {
    MPI_Comm comm;
    int rank, p, n, root;
    int *s[NOPS], *r[NOPS];
    int *cnt, *dsp, *cnt_a, *dsp_a;
    MPI_Datatype types[64];
    MPI_Request req[NOPS];
} set_t;

static const char *names[NOPS] = {
    "Barrier",  "Bcast",     "Reduce",    "Allreduce",      "Scatter",
    "Scatterv", "Gather",    "Gatherv",   "Allgather",      "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter", "Reduce_scatter_block",
    "Scan",     "Exscan"};

static void set_init(set_t *t, MPI_Comm comm, int n)
{
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->p);
    t->comm = comm;
    t->n = n;
    t->root = t->p - 1;
    if (t->p > 64)
        FAILX("at most 64 ranks");
    int np = n * t->p + 1;
    for (int o = 0; o < NOPS; o++) {
        t->s[o] = calloc((size_t)np, sizeof(int));
        t->r[o] = calloc((size_t)np, sizeof(int));
    }
    t->cnt = malloc(sizeof(int) * (size_t)t->p);
    t->dsp = malloc(sizeof(int) * (size_t)t->p);
    t->cnt_a = malloc(sizeof(int) * (size_t)t->p);
    t->dsp_a = malloc(sizeof(int) * (size_t)t->p);
    for (int q = 0; q < t->p; q++) {
        t->cnt[q] = n;
        t->dsp[q] = q * n;
        t->cnt_a[q] = n * (int)sizeof(int); /* Alltoallw: byte displacements */
        t->dsp_a[q] = q * n * (int)sizeof(int);
        t->types[q] = MPI_INT;
    }
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c = comm;
    int rc = 0;
    rc |= MPI_Barrier_init(c, info, &t->req[0]);
    rc |= MPI_Bcast_init(t->r[1], n, MPI_INT, t->root, c, info, &t->req[1]);
    rc |= MPI_Reduce_init(t->s[2], t->r[2], n, MPI_INT, MPI_SUM, t->root, c, info, &t->req[2]);
    /* Allreduce in place */
    rc |= MPI_Allreduce_init(MPI_IN_PLACE, t->r[3], n, MPI_INT, MPI_MAX, c, info, &t->req[3]);
    rc |= MPI_Scatter_init(t->s[4], n, MPI_INT, t->r[4], n, MPI_INT, t->root, c, info, &t->req[4]);
    rc |= MPI_Scatterv_init(t->s[5], t->cnt, t->dsp, MPI_INT, t->r[5], n, MPI_INT, 0, c, info, &t->req[5]);
    rc |= MPI_Gather_init(t->s[6], n, MPI_INT, t->r[6], n, MPI_INT, t->root, c, info, &t->req[6]);
    rc |= MPI_Gatherv_init(t->s[7], n, MPI_INT, t->r[7], t->cnt, t->dsp, MPI_INT, 0, c, info, &t->req[7]);
    /* Allgather in place: own block already in r */
    rc |= MPI_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, t->r[8], n, MPI_INT, c, info, &t->req[8]);
    rc |= MPI_Allgatherv_init(t->s[9], n, MPI_INT, t->r[9], t->cnt, t->dsp, MPI_INT, c, info, &t->req[9]);
    rc |= MPI_Alltoall_init(t->s[10], n, MPI_INT, t->r[10], n, MPI_INT, c, info, &t->req[10]);
    rc |= MPI_Alltoallv_init(t->s[11], t->cnt, t->dsp, MPI_INT, t->r[11], t->cnt, t->dsp, MPI_INT, c, info,
                             &t->req[11]);
    for (int q = 0; q < t->p; q++)
        t->cnt_a[q] = n;
    rc |= MPI_Alltoallw_init(t->s[12], t->cnt_a, t->dsp_a, t->types, t->r[12], t->cnt_a, t->dsp_a, t->types,
                             c, info, &t->req[12]);
    rc |= MPI_Reduce_scatter_init(t->s[13], t->r[13], t->cnt, MPI_INT, MPI_SUM, c, info, &t->req[13]);
    rc |= MPI_Reduce_scatter_block_init(t->s[14], t->r[14], n, MPI_INT, MPI_SUM, c, info, &t->req[14]);
    rc |= MPI_Scan_init(t->s[15], t->r[15], n, MPI_INT, MPI_SUM, c, info, &t->req[15]);
    rc |= MPI_Exscan_init(t->s[16], t->r[16], n, MPI_INT, MPI_SUM, c, info, &t->req[16]);
    if (rc != MPI_SUCCESS)
        FAILX("an _init call failed (n = %d)", n);
}

/* inputs of round k */
static void fill(set_t *t, int k)
{
    int n = t->n, p = t->p, me = t->rank;
    for (int i = 0; i < n; i++) {
        t->r[1][i] = me == t->root ? val(t->root, i, k) : -1;
        t->s[2][i] = val(me, i, k);
        t->r[3][i] = val(me, i, k);
        for (int q = 0; q < p; q++) {
            t->s[4][q * n + i] = val(q, i, k) + 7; /* root's block for q */
            t->s[5][q * n + i] = val(q, i, k) + 9;
            t->r[8][q * n + i] = q == me ? val(me, i, k) : -1;
            t->s[10][q * n + i] = val(me, i, k) * 3 + q;
            t->s[11][q * n + i] = val(me, i, k) * 5 + q;
            t->s[12][q * n + i] = val(me, i, k) * 7 + q;
            t->s[13][q * n + i] = val(me, q * n + i, k);
            t->s[14][q * n + i] = val(me, q * n + i, k) + 1;
        }
        t->s[6][i] = val(me, i, k) + 11;
        t->s[7][i] = val(me, i, k) + 13;
        t->s[9][i] = val(me, i, k) + 15;
        t->s[15][i] = val(me, i, k);
        t->s[16][i] = val(me, i, k) + 3;
    }
}

static void check(set_t *t, int k)
{
    int n = t->n, p = t->p, me = t->rank;
    int *w = malloc(sizeof(int) * (size_t)(n * p + 1));
    for (int i = 0; i < n; i++)
        w[i] = val(t->root, i, k);
    expect(t->r[1], w, n, "Bcast", k);
    if (me == t->root) {
        for (int i = 0; i < n; i++) {
            w[i] = 0;
            for (int q = 0; q < p; q++)
                w[i] += val(q, i, k);
        }
        expect(t->r[2], w, n, "Reduce", k);
    }
    for (int i = 0; i < n; i++)
        w[i] = val(p - 1, i, k);
    expect(t->r[3], w, n, "Allreduce (in place, MAX)", k);
    for (int i = 0; i < n; i++)
        w[i] = val(me, i, k) + 7;
    expect(t->r[4], w, n, "Scatter", k);
    for (int i = 0; i < n; i++)
        w[i] = val(me, i, k) + 9;
    expect(t->r[5], w, n, "Scatterv", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) + 11;
    if (me == t->root)
        expect(t->r[6], w, n * p, "Gather", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) + 13;
    if (me == 0)
        expect(t->r[7], w, n * p, "Gatherv", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k);
    expect(t->r[8], w, n * p, "Allgather (in place)", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) + 15;
    expect(t->r[9], w, n * p, "Allgatherv", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) * 3 + me;
    expect(t->r[10], w, n * p, "Alltoall", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) * 5 + me;
    expect(t->r[11], w, n * p, "Alltoallv", k);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            w[q * n + i] = val(q, i, k) * 7 + me;
    expect(t->r[12], w, n * p, "Alltoallw", k);
    for (int i = 0; i < n; i++) {
        w[i] = 0;
        for (int q = 0; q < p; q++)
            w[i] += val(q, me * n + i, k);
    }
    expect(t->r[13], w, n, "Reduce_scatter", k);
    for (int i = 0; i < n; i++)
        w[i] += p;
    expect(t->r[14], w, n, "Reduce_scatter_block", k);
    for (int i = 0; i < n; i++) {
        w[i] = 0;
        for (int q = 0; q <= me; q++)
            w[i] += val(q, i, k);
    }
    expect(t->r[15], w, n, "Scan", k);
    if (me > 0) {
        for (int i = 0; i < n; i++) {
            w[i] = 0;
            for (int q = 0; q < me; q++)
                w[i] += val(q, i, k) + 3;
        }
        expect(t->r[16], w, n, "Exscan", k);
    }
    free(w);
}

static void set_free(set_t *t)
{
    for (int o = 0; o < NOPS; o++) {
        if (MPI_Request_free(&t->req[o]) != MPI_SUCCESS || t->req[o] != MPI_REQUEST_NULL)
            FAILX("MPI_Request_free of the inactive %s request", names[o]);
        free(t->s[o]);
        free(t->r[o]);
    }
    free(t->cnt);
    free(t->dsp);
    free(t->cnt_a);
    free(t->dsp_a);
}

/* 1-3: rounds of one start each (in an order that depends on the rank),
 * then rounds of MPI_Startall */
static void check_ops(MPI_Comm comm, int n)
{
    set_t t;
    MPI_Status st;
    set_init(&t, comm, n);
    for (int k = 0; k < ROUNDS; k++) {
        fill(&t, k);
        for (int j = 0; j < NOPS; j++) {
            /* odd ranks start in reverse order */
            int o = t.rank % 2 ? NOPS - 1 - j : j;
            if (MPI_Start(&t.req[o]) != MPI_SUCCESS)
                FAILX("MPI_Start %s", names[o]);
        }
        /* a blocking and a nonblocking collective while they run */
        int x = t.rank, sum = 0;
        MPI_Request ir;
        MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &ir);
        MPI_Barrier(comm);
        MPI_Wait(&ir, MPI_STATUS_IGNORE);
        if (sum != t.p * (t.p - 1) / 2)
            FAILX("Iallreduce among persistent ones: %d", sum);
        for (int o = NOPS - 1; o >= 0; o--) {
            if (MPI_Wait(&t.req[o], &st) != MPI_SUCCESS)
                FAILX("MPI_Wait %s", names[o]);
            if (t.req[o] == MPI_REQUEST_NULL)
                FAILX("%s: MPI_Wait freed a persistent request", names[o]);
        }
        check(&t, k);
        /* 2. inactive now: a Wait returns at once, an empty status */
        st.MPI_SOURCE = 12345;
        if (MPI_Wait(&t.req[1], &st) != MPI_SUCCESS || t.req[1] == MPI_REQUEST_NULL ||
            st.MPI_SOURCE != MPI_ANY_SOURCE)
            FAILX("MPI_Wait of an inactive persistent collective");
        int flag = 0;
        if (MPI_Test(&t.req[2], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag)
            FAILX("MPI_Test of an inactive persistent collective");
    }
    for (int k = ROUNDS; k < 2 * ROUNDS; k++) {
        fill(&t, k);
        if (MPI_Startall(NOPS, t.req) != MPI_SUCCESS)
            FAILX("MPI_Startall");
        if (MPI_Waitall(NOPS, t.req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            FAILX("MPI_Waitall");
        check(&t, k);
    }
    set_free(&t);
}

/* 4. the type and the op may go right after _init */
static void sum2(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len * 2; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void check_freed_handles(void)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Request r;
    int in[6], out[6];
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(sum2, 1, &op);
    MPI_Allreduce_init(in, out, 3, pair, op, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 6; i++)
            in[i] = rank * 10 + i + k;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < 6; i++)
            if (out[i] != 10 * p * (p - 1) / 2 + p * (i + k))
                FAILX("Allreduce_init with a freed type and op: [%d] = %d", i, out[i]);
    }
    MPI_Request_free(&r);
    /* freed while active (after the type and op went): the run completes
     * on its own holds; the result is still written */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(sum2, 1, &op);
    MPI_Allreduce_init(in, out, 3, pair, op, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    for (int i = 0; i < 6; i++) {
        in[i] = rank + i;
        out[i] = -1;
    }
    MPI_Start(&r);
    MPI_Request_free(&r);
    if (r != MPI_REQUEST_NULL)
        FAILX("MPI_Request_free of an active persistent collective left the handle");
    /* no request to wait on: any MPI call moves it on until the sums are
     * there (a wrong or missing result never ends this loop: the job's
     * timeout fails the test) */
    for (int i = 0, flag; i < 6;) {
        if (out[i] == p * (p - 1) / 2 + p * i)
            i++;
        else
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

/* 5. errors */
static void check_errors(void)
{
    int rank, p, x = 0, rc, cls;
    MPI_Request r, r2;
    MPI_Info info;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* a root out of range: every rank finds it at MPI_Start */
    rc = MPI_Bcast_init(&x, 1, MPI_INT, p, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Start(&r);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_ROOT)
            FAILX("MPI_Start of a Bcast with root %d: class %d, expected MPI_ERR_ROOT", p, cls);
        if (MPI_Request_free(&r) != MPI_SUCCESS || r != MPI_REQUEST_NULL)
            FAILX("MPI_Request_free after a failed MPI_Start");
    } else {
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_ROOT)
            FAILX("MPI_Bcast_init with root %d: class %d, expected MPI_ERR_ROOT", p, cls);
    }
    /* MPI_Start of an active request */
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Start(&r);
    rc = MPI_Start(&r);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_REQUEST)
        FAILX("MPI_Start of an active request: class %d, expected MPI_ERR_REQUEST", cls);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    /* an info object that was freed; a NULL request */
    MPI_Info_create(&info);
    MPI_Info_free(&info);
    info = 1000;
    rc = MPI_Barrier_init(MPI_COMM_WORLD, info, &r2);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_INFO)
        FAILX("MPI_Barrier_init with an invalid info: class %d, expected MPI_ERR_INFO", cls);
    rc = MPI_Allreduce_init(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        FAILX("MPI_Allreduce_init with a NULL request: class %d, expected MPI_ERR_ARG", cls);
    /* an info object with hints is accepted */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mbmpi_unknown_hint", "1");
    if (MPI_Barrier_init(MPI_COMM_WORLD, info, &r) != MPI_SUCCESS)
        FAILX("MPI_Barrier_init with an info object");
    MPI_Info_free(&info);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Comm half;
    int ns[] = {0, 1, 5};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        check_ops(MPI_COMM_WORLD, ns[i]);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    check_ops(half, 3);
    MPI_Comm_free(&half);
    check_freed_handles();
    check_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("pcoll: ok\n");
    MPI_Finalize();
    return 0;
}
