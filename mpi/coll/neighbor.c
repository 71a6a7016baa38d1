/*
 * mpi/coll/neighbor.c: the neighborhood collectives (MPI 3.1 7.6:
 * MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w)) on communicators
 * with a Cartesian, graph or distributed graph topology (mpi/topo.c,
 * mpi/topo_graph.c).
 *
 * Neighbors (MPI 3.1 7.6): Cartesian, for each dimension d in order, the
 * source and then the destination of MPI_Cart_shift(comm, d, 1), so
 * 2 ndims of them, both to send to and to receive from; MPI_PROC_NULL ones
 * are skipped (their blocks are neither sent nor touched). Graph: the
 * MPI_Graph_neighbors of the rank, both ways. Distributed graph: receive
 * from the sources, send to the destinations, in their order.
 *
 * Algorithm: every receive posted, then every send, then one wait (the
 * direct exchange of alltoall_direct.c over the neighbors), in the
 * collective context. Matching: the same rank may be a neighbor several
 * times. Graphs: the k-th message from a to b meets the k-th receive b
 * posts from a (one tag, messages do not overtake), and both sides list
 * parallel edges in the same order (graph: the edge list is symmetric by
 * definition; distributed graphs: topo_graph.c sorts them alike).
 * Cartesian: with periodic dimensions of size 1 or 2 a rank is a neighbor
 * in both directions; a message sent downwards (block 2d) carries tag
 * MPII_COLL_TAG_NEIGHBOR, one sent upwards tag + 1, and the block a rank
 * receives from below was sent upwards. Between one pair the dimensions
 * pair up in order on both sides, so same-tag messages match in order.
 *
 * Cost: one message per edge each way, concurrent: no model choice (one
 * algorithm).
 */
#include "coll_more.h"
#include "mpi/mpi3.h"

#include <stdlib.h>

#define NB_STACK 64 /* neighbors handled without malloc */

typedef struct {
    int nin, nout;
    const int *in, *out; /* the neighbors (MPI_PROC_NULL: none) */
    int cart;            /* Cartesian: tags by direction */
    int cart_nbr[NB_STACK];
} nbrs_t;

static int get_nbrs(const char *fn, MPI_Comm comm, mpii_comm_t **c_p, nbrs_t *nb)
{
    mpii_comm_t *c;
    MPII_CHECK_INIT(fn);
    c = *c_p = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    nb->cart = 0;
    switch (c->topo_kind) {
    case MPI_GRAPH: {
        int first = c->rank ? c->g_index[c->rank - 1] : 0;
        nb->nin = nb->nout = c->g_index[c->rank] - first;
        nb->in = nb->out = c->g_edges + first;
        return MPI_SUCCESS;
    }
    case MPI_DIST_GRAPH:
        nb->nin = c->d_indeg;
        nb->nout = c->d_outdeg;
        nb->in = c->d_src;
        nb->out = c->d_dst;
        return MPI_SUCCESS;
    case MPI_CART:
        break;
    default:
        return mpii_err(c, MPI_ERR_TOPOLOGY, fn, "communicator has no topology");
    }
    if (2 * c->ndims > NB_STACK)
        return mpii_err(c, MPI_ERR_TOPOLOGY, fn, "%d dimensions: at most %d supported", c->ndims,
                        NB_STACK / 2);
    nb->cart = 1;
    nb->nin = nb->nout = 2 * c->ndims;
    nb->in = nb->out = nb->cart_nbr;
    for (int d = 0; d < c->ndims; d++)
        mpii_cart_shift(c, d, 1, &nb->cart_nbr[2 * d], &nb->cart_nbr[2 * d + 1]);
    return MPI_SUCCESS;
}

/* a type alone (the v and w variants: their buffers are checked per block) */
static int check_type(mpii_comm_t *c, const char *fn, const char *what, int count, MPI_Datatype dt)
{
    return mpii_coll_check_side(c, fn, what, NULL, count, 0, dt);
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
    MPI_Request reqs_stack[2 * NB_STACK], *reqs = reqs_stack;
    int nreq = 0, rc = MPI_SUCCESS, wrc;

    if (nb->nin + nb->nout > 2 * NB_STACK) {
        reqs = malloc((size_t)(nb->nin + nb->nout) * sizeof(*reqs));
        if (!reqs)
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int k = 0; k < nb->nin && rc == MPI_SUCCESS; k++) {
        if (nb->in[k] == MPI_PROC_NULL)
            continue;
        /* Cartesian: from below (k even) comes what was sent upwards (tag + 1) */
        rc = mpii_irecv_ctx((void *)rb[k].buf, rb[k].count, rb[k].dt, nb->in[k],
                            MPII_COLL_TAG_NEIGHBOR + (nb->cart && !(k & 1)), c, 1, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    for (int k = 0; k < nb->nout && rc == MPI_SUCCESS; k++) {
        if (nb->out[k] == MPI_PROC_NULL)
            continue;
        rc = mpii_isend_ctx(sb[k].buf, sb[k].count, sb[k].dt, nb->out[k],
                            MPII_COLL_TAG_NEIGHBOR + (nb->cart && (k & 1)), c, 1, &reqs[nreq]);
        if (rc == MPI_SUCCESS)
            nreq++;
    }
    wrc = mpii_waitall(nreq, reqs);
    if (reqs != reqs_stack)
        free(reqs);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "exchange with the neighbors failed: %s", mpii_error_class_string(rc));
    return MPI_SUCCESS;
}

/* block arrays for nb: on the stack up to NB_STACK neighbors */
typedef struct {
    blk_t s_stack[NB_STACK], r_stack[NB_STACK];
    blk_t *s, *r;
} blks_t;

static int blks_get(blks_t *b, const nbrs_t *nb)
{
    b->s = b->s_stack;
    b->r = b->r_stack;
    if (nb->nout > NB_STACK && !(b->s = malloc((size_t)nb->nout * sizeof(blk_t))))
        return MPI_ERR_NO_MEM;
    if (nb->nin > NB_STACK && !(b->r = malloc((size_t)nb->nin * sizeof(blk_t)))) {
        if (b->s != b->s_stack)
            free(b->s);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int blks_run(const char *fn, mpii_comm_t *c, const nbrs_t *nb, blks_t *b)
{
    int rc = exchange(fn, c, nb, b->s, b->r);
    if (b->s != b->s_stack)
        free(b->s);
    if (b->r != b->r_stack)
        free(b->r);
    return rc;
}

static MPI_Aint extent_of(MPI_Datatype dt)
{
    return mpii_datatype_get(dt)->extent;
}

/* The head of every call: neighbors, block arrays; `ret` on failure. */
#define NBR_BEGIN(fn_name)                                                                                   \
    static const char fn[] = fn_name;                                                                        \
    mpii_comm_t *c;                                                                                          \
    nbrs_t nb;                                                                                               \
    blks_t b;                                                                                                \
    int rc = get_nbrs(fn, comm, &c, &nb);                                                                    \
    if (rc != MPI_SUCCESS)                                                                                   \
    return rc

#define NBR_BLOCKS()                                                                                         \
    do {                                                                                                     \
        if (blks_get(&b, &nb) != MPI_SUCCESS)                                                                \
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");                                         \
    } while (0)

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

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    NBR_BEGIN("MPI_Neighbor_allgather");
    if ((rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, sendcount, sendtype)) != MPI_SUCCESS ||
        (rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, (long long)recvcount * nb.nin,
                                   recvtype)) != MPI_SUCCESS)
        return rc;
    NBR_BLOCKS();
    for (int k = 0; k < nb.nout; k++)
        b.s[k] = (blk_t){sendbuf, sendcount, sendtype};
    for (int k = 0; k < nb.nin; k++)
        b.r[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)k * recvcount * extent_of(recvtype)), recvcount,
                         recvtype};
    return blks_run(fn, c, &nb, &b);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    NBR_BEGIN("MPI_Neighbor_allgatherv");
    if ((rc = check_type(c, fn, "send", sendcount, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", 0, recvtype)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, displs, nb.nin)) != MPI_SUCCESS)
        return rc;
    NBR_BLOCKS();
    for (int k = 0; k < nb.nout; k++)
        b.s[k] = (blk_t){sendbuf, sendcount, sendtype};
    for (int k = 0; k < nb.nin; k++)
        b.r[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)displs[k] * extent_of(recvtype)), recvcounts[k],
                         recvtype};
    return blks_run(fn, c, &nb, &b);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    NBR_BEGIN("MPI_Neighbor_alltoall");
    if ((rc = mpii_coll_check_side(c, fn, "send", sendbuf, sendcount, (long long)sendcount * nb.nout,
                                   sendtype)) != MPI_SUCCESS ||
        (rc = mpii_coll_check_side(c, fn, "recv", recvbuf, recvcount, (long long)recvcount * nb.nin,
                                   recvtype)) != MPI_SUCCESS)
        return rc;
    NBR_BLOCKS();
    for (int k = 0; k < nb.nout; k++)
        b.s[k] = (blk_t){mpii_coll_at(sendbuf, (MPI_Aint)k * sendcount * extent_of(sendtype)), sendcount,
                         sendtype};
    for (int k = 0; k < nb.nin; k++)
        b.r[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)k * recvcount * extent_of(recvtype)), recvcount,
                         recvtype};
    return blks_run(fn, c, &nb, &b);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    NBR_BEGIN("MPI_Neighbor_alltoallv");
    if ((rc = check_type(c, fn, "send", 0, sendtype)) != MPI_SUCCESS ||
        (rc = check_type(c, fn, "recv", 0, recvtype)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "send", sendcounts, sdispls, nb.nout)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, rdispls, nb.nin)) != MPI_SUCCESS)
        return rc;
    NBR_BLOCKS();
    for (int k = 0; k < nb.nout; k++)
        b.s[k] = (blk_t){mpii_coll_at(sendbuf, (MPI_Aint)sdispls[k] * extent_of(sendtype)), sendcounts[k],
                         sendtype};
    for (int k = 0; k < nb.nin; k++)
        b.r[k] = (blk_t){mpii_coll_at(recvbuf, (MPI_Aint)rdispls[k] * extent_of(recvtype)), recvcounts[k],
                         recvtype};
    return blks_run(fn, c, &nb, &b);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    NBR_BEGIN("MPI_Neighbor_alltoallw");
    if ((rc = check_counts(c, fn, "send", sendcounts, sdispls, nb.nout)) != MPI_SUCCESS ||
        (rc = check_counts(c, fn, "recv", recvcounts, rdispls, nb.nin)) != MPI_SUCCESS)
        return rc;
    if ((nb.nout > 0 && !sendtypes) || (nb.nin > 0 && !recvtypes))
        return mpii_err(c, MPI_ERR_ARG, fn, "sendtypes or recvtypes is NULL");
    for (int k = 0; k < nb.nout; k++)
        if ((rc = check_type(c, fn, "send", sendcounts[k], sendtypes[k])) != MPI_SUCCESS)
            return rc;
    for (int k = 0; k < nb.nin; k++)
        if ((rc = check_type(c, fn, "recv", recvcounts[k], recvtypes[k])) != MPI_SUCCESS)
            return rc;
    NBR_BLOCKS();
    for (int k = 0; k < nb.nout; k++)
        b.s[k] = (blk_t){mpii_coll_at(sendbuf, sdispls[k]), sendcounts[k], sendtypes[k]};
    for (int k = 0; k < nb.nin; k++)
        b.r[k] = (blk_t){mpii_coll_at(recvbuf, rdispls[k]), recvcounts[k], recvtypes[k]};
    return blks_run(fn, c, &nb, &b);
}
