/*
 * mpi/coll/scatter_binomial.c: MPI_Scatter along a binomial tree.
 *
 * Algorithm:
 *   Ranks are renumbered relative to the root, v = (rank - root) mod P
 *   (with more ranks than CPUs, the CPUs' ranks in blocks: tree_map.c), and
 *   the P blocks are handled as packed bytes in v order (block b bytes, the
 *   same at every rank by MPI's type signature rule). The subtree of v != 0
 *   is the blocks [v, v + min(2^k, P - v)), 2^k the lowest set bit of v; the
 *   root's subtree is all P blocks. Each rank receives its subtree's blocks
 *   in one message from its parent v - 2^k, keeps block v, and hands each
 *   child v + 2^j (2^j < 2^k, largest first) the part of the subtree that
 *   child roots. The tree is that of bcast_binomial.c.
 *
 *     P = 8, root 0 (v = rank; blocks carried in brackets):
 *
 *       0 --[4..7]--> 4 --[6,7]--> 6 --[7]--> 7
 *       |             '---[5]----> 5
 *       |---[2,3]---> 2 ---[3]---> 3
 *       '----[1]----> 1
 *       round 1       round 2      round 3
 *
 *   The root packs the send buffer in v order first (skipped when root = 0
 *   and the send type is contiguous: the buffer is used as is). A rank whose
 *   subtree is only itself receives straight into recvbuf with the receive
 *   type; others receive packed bytes into a temporary and unpack block v.
 *
 * Cost (pLogP: L latency, g(m) gap of an m-byte message, P ranks, m the
 * block size):
 *   T = sum over the ceil(log2 P) rounds k of (L + g(m * P / 2^k)), about
 *   ceil(log2 P) * L + g(m * (P - 1)) for large m; the root sends
 *   ceil(log2 P) messages carrying P - 1 blocks in all. Each block travels
 *   up to log2 P hops (store and forward), so for large m a flat tree
 *   (scatter_linear.c) moves less data through the intermediate ranks.
 *
 * Limits:
 *   Intracommunicators only. Every message is sent as bytes with an int
 *   count, so P * m must fit in an int (the selector checks). The root
 *   needs a temporary of P * m bytes (unless root = 0 with a contiguous
 *   send type and v = rank), an inner rank of v's subtree size times m, a
 *   leaf none.
 */
#include "coll_more.h"

#include <stdlib.h>

int mpii_scatter_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, mpii_comm_t *comm)
{
    int p = comm->size;
    int rank = comm->rank;
    mpii_tree_map_t tm;
    int vrank;
    MPI_Request reqs[8 * sizeof(int)];
    int nreq = 0;
    const char *data;      /* this rank's subtree blocks, packed, block vrank first */
    char *tmp = NULL;
    size_t blk;            /* bytes of one block */
    int nsub;              /* blocks in this rank's subtree */
    int top;               /* distance to the farthest child (0: none) */
    int rc = MPI_SUCCESS;
    int wrc;

    /* two ranks: the tree is one edge, as the flat one, which needs no packing */
    if (p <= 2)
        return mpii_scatter_linear(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    rc = mpii_coll_tree_map(comm, root, &tm);
    if (rc != MPI_SUCCESS)
        return rc;
    vrank = tm.me;
    if (rank == root) {
        const mpii_datatype_t *sdt = mpii_datatype_get(sendtype);
        blk = (size_t)sendcount * sdt->size;
        if (blk == 0)
            return MPI_SUCCESS;
        nsub = p;
        top = mpii_coll_pof2_floor(p);
        if (top == p)
            top >>= 1;
        if (root == 0 && sdt->contig && tm.rank_of == NULL) {
            data = mpii_coll_at(sendbuf, sdt->true_lb);
        } else {
            tmp = mpii_scratch_alloc((size_t)p * blk);
            if (tmp == NULL)
                return MPI_ERR_NO_MEM;
            for (int v = 1; v < p; v++) {
                int r = mpii_tree_rank(&tm, v);
                mpii_coll_pack(mpii_coll_at(sendbuf, (MPI_Aint)r * sendcount * sdt->extent), sendcount,
                               sendtype, tmp + (size_t)v * blk);
            }
            data = tmp;
        }
    } else {
        const mpii_datatype_t *rdt = mpii_datatype_get(recvtype);
        int low = vrank & -vrank; /* link to the parent */
        int parent = mpii_tree_rank(&tm, vrank - low);
        blk = (size_t)recvcount * rdt->size;
        if (blk == 0)
            return MPI_SUCCESS;
        nsub = p - vrank < low ? p - vrank : low;
        top = low >> 1;
        if (nsub == 1)
            return mpii_recv_ctx(recvbuf, recvcount, recvtype, parent, MPII_COLL_TAG_SCATTER, comm, 1,
                                 MPI_STATUS_IGNORE);
        tmp = mpii_scratch_alloc((size_t)nsub * blk);
        if (tmp == NULL)
            return MPI_ERR_NO_MEM;
        rc = mpii_recv_ctx(tmp, (int)((size_t)nsub * blk), MPI_BYTE, parent, MPII_COLL_TAG_SCATTER, comm, 1,
                           MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            goto out_free_tmp;
        data = tmp;
        /* the map again: another collective may have used its scratch
         * during the wait (coll.h) */
        rc = mpii_coll_tree_map(comm, root, &tm);
        if (rc != MPI_SUCCESS)
            goto out_free_tmp;
    }

    /* hand each child its part of the subtree, largest first */
    for (int mask = top; mask > 0; mask >>= 1) {
        int n;
        if (vrank + mask >= p)
            continue;
        n = p - vrank - mask < mask ? p - vrank - mask : mask;
        rc = mpii_isend_ctx(data + (size_t)mask * blk, (int)((size_t)n * blk), MPI_BYTE,
                            mpii_tree_rank(&tm, vrank + mask), MPII_COLL_TAG_SCATTER, comm, 1, &reqs[nreq]);
        if (rc != MPI_SUCCESS)
            break;
        nreq++;
    }

    /* own block, while the sends proceed */
    if (rc == MPI_SUCCESS) {
        if (rank != root)
            mpii_coll_unpack(data, recvbuf, recvcount, recvtype);
        else if (recvbuf != MPI_IN_PLACE)
            rc = mpii_coll_local_copy(
                mpii_coll_at(sendbuf, (MPI_Aint)root * sendcount * mpii_datatype_get(sendtype)->extent),
                sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    /* complete what was started even after an error: data stays in use */
    wrc = mpii_waitall(nreq, reqs);
    if (rc == MPI_SUCCESS)
        rc = wrc;
out_free_tmp:
    mpii_scratch_free(tmp);
    return rc;
}
