/*
 * mpi/coll/coll_more.c: the public collectives MPI_Scatter, MPI_Scatterv,
 * MPI_Gather, MPI_Gatherv, MPI_Allgather, MPI_Allgatherv, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan,
 * MPI_Exscan, and the local MPI_Reduce_local and MPI_Op_commutative.
 *
 * As in coll.c: each call validates its arguments (an invalid communicator
 * goes to MPI_COMM_WORLD's handler, everything else to the communicator's),
 * checks only the arguments MPI makes significant at the calling rank (the
 * root's send side of a scatter, the receive side of a gather; none of
 * those replaced by MPI_IN_PLACE), asks the pLogP model (model.c) for an
 * algorithm and runs it from a table indexed by the enum of coll_more.h.
 * Every rank must get the same answer, so the model only sees values all
 * ranks share (comm size, block bytes, op).
 *
 * Also here: the local copy and pack helpers the algorithm files share.
 */
#include "coll_more.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* helpers for the algorithms                                          */

void mpii_coll_pack(const void *src, int count, MPI_Datatype dt, void *dst)
{
    mpii_datatype_pack(src, (size_t)count, mpii_datatype_get(dt), dst);
}

void mpii_coll_unpack(const void *src, void *dst, int count, MPI_Datatype dt)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(dt);

    mpii_datatype_unpack(src, (size_t)count * dtp->size, dst, (size_t)count, dtp);
}

int mpii_coll_local_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt)
{
    const mpii_datatype_t *s = mpii_datatype_get(sdt);
    const mpii_datatype_t *r = mpii_datatype_get(rdt);
    size_t sbytes = (size_t)scount * s->size;
    size_t rbytes = (size_t)rcount * r->size;
    void *packed;

    if (sbytes > rbytes)
        return MPI_ERR_TRUNCATE;
    if (sbytes == 0)
        return MPI_SUCCESS;
    if (sdt == rdt && scount == rcount)
        return mpii_coll_copy(sbuf, rbuf, scount, s);
    if (s->contig && r->contig) {
        memmove(mpii_coll_at(rbuf, r->true_lb), mpii_coll_at(sbuf, s->true_lb), sbytes);
        return MPI_SUCCESS;
    }
    packed = mpii_scratch_alloc(sbytes);
    if (packed == NULL)
        return MPI_ERR_NO_MEM;
    mpii_datatype_pack(sbuf, (size_t)scount, s, packed);
    mpii_datatype_unpack(packed, sbytes, rbuf, (size_t)rcount, r);
    mpii_scratch_free(packed);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* algorithm tables and selectors                                      */

typedef int (*scatter_fn_t)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm);
typedef scatter_fn_t gather_fn_t;
typedef int (*scatterv_fn_t)(const void *sendbuf, const int *sendcounts, const int *displs,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             int root, mpii_comm_t *comm);
typedef int (*gatherv_fn_t)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                            mpii_comm_t *comm);
typedef int (*allgather_fn_t)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, mpii_comm_t *comm);
typedef allgather_fn_t alltoall_fn_t;
typedef int (*allgatherv_fn_t)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                               mpii_comm_t *comm);
typedef int (*alltoallv_fn_t)(const void *sendbuf, const int *sendcounts, const int *sdispls,
                              MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                              MPI_Datatype recvtype, mpii_comm_t *comm);
typedef int (*reduce_scatter_fn_t)(const void *sendbuf, void *recvbuf, const int *recvcounts, MPI_Datatype dt,
                                   MPI_Op op, mpii_comm_t *comm);
typedef int (*scan_fn_t)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                         mpii_comm_t *comm);

/* Names live in model.c's tables (mpii_coll_algo_name), next to the costs. */
static const scatter_fn_t scatter_algos[MPII_SCATTER_ALGO_COUNT] = {
    [MPII_SCATTER_BINOMIAL] = mpii_scatter_binomial,
    [MPII_SCATTER_LINEAR] = mpii_scatter_linear,
};

static const gather_fn_t gather_algos[MPII_GATHER_ALGO_COUNT] = {
    [MPII_GATHER_BINOMIAL] = mpii_gather_binomial,
    [MPII_GATHER_LINEAR] = mpii_gather_linear,
};

static const scatterv_fn_t scatterv_algos[MPII_SCATTERV_ALGO_COUNT] = {
    [MPII_SCATTERV_LINEAR] = mpii_scatterv_linear,
};

static const gatherv_fn_t gatherv_algos[MPII_GATHERV_ALGO_COUNT] = {
    [MPII_GATHERV_LINEAR] = mpii_gatherv_linear,
};

static const allgather_fn_t allgather_algos[MPII_ALLGATHER_ALGO_COUNT] = {
    [MPII_ALLGATHER_RING] = mpii_allgather_ring,
    [MPII_ALLGATHER_RECURSIVE_DOUBLING] = mpii_allgather_recursive_doubling,
    [MPII_ALLGATHER_BRUCK] = mpii_allgather_bruck,
};

static const allgatherv_fn_t allgatherv_algos[MPII_ALLGATHERV_ALGO_COUNT] = {
    [MPII_ALLGATHERV_RING] = mpii_allgatherv_ring,
};

static const alltoall_fn_t alltoall_algos[MPII_ALLTOALL_ALGO_COUNT] = {
    [MPII_ALLTOALL_PAIRWISE] = mpii_alltoall_pairwise,
    [MPII_ALLTOALL_DIRECT] = mpii_alltoall_direct,
    [MPII_ALLTOALL_ROTATED] = mpii_alltoall_rotated,
    [MPII_ALLTOALL_BRUCK] = mpii_alltoall_bruck,
};

static const alltoallv_fn_t alltoallv_algos[MPII_ALLTOALLV_ALGO_COUNT] = {
    [MPII_ALLTOALLV_PAIRWISE] = mpii_alltoallv_pairwise,
};

static const reduce_scatter_fn_t reduce_scatter_algos[MPII_REDUCE_SCATTER_ALGO_COUNT] = {
    [MPII_REDUCE_SCATTER_BASIC] = mpii_reduce_scatter_basic,
};

static const scan_fn_t scan_algos[MPII_SCAN_ALGO_COUNT] = {
    [MPII_SCAN_LINEAR] = mpii_scan_linear,
};

static const scan_fn_t exscan_algos[MPII_EXSCAN_ALGO_COUNT] = {
    [MPII_EXSCAN_LINEAR] = mpii_exscan_linear,
};

/* The model's (or the forced) algorithm for an op whose applicability does
 * not depend on an element count or commutativity: `bytes` stands in for
 * the count so that every rank passes the same key. */
static int pick(mpii_coll_op_t op, mpii_comm_t *c, size_t bytes)
{
    size_t seg;
    return mpii_coll_select(op, c, bytes, (long)bytes, 1, &seg);
}

/* Average block bytes of a v-variant (the model's m), from the counts all
 * ranks share (recvcounts of allgatherv) or the local ones (the others: the
 * v variants have one algorithm each, so ranks cannot disagree). */
static size_t avg_bytes(const int *counts, int n, MPI_Datatype dt)
{
    long long total = 0;
    for (int i = 0; counts != NULL && i < n; i++)
        total += counts[i];
    return n > 0 ? (size_t)(total / n) * mpii_datatype_get(dt)->size : 0;
}

/* ------------------------------------------------------------------ */
/* argument checks (each returns MPI_SUCCESS or the error reported on c) */

/* A NULL buffer with data to move is an error, except with MPI_BOTTOM
 * (== NULL) and a datatype of absolute addresses (true_lb != 0). */
static int buf_is_bad(const void *buf, long long count, const mpii_datatype_t *dtp)
{
    return buf == NULL && count > 0 && dtp->size > 0 && dtp->true_lb == 0;
}

/* count >= 0, committed datatype and a usable buffer for `nelems` elements
 * (count times the number of blocks the buffer holds). `what` names the
 * side ("send", "receive"). */
int mpii_coll_check_side(mpii_comm_t *c, const char *fn, const char *what, const void *buf, int count,
                      long long nelems, MPI_Datatype dt)
{
    int rc;

    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "%scount %d is negative", what, count);
    rc = mpii_datatype_check(dt);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%stype %d is invalid or not committed", what, dt);
    if (buf == MPI_IN_PLACE)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "%sbuf is MPI_IN_PLACE where MPI does not allow it", what);
    if (buf_is_bad(buf, nelems, mpii_datatype_get(dt)))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with %scount %d", what, what, count);
    return MPI_SUCCESS;
}

/* The v variants: counts and displacements arrays of P entries, counts
 * >= 0, committed datatype, usable buffer. */
static int check_side_v(mpii_comm_t *c, const char *fn, const char *what, const void *buf, const int *counts,
                        const char *counts_name, const int *displs, const char *displs_name, MPI_Datatype dt)
{
    long long total = 0;
    int rc;

    if (counts == NULL)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", counts_name);
    if (displs == NULL)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", displs_name);
    for (int i = 0; i < c->size; i++) {
        if (counts[i] < 0)
            return mpii_err(c, MPI_ERR_COUNT, fn, "%s[%d] = %d is negative", counts_name, i, counts[i]);
        total += counts[i];
    }
    rc = mpii_datatype_check(dt);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%stype %d is invalid or not committed", what, dt);
    if (buf == MPI_IN_PLACE)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "%sbuf is MPI_IN_PLACE where MPI does not allow it", what);
    if (buf_is_bad(buf, total, mpii_datatype_get(dt)))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with non-zero %s", what, counts_name);
    return MPI_SUCCESS;
}

/* count, datatype, op of the reductions. */
static int check_count_type_op(mpii_comm_t *c, const char *fn, int count, MPI_Datatype dt, MPI_Op op)
{
    int rc;

    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "count %d is negative", count);
    rc = mpii_datatype_check(dt);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "datatype %d is invalid or not committed", dt);
    rc = mpii_op_check(op, dt);
    if (rc != MPI_SUCCESS) {
        char ob[32], tb[32];
        return mpii_err(c, rc, fn, "op %s is invalid or not defined on %s", mpii_op_name(op, ob, sizeof ob),
                        mpii_datatype_name(dt, tb, sizeof tb));
    }
    return MPI_SUCCESS;
}

static int check_root(mpii_comm_t *c, const char *fn, int root)
{
    if (root < 0 || root >= c->size)
        return mpii_err(c, MPI_ERR_ROOT, fn, "root %d is not in [0, %d)", root, c->size);
    return MPI_SUCCESS;
}

static size_t side_bytes(int count, MPI_Datatype dt)
{
    return (size_t)count * mpii_datatype_get(dt)->size;
}

/* An algorithm's error, reported once on the communicator. */
static int algo_failed(mpii_comm_t *c, const char *fn, const char *algo, int rc)
{
    return mpii_err(c, rc, fn, "%s algorithm failed: %s", algo, mpii_error_class_string(rc));
}

/* ------------------------------------------------------------------ */
/* scatter and gather                                                  */

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatter";
    mpii_comm_t *c;
    size_t bytes;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_rooted(fn, 0, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL,
                                 NULL, recvtype, root, c);
    rc = check_root(c, fn, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, (long long)sendcount * c->size, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (recvbuf != MPI_IN_PLACE || c->rank != root) {
        rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, recvcount, recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->rank == root && sendbuf == recvbuf && side_bytes(recvcount, recvtype) > 0)
            return mpii_err(c, MPI_ERR_BUFFER, fn,
                            "sendbuf and recvbuf alias at the root (use MPI_IN_PLACE)");
    }

    bytes = c->rank == root ? side_bytes(sendcount, sendtype) : side_bytes(recvcount, recvtype);
    if (bytes == 0)
        return MPI_SUCCESS;
    algo = pick(MPII_COLL_SCATTER, c, bytes);
    rc = scatter_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_SCATTER, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gather";
    mpii_comm_t *c;
    size_t bytes;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_rooted(fn, 1, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount, NULL,
                                 NULL, recvtype, root, c);
    rc = check_root(c, fn, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {
        rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, (long long)recvcount * c->size, recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (sendbuf != MPI_IN_PLACE || c->rank != root) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, sendcount, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->rank == root && sendbuf == recvbuf && side_bytes(sendcount, sendtype) > 0)
            return mpii_err(c, MPI_ERR_BUFFER, fn,
                            "sendbuf and recvbuf alias at the root (use MPI_IN_PLACE)");
    }

    bytes = c->rank == root ? side_bytes(recvcount, recvtype) : side_bytes(sendcount, sendtype);
    if (bytes == 0)
        return MPI_SUCCESS;
    algo = pick(MPII_COLL_GATHER, c, bytes);
    rc = gather_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_GATHER, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    mpii_comm_t *c;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_rooted(fn, 0, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, NULL,
                                 NULL, recvtype, root, c);
    rc = check_root(c, fn, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {
        rc = check_side_v(c, fn, "send", sendbuf, sendcounts, "sendcounts", displs, "displs", sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (recvbuf != MPI_IN_PLACE || c->rank != root) {
        rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, recvcount, recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->rank == root && sendbuf == recvbuf && side_bytes(recvcount, recvtype) > 0)
            return mpii_err(c, MPI_ERR_BUFFER, fn,
                            "sendbuf and recvbuf alias at the root (use MPI_IN_PLACE)");
    }

    algo = pick(MPII_COLL_SCATTERV, c, c->rank == root ? avg_bytes(sendcounts, c->size, sendtype) : 0);
    rc = scatterv_algos[algo](sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_SCATTERV, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    mpii_comm_t *c;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_rooted(fn, 1, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, 0, recvcounts,
                                 displs, recvtype, root, c);
    rc = check_root(c, fn, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {
        rc = check_side_v(c, fn, "recv", recvbuf, recvcounts, "recvcounts", displs, "displs", recvtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (sendbuf != MPI_IN_PLACE || c->rank != root) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, sendcount, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->rank == root && sendbuf == recvbuf && side_bytes(sendcount, sendtype) > 0)
            return mpii_err(c, MPI_ERR_BUFFER, fn,
                            "sendbuf and recvbuf alias at the root (use MPI_IN_PLACE)");
    }

    algo = pick(MPII_COLL_GATHERV, c, c->rank == root ? avg_bytes(recvcounts, c->size, recvtype) : 0);
    rc = gatherv_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_GATHERV, algo), rc);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* allgather and alltoall                                              */

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
    mpii_comm_t *c;
    size_t bytes;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_all(fn, 0, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf, recvcount, NULL,
                              NULL, recvtype, NULL, c);
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, sendcount, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, (long long)recvcount * c->size, recvtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((sendbuf == recvbuf && side_bytes(recvcount, recvtype) > 0) ||
        mpii_coll_bufs_overlap(sendbuf, 0, sendcount, sendtype, recvbuf, 0, (long long)recvcount * c->size,
                               recvtype))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");

    bytes = side_bytes(recvcount, recvtype);
    if (bytes == 0)
        return MPI_SUCCESS;
    algo = pick(MPII_COLL_ALLGATHER, c, bytes);
    rc = allgather_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_ALLGATHER, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    mpii_comm_t *c;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_all(fn, 0, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf, 0, recvcounts,
                              displs, recvtype, NULL, c);
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, sendcount, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = check_side_v(c, fn, "recv", recvbuf, recvcounts, "recvcounts", displs, "displs", recvtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == recvbuf && side_bytes(sendcount, sendtype) > 0)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    for (int i = 0; i < c->size; i++)
        if (mpii_coll_bufs_overlap(sendbuf, 0, sendcount, sendtype, recvbuf, displs[i], recvcounts[i],
                                   recvtype))
            return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");

    algo = pick(MPII_COLL_ALLGATHERV, c, avg_bytes(recvcounts, c->size, recvtype));
    rc = allgatherv_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_ALLGATHERV, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    mpii_comm_t *c;
    size_t bytes;
    void *saved = NULL, *saved_base = NULL;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_all(fn, 1, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf, recvcount, NULL,
                              NULL, recvtype, NULL, c);
    if (sendbuf != MPI_IN_PLACE) {
        rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, (long long)sendcount * c->size, sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, (long long)recvcount * c->size, recvtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((sendbuf == recvbuf && side_bytes(recvcount, recvtype) > 0) ||
        mpii_coll_bufs_overlap(sendbuf, 0, (long long)sendcount * c->size, sendtype, recvbuf, 0,
                               (long long)recvcount * c->size, recvtype))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");

    bytes = side_bytes(recvcount, recvtype);
    if (bytes == 0)
        return MPI_SUCCESS;
    algo = pick(MPII_COLL_ALLTOALL, c, bytes);
    if (sendbuf == MPI_IN_PLACE && algo != MPII_ALLTOALL_PAIRWISE) {
        /* only pairwise works in place: the others read the input from a
         * copy, laid out like recvbuf */
        const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
        rc = mpii_coll_tmp_alloc(recvcount * c->size, rdt, &saved, &saved_base);
        if (rc == MPI_SUCCESS)
            rc = mpii_coll_copy(recvbuf, saved, recvcount * c->size, rdt);
        if (rc != MPI_SUCCESS) {
            mpii_scratch_free(saved_base);
            return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_ALLTOALL, algo), rc);
        }
        sendbuf = saved;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    rc = alltoall_algos[algo](sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
    mpii_scratch_free(saved_base);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_ALLTOALL, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    mpii_comm_t *c;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_all(fn, 1, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0, recvcounts,
                              rdispls, recvtype, NULL, c);
    if (sendbuf != MPI_IN_PLACE) {
        rc = check_side_v(c, fn, "send", sendbuf, sendcounts, "sendcounts", sdispls, "sdispls", sendtype);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = check_side_v(c, fn, "recv", recvbuf, recvcounts, "recvcounts", rdispls, "rdispls", recvtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == recvbuf) {
        for (int i = 0; i < c->size; i++)
            if (side_bytes(recvcounts[i], recvtype) > 0)
                return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    }

    algo = pick(MPII_COLL_ALLTOALLV, c, avg_bytes(recvcounts, c->size, recvtype));
    rc = alltoallv_algos[algo](sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                               c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(MPII_COLL_ALLTOALLV, algo), rc);
    return MPI_SUCCESS;
}

/* One side of MPI_Alltoallw: counts, byte displacements and a type per
 * peer. */
static int check_side_w(mpii_comm_t *c, const char *fn, const char *what, const void *buf, const int *counts,
                        const int *displs, const MPI_Datatype *types)
{
    int any = 0;

    if (counts == NULL || displs == NULL || types == NULL)
        return mpii_err(c, MPI_ERR_ARG, fn, "%scounts, %sdispls or %stypes is NULL", what, what[0] == 's' ? "s" : "r",
                        what);
    for (int i = 0; i < c->size; i++) {
        if (counts[i] < 0)
            return mpii_err(c, MPI_ERR_COUNT, fn, "%scounts[%d] = %d is negative", what, i, counts[i]);
        int rc = mpii_datatype_check(types[i]);
        if (rc != MPI_SUCCESS)
            return mpii_err(c, rc, fn, "%stypes[%d] = %d is invalid or not committed", what, i, types[i]);
        any |= side_bytes(counts[i], types[i]) > 0;
    }
    if (buf == NULL && any)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with data to move", what);
    return MPI_SUCCESS;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_all(fn, 1, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                              0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, c);
    if (recvbuf == MPI_IN_PLACE)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE where MPI does not allow it");
    if (sendbuf != MPI_IN_PLACE) {
        rc = check_side_w(c, fn, "send", sendbuf, sendcounts, sdispls, sendtypes);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = check_side_w(c, fn, "recv", recvbuf, recvcounts, rdispls, recvtypes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == recvbuf) {
        for (int i = 0; i < c->size; i++)
            if (side_bytes(recvcounts[i], recvtypes[i]) > 0)
                return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    }
    rc = mpii_alltoallw_pairwise(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, "pairwise", rc);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* reduce-scatter and scans                                            */

/* The common part of the two reduce-scatters: buffers, then the run.
 * `counts` has P entries; `total` is their sum. */
static int reduce_scatter_run(mpii_comm_t *c, const char *fn, mpii_coll_op_t which, const void *sendbuf,
                              void *recvbuf, const int *counts, long long total, MPI_Datatype datatype,
                              MPI_Op op)
{
    const mpii_datatype_t *dtp = mpii_datatype_get(datatype);
    size_t seg;
    int algo, rc;

    if (sendbuf != MPI_IN_PLACE && buf_is_bad(sendbuf, total, dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with %lld elements to reduce", total);
    if (buf_is_bad(recvbuf, sendbuf == MPI_IN_PLACE ? total : counts[c->rank], dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with data to receive");
    if (sendbuf == recvbuf && total > 0)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    if (total > INT_MAX)
        return mpii_err(c, MPI_ERR_COUNT, fn,
                        "%lld elements in all: more than this implementation reduces at once", total);
    if (total == 0 || dtp->size == 0)
        return MPI_SUCCESS;

    algo = mpii_coll_select(which, c, (size_t)(total / c->size) * dtp->size, (long)(total / c->size),
                            mpii_op_is_commutative(op), &seg);
    rc = reduce_scatter_algos[algo](sendbuf, recvbuf, counts, datatype, op, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(which, algo), rc);
    return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter_block";
    mpii_comm_t *c;
    int *counts;
    int rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_reduce_scatter(fn, sendbuf, recvbuf, recvcount, NULL, datatype, op, c);
    rc = check_count_type_op(c, fn, recvcount, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    counts = malloc(sizeof(*counts) * (size_t)c->size);
    if (counts == NULL)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory for %d counts", c->size);
    for (int i = 0; i < c->size; i++)
        counts[i] = recvcount;
    rc = reduce_scatter_run(c, fn, MPII_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, counts,
                            (long long)recvcount * c->size, datatype, op);
    free(counts);
    return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter";
    long long total = 0;
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_inter_reduce_scatter(fn, sendbuf, recvbuf, 0, recvcounts, datatype, op, c);
    if (recvcounts == NULL)
        return mpii_err(c, MPI_ERR_ARG, fn, "recvcounts is NULL");
    for (int i = 0; i < c->size; i++) {
        if (recvcounts[i] < 0)
            return mpii_err(c, MPI_ERR_COUNT, fn, "recvcounts[%d] = %d is negative", i, recvcounts[i]);
        total += recvcounts[i];
    }
    rc = check_count_type_op(c, fn, 0, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    return reduce_scatter_run(c, fn, MPII_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcounts, total, datatype,
                              op);
}

/* Scan and Exscan share their checks; `exclusive` picks the table. */
static int scan_common(const char *fn, int exclusive, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const mpii_datatype_t *dtp;
    mpii_comm_t *c;
    size_t bytes, seg;
    int algo, rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (c == NULL)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter) /* (MPI 4.0 6.11: intra-communicators only) */
        return mpii_err(c, MPI_ERR_COMM, fn, "communicator %d is an inter-communicator", comm);
    rc = check_count_type_op(c, fn, count, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    dtp = mpii_datatype_get(datatype);
    if (sendbuf != MPI_IN_PLACE && buf_is_bad(sendbuf, count, dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with count %d", count);
    if (buf_is_bad(recvbuf, count, dtp))
        return mpii_err(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with count %d", count);
    if (count > 0 && sendbuf == recvbuf)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "sendbuf and recvbuf alias (use MPI_IN_PLACE)");
    bytes = (size_t)count * dtp->size;
    if (bytes == 0)
        return MPI_SUCCESS;

    algo = mpii_coll_select(exclusive ? MPII_COLL_EXSCAN : MPII_COLL_SCAN, c, bytes, count,
                            mpii_op_is_commutative(op), &seg);
    if (exclusive)
        rc = exscan_algos[algo](sendbuf, recvbuf, count, datatype, op, c);
    else
        rc = scan_algos[algo](sendbuf, recvbuf, count, datatype, op, c);
    if (rc != MPI_SUCCESS)
        return algo_failed(c, fn, mpii_coll_algo_name(exclusive ? MPII_COLL_EXSCAN : MPII_COLL_SCAN, algo),
                           rc);
    return MPI_SUCCESS;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan_common("MPI_Scan", 0, sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan_common("MPI_Exscan", 1, sendbuf, recvbuf, count, datatype, op, comm);
}

/* ------------------------------------------------------------------ */
/* local operations                                                    */

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    static const char fn[] = "MPI_Reduce_local";
    const mpii_datatype_t *dtp;
    int rc;

    MPII_CHECK_INIT(fn);
    rc = check_count_type_op(NULL, fn, count, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    dtp = mpii_datatype_get(datatype);
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed");
    if (buf_is_bad(inbuf, count, dtp))
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "inbuf is NULL with count %d", count);
    if (buf_is_bad(inoutbuf, count, dtp))
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "inoutbuf is NULL with count %d", count);
    if (inbuf == inoutbuf && count > 0 && dtp->size > 0)
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "inbuf and inoutbuf are the same buffer");
    mpii_op_apply(op, inbuf, inoutbuf, count, datatype);
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char fn[] = "MPI_Op_commutative";

    MPII_CHECK_INIT(fn);
    /* mpii_op_check judges the handle before the datatype: with no datatype
     * it returns MPI_ERR_OP only for an invalid op */
    if (mpii_op_check(op, MPI_DATATYPE_NULL) == MPI_ERR_OP)
        return mpii_err(NULL, MPI_ERR_OP, fn, "invalid op %d", op);
    if (commute == NULL)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "commute is NULL");
    *commute = mpii_op_is_commutative(op);
    return MPI_SUCCESS;
}
