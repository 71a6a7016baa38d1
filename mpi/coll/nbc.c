/*
 * mpi/coll/nbc.c: the nonblocking collectives (MPI_Ibarrier, MPI_Ibcast,
 * ... MPI_Iexscan; MPI 3.1 section 5.12).
 *
 * Each call runs the blocking collective (the same algorithms, the same
 * model-based choice and the same argument checks) on a coroutine: a small
 * stack of its own (a switch of stack pointer and callee-saved registers:
 * nbc_switch below, or swapcontext elsewhere and with -DMBMPI_NBC_UCONTEXT). Where the blocking code would
 * wait (mpii_progress_wait), the coroutine records what it waits for and
 * switches back, so the call returns a request at once. Every progress call
 * of the library made outside a coroutine (MPI_Test*, MPI_Wait*, MPI_Iprobe,
 * blocking point-to-point, ...) resumes the coroutines whose awaited
 * operation has completed (mpii_nbc_progress); the request completes when
 * the collective has returned. This gives the NBX pattern what it needs: a
 * rank that tests its MPI_Ibarrier while still receiving moves the barrier
 * on.
 *
 * Matching: MPI requires every rank to start the collectives of a
 * communicator, blocking and nonblocking, in the same order. A blocking
 * collective relies on that and on message order (one fixed tag per
 * operation); a nonblocking one may still be running when the next starts,
 * so each instance sends in the collective context under tags of its own:
 * the operation's tag plus MPII_NBC_TAG_BASE + (sequence number << 8),
 * the sequence counted per communicator (mpii_coll_tag_off, applied by
 * mpi/p2p.c to every collective-context message while the coroutine runs).
 *
 * Errors: argument errors found before the first wait are returned by the
 * I-call itself (through the communicator's error handler, the message
 * naming the I-call); a failure later is returned by the MPI_Wait / MPI_Test
 * that completes the request.
 *
 * Costs: on x86-64 a coroutine switch saves and restores 6 registers and
 * the FPU control words, no system call (swapcontext sets the signal mask
 * each time: MPI_Iallreduce + MPI_Wait of 8 B at P = 2 took 2.2-2.4 us with
 * it against 0.6-0.8 for MPI_Allreduce); the stacks come from a small
 * pool, so a steady stream of nonblocking collectives maps no memory. Only while some
 * nonblocking collective is pending does progress look at the coroutines.
 */
#include "coll.h"
#include "mpi/mpi3.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(MBMPI_NBC_UCONTEXT)
/*
 * nbc_switch(save, to): push the callee-saved registers (System V x86-64
 * ABI: rbp, rbx, r12-r15, the MXCSR and x87 control words), store the stack
 * pointer in *save, load `to` and pop the same from there; `ret` then
 * continues where that stack left off (or, on a fresh stack, at the entry
 * address nbc_ctx_init put there).
 */
void mpii_nbc_switch(void **save, void *to);
__asm__(".text\n"
        ".globl mpii_nbc_switch\n"
        ".hidden mpii_nbc_switch\n"
        ".type mpii_nbc_switch,@function\n"
        "mpii_nbc_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size mpii_nbc_switch, .-mpii_nbc_switch\n");
typedef struct {
    void *sp;
} nbc_ctx_t;
#define CTX_SWITCH(from, to) mpii_nbc_switch(&(from)->sp, (to)->sp)
#else
#include <ucontext.h>
typedef ucontext_t nbc_ctx_t;
#define CTX_SWITCH(from, to) swapcontext((from), (to))
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NBC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NBC_ASAN 1
#endif
#endif
/* A coroutine's stack: the collective's own frames need a few KiB, but a
 * user-defined reduction op runs on it too, and may keep big arrays on
 * its stack. The mapping is MAP_NORESERVE: untouched pages cost nothing. */
#ifdef NBC_ASAN
#include <sanitizer/common_interface_defs.h>
#define NBC_STACK (4u << 20)
#else
#define NBC_STACK (1u << 20)
#endif
#define NBC_POOL 16 /* stacks kept for reuse */

/* tags of a nonblocking collective: base + (seq << 8) + the blocking tag */
#define MPII_NBC_TAG_BASE 0x40000000
#define MPII_NBC_SEQ_MASK 0x3fffffu

int mpii_coll_tag_off;
int mpii_nbc_nactive;

enum nbc_kind {
    NBC_BARRIER,
    NBC_BCAST,
    NBC_REDUCE,
    NBC_ALLREDUCE,
    NBC_SCATTER,
    NBC_SCATTERV,
    NBC_GATHER,
    NBC_GATHERV,
    NBC_ALLGATHER,
    NBC_ALLGATHERV,
    NBC_ALLTOALL,
    NBC_ALLTOALLV,
    NBC_REDUCE_SCATTER,
    NBC_REDUCE_SCATTER_BLOCK,
    NBC_SCAN,
    NBC_EXSCAN,
    NBC_COMM_DUP, /* MPI_Comm_idup */
    NBC_SENDRECV, /* MPI_Isendrecv (point to point, on a coroutine all the same) */
    NBC_SENDRECV_REPLACE,
    NBC_ALLTOALLW,
    NBC_NEIGHBOR_ALLGATHER, /* mpi/coll/neighbor.c */
    NBC_NEIGHBOR_ALLGATHERV,
    NBC_NEIGHBOR_ALLTOALL,
    NBC_NEIGHBOR_ALLTOALLV,
    NBC_NEIGHBOR_ALLTOALLW,
};

typedef struct nbc {
    struct nbc *next;
    nbc_ctx_t ctx;
    char *stack;           /* NBC_STACK bytes above a guard page */
    volatile int *wait_on; /* suspended until *wait_on != 0 */
    int finished;
    int rc;
    int tag_off;
    const char *name;
    mpii_request_t *req;
    enum nbc_kind kind;
    /* the call's arguments */
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    MPI_Comm comm;
    unsigned char held_s, held_r, held_op; /* holds taken on stype, rtype, op */
    MPI_Comm *newcomm_out;                 /* NBC_COMM_DUP: the user's, set at completion */
    MPI_Comm newcomm;
    int dest, stag, src, rtag;             /* NBC_SENDRECV* */
    const MPI_Datatype *stypes, *rtypes;   /* NBC_ALLTOALLW, NBC_NEIGHBOR_ALLTOALLW */
    const MPI_Aint *sdispls_a, *rdispls_a; /* NBC_NEIGHBOR_ALLTOALLW */
    MPI_Status st;
#ifdef NBC_ASAN
    void *fake_stack;
#endif
} nbc_t;

static nbc_ctx_t main_ctx;
static nbc_t *current; /* the coroutine running, NULL in the main context */
static nbc_t *active;  /* started, not finished */
static nbc_t *spare;   /* finished ones, their stacks kept */
static int nspare;
#ifdef NBC_ASAN
static const void *main_bottom;
static size_t main_size;
static void *main_fake;
#endif

int mpii_nbc_in_coroutine(void)
{
    return current != NULL;
}

const char *mpii_nbc_name(void)
{
    return current ? current->name : NULL;
}

static int run_blocking(nbc_t *c)
{
    switch (c->kind) {
    case NBC_BARRIER:
        return MPI_Barrier(c->comm);
    case NBC_BCAST:
        return MPI_Bcast(c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case NBC_REDUCE:
        return MPI_Reduce(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->root, c->comm);
    case NBC_ALLREDUCE:
        return MPI_Allreduce(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
    case NBC_SCATTER:
        return MPI_Scatter(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case NBC_SCATTERV:
        return MPI_Scatterv(c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf, c->rcount, c->rtype, c->root,
                            c->comm);
    case NBC_GATHER:
        return MPI_Gather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case NBC_GATHERV:
        return MPI_Gatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->rcounts, c->rdispls, c->rtype, c->root,
                           c->comm);
    case NBC_ALLGATHER:
        return MPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    case NBC_ALLGATHERV:
        return MPI_Allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->rcounts, c->rdispls, c->rtype,
                              c->comm);
    case NBC_ALLTOALL:
        return MPI_Alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    case NBC_ALLTOALLV:
        return MPI_Alltoallv(c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf, c->rcounts, c->rdispls,
                             c->rtype, c->comm);
    case NBC_REDUCE_SCATTER:
        return MPI_Reduce_scatter(c->sbuf, c->rbuf, c->rcounts, c->rtype, c->op, c->comm);
    case NBC_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
    case NBC_SCAN:
        return MPI_Scan(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
    case NBC_EXSCAN:
        return MPI_Exscan(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
    case NBC_COMM_DUP:
        return MPI_Comm_dup(c->comm, &c->newcomm);
    case NBC_ALLTOALLW:
        return MPI_Alltoallw(c->sbuf, c->scounts, c->sdispls, c->stypes, c->rbuf, c->rcounts, c->rdispls,
                             c->rtypes, c->comm);
    case NBC_NEIGHBOR_ALLGATHER:
        return MPI_Neighbor_allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    case NBC_NEIGHBOR_ALLGATHERV:
        return MPI_Neighbor_allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->rcounts, c->rdispls,
                                       c->rtype, c->comm);
    case NBC_NEIGHBOR_ALLTOALL:
        return MPI_Neighbor_alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    case NBC_NEIGHBOR_ALLTOALLV:
        return MPI_Neighbor_alltoallv(c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf, c->rcounts,
                                      c->rdispls, c->rtype, c->comm);
    case NBC_NEIGHBOR_ALLTOALLW:
        return MPI_Neighbor_alltoallw(c->sbuf, c->scounts, c->sdispls_a, c->stypes, c->rbuf, c->rcounts,
                                      c->rdispls_a, c->rtypes, c->comm);
    case NBC_SENDRECV:
        return MPI_Sendrecv(c->sbuf, c->scount, c->stype, c->dest, c->stag, c->rbuf, c->rcount, c->rtype,
                            c->src, c->rtag, c->comm, &c->st);
    case NBC_SENDRECV_REPLACE:
        return MPI_Sendrecv_replace(c->rbuf, c->rcount, c->rtype, c->dest, c->stag, c->src, c->rtag, c->comm,
                                    &c->st);
    }
    return MPI_ERR_INTERN;
}

/* coroutine -> main context (wait_on set by the caller, or finished) */
static void to_main(nbc_t *c)
{
#ifdef NBC_ASAN
    __sanitizer_start_switch_fiber(c->finished ? NULL : &c->fake_stack, main_bottom, main_size);
#endif
    CTX_SWITCH(&c->ctx, &main_ctx);
#ifdef NBC_ASAN
    __sanitizer_finish_switch_fiber(c->fake_stack, &main_bottom, &main_size);
#endif
}

static void nbc_entry(void)
{
    nbc_t *c = current;

#ifdef NBC_ASAN
    __sanitizer_finish_switch_fiber(NULL, &main_bottom, &main_size);
#endif
    c->rc = run_blocking(c);
    c->finished = 1;
    to_main(c); /* never resumed */
    abort();
}

/* A fresh stack for c that starts in nbc_entry. */
static void ctx_init(nbc_t *c)
{
#if defined(__x86_64__) && !defined(MBMPI_NBC_UCONTEXT)
    /* what mpii_nbc_switch pops, from the top of the stack down: a dummy
     * return address for nbc_entry (entered as if called: rsp + 8 16-byte
     * aligned), the address it returns to, 6 registers, MXCSR (0x1f80, the
     * default) and the x87 control word (0x37f) */
    void **sp = (void **)(((uintptr_t)c->stack + NBC_STACK) & ~(uintptr_t)15);
    *--sp = NULL;
    *--sp = (void *)(uintptr_t)nbc_entry;
    for (int i = 0; i < 6; i++)
        *--sp = NULL;
    *--sp = (void *)(uintptr_t)(0x1f80u | (uint64_t)0x37fu << 32);
    c->ctx.sp = sp;
#else
    getcontext(&c->ctx);
    c->ctx.uc_stack.ss_sp = c->stack;
    c->ctx.uc_stack.ss_size = NBC_STACK;
    c->ctx.uc_link = NULL;
    makecontext(&c->ctx, nbc_entry, 0);
#endif
}

/* main context -> coroutine c, until it waits or finishes */
static void resume(nbc_t *c)
{
    int saved_off = mpii_coll_tag_off;

    c->wait_on = NULL;
    current = c;
    mpii_coll_tag_off = c->tag_off;
#ifdef NBC_ASAN
    __sanitizer_start_switch_fiber(&main_fake, c->stack, NBC_STACK);
#endif
    CTX_SWITCH(&main_ctx, &c->ctx);
#ifdef NBC_ASAN
    __sanitizer_finish_switch_fiber(main_fake, NULL, NULL);
#endif
    current = NULL;
    mpii_coll_tag_off = saved_off;
}

/* Inside a coroutine: wait for *done by switching back to the main context
 * until progress finds it set. */
void mpii_nbc_yield(volatile int *done)
{
    nbc_t *c = current;

    c->wait_on = done;
    to_main(c);
}

static void release(nbc_t *c)
{
    if (nspare < NBC_POOL) {
        c->next = spare;
        spare = c;
        nspare++;
        return;
    }
    munmap(c->stack - getpagesize(), NBC_STACK + (size_t)getpagesize());
    free(c);
}

/* The request is done: c's result goes to it, c back to the pool. */
static void finish(nbc_t *c)
{
    mpii_request_t *r = c->req;

    r->nbc_rc = c->rc;
    r->pr.done = 1;
    if (c->kind == NBC_COMM_DUP)
        *c->newcomm_out = c->rc == MPI_SUCCESS ? c->newcomm : MPI_COMM_NULL;
    r->nbc_has_st = c->kind == NBC_SENDRECV || c->kind == NBC_SENDRECV_REPLACE;
    if (r->nbc_has_st)
        r->nbc_st = c->st;
    mpii_nbc_nactive--;
    if (c->held_s)
        mpii_datatype_unhold(c->stype);
    if (c->held_r)
        mpii_datatype_unhold(c->rtype);
    if (c->held_op)
        mpii_op_unhold(c->op);
    release(c);
}

int mpii_nbc_progress(void)
{
    nbc_t **pp = &active;
    int n = 0;

    if (current)
        return 0;
    while (*pp) {
        nbc_t *c = *pp;
        if (c->wait_on && !*c->wait_on) {
            pp = &c->next;
            continue;
        }
        resume(c);
        n++;
        if (c->finished) {
            *pp = c->next;
            finish(c);
        } else {
            pp = &c->next;
        }
    }
    return n;
}

static nbc_t *nbc_get(void)
{
    nbc_t *c = spare;
    long page = getpagesize();

    if (c) {
        spare = c->next;
        nspare--;
    } else {
        char *m;
        c = calloc(1, sizeof(*c));
        if (!c)
            return NULL;
        m = mmap(NULL, NBC_STACK + (size_t)page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            free(c);
            return NULL;
        }
        mprotect(m, (size_t)page, PROT_NONE); /* overflow faults instead of corrupting */
        c->stack = m + page;
    }
    c->next = NULL;
    c->wait_on = NULL;
    c->finished = 0;
    c->rc = MPI_SUCCESS;
    c->stype = c->rtype = MPI_DATATYPE_NULL;
    c->op = MPI_OP_NULL;
    return c;
}

void mpii_nbc_finalize(void)
{
    while (spare) {
        nbc_t *c = spare;
        spare = c->next;
        munmap(c->stack - getpagesize(), NBC_STACK + (size_t)getpagesize());
        free(c);
    }
    nspare = 0;
}

/* r becomes a request for a collective on comm (not started) */
static void req_setup(mpii_request_t *r, mpii_comm_t *comm)
{
    memset(&r->pr, 0, sizeof(r->pr));
    r->kind = MPII_REQ_NBC;
    r->comm = comm;
    mpii_req_hold_comm(r, comm); /* kept until the request goes: MPI_Comm_free waits */
    r->udt = NULL;
    r->tmp = NULL; /* (r->lc_keep stays: a persistent request's converted arrays) */
    r->ubytes = 0;
    r->nbc_rc = MPI_SUCCESS;
}

/* c holds its types and op: the user may free them before completion
 * (MPI 3.1 4.1.9, 5.9.5) */
static void take_holds(nbc_t *c)
{
    c->held_s = (unsigned char)mpii_datatype_hold(c->stype);
    c->held_r = (unsigned char)mpii_datatype_hold(c->rtype);
    c->held_op = (unsigned char)mpii_op_hold(c->op);
}

/* Run c (arguments filled in) on comm as request r until its first wait.
 * An error before that (an argument error, reported to the handler under
 * c->name already) is returned, c released; r is the caller's to undo. */
static int nbc_launch(nbc_t *c, const char *fn, mpii_comm_t *comm, mpii_request_t *r, int tag_off)
{
    c->tag_off = tag_off;
    c->name = fn;
    c->req = r;
    ctx_init(c);
    req_setup(r, comm);
    r->active = 1;
    mpii_nbc_nactive++;
    resume(c);
    if (c->finished) {
        int rc = c->rc;
        finish(c);
        return rc;
    }
    c->next = active;
    active = c;
    return MPI_SUCCESS;
}

/* The tag offset of the next collective started (nonblocking) or
 * initialized (persistent) on comm: both follow the ordering rules of the
 * nonblocking collectives, so every rank counts the same. */
static int next_tag_off(mpii_comm_t *comm)
{
    unsigned seq = ++comm->nbc_seq & MPII_NBC_SEQ_MASK;
    return MPII_NBC_TAG_BASE + (int)(seq << 8);
}

/* Start c (arguments filled in) on comm; *request gets the handle. */
static int nbc_start(nbc_t *c, const char *fn, mpii_comm_t *comm, MPI_Request *request)
{
    mpii_request_t *r = mpii_req_new();
    int rc;

    if (!r) {
        release(c);
        return mpii_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    r->persistent = 0;
    take_holds(c);
    rc = nbc_launch(c, fn, comm, r, next_tag_off(comm));
    if (rc != MPI_SUCCESS) {
        mpii_req_release(r);
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

/*
 * Persistent collectives (MPI 4.0 6.12: MPI_Bcast_init ...). The _init
 * call keeps the arguments (a nbc_t without a stack, holding the types and
 * the op) in an inactive persistent request; MPI_Start runs them as the
 * nonblocking collective would, on a coroutine from the pool, and
 * completion makes the request inactive again.
 *
 * Matching: the _init calls follow the ordering rules of the nonblocking
 * collectives, but the starts need not (MPI 4.0 6.12; MPICH's
 * coll/p_order starts a Bcast and a Barrier in opposite orders on two
 * ranks). So the tag offset is drawn at _init and every start of the
 * request uses it: starts of one request are ordered (each completes
 * before the next), and messages of one tag do not overtake each other.
 *
 * Errors: _init checks the communicator, info and request; the other
 * arguments are checked by the blocking collective when MPI_Start runs it
 * and reported (to the communicator's handler) under the _init call's
 * name; MPI_Start returns the error class and the request stays inactive.
 */
typedef struct {
    nbc_t args; /* no stack; held_* are the holds the request keeps */
    int tag_off;
} pcoll_t;

static int pcoll_init(nbc_t *c, const char *fn, mpii_comm_t *comm, MPI_Info info, MPI_Request *request)
{
    pcoll_t *p = (pcoll_t *)c;
    mpii_request_t *r;

    if (info != MPI_INFO_NULL && !mpii_info_valid(info)) {
        free(p);
        return mpii_err(comm, MPI_ERR_INFO, fn, "invalid info object");
    }
    r = mpii_req_new();
    if (!r) {
        free(p);
        return mpii_err(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    p->tag_off = next_tag_off(comm);
    p->args.name = fn;
    take_holds(&p->args);
    req_setup(r, comm);
    r->nbc_has_st = 0;
    r->persistent = 1;
    r->active = 0;
    r->pcoll = p;
    *request = r->handle;
    return MPI_SUCCESS;
}

int mpii_nbc_pstart(mpii_request_t *r)
{
    pcoll_t *p = r->pcoll;
    nbc_t *c;
    char *stack;
    int rc;

    if (current)
        return mpii_err(r->comm, MPI_ERR_OTHER, "MPI_Start",
                        "called from inside a collective (a user op or handler)");
    c = nbc_get();
    if (!c)
        return mpii_err(r->comm, MPI_ERR_NO_MEM, "MPI_Start", "out of memory");
    stack = c->stack;
    *c = p->args;
    c->stack = stack;
    /* holds of its own: MPI_Request_free of the active request frees the
     * request's (mpii_nbc_pfree) while this still runs */
    take_holds(c);
    rc = nbc_launch(c, p->args.name, r->comm, r, p->tag_off);
    if (rc != MPI_SUCCESS)
        r->active = 0; /* failed at the start: inactive again, reported already */
    return rc;
}

void mpii_nbc_pfree(void *pcoll)
{
    pcoll_t *p = pcoll;

    if (p->args.held_s)
        mpii_datatype_unhold(p->args.stype);
    if (p->args.held_r)
        mpii_datatype_unhold(p->args.rtype);
    if (p->args.held_op)
        mpii_op_unhold(p->args.op);
    free(p);
}

/* a persistent collective's arguments, before pcoll_init */
static nbc_t *pcoll_new(void)
{
    pcoll_t *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->args.stype = p->args.rtype = MPI_DATATYPE_NULL;
    p->args.op = MPI_OP_NULL;
    return &p->args;
}

/* The checks every I-call makes itself (the rest is the blocking call's). */
static int nbc_check(const char *fn, MPI_Comm comm, MPI_Request *request, mpii_comm_t **c_p)
{
    *c_p = NULL;
    MPII_CHECK_INIT(fn);
    *c_p = mpii_comm_get(comm);
    if (!*c_p)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (!request)
        return mpii_err(*c_p, MPI_ERR_ARG, fn, "request is NULL");
    if (current)
        return mpii_err(*c_p, MPI_ERR_OTHER, fn, "called from inside a collective (a user op or handler)");
    return MPI_SUCCESS;
}

/* The common head of every I-call (NBC_BEGIN: c from the pool, to run
 * now) and every _init call (PCOLL_BEGIN: c a stackless copy of the
 * arguments, see pcoll_init). */
#define COLL_BEGIN_(fn_name, kind_, alloc_)                                                                  \
    static const char fn[] = fn_name;                                                                        \
    mpii_comm_t *cm;                                                                                         \
    nbc_t *c;                                                                                                \
    int rc_ = nbc_check(fn, comm, request, &cm);                                                             \
    if (rc_ != MPI_SUCCESS)                                                                                  \
        return rc_;                                                                                          \
    c = alloc_;                                                                                              \
    if (!c)                                                                                                  \
        return mpii_err(cm, MPI_ERR_NO_MEM, fn, "out of memory");                                            \
    c->kind = kind_;                                                                                         \
    c->comm = comm
#define NBC_BEGIN(fn_name, kind_) COLL_BEGIN_(fn_name, kind_, nbc_get())
#define PCOLL_BEGIN(fn_name, kind_) COLL_BEGIN_(fn_name, kind_, pcoll_new())

/* the send side, the receive side, and the arguments of a reduction */
static void set_send(nbc_t *c, const void *buf, int count, const int *counts, const int *displs,
                     MPI_Datatype dt)
{
    c->sbuf = buf;
    c->scount = count;
    c->scounts = counts;
    c->sdispls = displs;
    c->stype = dt;
}

static void set_recv(nbc_t *c, void *buf, int count, const int *counts, const int *displs, MPI_Datatype dt)
{
    c->rbuf = buf;
    c->rcount = count;
    c->rcounts = counts;
    c->rdispls = displs;
    c->rtype = dt;
}

static void set_reduce(nbc_t *c, const void *sendbuf, void *recvbuf, int count, const int *counts,
                       MPI_Datatype dt, MPI_Op op)
{
    c->sbuf = sendbuf;
    set_recv(c, recvbuf, count, counts, NULL, dt);
    c->op = op;
}

int mpii_nbc_comm_idup(const char *fn_name, MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    mpii_comm_t *cm;
    nbc_t *c;
    int rc = nbc_check(fn_name, comm, request, &cm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newcomm)
        return mpii_err(cm, MPI_ERR_ARG, fn_name, "newcomm is NULL");
    c = nbc_get();
    if (!c)
        return mpii_err(cm, MPI_ERR_NO_MEM, fn_name, "out of memory");
    c->kind = NBC_COMM_DUP;
    c->comm = comm;
    c->newcomm = MPI_COMM_NULL;
    c->newcomm_out = newcomm;
    return nbc_start(c, fn_name, cm, request);
}

/* (the arrays of types are the caller's until completion, as are the
 * counts: MPI 3.1 5.12) */
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ialltoallw", NBC_ALLTOALLW);
    set_send(c, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL);
    set_recv(c, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL);
    c->stypes = sendtypes;
    c->rtypes = recvtypes;
    return nbc_start(c, fn, cm, request);
}

static void set_peers(nbc_t *c, int dest, int stag, int src, int rtag)
{
    c->dest = dest;
    c->stag = stag;
    c->src = src;
    c->rtag = rtag;
}

/* MPI 4.0 3.10: MPI_Sendrecv(_replace), nonblocking. */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Request *request)
{
    NBC_BEGIN("MPI_Isendrecv", NBC_SENDRECV);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    set_peers(c, dest, sendtag, source, recvtag);
    return nbc_start(c, fn, cm, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Isendrecv_replace", NBC_SENDRECV_REPLACE);
    set_recv(c, buf, count, NULL, NULL, datatype);
    set_peers(c, dest, sendtag, source, recvtag);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ibarrier", NBC_BARRIER);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ibcast", NBC_BCAST);
    set_recv(c, buffer, count, NULL, NULL, datatype);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ireduce", NBC_REDUCE);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Iallreduce", NBC_ALLREDUCE);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return nbc_start(c, fn, cm, request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Iscatter", NBC_SCATTER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    NBC_BEGIN("MPI_Iscatterv", NBC_SCATTERV);
    set_send(c, sendbuf, 0, sendcounts, displs, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Igather", NBC_GATHER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    NBC_BEGIN("MPI_Igatherv", NBC_GATHERV);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, displs, recvtype);
    c->root = root;
    return nbc_start(c, fn, cm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Iallgather", NBC_ALLGATHER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    return nbc_start(c, fn, cm, request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    NBC_BEGIN("MPI_Iallgatherv", NBC_ALLGATHERV);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, displs, recvtype);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ialltoall", NBC_ALLTOALL);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ialltoallv", NBC_ALLTOALLV);
    set_send(c, sendbuf, 0, sendcounts, sdispls, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, rdispls, recvtype);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ireduce_scatter", NBC_REDUCE_SCATTER);
    set_reduce(c, sendbuf, recvbuf, 0, recvcounts, datatype, op);
    return nbc_start(c, fn, cm, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Ireduce_scatter_block", NBC_REDUCE_SCATTER_BLOCK);
    set_reduce(c, sendbuf, recvbuf, recvcount, NULL, datatype, op);
    return nbc_start(c, fn, cm, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    NBC_BEGIN("MPI_Iscan", NBC_SCAN);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return nbc_start(c, fn, cm, request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    NBC_BEGIN("MPI_Iexscan", NBC_EXSCAN);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return nbc_start(c, fn, cm, request);
}

/* ------------------------------------------- persistent (MPI 4.0 6.12) */

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Barrier_init", NBC_BARRIER);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Bcast_init", NBC_BCAST);
    set_recv(c, buffer, count, NULL, NULL, datatype);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Reduce_init", NBC_REDUCE);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Allreduce_init", NBC_ALLREDUCE);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Scatter_init", NBC_SCATTER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Scatterv_init", NBC_SCATTERV);
    set_send(c, sendbuf, 0, sendcounts, displs, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Gather_init", NBC_GATHER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Gatherv_init", NBC_GATHERV);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, displs, recvtype);
    c->root = root;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Allgather_init", NBC_ALLGATHER);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Allgatherv_init", NBC_ALLGATHERV);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, displs, recvtype);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Alltoall_init", NBC_ALLTOALL);
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Alltoallv_init", NBC_ALLTOALLV);
    set_send(c, sendbuf, 0, sendcounts, sdispls, sendtype);
    set_recv(c, recvbuf, 0, recvcounts, rdispls, recvtype);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Alltoallw_init", NBC_ALLTOALLW);
    set_send(c, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL);
    set_recv(c, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL);
    c->stypes = sendtypes;
    c->rtypes = recvtypes;
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Reduce_scatter_init", NBC_REDUCE_SCATTER);
    set_reduce(c, sendbuf, recvbuf, 0, recvcounts, datatype, op);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Reduce_scatter_block_init", NBC_REDUCE_SCATTER_BLOCK);
    set_reduce(c, sendbuf, recvbuf, recvcount, NULL, datatype, op);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Scan_init", NBC_SCAN);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    PCOLL_BEGIN("MPI_Exscan_init", NBC_EXSCAN);
    set_reduce(c, sendbuf, recvbuf, count, NULL, datatype, op);
    return pcoll_init(c, fn, cm, info, request);
}

/* ------------------------------- neighborhood collectives (MPI 3.1 7.7) */
/* nonblocking (MPI_Ineighbor_*) and persistent (MPI 4.0: _init) forms of
 * mpi/coll/neighbor.c's calls; one body for both: NBC_BEGIN / nbc_start or
 * PCOLL_BEGIN / pcoll_init */

#define NEIGHBOR_ALLGATHER_BODY(begin)                                                                       \
    begin;                                                                                                   \
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);                                                   \
    set_recv(c, recvbuf, recvcount, NULL, NULL, recvtype)

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NEIGHBOR_ALLGATHER_BODY(NBC_BEGIN("MPI_Ineighbor_allgather", NBC_NEIGHBOR_ALLGATHER));
    return nbc_start(c, fn, cm, request);
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    NEIGHBOR_ALLGATHER_BODY(PCOLL_BEGIN("MPI_Neighbor_allgather_init", NBC_NEIGHBOR_ALLGATHER));
    return pcoll_init(c, fn, cm, info, request);
}

#define NEIGHBOR_ALLGATHERV_BODY(begin)                                                                      \
    begin;                                                                                                   \
    set_send(c, sendbuf, sendcount, NULL, NULL, sendtype);                                                   \
    set_recv(c, recvbuf, 0, recvcounts, displs, recvtype)

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    NEIGHBOR_ALLGATHERV_BODY(NBC_BEGIN("MPI_Ineighbor_allgatherv", NBC_NEIGHBOR_ALLGATHERV));
    return nbc_start(c, fn, cm, request);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    NEIGHBOR_ALLGATHERV_BODY(PCOLL_BEGIN("MPI_Neighbor_allgatherv_init", NBC_NEIGHBOR_ALLGATHERV));
    return pcoll_init(c, fn, cm, info, request);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NEIGHBOR_ALLGATHER_BODY(NBC_BEGIN("MPI_Ineighbor_alltoall", NBC_NEIGHBOR_ALLTOALL));
    return nbc_start(c, fn, cm, request);
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    NEIGHBOR_ALLGATHER_BODY(PCOLL_BEGIN("MPI_Neighbor_alltoall_init", NBC_NEIGHBOR_ALLTOALL));
    return pcoll_init(c, fn, cm, info, request);
}

#define NEIGHBOR_ALLTOALLV_BODY(begin)                                                                       \
    begin;                                                                                                   \
    set_send(c, sendbuf, 0, sendcounts, sdispls, sendtype);                                                  \
    set_recv(c, recvbuf, 0, recvcounts, rdispls, recvtype)

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    NEIGHBOR_ALLTOALLV_BODY(NBC_BEGIN("MPI_Ineighbor_alltoallv", NBC_NEIGHBOR_ALLTOALLV));
    return nbc_start(c, fn, cm, request);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    NEIGHBOR_ALLTOALLV_BODY(PCOLL_BEGIN("MPI_Neighbor_alltoallv_init", NBC_NEIGHBOR_ALLTOALLV));
    return pcoll_init(c, fn, cm, info, request);
}

/* (the arrays of types are the caller's until completion, as for
 * MPI_Ialltoallw) */
#define NEIGHBOR_ALLTOALLW_BODY(begin)                                                                       \
    begin;                                                                                                   \
    set_send(c, sendbuf, 0, sendcounts, NULL, MPI_DATATYPE_NULL);                                            \
    set_recv(c, recvbuf, 0, recvcounts, NULL, MPI_DATATYPE_NULL);                                            \
    c->sdispls_a = sdispls;                                                                                  \
    c->rdispls_a = rdispls;                                                                                  \
    c->stypes = sendtypes;                                                                                   \
    c->rtypes = recvtypes

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    NEIGHBOR_ALLTOALLW_BODY(NBC_BEGIN("MPI_Ineighbor_alltoallw", NBC_NEIGHBOR_ALLTOALLW));
    return nbc_start(c, fn, cm, request);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    NEIGHBOR_ALLTOALLW_BODY(PCOLL_BEGIN("MPI_Neighbor_alltoallw_init", NBC_NEIGHBOR_ALLTOALLW));
    return pcoll_init(c, fn, cm, info, request);
}
