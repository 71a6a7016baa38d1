/*
 * mpi/coll/gather_binomial.c: MPI_Gather along a binomial tree.
 *
 * Algorithm:
 *   scatter_binomial.c run backwards. Ranks are renumbered relative to the
 *   root, v = (rank - root) mod P (with more ranks than CPUs, the CPUs'
 *   ranks in blocks: tree_map.c); blocks (b bytes each) travel packed in v
 *   order. For 2^k = 1, 2, 4, ... a rank whose bit k is clear receives from
 *   v + 2^k (if it exists) the min(2^k, P - v - 2^k) blocks of that child's
 *   subtree, placed right after its own 2^k; a rank whose bit k is set sends
 *   its whole subtree [v, v + min(2^k, P - v)) to v - 2^k and is done. All
 *   receives of a rank are posted at once.
 *
 *     P = 8, root 0 (v = rank; blocks carried in brackets):
 *
 *       round 1: 1 -[1]-> 0   3 -[3]-> 2   5 -[5]-> 4   7 -[7]-> 6
 *       round 2: 2 -[2,3]-> 0               6 -[6,7]-> 4
 *       round 3: 4 -[4..7]-> 0
 *
 *   A leaf sends straight from sendbuf with the send type. An inner rank
 *   packs its own block into a temporary in front of its children's. The
 *   root unpacks the temporary into recvbuf block (v + root) mod P, unless
 *   root = 0 with a contiguous receive type and no placement: then the
 *   children's blocks are received in place.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = sum over the ceil(log2 P) rounds k of (L + g(m * 2^k)), about
 *   ceil(log2 P) * L + g(m * (P - 1)) for large m; the root receives
 *   ceil(log2 P) messages carrying P - 1 blocks. Blocks are forwarded up to
 *   log2 P times, so for large m a flat tree (gather_linear.c) moves less
 *   data through the inner ranks.
 *
 * Limits:
 *   Intracommunicators only. Messages are bytes with an int count: P * m
 *   must fit in an int (the selector checks). Temporaries: the root P * m
 *   bytes (none when root = 0 with a contiguous receive type and v = rank), an inner
 *   rank its subtree size times m, a leaf none.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_gather_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm)
{
    int p = comm->size;
    int rank = comm->rank;
    mpii_tree_map_t tm;
    int vrank, parent = -1;
    MPI_Request reqs[8 * sizeof(int)];
    int nreq = 0;
    char *data;            /* this rank's subtree blocks, packed, block vrank first */
    char *tmp = NULL;
    size_t blk;            /* bytes of one block */
    int nsub;              /* blocks in this rank's subtree */
    int low;               /* link to the parent; children are at distances < low */
    int rc = MPI_SUCCESS;
    int wrc;

    /* two ranks: the tree is one edge, as the flat one, which needs no packing */
    if (p <= 2)
        return mpii_gather_linear(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    rc = mpii_coll_tree_map(comm, root, &tm);
    if (rc != MPI_SUCCESS)
        return rc;
    vrank = tm.me;
    if (rank == root) {
        const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
        blk = (size_t)recvcount * rdt->size;
        if (blk == 0)
            return MPI_SUCCESS;
        nsub = p;
        low = p; /* every distance < p */
        if (root == 0 && rdt->contig && tm.rank_of == NULL) {
            data = mpii_coll_at(recvbuf, rdt->true_lb);
        } else {
            tmp = mpii_scratch_alloc((size_t)p * blk);
            if (tmp == NULL)
                return MPI_ERR_NO_MEM;
            data = tmp;
        }
    } else {
        blk = (size_t)sendcount * mpii_datatype_get(sendtype)->size;
        if (blk == 0)
            return MPI_SUCCESS;
        low = vrank & -vrank;
        nsub = p - vrank < low ? p - vrank : low;
        parent = mpii_tree_rank(&tm, vrank - low);
        if (nsub == 1)
            return mpii_send_ctx(sendbuf, sendcount, sendtype, parent, MPII_COLL_TAG_GATHER, comm, 1);
        tmp = mpii_scratch_alloc((size_t)nsub * blk);
        if (tmp == NULL)
            return MPI_ERR_NO_MEM;
        data = tmp;
    }

    /* post the children's receives, then place the own block meanwhile */
    for (int mask = 1; mask < low && vrank + mask < p; mask <<= 1) {
        int n = p - vrank - mask < mask ? p - vrank - mask : mask;
        rc = mpii_irecv_ctx(data + (size_t)mask * blk, (int)((size_t)n * blk), MPI_BYTE,
                            mpii_tree_rank(&tm, vrank + mask), MPII_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
        if (mask > p / 2)
            break; /* the next mask would be >= p (and could overflow) */
    }
    if (rc == MPI_SUCCESS) {
        if (rank != root)
            mpii_coll_pack(sendbuf, sendcount, sendtype, data);
        else if (sendbuf != MPI_IN_PLACE)
            rc = mpii_coll_local_copy(
                sendbuf, sendcount, sendtype,
                mpii_coll_at(recvbuf, (MPI_Aint)root * recvcount * mpii_datatype_get(recvtype)->extent),
                recvcount, recvtype);
    }
    /* complete what was started even after an error: data stays in use */
    wrc = mpii_waitall(nreq, reqs);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    if (rc != MPI_SUCCESS)
        goto out_free_tmp;

    if (rank != root) {
        rc = mpii_send_ctx(data, (int)((size_t)nsub * blk), MPI_BYTE, parent, MPII_COLL_TAG_GATHER, comm, 1);
    } else if (tmp != NULL && (rc = mpii_coll_tree_map(comm, root, &tm)) == MPI_SUCCESS) {
        /* the map again after the wait (coll.h) */
        MPI_Aint ext = mpii_datatype_get(recvtype)->extent;
        for (int v = 1; v < p; v++) {
            int r = mpii_tree_rank(&tm, v);
            mpii_coll_unpack(tmp + (size_t)v * blk, mpii_coll_at(recvbuf, (MPI_Aint)r * recvcount * ext),
                             recvcount, recvtype);
        }
    }

out_free_tmp:
    mpii_scratch_free(tmp);
    return rc;
}
