/*
 * mpi/intercomm.c: inter-communicators (MPI 4.0 7.6): MPI_Intercomm_create,
 * MPI_Intercomm_merge, and MPI_Comm_dup / MPI_Comm_split / MPI_Comm_create
 * of an inter-communicator.
 *
 * An inter-communicator is a communicator whose world_ranks / rank / size
 * are its local group and whose peer_ranks / peer_size (the ranks
 * point-to-point names) are its remote group. A message's envelope carries
 * the sender's rank in its own group, which is the rank the receiver's
 * remote group gives it. Its contexts ctx and ctx + 1 are agreed by the two
 * groups together (mpii_ctx_agree, with a reduction that runs in each group
 * and between the two leaders); its `local` is an intra-communicator of the
 * local group on contexts agreed by that group alone, for the local steps of
 * the collectives (mpi/coll/inter.c) and of the constructors here.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* tags of the leaders' messages on an inter-communicator's collective
 * context (its collectives use 0xe0 and up, mpi/coll/inter.c; below 256, as
 * a nonblocking call's tags add its sequence number << 8) */
enum { TAG_MERGE = 0xf0, TAG_DUP, TAG_SPLIT, TAG_AGREE };

/* One member's side of a reduction over both groups: within its group over
 * `local`, between the leaders (rank `leader` of local) over `bridge` (the
 * peer communicator's point-to-point context at MPI_Intercomm_create, an
 * inter-communicator's collective context afterwards), then back from the
 * leader. */
typedef struct inter_reduce {
    mpii_comm_t *local;
    int leader;
    mpii_comm_t *bridge;
    int remote_leader, tag, coll;
} inter_reduce_t;

static int leaders_sendrecv(const inter_reduce_t *x, const void *sbuf, int scount, void *rbuf, int rcount)
{
    return mpii_sendrecv_ctx(sbuf, scount, MPI_INT, x->remote_leader, x->tag, rbuf, rcount, MPI_INT,
                             x->remote_leader, x->tag, x->bridge, x->coll, MPI_STATUS_IGNORE);
}

static int inter_reduce(void *arg, unsigned *v, int max)
{
    inter_reduce_t *x = arg;
    unsigned in = *v, other = 0;
    int rc = MPI_Allreduce(&in, v, 1, MPI_UNSIGNED, max ? MPI_MAX : MPI_MIN, x->local->handle);

    if (rc == MPI_SUCCESS && x->local->rank == x->leader) {
        rc = leaders_sendrecv(x, v, 1, &other, 1);
        if (max ? other > *v : other < *v)
            *v = other;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(v, 1, MPI_UNSIGNED, x->leader, x->local->handle);
    return rc;
}

/* the same salt on both sides: from the two groups' first members */
static uint32_t pair_salt(int a, int b)
{
    uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    return lo * 0x9e3779b1u + hi * 0x85ebca6bu + (uint32_t)mpii_coll_tag_off * 0x27d4eb2fu;
}

/* An inter-communicator of the given groups (world ranks, copied), this
 * process at local rank lrank, on contexts ctx (both groups) and lctx (the
 * local group's `local`). */
static int inter_build(int lsize, const int *lranks, int lrank, int rsize, const int *rranks, uint32_t ctx,
                       uint32_t lctx, MPI_Errhandler eh, mpii_comm_t **out)
{
    mpii_comm_t *c, *l;
    int rc = mpii_comm_new(lsize, lranks, lrank, ctx, eh, &c);

    if (rc != MPI_SUCCESS)
        return rc;
    c->remote_ranks = malloc((size_t)(rsize > 0 ? rsize : 1) * sizeof(int));
    if (!c->remote_ranks) {
        mpii_comm_destroy(c);
        return MPI_ERR_NO_MEM;
    }
    memcpy(c->remote_ranks, rranks, (size_t)rsize * sizeof(int));
    c->peer_ranks = c->remote_ranks;
    c->peer_size = rsize;
    c->is_inter = 1;
    rc = mpii_comm_new(lsize, lranks, lrank, lctx, MPI_ERRORS_RETURN, &l);
    if (rc != MPI_SUCCESS) {
        mpii_comm_destroy(c);
        return rc;
    }
    l->hidden = 1;
    c->local = l;
    *out = c;
    return MPI_SUCCESS;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm *newintercomm)
{
    return mpii_intercomm_create("MPI_Intercomm_create", local_comm, local_leader, peer_comm, remote_leader,
                                 tag, 0, newintercomm);
}

/* coll: the leaders talk on peer_comm's collective context (never a user
 * message; mpi/dynamic.c's MPI_Comm_accept / connect / join) */
int mpii_intercomm_create(const char *fn, MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, int coll, MPI_Comm *newintercomm)
{
    mpii_comm_t *lc, *pc = NULL, *nc;
    int rsize = 0, *rranks = NULL, rc, leader;
    uint32_t ctx, lctx;

    MPII_CHECK_INIT(fn);
    lc = mpii_comm_get(local_comm);
    if (!lc)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid local communicator %d", local_comm);
    if (lc->is_inter)
        return mpii_err(lc, MPI_ERR_COMM, fn, "the local communicator is an inter-communicator");
    if (!newintercomm)
        return mpii_err(lc, MPI_ERR_ARG, fn, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= lc->size)
        return mpii_err(lc, MPI_ERR_RANK, fn, "invalid local leader %d (local communicator has %d ranks)",
                        local_leader, lc->size);
    leader = lc->rank == local_leader;
    *newintercomm = MPI_COMM_NULL;

    /* peer_comm, remote_leader and tag are significant at the leader only;
     * its verdict goes to the whole group (rsize = -16 - class), so nobody
     * waits for a leader that gave up */
    int bad = MPI_SUCCESS;
    if (leader) {
        pc = mpii_comm_get(peer_comm);
        if (!pc)
            bad = MPI_ERR_COMM;
        else if (remote_leader < 0 || remote_leader >= pc->peer_size)
            bad = MPI_ERR_RANK;
        else if (tag < 0 || tag > MPI_TAG_UB_VALUE)
            bad = MPI_ERR_TAG;
    }

    /* the leaders swap their groups; a group that overlaps the other makes
     * the leaders broadcast -1 and everybody fails */
    inter_reduce_t x = {lc, local_leader, pc, remote_leader, tag, coll};
    if (leader && bad != MPI_SUCCESS) {
        rsize = -16 - bad;
    } else if (leader) {
        rc = leaders_sendrecv(&x, &lc->size, 1, &rsize, 1);
        if (rc == MPI_SUCCESS && rsize > 0) {
            rranks = malloc((size_t)rsize * sizeof(int));
            rc = rranks ? leaders_sendrecv(&x, lc->world_ranks, lc->size, rranks, rsize) : MPI_ERR_NO_MEM;
        }
        if (rc != MPI_SUCCESS)
            rsize = -2;
        for (int i = 0; i < rsize; i++)
            for (int j = 0; j < lc->size; j++)
                if (rranks[i] == lc->world_ranks[j])
                    rsize = -1;
    }
    rc = MPI_Bcast(&rsize, 1, MPI_INT, local_leader, local_comm);
    if (rc == MPI_SUCCESS && rsize <= -16) {
        free(rranks);
        if (bad == MPI_ERR_COMM)
            return mpii_err(lc, bad, fn, "invalid peer communicator %d", peer_comm);
        if (bad == MPI_ERR_RANK)
            return mpii_err(lc, bad, fn, "invalid remote leader %d (peer communicator has %d ranks)",
                            remote_leader, pc->peer_size);
        if (bad == MPI_ERR_TAG)
            return mpii_err(lc, bad, fn, "invalid tag %d", tag);
        return mpii_err(lc, -16 - rsize, fn, "the local leader (rank %d) was given invalid arguments",
                        local_leader);
    }
    if (rc == MPI_SUCCESS && rsize <= 0) {
        free(rranks);
        return mpii_err(lc, rsize == -1 ? MPI_ERR_COMM : MPI_ERR_OTHER, fn, "%s",
                        rsize == -1 ? "the two groups overlap"
                                    : "the leaders could not exchange their groups");
    }
    if (rc == MPI_SUCCESS && !leader) {
        rranks = malloc((size_t)rsize * sizeof(int));
        if (!rranks)
            return mpii_err(lc, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(rranks, rsize, MPI_INT, local_leader, local_comm);
    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree(inter_reduce, &x, pair_salt(lc->world_ranks[0], rranks[0]), &ctx);
    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree_comm(lc, &lctx);
    if (rc == MPI_SUCCESS)
        rc = inter_build(lc->size, lc->world_ranks, lc->rank, rsize, rranks, ctx, lctx, lc->errhandler, &nc);
    free(rranks);
    if (rc != MPI_SUCCESS)
        return mpii_err(lc, rc, fn, "could not create the inter-communicator");
    *newintercomm = nc->handle;
    return MPI_SUCCESS;
}

/* the leaders' reduction over an existing inter-communicator */
static inter_reduce_t over(mpii_comm_t *c, int tag)
{
    inter_reduce_t x = {c->local, 0, c, 0, tag, 1};
    return x;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    mpii_comm_t *c, *nc;
    int mine[2], theirs[2] = {0, 0}, first, n, *ranks, rc = MPI_SUCCESS;
    uint32_t ctx;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(intercomm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", intercomm);
    if (!c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "communicator %d is not an inter-communicator", intercomm);
    if (!newintracomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "newintracomm is NULL");
    *newintracomm = MPI_COMM_NULL;
    /* the group that gave high = false comes first; with the same value on
     * both sides, the group of the lower first world rank */
    inter_reduce_t x = over(c, TAG_MERGE);
    mine[0] = high != 0;
    mine[1] = c->world_ranks[0];
    if (c->rank == 0)
        rc = leaders_sendrecv(&x, mine, 2, theirs, 2);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(theirs, 2, MPI_INT, 0, c->local->handle);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "the groups could not exchange their high arguments");
    first = mine[0] != theirs[0] ? !mine[0] : mine[1] < theirs[1];
    n = c->size + c->peer_size;
    ranks = malloc((size_t)n * sizeof(int));
    if (!ranks)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(ranks + (first ? 0 : c->peer_size), c->world_ranks, (size_t)c->size * sizeof(int));
    memcpy(ranks + (first ? c->size : 0), c->peer_ranks, (size_t)c->peer_size * sizeof(int));
    x.tag = TAG_AGREE;
    rc = mpii_ctx_agree(inter_reduce, &x, c->ctx + (uint32_t)mpii_coll_tag_off * 0x27d4eb2fu, &ctx);
    if (rc == MPI_SUCCESS)
        rc = mpii_comm_new(n, ranks, (first ? 0 : c->peer_size) + c->rank, ctx, c->errhandler, &nc);
    free(ranks);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "could not create the merged communicator");
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}

int mpii_inter_dup(mpii_comm_t *c, mpii_comm_t **nc_p)
{
    inter_reduce_t x = over(c, TAG_DUP);
    uint32_t ctx, lctx;
    int rc = mpii_ctx_agree(inter_reduce, &x, c->ctx + (uint32_t)mpii_coll_tag_off * 0x27d4eb2fu, &ctx);

    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree_comm(c->local, &lctx);
    if (rc == MPI_SUCCESS)
        rc = inter_build(c->size, c->world_ranks, c->rank, c->peer_size, c->peer_ranks, ctx, lctx,
                         c->errhandler, nc_p);
    return rc;
}

/* The members of `color` among n (color, key) pairs, ordered by key then
 * rank, as world ranks; returns their number, *me this rank's place (-1:
 * not there) for self >= 0. */
static int split_pick(const int *ck, int n, const int *world, int color, int self, int *out, int *me,
                      split_ent_t *ents)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (ck[2 * i] == color) {
            ents[m].key = ck[2 * i + 1];
            ents[m++].rank = i;
        }
    qsort(ents, (size_t)m, sizeof(*ents), mpii_split_cmp);
    for (int i = 0; i < m; i++) {
        out[i] = world[ents[i].rank];
        if (ents[i].rank == self)
            *me = i;
    }
    return m;
}

/* MPI 4.0 7.4.2: the new inter-communicator joins the processes of a color
 * in this group with those of the same color in the other; MPI_COMM_NULL
 * where either side has none. One context pair serves every color (their
 * members are disjoint). */
int mpii_inter_split(mpii_comm_t *c, int color, int key, MPI_Comm *newcomm)
{
    int n = c->size, r = c->peer_size, mine[2] = {color, key}, rc, me = -1, nl, nr;
    int *lck = malloc((size_t)2 * n * sizeof(int)), *rck = malloc((size_t)2 * r * sizeof(int));
    int *lw = malloc((size_t)n * sizeof(int)), *rw = malloc((size_t)r * sizeof(int));
    split_ent_t *ents = malloc((size_t)(n > r ? n : r) * sizeof(*ents));
    inter_reduce_t x = over(c, TAG_SPLIT);
    uint32_t ctx = 0, lctx = 0;
    mpii_comm_t *nc;

    *newcomm = MPI_COMM_NULL;
    rc = lck && rck && lw && rw && ents ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* (every member takes part, out of memory or not, so none is left
     * waiting: a failed step only skips what depends on it) */
    if (MPI_Allgather(mine, 2, MPI_INT, lck, 2, MPI_INT, c->local->handle) != MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = leaders_sendrecv(&x, lck, 2 * n, rck, 2 * r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(rck, 2 * r, MPI_INT, 0, c->local->handle);
    x.tag = TAG_AGREE;
    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree(inter_reduce, &x, c->ctx + (uint32_t)mpii_coll_tag_off * 0x27d4eb2fu, &ctx);
    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree_comm(c->local, &lctx);
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED) {
        nl = split_pick(lck, n, c->world_ranks, color, c->rank, lw, &me, ents);
        nr = split_pick(rck, r, c->peer_ranks, color, -1, rw, &me, ents);
        if (nr > 0) {
            rc = inter_build(nl, lw, me, nr, rw, ctx, lctx, c->errhandler, &nc);
            if (rc == MPI_SUCCESS)
                *newcomm = nc->handle;
        }
    }
    free(lck);
    free(rck);
    free(lw);
    free(rw);
    free(ents);
    return rc;
}
