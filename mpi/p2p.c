/*
 * mpi/p2p.c: point-to-point calls, requests and the completion functions.
 *
 * Every call validates its arguments (error classes as MPI 3.1 defines
 * them), converts the datatype to contiguous bytes (packing derived types
 * into a temporary buffer) and hands the transfer to proto/. Requests are
 * int handles indexing a table of request objects kept on a free list, so
 * starting a request does not allocate in the steady state.
 */
#include "mpi/mpi3.h"
#include "util/status.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

/* request kind of MPI_Grequest_start, next to core.h's MPII_REQ_* */
#define MPII_REQ_GREQ 4

static mpii_request_t **reqtab;  /* handle -> request; [0] unused (MPI_REQUEST_NULL) */
static int nreqtab;
static int *req_free;
static int nreq_free;
static mpii_request_t *freed_list[1024]; /* MPI_Request_free'd while active */
static int nfreed;

/* ------------------------------------------------------------ requests */

/* What every message's path calls: inlined into it (a call with ten
 * arguments costs more than the little most of these do). */
#define P2P_HOT static inline __attribute__((always_inline))

P2P_HOT mpii_request_t *req_get(MPI_Request h)
{
    if (h <= 0 || h >= nreqtab || !reqtab[h] || reqtab[h]->handle != h)
        return NULL;
    return reqtab[h];
}

mpii_request_t *mpii_request_get(MPI_Request h)
{
    return req_get(h);
}

/* The request behind h if it is active; an inactive persistent request
 * counts as MPI_REQUEST_NULL for the completion calls. */
P2P_HOT mpii_request_t *req_active(MPI_Request h)
{
    mpii_request_t *r = req_get(h);
    return r && r->active ? r : NULL;
}

/* Double the handle table (no free handle left). 0 or -1 (out of memory). */
static __attribute__((noinline)) int req_grow(void)
{
    int nn = nreqtab ? nreqtab * 2 : 256, i;
    mpii_request_t **t = realloc(reqtab, (size_t)nn * sizeof(*t));
    int *f;
    if (!t)
        return -1;
    reqtab = t;
    f = realloc(req_free, (size_t)nn * sizeof(*f));
    if (!f)
        return -1;
    req_free = f;
    for (i = nreqtab; i < nn; i++)
        reqtab[i] = NULL;
    for (i = nn - 1; i >= (nreqtab ? nreqtab : 1); i--)
        req_free[nreq_free++] = i;
    nreqtab = nn;
    return 0;
}

P2P_HOT mpii_request_t *req_new(void)
{
    mpii_request_t *r;
    int h;

    if (!nreq_free && req_grow() != 0)
        return NULL;
    h = req_free[nreq_free - 1];
    if (!reqtab[h]) {
        reqtab[h] = calloc(1, sizeof(mpii_request_t));
        if (!reqtab[h])
            return NULL;
    }
    nreq_free--;
    r = reqtab[h];
    r->handle = h;
    r->freed = 0;
    r->tmp = NULL;
    r->p_dtcopy = NULL;
    r->pcoll = NULL;
    r->lc_keep = NULL;
    r->bs_inner = MPI_REQUEST_NULL;
    r->persistent = 0;
    r->active = 1;
    return r;
}

/* r uses c until it is released: MPI_Comm_free of c meanwhile waits
 * (mpi/comm.c). */
P2P_HOT void req_hold_comm(mpii_request_t *r, mpii_comm_t *c)
{
    if (r->handle <= 0 || r->ref_comm == c)
        return; /* a blocking call's request on its stack, or held already */
    if (r->ref_comm)
        mpii_comm_unref(r->ref_comm);
    r->ref_comm = c;
    if (c)
        c->refs++;
}

void mpii_req_hold_comm(mpii_request_t *r, mpii_comm_t *c)
{
    req_hold_comm(r, c);
}

P2P_HOT void req_release(mpii_request_t *r)
{
    int h = r->handle;
    if (r->tmp) {
        free(r->tmp);
        r->tmp = NULL;
    }
    if (r->p_dtcopy) { /* persistent requests only: no call on the common path */
        free(r->p_dtcopy);
        r->p_dtcopy = NULL;
    }
    if (r->pcoll) {
        mpii_nbc_pfree(r->pcoll);
        r->pcoll = NULL;
    }
    if (r->lc_keep) {
        mpii_lc_release(r->lc_keep);
        r->lc_keep = NULL;
    }
    if (r->p_parts) {
        free(r->p_ready);
        r->p_ready = NULL;
        r->p_parts = 0;
    }
    if (r->ref_comm) {
        mpii_comm_t *c = r->ref_comm;
        r->ref_comm = NULL;
        mpii_comm_unref(c);
    }
    if (h > 0) {
        r->handle = 0;
        req_free[nreq_free++] = h;
    }
}

/* MPI_Comm_disconnect: wait until no request on c is in flight. Requests
 * stay the user's (MPI_Wait or MPI_Request_free still complete them);
 * generalized requests are the program's to complete and are not waited
 * for. */
void mpii_comm_drain(mpii_comm_t *c)
{
    for (;;) {
        mpii_request_t *left = NULL;
        for (int i = 1; i < nreqtab && !left; i++) {
            mpii_request_t *r = reqtab[i];
            if (r && r->handle > 0 && r->active && !r->pr.done && r->kind != MPII_REQ_GREQ &&
                (r->comm == c || r->ref_comm == c))
                left = r;
        }
        if (!left)
            return;
        mpii_progress_wait(&left->pr.done);
    }
}

void mpii_requests_finalize(void)
{
    int i;
    for (i = 0; i < nreqtab; i++) {
        if (reqtab[i])
            free(reqtab[i]->tmp);
        free(reqtab[i]);
    }
    free(reqtab);
    free(req_free);
    reqtab = NULL;
    req_free = NULL;
    nreqtab = nreq_free = nfreed = 0;
}

static int greq_finish(mpii_request_t *r, MPI_Status *st);

static void sweep_freed(void)
{
    int i = 0;
    while (i < nfreed) {
        if (freed_list[i]->pr.done) {
            mpii_request_t *r = freed_list[i];
            /* a generalized request's free_fn still runs, and a derived-type
             * receive still lands in the user's buffer (its communicator may
             * be gone: only the kept type map is used) */
            if (r->kind == MPII_REQ_GREQ) {
                greq_finish(r, NULL);
            } else if (r->kind == MPII_REQ_RECV && r->udt && r->tmp && !r->pr.cancelled) {
                size_t got = r->pr.st_len < r->ubytes ? r->pr.st_len : r->ubytes;
                mpii_datatype_unpack(r->tmp, got, r->ubuf, (size_t)r->ucount, r->udt);
            }
            req_release(r);
            freed_list[i] = freed_list[--nfreed];
        } else {
            i++;
        }
    }
}

/*
 * Waiting: the first MBMPI_SPIN idle rounds only poll; then each round
 * yields the CPU; with MBMPI_SLEEP_AFTER > 0, after that many yields in a
 * row a round sleeps MBMPI_SLEEP_US instead. A rank that
 * yields stays runnable, so the scheduler counts it as load and never moves
 * a working rank to the CPU it occupies: measured with perf, 4 ranks on 2
 * CPUs in a 1 MiB Reduce spent 70 % of their CPU time in sched_yield and
 * context switches and 10 % copying and summing. A sleeping rank leaves
 * the run queue, so the working ranks spread over the CPUs. Off by default:
 * with 4 and 8 ranks on 2 CPUs, sleeping after 20-200 yields for 20-50 us
 * moved 1 MiB Reduce / Allreduce times by less than the run-to-run spread
 * (0.7-2.6 ms against 1.0-2.6) and made 1 B Bcasts slower (11-16 against
 * 8-12 us).
 */
void mpii_idle_wait(long *idle)
{
    if (mpii_mt_on)
        mpii_mt_yield();
    if (++*idle <= mpii_g.spin)
        return;
    if (mpii_g.sleep_after > 0 && *idle > mpii_g.spin + mpii_g.sleep_after) {
        struct timespec ts = {0, mpii_g.sleep_us * 1000};
        int depth = mpii_mt_release();
        nanosleep(&ts, NULL);
        mpii_mt_reacquire(depth);
        return;
    }
    sched_yield();
}

int mpii_progress(void)
{
    int n = proto_progress(mpii_g.p);

    if (mpii_nbc_nactive && !mpii_nbc_in_coroutine())
        n += mpii_nbc_progress();
    if (mpii_rma_nwin)
        n += mpii_rma_progress();
    return n;
}

void mpii_progress_wait(volatile int *done)
{
    long idle = 0;

    if (mpii_nbc_in_coroutine()) {
        /* a nonblocking collective: the main context waits, not this */
        while (!*done) {
            proto_progress(mpii_g.p);
            if (!*done)
                mpii_nbc_yield(done);
        }
        return;
    }
    while (!*done) {
        if (mpii_progress() > 0) {
            idle = 0;
        } else {
            mpii_idle_wait(&idle);
        }
    }
    /* requests freed while active finish here too, not only in MPI_Wait */
    if (nfreed)
        sweep_freed();
}

/* -------------------------------------------------------- validation */

P2P_HOT int check_buf(mpii_comm_t *c, const char *fn, const void *buf, int count, mpii_datatype_t *dt)
{
    if (!buf && count > 0 && dt->size > 0 && dt->true_lb == 0)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "buffer is NULL with count %d", count);
    return MPI_SUCCESS;
}

/* Validate (comm, count, datatype, peer rank, tag). `recv` allows the
 * wildcards. Returns MPI_SUCCESS or the handler's result. */
P2P_HOT int check_args(const char *fn, MPI_Comm comm, mpii_comm_t **c_p, const void *buf, int count,
                       MPI_Datatype datatype, mpii_datatype_t **dt_p, int rank, int tag, int recv)
{
    mpii_comm_t *c;
    mpii_datatype_t *dt;

    /* set on every path: callers read them only on MPI_SUCCESS, which gcc
     * -O3 cannot always tell (maybe-uninitialized under -Werror) */
    *c_p = NULL;
    *dt_p = NULL;
    if (!mpii_running())
        return mpii_err(NULL, MPI_ERR_OTHER, fn, "called before MPI_Init or after MPI_Finalize");
    c = mpii_comm_lookup(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (count < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "negative count %d", count);
    dt = mpii_datatype_committed(datatype);
    if (!dt)
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", datatype);
    if (!(rank == MPI_PROC_NULL || (rank >= 0 && rank < c->peer_size) || (recv && rank == MPI_ANY_SOURCE)))
        return mpii_err(c, MPI_ERR_RANK, fn, "invalid rank %d (communicator has %d ranks%s)", rank,
                        c->peer_size, c->is_inter ? " in its remote group" : "");
    if (!((tag >= 0 && tag <= MPI_TAG_UB_VALUE) || (recv && tag == MPI_ANY_TAG)))
        return mpii_err(c, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    if (check_buf(c, fn, buf, count, dt) != MPI_SUCCESS)
        return MPI_ERR_BUFFER;
    *c_p = c;
    *dt_p = dt;
    return MPI_SUCCESS;
}

/* ----------------------------------------------------- start / finish */

static void req_null_complete(mpii_request_t *r, mpii_comm_t *c, int kind)
{
    memset(&r->pr, 0, sizeof(r->pr));
    r->kind = kind;
    r->comm = c;
    req_hold_comm(r, c);
    r->pr.done = 1;
    r->pr.st_src = MPI_PROC_NULL;
    r->pr.st_tag = MPI_ANY_TAG;
    r->pr.st_len = 0;
    r->ubytes = 0;
    r->udt = NULL;
}

/* hint: what the data is for, given to the transport with every write of
 * it (tl_shm_hint_t; TL_HINT_NONE for the user's sends) */
P2P_HOT int send_start(mpii_request_t *r, const void *buf, int count, mpii_datatype_t *dt, int dest, int tag,
                       mpii_comm_t *c, int coll, int sync, tl_shm_hint_t hint)
{
    size_t len = (size_t)count * dt->size;
    const char *p;
    int rc;

    if (dest == MPI_PROC_NULL) {
        req_null_complete(r, c, MPII_REQ_SEND);
        return MPI_SUCCESS;
    }
    r->kind = MPII_REQ_SEND;
    r->comm = c;
    req_hold_comm(r, c);
    r->udt = NULL;
    if (dt->contig || !len) {
        p = (const char *)buf + dt->true_lb;
    } else {
        r->tmp = malloc(len);
        if (!r->tmp)
            return MPI_ERR_NO_MEM;
        mpii_datatype_pack(buf, (size_t)count, dt, r->tmp);
        p = r->tmp;
    }
    if (coll == 1)
        tag += mpii_coll_tag_off; /* a nonblocking collective's own tags */
    r->pr.tl_hint = hint;
    /* a collective's message whose source stays as it is (a Bcast's, a flat
     * Scatter's or Gather's block, an exchange's): read by its receiver
     * from coll_read_min on (init.c) */
    r->pr.offer_read = coll == 1 && mpii_g.coll_read_min && len >= mpii_g.coll_read_min &&
                       (hint == TL_SHM_FANOUT || hint == TL_SHM_FLAT || hint == TL_SHM_EXCHANGE);
    rc = proto_isend(mpii_g.p, &r->pr, p, len, c->peer_ranks[dest], c->rank,
                     coll == MPII_CTX_PART ? r->p_ctx : mpii_comm_ctx(c, coll), tag, sync);
    return rc == UT_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* A copy of dt's description into *to, its type map into `blocks` (room
 * for dt->nblocks): what a request keeps, since the user may free dt. */
static void dt_snapshot(mpii_datatype_t *to, mpii_dtblock_t *blocks, const mpii_datatype_t *dt)
{
    *to = *dt;
    to->blocks = blocks;
    memcpy(blocks, dt->blocks, dt->nblocks * sizeof(mpii_dtblock_t));
}

P2P_HOT int recv_start_msg(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, int src, int tag,
                           mpii_comm_t *c, int coll, proto_msg_t *msg, int no_req);

P2P_HOT int recv_start(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, int src, int tag,
                       mpii_comm_t *c, int coll)
{
    return recv_start_msg(r, buf, count, dt, src, tag, c, coll, NULL, 0);
}

/*
 * The receive of a collective's exchange step (Alltoall blocks, the
 * Sendrecv steps of Allreduce, Allgather, pairwise Alltoall, ...): its
 * sender sends at about the same moment, so a REQ offering the buffer
 * (the write protocol) mostly crosses the message, or makes the data wait
 * until the sender has a CPU again to write it. With more ranks than CPUs
 * on mbshm, where an RTS is read by its receiver as soon as it matches,
 * such receives send no REQ (mpii_g.xchg_noreq): bench/coll --osu --sync
 * barrier at P = 8 on 2 CPUs (2026-12-04, MBMPI_REQ_MIN=1G for all
 * receives against the default 8 KiB): Alltoall of 16 KiB 582 -> 100 us
 * (Open MPI 221), 256 KiB 897 -> 725; Allreduce of 1 MiB 1809 -> 1407
 * (Open MPI 1463); at P = 4 Alltoall of 256 KiB 300 -> 178. A Bcast's
 * receives keep their REQs (P = 8, 1 MiB: 401 against 487 without), as
 * do user receives and jobs with a CPU per rank (P = 2, Allreduce of 64
 * KiB after a barrier: 9.8 us with REQs, 23.4 without).
 */
static int recv_start_xchg(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, int src, int tag,
                           mpii_comm_t *c, int coll)
{
    return recv_start_msg(r, buf, count, dt, src, tag, c, coll, NULL, coll && mpii_g.xchg_noreq);
}

int mpii_mrecv_start(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, mpii_comm_t *c,
                     proto_msg_t *msg)
{
    return recv_start_msg(r, buf, count, dt, 0, 0, c, 0, msg, 0);
}

/* Start a receive; with msg (MPI_Mrecv) the message is the one mprobed,
 * and src / tag are not used. */
P2P_HOT int recv_start_msg(mpii_request_t *r, void *buf, int count, mpii_datatype_t *dt, int src, int tag,
                           mpii_comm_t *c, int coll, proto_msg_t *msg, int no_req)
{
    size_t len = (size_t)count * dt->size;
    char *p;
    int rc;

    if (src == MPI_PROC_NULL) {
        req_null_complete(r, c, MPII_REQ_RECV);
        return MPI_SUCCESS;
    }
    r->kind = MPII_REQ_RECV;
    r->comm = c;
    req_hold_comm(r, c);
    r->udt = NULL;
    r->ubytes = len;
    if (dt->contig || !len) {
        p = (char *)buf + dt->true_lb;
    } else {
        /* Keep a copy of the type map after the data: MPI lets the user
         * free the datatype while the receive is pending. */
        size_t off = (len + 15) & ~(size_t)15;
        r->tmp = malloc(off + dt->nblocks * sizeof(mpii_dtblock_t));
        if (!r->tmp)
            return MPI_ERR_NO_MEM;
        dt_snapshot(&r->udt_copy, (mpii_dtblock_t *)((char *)r->tmp + off), dt);
        r->ubuf = buf;
        r->ucount = count;
        r->udt = &r->udt_copy;
        p = r->tmp;
    }
    if (msg) {
        rc = proto_imrecv(mpii_g.p, &r->pr, p, len, msg);
        return rc == UT_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
    }
    if (coll == 1 && tag != MPI_ANY_TAG)
        tag += mpii_coll_tag_off;
    rc = (no_req ? proto_irecv_noreq : proto_irecv)(
        mpii_g.p, &r->pr, p, len, src == MPI_ANY_SOURCE ? -1 : c->peer_ranks[src],
        src == MPI_ANY_SOURCE ? PROTO_ANY : src, coll == MPII_CTX_PART ? r->p_ctx : mpii_comm_ctx(c, coll),
        tag == MPI_ANY_TAG ? PROTO_ANY : tag, mpii_comm_proto(c, coll));
    return rc == UT_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

P2P_HOT void status_empty(MPI_Status *st)
{
    if (!st)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS; /* MPI 3.1 3.7.3: part of an empty status */
    st->mbmpi_count = 0;
    st->mbmpi_cancelled = 0;
}

/* The request is done: unpack, fill the status, give back the MPI error
 * class of the operation (not passed to a handler here). */
P2P_HOT int req_finish(mpii_request_t *r, MPI_Status *st)
{
    proto_req_t *pr = &r->pr;
    size_t got;
    int err = MPI_SUCCESS;

    if (r->kind == MPII_REQ_GREQ)
        return greq_finish(r, st);
    if (r->kind == MPII_REQ_NBC) {
        if (r->nbc_has_st && st)
            *st = r->nbc_st;
        else
            status_empty(st);
        return r->nbc_rc;
    }
    if (r->kind == MPII_REQ_RECV) {
        got = pr->st_len < r->ubytes ? pr->st_len : r->ubytes;
        if (r->udt && !pr->cancelled)
            mpii_datatype_unpack(r->tmp, got, r->ubuf, (size_t)r->ucount, r->udt);
        if (pr->cancelled)
            got = 0;
        if (st) {
            st->MPI_SOURCE = pr->cancelled ? MPI_ANY_SOURCE : pr->st_src;
            st->MPI_TAG = pr->cancelled ? MPI_ANY_TAG : pr->st_tag;
            st->mbmpi_count = (long long)got;
            st->mbmpi_cancelled = pr->cancelled;
        }
        if (pr->st_err == UT_ERR_TRUNCATED)
            err = MPI_ERR_TRUNCATE;
        else if (pr->st_err != UT_OK)
            err = MPI_ERR_OTHER;
        /* The envelope's source is the peer's claim: it must name, in this
         * communicator, the rank the message came from. */
        if (!pr->cancelled && pr->st_src != MPI_PROC_NULL &&
            (pr->st_src < 0 || pr->st_src >= r->comm->peer_size ||
             r->comm->peer_ranks[pr->st_src] != pr->st_peer)) {
            if (st)
                st->MPI_SOURCE = MPI_ANY_SOURCE;
            err = MPI_ERR_OTHER;
        }
    } else {
        if (st) {
            st->MPI_SOURCE = pr->st_src;
            st->MPI_TAG = pr->st_tag;
            st->mbmpi_count = 0;
            st->mbmpi_cancelled = r->kind == MPII_REQ_SEND && pr->cancelled;
        }
        if (r->kind == MPII_REQ_SEND && pr->st_err != UT_OK)
            err = MPI_ERR_OTHER;
    }
    if (r->tmp) {
        free(r->tmp);
        r->tmp = NULL;
    }
    return err;
}

static const char *req_err_text(int err)
{
    return err == MPI_ERR_TRUNCATE ? "message truncated: the receive buffer is too small"
                                   : "communication failed";
}

/* ------------------------------------------------------------ blocking */

static int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, int sync)
{
    mpii_request_t r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = check_args(fn, comm, &c, buf, count, datatype, &dt, dest, tag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    r.handle = 0;
    r.tmp = NULL;
    rc = send_start(&r, buf, count, dt, dest, tag, c, 0, sync, TL_HINT_NONE);
    if (rc != MPI_SUCCESS) {
        free(r.tmp);
        return mpii_err(c, rc, fn, "could not start the send");
    }
    mpii_progress_wait(&r.pr.done);
    rc = req_finish(&r, NULL);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, 0);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, 1);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, 0);
}


int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    mpii_request_t r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = check_args("MPI_Recv", comm, &c, buf, count, datatype, &dt, source, tag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    r.handle = 0;
    r.tmp = NULL;
    rc = recv_start(&r, buf, count, dt, source, tag, c, 0);
    if (rc != MPI_SUCCESS) {
        free(r.tmp);
        return mpii_err(c, rc, "MPI_Recv", "could not start the receive");
    }
    mpii_progress_wait(&r.pr.done);
    rc = req_finish(&r, status);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Recv", "%s (%lld bytes sent, %zu bytes of buffer)", req_err_text(rc),
                        (long long)r.pr.st_len, r.ubytes);
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- non-blocking */

P2P_HOT int isend_common(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request, int sync)
{
    mpii_request_t *r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = check_args(fn, comm, &c, buf, count, datatype, &dt, dest, tag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err(c, MPI_ERR_ARG, fn, "request is NULL");
    r = req_new();
    if (!r)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = send_start(r, buf, count, dt, dest, tag, c, 0, sync, TL_HINT_NONE);
    if (rc != MPI_SUCCESS) {
        req_release(r);
        return mpii_err(c, rc, fn, "could not start the send");
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return isend_common("MPI_Isend", buf, count, datatype, dest, tag, comm, request, 0);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend_common("MPI_Issend", buf, count, datatype, dest, tag, comm, request, 1);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend_common("MPI_Irsend", buf, count, datatype, dest, tag, comm, request, 0);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    mpii_request_t *r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = check_args("MPI_Irecv", comm, &c, buf, count, datatype, &dt, source, tag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Irecv", "request is NULL");
    r = req_new();
    if (!r)
        return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Irecv", "out of memory");
    rc = recv_start(r, buf, count, dt, source, tag, c, 0);
    if (rc != MPI_SUCCESS) {
        req_release(r);
        return mpii_err(c, rc, "MPI_Irecv", "could not start the receive");
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

/* ------------------------------------------------- generalized requests */

/* MPI 3.1 12.2: the request completes when the program calls
 * MPI_Grequest_complete; MPI_Wait / Test then fill the status through
 * query_fn and call free_fn. The callbacks live in r->tmp, which
 * req_release frees. A NULL callback is skipped (the status stays an empty
 * one), as Open MPI and MPICH do: their tests pass a NULL cancel_fn. */
typedef struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
} greq_t;

static int greq_finish(mpii_request_t *r, MPI_Status *st)
{
    greq_t *g = r->tmp;
    MPI_Status tmp;
    int err, err2;

    status_empty(&tmp);
    tmp.MPI_ERROR = MPI_SUCCESS;
    err = g->query ? g->query(g->extra, &tmp) : MPI_SUCCESS;
    if (st)
        *st = tmp;
    err2 = g->free ? g->free(g->extra) : MPI_SUCCESS;
    free(r->tmp);
    r->tmp = NULL;
    return err != MPI_SUCCESS ? err : err2;
}

static int greq_cancel(mpii_request_t *r)
{
    greq_t *g = r->tmp;
    int rc = g->cancel ? g->cancel(g->extra, r->pr.done) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return mpii_err(r->comm, rc, "MPI_Cancel", "the cancel function of a generalized request failed");
    return MPI_SUCCESS;
}

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    static const char fn[] = "MPI_Grequest_start";
    mpii_request_t *r;
    greq_t *g;

    MPII_CHECK_INIT(fn);
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "request is NULL");
    g = malloc(sizeof(*g));
    r = g ? req_new() : NULL;
    if (!r) {
        free(g);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    g->query = query_fn;
    g->free = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    memset(&r->pr, 0, sizeof(r->pr));
    r->kind = MPII_REQ_GREQ;
    r->comm = mpii_comm_get(MPI_COMM_WORLD);
    r->udt = NULL;
    r->ubytes = 0;
    r->tmp = g;
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request)
{
    mpii_request_t *r;

    MPII_CHECK_INIT("MPI_Grequest_complete");
    r = mpii_request_get(request);
    if (!r || r->kind != MPII_REQ_GREQ || r->pr.done)
        return mpii_err(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete", "not a pending generalized request");
    r->pr.done = 1;
    if (r->freed)
        sweep_freed(); /* MPI_Request_free'd already: free_fn runs now */
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------- completion */

/* Look up *h; NULL handle -> *r_p NULL. Invalid -> MPI_ERR_REQUEST. */
static int req_lookup(const char *fn, MPI_Request *h, mpii_request_t **r_p)
{
    if (!h)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "request pointer is NULL");
    if (*h == MPI_REQUEST_NULL) {
        *r_p = NULL;
        return MPI_SUCCESS;
    }
    *r_p = mpii_request_get(*h);
    if (!*r_p)
        return mpii_err(NULL, MPI_ERR_REQUEST, fn, "invalid request %d", *h);
    if (!(*r_p)->active)
        *r_p = NULL; /* inactive persistent request */
    return MPI_SUCCESS;
}

/* Finish a done request and free its handle. */
P2P_HOT int req_complete(mpii_request_t *r, MPI_Request *h, MPI_Status *st)
{
    int err = req_finish(r, st);
    if (r->persistent) {
        r->active = 0; /* stays allocated until MPI_Request_free */
        return err;
    }
    req_release(r);
    *h = MPI_REQUEST_NULL;
    return err;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    mpii_request_t *r;
    MPI_Comm ch;
    int rc;

    MPII_CHECK_INIT("MPI_Wait");
    rc = req_lookup("MPI_Wait", request, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    sweep_freed();
    mpii_progress_wait(&r->pr.done);
    ch = r->comm->handle; /* the communicator may go with the request */
    rc = req_complete(r, request, status);
    if (rc != MPI_SUCCESS)
        return mpii_err(mpii_comm_get(ch), rc, "MPI_Wait", "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    mpii_request_t *r;
    MPI_Comm ch;
    int rc;

    MPII_CHECK_INIT("MPI_Test");
    rc = req_lookup("MPI_Test", request, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Test", "flag is NULL");
    if (!r) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->pr.done)
        mpii_progress();
    *flag = r->pr.done;
    if (!*flag)
        return MPI_SUCCESS;
    ch = r->comm->handle;
    rc = req_complete(r, request, status);
    if (rc != MPI_SUCCESS)
        return mpii_err(mpii_comm_get(ch), rc, "MPI_Test", "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

static int check_req_array(const char *fn, int count, MPI_Request reqs[])
{
    int i;
    if (count < 0)
        return mpii_err(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (count > 0 && !reqs)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "request array is NULL");
    for (i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !req_get(reqs[i]))
            return mpii_err(NULL, MPI_ERR_REQUEST, fn, "invalid request %d at index %d", reqs[i], i);
    return MPI_SUCCESS;
}

/* Complete every request of the array that is done; record errors. */
static int complete_all(const char *fn, int count, MPI_Request reqs[], MPI_Status statuses[])
{
    MPI_Comm errc = MPI_COMM_NULL;
    int i, err, any_err = 0;

    for (i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[i];
        mpii_request_t *r = req_active(reqs[i]);
        if (!r) {
            status_empty(st);
            if (st)
                st->MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        MPI_Comm ch = r->comm->handle; /* the communicator may go with the request */
        err = req_complete(r, &reqs[i], st);
        if (st)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !any_err) {
            any_err = 1;
            errc = ch;
        }
    }
    if (any_err)
        return mpii_err(mpii_comm_get(errc), MPI_ERR_IN_STATUS, fn, "a request failed (see the statuses)");
    return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int i, rc;

    MPII_CHECK_INIT("MPI_Waitall");
    rc = check_req_array("MPI_Waitall", count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    sweep_freed();
    for (i = 0; i < count; i++) {
        mpii_request_t *r = req_active(array_of_requests[i]);
        if (r && !r->pr.done)
            mpii_progress_wait(&r->pr.done);
    }
    return complete_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    int i, rc;

    MPII_CHECK_INIT("MPI_Testall");
    rc = check_req_array("MPI_Testall", count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    mpii_progress();
    for (i = 0; i < count; i++) {
        mpii_request_t *r = req_active(array_of_requests[i]);
        if (r && !r->pr.done) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return complete_all("MPI_Testall", count, array_of_requests, array_of_statuses);
}

/* index of a done active request, -1 if none, -2 if no active request */
static int find_done(int count, MPI_Request reqs[])
{
    int i, active = 0;
    for (i = 0; i < count; i++) {
        mpii_request_t *r = req_active(reqs[i]);
        if (!r)
            continue;
        active = 1;
        if (r->pr.done)
            return i;
    }
    return active ? -1 : -2;
}

static int any_common(const char *fn, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
                      int blocking)
{
    long idle = 0;
    MPI_Comm ch;
    int i, rc;

    MPII_CHECK_INIT(fn);
    rc = check_req_array(fn, count, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!index || (!blocking && !flag))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "NULL argument");
    for (;;) {
        i = find_done(count, reqs);
        if (i == -2) {
            *index = MPI_UNDEFINED;
            if (flag)
                *flag = 1;
            status_empty(status);
            return MPI_SUCCESS;
        }
        if (i >= 0)
            break;
        if (!blocking) {
            mpii_progress();
            i = find_done(count, reqs);
            if (i < 0) {
                *flag = 0;
                *index = MPI_UNDEFINED;
                return MPI_SUCCESS;
            }
            break;
        }
        if (mpii_progress() > 0)
            idle = 0;
        else {
            mpii_idle_wait(&idle);
        }
    }
    if (flag)
        *flag = 1;
    *index = i;
    ch = req_active(reqs[i])->comm->handle; /* the communicator may go with the request */
    rc = req_complete(req_active(reqs[i]), &reqs[i], status);
    if (rc != MPI_SUCCESS)
        return mpii_err(mpii_comm_get(ch), rc, fn, "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return any_common("MPI_Waitany", count, array_of_requests, index, NULL, status, 1);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    return any_common("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

static int some_common(const char *fn, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[], int blocking)
{
    MPI_Comm errc = MPI_COMM_NULL;
    long idle = 0;
    int i, n, rc, any_err = 0;

    MPII_CHECK_INIT(fn);
    rc = check_req_array(fn, incount, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "NULL argument");
    for (;;) {
        i = find_done(incount, reqs);
        if (i == -2) {
            *outcount = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        if (i >= 0 || !blocking)
            break;
        if (mpii_progress() > 0)
            idle = 0;
        else {
            mpii_idle_wait(&idle);
        }
    }
    if (!blocking)
        mpii_progress();
    for (n = 0, i = 0; i < incount; i++) {
        mpii_request_t *r = req_active(reqs[i]);
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[n];
        int err;
        if (!r || !r->pr.done)
            continue;
        MPI_Comm ch = r->comm->handle; /* the communicator may go with the request */
        err = req_complete(r, &reqs[i], st);
        if (st)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !any_err) {
            any_err = 1;
            errc = ch;
        }
        indices[n++] = i;
    }
    *outcount = n;
    if (any_err)
        return mpii_err(mpii_comm_get(errc), MPI_ERR_IN_STATUS, fn, "a request failed (see the statuses)");
    return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return some_common("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 1);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return some_common("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 0);
}

int MPI_Request_free(MPI_Request *request)
{
    mpii_request_t *r;
    int rc;

    MPII_CHECK_INIT("MPI_Request_free");
    rc = req_lookup("MPI_Request_free", request, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r && *request != MPI_REQUEST_NULL)
        r = mpii_request_get(*request); /* an inactive persistent request */
    if (!r)
        return mpii_err(NULL, MPI_ERR_REQUEST, "MPI_Request_free", "request is MPI_REQUEST_NULL");
    if (r->persistent && !r->active) {
        req_release(r);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    r->persistent = 0; /* freed while active: released once complete */
    if (r->pr.done) {
        req_finish(r, NULL);
        req_release(r);
    } else {
        sweep_freed();
        if (nfreed == (int)(sizeof(freed_list) / sizeof(freed_list[0]))) {
            mpii_progress_wait(&r->pr.done);
            req_finish(r, NULL);
            req_release(r);
        } else {
            r->freed = 1;
            freed_list[nfreed++] = r;
        }
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    mpii_request_t *r;
    int rc;

    MPII_CHECK_INIT("MPI_Request_get_status");
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    r = mpii_request_get(request);
    if (!r)
        return mpii_err(NULL, MPI_ERR_REQUEST, "MPI_Request_get_status", "invalid request");
    if (!r->active) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->pr.done)
        mpii_progress();
    *flag = r->pr.done;
    if (*flag && r->kind == MPII_REQ_GREQ) {
        greq_t *g = r->tmp;
        MPI_Status tmp, *sp = status ? status : &tmp;
        status_empty(sp);
        rc = g->query ? g->query(g->extra, sp) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            return mpii_err(NULL, rc, "MPI_Request_get_status", "the query function failed");
        return MPI_SUCCESS;
    }
    if (*flag && status && r->kind == MPII_REQ_NBC) {
        status_empty(status); /* MPI_SOURCE and MPI_TAG are undefined (MPI 3.1 5.12) */
    } else if (*flag && status) {
        proto_req_t *pr = &r->pr;
        status->MPI_SOURCE = pr->st_src;
        status->MPI_TAG = pr->st_tag;
        status->mbmpi_count = (long long)(pr->st_len < r->ubytes ? pr->st_len : r->ubytes);
        status->mbmpi_cancelled = pr->cancelled;
    }
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    mpii_request_t *r;
    int rc;

    MPII_CHECK_INIT("MPI_Cancel");
    rc = req_lookup("MPI_Cancel", request, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r)
        return mpii_err(NULL, MPI_ERR_REQUEST, "MPI_Cancel", "request is MPI_REQUEST_NULL");
    if (r->kind == MPII_REQ_GREQ)
        return greq_cancel(r);
    if (r->kind == MPII_REQ_NBC) /* erroneous (MPI 3.1 5.12) */
        return mpii_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel", "a nonblocking collective cannot be cancelled");
    /* A send is cancelled while its receiver has not matched it (proto.c),
     * even when it is already complete here (eager). */
    if (r->p_parts && !r->p_recv && r->p_nready < r->p_parts)
        return MPI_SUCCESS; /* a partitioned send not yet sent: it completes when it is */
    if (r->bs_inner != MPI_REQUEST_NULL) {
        /* a buffered send: its own request is complete, the send from the
         * attached buffer is what may still be cancelled */
        int cancelled;
        mpii_bsend_cancel(r->bs_inner, &cancelled);
        r->bs_inner = MPI_REQUEST_NULL;
        r->pr.cancelled = cancelled;
        return MPI_SUCCESS;
    }
    if ((r->kind == MPII_REQ_RECV ? !r->pr.done : r->kind == MPII_REQ_SEND) && (!r->persistent || r->active))
        proto_cancel(mpii_g.p, &r->pr);
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPII_CHECK_INIT("MPI_Test_cancelled");
    if (!status || !flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = status->mbmpi_cancelled;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- persistent */

static int init_common(const char *fn, const void *buf, int count, MPI_Datatype datatype, int rank, int tag,
                       MPI_Comm comm, MPI_Request *request, int recv, int sync)
{
    mpii_request_t *r;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    int rc;

    rc = check_args(fn, comm, &c, buf, count, datatype, &dt, rank, tag, recv);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err(c, MPI_ERR_ARG, fn, "request is NULL");
    r = req_new();
    if (!r)
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    r->persistent = 1;
    r->active = 0;
    r->comm = c;
    req_hold_comm(r, c);
    r->kind = recv ? MPII_REQ_RECV : MPII_REQ_SEND;
    r->p_recv = recv;
    r->p_sync = sync;
    r->p_buf = (void *)buf;
    r->p_count = count;
    r->p_dt = datatype;
    if (!dt->predefined) {
        /* MPI 3.1 4.1.9: freeing the type does not affect the request */
        r->p_dtcopy = malloc(sizeof(*dt) + dt->nblocks * sizeof(mpii_dtblock_t));
        if (!r->p_dtcopy) {
            req_release(r);
            return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        dt_snapshot(r->p_dtcopy, (mpii_dtblock_t *)(r->p_dtcopy + 1), dt);
    }
    r->p_rank = rank;
    r->p_tag = tag;
    r->p_parts = 0;
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return init_common("MPI_Send_init", buf, count, datatype, dest, tag, comm, request, 0, 0);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return init_common("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, request, 0, 1);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return init_common("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, request, 0, 0);
}

/* p_sync == P_BUFFERED marks a persistent buffered send: MPI_Start packs it
 * into the attached buffer (mpi/bsend.c) and the request is complete at once. */
#define P_BUFFERED 2

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return init_common("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, request, 0, P_BUFFERED);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return init_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, request, 1, 0);
}

int MPI_Start(MPI_Request *request)
{
    mpii_request_t *r;
    mpii_datatype_t *dt;
    int rc;

    MPII_CHECK_INIT("MPI_Start");
    if (!request)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Start", "request is NULL");
    r = mpii_request_get(*request);
    if (!r || !r->persistent || r->active)
        return mpii_err(NULL, MPI_ERR_REQUEST, "MPI_Start", "not an inactive persistent request");
    if (r->pcoll)
        return mpii_nbc_pstart(r); /* a persistent collective (mpi/coll/nbc.c) */
    dt = r->p_dtcopy ? r->p_dtcopy : mpii_datatype_get(r->p_dt);
    r->tmp = NULL;
    if (r->p_parts && !r->p_recv) {
        /* a partitioned send goes once MPI_Pready has marked every partition */
        memset(r->p_ready, 0, (size_t)r->p_parts);
        r->p_nready = 0;
        r->kind = MPII_REQ_SEND;
        r->pr.done = 0;
        rc = MPI_SUCCESS;
    } else if (r->p_parts) {
        rc = recv_start(r, r->p_buf, r->p_count, dt, r->p_rank, r->p_tag, r->comm, MPII_CTX_PART);
    } else if (r->p_recv) {
        rc = recv_start(r, r->p_buf, r->p_count, dt, r->p_rank, r->p_tag, r->comm, 0);
    } else if (r->p_sync == P_BUFFERED) {
        MPI_Request inner = MPI_REQUEST_NULL;
        rc = r->p_rank == MPI_PROC_NULL
                 ? MPI_SUCCESS
                 : mpii_bsend(r->p_buf, r->p_count, dt, r->p_rank, r->p_tag, r->comm, &inner);
        if (rc == MPI_SUCCESS) {
            mpii_req_set_done(r, r->comm, MPII_REQ_SEND, MPI_PROC_NULL);
            r->bs_inner = inner;
        }
    } else
        rc =
            send_start(r, r->p_buf, r->p_count, dt, r->p_rank, r->p_tag, r->comm, 0, r->p_sync, TL_HINT_NONE);
    if (rc != MPI_SUCCESS)
        return mpii_err(r->comm, rc, "MPI_Start", "could not start the request");
    r->active = 1;
    return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    int i, rc;

    MPII_CHECK_INIT("MPI_Startall");
    if (count < 0 || (count > 0 && !array_of_requests))
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Startall", "invalid arguments");
    for (i = 0; i < count; i++) {
        rc = MPI_Start(&array_of_requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* -------------------------------------------------------- partitioned */
/*
 * Partitioned communication (MPI 4.0 4.1). A partitioned request is a
 * persistent one for the whole buffer (partitions x count elements). The
 * send leaves when MPI_Pready has marked its last partition, as one message
 * (the standard lets the transfer wait for that); MPI_Parrived says whether
 * the whole message has arrived, so a partition is reported when all are.
 *
 * Matching (MPI 4.0 4.2.2): the k-th MPI_Psend_init to (comm, dest, tag)
 * matches the k-th MPI_Precv_init from (comm, source, tag), whatever the
 * order of the MPI_Start and MPI_Pready calls. So each side counts its
 * initializations per (communicator, peer, tag), and the pair's messages
 * carry a context of their own: the top bit (no other context has it; ids
 * stay below 2^31), the communicator's id (ctx / 2, below 2^19) and k modulo
 * 4096 (at most 4096 pairs of one peer and tag alive at once). They match
 * nothing but their partner, never an ordinary receive.
 */
#define PART_K_BITS 12
#define PART_ID_LIMIT (1u << (31 - PART_K_BITS))

typedef struct part_seq {
    uint32_t ctx; /* the communicator's */
    int recv, peer, tag;
    uint32_t next;
} part_seq_t;

/* the counters, one per (communicator, side, peer, tag) used (a
 * communicator's stay after it is freed: ids are not reused) */
static part_seq_t *part_seqs;
static size_t npart_seqs, part_seqs_cap;

static int part_next(mpii_comm_t *c, int recv, int peer, int tag, uint32_t *k)
{
    size_t i;

    for (i = 0; i < npart_seqs; i++) {
        part_seq_t *q = &part_seqs[i];
        if (q->ctx == c->ctx && q->recv == recv && q->peer == peer && q->tag == tag) {
            *k = q->next++;
            return MPI_SUCCESS;
        }
    }
    if (npart_seqs == part_seqs_cap) {
        size_t nc = part_seqs_cap ? 2 * part_seqs_cap : 16;
        part_seq_t *t = realloc(part_seqs, nc * sizeof(*t));
        if (!t)
            return MPI_ERR_NO_MEM;
        part_seqs = t;
        part_seqs_cap = nc;
    }
    part_seqs[npart_seqs++] = (part_seq_t){c->ctx, recv, peer, tag, 1};
    *k = 0;
    return MPI_SUCCESS;
}

static int part_init(const char *fn, const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                     int rank, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, int recv)
{
    mpii_request_t *r;
    uint32_t k;
    int rc;

    MPII_CHECK_INIT(fn);
    if (partitions < 1)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_ARG, fn, "partitions %d is below 1", partitions);
    if (count < 0 || count > INT_MAX / partitions)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_COUNT, fn, "%d partitions of %lld elements", partitions,
                        (long long)count);
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(mpii_comm_get(comm), MPI_ERR_INFO, fn, "invalid info");
    if (recv && (rank == MPI_ANY_SOURCE || tag == MPI_ANY_TAG))
        return mpii_err(mpii_comm_get(comm), rank == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG, fn,
                        "a partitioned receive takes no wildcard");
    rc = init_common(fn, buf, partitions * (int)count, datatype, rank, tag, comm, request, recv, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    r = mpii_request_get(*request);
    if ((r->comm->ctx >> 1) >= PART_ID_LIMIT || part_next(r->comm, recv, rank, tag, &k) != MPI_SUCCESS) {
        mpii_comm_t *c = r->comm;
        req_release(r);
        *request = MPI_REQUEST_NULL;
        return mpii_err(c, (c->ctx >> 1) >= PART_ID_LIMIT ? MPI_ERR_INTERN : MPI_ERR_NO_MEM, fn, "%s",
                        (c->ctx >> 1) >= PART_ID_LIMIT ? "the communicator's context id is too high for "
                                                         "partitioned communication"
                                                       : "out of memory");
    }
    r->p_ctx = MPII_CTX_PART_BIT | (r->comm->ctx >> 1) << PART_K_BITS | (k & ((1u << PART_K_BITS) - 1));
    r->p_ready = recv ? NULL : malloc((size_t)partitions);
    if (!recv && !r->p_ready) {
        mpii_comm_t *c = r->comm;
        req_release(r);
        *request = MPI_REQUEST_NULL;
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    r->p_parts = partitions;
    return MPI_SUCCESS;
}

int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info, request, 0);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info, request, 1);
}

/* The active partitioned request behind h, with recv telling which side. */
static int part_get(const char *fn, MPI_Request h, int recv, mpii_request_t **r_p)
{
    mpii_request_t *r = mpii_request_get(h);

    if (!r || !r->persistent || !r->p_parts || !r->p_recv != !recv)
        return mpii_err(NULL, MPI_ERR_REQUEST, fn, "not a partitioned %s request", recv ? "receive" : "send");
    *r_p = r;
    return MPI_SUCCESS;
}

/* Mark partition i of send r ready; the last one sends the message. */
static int part_ready(const char *fn, mpii_request_t *r, int i)
{
    mpii_datatype_t *dt;
    int rc;

    if (!r->active)
        return mpii_err(r->comm, MPI_ERR_REQUEST, fn, "the request is not started");
    if (i < 0 || i >= r->p_parts)
        return mpii_err(r->comm, MPI_ERR_ARG, fn, "partition %d is not in [0, %d)", i, r->p_parts);
    if (r->p_ready[i])
        return mpii_err(r->comm, MPI_ERR_ARG, fn, "partition %d is already ready", i);
    r->p_ready[i] = 1;
    if (++r->p_nready < r->p_parts)
        return MPI_SUCCESS;
    dt = r->p_dtcopy ? r->p_dtcopy : mpii_datatype_get(r->p_dt);
    rc =
        send_start(r, r->p_buf, r->p_count, dt, r->p_rank, r->p_tag, r->comm, MPII_CTX_PART, 0, TL_HINT_NONE);
    if (rc != MPI_SUCCESS)
        return mpii_err(r->comm, rc, fn, "could not send the message");
    return MPI_SUCCESS;
}

int MPI_Pready(int partition, MPI_Request request)
{
    mpii_request_t *r = NULL;
    int rc;

    MPII_CHECK_INIT("MPI_Pready");
    rc = part_get("MPI_Pready", request, 0, &r);
    return rc != MPI_SUCCESS ? rc : part_ready("MPI_Pready", r, partition);
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    mpii_request_t *r = NULL;
    int rc;

    MPII_CHECK_INIT("MPI_Pready_range");
    rc = part_get("MPI_Pready_range", request, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (partition_low > partition_high || partition_low < 0 || partition_high >= r->p_parts)
        return mpii_err(r->comm, MPI_ERR_ARG, "MPI_Pready_range", "range [%d, %d] is not in [0, %d)",
                        partition_low, partition_high, r->p_parts);
    for (int i = partition_low; i <= partition_high && rc == MPI_SUCCESS; i++)
        rc = part_ready("MPI_Pready_range", r, i);
    return rc;
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    mpii_request_t *r = NULL;
    int rc;

    MPII_CHECK_INIT("MPI_Pready_list");
    rc = part_get("MPI_Pready_list", request, 0, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (length < 0 || (length > 0 && !array_of_partitions))
        return mpii_err(r->comm, MPI_ERR_ARG, "MPI_Pready_list", "invalid list");
    for (int i = 0; i < length && rc == MPI_SUCCESS; i++)
        rc = part_ready("MPI_Pready_list", r, array_of_partitions[i]);
    return rc;
}

int MPI_Parrived(MPI_Request request, int partition, int *flag)
{
    mpii_request_t *r = NULL;
    int rc;

    MPII_CHECK_INIT("MPI_Parrived");
    if (!flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Parrived", "flag is NULL");
    rc = part_get("MPI_Parrived", request, 1, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (partition < 0 || partition >= r->p_parts)
        return mpii_err(r->comm, MPI_ERR_ARG, "MPI_Parrived", "partition %d is not in [0, %d)", partition,
                        r->p_parts);
    if (!r->active) { /* completed (or never started): nothing is pending */
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!r->pr.done)
        mpii_progress();
    *flag = r->pr.done;
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- combined */

static int sendrecv_exchange(const void *sbuf, int scount, mpii_datatype_t *sdt, int dest, int stag,
                             void *rbuf, int rcount, mpii_datatype_t *rdt, int src, int rtag,
                             mpii_comm_t *comm, int coll, tl_shm_hint_t hint, MPI_Status *status, int *which);

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    mpii_comm_t *c;
    mpii_datatype_t *sdt, *rdt;
    int rc, which;

    rc = check_args("MPI_Sendrecv", comm, &c, sendbuf, sendcount, sendtype, &sdt, dest, sendtag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = check_args("MPI_Sendrecv", comm, &c, recvbuf, recvcount, recvtype, &rdt, source, recvtag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = sendrecv_exchange(sendbuf, sendcount, sdt, dest, sendtag, recvbuf, recvcount, rdt, source, recvtag,
                           c, 0, TL_SHM_EXCHANGE, status, &which);
    if (rc != MPI_SUCCESS && which == 0)
        return mpii_err(c, rc, "MPI_Sendrecv", "could not start the receive");
    if (rc != MPI_SUCCESS && which == 1)
        return mpii_err(c, rc, "MPI_Sendrecv", "could not start the send");
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Sendrecv", "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    mpii_request_t rs, rr;
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    void *copy = NULL;
    size_t len;
    int rc, rc2;

    rc = check_args("MPI_Sendrecv_replace", comm, &c, buf, count, datatype, &dt, dest, sendtag, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = check_args("MPI_Sendrecv_replace", comm, &c, buf, count, datatype, &dt, source, recvtag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Send a packed copy so the receive may land in buf at once. */
    len = (size_t)count * dt->size;
    if (len) {
        copy = malloc(len);
        if (!copy)
            return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace", "out of memory");
        mpii_datatype_pack(buf, (size_t)count, dt, copy);
    }
    rs.handle = rr.handle = 0;
    rs.tmp = rr.tmp = NULL;
    rc = recv_start(&rr, buf, count, dt, source, recvtag, c, 0);
    if (rc == MPI_SUCCESS)
        rc = send_start(&rs, copy, (int)len, mpii_datatype_get(MPI_BYTE), dest, sendtag, c, 0, 0,
                        TL_HINT_NONE);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return mpii_err(c, rc, "MPI_Sendrecv_replace", "could not start");
    }
    mpii_progress_wait(&rs.pr.done);
    mpii_progress_wait(&rr.pr.done);
    rc = req_finish(&rs, NULL);
    rc2 = req_finish(&rr, status);
    free(copy);
    if (rc2 != MPI_SUCCESS)
        rc = rc2;
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, "MPI_Sendrecv_replace", "%s", req_err_text(rc));
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- probe */

static int probe_common(const char *fn, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status,
                        int blocking)
{
    mpii_comm_t *c;
    mpii_datatype_t *dt;
    long idle = 0;
    int rc, f = 0, s, t;
    size_t len;

    rc = check_args(fn, comm, &c, NULL, 0, MPI_BYTE, &dt, source, tag, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!blocking && !flag)
        return mpii_err(c, MPI_ERR_ARG, fn, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        if (status) {
            status->MPI_SOURCE = MPI_PROC_NULL;
            status->MPI_TAG = MPI_ANY_TAG;
            status->mbmpi_count = 0;
            status->mbmpi_cancelled = 0;
        }
        return MPI_SUCCESS;
    }
    for (;;) {
        proto_iprobe(mpii_g.p, source == MPI_ANY_SOURCE ? PROTO_ANY : source, mpii_comm_ctx(c, 0),
                     tag == MPI_ANY_TAG ? PROTO_ANY : tag, &f, &s, &t, &len);
        if (f || (!blocking && idle))
            break;
        if (mpii_progress() > 0)
            idle = blocking ? 0 : 1;
        else if (!blocking)
            idle = 1;
        else {
            mpii_idle_wait(&idle);
        }
    }
    if (flag)
        *flag = f;
    if (f && status) {
        status->MPI_SOURCE = s;
        status->MPI_TAG = t;
        status->mbmpi_count = (long long)len;
        status->mbmpi_cancelled = 0;
    }
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe_common("MPI_Probe", source, tag, comm, NULL, status, 1);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe_common("MPI_Iprobe", source, tag, comm, flag, status, 0);
}

/* ------------------------------------------ internal, for collectives */

static int isend_ctx(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                     int coll, tl_shm_hint_t hint, MPI_Request *req)
{
    mpii_request_t *r = req_new();
    int rc;

    if (!r)
        return MPI_ERR_NO_MEM;
    rc = send_start(r, buf, count, mpii_datatype_get(dt), dest, tag, comm, coll, 0, hint);
    if (rc != MPI_SUCCESS) {
        req_release(r);
        return rc;
    }
    *req = r->handle;
    return MPI_SUCCESS;
}

int mpii_isend_ctx(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                   int coll, MPI_Request *req)
{
    return isend_ctx(buf, count, dt, dest, tag, comm, coll, TL_HINT_NONE, req);
}

int mpii_isend_coll_flat(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                         MPI_Request *req)
{
    return isend_ctx(buf, count, dt, dest, tag, comm, 1, TL_SHM_FLAT, req);
}

int mpii_isend_coll_exchange(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             mpii_comm_t *comm, MPI_Request *req)
{
    return isend_ctx(buf, count, dt, dest, tag, comm, 1, TL_SHM_EXCHANGE, req);
}

int mpii_isend_coll_fanout(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                           MPI_Request *req)
{
    return isend_ctx(buf, count, dt, dest, tag, comm, 1, TL_SHM_FANOUT, req);
}

/* xchg: the receive of an exchange step (recv_start_xchg) */
static int irecv_ctx(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm, int coll,
                     int xchg, MPI_Request *req)
{
    mpii_request_t *r = req_new();
    int rc;

    if (!r)
        return MPI_ERR_NO_MEM;
    rc = (xchg ? recv_start_xchg : recv_start)(r, buf, count, mpii_datatype_get(dt), src, tag, comm, coll);
    if (rc != MPI_SUCCESS) {
        req_release(r);
        return rc;
    }
    *req = r->handle;
    return MPI_SUCCESS;
}

int mpii_irecv_ctx(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm, int coll,
                   MPI_Request *req)
{
    return irecv_ctx(buf, count, dt, src, tag, comm, coll, 0, req);
}

int mpii_irecv_coll_exchange(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm,
                             MPI_Request *req)
{
    return irecv_ctx(buf, count, dt, src, tag, comm, 1, 1, req);
}

int mpii_send_ctx(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm, int coll)
{
    return mpii_send_ctx_sync(buf, count, dt, dest, tag, comm, coll, 0);
}

static int send_ctx_blocking(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             mpii_comm_t *comm, int coll, int sync, tl_shm_hint_t hint)
{
    mpii_request_t r;
    int rc;

    r.handle = 0;
    r.tmp = NULL;
    rc = send_start(&r, buf, count, mpii_datatype_get(dt), dest, tag, comm, coll, sync, hint);
    if (rc != MPI_SUCCESS) {
        free(r.tmp);
        return rc;
    }
    mpii_progress_wait(&r.pr.done);
    return req_finish(&r, NULL);
}

int mpii_send_ctx_sync(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                       int coll, int sync)
{
    return send_ctx_blocking(buf, count, dt, dest, tag, comm, coll, sync, TL_HINT_NONE);
}

int mpii_send_coll_operand(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm)
{
    return send_ctx_blocking(buf, count, dt, dest, tag, comm, 1, 0, TL_SHM_OPERAND);
}

int mpii_send_coll_flat(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm)
{
    return send_ctx_blocking(buf, count, dt, dest, tag, comm, 1, 0, TL_SHM_FLAT);
}

int mpii_recv_ctx(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm, int coll,
                  MPI_Status *status)
{
    mpii_request_t r;
    int rc;

    r.handle = 0;
    r.tmp = NULL;
    rc = recv_start(&r, buf, count, mpii_datatype_get(dt), src, tag, comm, coll);
    if (rc != MPI_SUCCESS) {
        free(r.tmp);
        return rc;
    }
    mpii_progress_wait(&r.pr.done);
    return req_finish(&r, status);
}

/*
 * An exchange (Sendrecv, and every collective step built on it): this rank
 * sends and receives at once, so on one host both CPUs are busy anyway and
 * the rings' two copies per byte (sender in, receiver out) are twice the
 * work of one. mbshm then lets the receiver read writes of 64 KiB or more
 * with one process_vm_readv (TL_SHM_EXCHANGE; MBMPI_SHM_CMA=auto, the
 * default). Measured with bench/coll, Alltoall at P = 2 (pairwise), rings
 * against receiver reads: 64 KiB 14.6-16.5 -> 10.4 us, 256 KiB 57-77 ->
 * 38-42, 1 MiB 340-396 -> 268-278 (Open MPI: 34 us at 256 KiB).
 *
 * Not when this rank writes into sbuf right after (TL_SHM_REWRITE,
 * mpii_sendrecv_coll_rewrite: recursive doubling combines into the vector
 * it just sent): the lines the peer's process_vm_readv read are then shared with
 * the peer's CPU, and every write must first take them back. 64 KiB at P
 * = 2, MPI_Sendrecv followed by a sum into the sent vector, 3000 calls
 * back to back: 56 us per call with the pull, 35 through the rings
 * (Sendrecv alone: 20 against 24). The sender's single copy
 * (process_vm_writev) is no better there, as it leaves the receiver's
 * vector in the sender's cache: Allreduce of 64 KiB by recursive doubling,
 * 3000 calls, 38-42 us pulled, 35-38 written, 23-27 through the rings. So
 * such exchanges keep to the rings, also when their receive posted no REQ
 * (the RTS then offers no read: proto.c read_max).
 */
static int sendrecv_exchange(const void *sbuf, int scount, mpii_datatype_t *sdt, int dest, int stag,
                             void *rbuf, int rcount, mpii_datatype_t *rdt, int src, int rtag,
                             mpii_comm_t *comm, int coll, tl_shm_hint_t hint, MPI_Status *status, int *which)
{
    mpii_request_t rs, rr;
    int rc, rc2;

    rs.handle = rr.handle = 0;
    rs.tmp = rr.tmp = NULL;
    rs.p_ctx = rr.p_ctx = 0; /* (read for partitioned contexts only: gcc -O3 cannot tell) */
    *which = 0;
    rc = recv_start_xchg(&rr, rbuf, rcount, rdt, src, rtag, comm, coll);
    if (rc != MPI_SUCCESS)
        return rc;
    *which = 1;
    rc = send_start(&rs, sbuf, scount, sdt, dest, stag, comm, coll, 0, hint);
    if (rc != MPI_SUCCESS) {
        /* the receive must not stay posted into a request about to go */
        proto_cancel(mpii_g.p, &rr.pr);
        mpii_progress_wait(&rr.pr.done);
        req_finish(&rr, NULL);
        return rc;
    }
    mpii_progress_wait(&rs.pr.done);
    mpii_progress_wait(&rr.pr.done);
    *which = 2;
    rc = req_finish(&rs, NULL);
    rc2 = req_finish(&rr, status);
    return rc2 != MPI_SUCCESS ? rc2 : rc;
}

int mpii_sendrecv_ctx(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf, int rcount,
                      MPI_Datatype rdt, int src, int rtag, mpii_comm_t *comm, int coll, MPI_Status *status)
{
    int which;

    return sendrecv_exchange(sbuf, scount, mpii_datatype_get(sdt), dest, stag, rbuf, rcount,
                             mpii_datatype_get(rdt), src, rtag, comm, coll, TL_SHM_EXCHANGE, status, &which);
}

int mpii_sendrecv_coll_rewrite(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                               int rcount, MPI_Datatype rdt, int src, int rtag, mpii_comm_t *comm)
{
    int which;

    return sendrecv_exchange(sbuf, scount, mpii_datatype_get(sdt), dest, stag, rbuf, rcount,
                             mpii_datatype_get(rdt), src, rtag, comm, 1, TL_SHM_REWRITE, MPI_STATUS_IGNORE,
                             &which);
}

int mpii_waitall(int n, MPI_Request *reqs)
{
    int i, err = MPI_SUCCESS, e;

    for (i = 0; i < n; i++) {
        mpii_request_t *r = req_active(reqs[i]);
        if (!r)
            continue;
        mpii_progress_wait(&r->pr.done);
        e = req_complete(r, &reqs[i], NULL);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
    }
    return err;
}

/* -------------------------------------- for bsend.c, mprobe.c (mpi3.h) */

mpii_request_t *mpii_req_new(void)
{
    return req_new();
}

void mpii_req_release(mpii_request_t *r)
{
    req_release(r);
}

int mpii_p2p_check(const char *fn, MPI_Comm comm, mpii_comm_t **c_p, const void *buf, int count,
                   MPI_Datatype datatype, mpii_datatype_t **dt_p, int rank, int tag, int recv)
{
    return check_args(fn, comm, c_p, buf, count, datatype, dt_p, rank, tag, recv);
}

void mpii_req_set_done(mpii_request_t *r, mpii_comm_t *c, int kind, int src)
{
    req_null_complete(r, c, kind);
    r->pr.st_src = src;
}

int mpii_req_complete(mpii_request_t *r, MPI_Request *h, MPI_Status *st)
{
    if (!h)
        return req_finish(r, st); /* a request on the caller's stack */
    return req_complete(r, h, st);
}

const char *mpii_req_err_text(int err)
{
    return req_err_text(err);
}
