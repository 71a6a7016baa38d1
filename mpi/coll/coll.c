/*
 * mpi/coll/coll.c: the public collectives MPI_Barrier, MPI_Bcast,
 * MPI_Reduce and MPI_Allreduce.
 *
 * Each call validates its arguments (errors on an invalid communicator go to
 * MPI_COMM_WORLD's handler, all others to the communicator's), asks a small
 * per-operation selector for an algorithm given (comm size, bytes) and runs
 * it from a table indexed by the algorithm enum (coll.h). The choice is the
 * pLogP model's (mpii_coll_select, model.c), or the one forced by
 * MBMPI_<OP>_ALGO / MPIX_Coll_force when it applies to the call.
 *
 * Also here: the buffer helpers the algorithm files share (coll.h).
 */
#include "coll.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* buffer helpers                                                      */

/*
 * The scratch cache. Without it every Reduce / Allreduce of a long vector
 * mallocs its temporaries, glibc serves them with mmap (or trims the heap
 * after the free), and the next call page-faults the whole vector in
 * again: Reduce of 1 MiB at P = 2 with Rabenseifner's algorithm took
 * 1100 us with about 200 page faults per call and rank, against 300 us for
 * the binomial tree, whose one temporary faulted less.
 */
#define MPII_SCRATCH_SLOTS 8
/* Under AddressSanitizer nothing is kept, so that a use of a temporary
 * after its free is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define MPII_SCRATCH_KEEP ((size_t)0)
#else
#define MPII_SCRATCH_KEEP ((size_t)64 << 20)
#endif

static struct {
    void *p;
    size_t cap;
    int busy;
} scratch[MPII_SCRATCH_SLOTS];

void *mpii_scratch_alloc(size_t n)
{
    int fit = -1, spare = -1;

    if (n == 0)
        n = 1;
    if (n > MPII_SCRATCH_KEEP)
        return malloc(n);
    for (int i = 0; i < MPII_SCRATCH_SLOTS; i++) {
        if (scratch[i].busy)
            continue;
        if (scratch[i].cap >= n) {
            if (fit < 0 || scratch[i].cap < scratch[fit].cap)
                fit = i;
        } else if (spare < 0 || scratch[i].cap < scratch[spare].cap) {
            spare = i; /* an empty slot, or else the smallest block */
        }
    }
    if (fit < 0 && spare >= 0) {
        free(scratch[spare].p);
        scratch[spare].p = malloc(n);
        scratch[spare].cap = scratch[spare].p ? n : 0;
        if (!scratch[spare].p)
            return NULL;
        fit = spare;
    }
    if (fit < 0)
        return malloc(n); /* every slot in use */
    scratch[fit].busy = 1;
    return scratch[fit].p;
}

void mpii_scratch_free(void *p)
{
    if (!p)
        return;
    for (int i = 0; i < MPII_SCRATCH_SLOTS; i++)
        if (scratch[i].p == p) {
            scratch[i].busy = 0;
            return;
        }
    free(p);
}

void mpii_scratch_release(void)
{
    for (int i = 0; i < MPII_SCRATCH_SLOTS; i++) {
        if (!scratch[i].busy) {
            free(scratch[i].p);
            scratch[i].p = NULL;
            scratch[i].cap = 0;
        }
    }
}

/* the bytes of elements [first, first + n) of a contiguous type at buf */
static int contig_span(const void *buf, long long first, long long n, MPI_Datatype dt, uintptr_t *lo,
                       uintptr_t *hi)
{
    const mpii_datatype_t *d = mpii_datatype_get(dt);
    if (!d || !d->contig || d->size == 0 || n <= 0 || buf == MPI_IN_PLACE)
        return 0;
    *lo = (uintptr_t)buf + (uintptr_t)(d->true_lb + (MPI_Aint)first * d->extent);
    *hi = *lo + (uintptr_t)((MPI_Aint)n * d->extent);
    return 1;
}

int mpii_coll_bufs_overlap(const void *sbuf, long long sfirst, long long sn, MPI_Datatype st,
                           const void *rbuf, long long rfirst, long long rn, MPI_Datatype rt)
{
    uintptr_t slo, shi, rlo, rhi;
    if (!contig_span(sbuf, sfirst, sn, st, &slo, &shi) || !contig_span(rbuf, rfirst, rn, rt, &rlo, &rhi))
        return 0;
    return slo < rhi && rlo < shi;
}

int mpii_coll_tmp_alloc(int count, const mpii_datatype_t *dt, void **buf_p, void **base_p)
{
    /* bytes touched by `count` elements span [lo, hi) relative to the buffer
     * pointer; extent may be negative for resized types */
    MPI_Aint lo = dt->true_lb;
    MPI_Aint hi = dt->true_lb + dt->true_extent;
    size_t span;
    char *base;

    if (count > 1) {
        MPI_Aint shift = (MPI_Aint)(count - 1) * dt->extent;
        if (shift < 0)
            lo += shift;
        else
            hi += shift;
    }
    span = hi > lo ? (size_t)(hi - lo) : 1;
    base = mpii_scratch_alloc(span);
    if (base == NULL)
        return MPI_ERR_NO_MEM;
    *base_p = base;
    /* the pointer the datatype's displacements are relative to (as MPICH
     * does: may point outside the allocation when true_lb > 0) */
    *buf_p = (void *)((uintptr_t)base - (uintptr_t)lo);
    return MPI_SUCCESS;
}

int mpii_coll_copy(const void *src, void *dst, int count, const mpii_datatype_t *dt)
{
    size_t bytes = (size_t)count * dt->size;
    void *packed;

    if (src == dst || bytes == 0)
        return MPI_SUCCESS;
    if (dt->contig) {
        memcpy((char *)dst + dt->true_lb, (const char *)src + dt->true_lb, bytes);
        return MPI_SUCCESS;
    }
    /* non-contiguous: through a packed copy, so the holes of dst are kept */
    packed = mpii_scratch_alloc(bytes);
    if (packed == NULL)
        return MPI_ERR_NO_MEM;
    mpii_datatype_pack(src, (size_t)count, dt, packed);
    mpii_datatype_unpack(packed, bytes, dst, (size_t)count, dt);
    mpii_scratch_free(packed);
    return MPI_SUCCESS;
}

int mpii_coll_pof2_floor(int n)
{
    int pof2 = 1;

    while (pof2 <= n / 2)
        pof2 <<= 1;
    return pof2;
}

/* ------------------------------------------------------------------ */
/* algorithm tables and selectors                                      */

typedef int (*barrier_fn_t)(mpii_comm_t *comm);
typedef int (*bcast_fn_t)(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm);
typedef int (*reduce_fn_t)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                           int root, mpii_comm_t *comm);
typedef int (*allreduce_fn_t)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                              mpii_comm_t *comm);

static int allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                  mpii_comm_t *comm);

/* the unsegmented bcasts in the table's signature */
static int bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm)
{
    (void)seg;
    return mpii_bcast_binomial(buf, count, dt, root, comm);
}

static int bcast_flat(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm)
{
    (void)seg;
    return mpii_bcast_flat(buf, count, dt, root, comm);
}

static int bcast_scatter_allgather(void *buf, int count, MPI_Datatype dt, int root, int seg,
                                   mpii_comm_t *comm)
{
    (void)seg;
    return mpii_bcast_scatter_allgather(buf, count, dt, root, comm);
}

/* Names live in model.c's tables (mpii_coll_algo_name), next to the costs. */
static const barrier_fn_t barrier_algos[MPII_BARRIER_ALGO_COUNT] = {
    [MPII_BARRIER_DISSEMINATION] = mpii_barrier_dissemination,
    [MPII_BARRIER_TREE] = mpii_barrier_tree,
    [MPII_BARRIER_RELEASE] = mpii_barrier_release,
};

static const bcast_fn_t bcast_algos[MPII_BCAST_ALGO_COUNT] = {
    [MPII_BCAST_BINOMIAL] = bcast_binomial,
    [MPII_BCAST_FLAT] = bcast_flat,
    [MPII_BCAST_CHAIN] = mpii_bcast_chain,
    [MPII_BCAST_BINTREE] = mpii_bcast_bintree,
    [MPII_BCAST_SCATTER_ALLGATHER] = bcast_scatter_allgather,
};

static const reduce_fn_t reduce_algos[MPII_REDUCE_ALGO_COUNT] = {
    [MPII_REDUCE_BINOMIAL] = mpii_reduce_binomial,
    [MPII_REDUCE_LINEAR] = mpii_reduce_linear,
    [MPII_REDUCE_RABENSEIFNER] = mpii_reduce_rabenseifner,
    [MPII_REDUCE_BINOMIAL_ORDERED] = mpii_reduce_binomial_ordered,
};

static const allreduce_fn_t allreduce_algos[MPII_ALLREDUCE_ALGO_COUNT] = {
    [MPII_ALLREDUCE_RECURSIVE_DOUBLING] = mpii_allreduce_recursive_doubling,
    [MPII_ALLREDUCE_REDUCE_BCAST] = allreduce_reduce_bcast,
    [MPII_ALLREDUCE_RABENSEIFNER] = mpii_allreduce_rabenseifner,
    [MPII_ALLREDUCE_RING] = mpii_allreduce_ring,
};

/*
 * A Bcast's buffers need only equal type signatures (MPI 4.0 6.4): the root
 * may send one element of a 4 KiB type that the others receive as 1024
 * MPI_INTs. So every rank chooses from the byte count alone (the same
 * everywhere; a count would differ), and an algorithm that splits the
 * message (segments, or a block per rank) splits bytes: a contiguous buffer
 * goes as MPI_BYTE in place, any other is packed into scratch at the root
 * and unpacked at the others. Flat and binomial trees move the whole
 * message in the caller's type. Splits of more than INT_MAX bytes are out
 * of the algorithms' int counts: binomial then, on every rank alike.
 */
static int bcast_run(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *c, int *algo_p)
{
    const mpii_datatype_t *d = mpii_datatype_get(dt);
    size_t bytes = (size_t)count * d->size, seg;
    int algo =
        mpii_coll_select(MPII_COLL_BCAST, c, bytes, bytes > LONG_MAX ? LONG_MAX : (long)bytes, 1, &seg);
    int segb = mpii_coll_seg_elems(seg, 1);
    char *tmp;
    int rc;

    if (algo != MPII_BCAST_BINOMIAL && algo != MPII_BCAST_FLAT && bytes > INT_MAX)
        algo = MPII_BCAST_BINOMIAL;
    *algo_p = algo;
    if (algo == MPII_BCAST_BINOMIAL || algo == MPII_BCAST_FLAT)
        return bcast_algos[algo](buf, count, dt, root, segb, c);
    if (d->contig)
        return bcast_algos[algo](mpii_coll_at(buf, d->true_lb), (int)bytes, MPI_BYTE, root, segb, c);
    tmp = mpii_scratch_alloc(bytes);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    if (c->rank == root)
        mpii_datatype_pack(buf, (size_t)count, d, tmp);
    rc = bcast_algos[algo](tmp, (int)bytes, MPI_BYTE, root, segb, c);
    if (rc == MPI_SUCCESS && c->rank != root)
        mpii_datatype_unpack(tmp, bytes, buf, (size_t)count, d);
    mpii_scratch_free(tmp);
    return rc;
}

/*
 * MPII_ALLREDUCE_REDUCE_BCAST: reduce to rank 0 with whatever the model
 * picks (rank order kept for non-commutative ops), then broadcast from 0.
 * Cost: T_reduce(m) + T_bcast(m). Composed of two algorithms, so it has no
 * file of its own.
 */
static int allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                  mpii_comm_t *comm)
{
    size_t esize = mpii_datatype_get(dt)->size;
    size_t bytes = (size_t)count * esize;
    size_t seg;
    int ralgo = mpii_coll_select(MPII_COLL_REDUCE, comm, bytes, count, mpii_op_is_commutative(op), &seg);
    const void *sbuf = sendbuf;
    int balgo, rc;

    /* MPI_IN_PLACE is allowed only at Reduce's root: elsewhere the input
     * already sits in recvbuf, which Reduce ignores at non-roots */
    if (sendbuf == MPI_IN_PLACE && comm->rank != 0)
        sbuf = recvbuf;
    rc = reduce_algos[ralgo](sbuf, recvbuf, count, dt, op, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return bcast_run(recvbuf, count, dt, 0, comm, &balgo);
}

/* ------------------------------------------------------------------ */
/* argument checks                                                     */

/* A NULL buffer with data to move is an error, except with MPI_BOTTOM
 * (== NULL) and a datatype of absolute addresses (true_lb != 0). */
static int buf_is_bad(const void *buf, int count, const mpii_datatype_t *dtp)
{
    return buf == NULL && count > 0 && dtp->size > 0 && dtp->true_lb == 0;
}

/* count, datatype and (when op != MPI_OP_NULL) op; MPI_SUCCESS or the error
 * reported on comm. */
static int check_count_type_op(mpii_comm_t *c, const char *fn, int count, MPI_Datatype dt, int root,
                               int check_root, MPI_Op op, int check_op)
{
    int rc;

    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "count %d is negative", count);
    rc = mpii_datatype_check(dt);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "datatype %d is invalid or not committed", dt);
    if (check_root && (root < 0 || root >= c->size))
        return mpii_err(c, MPI_ERR_ROOT, fn, "root %d is not in [0, %d)", root, c->size);
    if (check_op) {
        rc = mpii_op_check(op, dt);
        if (rc != MPI_SUCCESS) {
            char ob[32], tb[32];
            return mpii_err(c, rc, fn, "op %s is invalid or not defined on %s",
                            mpii_op_name(op, ob, sizeof ob), mpii_datatype_name(dt, tb, sizeof tb));
        }
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* public calls                                                        */

int MPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    mpii_comm_t *c;
    size_t seg;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_barrier(fn, c);

    if (c->size == 1)
        return MPI_SUCCESS;
    algo = mpii_coll_select(MPII_COLL_BARRIER, c, 0, 0, 1, &seg);
    rc = barrier_algos[algo](c);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s barrier failed: %s", mpii_coll_algo_name(MPII_COLL_BARRIER, algo),
                        mpii_error_class_string(rc));
    return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    mpii_comm_t *c;
    size_t bytes;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_bcast(fn, buffer, count, datatype, root, c);
    rc = check_count_type_op(c, fn, count, datatype, root, 1, MPI_OP_NULL, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (buf_is_bad(buffer, count, mpii_datatype_get(datatype)))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "buffer is NULL with count %d", count);
    if (count == 0 || c->size == 1)
        return MPI_SUCCESS;

    bytes = (size_t)count * mpii_datatype_get(datatype)->size;
    if (bytes == 0)
        return MPI_SUCCESS; /* a type without data: nothing to move */
    rc = bcast_run(buffer, count, datatype, root, c, &algo);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s bcast of %zu bytes from root %d failed: %s",
                        mpii_coll_algo_name(MPII_COLL_BCAST, algo), bytes, root, mpii_error_class_string(rc));
    return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    const mpii_datatype_t *dtp;
    mpii_comm_t *c;
    size_t bytes, seg;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_reduce(fn, sendbuf, recvbuf, count, datatype, op, root, c);
    rc = check_count_type_op(c, fn, count, datatype, root, 1, op, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    dtp = mpii_datatype_get(datatype);
    if (sendbuf == MPI_IN_PLACE) {
        if (c->rank != root)
            return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf is MPI_IN_PLACE at rank %d, not the root %d",
                            c->rank, root);
    } else if (buf_is_bad(sendbuf, count, dtp)) {
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with count %d", count);
    }
    if (c->rank == root) {
        if (buf_is_bad(recvbuf, count, dtp))
            return mpii_err(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with count %d at the root", count);
        if (count > 0 && sendbuf == recvbuf)
            return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    }
    if (count == 0)
        return MPI_SUCCESS;

    bytes = (size_t)count * dtp->size;
    algo = mpii_coll_select(MPII_COLL_REDUCE, c, bytes, count, mpii_op_is_commutative(op), &seg);
    rc = reduce_algos[algo](sendbuf, recvbuf, count, datatype, op, root, c);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s reduce of %zu bytes to root %d failed: %s",
                        mpii_coll_algo_name(MPII_COLL_REDUCE, algo), bytes, root,
                        mpii_error_class_string(rc));
    return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    const mpii_datatype_t *dtp;
    mpii_comm_t *c;
    size_t bytes, seg;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_allreduce(fn, sendbuf, recvbuf, count, datatype, op, c);
    rc = check_count_type_op(c, fn, count, datatype, 0, 0, op, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    dtp = mpii_datatype_get(datatype);
    if (sendbuf != MPI_IN_PLACE && buf_is_bad(sendbuf, count, dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with count %d", count);
    if (buf_is_bad(recvbuf, count, dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with count %d", count);
    if (count > 0 && sendbuf == recvbuf)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    if (count == 0)
        return MPI_SUCCESS;

    bytes = (size_t)count * dtp->size;
    algo = mpii_coll_select(MPII_COLL_ALLREDUCE, c, bytes, count, mpii_op_is_commutative(op), &seg);
    rc = allreduce_algos[algo](sendbuf, recvbuf, count, datatype, op, c);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s allreduce of %zu bytes failed: %s",
                        mpii_coll_algo_name(MPII_COLL_ALLREDUCE, algo), bytes, mpii_error_class_string(rc));
    return MPI_SUCCESS;
}
