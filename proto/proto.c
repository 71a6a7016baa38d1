/*
 * proto/proto.c: matching and the two protocols of MPI/MBCF.
 *
 * Every MPI message from rank a to rank b has a sequence number seq, counted
 * per (a, b) pair over all communicators. It travels in one of three ways:
 *
 *   EAGER  FIFO message with envelope + payload (payload <= eager limit and
 *          the sender holds enough credits). Unmatched, it is copied to the
 *          unexpected queue; credits return when it is consumed.
 *   RTS    FIFO envelope only; the receiver answers CTS with an exposed
 *          region when it matches; the sender writes with notify. Where the
 *          transport reads (mbshm with process_vm_readv; MBMPI_RTS_READ),
 *          the RTS also names the payload, exposed read-only
 *          (mbcf_expose_read): the receiver copies it itself as soon as it
 *          matches and answers CTS_READ_DONE, which completes the send. No
 *          round trip to the sender before the data moves, and one copy on
 *          the receiver's CPU: with more ranks than CPUs a sender that lost
 *          its CPU no longer holds up the receivers (flat Bcast of 64 KiB at
 *          P = 8 on 2 CPUs: nearly every send was an RTS). A read the
 *          transport refuses falls back to the CTS (the sender then writes).
 *          Not in the Promela model: it changes who copies, not the order
 *          or matching of messages.
 *   WRITE  the receiver posted first and sent REQ{seq, base, region}; the
 *          sender finds REQ.seq == its next seq and the envelope matching,
 *          writes the payload straight into the user buffer with a notify
 *          word (and a WDONE FIFO message when length or tag must be told).
 *
 * REQ rules (the chain): a receiver may have several REQs outstanding to one
 * sender, for consecutive seqs rx_next .. rx_next+n-1; REQ(s) assumes every
 * message in [base, s) also goes through its REQ. A receive gets a REQ only
 * if it has a named source, no older ANY_SOURCE receive is pending in its
 * communicator, and every older pending receive for that source in that
 * communicator already has one (so it is the receive MPI matching would pick
 * for message s). The sender arms REQ(s) only if s == tx_next + armed and
 * base > last seq it sent through the FIFO; whenever a message does not use
 * the head REQ (envelope mismatch, eager mode, or sent before REQ arrived) it
 * goes through the FIFO and every armed REQ to that peer is dropped.
 *
 * Conflict (the paper's Fig. 6): when the receiver sees a FIFO message q
 * from a peer, every REQ it has outstanding there with seq >= q is dead:
 * the sender dropped them when it sent q. Their regions are revoked, the
 * receives stay posted, and REQs are issued again for the receives that still
 * qualify. FIFO messages that arrive while an earlier message is still to be
 * written (seq > rx_next) wait in a hold list, so matching order is MPI's.
 *
 * Cancel of a receive with a REQ out: CANCEL(seq) to the sender, which
 * disarms REQ(seq) (and the rest of the chain) if still armed and answers
 * CANCEL_ACK; if it already wrote, the receive completes normally.
 *
 * Cancel of a send: one that still waits for its CTS sends SCANCEL(sreq);
 * the receiver drops the RTS if it is still unmatched in its unexpected
 * queue and answers SCANCEL_ACK(1), the send then completes as cancelled;
 * otherwise (matched: its CTS is on the way; or still held behind an
 * earlier message) it answers 0 and the send completes normally. An eager
 * send, complete here, is reopened (PS_CANCELING) and asks the same by its
 * seq: the receiver drops the message if it is still unexpected (and
 * returns its credits). A self send still unreceived is taken out of the
 * queue at once. (MPI 3.1 3.8.4: either the cancel or the communication
 * succeeds, not both.) Not in the Promela model, like the matched probe.
 *
 * Matched probe (MPI_Mprobe): proto_improbe takes a message out of the
 * unexpected queue, exactly as a receive posted then would match it, and
 * proto_imrecv later consumes it with the same code (copy the eager payload
 * and return its credits, or answer the RTS with a CTS, or finish a self
 * send). Messages on the write path or in a hold list are never in that
 * queue, so none is taken half-way; for the protocol an mprobed RTS is a
 * receive posted late. (The Promela model does not include it.)
 *
 * Model of these rules: proto/model/proto.pml (spin; `make verify`, see
 * proto/model/README), with the planted-bug check proto/model/planted.sh.
 */
#include "proto/proto.h"

#include "util/copy.h"
#include "util/log.h"
#include "util/status.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
    PROTO_T_EAGER = 1,
    PROTO_T_RTS,
    PROTO_T_REQ,
    PROTO_T_CTS,
    PROTO_T_WDONE,
    PROTO_T_CANCEL,
    PROTO_T_CANCEL_ACK,
    PROTO_T_SCANCEL,
    PROTO_T_SCANCEL_ACK,
};

enum {
    PR_IDLE = 0,
    /* receive */
    PR_POSTED,      /* in the posted list (maybe with a REQ out) */
    PR_WAIT_DATA,   /* matched an RTS (or REQ used): waiting for writes */
    PR_WAIT_EXPOSE, /* matched an RTS; its buffer waits for a registration (expose_wait) */
    PR_CANCELING,   /* removed from matching, REQ being withdrawn */
    /* send */
    PS_WAIT_CTS,
    PS_WRITING,
    PS_EAGER,
    PS_SELF,      /* self rendezvous: waits for a local receive */
    PS_CANCELING, /* an eager send being cancelled: waits for SCANCEL_ACK */
    P_DONE,
};

/* ---- wire formats (after the mbcf header), read with memcpy ---- */
/* An EAGER message: this, then the payload, whose length is the message's
 * less this (mbcf's header tells it). With mbcf's header and mbshm's, a
 * payload of up to 16 bytes fits one 64-byte ring line (it was 8 with a
 * length field here: 12-16 B took 0.47 us half round trip against 0.38). */
typedef struct proto_eager {
    uint32_t ctx;
    int32_t tag;
    int32_t src;
    uint32_t seq;
} proto_eager_t;
_Static_assert(sizeof(proto_eager_t) == 16, "eager envelope");

/* An RTS's envelope: the message's length travels with it. */
typedef struct proto_env {
    uint32_t ctx;
    int32_t tag;
    int32_t src;
    uint32_t seq;
    uint64_t len;
} proto_env_t;
_Static_assert(sizeof(proto_env_t) == 24, "rts envelope");

typedef struct proto_rts {
    proto_env_t env;
    uint64_t sreq;
    uint32_t sync;
    uint32_t flags; /* RTS_READ: rkey names the payload, exposed for the receiver to read */
    tl_rkey_t rkey;
} proto_rts_t;
_Static_assert(sizeof(proto_rts_t) == 64, "rts");

#define RTS_READ 1u

typedef struct proto_reqmsg {
    uint32_t ctx;
    int32_t tag;
    uint32_t seq;
    uint32_t base;
    uint32_t notify;
    uint32_t pad;
    uint64_t chunk;
    tl_rkey_t rkey;
} proto_reqmsg_t;
_Static_assert(sizeof(proto_reqmsg_t) == 56, "req");

typedef struct proto_cts {
    uint64_t sreq;
    uint32_t notify;
    uint32_t flags;          /* CTS_REFUSED: the receiver could not expose its buffer */
    uint64_t chunk;
    tl_rkey_t rkey;
} proto_cts_t;
_Static_assert(sizeof(proto_cts_t) == 48, "cts");

typedef struct proto_wdone {
    uint32_t notify;
    uint32_t seq;
    int32_t tag;
    uint32_t chunks;
    uint64_t len;
} proto_wdone_t;
_Static_assert(sizeof(proto_wdone_t) == 24, "wdone");

typedef struct proto_scancel_msg {
    uint64_t sreq;  /* the sender's id of the send (echoed by the ACK) */
    uint32_t seq;   /* the message's seq (eager) */
    uint8_t eager;  /* 1: find the eager message by seq; 0: the RTS by sreq */
    uint8_t result; /* ACK: 1 cancelled (the message was dropped), 0 not */
    uint16_t pad;
} proto_scancel_msg_t;
_Static_assert(sizeof(proto_scancel_msg_t) == 16, "scancel");

typedef struct proto_cancel_msg {
    uint32_t seq;
    uint32_t notify;
    uint32_t result;
    uint32_t pad;
} proto_cancel_msg_t;

#define CTS_REFUSED 1u
#define CTS_READ_DONE 2u /* the receiver read the payload (RTS_READ): the send is complete */

enum { CANCEL_DISARMED = 0, CANCEL_NOT_USED = 1, CANCEL_USED = 2 };

/* notify word: slot (20 bits) | generation (11 bits) | exact (1 bit) */
#define NW_SLOT_BITS 20
#define NW_MAX_SLOTS (1u << NW_SLOT_BITS)
#define NW_EXACT 1u

/* ---- local structures ---- */
/* An unexpected message's payload up to this size lives in its entry, and
 * entries are recycled (up to UNEXP_FREE_MAX): a small unexpected message
 * costs no malloc. Larger eager payloads (up to the eager limit) go to
 * buffers of the eager limit's size, recycled too (up to UNEXP_BIG_MAX):
 * no malloc for them either once the pool has grown. */
#define UNEXP_INLINE 256
#define UNEXP_FREE_MAX 1024
#define UNEXP_BIG_MAX 64
typedef struct proto_unexp {
    ut_list_t link;
    int kind;                /* PROTO_T_EAGER / PROTO_T_RTS / self */
    int peer;
    int src;
    int tag;
    uint32_t ctx;
    size_t len;
    uint64_t sreq;
    int sync;
    uint32_t rflags;         /* RTS: its flags (RTS_READ) */
    tl_rkey_t rkey;          /* RTS_READ: the sender's payload */
    size_t credits;          /* eager bytes to return on consumption */
    uint32_t seq;            /* eager: the message's seq (self: a local count), for a cancel */
    proto_req_t *self_sreq;  /* self rendezvous */
    int big;                 /* data is an eager-limit buffer of the pool */
    char *data;              /* inl, a pool buffer, or malloc'ed when longer */
    char inl[UNEXP_INLINE];
} proto_unexp_t;

#define UNEXP_SELF 100

typedef struct proto_armed {
    uint32_t seq;
    uint32_t ctx;
    int32_t tag;
    uint32_t notify;
    uint64_t chunk;
    tl_rkey_t rkey;
} proto_armed_t;

typedef struct proto_held {
    ut_list_t link;
    int type;
    uint32_t seq;
    size_t len;
    char bytes[];
} proto_held_t;

#define USED_RING 64

typedef struct proto_peer {
    /* receiver side */
    uint32_t rx_next;
    ut_list_t reqs_out;      /* receives with a REQ outstanding, by seq */
    int nreq_out;
    ut_list_t hold;
    int nhold;
    /* sender side */
    uint32_t tx_next;
    int fifo_sent;           /* any message went through the FIFO */
    uint32_t last_fifo;
    proto_armed_t *armed;    /* ring of req_max */
    int armed_head;
    int narmed;
    uint32_t used[USED_RING]; /* recent seqs sent through a REQ (cancel) */
    int req_win;             /* REQs we may have out: doubles on use, 1 after a conflict */
    int req_backoff;         /* after repeated conflicts: FIFO messages to let pass ... */
    int req_skip;            /* ... before the next REQ to this peer */
    int nused;
} proto_peer_t;

typedef struct proto_slot {
    proto_req_t *req;
    uint32_t gen;
} proto_slot_t;

struct proto {
    mbcf_t *m;
    proto_params_t prm;
    proto_peer_t *peers;
    ut_list_t posted;
    ut_list_t expose_wait; /* PR_WAIT_EXPOSE receives, in match order (rts_expose_cts) */
    ut_list_t unexp;
    ut_list_t unexp_free; /* recycled proto_unexp_t entries */
    int nunexp_free;
    char *big_free[UNEXP_BIG_MAX]; /* recycled eager-limit payload buffers */
    int nbig_free;
    proto_slot_t *slots;     /* receive exposures */
    int nslots;
    int *free_slots;
    int nfree_slots;
    proto_slot_t *sslots;    /* sends waiting for CTS */
    int nsslots;
    int *free_sslots;
    int nfree_sslots;
    uint32_t scan_gen;
    int nposted_req;         /* posted receives with req_able: none, and no scan can issue a REQ */
    uint32_t self_seq;       /* ids of eager self sends (cancel) */
    proto_stats_t stats;
};

static void proto_h_eager(void *arg, int src, const void *msg, size_t len);
/* What every FIFO message's path calls: inlined into it. */
#define PROTO_HOT static inline __attribute__((always_inline))
static void proto_h_rts(void *arg, int src, const void *msg, size_t len);
static void proto_h_req(void *arg, int src, const void *msg, size_t len);
static void proto_h_cts(void *arg, int src, const void *msg, size_t len);
static void proto_h_wdone(void *arg, int src, const void *msg, size_t len);
static void proto_h_cancel(void *arg, int src, const void *msg, size_t len);
static void proto_h_cancel_ack(void *arg, int src, const void *msg, size_t len);
static void proto_h_scancel(void *arg, int src, const void *msg, size_t len);
static void proto_h_scancel_ack(void *arg, int src, const void *msg, size_t len);
static void proto_h_notify(void *arg, uint32_t data);
static void proto_req_scan(proto_t *p, int peer);
static void proto_advance(proto_t *p, int peer);

const proto_stats_t *proto_stats(const proto_t *p)
{
    return &p->stats;
}

mbcf_t *proto_mbcf(proto_t *p)
{
    return p->m;
}

void proto_comm_init(proto_comm_t *pc, uint32_t ctx)
{
    pc->ctx = ctx;
    pc->any_pending = 0;
    pc->blocked_gen = 0;
    pc->nreq_able = 0;
    pc->seen_gen = 0;
    pc->seen = 0;
}

int proto_create(mbcf_t *m, const proto_params_t *params, proto_t **p_p)
{
    proto_t *p;
    int i;

    p = calloc(1, sizeof(*p));
    if (!p)
        return UT_ERR_NO_MEMORY;
    p->m = m;
    p->prm = *params;
    if (p->prm.req_max < 1)
        p->prm.req_max = 1;
    /* A cancel asks whether its seq went through a REQ: the sender keeps the
     * last USED_RING of them, so no more may be outstanding. */
    if (p->prm.req_max > USED_RING)
        p->prm.req_max = USED_RING;
    if (m && !p->prm.read_min)
        p->prm.read_min = mbcf_caps(m)->read_min;
    if (m && p->prm.eager_limit + sizeof(proto_eager_t) > mbcf_fifo_max(m))
        p->prm.eager_limit = mbcf_fifo_max(m) - sizeof(proto_eager_t);
    p->peers = calloc((size_t)params->size, sizeof(*p->peers));
    if (!p->peers)
        goto err_free;
    for (i = 0; i < params->size; i++) {
        ut_list_init(&p->peers[i].reqs_out);
        ut_list_init(&p->peers[i].hold);
        p->peers[i].req_win = 1;
        p->peers[i].armed = calloc((size_t)p->prm.req_max, sizeof(proto_armed_t));
        if (!p->peers[i].armed)
            goto err_free;
    }
    ut_list_init(&p->posted);
    ut_list_init(&p->expose_wait);
    ut_list_init(&p->unexp);
    ut_list_init(&p->unexp_free);
    if (m) {
        mbcf_set_handler(m, PROTO_T_EAGER, proto_h_eager, p);
        mbcf_set_handler(m, PROTO_T_RTS, proto_h_rts, p);
        mbcf_set_handler(m, PROTO_T_REQ, proto_h_req, p);
        mbcf_set_handler(m, PROTO_T_CTS, proto_h_cts, p);
        mbcf_set_handler(m, PROTO_T_WDONE, proto_h_wdone, p);
        mbcf_set_handler(m, PROTO_T_CANCEL, proto_h_cancel, p);
        mbcf_set_handler(m, PROTO_T_CANCEL_ACK, proto_h_cancel_ack, p);
        mbcf_set_handler(m, PROTO_T_SCANCEL, proto_h_scancel, p);
        mbcf_set_handler(m, PROTO_T_SCANCEL_ACK, proto_h_scancel_ack, p);
        mbcf_set_notify_handler(m, proto_h_notify, p);
    }
    *p_p = p;
    return UT_OK;

err_free:
    proto_destroy(p);
    return UT_ERR_NO_MEMORY;
}

/* A zeroed unexpected-message entry whose data holds len bytes (NULL when
 * out of memory). */
static proto_unexp_t *unexp_alloc(proto_t *p, size_t len)
{
    proto_unexp_t *u;

    if (!ut_list_empty(&p->unexp_free)) {
        u = ut_container_of(ut_list_pop_front(&p->unexp_free), proto_unexp_t, link);
        p->nunexp_free--;
        memset(u, 0, offsetof(proto_unexp_t, inl));
    } else if (!(u = calloc(1, sizeof(*u)))) {
        return NULL;
    }
    if (len <= UNEXP_INLINE) {
        u->data = u->inl;
    } else if (len <= p->prm.eager_limit) {
        u->big = 1;
        u->data = p->nbig_free ? p->big_free[--p->nbig_free] : malloc(p->prm.eager_limit);
    } else {
        u->data = malloc(len);
    }
    if (!u->data) {
        free(u);
        return NULL;
    }
    return u;
}

static void unexp_release(proto_t *p, proto_unexp_t *u)
{
    if (u->big && p->nbig_free < UNEXP_BIG_MAX)
        p->big_free[p->nbig_free++] = u->data;
    else if (u->data != u->inl)
        free(u->data);
    if (p->nunexp_free < UNEXP_FREE_MAX) {
        ut_list_push_front(&p->unexp_free, &u->link);
        p->nunexp_free++;
    } else {
        free(u);
    }
}

size_t proto_read_min(const proto_t *p)
{
    return p->prm.read_min;
}

void proto_set_read_min(proto_t *p, size_t read_min)
{
    p->prm.read_min = read_min ? read_min : 1;
}

void proto_destroy(proto_t *p)
{
    ut_list_t *e, *tmp;
    int i;

    if (!p)
        return;
    ut_list_for_each_safe(e, tmp, &p->unexp)
    {
        proto_unexp_t *u = ut_container_of(e, proto_unexp_t, link);
        if (u->data != u->inl)
            free(u->data);
        free(u);
    }
    ut_list_for_each_safe(e, tmp, &p->unexp_free) free(ut_container_of(e, proto_unexp_t, link));
    for (i = 0; i < p->nbig_free; i++)
        free(p->big_free[i]);
    for (i = 0; p->peers && i < p->prm.size; i++) {
        ut_list_for_each_safe(e, tmp, &p->peers[i].hold) free(ut_container_of(e, proto_held_t, link));
        free(p->peers[i].armed);
    }
    for (i = 0; i < p->nslots; i++)
        if (p->slots[i].req && p->slots[i].req->region.mr)
            mbcf_revoke(p->m, &p->slots[i].req->region);
    free(p->peers);
    free(p->slots);
    free(p->free_slots);
    free(p->sslots);
    free(p->free_sslots);
    free(p);
}

/* ------------------------------------------------------------ slots */

static int slot_table_grow(proto_slot_t **tab, int *n, int **freel, int *nfree)
{
    int nn = *n ? *n * 2 : 64, i;
    proto_slot_t *t;
    int *f;

    if ((unsigned)nn > NW_MAX_SLOTS)
        return UT_ERR_NO_RESOURCE;
    t = realloc(*tab, (size_t)nn * sizeof(*t));
    if (!t)
        return UT_ERR_NO_MEMORY;
    *tab = t;
    f = realloc(*freel, (size_t)nn * sizeof(*f));
    if (!f)
        return UT_ERR_NO_MEMORY;
    *freel = f;
    for (i = *n; i < nn; i++) {
        t[i].req = NULL;
        t[i].gen = 0;
    }
    for (i = nn - 1; i >= *n; i--)
        f[(*nfree)++] = i;
    *n = nn;
    return UT_OK;
}

static int slot_alloc(proto_slot_t **tab, int *n, int **freel, int *nfree, proto_req_t *r, int *slot_p)
{
    int s, rc;

    if (!*nfree) {
        rc = slot_table_grow(tab, n, freel, nfree);
        if (rc != UT_OK)
            return rc;
    }
    s = (*freel)[--(*nfree)];
    (*tab)[s].req = r;
    (*tab)[s].gen = ((*tab)[s].gen + 1) & 0x7ff;
    *slot_p = s;
    return UT_OK;
}

static void slot_free(proto_slot_t *tab, int *freel, int *nfree, int s)
{
    tab[s].req = NULL;
    freel[(*nfree)++] = s;
}

static uint32_t nw_make(proto_t *p, int slot)
{
    return ((uint32_t)slot << 12) | (p->slots[slot].gen << 1);
}

/* The receive a notify word names, or NULL when it names none. */
static proto_req_t *nw_lookup(proto_t *p, uint32_t nw)
{
    uint32_t slot = nw >> 12;
    if (slot >= (uint32_t)p->nslots || !p->slots[slot].req || p->slots[slot].gen != ((nw >> 1) & 0x7ff))
        return NULL;
    return p->slots[slot].req;
}

static uint64_t sreq_make(proto_t *p, int s)
{
    return ((uint64_t)p->sslots[s].gen << 32) | (uint32_t)s;
}

static proto_req_t *sreq_lookup(proto_t *p, uint64_t id)
{
    uint32_t s = (uint32_t)id;
    if (s >= (uint32_t)p->nsslots || !p->sslots[s].req || p->sslots[s].gen != (uint32_t)(id >> 32))
        return NULL;
    return p->sslots[s].req;
}

/* Expose r's buffer (first len bytes) for the peer and give it a slot. */
static int proto_expose(proto_t *p, proto_req_t *r, size_t len)
{
    int rc = slot_alloc(&p->slots, &p->nslots, &p->free_slots, &p->nfree_slots, r, &r->slot);
    if (rc != UT_OK)
        return rc;
    rc = mbcf_expose(p->m, r->buf, len, &r->region);
    if (rc != UT_OK) {
        slot_free(p->slots, p->free_slots, &p->nfree_slots, r->slot);
        r->slot = -1;
        r->region.mr = NULL;
    }
    return rc;
}

static void proto_unexpose(proto_t *p, proto_req_t *r)
{
    if (r->region.mr)
        mbcf_revoke(p->m, &r->region);
    if (r->slot >= 0)
        slot_free(p->slots, p->free_slots, &p->nfree_slots, r->slot);
    r->slot = -1;
}

/* ------------------------------------------------------- completion */

PROTO_HOT void proto_recv_complete(proto_t *p, proto_req_t *r)
{
    if (r->region.mr || r->slot >= 0)
        proto_unexpose(p, r);
    r->slot = -1;
    if (!r->cancelled && r->st_len > r->len)
        r->st_err = UT_ERR_TRUNCATED;
    r->state = P_DONE;
    r->done = 1;
}

static void proto_send_complete(proto_t *p, proto_req_t *r, int status)
{
    if (r->region.mr)
        mbcf_revoke(p->m, &r->region); /* an RTS_READ's payload, if still exposed */
    if (r->sreq_id != UINT64_MAX) {
        slot_free(p->sslots, p->free_sslots, &p->nfree_sslots, (int)(uint32_t)r->sreq_id);
        r->sreq_id = UINT64_MAX;
    }
    r->st_err = status;
    r->state = P_DONE;
    r->done = 1;
}

/* A send's eager FIFO message or payload write completed locally. */
static void proto_send_op_cb(mbcf_op_t *op, int status)
{
    proto_req_t *r = ut_container_of(op, proto_req_t, op);

    r->st_err = status;
    if (r->canceling) { /* a cancel is asking the receiver: done with its answer */
        r->state = PS_CANCELING;
        return;
    }
    r->state = P_DONE;
    r->done = 1;
}

/* ---------------------------------------------------------- matching */

PROTO_HOT int tag_match(int want, int have)
{
    return want == have || (want == PROTO_ANY && have >= 0);
}

/* A named-source receive takes only messages from its peer (world rank): a
 * FIFO message from another rank claiming that source must not complete it
 * (it may have a REQ out to the real peer). */
PROTO_HOT proto_req_t *match_posted(proto_t *p, int peer, uint32_t ctx, int src, int tag)
{
    ut_list_t *e, *tmp;

    ut_list_for_each_safe(e, tmp, &p->posted)
    {
        proto_req_t *r = ut_container_of(e, proto_req_t, link);
        if (r->ctx == ctx && ((r->src == src && r->peer == peer) || r->src == PROTO_ANY) && tag_match(r->tag, tag))
            return r;
    }
    return NULL;
}

PROTO_HOT void posted_remove(proto_t *p, proto_req_t *r)
{
    ut_list_del(&r->link);
    if (r->req_able) {
        r->req_able = 0;
        p->nposted_req--;
        r->comm->nreq_able--;
    }
    if (r->src == PROTO_ANY && r->comm)
        r->comm->any_pending--;
}

/* Copy a matched eager payload into the receive and complete it. */
PROTO_HOT void deliver_eager(proto_t *p, proto_req_t *r, int peer, int src, int tag, const char *data,
                             size_t len)
{
    ut_copy(r->buf, data, len < r->len ? len : r->len);
    r->st_src = src;
    r->st_peer = peer;
    r->st_tag = tag;
    r->st_len = len;
    proto_recv_complete(p, r);
}

/* Chunks a write of len bytes takes (no overflow for huge chunk sizes). */
static uint32_t nchunks(size_t len, size_t chunk)
{
    return (uint32_t)(len / chunk + (len % chunk != 0));
}

static size_t eager_cost(size_t len)
{
    return len + sizeof(proto_eager_t) + sizeof(mbcf_hdr_t);
}

/*
 * The write path of an RTS's answer: expose r's buffer and send the CTS.
 * When the transport has no registration left (mbshm's table holds 16384:
 * 20000 small Isends past the eager credits each came as an RTS, and the
 * receives past the table's size failed, and their sends with them), r
 * waits in expose_wait, in match order, until completed receives give
 * registrations back (proto_progress retries); a sender only waits longer
 * for its CTS. Other failures refuse the send (CTS_REFUSED).
 */
static void rts_expose_cts(proto_t *p, proto_req_t *r, uint64_t sreq)
{
    size_t wlen = r->st_len < r->len ? r->st_len : r->len;
    proto_cts_t cts = {0};
    int rc;

    cts.sreq = sreq;
    cts.chunk = mbcf_write_chunk(p->m);
    if (wlen) {
        rc = proto_expose(p, r, wlen);
        if (rc == UT_ERR_NO_RESOURCE) {
            r->state = PR_WAIT_EXPOSE;
            r->wait_sreq = sreq;
            ut_list_push_back(&p->expose_wait, &r->link);
            return;
        }
        if (rc != UT_OK) {
            /* Tell the sender (CTS_REFUSED) so it does not wait forever. */
            ut_error("exposing a %zu-byte receive buffer failed: %s", wlen, ut_status_str(rc));
            cts.flags = CTS_REFUSED;
            mbcf_fifo_send(p->m, r->peer, PROTO_T_CTS, &cts, sizeof(cts), NULL, 0, NULL);
            r->st_err = rc;
            proto_recv_complete(p, r);
            return;
        }
        r->chunks_expected = nchunks(wlen, mbcf_write_chunk(p->m));
        cts.notify = nw_make(p, r->slot);
        cts.rkey = r->region.desc;
    } else {
        /* Nothing to write: the sender answers with WDONE only. */
        rc = slot_alloc(&p->slots, &p->nslots, &p->free_slots, &p->nfree_slots, r, &r->slot);
        if (rc != UT_OK) {
            r->st_err = rc;
            proto_recv_complete(p, r);
            return;
        }
        r->chunks_expected = 0;
        cts.notify = nw_make(p, r->slot);
    }
    r->state = PR_WAIT_DATA;
    rc = mbcf_fifo_send(p->m, r->peer, PROTO_T_CTS, &cts, sizeof(cts), NULL, 0, NULL);
    if (rc != UT_OK) {
        r->st_err = rc;
        proto_recv_complete(p, r);
    }
}

/* Retry the exposures that waited for a registration, oldest first; stop
 * at the first that still cannot have one. */
static int expose_wait_retry(proto_t *p)
{
    int n = 0;

    while (!ut_list_empty(&p->expose_wait)) {
        proto_req_t *r = ut_container_of(p->expose_wait.next, proto_req_t, link);

        ut_list_del(&r->link);
        rts_expose_cts(p, r, r->wait_sreq);
        if (r->state == PR_WAIT_EXPOSE) {
            /* still none: back to the head, keeping the order */
            ut_list_del(&r->link);
            ut_list_push_front(&p->expose_wait, &r->link);
            break;
        }
        n++;
    }
    return n;
}

/* Answer an RTS that matched r: read the payload where the sender exposed
 * it for that (RTS_READ; the CTS then only tells it the send is done),
 * else expose and send CTS. */
static void answer_rts(proto_t *p, proto_req_t *r, int peer, int src, int tag, size_t len, uint64_t sreq,
                       uint32_t rflags, const tl_rkey_t *rkey)
{
    size_t wlen = len < r->len ? len : r->len;
    proto_cts_t cts = {0};
    int rc;

    r->state = PR_WAIT_DATA;
    r->peer = peer;
    r->st_peer = peer;
    r->st_src = src;
    r->st_tag = tag;
    r->st_len = len;
    r->chunks_got = 0;
    r->wdone = 0;
    r->resolved = 1;
    r->rts_path = 1;
    cts.sreq = sreq;
    cts.chunk = mbcf_write_chunk(p->m);
    if (rflags & RTS_READ) {
        rc = wlen ? mbcf_read(p->m, peer, r->buf, wlen, rkey, 0) : UT_OK;
        if (rc == UT_OK) {
            p->stats.rts_reads++;
            cts.flags = CTS_READ_DONE;
            rc = mbcf_fifo_send(p->m, peer, PROTO_T_CTS, &cts, sizeof(cts), NULL, 0, NULL);
            if (rc != UT_OK)
                r->st_err = rc;
            proto_recv_complete(p, r);
            return;
        }
        /* not from this peer (or refused): the sender writes instead */
        if (rc != UT_ERR_UNSUPPORTED)
            ut_warn("reading a %zu-byte message from rank %d failed (%s); asking it to write", wlen, peer,
                    ut_status_str(rc));
    }
    rts_expose_cts(p, r, sreq);
}

/* A FIFO message (eager or RTS) whose turn has come: match or queue it. */
static void process_fifo_msg(proto_t *p, int peer, int type, const char *msg, size_t len)
{
    proto_env_t env;
    proto_rts_t rts;
    proto_req_t *r;
    proto_unexp_t *u;
    const char *data = NULL;

    /* (validated by the handler) */
    if (type == PROTO_T_EAGER) {
        proto_eager_t e;

        memcpy(&e, msg, sizeof(e));
        env.ctx = e.ctx;
        env.tag = e.tag;
        env.src = e.src;
        env.seq = e.seq;
        env.len = len - sizeof(e);
        data = msg + sizeof(e);
    } else {
        memcpy(&rts, msg, sizeof(rts));
        env = rts.env;
    }
    r = match_posted(p, peer, env.ctx, env.src, env.tag);
    if (r) {
        posted_remove(p, r);
        if (type == PROTO_T_EAGER) {
            deliver_eager(p, r, peer, env.src, env.tag, data, (size_t)env.len);
            mbcf_credits_return(p->m, peer, eager_cost((size_t)env.len));
        } else {
            answer_rts(p, r, peer, env.src, env.tag, (size_t)env.len, rts.sreq, rts.flags, &rts.rkey);
        }
        return;
    }
    u = unexp_alloc(p, type == PROTO_T_EAGER ? (size_t)env.len : 0);
    if (!u) {
        ut_error("out of memory queueing an unexpected message");
        return;
    }
    u->kind = type;
    u->peer = peer;
    u->src = env.src;
    u->tag = env.tag;
    u->ctx = env.ctx;
    u->len = (size_t)env.len;
    if (type == PROTO_T_EAGER) {
        u->seq = env.seq;
        u->credits = eager_cost(u->len);
        if (u->len)
            memcpy(u->data, data, u->len);
    } else {
        u->sreq = rts.sreq;
        u->sync = (int)rts.sync;
        u->rflags = rts.flags;
        u->rkey = rts.rkey;
    }
    p->stats.unexpected_msgs++;
    p->stats.unexpected_bytes += u->len;
    ut_list_push_back(&p->unexp, &u->link);
}

/* ------------------------------------------------------ REQ chain (rx) */

/* REQs to peer with seq >= q are dead (the sender dropped them). */
static void kill_reqs_from(proto_t *p, int peer, uint32_t q)
{
    proto_peer_t *pp = &p->peers[peer];
    ut_list_t *e, *tmp;

    ut_list_for_each_safe(e, tmp, &pp->reqs_out)
    {
        proto_req_t *r = ut_container_of(e, proto_req_t, link_req);
        if ((int32_t)(r->seq - q) < 0)
            continue;
        ut_list_del(&r->link_req);
        pp->nreq_out--;
        r->req_out = 0;
        pp->req_win = 1;
        /* A receive waiting behind many other messages would otherwise get a
         * fresh REQ (and registration) for each of them. */
        pp->req_backoff = pp->req_backoff < 512 ? pp->req_backoff * 2 + 1 : 1024;
        pp->req_skip = pp->req_backoff;
        p->stats.req_killed++;
        if (r->resolved) {
            /* Cannot happen with a correct peer: it wrote for a seq it also sent. */
            ut_error("rank %d used REQ %u and sent message %u through the FIFO", peer, r->seq, q);
            p->stats.rejected++;
            continue;
        }
        proto_unexpose(p, r);
        if (r->state == PR_CANCELING) {
            r->cancelled = 1;
            proto_recv_complete(p, r);
        } else {
            /* back to plain matching, keeping its place in post order */
            r->state = PR_POSTED;
        }
    }
}

static int req_issue(proto_t *p, proto_req_t *r, int peer)
{
    proto_peer_t *pp = &p->peers[peer];
    proto_reqmsg_t m = {0};
    int rc;

    rc = proto_expose(p, r, r->len);
    if (rc != UT_OK)
        return rc;
    r->seq = pp->rx_next + (uint32_t)pp->nreq_out;
    r->req_out = 1;
    r->rts_path = 0;
    r->resolved = 0;
    r->wdone = 0;
    r->chunks_got = 0;
    r->chunks_expected = 0;
    m.ctx = r->ctx;
    m.tag = r->tag;
    m.seq = r->seq;
    m.base = pp->rx_next;
    m.notify = nw_make(p, r->slot);
    m.chunk = mbcf_write_chunk(p->m);
    m.rkey = r->region.desc;
    rc = mbcf_fifo_send(p->m, peer, PROTO_T_REQ, &m, sizeof(m), NULL, 0, NULL);
    if (rc != UT_OK) {
        proto_unexpose(p, r);
        r->req_out = 0;
        return rc;
    }
    ut_list_push_back(&pp->reqs_out, &r->link_req);
    pp->nreq_out++;
    p->stats.req_sent++;
    return UT_OK;
}

/* A receive buffer of len bytes is big enough for a REQ (req_min). */
static int req_size_ok(const proto_t *p, size_t len)
{
    return len > 0 && len >= p->prm.req_min;
}

/* Issue REQs to peer for the receives that qualify (see the chain rules). */
static void proto_req_scan(proto_t *p, int peer)
{
    proto_peer_t *pp = &p->peers[peer];
    ut_list_t *e, *tmp;
    uint32_t gen;

    /* Without a posted receive big enough for a REQ the walk below would
     * issue nothing: it runs on every FIFO message, and bench/bw's 64
     * posted 1-byte receives made it a quarter of all cycles. */
    if (!p->nposted_req || p->prm.eager_only || peer == p->prm.rank || pp->nhold || pp->req_skip ||
        pp->nreq_out >= pp->req_win)
        return;
    /* `left`: the REQ-able receives the walk has not visited, in
     * communicators not blocked yet. A blocked communicator's unvisited ones
     * drop out at once, and the walk ends when none is left: a window's
     * ANY_SOURCE receive at the head of the list blocks its communicator,
     * and walking the 100000 receives of outstanding MPI_Gets behind it on
     * every FIFO message took MPICH's rma/manyget 261 s. */
    int left = p->nposted_req;
    gen = ++p->scan_gen;
    ut_list_for_each_safe(e, tmp, &p->posted)
    {
        proto_req_t *r = ut_container_of(e, proto_req_t, link);
        proto_comm_t *pc = r->comm;

        if (left <= 0)
            break;
        p->stats.req_scan_steps++;
        if (pc->seen_gen != gen) {
            pc->seen_gen = gen;
            pc->seen = 0;
        }
        if (pc->blocked_gen == gen)
            continue;
        if (r->req_able) {
            pc->seen++;
            left--;
        }
        if (r->src == PROTO_ANY || (r->peer == peer && !r->req_out && !r->req_able)) {
            pc->blocked_gen = gen;
            left -= pc->nreq_able - pc->seen;
            continue;
        }
        if (r->peer != peer || r->req_out)
            continue;
        if (req_issue(p, r, peer) != UT_OK) {
            pc->blocked_gen = gen;
            left -= pc->nreq_able - pc->seen;
            continue;
        }
        if (pp->nreq_out >= pp->req_win)
            break;
    }
}

/* Move rx_next over resolved REQs and held FIFO messages whose turn came. */
static void proto_advance(proto_t *p, int peer)
{
    proto_peer_t *pp = &p->peers[peer];

    for (;;) {
        if (!ut_list_empty(&pp->reqs_out)) {
            proto_req_t *r = ut_container_of(pp->reqs_out.next, proto_req_t, link_req);
            if (r->seq == pp->rx_next && r->resolved) {
                ut_list_del(&r->link_req);
                r->req_out = 0;
                pp->nreq_out--;
                pp->rx_next++;
                continue;
            }
        }
        if (!ut_list_empty(&pp->hold)) {
            proto_held_t *h = ut_container_of(pp->hold.next, proto_held_t, link);
            if (h->seq == pp->rx_next) {
                ut_list_del(&h->link);
                pp->nhold--;
                pp->rx_next++;
                process_fifo_msg(p, peer, h->type, h->bytes, h->len);
                free(h);
                continue;
            }
        }
        break;
    }
    proto_req_scan(p, peer);
}

/* A FIFO message (EAGER or RTS) from peer with seq q, validated. */
PROTO_HOT void fifo_msg_arrived(proto_t *p, int peer, int type, const char *msg, size_t len, uint32_t q)
{
    proto_peer_t *pp = &p->peers[peer];
    proto_held_t *h;
    ut_list_t *e, *tmp;

    if (pp->req_skip)
        pp->req_skip--;
    if (!ut_list_empty(&pp->reqs_out))
        kill_reqs_from(p, peer, q);
    if (q == pp->rx_next) {
        pp->rx_next++;
        process_fifo_msg(p, peer, type, msg, len);
        /* (what proto_advance would find to do, tested here first) */
        if (!ut_list_empty(&pp->reqs_out) || !ut_list_empty(&pp->hold) || p->nposted_req)
            proto_advance(p, peer);
        return;
    }
    if ((int32_t)(q - pp->rx_next) < 0) {
        p->stats.rejected++;
        ut_warn("rank %d sent message seq %u twice; dropped", peer, q);
        return;
    }
    h = malloc(sizeof(*h) + len);
    if (!h) {
        ut_error("out of memory holding a message");
        return;
    }
    h->type = type;
    h->seq = q;
    h->len = len;
    memcpy(h->bytes, msg, len);
    ut_list_for_each_safe(e, tmp, &pp->hold)
    {
        proto_held_t *x = ut_container_of(e, proto_held_t, link);
        if (x->seq == q) {
            free(h);
            p->stats.rejected++;
            return;
        }
        if ((int32_t)(x->seq - q) > 0)
            break;
    }
    ut_list_insert_between(&h->link, e->prev, e);
    pp->nhold++;
}

/* ----------------------------------------------------------- handlers */

static void proto_h_eager(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_eager_t env;

    if (len < sizeof(env))
        goto reject;
    memcpy(&env, msg, sizeof(env));
    if (env.tag < 0 || env.src < 0)
        goto reject;
    fifo_msg_arrived(p, src, PROTO_T_EAGER, msg, len, env.seq);
    return;
reject:
    p->stats.rejected++;
    ut_warn("malformed EAGER message from rank %d dropped", src);
}

static void proto_h_rts(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_rts_t rts;

    if (len != sizeof(rts))
        goto reject;
    memcpy(&rts, msg, sizeof(rts));
    if (rts.env.tag < 0 || rts.env.src < 0 || (rts.flags & ~RTS_READ) ||
        ((rts.flags & RTS_READ) && rts.rkey.len != rts.env.len))
        goto reject;
    fifo_msg_arrived(p, src, PROTO_T_RTS, msg, len, rts.env.seq);
    return;
reject:
    p->stats.rejected++;
    ut_warn("malformed RTS message from rank %d dropped", src);
}

static void drop_armed(proto_t *p, proto_peer_t *pp)
{
    p->stats.req_dropped += (unsigned long long)pp->narmed;
    pp->narmed = 0;
    pp->armed_head = 0;
}

static void proto_h_req(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_peer_t *pp = &p->peers[src];
    proto_reqmsg_t m;
    proto_armed_t *a;

    if (len != sizeof(m))
        goto reject;
    memcpy(&m, msg, sizeof(m));
    if (m.chunk == 0 || m.rkey.len == 0 || m.tag < PROTO_ANY)
        goto reject;
    if (m.seq != pp->tx_next + (uint32_t)pp->narmed || pp->narmed >= p->prm.req_max ||
        (pp->fifo_sent && (int32_t)(m.base - pp->last_fifo) <= 0) || (int32_t)(m.base - m.seq) > 0) {
        /* Stale (the message went through the FIFO) or chain broken: the
         * receiver learns it when that FIFO message arrives. */
        p->stats.req_dropped++;
        return;
    }
    a = &pp->armed[(pp->armed_head + pp->narmed) % p->prm.req_max];
    a->seq = m.seq;
    a->ctx = m.ctx;
    a->tag = m.tag;
    a->notify = m.notify;
    a->chunk = m.chunk;
    a->rkey = m.rkey;
    pp->narmed++;
    return;
reject:
    p->stats.rejected++;
    ut_warn("malformed REQ message from rank %d dropped", src);
}

static int send_wdone(proto_t *p, int peer, uint32_t nw, uint32_t seq, int tag, uint32_t chunks, size_t len)
{
    proto_wdone_t w = {.notify = nw, .seq = seq, .tag = tag, .chunks = chunks, .len = len};
    return mbcf_fifo_send(p->m, peer, PROTO_T_WDONE, &w, sizeof(w), NULL, 0, NULL);
}

/* Write r's payload into the peer's region. */
static int send_write(proto_t *p, proto_req_t *r, const tl_rkey_t *rkey, uint64_t chunk, uint32_t nw,
                      int exact_ok)
{
    size_t wlen = r->len < rkey->len ? r->len : (size_t)rkey->len;
    size_t ck = chunk < mbcf_write_chunk(p->m) ? (size_t)chunk : mbcf_write_chunk(p->m);
    uint32_t chunks = nchunks(wlen, ck);
    int exact = exact_ok && wlen && r->len == rkey->len && chunks == 1;
    int rc;

    if (chunk > mbcf_write_chunk(p->m) && chunks > 1) {
        ut_error("peer's write chunk %llu exceeds this rank's %zu", (unsigned long long)chunk,
                 mbcf_write_chunk(p->m));
        return UT_ERR_UNSUPPORTED;
    }
    r->state = PS_WRITING;
    if (!exact) {
        rc = send_wdone(p, r->peer, nw, r->seq, r->tag, chunks, r->len);
        if (rc != UT_OK)
            return rc;
    }
    if (!wlen)
        return UT_OK;
    r->op.cb = proto_send_op_cb;
    return mbcf_write_hint(p->m, r->peer, r->buf, wlen, rkey, 0, ck, 1, nw | (exact ? NW_EXACT : 0),
                           r->tl_hint, &r->op);
}

static void proto_h_cts(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_cts_t c;
    proto_req_t *r;
    int rc;

    if (len != sizeof(c))
        goto reject;
    memcpy(&c, msg, sizeof(c));
    r = sreq_lookup(p, c.sreq);
    if (!r || r->state != PS_WAIT_CTS || r->peer != src || (c.flags & ~(CTS_REFUSED | CTS_READ_DONE)) ||
        (c.chunk == 0 && !(c.flags & CTS_REFUSED)) || ((c.flags & CTS_READ_DONE) && !r->region.mr))
        goto reject;
    slot_free(p->sslots, p->free_sslots, &p->nfree_sslots, (int)(uint32_t)r->sreq_id);
    r->sreq_id = UINT64_MAX;
    mbcf_revoke(p->m, &r->region); /* read, or it is written now */
    if (c.flags & CTS_READ_DONE) {
        proto_send_complete(p, r, UT_OK);
        return;
    }
    if (c.flags & CTS_REFUSED) {
        ut_error("rank %d could not expose its receive buffer; the send fails", src);
        proto_send_complete(p, r, UT_ERR_NO_MEMORY);
        return;
    }
    if (c.rkey.len > r->len)
        c.rkey.len = r->len;
    rc = send_write(p, r, &c.rkey, c.chunk, c.notify, 0);
    if (rc == UT_OK)
        proto_send_complete(p, r, UT_OK);
    else if (rc != UT_INPROGRESS)
        proto_send_complete(p, r, rc);
    return;
reject:
    p->stats.rejected++;
    ut_warn("unexpected or malformed CTS from rank %d dropped", src);
}

/* Receive r (with a REQ out) now has evidence its message is written. */
static void recv_resolve(proto_t *p, proto_req_t *r)
{
    if (r->resolved)
        return;
    r->resolved = 1;
    if (r->state == PR_POSTED)
        posted_remove(p, r);
    r->state = PR_WAIT_DATA;
    r->st_src = r->src;
    r->st_peer = r->peer;
    p->stats.write_msgs++;
    p->stats.req_used++;
    p->peers[r->peer].req_backoff = 0;
    if (p->peers[r->peer].req_win < p->prm.req_max)
        p->peers[r->peer].req_win *= 2;
    if (p->peers[r->peer].req_win > p->prm.req_max)
        p->peers[r->peer].req_win = p->prm.req_max;
    proto_advance(p, r->peer);
}

static void recv_check_done(proto_t *p, proto_req_t *r)
{
    if (r->wdone && r->chunks_got == r->chunks_expected) {
        if (!r->rts_path)
            p->stats.write_bytes += r->st_len < r->len ? r->st_len : r->len;
        proto_recv_complete(p, r);
    }
}

static void proto_h_notify(void *arg, uint32_t nw)
{
    proto_t *p = arg;
    proto_req_t *r = nw_lookup(p, nw);
    int waiting;

    waiting = r && r->kind == PROTO_REQ_RECV &&
              (r->state == PR_WAIT_DATA || (r->req_out && (r->state == PR_POSTED || r->state == PR_CANCELING)));
    if (!waiting || (r->wdone && r->chunks_got >= r->chunks_expected)) {
        p->stats.rejected++;
        ut_warn("write notification %#x names no pending receive; ignored", nw);
        return;
    }
    r->chunks_got++;
    if (!r->rts_path && !r->resolved) {
        if (nw & NW_EXACT) {
            r->wdone = 1;
            r->chunks_expected = 1;
            r->st_tag = r->tag;
            r->st_len = r->len;
        }
        recv_resolve(p, r);
    }
    /* RTS path: the sender always sends a WDONE too; waiting for it (rather
     * than completing on the last chunk) keeps a WDONE that arrives after
     * the writes from naming a freed slot. */
    recv_check_done(p, r);
}

static void proto_h_wdone(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_wdone_t w = {0};
    proto_req_t *r = NULL;
    size_t wlen;

    if (len != sizeof(w))
        goto reject;
    memcpy(&w, msg, sizeof(w));
    r = nw_lookup(p, w.notify);
    if (!r || r->kind != PROTO_REQ_RECV || r->peer != src || r->wdone || w.tag < 0) {
        ut_debug("WDONE: r=%p kind=%d peer=%d src=%d wdone=%d tag=%d", (void *)r, r ? r->kind : -1,
                 r ? r->peer : -1, src, r ? r->wdone : -1, w.tag);
        goto reject;
    }
    wlen = w.len < r->len ? (size_t)w.len : r->len;
    if ((wlen == 0) != (w.chunks == 0) || w.chunks < r->chunks_got)
        goto reject;
    if (!r->rts_path && (r->req_out || r->resolved)) {
        if (w.seq != r->seq)
            goto reject;
        r->st_tag = w.tag;
        r->st_len = (size_t)w.len;
        r->chunks_expected = w.chunks;
        r->wdone = 1;
        recv_resolve(p, r);
    } else if (r->rts_path && r->state == PR_WAIT_DATA) {
        /* RTS path: the chunk count is the one our CTS implied */
        if (w.chunks != r->chunks_expected)
            goto reject;
        r->wdone = 1;
    } else {
        goto reject;
    }
    recv_check_done(p, r);
    return;
reject:
    p->stats.rejected++;
    ut_warn("unexpected or malformed WDONE from rank %d dropped (seq %u len %llu chunks %u)", src, w.seq,
            (unsigned long long)w.len, w.chunks);
    if (r)
        ut_warn("  receive: len %zu seq %u state %d rts %d req_out %d resolved %d got %u", r->len, r->seq, r->state,
                r->rts_path, r->req_out, r->resolved, r->chunks_got);
}

static void proto_h_cancel(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_peer_t *pp = &p->peers[src];
    proto_cancel_msg_t c;
    int i;

    if (len != sizeof(c))
        goto reject;
    memcpy(&c, msg, sizeof(c));
    if (pp->narmed && (int32_t)(c.seq - pp->armed[pp->armed_head].seq) >= 0 &&
        (int32_t)(c.seq - (pp->armed[pp->armed_head].seq + (uint32_t)pp->narmed)) < 0) {
        /* Disarm it and the rest of the chain; message seq goes by FIFO. */
        pp->narmed = (int)(c.seq - pp->armed[pp->armed_head].seq);
        pp->fifo_sent = 1;
        pp->last_fifo = c.seq;
        c.result = CANCEL_DISARMED;
    } else {
        c.result = CANCEL_NOT_USED;
        for (i = 0; i < pp->nused && i < USED_RING; i++)
            if (pp->used[i] == c.seq)
                c.result = CANCEL_USED;
        if (c.result == CANCEL_NOT_USED && (int32_t)(c.seq - pp->tx_next) >= 0) {
            /* Not armed and not sent: keep any later REQ from assuming it. */
            pp->fifo_sent = 1;
            pp->last_fifo = c.seq;
            drop_armed(p, pp);
        }
    }
    mbcf_fifo_send(p->m, src, PROTO_T_CANCEL_ACK, &c, sizeof(c), NULL, 0, NULL);
    return;
reject:
    p->stats.rejected++;
}

static void proto_h_cancel_ack(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_cancel_msg_t c;
    proto_req_t *r;

    if (len != sizeof(c))
        goto reject;
    memcpy(&c, msg, sizeof(c));
    r = nw_lookup(p, c.notify);
    if (!r)
        return; /* already settled by the FIFO message or the write */
    if (r->peer != src || r->state != PR_CANCELING || !r->req_out || r->seq != c.seq)
        return;
    if (c.result == CANCEL_USED)
        return; /* the write lands; the receive completes normally */
    kill_reqs_from(p, src, c.seq);
    proto_req_scan(p, src);
    return;
reject:
    p->stats.rejected++;
}

/* A sender cancels its RTS src -> us: drop it if nobody matched it yet. */
static void proto_h_scancel(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_scancel_msg_t c;
    ut_list_t *e, *tmp;

    if (len != sizeof(c))
        goto reject;
    memcpy(&c, msg, sizeof(c));
    c.result = 0;
    ut_list_for_each_safe(e, tmp, &p->unexp)
    {
        proto_unexp_t *u = ut_container_of(e, proto_unexp_t, link);
        if (u->peer == src && (c.eager ? u->kind == PROTO_T_EAGER && u->seq == c.seq
                                       : u->kind == PROTO_T_RTS && u->sreq == c.sreq)) {
            ut_list_del(&u->link);
            if (u->kind == PROTO_T_EAGER)
                mbcf_credits_return(p->m, src, u->credits);
            unexp_release(p, u);
            c.result = 1;
            break;
        }
    }
    mbcf_fifo_send(p->m, src, PROTO_T_SCANCEL_ACK, &c, sizeof(c), NULL, 0, NULL);
    return;
reject:
    p->stats.rejected++;
}

static void proto_h_scancel_ack(void *arg, int src, const void *msg, size_t len)
{
    proto_t *p = arg;
    proto_scancel_msg_t c;
    proto_req_t *r;

    if (len != sizeof(c) || (c.result = 0, memcpy(&c, msg, sizeof(c)), c.result > 1))
        goto reject;
    r = sreq_lookup(p, c.sreq);
    if (!r || (r->state != PS_WAIT_CTS && r->state != PS_CANCELING && r->state != PS_EAGER) || r->peer != src ||
        !r->canceling)
        return; /* its CTS came first: it is being written */
    r->canceling = 0;
    if (r->state == PS_EAGER) { /* still leaving here: completes in proto_send_op_cb */
        slot_free(p->sslots, p->free_sslots, &p->nfree_sslots, (int)(uint32_t)r->sreq_id);
        r->sreq_id = UINT64_MAX;
        r->cancelled = c.result;
        return;
    }
    if (c.result || r->state == PS_CANCELING) {
        r->cancelled = c.result;
        proto_send_complete(p, r, r->st_err);
    }
    return;
reject:
    p->stats.rejected++;
}

/* ---------------------------------------------------------------- API */

static void self_send(proto_t *p, proto_req_t *r)
{
    proto_req_t *rr = match_posted(p, p->prm.rank, r->ctx, r->src, r->tag);
    proto_unexp_t *u;

    p->stats.self_msgs++;
    if (rr) {
        posted_remove(p, rr);
        deliver_eager(p, rr, p->prm.rank, r->src, r->tag, r->buf, r->len);
        proto_send_complete(p, r, UT_OK);
        return;
    }
    u = unexp_alloc(p, r->len <= p->prm.eager_limit && !r->sync ? r->len : 0);
    if (!u) {
        proto_send_complete(p, r, UT_ERR_NO_MEMORY);
        return;
    }
    u->kind = UNEXP_SELF;
    u->peer = r->peer;
    u->src = r->src;
    u->tag = r->tag;
    u->ctx = r->ctx;
    u->len = r->len;
    if (r->len <= p->prm.eager_limit && !r->sync) {
        if (r->len)
            memcpy(u->data, r->buf, r->len);
        u->seq = r->seq = p->self_seq++;
        r->eager = 1;
        ut_list_push_back(&p->unexp, &u->link);
        proto_send_complete(p, r, UT_OK);
        return;
    }
    u->self_sreq = r;
    r->state = PS_SELF;
    ut_list_push_back(&p->unexp, &u->link);
}

/* The largest send the receiver may read: an exchange's may be larger
 * (tl_caps_t.read_max_xchg); none whose sender writes into the buffer
 * right after (TL_SHM_REWRITE): the receiver's read leaves the lines shared
 * with its CPU, and every store of the sender's next step must first take
 * them back. Allreduce of 64 KiB at P = 2 by recursive doubling, whose
 * receives post no REQ once they have crossed the sends: 22 us per call
 * read, 8.8 through a CTS and the rings (a loop of MPI_Sendrecv of 64 KiB
 * then a sum into the sent vector: the sum 38 us after a read, 7.9 after
 * the rings). */
static size_t read_max(const tl_caps_t *caps, const proto_req_t *r)
{
    if (r->tl_hint == TL_SHM_REWRITE)
        return 0;
    return r->tl_hint == TL_SHM_EXCHANGE && caps->read_max_xchg > caps->read_max ? caps->read_max_xchg
                                                                                 : caps->read_max;
}

int proto_isend(proto_t *p, proto_req_t *r, const void *buf, size_t len, int peer, int src, uint32_t ctx,
                int tag, int sync)
{
    proto_peer_t *pp;
    proto_env_t env;
    int rc, offer;

    /* first: the transport fetches what this send will store into while
     * the bookkeeping below runs (a hint; an RTS when not eager) */
    if (peer != p->prm.rank)
        mbcf_send_ahead(p->m, peer,
                        len <= p->prm.eager_limit && !sync && !r->offer_read ? sizeof(proto_eager_t) + len
                                                                             : sizeof(proto_rts_t));
    r->kind = PROTO_REQ_SEND;
    r->done = 0;
    r->buf = (char *)buf;
    r->len = len;
    r->peer = peer;
    r->src = src;
    r->tag = tag;
    r->ctx = ctx;
    r->sync = sync;
    r->st_err = UT_OK;
    r->cancelled = 0;
    r->canceling = 0;
    r->eager = 0;
    r->sreq_id = UINT64_MAX;
    r->slot = -1;
    r->region.mr = NULL;
    if (peer == p->prm.rank) {
        self_send(p, r);
        return UT_OK;
    }
    pp = &p->peers[peer];
    r->seq = pp->tx_next++;

    /* Write protocol: the head REQ names this very message. */
    if (pp->narmed) {
        proto_armed_t *a = &pp->armed[pp->armed_head];
        if (a->seq == r->seq && a->ctx == ctx && tag_match(a->tag, tag)) {
            pp->armed_head = (pp->armed_head + 1) % p->prm.req_max;
            pp->narmed--;
            pp->used[pp->nused++ % USED_RING] = r->seq;
            rc = send_write(p, r, &a->rkey, a->chunk, a->notify, a->tag != PROTO_ANY);
            if (rc == UT_OK)
                proto_send_complete(p, r, UT_OK);
            else if (rc != UT_INPROGRESS)
                proto_send_complete(p, r, rc);
            return UT_OK;
        }
        drop_armed(p, pp);
    }

    /* FIFO: eager when small and credits allow, else RTS. */
    pp->fifo_sent = 1;
    pp->last_fifo = r->seq;
    env.ctx = ctx;
    env.tag = tag;
    env.src = src;
    env.seq = r->seq;
    env.len = len;
    /* an offered read (a collective's message) skips the eager copies: its
     * receiver copies the data once, whatever the size (proto.h) */
    offer =
        r->offer_read && len && p->prm.rts_read && len <= read_max(mbcf_caps(p->m), r) && mbcf_can_read(p->m);
    if (!offer && len <= p->prm.eager_limit && !sync && mbcf_credits_take(p->m, peer, eager_cost(len))) {
        r->state = PS_EAGER;
        r->eager = 1;
        r->op.cb = proto_send_op_cb;
        p->stats.eager_msgs++;
        p->stats.eager_bytes += len;
        proto_eager_t e = {.ctx = ctx, .tag = tag, .src = src, .seq = r->seq};

        rc = mbcf_fifo_send(p->m, peer, PROTO_T_EAGER, &e, sizeof(e), buf, len, &r->op);
        if (rc == UT_OK)
            proto_send_complete(p, r, UT_OK);
        else if (rc != UT_INPROGRESS)
            proto_send_complete(p, r, rc);
        return UT_OK;
    } else {
        proto_rts_t rts = {.env = env, .sync = (uint32_t)sync};
        int s;
        rc = slot_alloc(&p->sslots, &p->nsslots, &p->free_sslots, &p->nfree_sslots, r, &s);
        if (rc != UT_OK)
            return rc;
        r->sreq_id = sreq_make(p, s);
        rts.sreq = r->sreq_id;
        /* where the transport reads, the receiver copies the payload
         * itself as soon as it matches: no CTS round trip before the data */
        if ((offer || (len && p->prm.rts_read && len >= p->prm.read_min &&
                       len <= read_max(mbcf_caps(p->m), r) && mbcf_can_read(p->m))) &&
            mbcf_expose_read(p->m, (void *)buf, len, &r->region) == UT_OK) {
            rts.flags = RTS_READ;
            rts.rkey = r->region.desc;
        }
        r->state = PS_WAIT_CTS;
        p->stats.rts_msgs++;
        p->stats.rts_bytes += len;
        rc = mbcf_fifo_send(p->m, peer, PROTO_T_RTS, &rts, sizeof(rts), NULL, 0, NULL);
        if (rc != UT_OK)
            proto_send_complete(p, r, rc);
        return UT_OK;
    }
}

PROTO_HOT void recv_init(proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx, int tag,
                         proto_comm_t *pc)
{
    r->kind = PROTO_REQ_RECV;
    r->done = 0;
    r->buf = buf;
    r->len = len;
    r->peer = peer;
    r->src = src;
    r->tag = tag;
    r->ctx = ctx;
    r->comm = pc;
    r->slot = -1;
    r->region.mr = NULL;
    r->req_out = 0;
    r->req_able = 0;
    r->no_req = 0;
    r->resolved = 0;
    r->canceling = 0;
    r->wdone = 0;
    r->chunks_got = 0;
    r->chunks_expected = 0;
    r->st_err = UT_OK;
    r->st_len = 0;
    r->cancelled = 0;
    ut_list_init(&r->link_req);
}

/* Receive r takes the unexpected message u (already out of the queue):
 * copy an eager payload, answer an RTS with a CTS, or finish a self send. */
static void unexp_consume(proto_t *p, proto_req_t *r, proto_unexp_t *u)
{
    if (u->kind == PROTO_T_RTS) {
        answer_rts(p, r, u->peer, u->src, u->tag, u->len, u->sreq, u->rflags, &u->rkey);
    } else if (u->kind == UNEXP_SELF && u->self_sreq) {
        deliver_eager(p, r, u->peer, u->src, u->tag, u->self_sreq->buf, u->len);
        proto_send_complete(p, u->self_sreq, UT_OK);
    } else {
        deliver_eager(p, r, u->peer, u->src, u->tag, u->data, u->len);
        if (u->kind == PROTO_T_EAGER)
            mbcf_credits_return(p->m, u->peer, u->credits);
    }
    unexp_release(p, u);
}

/* The first unexpected message a receive (src, peer, ctx, tag) would take. */
static proto_unexp_t *unexp_find(proto_t *p, int peer, int src, uint32_t ctx, int tag)
{
    ut_list_t *e;

    for (e = p->unexp.next; e != &p->unexp; e = e->next) {
        proto_unexp_t *u = ut_container_of(e, proto_unexp_t, link);
        if (u->ctx == ctx && (src == PROTO_ANY || (src == u->src && peer == u->peer)) && tag_match(tag, u->tag))
            return u;
    }
    return NULL;
}

void proto_reset_req_adapt(proto_t *p)
{
    for (int i = 0; i < p->prm.size; i++) {
        p->peers[i].req_win = 1;
        p->peers[i].req_backoff = 0;
        p->peers[i].req_skip = 0;
    }
}

PROTO_HOT int irecv_start(proto_t *p, proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx,
                          int tag, proto_comm_t *pc, int no_req)
{
    proto_unexp_t *u;

    recv_init(r, buf, len, peer, src, ctx, tag, pc);
    r->no_req = no_req;
    u = ut_list_empty(&p->unexp) ? NULL : unexp_find(p, peer, src, ctx, tag);
    if (u) {
        ut_list_del(&u->link);
        unexp_consume(p, r, u);
        return UT_OK;
    }
    r->state = PR_POSTED;
    ut_list_push_back(&p->posted, &r->link);
    r->req_able = !no_req && src != PROTO_ANY && peer != p->prm.rank && req_size_ok(p, r->len);
    p->nposted_req += r->req_able;
    pc->nreq_able += r->req_able;
    if (src == PROTO_ANY)
        pc->any_pending++;
    else if (peer != p->prm.rank && p->nposted_req) /* (proto_req_scan's first test) */
        proto_req_scan(p, peer);
    return UT_OK;
}

int proto_irecv(proto_t *p, proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx, int tag,
                proto_comm_t *pc)
{
    return irecv_start(p, r, buf, len, peer, src, ctx, tag, pc, 0);
}

int proto_irecv_noreq(proto_t *p, proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx,
                      int tag, proto_comm_t *pc)
{
    return irecv_start(p, r, buf, len, peer, src, ctx, tag, pc, 1);
}

int proto_iprobe(proto_t *p, int src, uint32_t ctx, int tag, int *flag_p, int *src_p, int *tag_p,
                 size_t *len_p)
{
    ut_list_t *e, *tmp;

    ut_list_for_each_safe(e, tmp, &p->unexp)
    {
        proto_unexp_t *u = ut_container_of(e, proto_unexp_t, link);
        if (u->ctx != ctx || !(src == PROTO_ANY || src == u->src) || !tag_match(tag, u->tag))
            continue;
        *flag_p = 1;
        *src_p = u->src;
        *tag_p = u->tag;
        *len_p = u->len;
        return UT_OK;
    }
    *flag_p = 0;
    return UT_OK;
}

/* Matched probe (MPI_Mprobe): the message leaves the unexpected queue, so
 * no other receive can take it, and waits for proto_imrecv. Only messages
 * in the unexpected queue are candidates: one on the write path (a REQ was
 * used) already belongs to a posted receive, and a FIFO message held until
 * its turn (hold list) is not in the queue yet, so nothing is taken half-way.
 * An RTS stays unanswered until proto_imrecv posts the buffer (then CTS). */
int proto_improbe(proto_t *p, int peer, int src, uint32_t ctx, int tag, int *flag_p, proto_msg_t **msg_p,
                  int *src_p, int *tag_p, size_t *len_p)
{
    proto_unexp_t *u = unexp_find(p, peer, src, ctx, tag);

    if (!u) {
        *flag_p = 0;
        return UT_OK;
    }
    ut_list_del(&u->link);
    *flag_p = 1;
    *msg_p = u;
    *src_p = u->src;
    *tag_p = u->tag;
    *len_p = u->len;
    return UT_OK;
}

/* Receive the message proto_improbe took into buf (len bytes). */
int proto_imrecv(proto_t *p, proto_req_t *r, void *buf, size_t len, proto_msg_t *msg)
{
    recv_init(r, buf, len, msg->peer, msg->src, msg->ctx, msg->tag, NULL);
    unexp_consume(p, r, msg);
    return UT_OK;
}

static int send_cancel(proto_t *p, proto_req_t *r)
{
    proto_scancel_msg_t c = {0};
    ut_list_t *e, *tmp;

    if (r->state == PS_SELF || (r->state == P_DONE && r->eager && r->peer == p->prm.rank && !r->cancelled)) {
        ut_list_for_each_safe(e, tmp, &p->unexp)
        {
            proto_unexp_t *u = ut_container_of(e, proto_unexp_t, link);
            if (u->kind == UNEXP_SELF && (r->state == PS_SELF ? u->self_sreq == r : !u->self_sreq && u->seq == r->seq)) {
                ut_list_del(&u->link);
                unexp_release(p, u);
                r->cancelled = 1;
                proto_send_complete(p, r, UT_OK);
                break;
            }
        }
        return UT_OK;
    }
    if ((r->state == P_DONE || r->state == PS_EAGER) && r->eager && !r->cancelled && !r->canceling &&
        r->st_err == UT_OK && r->peer != p->prm.rank) {
        /* reopen it until the receiver says whether it dropped the message
         * (the FIFO delivers this question after the message) */
        int s, rc = slot_alloc(&p->sslots, &p->nsslots, &p->free_sslots, &p->nfree_sslots, r, &s);
        if (rc != UT_OK)
            return rc;
        r->sreq_id = sreq_make(p, s);
        if (r->state == P_DONE) {
            r->state = PS_CANCELING;
            r->done = 0;
        }
        c.eager = 1;
        c.seq = r->seq;
    } else if (r->state != PS_WAIT_CTS || r->canceling) {
        return UT_OK; /* being written, done, or already asked */
    }
    r->canceling = 1;
    c.sreq = r->sreq_id;
    p->stats.cancel_sent++;
    int rc = mbcf_fifo_send(p->m, r->peer, PROTO_T_SCANCEL, &c, sizeof(c), NULL, 0, NULL);
    if (rc != UT_OK && c.eager) { /* could not ask: it stays sent */
        r->canceling = 0;
        slot_free(p->sslots, p->free_sslots, &p->nfree_sslots, (int)(uint32_t)r->sreq_id);
        r->sreq_id = UINT64_MAX;
        if (r->state == PS_CANCELING)
            proto_send_complete(p, r, r->st_err);
    }
    return rc;
}

int proto_cancel(proto_t *p, proto_req_t *r)
{
    proto_cancel_msg_t c = {0};

    if (r->kind == PROTO_REQ_SEND)
        return send_cancel(p, r);
    if (r->kind != PROTO_REQ_RECV || r->state != PR_POSTED)
        return UT_OK; /* matched or done: cannot be cancelled */
    posted_remove(p, r);
    if (!r->req_out) {
        r->cancelled = 1;
        proto_recv_complete(p, r);
        return UT_OK;
    }
    r->state = PR_CANCELING;
    c.seq = r->seq;
    c.notify = nw_make(p, r->slot);
    p->stats.cancel_sent++;
    return mbcf_fifo_send(p->m, r->peer, PROTO_T_CANCEL, &c, sizeof(c), NULL, 0, NULL);
}

int proto_progress(proto_t *p)
{
    int n;

    if (!p->m)
        return 0; /* a job of one rank has no transport */
    n = mbcf_progress(p->m);
    if (!ut_list_empty(&p->expose_wait))
        n += expose_wait_retry(p);
    return n;
}
