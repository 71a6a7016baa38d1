/*
 * transport/self.c: in-process transport for unit tests (UCX's self idea).
 *
 * A group of N endpoints lives in one process; a send copies the message into
 * the target's event queue, a write checks the target's registration table
 * (key, bounds) exactly as a NIC would and copies, queueing the notification.
 * The target sees everything only when it calls progress(), like libfabric's
 * manual progress. Tests can inject raw FIFO bytes and make the next
 * operations fail (NO_RESOURCE storms, errors).
 */
#include "transport/transport.h"
#include "util/list.h"
#include "util/log.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

typedef struct self_event {
    ut_list_t link;
    int kind;                /* 0 recv, 1 notify */
    uint32_t data;
    size_t len;
    char bytes[];
} self_event_t;

struct tl_mr {
    ut_list_t link;
    void *buf;
    size_t len;
    uint64_t key;
    int read_only; /* registered for peers to read (self_mem_reg_read) */
};

typedef struct tl_self {
    tl_t super;
    tl_callbacks_t cb;
    tl_self_group_t *group;
    int rank;
    ut_list_t events;
    ut_list_t mrs;
    uint64_t next_key;
    int fail_send, fail_write, fail_reg, fail_status;
    int fail_read, fail_read_status;
    unsigned long rejected_writes; /* and reads */
    unsigned long reads;
} tl_self_t;

struct tl_self_group {
    int size;
    tl_self_t **eps;
};

static tl_self_group_t *self_group_current;

tl_self_group_t *tl_self_group_create(int size)
{
    tl_self_group_t *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->size = size;
    g->eps = calloc((size_t)size, sizeof(*g->eps));
    if (!g->eps) {
        free(g);
        return NULL;
    }
    self_group_current = g;
    return g;
}

void tl_self_group_select(tl_self_group_t *g)
{
    self_group_current = g;
}

void tl_self_group_destroy(tl_self_group_t *g)
{
    if (self_group_current == g)
        self_group_current = NULL;
    free(g->eps);
    free(g);
}

static int self_open(const tl_params_t *params, const tl_callbacks_t *cb, tl_t **tl_p)
{
    tl_self_group_t *g = self_group_current;
    tl_self_t *t;

    if (!g || params->rank < 0 || params->rank >= g->size || params->size != g->size)
        return UT_ERR_INVALID_PARAM;
    t = calloc(1, sizeof(*t));
    if (!t)
        return UT_ERR_NO_MEMORY;
    t->super.ops = &tl_self_ops;
    t->super.caps.name = "self";
    t->super.caps.read_max = SIZE_MAX;
    t->super.caps.version = 1;
    t->super.caps.inject_size = 64;
    t->super.caps.send_copies = 1; /* self_send copies into its event */
    t->super.caps.max_msg = params->min_fifo_free ? params->min_fifo_free : 65536;
    t->super.caps.max_write = 1 << 20; /* small, so chunking is exercised */
    t->super.caps.notify_bytes = 4;
    t->super.caps.fd = -1;
    t->super.caps.fifo_bytes = 1 << 20;
    t->super.caps.fifo_slot = 0;
    t->cb = *cb;
    t->group = g;
    t->rank = params->rank;
    t->next_key = 0x1000;
    ut_list_init(&t->events);
    ut_list_init(&t->mrs);
    g->eps[params->rank] = t;
    *tl_p = &t->super;
    return UT_OK;
}

static void self_close(tl_t *tl)
{
    tl_self_t *t = (tl_self_t *)tl;
    ut_list_t *e, *tmp;

    ut_list_for_each_safe(e, tmp, &t->events) free(ut_container_of(e, self_event_t, link));
    ut_list_for_each_safe(e, tmp, &t->mrs) free(ut_container_of(e, struct tl_mr, link));
    if (t->group && t->group->eps[t->rank] == t)
        t->group->eps[t->rank] = NULL;
    free(t);
}

static int self_get_addr(tl_t *tl, void *buf, size_t *len_p)
{
    tl_self_t *t = (tl_self_t *)tl;
    if (*len_p < sizeof(int))
        return UT_ERR_INVALID_PARAM;
    memcpy(buf, &t->rank, sizeof(int));
    *len_p = sizeof(int);
    return UT_OK;
}

static int self_connect(tl_t *tl, const void *addrs, size_t addrlen)
{
    (void)tl;
    (void)addrs;
    (void)addrlen;
    return UT_OK;
}

static int self_reg(tl_t *tl, void *buf, size_t len, int read_only, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    tl_self_t *t = (tl_self_t *)tl;
    tl_mr_t *m;

    if (t->fail_reg > 0) {
        t->fail_reg--;
        return t->fail_status;
    }
    m = malloc(sizeof(*m));
    if (!m)
        return UT_ERR_NO_MEMORY;
    m->buf = buf;
    m->len = len;
    m->key = t->next_key++;
    m->read_only = read_only;
    ut_list_push_back(&t->mrs, &m->link);
    rkey_p->addr = 0; /* offsets, like tcp */
    rkey_p->key = m->key;
    rkey_p->len = len;
    *mr_p = m;
    return UT_OK;
}

static int self_mem_reg(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return self_reg(tl, buf, len, 0, mr_p, rkey_p);
}

static int self_mem_reg_read(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return self_reg(tl, buf, len, 1, mr_p, rkey_p);
}

static void self_mem_dereg(tl_t *tl, tl_mr_t *mr)
{
    (void)tl;
    ut_list_del(&mr->link);
    free(mr);
}

static tl_self_t *self_peer(tl_self_t *t, int peer)
{
    if (peer < 0 || peer >= t->group->size)
        return NULL;
    return t->group->eps[peer];
}

static int self_queue(tl_self_t *dst, int kind, uint32_t data, const void *bytes, size_t len)
{
    self_event_t *ev = malloc(sizeof(*ev) + len);
    if (!ev)
        return UT_ERR_NO_MEMORY;
    ev->kind = kind;
    ev->data = data;
    ev->len = len;
    if (len)
        memcpy(ev->bytes, bytes, len);
    ut_list_push_back(&dst->events, &ev->link);
    return UT_OK;
}

static int self_send(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    tl_self_t *t = (tl_self_t *)tl;
    tl_self_t *dst = self_peer(t, peer);
    size_t total = 0, off = 0;
    self_event_t *ev;
    int i;

    (void)op_ctx;
    if (t->fail_send > 0) {
        t->fail_send--;
        return t->fail_status;
    }
    if (!dst)
        return UT_ERR_UNREACHABLE;
    for (i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (total > t->super.caps.max_msg)
        return UT_ERR_INVALID_PARAM;
    ev = malloc(sizeof(*ev) + total);
    if (!ev)
        return UT_ERR_NO_MEMORY;
    ev->kind = 0;
    ev->data = 0;
    ev->len = total;
    for (i = 0; i < iovcnt; i++) {
        memcpy(ev->bytes + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    ut_list_push_back(&dst->events, &ev->link);
    return UT_OK;
}

static int self_write(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey, uint64_t offset,
                      int notify, uint32_t data, void *op_ctx)
{
    tl_self_t *t = (tl_self_t *)tl;
    tl_self_t *dst = self_peer(t, peer);
    ut_list_t *e, *tmp;

    (void)op_ctx;
    if (t->fail_write > 0) {
        t->fail_write--;
        return t->fail_status;
    }
    if (!dst)
        return UT_ERR_UNREACHABLE;
    /* The target-side check a NIC makes: key known, access inside bounds. */
    ut_list_for_each_safe(e, tmp, &dst->mrs)
    {
        tl_mr_t *m = ut_container_of(e, tl_mr_t, link);
        if (m->key != rkey->key)
            continue;
        if (m->read_only || offset > m->len || len > m->len - offset)
            break;
        if (len)
            memcpy((char *)m->buf + offset, src, len);
        if (notify)
            return self_queue(dst, 1, data, NULL, 0);
        return UT_OK;
    }
    dst->rejected_writes++;
    ut_warn("self transport: rank %d refused a write from rank %d (key %#llx, offset %llu, len %zu)", dst->rank,
            t->rank, (unsigned long long)rkey->key, (unsigned long long)offset, len);
    return UT_ERR_PERM;
}

/* A read checks the owner's registration the same way (read-only ones). */
static int self_read(tl_t *tl, int peer, void *dst, size_t len, const tl_rkey_t *rkey, uint64_t offset)
{
    tl_self_t *t = (tl_self_t *)tl;
    tl_self_t *src = self_peer(t, peer);
    ut_list_t *e, *tmp;

    if (t->fail_read > 0) {
        t->fail_read--;
        return t->fail_read_status;
    }
    if (!src)
        return UT_ERR_UNREACHABLE;
    ut_list_for_each_safe (e, tmp, &src->mrs) {
        tl_mr_t *m = ut_container_of(e, tl_mr_t, link);
        if (m->key != rkey->key)
            continue;
        if (!m->read_only || offset > m->len || len > m->len - offset)
            break;
        if (len)
            memcpy(dst, (const char *)m->buf + offset, len);
        t->reads++;
        return UT_OK;
    }
    src->rejected_writes++;
    ut_warn("self transport: rank %d refused a read by rank %d (key %#llx, offset %llu, len %zu)", src->rank,
            t->rank, (unsigned long long)rkey->key, (unsigned long long)offset, len);
    return UT_ERR_PERM;
}

static int self_progress(tl_t *tl)
{
    tl_self_t *t = (tl_self_t *)tl;
    int n = 0;

    while (n < 16 && !ut_list_empty(&t->events)) {
        self_event_t *ev = ut_container_of(ut_list_pop_front(&t->events), self_event_t, link);
        if (ev->kind == 0)
            t->cb.recv(t->cb.arg, ev->bytes, ev->len);
        else
            t->cb.notify(t->cb.arg, ev->data);
        free(ev);
        n++;
    }
    return n;
}

void tl_self_inject_recv(tl_t *tl, const void *buf, size_t len)
{
    tl_self_t *t = (tl_self_t *)tl;
    t->cb.recv(t->cb.arg, buf, len);
}

void tl_self_fail_next(tl_t *tl, int nsend, int nwrite, int nreg, int status)
{
    tl_self_t *t = (tl_self_t *)tl;
    t->fail_send = nsend;
    t->fail_write = nwrite;
    t->fail_reg = nreg;
    t->fail_status = status;
}

void tl_self_fail_reads(tl_t *tl, int n, int status)
{
    ((tl_self_t *)tl)->fail_read = n;
    ((tl_self_t *)tl)->fail_read_status = status;
}

unsigned long tl_self_reads(tl_t *tl)
{
    return ((tl_self_t *)tl)->reads;
}

unsigned long tl_self_rejected_writes(tl_t *tl)
{
    return ((tl_self_t *)tl)->rejected_writes;
}

const tl_ops_t tl_self_ops = {
    .name = "self",
    .open = self_open,
    .close = self_close,
    .get_addr = self_get_addr,
    .connect = self_connect,
    .mem_reg = self_mem_reg,
    .mem_dereg = self_mem_dereg,
    .send = self_send,
    .write = self_write,
    .progress = self_progress,
    .mem_reg_read = self_mem_reg_read,
    .read = self_read,
};
