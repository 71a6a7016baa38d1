/*
 * nbc: the nonblocking collectives (MPI_Ibarrier ... MPI_Iexscan).
 *
 *   1. every operation, on MPI_COMM_WORLD and on a split communicator,
 *      gives the result of its blocking counterpart (computed here by
 *      hand), with MPI_IN_PLACE where MPI defines it, counts 0, 1 and odd;
 *   2. many operations in flight at once on one communicator, completed in
 *      reverse order, with blocking collectives of the same kind started
 *      in between (each instance must match only its own messages);
 *   3. the NBX sparse exchange (MPI_Issend, then MPI_Ibarrier while still
 *      receiving): only MPI_Iprobe and MPI_Test drive it;
 *   4. progress from blocking point-to-point: a rank blocked in MPI_Recv
 *      must still do its later steps of a pending MPI_Iallreduce;
 *   5. a user-defined op with 400 KB on its stack runs on the coroutine's;
 *   6. errors: a bad root is returned by the I-call, a NULL request is
 *      MPI_ERR_ARG, MPI_Cancel of a collective is MPI_ERR_REQUEST;
 *      MPI_Request_free of a pending collective is allowed, and so is
 *      MPI_Comm_free of its communicator (it completes normally); with
 *      NBC_FATAL=1 a bad root under the default handler ends the job with a
 *      message naming MPI_Ibcast;
 *   7. the types and the op of a pending collective freed at once: it
 *      completes normally.
 * Prints "nbc: ok" on success; a failed check aborts the job.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILX(...)                                                                                           \
    do {                                                                                                     \
        fprintf(stderr, "FAIL nbc (rank %d): ", wrank);                                                      \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fprintf(stderr, "\n");                                                                               \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

static int wrank;

static void wait_ok(MPI_Request *r, const char *what)
{
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        FAILX("%s: MPI_Wait returned %d", what, rc);
    if (*r != MPI_REQUEST_NULL)
        FAILX("%s: request not freed by MPI_Wait", what);
}

/* a value rank r contributes at index i */
static int val(int r, int i)
{
    return (r + 1) * 1000 + i * 7 % 13;
}

/* 1. each operation once, checked against values computed locally */
static void check_ops(MPI_Comm comm, int n)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *a = malloc(sizeof(int) * (size_t)(n * p + 1));
    int *b = malloc(sizeof(int) * (size_t)(n * p + 1));
    int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
    MPI_Request r;
    int root = p > 1 ? 1 : 0;

    for (int q = 0; q < p; q++) {
        cnt[q] = n;
        dsp[q] = q * n;
    }
    /* Ibarrier */
    MPI_Ibarrier(comm, &r);
    wait_ok(&r, "Ibarrier");
    /* Ibcast */
    for (int i = 0; i < n; i++)
        a[i] = rank == root ? val(root, i) : -1;
    MPI_Ibcast(a, n, MPI_INT, root, comm, &r);
    wait_ok(&r, "Ibcast");
    for (int i = 0; i < n; i++)
        if (a[i] != val(root, i))
            FAILX("Ibcast n=%d p=%d: a[%d]=%d", n, p, i, a[i]);
    /* Ireduce (sum) and Iallreduce (max; in place) */
    for (int i = 0; i < n; i++)
        a[i] = val(rank, i);
    MPI_Ireduce(a, b, n, MPI_INT, MPI_SUM, root, comm, &r);
    wait_ok(&r, "Ireduce");
    if (rank == root)
        for (int i = 0; i < n; i++) {
            int s = 0;
            for (int q = 0; q < p; q++)
                s += val(q, i);
            if (b[i] != s)
                FAILX("Ireduce n=%d p=%d: b[%d]=%d, want %d", n, p, i, b[i], s);
        }
    MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MAX, comm, &r);
    wait_ok(&r, "Iallreduce");
    for (int i = 0; i < n; i++)
        if (a[i] != val(p - 1, i))
            FAILX("Iallreduce n=%d p=%d: a[%d]=%d", n, p, i, a[i]);
    /* Iscatter / Iscatterv from root; Igather / Igatherv to root */
    for (int i = 0; i < n * p; i++)
        a[i] = rank == root ? 5 * i + 3 : -1;
    MPI_Iscatter(a, n, MPI_INT, b, n, MPI_INT, root, comm, &r);
    wait_ok(&r, "Iscatter");
    for (int i = 0; i < n; i++)
        if (b[i] != 5 * (rank * n + i) + 3)
            FAILX("Iscatter n=%d: b[%d]=%d", n, i, b[i]);
    memset(b, 0xff, sizeof(int) * (size_t)n);
    MPI_Iscatterv(a, cnt, dsp, MPI_INT, b, n, MPI_INT, root, comm, &r);
    wait_ok(&r, "Iscatterv");
    for (int i = 0; i < n; i++)
        if (b[i] != 5 * (rank * n + i) + 3)
            FAILX("Iscatterv n=%d: b[%d]=%d", n, i, b[i]);
    for (int i = 0; i < n; i++)
        b[i] = val(rank, i);
    MPI_Igather(b, n, MPI_INT, a, n, MPI_INT, root, comm, &r);
    wait_ok(&r, "Igather");
    if (rank == root)
        for (int q = 0; q < p; q++)
            for (int i = 0; i < n; i++)
                if (a[q * n + i] != val(q, i))
                    FAILX("Igather n=%d: a[%d]=%d", n, q * n + i, a[q * n + i]);
    memset(a, 0, sizeof(int) * (size_t)(n * p));
    MPI_Igatherv(b, n, MPI_INT, a, cnt, dsp, MPI_INT, root, comm, &r);
    wait_ok(&r, "Igatherv");
    if (rank == root)
        for (int q = 0; q < p; q++)
            for (int i = 0; i < n; i++)
                if (a[q * n + i] != val(q, i))
                    FAILX("Igatherv n=%d: a[%d]=%d", n, q * n + i, a[q * n + i]);
    /* Iallgather (in place) and Iallgatherv */
    for (int i = 0; i < n; i++)
        a[rank * n + i] = val(rank, i);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INT, comm, &r);
    wait_ok(&r, "Iallgather");
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            if (a[q * n + i] != val(q, i))
                FAILX("Iallgather n=%d: a[%d]=%d", n, q * n + i, a[q * n + i]);
    memset(a, 0, sizeof(int) * (size_t)(n * p));
    MPI_Iallgatherv(b, n, MPI_INT, a, cnt, dsp, MPI_INT, comm, &r);
    wait_ok(&r, "Iallgatherv");
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            if (a[q * n + i] != val(q, i))
                FAILX("Iallgatherv n=%d: a[%d]=%d", n, q * n + i, a[q * n + i]);
    /* Ialltoall and Ialltoallv: block for q is rank*100 + q */
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            a[q * n + i] = (rank * 100 + q) * 1000 + i;
    MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, comm, &r);
    wait_ok(&r, "Ialltoall");
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            if (b[q * n + i] != (q * 100 + rank) * 1000 + i)
                FAILX("Ialltoall n=%d: b[%d]=%d", n, q * n + i, b[q * n + i]);
    memset(b, 0, sizeof(int) * (size_t)(n * p));
    MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm, &r);
    wait_ok(&r, "Ialltoallv");
    for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++)
            if (b[q * n + i] != (q * 100 + rank) * 1000 + i)
                FAILX("Ialltoallv n=%d: b[%d]=%d", n, q * n + i, b[q * n + i]);
    /* Ireduce_scatter_block and Ireduce_scatter (sum of val over ranks) */
    for (int i = 0; i < n * p; i++)
        a[i] = val(rank, i);
    MPI_Ireduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, comm, &r);
    wait_ok(&r, "Ireduce_scatter_block");
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int q = 0; q < p; q++)
            s += val(q, rank * n + i);
        if (b[i] != s)
            FAILX("Ireduce_scatter_block n=%d: b[%d]=%d, want %d", n, i, b[i], s);
    }
    memset(b, 0, sizeof(int) * (size_t)n);
    MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, comm, &r);
    wait_ok(&r, "Ireduce_scatter");
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int q = 0; q < p; q++)
            s += val(q, rank * n + i);
        if (b[i] != s)
            FAILX("Ireduce_scatter n=%d: b[%d]=%d, want %d", n, i, b[i], s);
    }
    /* Iscan and Iexscan (sum) */
    for (int i = 0; i < n; i++)
        a[i] = val(rank, i);
    MPI_Iscan(a, b, n, MPI_INT, MPI_SUM, comm, &r);
    wait_ok(&r, "Iscan");
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int q = 0; q <= rank; q++)
            s += val(q, i);
        if (b[i] != s)
            FAILX("Iscan n=%d: b[%d]=%d, want %d", n, i, b[i], s);
    }
    MPI_Iexscan(a, b, n, MPI_INT, MPI_SUM, comm, &r);
    wait_ok(&r, "Iexscan");
    if (rank > 0)
        for (int i = 0; i < n; i++) {
            int s = 0;
            for (int q = 0; q < rank; q++)
                s += val(q, i);
            if (b[i] != s)
                FAILX("Iexscan n=%d: b[%d]=%d, want %d", n, i, b[i], s);
        }
    free(a);
    free(b);
    free(cnt);
    free(dsp);
}

/* 2. K allreduces and K bcasts in flight, blocking ones in between,
 * completed in reverse order */
#define K 40
static void check_overlap(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    static int in[K][64], out[K][64], bc[K][64];
    MPI_Request r[2 * K];

    for (int k = 0; k < K; k++) {
        int n = 1 + (k * 13) % 64, blk[64], bout[64];
        for (int i = 0; i < n; i++) {
            in[k][i] = val(rank, i) + k;
            bc[k][i] = rank == k % p ? k * 10000 + i : -1;
        }
        MPI_Iallreduce(in[k], out[k], n, MPI_INT, MPI_SUM, comm, &r[2 * k]);
        MPI_Ibcast(bc[k], n, MPI_INT, k % p, comm, &r[2 * k + 1]);
        /* a blocking one of each kind, started while those run */
        for (int i = 0; i < n; i++)
            blk[i] = rank + i;
        MPI_Allreduce(blk, bout, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++)
            if (bout[i] != p * (p - 1) / 2 + p * i)
                FAILX("blocking Allreduce %d between Iallreduces: [%d]=%d", k, i, bout[i]);
        for (int i = 0; i < n; i++)
            blk[i] = rank == (k + 1) % p ? -k - i : 0;
        MPI_Bcast(blk, n, MPI_INT, (k + 1) % p, comm);
        for (int i = 0; i < n; i++)
            if (blk[i] != -k - i)
                FAILX("blocking Bcast %d between Ibcasts: [%d]=%d", k, i, blk[i]);
    }
    for (int k = K - 1; k >= 0; k--) {
        int n = 1 + (k * 13) % 64;
        wait_ok(&r[2 * k + 1], "Ibcast (overlap)");
        wait_ok(&r[2 * k], "Iallreduce (overlap)");
        for (int i = 0; i < n; i++) {
            int s = 0;
            for (int q = 0; q < p; q++)
                s += val(q, i) + k;
            if (out[k][i] != s)
                FAILX("Iallreduce %d of %d in flight: [%d]=%d, want %d", k, K, i, out[k][i], s);
            if (bc[k][i] != k * 10000 + i)
                FAILX("Ibcast %d of %d in flight: [%d]=%d", k, K, i, bc[k][i]);
        }
    }
}

/* 3. NBX: rank r sends to r+1 and r+3 (mod P) with MPI_Issend; receives
 * whatever comes until the Ibarrier started after its sends completed is
 * done */
static void check_nbx(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int dest[2] = {(wrank + 1) % p, (wrank + 3) % p};
    int msg[2] = {wrank * 10 + 1, wrank * 10 + 3};
    MPI_Request sreq[2], breq = MPI_REQUEST_NULL;
    int got = 0, sum = 0, barrier_started = 0, done = 0;

    for (int i = 0; i < 2; i++)
        MPI_Issend(&msg[i], 1, MPI_INT, dest[i], 77, MPI_COMM_WORLD, &sreq[i]);
    while (!done) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v / 10 != st.MPI_SOURCE)
                FAILX("NBX: message %d from rank %d", v, st.MPI_SOURCE);
            got++;
            sum += v;
        }
        if (!barrier_started) {
            MPI_Testall(2, sreq, &flag, MPI_STATUSES_IGNORE);
            if (flag) {
                MPI_Ibarrier(MPI_COMM_WORLD, &breq);
                barrier_started = 1;
            }
        } else {
            MPI_Test(&breq, &done, MPI_STATUS_IGNORE);
        }
    }
    int want = 0, wsum = 0;
    for (int q = 0; q < p; q++) {
        if ((q + 1) % p == wrank) {
            want++;
            wsum += q * 10 + 1;
        }
        if ((q + 3) % p == wrank) {
            want++;
            wsum += q * 10 + 3;
        }
    }
    if (got != want || sum != wsum)
        FAILX("NBX: got %d messages (sum %d), want %d (sum %d)", got, sum, want, wsum);
}

/* 4. rank 1 waits in MPI_Recv for the last rank, which sends only once its
 * Iallreduce is complete. By recursive doubling (forced) the last rank's
 * result needs what rank 1 sends in a later step, after it has received
 * an earlier one: rank 1's collective must move while it is blocked. */
static void check_blocking_progress(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 3)
        return;
    int buf[256];
    MPI_Request r;
    for (int i = 0; i < 256; i++)
        buf[i] = wrank + i;
#ifdef MBMPI_HAVE_COLL_EXT
    MPIX_Coll_force("allreduce", "recursive_doubling");
#endif
    MPI_Iallreduce(MPI_IN_PLACE, buf, 256, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
#ifdef MBMPI_HAVE_COLL_EXT
    MPIX_Coll_force("allreduce", "auto");
#endif
    if (wrank == 1) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, p - 1, 88, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (v != 4242)
            FAILX("progress: got %d", v);
        wait_ok(&r, "Iallreduce (progress)");
    } else {
        wait_ok(&r, "Iallreduce (progress)");
        if (wrank == p - 1) {
            int v = 4242;
            MPI_Send(&v, 1, MPI_INT, 1, 88, MPI_COMM_WORLD);
        }
    }
    for (int i = 0; i < 256; i++)
        if (buf[i] != p * (p - 1) / 2 + p * i)
            FAILX("progress: Iallreduce buf[%d]=%d", i, buf[i]);
}

/* a user op that keeps 400 KB on its stack (it runs on the coroutine's) */
static void big_stack_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    volatile char pad[400000];
    (void)dt;
    for (size_t i = 0; i < sizeof pad; i += 4096)
        pad[i] = (char)i;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i] + pad[0];
}

static void check_user_op(void)
{
    int p, v[16];
    MPI_Op op;
    MPI_Request r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Op_create(big_stack_sum, 1, &op);
    for (int i = 0; i < 16; i++)
        v[i] = wrank + i;
    MPI_Iallreduce(MPI_IN_PLACE, v, 16, MPI_INT, op, MPI_COMM_WORLD, &r);
    wait_ok(&r, "Iallreduce with a user op");
    for (int i = 0; i < 16; i++)
        if (v[i] != p * (p - 1) / 2 + p * i)
            FAILX("Iallreduce with a user op with a big stack: [%d]=%d", i, v[i]);
    MPI_Op_free(&op);
}

static void plain_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void plain_prod(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] *= ((int *)in)[i];
}

/* 7. the datatypes and the op of a pending collective freed at once (MPI
 * 3.1 4.1.9 and 5.9.5: the operation completes normally); types and an op
 * created meanwhile (other shapes) must not take their place */
static void check_freed_handles(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sb = malloc(sizeof(int) * 3 * (size_t)p), *rb = malloc(sizeof(int) * 3 * (size_t)p), v[5], w[5];
    MPI_Datatype t3, t3r, other;
    MPI_Op op, other_op;
    MPI_Request r[2];
    if (!sb || !rb)
        FAILX("out of memory");
    for (int i = 0; i < 3 * p; i++) {
        sb[i] = wrank * 100000 + i;
        rb[i] = -1;
    }
    for (int i = 0; i < 5; i++)
        v[i] = wrank + i;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    MPI_Type_contiguous(3, MPI_INT, &t3r);
    MPI_Type_commit(&t3r);
    MPI_Op_create(plain_sum, 1, &op);
    /* rank 0 joins only when the others have freed theirs: their
     * collectives are still pending then */
    for (int q = 1; wrank == 0 && q < p; q++)
        MPI_Recv(NULL, 0, MPI_BYTE, q, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ialltoall(sb, 1, t3, rb, 1, t3r, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(v, w, 5, MPI_INT, op, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&t3);
    MPI_Type_free(&t3r);
    MPI_Op_free(&op);
    MPI_Type_vector(2, 1, 5, MPI_INT, &other);
    MPI_Type_commit(&other);
    MPI_Op_create(plain_prod, 0, &other_op);
    if (wrank != 0)
        MPI_Send(NULL, 0, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (int q = 0; q < p; q++)
        for (int k = 0; k < 3; k++)
            if (rb[3 * q + k] != q * 100000 + 3 * wrank + k)
                FAILX("Ialltoall with its types freed at once: block %d [%d]=%d", q, k, rb[3 * q + k]);
    for (int i = 0; i < 5; i++)
        if (w[i] != p * (p - 1) / 2 + p * i)
            FAILX("Iallreduce with its op freed at once: [%d]=%d", i, w[i]);
    MPI_Type_free(&other);
    MPI_Op_free(&other_op);
    free(sb);
    free(rb);
}

static void check_errors(void)
{
    int p, x = 0, rc;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Ibcast(&x, 1, MPI_INT, p, MPI_COMM_WORLD, &r);
    if (rc == MPI_SUCCESS || r != MPI_REQUEST_NULL)
        FAILX("Ibcast with root %d: rc %d, request %d", p, rc, (int)r);
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ROOT)
        FAILX("Ibcast with a bad root: class %d, want MPI_ERR_ROOT", cls);
    rc = MPI_Iallreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        FAILX("Iallreduce with a NULL request: class %d, want MPI_ERR_ARG", cls);
    rc = MPI_Ibarrier(MPI_COMM_NULL, &r);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COMM)
        FAILX("Ibarrier on MPI_COMM_NULL: class %d, want MPI_ERR_COMM", cls);
    /* cancel: refused, the collective still completes */
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    rc = MPI_Cancel(&r);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_REQUEST)
        FAILX("MPI_Cancel of an Ibarrier: class %d, want MPI_ERR_REQUEST", cls);
    wait_ok(&r, "Ibarrier after a refused cancel");
    /* free while pending: completes in the background */
    int y = wrank;
    MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    if (MPI_Request_free(&r) != MPI_SUCCESS || r != MPI_REQUEST_NULL)
        FAILX("MPI_Request_free of a pending Iallreduce");
    MPI_Barrier(MPI_COMM_WORLD);
    /* Test drives it to completion too */
    int flag = 0;
    x = wrank;
    MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!flag)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (x != p * (p - 1) / 2)
        FAILX("Iallreduce completed by MPI_Test: %d", x);
    /* MPI_Request_get_status: done without freeing; the status is empty */
    flag = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Status st;
    while (!flag)
        MPI_Request_get_status(r, &flag, &st);
    if (r == MPI_REQUEST_NULL || st.MPI_SOURCE != MPI_ANY_SOURCE || st.MPI_TAG != MPI_ANY_TAG)
        FAILX("MPI_Request_get_status of an Ibarrier: request %d, source %d, tag %d", (int)r, st.MPI_SOURCE,
              st.MPI_TAG);
    wait_ok(&r, "Ibarrier after MPI_Request_get_status");
    /* MPI_Comm_free of a communicator with a collective pending: the
     * operation completes normally (under ASan, a use after free fails) */
    MPI_Comm dup;
    int big[4096];
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 4096; i++)
        big[i] = wrank + i;
    MPI_Iallreduce(MPI_IN_PLACE, big, 4096, MPI_INT, MPI_SUM, dup, &r);
    MPI_Comm_free(&dup);
    if (dup != MPI_COMM_NULL)
        FAILX("MPI_Comm_free with a pending Iallreduce left the handle");
    wait_ok(&r, "Iallreduce on a freed communicator");
    for (int i = 0; i < 4096; i++)
        if (big[i] != p * (p - 1) / 2 + p * i)
            FAILX("Iallreduce on a freed communicator: [%d]=%d", i, big[i]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {0, 1, 7, 300, 20000};
    MPI_Comm half;
    int p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (getenv("NBC_FATAL")) {
        /* the default handler: the job ends, the message names MPI_Ibcast */
        int x = 0;
        MPI_Request r;
        MPI_Ibcast(&x, 1, MPI_INT, p, MPI_COMM_WORLD, &r);
        FAILX("MPI_Ibcast with root %d returned under MPI_ERRORS_ARE_FATAL", p);
    }
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, p - wrank, &half);
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        check_ops(MPI_COMM_WORLD, sizes[s]);
        check_ops(half, sizes[s]);
    }
    check_overlap(MPI_COMM_WORLD);
    check_overlap(half);
    check_nbx();
    check_blocking_progress();
    check_user_op();
    check_freed_handles();
    check_errors();
    MPI_Comm_free(&half);
    MPI_Finalize();
    if (wrank == 0)
        printf("nbc: ok\n");
    return 0;
}
