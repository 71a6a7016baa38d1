/*
 * mbcf/mbcf.c: remote write + memory-based FIFO over a transport, with
 * per-peer credits, per-peer FIFO sequence numbers (reordering across
 * multi-recv buffers) and a queue of operations the transport refused for
 * lack of resources (retried, in order, by mbcf_progress()).
 */
#include "mbcf/mbcf.h"

#include "util/log.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

#define MBCF_OP_SEND 1
#define MBCF_OP_WRITE 2
#define MBCF_REORDER_MAX 65536
#define MBCF_CHUNK_MAX ((size_t)1 << 30)

typedef struct mbcf_held {
    ut_list_t link;
    uint32_t seq;
    size_t len;
    char bytes[];
} mbcf_held_t;

typedef struct mbcf_peer {
    uint32_t tx_seq;         /* next FIFO seq to this peer */
    uint32_t rx_seq;         /* next FIFO seq expected from this peer */
    size_t tx_fifo;          /* FIFO units we may still fill at the peer */
    size_t tx_eager;         /* eager units we may still send */
    size_t rx_fifo_owed;     /* units drained here, not yet returned */
    size_t rx_eager_owed;    /* eager units consumed here, not yet returned */
    int credit_due;          /* an explicit CREDIT message must go out */
    int broken;              /* hard send error (ut status): FIFO to it is dead */
    int active;              /* on m->active (has queued ops) */
    ut_list_t active_link;
    ut_list_t pending;       /* ops waiting for credits or resources, in order */
    ut_list_t held;          /* out-of-order FIFO messages, by seq */
} mbcf_peer_t;

struct mbcf {
    tl_t *tl;
    int rank;
    int size;
    size_t eager_units;      /* per-peer budgets, in MBCF_CREDIT_UNIT */
    size_t fifo_units;
    size_t fifo_thr; /* owed FIFO / eager units that make a credit return due */
    size_t eager_thr;
    size_t credits;
    size_t fifo_credits;
    size_t chunk;
    mbcf_peer_t *peers;
    mbcf_handler_t handlers[MBCF_MAX_TYPES];
    void *handler_args[MBCF_MAX_TYPES];
    mbcf_notify_handler_t notify_fn;
    void *notify_arg;
    ut_list_t active;        /* peers with queued ops */
    ut_list_t free_ops;      /* pool of owned ops */
    unsigned nheld;
    int ncredit_due;
    mbcf_stats_t stats;
};

static void mbcf_recv_cb(void *arg, const void *buf, size_t len);
static void mbcf_notify_cb(void *arg, uint32_t data);
static void mbcf_tx_done_cb(void *arg, void *op_ctx, int status);
static void mbcf_credit_flush(mbcf_t *m, int peer);

const tl_caps_t *mbcf_caps(const mbcf_t *m)
{
    return &m->tl->caps;
}

const mbcf_stats_t *mbcf_stats(const mbcf_t *m)
{
    return &m->stats;
}

size_t mbcf_fifo_max(const mbcf_t *m)
{
    return m->tl->caps.max_msg - sizeof(mbcf_hdr_t);
}

size_t mbcf_write_chunk(const mbcf_t *m)
{
    return m->chunk;
}

void mbcf_tl_callbacks(mbcf_t *m, tl_callbacks_t *cb)
{
    cb->recv = mbcf_recv_cb;
    cb->notify = mbcf_notify_cb;
    cb->tx_done = mbcf_tx_done_cb;
    cb->arg = m;
}

static size_t units(size_t bytes)
{
    return (bytes + MBCF_CREDIT_UNIT - 1) / MBCF_CREDIT_UNIT;
}

/* FIFO units a message of n bytes (header included) occupies at the receiver. */
static size_t fifo_units(const mbcf_t *m, size_t n)
{
    return units(n < m->tl->caps.fifo_slot ? m->tl->caps.fifo_slot : n);
}

int mbcf_create(const mbcf_params_t *params, mbcf_t **m_p)
{
    mbcf_t *m;
    int i;

    m = calloc(1, sizeof(*m));
    if (!m)
        return UT_ERR_NO_MEMORY;
    m->peers = calloc((size_t)params->size, sizeof(*m->peers));
    if (!m->peers) {
        free(m);
        return UT_ERR_NO_MEMORY;
    }
    m->rank = params->rank;
    m->size = params->size;
    m->credits = params->credits;
    m->fifo_credits = params->fifo_credits;
    m->chunk = params->write_chunk;
    for (i = 0; i < params->size; i++) {
        ut_list_init(&m->peers[i].held);
        ut_list_init(&m->peers[i].pending);
        ut_list_init(&m->peers[i].active_link);
    }
    ut_list_init(&m->active);
    ut_list_init(&m->free_ops);
    *m_p = m;
    return UT_OK;
}

void mbcf_attach(mbcf_t *m, tl_t *tl)
{
    size_t fifo;
    int i;

    m->tl = tl;
    if (!m->chunk || m->chunk > tl->caps.max_write)
        m->chunk = tl->caps.max_write;
    if (m->chunk > MBCF_CHUNK_MAX)
        m->chunk = MBCF_CHUNK_MAX;
    /* Every peer's FIFO share together fits what the transport posted, less
     * room for a few explicit CREDIT messages each, so the provider never
     * has to buffer for us. */
    fifo = m->fifo_credits;
    if (!fifo && m->size > 1) {
        size_t reserve = 8 * (tl->caps.fifo_slot ? tl->caps.fifo_slot : MBCF_CREDIT_UNIT);
        fifo = tl->caps.fifo_bytes / (size_t)(m->size - 1);
        fifo = fifo > 2 * reserve ? fifo - reserve : fifo / 2;
    }
    m->fifo_units = units(fifo) ? fifo / MBCF_CREDIT_UNIT : 0;
    if (m->fifo_units < fifo_units(m, mbcf_fifo_max(m) + sizeof(mbcf_hdr_t)))
        m->fifo_units = fifo_units(m, mbcf_fifo_max(m) + sizeof(mbcf_hdr_t)); /* at least one largest message */
    if (m->fifo_units > 65535)
        m->fifo_units = 65535;
    m->eager_units = m->credits / MBCF_CREDIT_UNIT;
    if (m->eager_units > 65535)
        m->eager_units = 65535;
    for (i = 0; i < m->size; i++) {
        m->peers[i].tx_fifo = m->fifo_units;
        m->peers[i].tx_eager = m->eager_units;
    }
    /* A sender waiting to send the largest message has more than
     * fifo_units - big units unreturned: once we owe that much, return them
     * even below a quarter, or it waits forever when we send it nothing. */
    size_t big = fifo_units(m, mbcf_fifo_max(m) + sizeof(mbcf_hdr_t));
    m->fifo_thr = m->fifo_units / 4;
    if (m->fifo_units >= big && m->fifo_units - big + 1 < m->fifo_thr)
        m->fifo_thr = m->fifo_units - big + 1;
    if (!m->fifo_thr)
        m->fifo_thr = 1;
    m->eager_thr = m->eager_units / 4;
}

void mbcf_destroy(mbcf_t *m)
{
    ut_list_t *e, *tmp;
    int i;

    if (!m)
        return;
    for (i = 0; i < m->size; i++) {
        ut_list_for_each_safe(e, tmp, &m->peers[i].held) free(ut_container_of(e, mbcf_held_t, link));
        ut_list_for_each_safe(e, tmp, &m->peers[i].pending)
        {
            mbcf_op_t *op = ut_container_of(e, mbcf_op_t, link);
            ut_list_del(e);
            if (op->owned)
                free(op);
        }
    }
    ut_list_for_each_safe(e, tmp, &m->free_ops) free(ut_container_of(e, mbcf_op_t, link));
    free(m->peers);
    free(m);
}

void mbcf_set_handler(mbcf_t *m, int type, mbcf_handler_t fn, void *arg)
{
    if (type <= MBCF_TYPE_CREDIT || type >= MBCF_MAX_TYPES)
        return;
    m->handlers[type] = fn;
    m->handler_args[type] = arg;
}

void mbcf_set_notify_handler(mbcf_t *m, mbcf_notify_handler_t fn, void *arg)
{
    m->notify_fn = fn;
    m->notify_arg = arg;
}

/* ---------------------------------------------------------------- send */

static mbcf_op_t *mbcf_op_get(mbcf_t *m)
{
    ut_list_t *e = ut_list_pop_front(&m->free_ops);
    mbcf_op_t *op;

    if (e)
        return ut_container_of(e, mbcf_op_t, link);
    op = malloc(sizeof(*op));
    if (op)
        ut_list_init(&op->link);
    return op;
}

/*
 * A FIFO message that failed hard (not NO_RESOURCE) took a sequence number
 * the peer will never see: every later message to it would be held there
 * forever, waiting for the gap to fill. So the peer is marked broken: the
 * failure is reported once, and every queued and later operation towards it
 * fails with the same status instead of going out.
 */
static void mbcf_peer_break(mbcf_t *m, int peer, int status)
{
    mbcf_peer_t *p = &m->peers[peer];

    if (p->broken)
        return;
    p->broken = status;
    m->stats.broken_peers++;
    ut_error("FIFO to rank %d failed (%s): no further messages can be sent to it", peer,
             ut_status_str(status));
}

int mbcf_peer_status(const mbcf_t *m, int peer)
{
    if (peer < 0 || peer >= m->size)
        return UT_ERR_INVALID_PARAM;
    return m->peers[peer].broken ? m->peers[peer].broken : UT_OK;
}

static void mbcf_op_put(mbcf_t *m, mbcf_op_t *op)
{
    ut_list_push_front(&m->free_ops, &op->link);
}

static void mbcf_op_complete(mbcf_t *m, mbcf_op_t *op, int status)
{
    if (op->owned) {
        if (status != UT_OK)
            ut_error("control message to rank %d failed: %s", op->peer, ut_status_str(status));
        mbcf_op_put(m, op);
        return;
    }
    op->cb(op, status);
}

/* Put owed credits into a header about to leave. */
static void mbcf_hdr_credits(mbcf_peer_t *p, mbcf_hdr_t *h)
{
    size_t f = p->rx_fifo_owed < 65535 ? p->rx_fifo_owed : 65535;
    size_t e = p->rx_eager_owed < 65535 ? p->rx_eager_owed : 65535;

    h->fifo_cr = (uint16_t)f;
    h->eager_cr = (uint16_t)e;
    p->rx_fifo_owed -= f;
    p->rx_eager_owed -= e;
}

static void mbcf_hdr_uncredit(mbcf_peer_t *p, const mbcf_hdr_t *h)
{
    p->rx_fifo_owed += h->fifo_cr;
    p->rx_eager_owed += h->eager_cr;
}

/* Issue (or continue) an op on the transport. UT_OK: done; UT_INPROGRESS:
 * the transport will call back; UT_ERR_NO_RESOURCE: keep it queued
 * (transport busy or not enough FIFO credits). */
static int mbcf_op_issue(mbcf_t *m, mbcf_op_t *op)
{
    mbcf_peer_t *p = &m->peers[op->peer];
    int rc;

    if (p->broken)
        return p->broken;
    if (op->kind == MBCF_OP_SEND) {
        mbcf_hdr_t h;
        size_t cost = fifo_units(m, op->iov[0].iov_len + (op->iovcnt > 1 ? op->iov[1].iov_len : 0));

        if (p->tx_fifo < cost) {
            m->stats.credit_waits++;
            return UT_ERR_NO_RESOURCE;
        }
        memcpy(&h, op->inl, sizeof(h));
        mbcf_hdr_credits(p, &h);
        memcpy(op->inl, &h, sizeof(h));
        rc = tl_send(m->tl, op->peer, op->iov, op->iovcnt, op->tl_ctx);
        if (rc == UT_ERR_NO_RESOURCE) {
            mbcf_hdr_uncredit(p, &h);
            m->stats.retries++;
        } else if (rc == UT_OK || rc == UT_INPROGRESS) {
            p->tx_fifo -= cost;
        } else {
            mbcf_peer_break(m, op->peer, rc);
        }
        return rc;
    }

    /* Write: one chunk at a time; the transport reuses the op context. */
    do {
        size_t n = op->len - op->done_off;
        if (n > op->chunk)
            n = op->chunk;
        if (op->hint != TL_HINT_NONE)
            tl_hint(m->tl, op->hint);
        rc = tl_write(m->tl, op->peer, op->src + op->done_off, n, &op->rkey, op->offset + op->done_off,
                      op->notify, op->data, op->tl_ctx);
        if (op->hint != TL_HINT_NONE)
            tl_hint(m->tl, TL_HINT_NONE);
        if (rc == UT_OK || rc == UT_INPROGRESS) {
            op->done_off += n;
            m->stats.writes++;
        } else if (rc == UT_ERR_NO_RESOURCE) {
            m->stats.retries++;
        }
    } while (rc == UT_OK && op->done_off < op->len);
    return rc;
}

static void mbcf_queue(mbcf_t *m, mbcf_op_t *op)
{
    mbcf_peer_t *p = &m->peers[op->peer];

    ut_list_push_back(&p->pending, &op->link);
    if (!p->active) {
        p->active = 1;
        ut_list_push_back(&m->active, &p->active_link);
    }
}

/* Start an op now, or queue it behind the peer's earlier ones. */
static int mbcf_op_start(mbcf_t *m, mbcf_op_t *op)
{
    int rc;

    if (!ut_list_empty(&m->peers[op->peer].pending)) {
        mbcf_queue(m, op);
        return UT_INPROGRESS;
    }
    rc = mbcf_op_issue(m, op);
    if (rc == UT_ERR_NO_RESOURCE) {
        mbcf_queue(m, op);
        return UT_INPROGRESS;
    }
    return rc;
}

static void mbcf_build_hdr(mbcf_t *m, int peer, int type, size_t len, mbcf_hdr_t *h)
{
    h->version = MBCF_VERSION;
    h->type = (uint8_t)type;
    h->src = (uint16_t)m->rank;
    h->seq = type == MBCF_TYPE_CREDIT ? MBCF_SEQ_NONE : m->peers[peer].tx_seq++;
    h->len = (uint32_t)len;
    h->fifo_cr = 0;
    h->eager_cr = 0;
}

/* A FIFO message's op: header h, then the caller's header and payload
 * (copied into an owned op, referenced from the caller's). */
static void fifo_op_fill(mbcf_op_t *op, int peer, const mbcf_hdr_t *h, const void *hdr, size_t hdrlen,
                         const void *payload, size_t paylen)
{
    op->kind = MBCF_OP_SEND;
    op->peer = peer;
    memcpy(op->inl, h, sizeof(*h));
    if (hdrlen)
        memcpy(op->inl + sizeof(*h), hdr, hdrlen);
    op->hdrlen = sizeof(*h) + hdrlen;
    op->iov[0].iov_base = op->inl;
    op->iov[0].iov_len = op->hdrlen;
    op->iovcnt = 1;
    if (paylen) {
        if (op->owned) {
            memcpy(op->inl + op->hdrlen, payload, paylen);
            op->iov[0].iov_len += paylen;
        } else {
            op->iov[1].iov_base = (void *)payload;
            op->iov[1].iov_len = paylen;
            op->iovcnt = 2;
        }
    }
}

int mbcf_fifo_send(mbcf_t *m, int peer, int type, const void *hdr, size_t hdrlen, const void *payload,
                   size_t paylen, mbcf_op_t *op)
{
    mbcf_hdr_t h;
    int rc;

    if (type <= MBCF_TYPE_CREDIT || hdrlen + paylen > mbcf_fifo_max(m) ||
        (!op && hdrlen + paylen > MBCF_INLINE_MAX)) {
        ut_error("mbcf_fifo_send: message of type %d, %zu bytes refused", type, hdrlen + paylen);
        return UT_ERR_INVALID_PARAM;
    }
    if (m->peers[peer].broken)
        return m->peers[peer].broken; /* no seq taken: nothing is lost */
    if (op && m->tl->caps.send_copies) {
        mbcf_peer_t *p = &m->peers[peer];
        size_t cost = fifo_units(m, sizeof(h) + hdrlen + paylen);

        if (ut_list_empty(&p->pending) && p->tx_fifo >= cost) {
            /* Straight to the transport, which copies at once: the op
             * stays unused unless it must wait (what mbcf_op_issue does,
             * without building the op first). */
            struct iovec iov[3] = {{&h, sizeof(h)}, {(void *)hdr, hdrlen}, {(void *)payload, paylen}};

            mbcf_build_hdr(m, peer, type, hdrlen + paylen, &h);
            mbcf_hdr_credits(p, &h);
            m->stats.fifo_sent++;
            rc = tl_send(m->tl, peer, iov, paylen ? 3 : 2, NULL);
            if (rc == UT_OK) {
                p->tx_fifo -= cost;
                return UT_OK;
            }
            mbcf_hdr_uncredit(p, &h);
            h.fifo_cr = 0;
            h.eager_cr = 0;
            if (rc != UT_ERR_NO_RESOURCE) {
                mbcf_peer_break(m, peer, rc);
                return rc;
            }
            m->stats.retries++;
            op->owned = 0;
            fifo_op_fill(op, peer, &h, hdr, hdrlen, payload, paylen);
            mbcf_queue(m, op);
            return UT_INPROGRESS;
        }
    }
    if (!op) {
        op = mbcf_op_get(m);
        if (!op)
            return UT_ERR_NO_MEMORY;
        op->owned = 1;
    } else {
        op->owned = 0;
    }
    mbcf_build_hdr(m, peer, type, hdrlen + paylen, &h);
    fifo_op_fill(op, peer, &h, hdr, hdrlen, payload, paylen);
    m->stats.fifo_sent++;
    rc = mbcf_op_start(m, op);
    if (op->owned) {
        if (rc == UT_INPROGRESS)
            return UT_OK;
        mbcf_op_put(m, op);
    }
    return rc;
}

/* Explicit credit return: outside the ordered stream (MBCF_SEQ_NONE) and
 * exempt from FIFO credits, so returning credits can never wait for them. */
static void mbcf_credit_flush(mbcf_t *m, int peer)
{
    mbcf_peer_t *p = &m->peers[peer];
    mbcf_op_t *op;
    mbcf_hdr_t h;
    int rc;

    if (!p->credit_due)
        return;
    op = mbcf_op_get(m);
    if (!op)
        return;
    op->owned = 1;
    op->kind = MBCF_OP_SEND;
    op->peer = peer;
    mbcf_build_hdr(m, peer, MBCF_TYPE_CREDIT, 0, &h);
    mbcf_hdr_credits(p, &h);
    memcpy(op->inl, &h, sizeof(h));
    op->iov[0].iov_base = op->inl;
    op->iov[0].iov_len = sizeof(h);
    op->iovcnt = 1;
    rc = tl_send(m->tl, peer, op->iov, 1, op->tl_ctx);
    if (rc == UT_ERR_NO_RESOURCE) {
        mbcf_hdr_uncredit(p, &h);
        mbcf_op_put(m, op);
        return; /* retried by mbcf_progress */
    }
    p->credit_due = 0;
    m->ncredit_due--;
    m->stats.credit_msgs++;
    if (rc != UT_INPROGRESS)
        mbcf_op_complete(m, op, rc);
}

/* (thresholds: mbcf_attach) */
static inline __attribute__((always_inline)) void mbcf_credit_check(mbcf_t *m, int peer)
{
    mbcf_peer_t *p = &m->peers[peer];

    if (p->credit_due)
        return;
    if (p->rx_fifo_owed >= m->fifo_thr || p->rx_eager_owed >= m->eager_thr) {
        p->credit_due = 1;
        m->ncredit_due++;
        mbcf_credit_flush(m, peer);
    }
}

int mbcf_credits_take(mbcf_t *m, int peer, size_t n)
{
    mbcf_peer_t *p = &m->peers[peer];
    size_t u = units(n);

    if (p->tx_eager < u)
        return 0;
    p->tx_eager -= u;
    return 1;
}

void mbcf_credits_return(mbcf_t *m, int peer, size_t n)
{
    m->peers[peer].rx_eager_owed += units(n);
    mbcf_credit_check(m, peer);
}

/* --------------------------------------------------------------- write */

int mbcf_expose(mbcf_t *m, void *buf, size_t len, mbcf_region_t *r)
{
    return tl_mem_reg(m->tl, buf, len, &r->mr, &r->desc);
}

void mbcf_send_ahead(mbcf_t *m, int peer, size_t len)
{
    tl_send_ahead(m->tl, peer, sizeof(mbcf_hdr_t) + len);
}

int mbcf_can_read(const mbcf_t *m)
{
    return tl_can_read(m->tl);
}

int mbcf_expose_read(mbcf_t *m, void *buf, size_t len, mbcf_region_t *r)
{
    return tl_mem_reg_read(m->tl, buf, len, &r->mr, &r->desc);
}

int mbcf_read(mbcf_t *m, int peer, void *dst, size_t len, const tl_rkey_t *desc, uint64_t offset)
{
    if (offset > desc->len || len > desc->len - offset) {
        ut_error("mbcf_read: %zu bytes at offset %llu past a region of %llu bytes", len,
                 (unsigned long long)offset, (unsigned long long)desc->len);
        return UT_ERR_INVALID_PARAM;
    }
    if (!tl_can_read(m->tl))
        return UT_ERR_UNSUPPORTED;
    return tl_read(m->tl, peer, dst, len, desc, offset);
}

void mbcf_revoke(mbcf_t *m, mbcf_region_t *r)
{
    if (r->mr)
        tl_mem_dereg(m->tl, r->mr);
    r->mr = NULL;
}

int mbcf_write(mbcf_t *m, int peer, const void *src, size_t len, const tl_rkey_t *desc, uint64_t offset,
               size_t chunk, int notify, uint32_t data, mbcf_op_t *op)
{
    return mbcf_write_hint(m, peer, src, len, desc, offset, chunk, notify, data, TL_HINT_NONE, op);
}

int mbcf_write_hint(mbcf_t *m, int peer, const void *src, size_t len, const tl_rkey_t *desc, uint64_t offset,
                    size_t chunk, int notify, uint32_t data, int hint, mbcf_op_t *op)
{
    if (offset > desc->len || len > desc->len - offset) {
        ut_error("mbcf_write: %zu bytes at offset %llu past a region of %llu bytes", len,
                 (unsigned long long)offset, (unsigned long long)desc->len);
        return UT_ERR_INVALID_PARAM;
    }
    op->owned = 0;
    op->kind = MBCF_OP_WRITE;
    op->peer = peer;
    op->src = src;
    op->len = len;
    op->done_off = 0;
    op->rkey = *desc;
    op->offset = offset;
    op->notify = notify;
    op->data = data;
    op->hint = hint;
    op->chunk = chunk && chunk < m->chunk ? chunk : m->chunk;
    if (!op->chunk)
        op->chunk = len ? len : 1;
    return mbcf_op_start(m, op);
}

static void mbcf_tx_done_cb(void *arg, void *op_ctx, int status)
{
    mbcf_t *m = arg;
    mbcf_op_t *op = ut_container_of(op_ctx, mbcf_op_t, tl_ctx);
    int rc;

    if (status == UT_OK && op->kind == MBCF_OP_WRITE && op->done_off < op->len) {
        rc = mbcf_op_start(m, op);
        if (rc == UT_INPROGRESS)
            return;
        status = rc;
    }
    if (status != UT_OK && op->kind == MBCF_OP_SEND)
        mbcf_peer_break(m, op->peer, status);
    mbcf_op_complete(m, op, status);
}

/* ------------------------------------------------------------- receive */

static inline __attribute__((always_inline)) void mbcf_apply_credits(mbcf_t *m, const mbcf_hdr_t *h)
{
    mbcf_peer_t *p = &m->peers[h->src];

    if (p->tx_fifo + h->fifo_cr > m->fifo_units || p->tx_eager + h->eager_cr > m->eager_units) {
        ut_warn("rank %d returned more credits than it was given; clamped", h->src);
        m->stats.rejected++;
    }
    p->tx_fifo = p->tx_fifo + h->fifo_cr > m->fifo_units ? m->fifo_units : p->tx_fifo + h->fifo_cr;
    p->tx_eager = p->tx_eager + h->eager_cr > m->eager_units ? m->eager_units : p->tx_eager + h->eager_cr;
}

static inline __attribute__((always_inline)) void mbcf_deliver(mbcf_t *m, const mbcf_hdr_t *h,
                                                               const char *body)
{
    m->stats.fifo_recv++;
    m->handlers[h->type](m->handler_args[h->type], h->src, body, h->len);
    /* Its FIFO space is free again (the handler copied what it keeps). */
    m->peers[h->src].rx_fifo_owed += fifo_units(m, h->len + sizeof(*h));
    mbcf_credit_check(m, h->src);
}

static void mbcf_recv_cb(void *arg, const void *buf, size_t len)
{
    mbcf_t *m = arg;
    mbcf_peer_t *p;
    mbcf_hdr_t h;
    mbcf_held_t *held;
    ut_list_t *e, *tmp;

    if (len < sizeof(h))
        goto reject;
    memcpy(&h, buf, sizeof(h));
    if (h.version != MBCF_VERSION || h.len != len - sizeof(h) || h.src >= m->size || h.src == m->rank ||
        h.type >= MBCF_MAX_TYPES || (h.type != MBCF_TYPE_CREDIT && !m->handlers[h.type]))
        goto reject;
    if (h.type == MBCF_TYPE_CREDIT) {
        if (h.seq != MBCF_SEQ_NONE || h.len)
            goto reject;
        mbcf_apply_credits(m, &h);
        return;
    }
    p = &m->peers[h.src];
    if (h.seq == p->rx_seq) {
        p->rx_seq++;
        mbcf_apply_credits(m, &h);
        mbcf_deliver(m, &h, (const char *)buf + sizeof(h));
        /* Deliver what was waiting for this one. */
        while (!ut_list_empty(&p->held)) {
            held = ut_container_of(p->held.next, mbcf_held_t, link);
            if (held->seq != p->rx_seq)
                break;
            ut_list_del(&held->link);
            m->nheld--;
            p->rx_seq++;
            memcpy(&h, held->bytes, sizeof(h));
            mbcf_apply_credits(m, &h);
            mbcf_deliver(m, &h, held->bytes + sizeof(h));
            free(held);
        }
        return;
    }
    if ((int32_t)(h.seq - p->rx_seq) < 0 || h.seq == MBCF_SEQ_NONE || m->nheld >= MBCF_REORDER_MAX)
        goto reject;
    /* Ahead of order: keep a copy, sorted by seq. */
    held = malloc(sizeof(*held) + len);
    if (!held)
        goto reject;
    held->seq = h.seq;
    held->len = len;
    memcpy(held->bytes, buf, len);
    ut_list_for_each_safe(e, tmp, &p->held)
    {
        mbcf_held_t *x = ut_container_of(e, mbcf_held_t, link);
        if (x->seq == h.seq) {
            free(held);
            goto reject;
        }
        if ((int32_t)(x->seq - h.seq) > 0)
            break;
    }
    ut_list_insert_between(&held->link, e->prev, e);
    m->nheld++;
    return;

reject:
    m->stats.rejected++;
    ut_warn("dropped a malformed FIFO message (%zu bytes)", len);
}

static void mbcf_notify_cb(void *arg, uint32_t data)
{
    mbcf_t *m = arg;
    m->stats.notifies++;
    if (m->notify_fn)
        m->notify_fn(m->notify_arg, data);
}

/* ------------------------------------------------------------ progress */

int mbcf_progress(mbcf_t *m)
{
    ut_list_t *e, *tmp;
    int n = tl_progress(m->tl), i;

    if (m->ncredit_due)
        for (i = 0; i < m->size; i++)
            if (m->peers[i].credit_due)
                mbcf_credit_flush(m, i);
    ut_list_for_each_safe(e, tmp, &m->active)
    {
        mbcf_peer_t *p = ut_container_of(e, mbcf_peer_t, active_link);
        while (!ut_list_empty(&p->pending)) {
            mbcf_op_t *op = ut_container_of(p->pending.next, mbcf_op_t, link);
            int rc = mbcf_op_issue(m, op);
            if (rc == UT_ERR_NO_RESOURCE)
                break;
            ut_list_del(&op->link);
            n++;
            if (rc == UT_INPROGRESS)
                continue;
            mbcf_op_complete(m, op, rc);
        }
        if (ut_list_empty(&p->pending)) {
            ut_list_del(&p->active_link);
            p->active = 0;
        }
    }
    return n;
}
