/*
 * proto/proto.h: MPI point-to-point over mbcf: matching, the eager FIFO
 * protocol (with RTS above the eager limit or without credits), the write
 * protocol (receiver-first REQ, sender writes into the user buffer, notify
 * completes the receive) and their conflict resolution. See proto/proto.c
 * for the protocol rules and DESIGN.md "The two protocols".
 *
 * Buffers here are contiguous bytes; mpi/ packs derived datatypes.
 * Ranks: `peer` is the MPI_COMM_WORLD rank (transport address), `src` the
 * sender's rank in the communicator (what matching and statuses use).
 */
#ifndef PROTO_H
#define PROTO_H

#include "mbcf/mbcf.h"
#include "util/list.h"

#include <stddef.h>
#include <stdint.h>

#define PROTO_ANY (-1)       /* MPI_ANY_SOURCE / MPI_ANY_TAG */

typedef struct proto proto_t;

/* Per-communicator protocol state (embedded in the communicator). */
typedef struct proto_comm {
    uint32_t ctx;
    int any_pending;         /* ANY_SOURCE receives posted and not matched */
    uint32_t blocked_gen;    /* scratch for the REQ eligibility scan */
    int nreq_able;           /* posted receives of this communicator that could issue a REQ */
    uint32_t seen_gen;       /* scratch for the scan: how many of them it visited */
    int seen;
} proto_comm_t;

enum proto_req_kind { PROTO_REQ_SEND = 1, PROTO_REQ_RECV = 2 };

typedef struct proto_req {
    ut_list_t link;          /* posted list */
    ut_list_t link_req;      /* the peer's chain of outstanding REQs */
    int kind;
    int state;
    volatile int done;
    /* user view */
    char *buf;
    size_t len;
    int peer;                /* world rank (-1: any) */
    int src;                 /* comm rank: receiver matches on it; sender's own */
    int tag;
    uint32_t ctx;
    int sync;                /* send: synchronous mode */
    int tl_hint;             /* send: what its data is for (tl_shm_hint_t, transport.h), given to
                              * every write of its payload; set by the caller before proto_isend */
    int offer_read;          /* send: an RTS the receiver may read (where the transport can) even
                              * within the eager limit; set by the caller before proto_isend */
    proto_comm_t *comm;      /* recv */
    int no_req;              /* recv: never offered to its sender by a REQ (proto_irecv_noreq) */
    /* completion */
    int st_src;  /* sender's rank as its envelope claims */
    int st_peer; /* world rank it really came from */
    int st_tag;
    int st_err;    /* UT_OK, UT_ERR_TRUNCATED, ... */
    size_t st_len; /* bytes the sender sent */
    int cancelled;
    void *user; /* owner's back pointer (mpi request) */
    /* write protocol (receive side) */
    uint32_t seq;            /* send: message seq; recv: seq of its REQ */
    int slot;                /* exposure slot, -1 none */
    mbcf_region_t region;
    int req_out;             /* REQ outstanding for this receive */
    int req_able;            /* posted, and big enough for a REQ (counted in nposted_req) */
    int resolved;            /* the REQ'd message is being written here */
    int rts_path;            /* matched an RTS (else: REQ path) */
    int canceling;
    int eager;               /* send: went eager (complete here; a cancel asks the receiver) */
    int wdone;
    uint32_t chunks_expected;
    uint32_t chunks_got;
    /* send side rendezvous */
    uint64_t sreq_id;
    uint64_t wait_sreq; /* recv in PR_WAIT_EXPOSE: the sender's id for its CTS */
    /* last: an eager send touches only its first lines (cache footprint of
     * a window of requests, see mbcf_op_t) */
    mbcf_op_t op;
} proto_req_t;

typedef struct proto_stats {
    unsigned long long eager_msgs, eager_bytes;
    unsigned long long write_msgs, write_bytes;   /* receiver-first REQ used */
    unsigned long long rts_msgs, rts_bytes;       /* send-first rendezvous */
    unsigned long long self_msgs;
    unsigned long long req_sent, req_used, req_dropped, req_killed;
    unsigned long long unexpected_msgs, unexpected_bytes;
    unsigned long long rejected;                  /* malformed protocol messages */
    unsigned long long cancel_sent;
    unsigned long long rts_reads; /* RTS payloads this rank read from their senders */
    unsigned long long req_scan_steps; /* posted receives the REQ scans visited (work, for tests) */
} proto_stats_t;

typedef struct proto_params {
    int rank;
    int size;
    int eager_only;          /* MBMPI_PROTOCOL=eager: never issue REQs */
    size_t eager_limit;      /* largest eager payload */
    size_t req_min;          /* smallest receive buffer that issues a REQ */
    int req_max;             /* REQs outstanding per peer */
    int rts_read;            /* RTS payloads read by their receivers where the transport can */
    size_t read_min;         /* ... from this size on (0: the transport's read_min) */
} proto_params_t;

int proto_create(mbcf_t *m, const proto_params_t *params, proto_t **p_p);
/* The smallest rendezvous send offered to its receiver to read (params.read_min, or the transport's). */
size_t proto_read_min(const proto_t *p);
/* Sets it (MPI_Init's timing of reads against the rings, mpi/shm_tune.c);
 * SIZE_MAX: no rendezvous send is offered. */
void proto_set_read_min(proto_t *p, size_t read_min);
void proto_destroy(proto_t *p);
void proto_comm_init(proto_comm_t *pc, uint32_t ctx);

/* Start a send / receive; completion sets r->done (poll with proto_progress). */
int proto_isend(proto_t *p, proto_req_t *r, const void *buf, size_t len, int peer, int src, uint32_t ctx,
                int tag, int sync);
int proto_irecv(proto_t *p, proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx, int tag,
                proto_comm_t *pc);
/* The same for a receive whose sender sends at the same moment (a step of
 * an exchange): it is never offered by a REQ, so its message comes through
 * the FIFO (eager, or RTS and a read where the transport reads). */
int proto_irecv_noreq(proto_t *p, proto_req_t *r, void *buf, size_t len, int peer, int src, uint32_t ctx,
                      int tag, proto_comm_t *pc);
/* Probe the unexpected queue; *flag_p 1 with the envelope when found. */
int proto_iprobe(proto_t *p, int src, uint32_t ctx, int tag, int *flag_p, int *src_p, int *tag_p,
                 size_t *len_p);
/* A message taken out of matching by proto_improbe (MPI_Mprobe), received
 * only by proto_imrecv. */
typedef struct proto_unexp proto_msg_t;
/* Like proto_iprobe, but a found message leaves the unexpected queue (no
 * other receive can match it) and *msg_p names it for proto_imrecv. `peer`
 * is the world rank of a named `src` (ignored for PROTO_ANY). */
int proto_improbe(proto_t *p, int peer, int src, uint32_t ctx, int tag, int *flag_p, proto_msg_t **msg_p,
                  int *src_p, int *tag_p, size_t *len_p);
/* Receive a message of proto_improbe into buf; consumes msg. Completion as
 * for proto_irecv (an RTS is answered with its CTS only now). */
int proto_imrecv(proto_t *p, proto_req_t *r, void *buf, size_t len, proto_msg_t *msg);
/* Cancel a pending receive, or a send still waiting for its CTS (or a self
 * send for its receive); it completes (cancelled or not) later. */
int proto_cancel(proto_t *p, proto_req_t *r);
int proto_progress(proto_t *p);
/* Forget what REQ conflicts taught (each peer's REQ window and back-off
 * back to their initial values): after the library's own traffic at
 * MPI_Init (mpi/shm_tune.c), which must not shape the program's. */
void proto_reset_req_adapt(proto_t *p);
const proto_stats_t *proto_stats(const proto_t *p);
mbcf_t *proto_mbcf(proto_t *p);

#endif
