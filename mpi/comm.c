/*
 * mpi/comm.c: communicators. A communicator is a table entry holding its
 * ranks (as MPI_COMM_WORLD ranks) and a context id: ctx for point-to-point,
 * ctx + 1 for collectives, so the two never match each other (contexts with
 * the top bit set are partitioned communication's, mpi/p2p.c: ids stay
 * below 2^31). New context
 * ids are agreed in rounds (mpii_ctx_agree): every member proposes its lowest id
 * that is free (not below its next_ctx, not claimed by an agreement still
 * running here), they take the maximum, and each member claims it if it is
 * still free for it; a second reduction tells whether all could, else the
 * next round starts above it. With only blocking calls the first round
 * always succeeds (every id in use at a rank is below its next_ctx, and the
 * maximum is not); the claims matter when agreements overlap at a rank
 * (MPI_Comm_idup on two communicators, started in different orders).
 */
#include "mpi/mpi3.h"

#include <stdlib.h>
#include <string.h>

mpii_comm_t **mpii_comms; /* handle -> communicator (core.h) */
int mpii_ncomms;
static MPI_Comm session_world = MPI_COMM_NULL;

mpii_comm_t *mpii_comm_get(MPI_Comm comm)
{
    return mpii_comm_lookup(comm);
}

static void comm_destroy(mpii_comm_t *c)
{
    mpii_comms[c->handle] = NULL;
    if (c->local)
        comm_destroy(c->local);
    free(c->remote_ranks);
    free(c->world_ranks);
    free(c->tree_scratch);
    mpii_topo_free(c);
    free(c->proto);
    free(c);
}

/* New communicator of n ranks (world ranks given), this rank at `rank`. */
static int comm_create(int n, const int *world_ranks, int rank, uint32_t ctx, MPI_Errhandler eh,
                       mpii_comm_t **c_p)
{
    mpii_comm_t *c;
    mpii_comm_proto_t *cp;
    int h;

    for (h = 3; h < mpii_ncomms && mpii_comms[h]; h++)
        ;
    if (h >= mpii_ncomms) {
        int nn = mpii_ncomms ? mpii_ncomms * 2 : 16;
        mpii_comm_t **t = realloc(mpii_comms, (size_t)nn * sizeof(*t));
        if (!t)
            return MPI_ERR_NO_MEM;
        memset(t + mpii_ncomms, 0, (size_t)(nn - mpii_ncomms) * sizeof(*t));
        mpii_comms = t;
        if (!mpii_ncomms)
            h = 3;
        mpii_ncomms = nn;
    }
    c = calloc(1, sizeof(*c));
    cp = calloc(1, sizeof(*cp));
    if (!c || !cp) {
        free(c);
        free(cp);
        return MPI_ERR_NO_MEM;
    }
    c->world_ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!c->world_ranks) {
        free(c);
        free(cp);
        return MPI_ERR_NO_MEM;
    }
    memcpy(c->world_ranks, world_ranks, (size_t)n * sizeof(int));
    c->in_use = 1;
    c->handle = h;
    c->rank = rank;
    c->size = n;
    c->peer_ranks = c->world_ranks;
    c->peer_size = n;
    c->ctx = ctx;
    c->errhandler = eh;
    proto_comm_init(&cp->pc[0], ctx);
    proto_comm_init(&cp->pc[1], ctx + 1);
    proto_comm_init(&cp->pc[2], ctx | MPII_CTX_PART_BIT); /* (its pairs' contexts vary) */
    c->proto = cp;
    mpii_comms[h] = c;
    *c_p = c;
    return MPI_SUCCESS;
}

int mpii_comm_new(int n, const int *world_ranks, int rank, uint32_t ctx, MPI_Errhandler eh, mpii_comm_t **c_p)
{
    return comm_create(n, world_ranks, rank, ctx, eh, c_p);
}

void mpii_comm_destroy(mpii_comm_t *c)
{
    comm_destroy(c);
}

int mpii_comm_world_init(void)
{
    mpii_comm_t *c;
    int *ranks, i, rc;

    ranks = malloc((size_t)mpii_g.size * sizeof(int));
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (i = 0; i < mpii_g.size; i++)
        ranks[i] = i;
    if (!mpii_comms) {
        mpii_comms = calloc(16, sizeof(*mpii_comms));
        if (!mpii_comms) {
            free(ranks);
            return MPI_ERR_NO_MEM;
        }
        mpii_ncomms = 16;
    }
    rc = comm_create(mpii_g.size, ranks, mpii_g.rank, 0, MPI_ERRORS_ARE_FATAL, &c);
    free(ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_comms[c->handle] = NULL;
    c->handle = MPI_COMM_WORLD;
    mpii_comms[MPI_COMM_WORLD] = c;
    strcpy(c->name, "MPI_COMM_WORLD");
    rc = comm_create(1, &mpii_g.rank, 0, 2, MPI_ERRORS_ARE_FATAL, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_comms[c->handle] = NULL;
    c->handle = MPI_COMM_SELF;
    mpii_comms[MPI_COMM_SELF] = c;
    strcpy(c->name, "MPI_COMM_SELF");
    /* the sessions' hidden communicator of all processes (mpi/session.c):
     * context 4 at every process, so no agreement is needed */
    ranks = malloc((size_t)mpii_g.size * sizeof(int));
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (i = 0; i < mpii_g.size; i++)
        ranks[i] = i;
    rc = comm_create(mpii_g.size, ranks, mpii_g.rank, 4, MPI_ERRORS_RETURN, &c);
    free(ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    strcpy(c->name, "mbmpi session world");
    session_world = c->handle;
    mpii_g.next_ctx = 6;
    return MPI_SUCCESS;
}

MPI_Comm mpii_session_world(void)
{
    return session_world;
}

void mpii_comm_finalize(void)
{
    int i;
    for (i = 0; i < mpii_ncomms; i++)
        if (mpii_comms[i] && !mpii_comms[i]->hidden) /* (hidden ones go with theirs) */
            comm_destroy(mpii_comms[i]);
    free(mpii_comms);
    mpii_comms = NULL;
    mpii_ncomms = 0;
}

/* ids claimed by agreements in progress at this rank (at most one per
 * pending MPI_Comm_idup, plus a blocking one) */
#define CTX_CLAIMS 64
static unsigned ctx_claims[CTX_CLAIMS];
static int nctx_claims;

static int ctx_claimed(unsigned v)
{
    for (int i = 0; i < nctx_claims; i++)
        if (ctx_claims[i] == v)
            return 1;
    return 0;
}

static void ctx_unclaim(unsigned v)
{
    for (int i = 0; i < nctx_claims; i++)
        if (ctx_claims[i] == v) {
            ctx_claims[i] = ctx_claims[--nctx_claims];
            return;
        }
}

/* the lowest free id from `floor` on (ids are even: ctx and ctx + 1) */
static unsigned ctx_propose(unsigned floor)
{
    unsigned v = floor > mpii_g.next_ctx ? floor : mpii_g.next_ctx;
    v = (v + 1u) & ~1u;
    while (ctx_claimed(v))
        v += 2;
    return v;
}

/* How far above a failed round's id the next round starts: 2 to 1018,
 * drawn from the agreement's salt (the same at all its members) and the
 * round. Two agreements that overlap at their members in different orders
 * (MPI_Comm_idup on A then B here, on B then A there) each find the id
 * claimed by the other at one member and fail together; with the same
 * next floor they would fail the same way for ever. */
static unsigned ctx_retry_step(uint32_t salt, unsigned round)
{
    uint32_t h = salt * 0x9e3779b1u + round * 0x85ebca6bu;

    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return 2u * (1u + h % 509u);
}

/* The rounds of the agreement (see the top of the file). `salt` tells
 * overlapping agreements apart (the parent communicator's context id, mixed
 * with the tag for MPI_Comm_create_group). */
int mpii_ctx_agree(mpii_ctx_reduce_t reduce, void *arg, uint32_t salt, uint32_t *ctx_p)
{
    unsigned floor = mpii_g.next_ctx, round = 0;

    for (;;) {
        unsigned all = ctx_propose(floor), ok;
        int rc = reduce(arg, &all, 1);
        if (rc != MPI_SUCCESS)
            return rc;
        if (all >= MPII_CTX_PART_BIT - 2) /* (the top bit marks partitioned contexts) */
            return MPI_ERR_INTERN;
        ok = all >= mpii_g.next_ctx && !ctx_claimed(all) && nctx_claims < CTX_CLAIMS;
        if (ok)
            ctx_claims[nctx_claims++] = all;
        rc = reduce(arg, &ok, 0);
        if (rc != MPI_SUCCESS || !ok)
            ctx_unclaim(all);
        if (rc != MPI_SUCCESS)
            return rc;
        if (ok) {
            ctx_unclaim(all); /* in use from now on: below next_ctx */
            if (all + 2 > mpii_g.next_ctx)
                mpii_g.next_ctx = all + 2;
            *ctx_p = all;
            return MPI_SUCCESS;
        }
        floor = all + ctx_retry_step(salt, ++round);
    }
}

static int ctx_reduce_comm(void *arg, unsigned *v, int max)
{
    unsigned in = *v;
    return MPI_Allreduce(&in, v, 1, MPI_UNSIGNED, max ? MPI_MAX : MPI_MIN, ((mpii_comm_t *)arg)->handle);
}

/* Agree on a fresh context id over `c` (collective). */
int mpii_ctx_agree_comm(mpii_comm_t *c, uint32_t *ctx_p)
{
    /* the salt: c's context id, and the tag offset of the MPI_Comm_idup
     * running (several may be pending on one communicator) */
    return mpii_ctx_agree(ctx_reduce_comm, c, c->ctx + (uint32_t)mpii_coll_tag_off * 0x27d4eb2fu, ctx_p);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_rank");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_rank", "invalid communicator");
    if (!rank)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_size");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_size", "invalid communicator");
    if (!size)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    mpii_comm_t *c, *nc;
    uint32_t ctx;
    int rc;

    MPII_CHECK_INIT("MPI_Comm_dup");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_dup", "invalid communicator");
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
    *newcomm = MPI_COMM_NULL; /* what a failed dup leaves */
    if (c->is_inter) {
        rc = mpii_inter_dup(c, &nc);
        if (rc != MPI_SUCCESS)
            return mpii_err(c, rc, "MPI_Comm_dup", "inter-communicator dup failed");
        goto attrs;
    }
    rc = mpii_ctx_agree_comm(c, &ctx);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Comm_dup", "context agreement failed");
    rc = comm_create(c->size, c->world_ranks, c->rank, ctx, c->errhandler, &nc);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Comm_dup", "out of memory");
    if (mpii_topo_dup(nc, c) != MPI_SUCCESS) {
        comm_destroy(nc);
        return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Comm_dup", "out of memory");
    }
attrs:
    /* Attribute copy callbacks (MPI 3.1 6.7.2); a failing one fails the dup. */
    rc = mpii_attr_comm_dup(comm, nc->handle);
    if (rc != MPI_SUCCESS) {
        comm_destroy(nc);
        return mpii_err(c, rc, "MPI_Comm_dup", "an attribute copy callback failed");
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

int mpii_split_cmp(const void *a, const void *b)
{
    const split_ent_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    mpii_comm_t *c, *nc;
    int *in = NULL, *all = NULL, *wr = NULL, i, n = 0, me = -1, rc;
    split_ent_t *ents = NULL;
    uint32_t ctx;

    MPII_CHECK_INIT("MPI_Comm_split");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_split", "invalid communicator");
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_split", "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_split", "color %d is negative", color);
    if (c->is_inter) {
        rc = mpii_inter_split(c, color, key, newcomm);
        return rc == MPI_SUCCESS ? rc : mpii_err(c, rc, "MPI_Comm_split", "inter-communicator split failed");
    }
    in = calloc((size_t)c->size * 2, sizeof(int));
    all = calloc((size_t)c->size * 2, sizeof(int));
    ents = calloc((size_t)c->size, sizeof(*ents));
    wr = calloc((size_t)c->size, sizeof(int));
    if (!in || !all || !ents || !wr) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    in[2 * c->rank] = color;
    in[2 * c->rank + 1] = key;
    rc = MPI_Allreduce(in, all, 2 * c->size, MPI_INT, MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        rc = mpii_ctx_agree_comm(c, &ctx);
    if (rc != MPI_SUCCESS)
        goto out;
    if (color == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        goto out;
    }
    for (i = 0; i < c->size; i++)
        if (all[2 * i] == color) {
            ents[n].key = all[2 * i + 1];
            ents[n].rank = i;
            n++;
        }
    qsort(ents, (size_t)n, sizeof(*ents), mpii_split_cmp);
    for (i = 0; i < n; i++) {
        wr[i] = c->world_ranks[ents[i].rank];
        if (ents[i].rank == c->rank)
            me = i;
    }
    rc = comm_create(n, wr, me, ctx, c->errhandler, &nc);
    if (rc == MPI_SUCCESS)
        *newcomm = nc->handle;
out:
    free(in);
    free(all);
    free(ents);
    free(wr);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Comm_split", "failed");
    return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT("MPI_Comm_free");
    if (!comm)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Comm_free", "comm is NULL");
    c = mpii_comm_get(*comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator");
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return mpii_err(c, MPI_ERR_COMM, "MPI_Comm_free", "cannot free a predefined communicator");
    /* Attribute delete callbacks first; a failing one fails the free. */
    rc = mpii_attr_comm_free(*comm);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Comm_free", "an attribute delete callback failed");
    if (c->refs > 0) {
        /* "pending operations complete normally" (MPI 3.1 6.4.3): some
         * request (a receive, a send, a nonblocking collective) still uses
         * c; the handle goes now, the structure when the last of them is
         * released (mpii_comm_unref) */
        c->in_use = 0;
        c->free_deferred = 1;
        *comm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

void mpii_comm_destroy_deferred(mpii_comm_t *c)
{
    comm_destroy(c);
}

/* The same ranks, in any order (both lists of n distinct ranks). */
static int same_members(const int *x, const int *y, int n)
{
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int j = 0; j < n && !found; j++)
            found = x[i] == y[j];
        if (!found)
            return 0;
    }
    return 1;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    mpii_comm_t *a, *b;

    MPII_CHECK_INIT("MPI_Comm_compare");
    a = mpii_comm_get(comm1);
    b = mpii_comm_get(comm2);
    if (!a || !b)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_compare", "invalid communicator");
    if (!result)
        return mpii_err(a, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    /* MPI 4.0 7.4.1: congruent when the groups (an inter-communicator's
     * local and remote groups) are identical, similar when they have the
     * same members in another order */
    if (a->size != b->size || a->is_inter != b->is_inter || (a->is_inter && a->peer_size != b->peer_size)) {
        *result = MPI_UNEQUAL;
    } else if (!memcmp(a->world_ranks, b->world_ranks, (size_t)a->size * sizeof(int)) &&
               (!a->is_inter || !memcmp(a->peer_ranks, b->peer_ranks, (size_t)a->peer_size * sizeof(int)))) {
        *result = MPI_CONGRUENT;
    } else if (same_members(a->world_ranks, b->world_ranks, a->size) &&
               (!a->is_inter || same_members(a->peer_ranks, b->peer_ranks, a->peer_size))) {
        *result = MPI_SIMILAR;
    } else {
        *result = MPI_UNEQUAL;
    }
    return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_test_inter");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_test_inter", "invalid communicator");
    if (!flag)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    *flag = c->is_inter;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_set_name");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_name", "invalid communicator");
    if (!name)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    strncpy(c->name, name, sizeof(c->name) - 1);
    c->name[sizeof(c->name) - 1] = 0;
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_get_name");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_name", "invalid communicator");
    if (!name || !resultlen)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    strcpy(name, c->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_remote_size");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_remote_size", "invalid communicator");
    if (!size)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_remote_size", "size is NULL");
    if (!c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, "MPI_Comm_remote_size", "not an inter-communicator");
    *size = c->peer_size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_remote_group");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_remote_group", "invalid communicator");
    if (!group)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_remote_group", "group is NULL");
    if (!c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, "MPI_Comm_remote_group", "not an inter-communicator");
    if (mpii_group_from_ranks(c->peer_size, c->peer_ranks, group) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Comm_remote_group", "out of memory");
    return MPI_SUCCESS;
}

/* A reduction over a group's members only, through group rank 0, with
 * messages on comm's collective context under the call's tag. */
typedef struct group_reduce {
    mpii_comm_t *c;
    const int *crank; /* group rank -> rank in c */
    int n, me, tag;
} group_reduce_t;

static int ctx_reduce_group(void *arg, unsigned *v, int max)
{
    group_reduce_t *g = arg;
    unsigned x = 0;
    int rc = MPI_SUCCESS;

    if (g->me == 0) {
        for (int i = 1; i < g->n && rc == MPI_SUCCESS; i++) {
            rc = mpii_recv_ctx(&x, 1, MPI_UNSIGNED, g->crank[i], g->tag, g->c, 1, MPI_STATUS_IGNORE);
            if (max ? x > *v : x < *v)
                *v = x;
        }
        for (int i = 1; i < g->n && rc == MPI_SUCCESS; i++)
            rc = mpii_send_ctx(v, 1, MPI_UNSIGNED, g->crank[i], g->tag, g->c, 1);
        return rc;
    }
    rc = mpii_send_ctx(v, 1, MPI_UNSIGNED, g->crank[0], g->tag, g->c, 1);
    if (rc == MPI_SUCCESS)
        rc = mpii_recv_ctx(v, 1, MPI_UNSIGNED, g->crank[0], g->tag, g->c, 1, MPI_STATUS_IGNORE);
    return rc;
}

/* MPI_Comm_create_group (MPI 3.1 6.4.2): collective over the members of
 * group only. The members agree on a context id unused by all of them (the
 * maximum of their lowest unused ids) through group rank 0, with messages
 * on comm's collective context under `tag`, so concurrent calls on
 * overlapping groups are told apart by their tags. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    mpii_comm_t *c, *nc;
    MPI_Group cgroup;
    int n, me, i, rc, *grank = NULL, *crank = NULL, *wr = NULL;
    uint32_t ctx = 0;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "communicator %d is an inter-communicator", comm);
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (tag < 0 || tag > MPI_TAG_UB_VALUE)
        return mpii_err(c, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    if (group == MPI_GROUP_NULL || MPI_Group_size(group, &n) != MPI_SUCCESS ||
        MPI_Group_rank(group, &me) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_GROUP, fn, "invalid group %d", group);
    if (me == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL; /* not a member: local, MPI_COMM_NULL */
        return MPI_SUCCESS;
    }
    grank = malloc((size_t)n * sizeof(int));
    crank = malloc((size_t)n * sizeof(int));
    wr = malloc((size_t)n * sizeof(int));
    if (!grank || !crank || !wr) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (i = 0; i < n; i++)
        grank[i] = i;
    rc = MPI_Comm_group(comm, &cgroup);
    if (rc != MPI_SUCCESS)
        goto out;
    rc = MPI_Group_translate_ranks(group, n, grank, cgroup, crank);
    MPI_Group_free(&cgroup);
    if (rc != MPI_SUCCESS)
        goto out;
    for (i = 0; i < n; i++) {
        if (crank[i] == MPI_UNDEFINED) {
            free(grank), free(crank), free(wr);
            return mpii_err(c, MPI_ERR_GROUP, fn, "group rank %d is not in the communicator", i);
        }
        wr[i] = c->world_ranks[crank[i]];
    }
    {
        group_reduce_t g = {c, crank, n, me, tag};
        rc = mpii_ctx_agree(ctx_reduce_group, &g, c->ctx ^ ((uint32_t)tag * 0xcc9e2d51u), &ctx);
    }
    if (rc != MPI_SUCCESS)
        goto out;
    rc = comm_create(n, wr, me, ctx, c->errhandler, &nc);
    if (rc == MPI_SUCCESS)
        *newcomm = nc->handle;
out:
    free(grank);
    free(crank);
    free(wr);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "failed");
    return MPI_SUCCESS;
}

/* MPI_Comm_dup_with_info, MPI_Comm_idup, MPI_Comm_set_info / get_info (MPI
 * 3.1 6.4.2, 6.4.4): no hint changes mbmpi's behaviour, so the info is
 * checked and otherwise ignored. The nonblocking dup runs MPI_Comm_dup on a
 * coroutine (mpi/coll/nbc.c), so dups of several communicators can be
 * pending at once, started in any order. */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_dup_with_info");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_dup_with_info", "invalid communicator");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(c, MPI_ERR_INFO, "MPI_Comm_dup_with_info", "invalid info %d", info);
    return MPI_Comm_dup(comm, newcomm);
}

/* (mpii_nbc_comm_idup checks the communicator, newcomm and request) */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return mpii_nbc_comm_idup("MPI_Comm_idup", comm, newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    MPII_CHECK_INIT("MPI_Comm_idup_with_info");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(mpii_comm_get(comm), MPI_ERR_INFO, "MPI_Comm_idup_with_info", "invalid info %d", info);
    return mpii_nbc_comm_idup("MPI_Comm_idup_with_info", comm, newcomm, request);
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_set_info");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_info", "invalid communicator");
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(c, MPI_ERR_INFO, "MPI_Comm_set_info", "invalid info %d", info);
    return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_get_info");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_info", "invalid communicator");
    if (!info_used)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_get_info", "info_used is NULL");
    /* a new, empty info object: no hint is in use */
    return MPI_Info_create(info_used);
}
