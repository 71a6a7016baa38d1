/*
 * mbcf/mbcf.h: the memory-based communication facility (MPI/MBCF paper).
 *
 * Two primitives, both addressed by peer rank, both non-blocking, both
 * completed by mbcf_progress():
 *   mbcf_write():     bytes straight into a region the peer exposed
 *                     (mbcf_expose()), with an optional 32-bit notify word
 *                     delivered to the peer's notify handler once landed;
 *                     chunked when larger than the transport's max write.
 *   mbcf_fifo_send(): a message appended to the peer's memory-based FIFO,
 *                     dispatched there by `type` through a handler table.
 *
 * FIFO wire header (16 bytes, little endian, read with memcpy: multi-recv
 * buffers pack messages unaligned):
 *
 *   0        1        2                4                8               12       14       16
 *   +--------+--------+----------------+----------------+---------------+--------+--------+
 *   |version | type   | src rank (u16) | fifo seq (u32) | length (u32)  |fifo cr |eager cr|
 *   +--------+--------+----------------+----------------+---------------+--------+--------+
 *   followed by `length` bytes for the handler.
 *
 * fifo seq is per (sender, receiver) and restores order across multi-recv
 * buffers (CREDIT messages carry MBCF_SEQ_NONE and are applied at once).
 * Two kinds of credit flow back to the receiver of a header, in units of
 * MBCF_CREDIT_UNIT bytes:
 *   fifo cr:  FIFO space the receiver has drained (every message but CREDIT
 *             costs FIFO space; a sender without enough waits, in order, so
 *             the provider never buffers for us);
 *   eager cr: eager payload the receiver has consumed (matched); without
 *             enough, proto sends an RTS instead of the payload, which bounds
 *             unexpected eager data per peer.
 * Every header is validated (version, type, source, length, seq) before a
 * handler sees it; a bad one is counted and dropped.
 */
#ifndef MBCF_H
#define MBCF_H

#include "transport/transport.h"
#include "util/list.h"

#include <stddef.h>
#include <stdint.h>

#define MBCF_VERSION 1
#define MBCF_MAX_TYPES 16
#define MBCF_TYPE_CREDIT 0   /* internal: header only, returns credits */
#define MBCF_INLINE_MAX 192  /* bytes of header + payload copied into an op */
#define MBCF_CREDIT_UNIT 256
#define MBCF_SEQ_NONE 0xffffffffu

typedef struct mbcf_hdr {
    uint8_t version;
    uint8_t type;
    uint16_t src;
    uint32_t seq;
    uint32_t len;
    uint16_t fifo_cr;
    uint16_t eager_cr;
} mbcf_hdr_t;
_Static_assert(sizeof(mbcf_hdr_t) == 16, "mbcf header is 16 bytes on the wire");

typedef struct mbcf mbcf_t;
typedef struct mbcf_op mbcf_op_t;

/* Completion of an op given to mbcf_fifo_send / mbcf_write. */
typedef void (*mbcf_op_cb_t)(mbcf_op_t *op, int status);

struct mbcf_op {
    /* what a FIFO send fills comes first: bench/bw's window of 64 eager
     * sends touched ~11 cache lines per request (45 KiB, most of L1) */
    ut_list_t link;              /* pending (NO_RESOURCE) queue */
    mbcf_op_cb_t cb;
    int kind;
    int peer;
    int owned;                   /* allocated by mbcf (control messages) */
    /* send */
    struct iovec iov[2];
    int iovcnt;
    size_t hdrlen;
    char inl[sizeof(mbcf_hdr_t) + MBCF_INLINE_MAX];
    /* write */
    const char *src;
    size_t len;
    size_t done_off;
    tl_rkey_t rkey;
    uint64_t offset;
    int notify;
    uint32_t data;
    size_t chunk;
    int hint; /* tl_shm_hint_t of every tl_write */
    _Alignas(TL_OP_CTX_ALIGN) char tl_ctx[TL_OP_CTX_SIZE]; /* handed to the transport (mbcf_tx_done_cb finds
                                                              the op from it) */
};

/* A local buffer exposed for remote write, and its descriptor for the peer. */
typedef struct mbcf_region {
    tl_mr_t *mr;
    tl_rkey_t desc;
} mbcf_region_t;

typedef void (*mbcf_handler_t)(void *arg, int src, const void *msg, size_t len);
typedef void (*mbcf_notify_handler_t)(void *arg, uint32_t data);

typedef struct mbcf_stats {
    unsigned long fifo_sent;
    unsigned long fifo_recv;
    unsigned long writes;
    unsigned long notifies;
    unsigned long rejected;      /* malformed headers dropped */
    unsigned long credit_msgs;
    unsigned long retries;       /* NO_RESOURCE retried */
    unsigned long credit_waits;  /* FIFO messages that waited for credits */
    unsigned long broken_peers;  /* peers whose FIFO failed hard (see below) */
} mbcf_stats_t;

typedef struct mbcf_params {
    int rank;
    int size;
    size_t credits;          /* eager bytes each peer may have unconsumed at us */
    size_t fifo_credits;     /* FIFO bytes each peer may fill at us (0: derived from the transport) */
    size_t write_chunk;      /* largest single write (0: transport max) */
} mbcf_params_t;

/* Life cycle: mbcf_create(), then open the transport with the callbacks from
 * mbcf_tl_callbacks(), then mbcf_attach() it; mbcf_destroy() before closing
 * the transport. */
int mbcf_create(const mbcf_params_t *params, mbcf_t **m_p);
void mbcf_tl_callbacks(mbcf_t *m, tl_callbacks_t *cb);
void mbcf_attach(mbcf_t *m, tl_t *tl);
void mbcf_destroy(mbcf_t *m);
void mbcf_set_handler(mbcf_t *m, int type, mbcf_handler_t fn, void *arg);
void mbcf_set_notify_handler(mbcf_t *m, mbcf_notify_handler_t fn, void *arg);
const tl_caps_t *mbcf_caps(const mbcf_t *m);
const mbcf_stats_t *mbcf_stats(const mbcf_t *m);

/* Send hdr + payload to peer's FIFO as `type`. With op == NULL the whole
 * message must fit MBCF_INLINE_MAX (it is copied; returns UT_OK). With an op,
 * payload must stay valid until op->cb: returns UT_OK (done already, cb not
 * called), UT_INPROGRESS (cb later) or an error. */
int mbcf_fifo_send(mbcf_t *m, int peer, int type, const void *hdr, size_t hdrlen, const void *payload,
                   size_t paylen, mbcf_op_t *op);
/* Largest hdr + payload a FIFO message can carry. */
size_t mbcf_fifo_max(const mbcf_t *m);
/* UT_OK, or the hard error that broke the FIFO to peer: a FIFO message
 * failed otherwise than NO_RESOURCE (its sequence number is lost), so every
 * queued and later send or write to that peer fails with this status rather
 * than leave a gap the peer would wait on forever. */
int mbcf_peer_status(const mbcf_t *m, int peer);

/* Eager credits: take n bytes towards peer (0 = not enough, caller uses
 * another protocol), and give back n bytes the peer sent us once consumed. */
int mbcf_credits_take(mbcf_t *m, int peer, size_t n);
void mbcf_credits_return(mbcf_t *m, int peer, size_t n);

int mbcf_expose(mbcf_t *m, void *buf, size_t len, mbcf_region_t *r);
void mbcf_revoke(mbcf_t *m, mbcf_region_t *r);
/* Reads (an extension of the paper's two primitives, for rendezvous sends
 * whose receiver copies the data itself): the transport offers them
 * (mbcf_can_read); a buffer exposed for peers to read only
 * (mbcf_expose_read, ended with mbcf_revoke); len bytes at desc + offset
 * on peer copied into dst, done on return (bounds checked against desc
 * here, key and bounds against the owner's registration by the
 * transport). UT_OK, UT_ERR_UNSUPPORTED (not to this peer: use a write),
 * or an error. */
int mbcf_can_read(const mbcf_t *m);
/* A FIFO send to peer follows: the transport may prepare for it (a hint). */
void mbcf_send_ahead(mbcf_t *m, int peer, size_t len);
int mbcf_expose_read(mbcf_t *m, void *buf, size_t len, mbcf_region_t *r);
int mbcf_read(mbcf_t *m, int peer, void *dst, size_t len, const tl_rkey_t *desc, uint64_t offset);
/* Write len bytes at desc + offset on peer (bounds checked against desc
 * here too). Chunks carry the notify word each when notify is set. Returns
 * UT_OK (done), UT_INPROGRESS (op->cb later) or an error. */
int mbcf_write(mbcf_t *m, int peer, const void *src, size_t len, const tl_rkey_t *desc, uint64_t offset,
               size_t chunk, int notify, uint32_t data, mbcf_op_t *op);
/* The same, telling the transport what the data is for (tl_shm_hint_t,
 * transport.h): every chunk, retries included, is written with it. */
int mbcf_write_hint(mbcf_t *m, int peer, const void *src, size_t len, const tl_rkey_t *desc, uint64_t offset,
                    size_t chunk, int notify, uint32_t data, int hint, mbcf_op_t *op);
/* This rank's chunk size (the target announces it; the writer uses the
 * smaller of both). */
size_t mbcf_write_chunk(const mbcf_t *m);

/* Drain completions and retry queued operations; returns events handled. */
int mbcf_progress(mbcf_t *m);

#endif
