/*
 * mpi/coll/inter.c: the collectives on inter-communicators (MPI 4.0 6.2.2
 * and each operation's section). Simple algorithms, for correctness: the
 * data move over the inter-communicator's collective context (ranks are
 * the remote group's), the local steps over its `local` intra-communicator
 * (mpi/intercomm.c), which picks its own algorithms.
 *
 *   Barrier      local barrier, the leaders (rank 0 of each group) swap an
 *                empty message, local barrier.
 *   Bcast        MPI_ROOT sends to the remote leader, which broadcasts in
 *                its group.
 *   Reduce       the other group reduces to its leader, which sends to the
 *                root.
 *   Allreduce    each group reduces to its leader, the leaders swap, each
 *                broadcasts what it got.
 *   Reduce_scatter(_block)  as Allreduce, the leader scatters in its group.
 *   Gather(v), Scatter(v), Allgather(v), Alltoall(v, w)  every block sent
 *                straight to its receiver in the other group, all posted
 *                at once.
 * MPI_IN_PLACE is not defined on inter-communicators; Scan and Exscan are
 * not either (their entry points refuse inter-communicators).
 */
#include "mpi/coll/coll.h"

#include <stdlib.h>

/* (below 256: nonblocking calls add their sequence number << 8; the
 * constructors of mpi/intercomm.c take 0xf0 and up) */
enum {
    TAG_BARRIER = 0xe0,
    TAG_BCAST,
    TAG_REDUCE,
    TAG_ALLREDUCE,
    TAG_REDSCAT,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLGATHER,
    TAG_ALLTOALL
};

static int check_root(mpii_comm_t *c, const char *fn, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_size))
        return MPI_SUCCESS;
    return mpii_err(c, MPI_ERR_ROOT, fn,
                    "invalid root %d (MPI_ROOT, MPI_PROC_NULL or a rank of the %d of the "
                    "remote group on an inter-communicator)",
                    root, c->peer_size);
}

static int check_ct(mpii_comm_t *c, const char *fn, int count, MPI_Datatype dt, const char *what)
{
    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "negative %s count %d", what, count);
    if (mpii_datatype_check(dt) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid or uncommitted %s datatype %d", what, dt);
    return MPI_SUCCESS;
}

static int no_in_place(mpii_comm_t *c, const char *fn, const void *sbuf, const void *rbuf)
{
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE on an inter-communicator");
    return MPI_SUCCESS;
}

static int fail(mpii_comm_t *c, const char *fn, int rc)
{
    return rc == MPI_SUCCESS ? rc : mpii_err(c, rc, fn, "failed: %s", mpii_error_class_string(rc));
}

static MPI_Aint ext(MPI_Datatype dt)
{
    return mpii_datatype_get(dt)->extent;
}

/* Every block i (count < 0: none) sent to / received from remote rank i at
 * once; displacements in bytes. A NULL type array stands for *st / *rt. */
static int xchg(mpii_comm_t *c, int tag, const void *sbuf, const int *sc, const MPI_Aint *sd,
                const MPI_Datatype *st, void *rbuf, const int *rc, const MPI_Aint *rd, const MPI_Datatype *rt,
                int per_type)
{
    int r = c->peer_size, n = 0, err = MPI_SUCCESS;
    MPI_Request *q = malloc((size_t)(2 * r + 1) * sizeof(*q));

    if (!q)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r && err == MPI_SUCCESS; i++)
        if (rc && rc[i] >= 0)
            err = mpii_irecv_ctx((char *)rbuf + rd[i], rc[i], rt[per_type ? i : 0], i, tag, c, 1, &q[n++]);
    for (int i = 0; i < r && err == MPI_SUCCESS; i++)
        if (sc && sc[i] >= 0)
            err = mpii_isend_ctx((const char *)sbuf + sd[i], sc[i], st[per_type ? i : 0], i, tag, c, 1,
                                 &q[n++]);
    if (err != MPI_SUCCESS)
        n--; /* (the failed one made no request) */
    int werr = mpii_waitall(n, q);
    free(q);
    return err != MPI_SUCCESS ? err : werr;
}

/* arrays of r blocks: counts and byte displacements */
typedef struct blocks {
    int *sc, *rc;
    MPI_Aint *sd, *rd;
} blocks_t;

static int blocks_alloc(blocks_t *b, int r)
{
    b->sc = malloc((size_t)(r + 1) * sizeof(int));
    b->rc = malloc((size_t)(r + 1) * sizeof(int));
    b->sd = calloc((size_t)(r + 1), sizeof(MPI_Aint));
    b->rd = calloc((size_t)(r + 1), sizeof(MPI_Aint));
    if (b->sc && b->rc && b->sd && b->rd) {
        for (int i = 0; i < r; i++)
            b->sc[i] = b->rc[i] = -1;
        return MPI_SUCCESS;
    }
    free(b->sc), free(b->rc), free(b->sd), free(b->rd);
    return MPI_ERR_NO_MEM;
}

static void blocks_free(blocks_t *b)
{
    free(b->sc), free(b->rc), free(b->sd), free(b->rd);
}

int mpii_inter_barrier(const char *fn, mpii_comm_t *c)
{
    MPI_Comm l = c->local->handle;
    int rc = MPI_Barrier(l);

    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = mpii_sendrecv_ctx(NULL, 0, MPI_BYTE, 0, TAG_BARRIER, NULL, 0, MPI_BYTE, 0, TAG_BARRIER, c, 1,
                               MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(l);
    return fail(c, fn, rc);
}

int mpii_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *c)
{
    int rc = check_root(c, fn, root);

    if (rc == MPI_SUCCESS)
        rc = check_ct(c, fn, count, dt, "");
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL)
        return rc;
    if (root == MPI_ROOT)
        return fail(c, fn, mpii_send_ctx(buf, count, dt, 0, TAG_BCAST, c, 1));
    if (c->rank == 0)
        rc = mpii_recv_ctx(buf, count, dt, root, TAG_BCAST, c, 1, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(buf, count, dt, 0, c->local->handle);
    return fail(c, fn, rc);
}

/* this group's data reduced at its leader, in a buffer of its own (*base
 * to free; NULL elsewhere) */
static int reduce_to_leader(const void *sbuf, int count, MPI_Datatype dt, MPI_Op op, mpii_comm_t *c,
                            void **tmp, void **base)
{
    int rc = MPI_SUCCESS;

    *tmp = *base = NULL;
    if (c->rank == 0)
        rc = mpii_coll_tmp_alloc(count, mpii_datatype_get(dt), tmp, base);
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce(sbuf, *tmp, count, dt, op, 0, c->local->handle);
    return rc;
}

int mpii_inter_reduce(const char *fn, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, mpii_comm_t *c)
{
    void *tmp, *base;
    int rc = check_root(c, fn, root);

    if (rc == MPI_SUCCESS)
        rc = check_ct(c, fn, count, dt, "");
    if (rc == MPI_SUCCESS)
        rc = no_in_place(c, fn, sbuf, rbuf);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL)
        return rc;
    if (root == MPI_ROOT)
        return fail(c, fn, mpii_recv_ctx(rbuf, count, dt, 0, TAG_REDUCE, c, 1, MPI_STATUS_IGNORE));
    rc = reduce_to_leader(sbuf, count, dt, op, c, &tmp, &base);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = mpii_send_ctx(tmp, count, dt, root, TAG_REDUCE, c, 1);
    mpii_scratch_free(base);
    return fail(c, fn, rc);
}

int mpii_inter_allreduce(const char *fn, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         mpii_comm_t *c)
{
    void *tmp, *base;
    int rc = check_ct(c, fn, count, dt, "");

    if (rc == MPI_SUCCESS)
        rc = no_in_place(c, fn, sbuf, rbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = reduce_to_leader(sbuf, count, dt, op, c, &tmp, &base);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = mpii_sendrecv_ctx(tmp, count, dt, 0, TAG_ALLREDUCE, rbuf, count, dt, 0, TAG_ALLREDUCE, c, 1,
                               MPI_STATUS_IGNORE);
    mpii_scratch_free(base);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(rbuf, count, dt, 0, c->local->handle);
    return fail(c, fn, rc);
}

/* MPI 4.0 6.11: the other group's reduction of n elements (n the same in
 * both groups), scattered over this group by counts[] (NULL: rcount
 * each). */
int mpii_inter_reduce_scatter(const char *fn, const void *sbuf, void *rbuf, int rcount, const int *counts,
                              MPI_Datatype dt, MPI_Op op, mpii_comm_t *c)
{
    void *tmp, *base, *got = NULL, *gbase = NULL;
    int rc = check_ct(c, fn, counts ? 0 : rcount, dt, ""), n = 0, *displs = NULL;

    if (rc == MPI_SUCCESS)
        rc = no_in_place(c, fn, sbuf, rbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    if (counts) {
        displs = malloc((size_t)c->size * sizeof(int));
        if (!displs)
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int i = 0; i < c->size; i++) {
            if (counts[i] < 0) {
                free(displs);
                return mpii_err(c, MPI_ERR_COUNT, fn, "negative recvcounts[%d] = %d", i, counts[i]);
            }
            displs[i] = n;
            n += counts[i];
        }
    } else {
        n = rcount * c->size;
    }
    rc = reduce_to_leader(sbuf, n, dt, op, c, &tmp, &base);
    if (rc == MPI_SUCCESS && c->rank == 0) {
        rc = mpii_coll_tmp_alloc(n, mpii_datatype_get(dt), &got, &gbase);
        if (rc == MPI_SUCCESS)
            rc = mpii_sendrecv_ctx(tmp, n, dt, 0, TAG_REDSCAT, got, n, dt, 0, TAG_REDSCAT, c, 1,
                                   MPI_STATUS_IGNORE);
    }
    mpii_scratch_free(base);
    if (rc == MPI_SUCCESS)
        rc = counts ? MPI_Scatterv(got, counts, displs, dt, rbuf, counts[c->rank], dt, 0, c->local->handle)
                    : MPI_Scatter(got, rcount, dt, rbuf, rcount, dt, 0, c->local->handle);
    mpii_scratch_free(gbase);
    free(displs);
    return fail(c, fn, rc);
}

/* Gather(v) (gather != 0) and Scatter(v): the root's blocks, counts[] and
 * displs[] in elements (NULL: count each, i * count) */
int mpii_inter_rooted(const char *fn, int gather, const void *sbuf, int scount, const int *scounts,
                      const int *sdispls, MPI_Datatype st, void *rbuf, int rcount, const int *rcounts,
                      const int *rdispls, MPI_Datatype rt, int root, mpii_comm_t *c)
{
    int r = c->peer_size, rc = check_root(c, fn, root);
    blocks_t b;

    if (rc == MPI_SUCCESS)
        rc = no_in_place(c, fn, sbuf, rbuf);
    if (rc != MPI_SUCCESS || root == MPI_PROC_NULL)
        return rc;
    if (root == MPI_ROOT) {
        const int *counts = gather ? rcounts : scounts, *displs = gather ? rdispls : sdispls;
        int count = gather ? rcount : scount;
        MPI_Datatype t = gather ? rt : st;
        if (!counts && (rc = check_ct(c, fn, count, t, gather ? "receive" : "send")) != MPI_SUCCESS)
            return rc;
        if (counts && (!displs || mpii_datatype_check(t) != MPI_SUCCESS))
            return mpii_err(c, !displs ? MPI_ERR_ARG : MPI_ERR_TYPE, fn,
                            "invalid counts, displacements or type");
        if (blocks_alloc(&b, r) != MPI_SUCCESS)
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int i = 0; i < r; i++) {
            int k = counts ? counts[i] : count;
            MPI_Aint d = (MPI_Aint)(counts ? displs[i] : i * count) * ext(t);
            if (k < 0) {
                blocks_free(&b);
                return mpii_err(c, MPI_ERR_COUNT, fn, "negative count %d for rank %d", k, i);
            }
            if (gather)
                b.rc[i] = k, b.rd[i] = d;
            else
                b.sc[i] = k, b.sd[i] = d;
        }
        rc = gather ? xchg(c, TAG_GATHER, NULL, NULL, NULL, NULL, rbuf, b.rc, b.rd, &rt, 0)
                    : xchg(c, TAG_SCATTER, sbuf, b.sc, b.sd, &st, NULL, NULL, NULL, NULL, 0);
        blocks_free(&b);
        return fail(c, fn, rc);
    }
    if (gather) {
        rc = check_ct(c, fn, scount, st, "send");
        return rc != MPI_SUCCESS ? rc : fail(c, fn, mpii_send_ctx(sbuf, scount, st, root, TAG_GATHER, c, 1));
    }
    rc = check_ct(c, fn, rcount, rt, "receive");
    return rc != MPI_SUCCESS
               ? rc
               : fail(c, fn, mpii_recv_ctx(rbuf, rcount, rt, root, TAG_SCATTER, c, 1, MPI_STATUS_IGNORE));
}

/* Allgather(v) and Alltoall(v, w): block i to and from remote rank i.
 * scounts NULL: scount each; sdispls NULL: each send from sbuf itself
 * (allgather) or at i * scount (all_to_all); displacements in elements of
 * the types, or in bytes when types[] are given (Alltoallw). */
int mpii_inter_all(const char *fn, int all_to_all, const void *sbuf, int scount, const int *scounts,
                   const int *sdispls, MPI_Datatype st, const MPI_Datatype *stypes, void *rbuf, int rcount,
                   const int *rcounts, const int *rdispls, MPI_Datatype rt, const MPI_Datatype *rtypes,
                   mpii_comm_t *c)
{
    int r = c->peer_size, rc = no_in_place(c, fn, sbuf, rbuf);
    blocks_t b;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!stypes && (rc = check_ct(c, fn, scounts ? 0 : scount, st, "send")) != MPI_SUCCESS)
        return rc;
    if (!rtypes && (rc = check_ct(c, fn, rcounts ? 0 : rcount, rt, "receive")) != MPI_SUCCESS)
        return rc;
    if ((scounts && !sdispls && all_to_all) || (rcounts && !rdispls))
        return mpii_err(c, MPI_ERR_ARG, fn, "displacements are NULL");
    if (blocks_alloc(&b, r) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < r; i++) {
        MPI_Datatype s = stypes ? stypes[i] : st, t = rtypes ? rtypes[i] : rt;
        if ((stypes && mpii_datatype_check(s) != MPI_SUCCESS) ||
            (rtypes && mpii_datatype_check(t) != MPI_SUCCESS)) {
            blocks_free(&b);
            return mpii_err(c, MPI_ERR_TYPE, fn, "invalid datatype for rank %d", i);
        }
        b.sc[i] = all_to_all && scounts ? scounts[i] : scount;
        b.rc[i] = rcounts ? rcounts[i] : rcount;
        if (b.sc[i] < 0 || b.rc[i] < 0) {
            blocks_free(&b);
            return mpii_err(c, MPI_ERR_COUNT, fn, "negative count for rank %d", i);
        }
        if (all_to_all)
            b.sd[i] = stypes ? sdispls[i] : (MPI_Aint)(scounts ? sdispls[i] : i * scount) * ext(s);
        b.rd[i] = rtypes ? rdispls[i] : (MPI_Aint)(rcounts ? rdispls[i] : i * rcount) * ext(t);
    }
    rc = xchg(c, all_to_all ? TAG_ALLTOALL : TAG_ALLGATHER, sbuf, b.sc, b.sd, stypes ? stypes : &st, rbuf,
              b.rc, b.rd, rtypes ? rtypes : &rt, stypes != NULL);
    blocks_free(&b);
    return fail(c, fn, rc);
}
