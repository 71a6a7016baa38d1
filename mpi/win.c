/*
 * mpi/win.c: one-sided communication (MPI 3.1 chapter 11): windows made by
 * MPI_Win_create, _allocate, _allocate_shared and _create_dynamic; MPI_Put,
 * MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and their request-based forms; fence, post / start /
 * complete / wait and lock / unlock synchronization, flushes.
 *
 * Every window has a private communicator (its own contexts, never seen by
 * the user) over which origins send the target a header (TAG_HDR), then,
 * for a derived target type, its flattened type map (TAG_TYPE), then the
 * data (TAG_DATA); results come back on TAG_REPLY. The target serves them
 * from the progress engine (mpii_rma_progress, run by every MPI call that
 * waits), so a target makes progress while it is inside any MPI call, as in
 * MPICH without a progress thread. A put into a contiguous target region is
 * received straight into the window: over mbshm the write protocol copies
 * the payload from the origin's buffer into the window once.
 *
 * Ordering. Operations from one origin are served one at a time in the order
 * sent (so a flush or unlock, served after them, completes them, and
 * accumulates are ordered); different origins are served concurrently, each
 * accumulate atomically (it is applied in one step of the progress engine).
 * Each header carries the number of fences its origin had completed; the
 * target serves it only once it has completed as many, so an operation of
 * the next fence epoch never overtakes one of the epoch before from a
 * slower origin. A fence adds up, by a reduce-scatter, how many operations
 * each rank was sent, and each target waits until it has served them.
 *
 * Windows in shared memory. The windows of MPI_Win_allocate_shared, and
 * those of MPI_Win_allocate whose ranks all share this host's memory
 * (MBMPI_WIN_SHM), are one segment mapped by every rank: a put or a get to
 * them is a copy made by the origin itself, in its epoch (a lock, a started
 * access epoch or a fence epoch), with no message and no work at the
 * target; accumulates still go through the target, which applies them
 * atomically. Flushes and unlocks order those copies with a memory fence;
 * a fence ends with a barrier, so no rank reads a window before every
 * target has served the operations of the epoch before.
 *
 * Bytes from the network are checked: the target recomputes a shipped type
 * map's extent and size and serves only accesses inside its window (or an
 * attached region of a dynamic one); anything else is refused with a
 * message on stderr and its data is dropped.
 */
#include "mpi/mpi3.h"
#include "mpi/win_wire.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MODE_ALL                                                                                             \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define MAX_BLOCKS (1 << 24) /* of a shipped type map */

/* an operation a target is serving */
typedef struct inop {
    struct inop *next;
    rma_hdr_t h;
    int src;
    int stage;
    int valid;         /* the access lies inside the window */
    unsigned long seq; /* arrival order at this target */
    MPI_Request rq;
    mpii_datatype_t tdt; /* the target type (blocks: the shipped map, or the predefined type's) */
    mpii_dtblock_t *blocks;
    char *addr;    /* target_disp in this process */
    size_t nbytes; /* count elements of tdt, packed */
    void *tmp, *tmp2;
    char *data; /* the operand: inline, or tmp */
    char inl[]; /* h.inl bytes */
} inop_t;

/* an origin's request in flight */
typedef struct pend {
    MPI_Request rq;
    int target;
    void *tmp;        /* freed once done */
    MPI_Request greq; /* MPI_R* request completed with it, or MPI_REQUEST_NULL */
} pend_t;

typedef struct region {
    char *base;
    MPI_Aint size;
} region_t;

typedef struct win {
    MPI_Win handle;
    mpii_comm_t *comm; /* private */
    int rank, size;
    char *base;
    MPI_Aint wsize;
    int disp_unit;
    int flavor, model;
    MPI_Aint *sizes; /* every rank's window size and disp_unit */
    int *disp_units;
    MPI_Errhandler eh;
    MPI_Info info; /* the hints in use (MPI_Win_get_info) */
    char name[MPI_MAX_OBJECT_NAME];
    /* MPI_Win_allocate_shared (and MPI_Win_allocate on one host): the
     * mapping and each rank's offset in it */
    char *shm;
    size_t shm_len;
    MPI_Aint *shm_off;
    char **direct; /* each rank's window in this process (puts and gets copy), or NULL */
    /* dynamic: attached regions */
    region_t *regions;
    int nregions;
    /* target side */
    MPI_Request hdr_req;
    union {
        rma_hdr_t h;
        char bytes[sizeof(rma_hdr_t) + INLINE_MAX];
    } hin;
    inop_t **qhead, **qtail; /* per origin */
    int fences;
    unsigned long arrivals; /* operations received (inop_t.seq) */
    unsigned long long expected, served;
    int excl; /* rank holding the exclusive lock, or -1 */
    int nshared;
    int *completed; /* MPI_Win_complete notices not yet consumed by a wait */
    /* origin side */
    unsigned long long *sent; /* data operations sent to each rank since the last fence */
    pend_t *pend;
    int npend, cap_pend;
    int pend_at; /* where the next bounded poll_pend starts */
    int *granted, *acks, *posted;
    int *locked; /* lock type held on each rank (| LOCK_NOCHECK), or 0 */
    int lock_all;
    char *dirty;   /* operations sent since the last flush */
    char *unacked; /* ... among them puts or accumulates (no reply tells they are done) */
    int *start_ranks, nstart, started;
    int *post_ranks, npost, posted_epoch;
} win_t;

#define LOCK_NOCHECK 0x10000

/* The lock of rank r's window in a shared segment: held while an
 * accumulate is applied there (by its origin, or by r serving one), so each
 * is atomic against the others. Held for one copy or one combination: a
 * waiter spins, then yields its CPU. */
#define SEG_LOCK_STRIDE 64

static void seg_lock(win_t *w, int r)
{
    int *l = (int *)(void *)(w->shm + (size_t)r * SEG_LOCK_STRIDE);
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
            if (++spins > 64)
                sched_yield();
#if defined(__x86_64__) || defined(__i386__)
            else
                __builtin_ia32_pause();
#endif
        }
}

static void seg_unlock(win_t *w, int r)
{
    __atomic_store_n((int *)(void *)(w->shm + (size_t)r * SEG_LOCK_STRIDE), 0, __ATOMIC_RELEASE);
}

int mpii_rma_nwin;
static win_t **wins;
static int nwins;

static win_t *win_get(MPI_Win h)
{
    if (h < 1 || h > nwins)
        return NULL;
    return wins[h - 1];
}

int mpii_win_valid(MPI_Win win)
{
    return win_get(win) != NULL;
}

MPI_Errhandler *mpii_win_errhandler(MPI_Win win)
{
    win_t *w = win_get(win);
    return w ? &w->eh : NULL;
}

int mpii_win_predef_attr(MPI_Win win, int keyval, void **val)
{
    win_t *w = win_get(win);

    if (!w)
        return 0;
    switch (keyval) {
    case MPI_WIN_BASE:
        *val = w->base;
        return 1;
    case MPI_WIN_SIZE:
        *val = &w->wsize;
        return 1;
    case MPI_WIN_DISP_UNIT:
        *val = &w->disp_unit;
        return 1;
    case MPI_WIN_CREATE_FLAVOR:
        *val = &w->flavor;
        return 1;
    case MPI_WIN_MODEL:
        *val = &w->model;
        return 1;
    default:
        return 0;
    }
}

MPI_Win MPI_Win_f2c(MPI_Fint win)
{
    return win;
}

MPI_Fint MPI_Win_c2f(MPI_Win win)
{
    return win;
}

/* -------------------------------------------------------------- helpers */

/* *h done: finish it (status into st) and return 1; else 0. */
static int req_done(MPI_Request *h, MPI_Status *st)
{
    mpii_request_t *r;

    if (*h == MPI_REQUEST_NULL)
        return 1;
    r = mpii_request_get(*h);
    if (r && !r->pr.done)
        return 0;
    if (r)
        mpii_req_complete(r, h, st);
    else
        *h = MPI_REQUEST_NULL;
    return 1;
}

/* Wait, making progress, until cond(w, arg) holds. */
static void wait_for(win_t *w, int (*cond)(win_t *, int), int arg)
{
    long idle = 0;

    while (!cond(w, arg)) {
        if (mpii_progress() > 0)
            idle = 0;
        else
            mpii_idle_wait(&idle);
    }
}

/* A header without data; K_UNLOCK: `ack` asks for an acknowledgement. */
static int send_ctl_ack(win_t *w, int kind, int target, int lock_type, int ack)
{
    rma_hdr_t h;

    memset(&h, 0, sizeof(h));
    h.kind = kind;
    h.epoch = w->fences;
    h.lock_type = lock_type;
    h.inl = ack;
    h.dt = MPI_DATATYPE_NULL;
    return mpii_send_ctx(&h, (int)sizeof(h), MPI_BYTE, target, TAG_HDR, w->comm, 0);
}

static int send_ctl(win_t *w, int kind, int target, int lock_type)
{
    return send_ctl_ack(w, kind, target, lock_type, 0);
}

static int add_pend(win_t *w, MPI_Request rq, int target, void *tmp, MPI_Request greq)
{
    if (w->npend == w->cap_pend) {
        int nn = w->cap_pend ? 2 * w->cap_pend : 16;
        pend_t *t = realloc(w->pend, (size_t)nn * sizeof(*t));
        if (!t)
            return MPI_ERR_NO_MEM;
        w->pend = t;
        w->cap_pend = nn;
    }
    w->pend[w->npend++] = (pend_t){rq, target, tmp, greq};
    return MPI_SUCCESS;
}

/* Finish the origin requests that are done; returns how many. */
/* Entry i of the pending operations, if its request is done: its
 * temporary freed, its Rput / Rget request completed, the entry replaced
 * by the last one. 1 when it was done. */
static int pend_reap(win_t *w, int i)
{
    pend_t *p = &w->pend[i];
    if (!req_done(&p->rq, MPI_STATUS_IGNORE))
        return 0;
    free(p->tmp);
    if (p->greq != MPI_REQUEST_NULL)
        MPI_Grequest_complete(p->greq);
    w->pend[i] = w->pend[--w->npend];
    return 1;
}

/* From every progress call: at most 32 entries from a rotating start, so
 * that 100000 outstanding MPI_Gets (MPICH's rma/manyget) do not make each
 * call walk them all; the waits below look further. */
static int poll_pend(win_t *w)
{
    int n = 0;

    for (int k = 0; k < 32 && w->npend > 0; k++) {
        if (w->pend_at >= w->npend)
            w->pend_at = 0;
        if (pend_reap(w, w->pend_at))
            n++;
        else
            w->pend_at++;
    }
    return n;
}

/* No operation pending to target (< 0: any): reaps done entries until it
 * meets one that is not, which answers no. */
static int no_pend_to(win_t *w, int target)
{
    for (int i = 0; i < w->npend;) {
        if (pend_reap(w, i))
            continue;
        if (target < 0 || w->pend[i].target == target)
            return 0;
        i++;
    }
    return 1;
}

static int queues_empty(win_t *w, int unused)
{
    (void)unused;
    for (int i = 0; i < w->size; i++)
        if (w->qhead[i])
            return 0;
    return 1;
}

static int all_served(win_t *w, int unused)
{
    (void)unused;
    return w->served >= w->expected;
}

/* The extent of count elements of t in bytes from the buffer: [*lo, *hi).
 * Non-zero on overflow. */
static int type_span(const mpii_datatype_t *t, int count, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint last;

    if (count == 0 || t->size == 0) {
        *lo = *hi = 0;
        return 0;
    }
    if (__builtin_mul_overflow((MPI_Aint)(count - 1), t->extent, &last))
        return 1;
    *lo = t->true_lb + (last < 0 ? last : 0);
    if (__builtin_add_overflow(t->true_lb + t->true_extent, last > 0 ? last : 0, hi))
        return 1;
    return 0;
}

/* Is [disp * du + lo, disp * du + hi) inside a window of wsize bytes? */
static int in_window(MPI_Aint disp, int du, MPI_Aint lo, MPI_Aint hi, MPI_Aint wsize)
{
    MPI_Aint off, a, b;

    if (lo == hi)
        return 1;
    if (disp < 0 || __builtin_mul_overflow(disp, (MPI_Aint)du, &off) || __builtin_add_overflow(off, lo, &a) ||
        __builtin_add_overflow(off, hi, &b))
        return 0;
    return a >= 0 && b <= wsize;
}

/* ------------------------------------------------------- target: serving */

static void refuse(win_t *w, inop_t *o, const char *why)
{
    fprintf(stderr, "mbmpi: rank %d: window %d: an operation from rank %d refused: %s\n", mpii_g.rank,
            w->handle, o->src, why);
    o->valid = 0;
}

/* Build o->tdt from the header (and the shipped map) and check the access:
 * o->valid. */
/* Whether the attached regions of a dynamic window cover [a, b), b > a: one
   access may span regions attached side by side. */
static int covered(const win_t *w, MPI_Aint a, MPI_Aint b)
{
    for (int again = 1; again && a < b;) {
        again = 0;
        for (int i = 0; i < w->nregions; i++) {
            MPI_Aint lo = (MPI_Aint)w->regions[i].base, hi = lo + w->regions[i].size;
            if (a >= lo && a < hi) {
                a = hi;
                again = 1;
                break;
            }
        }
    }
    return a >= b;
}

static void target_type(win_t *w, inop_t *o)
{
    const rma_hdr_t *h = &o->h;
    MPI_Aint lo, hi;

    o->valid = 1;
    if (h->dt != MPI_DATATYPE_NULL) {
        mpii_datatype_t *t = mpii_datatype_get(h->dt);
        if (!t || !t->predefined) {
            memset(&o->tdt, 0, sizeof(o->tdt));
            refuse(w, o, "unknown target datatype");
            return;
        }
        o->tdt = *t;
    } else {
        mpii_datatype_t *t = &o->tdt;
        mpii_datatype_t *b = h->basic != MPI_DATATYPE_NULL ? mpii_datatype_get(h->basic) : NULL;
        size_t size = 0;
        MPI_Aint mn = 0, mx = 0;

        memset(t, 0, sizeof(*t));
        t->in_use = t->committed = 1;
        t->nblocks = (size_t)h->nblocks;
        t->blocks = o->blocks;
        t->blen = t->nblocks ? o->blocks[0].len : 0;
        for (size_t i = 0; i < t->nblocks; i++) {
            MPI_Aint end;
            if (o->blocks[i].len > (size_t)1 << 40 ||
                __builtin_add_overflow(o->blocks[i].disp, (MPI_Aint)o->blocks[i].len, &end)) {
                t->nblocks = 0;
                refuse(w, o, "malformed type map");
                return;
            }
            if (!i || o->blocks[i].disp < mn)
                mn = o->blocks[i].disp;
            if (!i || end > mx)
                mx = end;
            size += o->blocks[i].len;
            if (o->blocks[i].len != t->blen)
                t->blen = 0;
        }
        t->size = size;
        t->extent = (MPI_Aint)h->extent;
        t->lb = mn;
        t->true_lb = mn;
        t->true_extent = mx - mn;
        t->contig = t->nblocks == 1 && t->extent == (MPI_Aint)size;
        if (b && b->predefined && b->size && size % b->size == 0) {
            t->basic = h->basic;
            t->basic_count = size / b->size;
        } else {
            t->basic = MPI_DATATYPE_NULL;
        }
    }
    if (h->count < 0 || (o->tdt.size && (size_t)h->count > (size_t)INT32_MAX / o->tdt.size)) {
        refuse(w, o, "bad count");
        return;
    }
    o->nbytes = (size_t)h->count * o->tdt.size;
    if (h->inl && (h->kind == K_GET || (h->kind == K_GACC && h->op == MPI_NO_OP) ||
                   (size_t)h->inl != (h->kind == K_CAS ? 2 : 1) * o->nbytes)) {
        refuse(w, o, "inline data of the wrong size");
        return;
    }
    if (type_span(&o->tdt, h->count, &lo, &hi)) {
        refuse(w, o, "access overflows");
        return;
    }
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        MPI_Aint a, b;
        int ok = lo == hi;
        if (!ok && !__builtin_add_overflow((MPI_Aint)h->disp, lo, &a) &&
            !__builtin_add_overflow((MPI_Aint)h->disp, hi, &b))
            ok = covered(w, a, b);
        if (!ok) {
            refuse(w, o, "access outside every attached region (MPI_ERR_RMA_RANGE)");
            return;
        }
        o->addr = (char *)(uintptr_t)h->disp;
    } else {
        if (!in_window((MPI_Aint)h->disp, w->disp_unit, lo, hi, w->wsize)) {
            refuse(w, o, "access outside the window (MPI_ERR_RMA_RANGE)");
            return;
        }
        o->addr = w->base + (MPI_Aint)h->disp * w->disp_unit;
    }
    if ((h->kind == K_ACC || h->kind == K_GACC || h->kind == K_CAS) && h->op != MPI_REPLACE &&
        h->op != MPI_NO_OP &&
        (o->tdt.basic == MPI_DATATYPE_NULL || mpii_op_check(h->op, o->tdt.basic) != MPI_SUCCESS)) {
        refuse(w, o, "operation not defined on the target type");
        return;
    }
    if (h->kind == K_CAS && (!o->tdt.predefined || h->count != 1)) {
        refuse(w, o, "compare-and-swap needs one predefined element");
        return;
    }
}

/* Combine the packed operand `in` into count elements of o->tdt at o->addr. */
static void target_apply(inop_t *o, const char *in)
{
    const mpii_datatype_t *t = &o->tdt;
    mpii_datatype_t *b;
    int count = o->h.count;

    if (o->h.op == MPI_NO_OP)
        return;
    if (o->h.op == MPI_REPLACE) {
        mpii_datatype_unpack(in, o->nbytes, o->addr, (size_t)count, t);
        return;
    }
    b = mpii_datatype_get(t->basic);
    if (t->contig && b->contig) {
        mpii_op_apply(o->h.op, in, o->addr + t->true_lb, (int)(o->nbytes / b->size), t->basic);
        return;
    }
    if (b->contig) {
        size_t pos = 0;
        for (int i = 0; i < count; i++)
            for (size_t j = 0; j < t->nblocks; j++) {
                mpii_op_apply(o->h.op, in + pos, o->addr + (MPI_Aint)i * t->extent + t->blocks[j].disp,
                              (int)(t->blocks[j].len / b->size), t->basic);
                pos += t->blocks[j].len;
            }
        return;
    }
    /* a pair type with a hole (MPI_SHORT_INT ...): a pair starts at every
     * multiple of its size in the packed stream (as in mpi/op.c); each is
     * unpacked into the pair's own layout, then combined in place */
    {
        char pair[64];
        size_t pos = 0;

        if ((size_t)b->extent > sizeof(pair))
            return;
        for (int i = 0; i < count; i++)
            for (size_t j = 0; j < t->nblocks; j++) {
                size_t len = t->blocks[j].len;
                for (size_t q = (pos + b->size - 1) / b->size * b->size; q < pos + len; q += b->size) {
                    MPI_Aint off = (MPI_Aint)i * t->extent + t->blocks[j].disp + (MPI_Aint)(q - pos);
                    mpii_datatype_unpack(in + q, b->size, pair, 1, b);
                    mpii_op_apply(o->h.op, pair, o->addr + off, 1, t->basic);
                }
                pos += len;
            }
    }
}

static int reply(win_t *w, inop_t *o, const void *buf, size_t n)
{
    return mpii_isend_ctx(buf, (int)n, MPI_BYTE, o->src, TAG_REPLY, w->comm, 0, &o->rq);
}

/* Whether a lock request that arrived before o still waits at the head of
 * its origin's queue: locks are granted in arrival order, so an origin that
 * unlocks and locks again cannot starve the others. */
static int earlier_lock_waits(const win_t *w, const inop_t *o)
{
    for (int s = 0; s < w->size; s++) {
        const inop_t *q = w->qhead[s];
        if (q && q != o && q->h.kind == K_LOCK && q->seq < o->seq)
            return 1;
    }
    return 0;
}

static int lock_free_for(win_t *w, int type)
{
    return w->excl < 0 && (type == MPI_LOCK_SHARED || w->nshared == 0);
}

/* Advance o; 1 once it is served. */
static int serve(win_t *w, inop_t *o)
{
    rma_hdr_t *h = &o->h;

    if (o->stage == 0) {
        if (h->epoch > w->fences)
            return 0; /* of a fence epoch this rank has not reached */
        o->rq = MPI_REQUEST_NULL;
        if (h->kind <= K_CAS && h->dt == MPI_DATATYPE_NULL) {
            if (h->nblocks < 1 || h->nblocks > MAX_BLOCKS ||
                !(o->blocks = malloc((size_t)h->nblocks * sizeof(*o->blocks)))) {
                /* nothing can be received: the origin's messages stay unmatched */
                fprintf(stderr, "mbmpi: rank %d: window %d: malformed header from rank %d dropped\n",
                        mpii_g.rank, w->handle, o->src);
                w->served++;
                return 1;
            }
            mpii_irecv_ctx(o->blocks, (int)(h->nblocks * (int64_t)sizeof(*o->blocks)), MPI_BYTE, o->src,
                           TAG_TYPE, w->comm, 0, &o->rq);
        }
        o->stage = 1;
    }
    if (o->stage == 1) {
        if (!req_done(&o->rq, MPI_STATUS_IGNORE))
            return 0;
        if (h->kind <= K_CAS)
            target_type(w, o);
        o->stage = 2;
    }
    if (o->stage == 2) {
        switch (h->kind) {
        case K_PUT:
            if (o->valid && o->tdt.contig && h->inl) {
                memcpy(o->addr + o->tdt.true_lb, o->inl, o->nbytes);
                w->served++;
                return 1;
            }
            if (o->valid && o->tdt.contig) {
                mpii_irecv_ctx(o->addr + o->tdt.true_lb, (int)o->nbytes, MPI_BYTE, o->src, TAG_DATA, w->comm,
                               0, &o->rq);
                o->stage = 4;
                return 0;
            }
            /* fall through */
        case K_ACC:
        case K_GACC:
        case K_CAS:
            if (h->kind == K_GACC && h->op == MPI_NO_OP) {
                o->stage = 3;
                break;
            }
            if (h->inl) {
                o->data = o->inl;
                o->stage = 3;
                break;
            }
            {
                /* (received also when refused, so the data message is
                 * consumed; without memory it is truncated away) */
                size_t n = h->kind == K_CAS ? 2 * o->nbytes : o->nbytes;
                o->tmp = malloc(n ? n : 1);
                if (!o->tmp)
                    refuse(w, o, "out of memory");
                mpii_irecv_ctx(o->tmp, o->tmp ? (int)n : 0, MPI_BYTE, o->src, TAG_DATA, w->comm, 0, &o->rq);
                o->data = o->tmp;
            }
            o->stage = 3;
            return 0;
        case K_GET:
            if (!o->valid) {
                o->tmp = calloc(1, o->nbytes ? o->nbytes : 1);
                reply(w, o, o->tmp, o->nbytes);
            } else if (o->tdt.contig) {
                reply(w, o, o->addr + o->tdt.true_lb, o->nbytes);
            } else {
                o->tmp = malloc(o->nbytes ? o->nbytes : 1);
                if (o->tmp)
                    mpii_datatype_pack(o->addr, (size_t)h->count, &o->tdt, o->tmp);
                reply(w, o, o->tmp, o->nbytes);
            }
            o->stage = 4;
            return 0;
        case K_LOCK:
            if (!lock_free_for(w, h->lock_type) || earlier_lock_waits(w, o))
                return 0;
            if (h->lock_type == MPI_LOCK_EXCLUSIVE)
                w->excl = o->src;
            else
                w->nshared++;
            send_ctl(w, K_GRANT, o->src, 0);
            return 1;
        case K_UNLOCK:
            if (h->lock_type == MPI_LOCK_EXCLUSIVE && w->excl == o->src)
                w->excl = -1;
            else if (h->lock_type == MPI_LOCK_SHARED && w->nshared > 0)
                w->nshared--;
            if (h->inl)
                send_ctl(w, K_ACK, o->src, 0);
            return 1;
        case K_FLUSH:
            send_ctl(w, K_ACK, o->src, 0);
            return 1;
        case K_COMPLETE:
            w->completed[o->src]++;
            return 1;
        default:
            return 1;
        }
    }
    if (o->stage == 3) {
        /* the operand has arrived: combine, in one step */
        if (!req_done(&o->rq, MPI_STATUS_IGNORE))
            return 0;
        if (h->kind == K_GACC || h->kind == K_CAS) /* the old contents go back */
            o->tmp2 = calloc(1, o->nbytes ? o->nbytes : 1);
        if (w->direct)
            seg_lock(w, w->rank);
        if (h->kind == K_PUT) {
            if (o->valid && o->data)
                mpii_datatype_unpack(o->data, o->nbytes, o->addr, (size_t)h->count, &o->tdt);
        } else if (h->kind == K_ACC) {
            if (o->valid && o->data)
                target_apply(o, o->data);
        } else {
            if (o->valid && o->tmp2) {
                mpii_datatype_pack(o->addr, (size_t)h->count, &o->tdt, o->tmp2);
                if (h->kind == K_GACC && o->data)
                    target_apply(o, o->data);
                else if (h->kind == K_CAS && o->data && !memcmp(o->tmp2, o->data + o->nbytes, o->nbytes))
                    memcpy(o->addr, o->data, o->nbytes);
            }
        }
        if (w->direct)
            seg_unlock(w, w->rank);
        if (h->kind == K_GACC || h->kind == K_CAS)
            reply(w, o, o->tmp2, o->nbytes);
        o->stage = 4;
    }
    /* stage 4: the data or reply message completes */
    if (!req_done(&o->rq, MPI_STATUS_IGNORE))
        return 0;
    w->served++;
    return 1;
}

static void inop_free(inop_t *o)
{
    free(o->blocks);
    free(o->tmp);
    free(o->tmp2);
    free(o);
}

static void hdr_post(win_t *w)
{
    mpii_irecv_ctx(&w->hin, (int)sizeof(w->hin.bytes), MPI_BYTE, MPI_ANY_SOURCE, TAG_HDR, w->comm, 0,
                   &w->hdr_req);
}

static int win_poll(win_t *w)
{
    int n = 0;
    MPI_Status st;

    for (;;) {
        st.MPI_ERROR = MPI_SUCCESS;
        if (w->hdr_req == MPI_REQUEST_NULL || !req_done(&w->hdr_req, &st))
            break;
        const rma_hdr_t *h = &w->hin.h;
        int src = st.MPI_SOURCE, cnt = 0;

        n++;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (st.MPI_ERROR != MPI_SUCCESS || cnt < (int)sizeof(*h) || src < 0 || src >= w->size ||
            (h->kind != K_UNLOCK && (h->inl < 0 || h->inl > INLINE_MAX || cnt != (int)sizeof(*h) + h->inl)) ||
            h->kind < K_PUT || h->kind > K_LAST) {
            fprintf(stderr, "mbmpi: rank %d: window %d: malformed header from rank %d dropped\n", mpii_g.rank,
                    w->handle, src);
        } else if (h->kind == K_GRANT) {
            w->granted[src]++;
        } else if (h->kind == K_ACK) {
            w->acks[src]++;
        } else if (h->kind == K_POST) {
            w->posted[src]++;
        } else {
            inop_t *o = calloc(1, sizeof(*o) + (h->kind != K_UNLOCK ? (size_t)h->inl : 0));
            if (!o) {
                fprintf(stderr, "mbmpi: rank %d: window %d: out of memory; operation dropped\n", mpii_g.rank,
                        w->handle);
            } else {
                o->h = *h;
                o->src = src;
                o->seq = w->arrivals++;
                if (h->kind != K_UNLOCK)
                    memcpy(o->inl, w->hin.bytes + sizeof(*h), (size_t)h->inl);
                if (w->qtail[src])
                    w->qtail[src]->next = o;
                else
                    w->qhead[src] = o;
                w->qtail[src] = o;
            }
        }
        hdr_post(w);
    }
    for (int s = 0; s < w->size; s++) {
        inop_t *o;
        while ((o = w->qhead[s]) && serve(w, o)) {
            w->qhead[s] = o->next;
            if (!o->next)
                w->qtail[s] = NULL;
            inop_free(o);
            n++;
        }
    }
    return n + poll_pend(w);
}

int mpii_win_send_raw(int win, int target, const void *msg, int len)
{
    win_t *w = win_get(win);

    if (!w || target < 0 || target >= w->size)
        return MPI_ERR_ARG;
    return mpii_send_ctx(msg, len, MPI_BYTE, target, TAG_HDR, w->comm, 0);
}

int mpii_rma_progress(void)
{
    static int busy;
    int n = 0;

    if (busy)
        return 0;
    busy = 1;
    for (int i = 0; i < nwins; i++)
        if (wins[i])
            n += win_poll(wins[i]);
    busy = 0;
    return n;
}

/* ------------------------------------------------------------- creation */

static void win_destroy(win_t *w)
{
    if (!w)
        return;
    if (w->hdr_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&w->hdr_req);
        MPI_Wait(&w->hdr_req, MPI_STATUS_IGNORE);
    }
    for (int s = 0; w->qhead && s < w->size; s++)
        while (w->qhead[s]) {
            inop_t *o = w->qhead[s];
            w->qhead[s] = o->next;
            inop_free(o);
        }
    if (w->comm)
        mpii_comm_destroy(w->comm);
    if (w->info != MPI_INFO_NULL)
        MPI_Info_free(&w->info);
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE && !w->shm)
        free(w->base);
    if (w->shm)
        munmap(w->shm, w->shm_len);
    free(w->sizes);
    free(w->disp_units);
    free(w->shm_off);
    free(w->direct);
    free(w->regions);
    free(w->qhead);
    free(w->qtail);
    free(w->completed);
    free(w->sent);
    free(w->pend);
    free(w->granted);
    free(w->acks);
    free(w->posted);
    free(w->locked);
    free(w->dirty);
    free(w->unacked);
    free(w->start_ranks);
    free(w->post_ranks);
    free(w);
}

/* The hints a window knows (MPI 3.1 11.2.1, 11.7.2), with their defaults;
 * others are ignored. None changes what mbmpi does: each is kept and
 * reported back by MPI_Win_get_info. */
static const char *const hints[][2] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"alloc_shared_noncontig", "false"},
};

/* Take the known hints of info (MPI_INFO_NULL: none) into w->info. */
static int hints_apply(win_t *w, MPI_Info info)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int nkeys, flag, rc;

    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return MPI_ERR_INFO;
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
        rc = MPI_Info_get(info, hints[i][0], MPI_MAX_INFO_VAL, val, &flag);
        if (rc == MPI_SUCCESS && flag)
            rc = MPI_Info_set(w->info, hints[i][0], val);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The collective part of every creation call: the private communicator,
 * every rank's size and disp_unit, the header receive. */
static int win_new(const char *fn, MPI_Comm comm, MPI_Aint size, int disp_unit, int flavor, MPI_Info info,
                   win_t **w_p)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    win_t *w;
    uint32_t ctx;
    int rc, P, slot;
    int64_t mine[2], *all;

    *w_p = NULL;
    MPII_CHECK_INIT(fn);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "an inter-communicator");
    if (size < 0)
        return mpii_err(c, MPI_ERR_SIZE, fn, "size %ld is negative", (long)size);
    if (disp_unit <= 0)
        return mpii_err(c, MPI_ERR_DISP, fn, "disp_unit %d is not positive", disp_unit);
    P = c->size;
    w = calloc(1, sizeof(*w));
    if (!w)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    w->rank = c->rank;
    w->size = P;
    w->wsize = size;
    w->disp_unit = disp_unit;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->eh = MPI_ERRORS_ARE_FATAL;
    w->excl = -1;
    w->hdr_req = MPI_REQUEST_NULL;
    w->info = MPI_INFO_NULL;
    w->sizes = calloc((size_t)P, sizeof(*w->sizes));
    w->disp_units = calloc((size_t)P, sizeof(int));
    w->qhead = calloc((size_t)P, sizeof(inop_t *));
    w->qtail = calloc((size_t)P, sizeof(inop_t *));
    w->completed = calloc((size_t)P, sizeof(int));
    w->sent = calloc((size_t)P, sizeof(*w->sent));
    w->granted = calloc((size_t)P, sizeof(int));
    w->acks = calloc((size_t)P, sizeof(int));
    w->posted = calloc((size_t)P, sizeof(int));
    w->locked = calloc((size_t)P, sizeof(int));
    w->dirty = calloc((size_t)P, 1);
    w->unacked = calloc((size_t)P, 1);
    w->start_ranks = calloc((size_t)P, sizeof(int));
    w->post_ranks = calloc((size_t)P, sizeof(int));
    all = calloc((size_t)P, 2 * sizeof(int64_t));
    rc = MPI_Info_create(&w->info);
    for (size_t i = 0; rc == MPI_SUCCESS && i < sizeof(hints) / sizeof(hints[0]); i++)
        rc = MPI_Info_set(w->info, hints[i][0], hints[i][1]);
    if (rc == MPI_SUCCESS)
        rc = hints_apply(w, info);
    if (rc != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpii_err(c, rc, fn, "invalid info");
    }
    rc = mpii_ctx_agree_comm(c, &ctx);
    if (rc == MPI_SUCCESS)
        rc = mpii_comm_new(P, c->world_ranks, c->rank, ctx, MPI_ERRORS_RETURN, &w->comm);
    if (rc == MPI_SUCCESS) {
        w->comm->hidden = 1;
        mine[0] = size;
        mine[1] = disp_unit;
        rc = all ? MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, w->comm->handle) : MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS && (!w->sizes || !w->disp_units || !w->qhead || !w->qtail || !w->completed ||
                              !w->sent || !w->granted || !w->acks || !w->posted || !w->locked || !w->dirty ||
                              !w->unacked || !w->start_ranks || !w->post_ranks || !all))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpii_err(c, rc, fn, "could not create the window");
    }
    for (int i = 0; i < P; i++) {
        w->sizes[i] = (MPI_Aint)all[2 * i];
        w->disp_units[i] = (int)all[2 * i + 1];
    }
    free(all);
    for (slot = 0; slot < nwins && wins[slot]; slot++)
        ;
    if (slot == nwins) {
        win_t **t = realloc(wins, (size_t)(nwins + 1) * sizeof(*t));
        if (!t) {
            win_destroy(w);
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        wins = t;
        wins[nwins++] = NULL;
    }
    w->handle = slot + 1;
    wins[slot] = w;
    mpii_rma_nwin++;
    hdr_post(w);
    *w_p = w;
    return MPI_SUCCESS;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create";
    win_t *w;
    int rc;

    if (!win)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_ARG, fn, "win is NULL");
    *win = MPI_WIN_NULL;
    rc = win_new(fn, comm, size, disp_unit, MPI_WIN_FLAVOR_CREATE, info, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    w->base = base;
    *win = w->handle;
    return MPI_SUCCESS;
}

/* Undo win_new after a failure that every rank of w saw. */
static int win_fail(win_t *w, const char *fn, mpii_comm_t *c, int rc, const char *why)
{
    wins[w->handle - 1] = NULL;
    mpii_rma_nwin--;
    win_destroy(w);
    return mpii_err(c, rc, fn, "%s", why);
}

/* Map one segment holding every rank's window, rank r's at shm_off[r] (a
 * multiple of align) after one lock per rank (seg_lock), in every rank of
 * w, all on this host; room: check
 * first that /dev/shm has the space (a segment larger than that would
 * raise SIGBUS at first touch). *all_ok: every rank mapped it; otherwise
 * nothing stays mapped. MPI error class. */
static int map_segment(win_t *w, size_t align, int room, int *all_ok)
{
    static unsigned serial;
    int rc, fd = -1, ok = 1;
    char path[64];
    size_t total = 0;

    *all_ok = 0;
    w->shm_off = calloc((size_t)w->size, sizeof(MPI_Aint));
    total = (size_t)w->size * SEG_LOCK_STRIDE; /* the accumulate locks first */
    for (int i = 0; i < w->size && w->shm_off; i++) {
        total = (total + align - 1) / align * align;
        w->shm_off[i] = (MPI_Aint)total;
        total += (size_t)w->sizes[i];
    }
    w->shm_len = total ? total : 1;
    if (w->rank == 0) {
        struct statvfs fs;
        snprintf(path, sizeof(path), "/mbmpi-win-%d-%u", (int)getpid(), serial);
        if (room && (statvfs("/dev/shm", &fs) != 0 || (double)fs.f_bavail * fs.f_frsize < 2.0 * w->shm_len))
            ok = 0;
        else
            fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)w->shm_len) != 0)
            ok = 0;
    }
    serial++;
    rc = MPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, w->comm->handle);
    if (rc == MPI_SUCCESS && w->rank != 0) {
        fd = shm_open(path, O_RDWR, 0600);
        ok = fd >= 0;
    }
    if (ok && w->shm_off) {
        void *m = mmap(NULL, w->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            ok = 0;
        else
            w->shm = m;
    } else {
        ok = 0;
    }
    if (fd >= 0)
        close(fd);
    w->direct = calloc((size_t)w->size, sizeof(char *));
    ok = ok && w->direct;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&ok, all_ok, 1, MPI_INT, MPI_LAND, w->comm->handle);
    if (w->rank == 0 && fd >= 0)
        shm_unlink(path);
    if (rc != MPI_SUCCESS || !*all_ok) {
        *all_ok = 0;
        if (w->shm)
            munmap(w->shm, w->shm_len);
        w->shm = NULL;
        free(w->direct);
        w->direct = NULL;
        return rc;
    }
    for (int i = 0; i < w->size; i++)
        w->direct[i] = w->sizes[i] ? w->shm + w->shm_off[i] : NULL;
    return MPI_SUCCESS;
}

/* Every rank of w's group runs on this host. MPI error class. */
static int all_on_host(win_t *w, int *yes)
{
    MPI_Comm node;
    int nsize = 0, rc = MPI_Comm_split_type(w->comm->handle, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);

    if (rc == MPI_SUCCESS) {
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
    }
    *yes = nsize == w->size;
    return rc;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate";
    win_t *w;
    void *mem = NULL;
    int rc, local = 0, mapped = 0;

    if (!win || !baseptr)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_ARG, fn, "%s is NULL", !win ? "win" : "baseptr");
    *win = MPI_WIN_NULL;
    rc = win_new(fn, comm, size, disp_unit, MPI_WIN_FLAVOR_ALLOCATE, info, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    /* on one host: one shared segment, puts and gets are copies */
    if (mpii_g.win_shm)
        rc = all_on_host(w, &local);
    if (rc == MPI_SUCCESS && local)
        rc = map_segment(w, 64, 1, &mapped);
    if (rc != MPI_SUCCESS)
        return win_fail(w, fn, mpii_comm_get(comm), rc, "could not create the window");
    if (mapped) {
        w->base = w->direct[w->rank];
    } else {
        free(w->shm_off);
        w->shm_off = NULL;
        if (size > 0 && posix_memalign(&mem, 64, (size_t)size))
            mem = NULL;
        if (size > 0 && !mem) {
            /* (the others have their windows: this one is empty, and says so) */
            w->wsize = 0;
            *win = w->handle;
            return mpii_err(mpii_comm_get(comm), MPI_ERR_NO_MEM, fn, "out of memory for %ld bytes",
                            (long)size);
        }
        w->base = mem;
    }
    *(void **)baseptr = w->base;
    *win = w->handle;
    return MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create_dynamic";
    win_t *w;
    int rc;

    if (!win)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_ARG, fn, "win is NULL");
    *win = MPI_WIN_NULL;
    rc = win_new(fn, comm, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, info, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    *win = w->handle;
    return MPI_SUCCESS;
}

static int win_check(const char *fn, MPI_Win win, win_t **w_p)
{
    MPII_CHECK_INIT(fn);
    *w_p = win_get(win);
    if (!*w_p)
        return mpii_err(NULL, MPI_ERR_WIN, fn, "invalid window %d", win);
    return MPI_SUCCESS;
}

#define WERR(w, cls, fn, ...) mpii_err_win((w)->eh, (w)->handle, cls, fn, __VA_ARGS__)

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char fn[] = "MPI_Win_attach";
    win_t *w;
    region_t *t;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WERR(w, MPI_ERR_RMA_FLAVOR, fn, "not a dynamic window");
    if (size < 0)
        return WERR(w, MPI_ERR_SIZE, fn, "size %ld is negative", (long)size);
    if (!base && size > 0)
        return WERR(w, MPI_ERR_ARG, fn, "base is NULL");
    t = realloc(w->regions, (size_t)(w->nregions + 1) * sizeof(*t));
    if (!t)
        return WERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    w->regions = t;
    w->regions[w->nregions++] = (region_t){base, size};
    return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    static const char fn[] = "MPI_Win_detach";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WERR(w, MPI_ERR_RMA_FLAVOR, fn, "not a dynamic window");
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].base == base) {
            w->regions[i] = w->regions[--w->nregions];
            return MPI_SUCCESS;
        }
    return WERR(w, MPI_ERR_RMA_ATTACH, fn, "no region attached at %p", base);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate_shared";
    mpii_comm_t *c;
    win_t *w;
    int rc, local = 0, all_ok = 0;

    if (!win || !baseptr)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_ARG, fn, "%s is NULL", !win ? "win" : "baseptr");
    *win = MPI_WIN_NULL;
    rc = win_new(fn, comm, size, disp_unit, MPI_WIN_FLAVOR_SHARED, info, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    c = mpii_comm_get(comm);
    /* every member must share this host's memory */
    rc = all_on_host(w, &local);
    if (rc != MPI_SUCCESS || !local)
        return win_fail(w, fn, c, rc != MPI_SUCCESS ? rc : MPI_ERR_RMA_SHARED,
                        "the ranks of the communicator do not all share this host's memory");
    rc = map_segment(w, 1, 0, &all_ok);
    if (rc != MPI_SUCCESS || !all_ok)
        return win_fail(w, fn, c, rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM,
                        "could not map the shared segment");
    w->base = w->shm + w->shm_off[w->rank];
    *(void **)baseptr = w->base;
    *win = w->handle;
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char fn[] = "MPI_Win_shared_query";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return WERR(w, MPI_ERR_RMA_FLAVOR, fn, "not a window of MPI_Win_allocate_shared");
    if (!size || !disp_unit || !baseptr)
        return WERR(w, MPI_ERR_ARG, fn, "NULL argument");
    if (rank == MPI_PROC_NULL) {
        /* the segment of the lowest rank that has one */
        for (rank = 0; rank < w->size - 1 && w->sizes[rank] == 0; rank++)
            ;
    } else if (rank < 0 || rank >= w->size) {
        return WERR(w, MPI_ERR_RANK, fn, "rank %d not in the window's group of %d", rank, w->size);
    }
    *size = w->sizes[rank];
    *disp_unit = w->disp_units[rank];
    *(void **)baseptr = w->sizes[rank] ? w->shm + w->shm_off[rank] : NULL;
    return MPI_SUCCESS;
}

int MPI_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    win_t *w;
    int rc;

    MPII_CHECK_INIT(fn);
    if (!win)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "win is NULL");
    rc = win_check(fn, *win, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return WERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is still locked", i);
    if (w->lock_all || w->started || w->posted_epoch)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "an access or exposure epoch is still open");
    rc = mpii_attr_win_free(w->handle);
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "an attribute's delete callback failed");
    wait_for(w, no_pend_to, -1);
    wait_for(w, queues_empty, 0);
    /* after every member's last epoch, nothing more can come */
    rc = MPI_Barrier(w->comm->handle);
    wins[w->handle - 1] = NULL;
    mpii_rma_nwin--;
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : mpii_err(NULL, rc, fn, "barrier failed");
}

void mpii_win_finalize(void)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i]) {
            win_destroy(wins[i]);
            wins[i] = NULL;
        }
    free(wins);
    wins = NULL;
    nwins = 0;
    mpii_rma_nwin = 0;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char fn[] = "MPI_Win_get_group";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!group)
        return WERR(w, MPI_ERR_ARG, fn, "group is NULL");
    rc = mpii_group_from_ranks(w->size, w->comm->world_ranks, group);
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "out of memory");
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    win_t *w;
    int rc = win_check("MPI_Win_set_info", win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    rc = hints_apply(w, info);
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, "MPI_Win_set_info", "invalid info %d", info);
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Win_get_info";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return WERR(w, MPI_ERR_ARG, fn, "info_used is NULL");
    rc = MPI_Info_dup(w->info, info_used);
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "out of memory");
}

int MPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char fn[] = "MPI_Win_set_name";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!win_name)
        return WERR(w, MPI_ERR_ARG, fn, "win_name is NULL");
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char fn[] = "MPI_Win_get_name";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!win_name || !resultlen)
        return WERR(w, MPI_ERR_ARG, fn, "NULL argument");
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(w->name);
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- communication */

static int rq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int rq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int rq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* May this rank access `target` now? */
static int in_access_epoch(win_t *w, int target)
{
    if (w->fences > 0 || w->lock_all || w->locked[target])
        return 1;
    for (int i = 0; i < w->nstart; i++)
        if (w->start_ranks[i] == target)
            return 1;
    return 0;
}

static int check_type(MPI_Datatype dt, mpii_datatype_t **t_p)
{
    if (mpii_datatype_check(dt) != MPI_SUCCESS)
        return 0;
    *t_p = mpii_datatype_get(dt);
    return 1;
}

/* Copy scount elements of st at src into dcount elements of dt at dst
 * (the same number of bytes). MPI error class. */
static int copy_typed(const void *src, int scount, const mpii_datatype_t *st, void *dst, int dcount,
                      const mpii_datatype_t *dt)
{
    size_t n = (size_t)dcount * dt->size;
    void *tmp;

    if (st->contig && dt->contig) {
        memmove((char *)dst + dt->true_lb, (const char *)src + st->true_lb, n);
    } else if (dt->contig) {
        mpii_datatype_pack(src, (size_t)scount, st, (char *)dst + dt->true_lb);
    } else if (st->contig) {
        mpii_datatype_unpack((const char *)src + st->true_lb, n, dst, (size_t)dcount, dt);
    } else {
        tmp = malloc(n);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        mpii_datatype_pack(src, (size_t)scount, st, tmp);
        mpii_datatype_unpack(tmp, n, dst, (size_t)dcount, dt);
        free(tmp);
    }
    return MPI_SUCCESS;
}

/* An accumulate (K_ACC, K_GACC, K_CAS) into rank trank's window in shared
 * memory, at t: applied here, under the window's lock. */
static int direct_acc(win_t *w, int kind, const void *oaddr, int ocount, const mpii_datatype_t *ot,
                      void *raddr, int rcount, const mpii_datatype_t *rt, const void *caddr, int trank,
                      char *t, int tcount, const mpii_datatype_t *tt, MPI_Op op)
{
    size_t n = (size_t)tcount * tt->size;
    char small[256], *in = NULL, *buf = NULL;
    inop_t o;
    int rc = MPI_SUCCESS;

    /* the operand, packed (before the lock: no allocation under it) */
    if (kind != K_CAS && op != MPI_NO_OP) {
        if (ot->contig) {
            in = (char *)oaddr + ot->true_lb;
        } else {
            buf = n <= sizeof(small) ? small : malloc(n);
            if (!buf)
                return MPI_ERR_NO_MEM;
            mpii_datatype_pack(oaddr, (size_t)ocount, ot, buf);
            in = buf;
        }
    }
    memset(&o, 0, sizeof(o));
    o.tdt = *tt;
    o.addr = t;
    o.nbytes = n;
    o.h.op = op;
    o.h.count = tcount;
    seg_lock(w, trank);
    if (kind == K_CAS) {
        /* one predefined element */
        memcpy(raddr, t, tt->size);
        if (!memcmp(t, caddr, tt->size))
            memcpy(t, oaddr, tt->size);
    } else {
        if (kind == K_GACC)
            rc = copy_typed(t, tcount, tt, raddr, rcount, rt);
        if (rc == MPI_SUCCESS)
            target_apply(&o, in);
    }
    seg_unlock(w, trank);
    if (buf != small)
        free(buf);
    return rc;
}

/* One RMA call. kind K_PUT / K_GET / K_ACC / K_GACC / K_CAS; (oaddr,
 * ocount, odt) the origin buffer (K_GET: where the data goes); (raddr,
 * rcount, rdt) the result buffer of K_GACC / K_CAS; caddr the compare value
 * of K_CAS. ureq: an MPI_R* call's request. */
static int rma_op(const char *fn, int kind, const void *oaddr, int ocount, MPI_Datatype odt, void *raddr,
                  int rcount, MPI_Datatype rdt, const void *caddr, int trank, MPI_Aint tdisp, int tcount,
                  MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *ureq)
{
    win_t *w;
    mpii_datatype_t *ot = NULL, *tt = NULL, *rt = NULL;
    MPI_Request greq = MPI_REQUEST_NULL, rq;
    rma_hdr_t h;
    int rc = win_check(fn, win, &w);
    int has_origin = kind != K_GACC || op != MPI_NO_OP;
    int has_result = kind == K_GACC || kind == K_CAS;

    if (rc != MPI_SUCCESS)
        return rc;
    if (ureq)
        *ureq = MPI_REQUEST_NULL;
    if (trank != MPI_PROC_NULL && (trank < 0 || trank >= w->size))
        return WERR(w, MPI_ERR_RANK, fn, "target rank %d not in the window's group of %d", trank, w->size);
    if ((has_origin && ocount < 0) || tcount < 0 || (has_result && rcount < 0))
        return WERR(w, MPI_ERR_COUNT, fn, "negative count");
    if ((has_origin && !check_type(odt, &ot)) || !check_type(tdt, &tt) ||
        (has_result && !check_type(rdt, &rt)))
        return WERR(w, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (kind != K_CAS && (size_t)tcount * tt->size == 0) {
        /* nothing moves: valid whatever the (zero-size) types and buffers */
        if (ureq) {
            rc = MPI_Grequest_start(rq_query, rq_free, rq_cancel, NULL, ureq);
            if (rc == MPI_SUCCESS)
                MPI_Grequest_complete(*ureq);
        }
        return rc;
    }
    if (kind == K_ACC || kind == K_GACC) {
        if (op < MPI_MAX || op > MPI_NO_OP)
            return WERR(w, MPI_ERR_OP, fn, "only predefined operations are allowed in one-sided calls");
        if (op != MPI_REPLACE && op != MPI_NO_OP &&
            (tt->basic == MPI_DATATYPE_NULL || (has_origin && ot->basic != tt->basic) ||
             mpii_op_check(op, tt->basic) != MPI_SUCCESS))
            return WERR(w, MPI_ERR_OP, fn, "operation not defined on the target type");
    }
    if (!ureq && !in_access_epoch(w, trank == MPI_PROC_NULL ? w->rank : trank) && trank != MPI_PROC_NULL)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "no access epoch to rank %d is open", trank);
    if (ureq && trank != MPI_PROC_NULL && !w->lock_all && !w->locked[trank])
        return WERR(w, MPI_ERR_RMA_SYNC, fn,
                    "request-based calls need a passive-target epoch (MPI_Win_lock)");
    if (has_result && (size_t)rcount * rt->size != (size_t)tcount * tt->size)
        return WERR(w, MPI_ERR_ARG, fn, "the result's %zu bytes do not match the target's %zu",
                    (size_t)rcount * rt->size, (size_t)tcount * tt->size);
    if (has_origin && (size_t)ocount * ot->size != (size_t)tcount * tt->size)
        return WERR(w, MPI_ERR_ARG, fn, "the origin's %zu bytes do not match the target's %zu",
                    (size_t)ocount * ot->size, (size_t)tcount * tt->size);
    if ((size_t)tcount * tt->size > INT32_MAX)
        return WERR(w, MPI_ERR_COUNT, fn, "more than 2 GiB in one call");
    if (trank != MPI_PROC_NULL && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        MPI_Aint lo, hi;
        if (tdisp < 0)
            return WERR(w, MPI_ERR_DISP, fn, "target_disp %ld is negative", (long)tdisp);
        if (type_span(tt, tcount, &lo, &hi) ||
            !in_window(tdisp, w->disp_units[trank], lo, hi, w->sizes[trank]))
            return WERR(w, MPI_ERR_RMA_RANGE, fn, "access beyond the %ld bytes of rank %d's window",
                        (long)w->sizes[trank], trank);
    }
    if (ureq) {
        rc = MPI_Grequest_start(rq_query, rq_free, rq_cancel, NULL, &greq);
        if (rc != MPI_SUCCESS)
            return WERR(w, rc, fn, "out of requests");
        *ureq = greq;
    }
    if (trank == MPI_PROC_NULL) {
        if (greq != MPI_REQUEST_NULL)
            MPI_Grequest_complete(greq);
        return MPI_SUCCESS;
    }
    /* a window in shared memory: the origin copies, nothing is sent */
    if (w->direct && w->direct[trank]) {
        char *t = w->direct[trank] + tdisp * w->disp_units[trank];
        if (kind == K_PUT)
            rc = copy_typed(oaddr, ocount, ot, t, tcount, tt);
        else if (kind == K_GET)
            rc = copy_typed(t, tcount, tt, (void *)oaddr, ocount, ot);
        else
            rc = direct_acc(w, kind, oaddr, ocount, ot, raddr, rcount, rt, caddr, trank, t, tcount, tt, op);
        if (greq != MPI_REQUEST_NULL)
            MPI_Grequest_complete(greq);
        return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "out of memory");
    }

    /* the reply's receive first: its sender finds it posted */
    if (kind == K_GET || has_result) {
        void *b = kind == K_GET ? (void *)oaddr : raddr;
        int n = kind == K_GET ? ocount : rcount;
        MPI_Datatype d = kind == K_GET ? odt : rdt;
        rc = mpii_irecv_ctx(b, n, d, trank, TAG_REPLY, w->comm, 0, &rq);
        if (rc == MPI_SUCCESS)
            rc = add_pend(w, rq, trank, NULL, greq);
        greq = MPI_REQUEST_NULL; /* completed with the reply */
        if (rc != MPI_SUCCESS)
            return WERR(w, rc, fn, "could not post the reply's receive");
    }
    memset(&h, 0, sizeof(h));
    h.kind = kind;
    h.epoch = w->fences;
    h.disp = (int64_t)tdisp;
    h.count = tcount;
    h.op = op;
    h.dt = tt->predefined ? tdt : MPI_DATATYPE_NULL;
    if (!tt->predefined) {
        h.nblocks = (int64_t)tt->nblocks;
        h.extent = (int64_t)tt->extent;
        h.basic = tt->basic;
    }
    {
        /* small data goes with the header */
        size_t n = (size_t)tcount * tt->size * (kind == K_CAS ? 2 : 1);
        union {
            rma_hdr_t h;
            char bytes[sizeof(rma_hdr_t) + INLINE_MAX];
        } m;
        if (kind != K_GET && has_origin && n <= INLINE_MAX) {
            h.inl = (int32_t)n;
            if (kind == K_CAS) {
                memcpy(m.bytes + sizeof(h), oaddr, tt->size);
                memcpy(m.bytes + sizeof(h) + tt->size, caddr, tt->size);
            } else {
                mpii_datatype_pack(oaddr, (size_t)ocount, ot, m.bytes + sizeof(h));
            }
        }
        m.h = h;
        rc = mpii_send_ctx(m.bytes, (int)(sizeof(h) + (size_t)h.inl), MPI_BYTE, trank, TAG_HDR, w->comm, 0);
    }
    if (rc == MPI_SUCCESS && !tt->predefined) {
        size_t n = tt->nblocks * sizeof(mpii_dtblock_t);
        void *map = malloc(n ? n : 1);
        if (!map)
            return WERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
        memcpy(map, tt->blocks, n);
        rc = mpii_isend_ctx(map, (int)n, MPI_BYTE, trank, TAG_TYPE, w->comm, 0, &rq);
        if (rc == MPI_SUCCESS)
            rc = add_pend(w, rq, trank, map, MPI_REQUEST_NULL);
    }
    if (h.inl) {
        /* (sent) */
    } else if (rc == MPI_SUCCESS && kind == K_CAS) {
        char *two = malloc(2 * tt->size);
        if (!two)
            return WERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
        memcpy(two, oaddr, tt->size);
        memcpy(two + tt->size, caddr, tt->size);
        rc = mpii_isend_ctx(two, (int)(2 * tt->size), MPI_BYTE, trank, TAG_DATA, w->comm, 0, &rq);
        if (rc == MPI_SUCCESS)
            rc = add_pend(w, rq, trank, two, MPI_REQUEST_NULL);
    } else if (rc == MPI_SUCCESS && kind != K_GET && has_origin) {
        rc = mpii_isend_ctx(oaddr, ocount, odt, trank, TAG_DATA, w->comm, 0, &rq);
        if (rc == MPI_SUCCESS)
            rc = add_pend(w, rq, trank, NULL, greq);
        greq = MPI_REQUEST_NULL;
    }
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "could not send to rank %d", trank);
    if (greq != MPI_REQUEST_NULL)
        MPI_Grequest_complete(greq);
    w->sent[trank]++;
    w->dirty[trank] = 1;
    if (kind == K_PUT || kind == K_ACC)
        w->unacked[trank] = 1;
    return MPI_SUCCESS;
}

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_op("MPI_Put", K_PUT, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                  NULL, target_rank, target_disp, target_count, target_datatype, MPI_REPLACE, win, NULL);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_op("MPI_Get", K_GET, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                  NULL, target_rank, target_disp, target_count, target_datatype, MPI_NO_OP, win, NULL);
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                   MPI_Win win)
{
    return rma_op("MPI_Accumulate", K_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op, win,
                  NULL);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win)
{
    return rma_op("MPI_Get_accumulate", K_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                  result_count, result_datatype, NULL, target_rank, target_disp, target_count,
                  target_datatype, op, win, NULL);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    mpii_datatype_t *t = mpii_datatype_get(datatype);

    /* MPI 3.1 11.3.4: one element of a predefined datatype */
    if (mpii_is_initialized() && win_get(win) && t && !t->predefined)
        return WERR(win_get(win), MPI_ERR_TYPE, "MPI_Fetch_and_op", "needs a predefined datatype");
    return rma_op("MPI_Fetch_and_op", K_GACC, origin_addr, 1, datatype, result_addr, 1, datatype, NULL,
                  target_rank, target_disp, 1, datatype, op, win, NULL);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char fn[] = "MPI_Compare_and_swap";
    mpii_datatype_t *t = mpii_datatype_get(datatype);

    /* MPI 3.1 11.3.4: C or Fortran integer, logical, multi-language or byte
     * types: those BAND or LAND are defined on (not floating point) */
    if (mpii_is_initialized() && win_get(win) &&
        (!t || !t->predefined || t->basic == MPI_DATATYPE_NULL ||
         (mpii_op_check(MPI_BAND, datatype) != MPI_SUCCESS &&
          mpii_op_check(MPI_LAND, datatype) != MPI_SUCCESS)))
        return WERR(win_get(win), MPI_ERR_TYPE, fn, "needs a predefined integer, logical or byte type");
    return rma_op(fn, K_CAS, origin_addr, 1, datatype, result_addr, 1, datatype, compare_addr, target_rank,
                  target_disp, 1, datatype, MPI_REPLACE, win, NULL);
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Rput", "request is NULL");
    return rma_op("MPI_Rput", K_PUT, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                  NULL, target_rank, target_disp, target_count, target_datatype, MPI_REPLACE, win, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Rget", "request is NULL");
    return rma_op("MPI_Rget", K_GET, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                  NULL, target_rank, target_disp, target_count, target_datatype, MPI_NO_OP, win, request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win, MPI_Request *request)
{
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Raccumulate", "request is NULL");
    return rma_op("MPI_Raccumulate", K_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op, win,
                  request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win, MPI_Request *request)
{
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Rget_accumulate", "request is NULL");
    return rma_op("MPI_Rget_accumulate", K_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                  result_count, result_datatype, NULL, target_rank, target_disp, target_count,
                  target_datatype, op, win, request);
}

/* ------------------------------------------------------ synchronization */

static int check_assert(win_t *w, const char *fn, int assert)
{
    if (assert & ~MODE_ALL)
        return WERR(w, MPI_ERR_ASSERT, fn, "unknown assertion bits %#x", (unsigned)(assert & ~MODE_ALL));
    return MPI_SUCCESS;
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_fence";
    win_t *w;
    unsigned long long got = 0;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || (rc = check_assert(w, fn, assert)) != MPI_SUCCESS)
        return rc;
    if (w->lock_all || w->started || w->posted_epoch)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "a passive-target or post/start epoch is open");
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return WERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is locked", i);
    /* this rank's operations complete locally (gets have their data) ... */
    if (w->direct)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    wait_for(w, no_pend_to, -1);
    /* ... and each target serves all it was sent */
    rc = MPI_Reduce_scatter_block(w->sent, &got, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, w->comm->handle);
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "reduce-scatter failed");
    memset(w->sent, 0, (size_t)w->size * sizeof(*w->sent));
    memset(w->dirty, 0, (size_t)w->size);
    memset(w->unacked, 0, (size_t)w->size);
    w->expected += got;
    wait_for(w, all_served, 0);
    w->fences++;
    /* a shared segment is read with plain loads (by its owner, or by a
       direct get): every target has served its operations before any rank
       leaves the fence */
    if ((w->flavor == MPI_WIN_FLAVOR_SHARED || w->direct) && !(assert &MPI_MODE_NOPRECEDE)) {
        rc = MPI_Barrier(w->comm->handle);
        if (rc != MPI_SUCCESS)
            return WERR(w, rc, fn, "barrier failed");
    }
    return MPI_SUCCESS;
}

/* The ranks of group in the window's group, into out; MPI error class. */
static int group_ranks(win_t *w, MPI_Group group, int *out, int *n_p)
{
    MPI_Group wg;
    int n, rc, *in;

    rc = MPI_Group_size(group, &n);
    if (rc != MPI_SUCCESS)
        return MPI_ERR_GROUP;
    if (n > w->size)
        return MPI_ERR_GROUP;
    in = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!in)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        in[i] = i;
    rc = mpii_group_from_ranks(w->size, w->comm->world_ranks, &wg);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_translate_ranks(group, n, in, wg, out);
        MPI_Group_free(&wg);
    }
    free(in);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = MPI_ERR_GROUP;
    *n_p = n;
    return rc;
}

static int posted_by(win_t *w, int r)
{
    return w->posted[r] > 0;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_post";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || (rc = check_assert(w, fn, assert)) != MPI_SUCCESS)
        return rc;
    if (w->posted_epoch)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "an exposure epoch is already open");
    rc = group_ranks(w, group, w->post_ranks, &w->npost);
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "invalid group");
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++)
        rc = send_ctl(w, K_POST, w->post_ranks[i], 0);
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "could not notify the origins");
    w->posted_epoch = 1;
    return MPI_SUCCESS;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_start";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || (rc = check_assert(w, fn, assert)) != MPI_SUCCESS)
        return rc;
    if (w->started)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "an access epoch is already open");
    rc = group_ranks(w, group, w->start_ranks, &w->nstart);
    if (rc != MPI_SUCCESS) {
        w->nstart = 0;
        return WERR(w, rc, fn, "invalid group");
    }
    /* each target's exposure epoch has begun (MPI_MODE_NOCHECK or not: the
     * post always notifies) */
    for (int i = 0; i < w->nstart; i++) {
        wait_for(w, posted_by, w->start_ranks[i]);
        w->posted[w->start_ranks[i]]--;
    }
    w->started = 1;
    return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win)
{
    static const char fn[] = "MPI_Win_complete";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!w->started)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "no access epoch was started");
    if (w->direct)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < w->nstart; i++) {
        wait_for(w, no_pend_to, w->start_ranks[i]);
        if (rc == MPI_SUCCESS)
            rc = send_ctl(w, K_COMPLETE, w->start_ranks[i], 0);
        w->dirty[w->start_ranks[i]] = 0;
    }
    w->started = 0;
    w->nstart = 0;
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "could not notify the targets");
}

static int completed_by(win_t *w, int r)
{
    return w->completed[r] > 0;
}

static int win_wait_test(const char *fn, MPI_Win win, int *flag)
{
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!w->posted_epoch)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch was posted");
    if (flag) {
        mpii_progress();
        *flag = 1;
        for (int i = 0; i < w->npost && *flag; i++)
            *flag = completed_by(w, w->post_ranks[i]);
        if (!*flag)
            return MPI_SUCCESS;
    }
    for (int i = 0; i < w->npost; i++) {
        wait_for(w, completed_by, w->post_ranks[i]);
        w->completed[w->post_ranks[i]]--;
    }
    w->posted_epoch = 0;
    w->npost = 0;
    return MPI_SUCCESS;
}

int MPI_Win_wait(MPI_Win win)
{
    return win_wait_test("MPI_Win_wait", win, NULL);
}

int MPI_Win_test(MPI_Win win, int *flag)
{
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Win_test", "flag is NULL");
    return win_wait_test("MPI_Win_test", win, flag);
}

static int granted_since(win_t *w, int r)
{
    return w->granted[r] > 0;
}

static int acked(win_t *w, int r)
{
    return w->acks[r] > 0;
}

/* Send a lock request to r (no wait). */
static int lock_send(win_t *w, int type, int r, int assert)
{
    w->locked[r] = type | (assert &MPI_MODE_NOCHECK ? LOCK_NOCHECK : 0);
    if (assert & MPI_MODE_NOCHECK)
        return MPI_SUCCESS;
    return send_ctl(w, K_LOCK, r, type);
}

static void lock_wait(win_t *w, int r)
{
    if (w->locked[r] & LOCK_NOCHECK)
        return;
    wait_for(w, granted_since, r);
    w->granted[r]--;
}

/* Complete every operation to r at r: an unlock (release the lock) or a
 * flush. */
static int remote_complete(win_t *w, int r, int unlock)
{
    int rc = MPI_SUCCESS, ack;

    if (w->direct) /* the copies into shared memory are visible */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    wait_for(w, no_pend_to, r);
    /* A received reply tells its get or fetching accumulate is done at the
     * target; puts and accumulates are known done only from an
     * acknowledgement, which the target sends after serving them. */
    ack = w->unacked[r];
    if (unlock && !(w->locked[r] & LOCK_NOCHECK))
        rc = send_ctl_ack(w, K_UNLOCK, r, w->locked[r] & ~LOCK_NOCHECK, ack);
    else if (ack)
        rc = send_ctl(w, K_FLUSH, r, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ack) {
        wait_for(w, acked, r);
        w->acks[r]--;
    }
    w->dirty[r] = 0;
    w->unacked[r] = 0;
    return MPI_SUCCESS;
}

static int check_target(win_t *w, const char *fn, int rank)
{
    if (rank < 0 || rank >= w->size)
        return WERR(w, MPI_ERR_RANK, fn, "rank %d not in the window's group of %d", rank, w->size);
    return MPI_SUCCESS;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || (rc = check_assert(w, fn, assert)) != MPI_SUCCESS)
        return rc;
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return WERR(w, MPI_ERR_LOCKTYPE, fn, "lock type %d", lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_target(w, fn, rank)) != MPI_SUCCESS)
        return rc;
    if (w->locked[rank] || w->lock_all)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked", rank);
    rc = lock_send(w, lock_type, rank, assert);
    if (rc != MPI_SUCCESS) {
        w->locked[rank] = 0;
        return WERR(w, rc, fn, "could not send the lock request");
    }
    lock_wait(w, rank);
    return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_target(w, fn, rank)) != MPI_SUCCESS)
        return rc;
    if (!w->locked[rank] || w->lock_all)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked", rank);
    rc = remote_complete(w, rank, 1);
    w->locked[rank] = 0;
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "could not unlock rank %d", rank);
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock_all";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || (rc = check_assert(w, fn, assert)) != MPI_SUCCESS)
        return rc;
    if (w->lock_all)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "already locked");
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return WERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked", i);
    for (int i = 0; i < w->size && rc == MPI_SUCCESS; i++)
        rc = lock_send(w, MPI_LOCK_SHARED, i, assert);
    if (rc != MPI_SUCCESS)
        return WERR(w, rc, fn, "could not send the lock requests");
    for (int i = 0; i < w->size; i++)
        lock_wait(w, i);
    w->lock_all = 1;
    return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock_all";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!w->lock_all)
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "not locked by MPI_Win_lock_all");
    for (int i = 0; i < w->size; i++) {
        int r2 = remote_complete(w, i, 1);
        if (rc == MPI_SUCCESS)
            rc = r2;
        w->locked[i] = 0;
    }
    w->lock_all = 0;
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "could not unlock");
}

static int flush_check(win_t *w, const char *fn, int rank)
{
    int rc = check_target(w, fn, rank);
    if (rc == MPI_SUCCESS && !w->lock_all && !w->locked[rank])
        return WERR(w, MPI_ERR_RMA_SYNC, fn, "no passive-target epoch to rank %d", rank);
    return rc;
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_flush";
    win_t *w = NULL; /* (set when win_check succeeds; gcc -O3 cannot tell) */
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL) /* as Win_lock / unlock: nothing to do */
        return rc;
    if ((rc = flush_check(w, fn, rank)) != MPI_SUCCESS)
        return rc;
    rc = remote_complete(w, rank, 0);
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "could not flush rank %d", rank);
}

int MPI_Win_flush_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_flush_all";
    win_t *w;
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    if (w->direct)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < w->size && rc == MPI_SUCCESS; i++)
        if (w->dirty[i] && (w->lock_all || w->locked[i]))
            rc = remote_complete(w, i, 0);
    return rc == MPI_SUCCESS ? rc : WERR(w, rc, fn, "could not flush");
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_flush_local";
    win_t *w = NULL; /* (set when win_check succeeds; gcc -O3 cannot tell) */
    int rc = win_check(fn, win, &w);

    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if ((rc = flush_check(w, fn, rank)) != MPI_SUCCESS)
        return rc;
    wait_for(w, no_pend_to, rank);
    return MPI_SUCCESS;
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    win_t *w;
    int rc = win_check("MPI_Win_flush_local_all", win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    wait_for(w, no_pend_to, -1);
    return MPI_SUCCESS;
}

int MPI_Win_sync(MPI_Win win)
{
    win_t *w;
    int rc = win_check("MPI_Win_sync", win, &w);

    if (rc != MPI_SUCCESS)
        return rc;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    mpii_progress();
    return MPI_SUCCESS;
}
