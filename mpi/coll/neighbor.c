/*
 * mpi/coll/neighbor.c: the neighborhood collectives (MPI 3.1 7.6:
 * MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w)) on communicators
 * with a Cartesian topology, the only topology mbmpi has.
 *
 * Neighbors (MPI 3.1 7.6): for each dimension d in order, the source and
 * then the destination of MPI_Cart_shift(comm, d, 1), so 2 ndims of them;
 * MPI_PROC_NULL ones are skipped (their blocks are neither sent nor
 * touched). Block 2d goes to / comes from the neighbor below in dimension
 * d, block 2d + 1 the one above.
 *
 * Algorithm: every receive posted, then every send, then one wait (the
 * direct exchange of alltoall_direct.c over 2 ndims partners), in the
 * collective context. Matching: with periodic dimensions of size 1 or 2 the
 * same rank is a neighbor several times, possibly in both directions. A
 * message sent downwards (block 2d) carries tag MPII_COLL_TAG_NEIGHBOR, one
 * sent upwards tag + 1, and the receiver expects the opposite direction's
 * tag from each side: the block a rank receives from below was sent
 * upwards. Between one pair the dimensions pair up in order on both sides,
 * so same-tag messages match in order.
 *
 * Cost: (2 ndims) messages each way, concurrent: no model choice (one
 * algorithm).
 */
#include "coll_more.h"
#include "mpi/mpi3.h"

#include <stdlib.h>

#define NB_MAX (2 * 32) /* neighbors of a Cartesian topology (MPI_Cart_create limits ndims) */

typedef struct {
    int n;            /* 2 ndims */
    int rank[NB_MAX]; /* neighbor k, or MPI_PROC_NULL */
} nbrs_t;

static int get_nbrs(const char *fn, MPI_Comm comm, mpii_comm_t **c_p, nbrs_t *nb)
{
    mpii_comm_t *c;
    MPII_CHECK_INIT(fn);
    c = *c_p = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (c->topo_kind != MPI_CART)
        return mpii_err(c, MPI_ERR_TOPOLOGY, fn, "communicator has no Cartesian topology");
    if (2 * c->ndims > NB_MAX)
        return mpii_err(c, MPI_ERR_TOPOLOGY, fn, "%d dimensions: at most %d supported", c->ndims, NB_MAX / 2);
    nb->n = 2 * c->ndims;
    for (int d = 0; d < c->ndims; d++) {
        int stride = 1, n = c->dims[d], x, lo, hi;
        for (int i = c->ndims - 1; i > d; i--)
            stride *= c->dims[i];
        x = c->rank / stride % n;
        lo = x - 1;
        hi = x + 1;
        if (c->periods[d]) {
            lo = (lo + n) % n;
            hi = hi % n;
        }
        nb->rank[2 * d] = lo < 0 ? MPI_PROC_NULL : c->rank + (lo - x) * stride;
        nb->rank[2 * d + 1] = hi >= n ? MPI_PROC_NULL : c->rank + (hi - x) * stride;
    }
    return MPI_SUCCESS;
}

static int check_type(mpii_comm_t *c, const char *fn, const char *what, int count, MPI_Datatype dt)
{
    int rc;
    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "%scount %d is negative", what, count);
    rc = mpii_datatype_check(dt);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%stype %d is invalid or not committed", what, dt);
    return MPI_SUCCESS;
}

/* the block of neighbor k on one side: buf + displacement (bytes), count
 * elements of dt */
typedef struct {
    const void *buf;
    int count;
    MPI_Datatype dt;
} blk_t;

/* Post the receives, then the sends, wait; blocks given by the callers. */
static int exchange(const char *fn, mpii_comm_t *c, const nbrs_t *nb, const blk_t *sb, const blk_t *rb)
{
    MPI_Request reqs[2 * NB_MAX];
    int nreq = 0, rc = MPI_SUCCESS, wrc;

    for (int k = 0; k < nb->n && rc == MPI_SUCCESS; k++) {
        if (nb->rank[k] == MPI_PROC_NULL)
            continue;
        /* from below (k even) comes what was sent upwards (tag + 1) */
        rc = mpii_irecv_ctx((void *)rb[k].buf, rb[k].count, rb[k].dt, nb->rank[k],
                            MPII_COLL_TAG_NEIGHBOR + !(k & 1), c, 1, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    for (int k = 0; k < nb->n && rc == MPI_SUCCESS; k++) {
        if (nb->rank[k] == MPI_PROC_NULL)
            continue;
        rc = mpii_isend_ctx(sb[k].buf, sb[k].count, sb[k].dt, nb->rank[k], MPII_COLL_TAG_NEIGHBOR + (k & 1),
                            c, 1, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    wrc = mpii_waitall(nreq, reqs);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "exchange with the neighbors failed: %s", mpii_error_class_string(rc));
    return MPI_SUCCESS;
}

static MPI_Aint extent_of(MPI_Datatype dt)
{
    return mpii_datatype_get(dt)->extent;
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_allgather";
    mpii_comm_t *c;
    nbrs_t nb;
    blk_t sb[NB_MAX], rb[NB_MAX];
    int rc = get_nbrs(fn, comm, &c, &nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_type(c, fn, "send", sendcount, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", recvcount, recvtype)) != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nb.n; k++) {
        sb[k] = (blk_t){sendbuf, sendcount, sendtype};
        rb[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)k * recvcount * extent_of(recvtype)), recvcount,
                        recvtype};
    }
    return exchange(fn, c, &nb, sb, rb);
}

static int check_counts(mpii_comm_t *c, const char *fn, const char *what, const int *counts,
                        const void *displs, int n)
{
    if (n > 0 && (!counts || !displs))
        return mpii_err(c, MPI_ERR_ARG, fn, "%scounts or %sdispls is NULL", what, what);
    for (int k = 0; k < n; k++)
        if (counts[k] < 0)
            return mpii_err(c, MPI_ERR_COUNT, fn, "%scounts[%d] = %d is negative", what, k, counts[k]);
    return MPI_SUCCESS;
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_allgatherv";
    mpii_comm_t *c;
    nbrs_t nb;
    blk_t sb[NB_MAX], rb[NB_MAX];
    int rc = get_nbrs(fn, comm, &c, &nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_type(c, fn, "send", sendcount, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", 0, recvtype)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, displs, nb.n)) != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nb.n; k++) {
        sb[k] = (blk_t){sendbuf, sendcount, sendtype};
        rb[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)displs[k] * extent_of(recvtype)), recvcounts[k],
                        recvtype};
    }
    return exchange(fn, c, &nb, sb, rb);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoall";
    mpii_comm_t *c;
    nbrs_t nb;
    blk_t sb[NB_MAX], rb[NB_MAX];
    int rc = get_nbrs(fn, comm, &c, &nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_type(c, fn, "send", sendcount, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", recvcount, recvtype)) != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nb.n; k++) {
        sb[k] = (blk_t){mpii_coll_at(sendbuf, (MPI_Aint)k * sendcount * extent_of(sendtype)), sendcount,
                        sendtype};
        rb[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)k * recvcount * extent_of(recvtype)), recvcount,
                        recvtype};
    }
    return exchange(fn, c, &nb, sb, rb);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoallv";
    mpii_comm_t *c;
    nbrs_t nb;
    blk_t sb[NB_MAX], rb[NB_MAX];
    int rc = get_nbrs(fn, comm, &c, &nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_type(c, fn, "send", 0, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", 0, recvtype)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "send", sendcounts, sdispls, nb.n)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, rdispls, nb.n)) != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < nb.n; k++) {
        sb[k] = (blk_t){mpii_coll_at(sendbuf, (MPI_Aint)sdispls[k] * extent_of(sendtype)), sendcounts[k],
                        sendtype};
        rb[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)rdispls[k] * extent_of(recvtype)), recvcounts[k],
                        recvtype};
    }
    return exchange(fn, c, &nb, sb, rb);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoallw";
    mpii_comm_t *c;
    nbrs_t nb;
    blk_t sb[NB_MAX], rb[NB_MAX];
    int rc = get_nbrs(fn, comm, &c, &nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_counts(c, fn, "send", sendcounts, sdispls, nb.n)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, rdispls, nb.n)) != MPI_SUCCESS)
        return rc;
    if (nb.n > 0 && (!sendtypes || !recvtypes))
        return mpii_err(c, MPI_ERR_ARG, fn, "sendtypes or recvtypes is NULL");
    for (int k = 0; k < nb.n; k++) {
        if ((rc = check_type(c, fn, "send", sendcounts[k], sendtypes[k])) != MPI_SUCCESS ||
            (rc = check_type(c, fn, "recv", recvcounts[k], recvtypes[k])) != MPI_SUCCESS)
            return rc;
        sb[k] = (blk_t){mpii_coll_at(sendbuf, sdispls[k]), sendcounts[k], sendtypes[k]};
        rb[k] = (blk_t){mpii_coll_at(recvbuf, rdispls[k]), recvcounts[k], recvtypes[k]};
    }
    return exchange(fn, c, &nb, sb, rb);
}
