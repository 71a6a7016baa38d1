/*
 * tests/fuzz/fuzz_fifo.c: libFuzzer target for the FIFO receive path
 * (mbcf/mbcf.c header validation, reordering and credits; proto/proto.c
 * handlers EAGER, RTS, REQ, CTS, WDONE, CANCEL, CANCEL_ACK and notify words).
 *
 * Each input runs in a fresh 3-rank world over the self transport
 * (transport/self.c), set up like tests/unit/test_proto.c: rank 0 has
 * receives posted (named ones that send REQs to ranks 1 and 2, an
 * ANY_SOURCE one, one in a second communicator) and an RTS send waiting for
 * a CTS, so that handlers have state to hit. A fresh world per input keeps
 * every crash reproducible from its input alone (a world costs microseconds).
 *
 * Input: a sequence of records  [ctl u8][len u16 LE][len bytes of data]
 * (len is clamped to what is left). ctl & 7 selects the operation:
 *   0    raw FIFO message: data is handed whole to rank 0's recv callback
 *        (tl_self_inject_recv), mbcf header included;
 *   1,6,7 FIFO message with a harness-built header: data[0] = type,
 *        data[1] = fifo credits, data[2] = eager credits, body = data[3..];
 *        version 1, src = 1 + (ctl >> 3 & 1), length = body length,
 *        seq = next[src] + (ctl >> 4 & 3) (next[src] advances when the
 *        offset is 0); lets mutations reach proto's handlers;
 *   2    notify word data[0..3] (LE) to rank 0's notify callback;
 *   3    progress every rank 1 + data[0] % 8 rounds;
 *   4    an application call at rank 0: data[0] % 4 = post a receive
 *        (source, tag, ctx, size from data[1..4]), cancel receive data[1],
 *        iprobe, or isend to rank 1/2 (size class, sync from data[1..3]);
 *   5    a real send from rank 2 to rank 0 (size class data[0]) through
 *        rank 2's own mbcf (races the injected seqs "from rank 2").
 * After the records every rank is progressed (bounded), then the harness
 * checks the guard bytes around every receive buffer and that completed
 * receives report sane lengths; abort() on a violation.
 *
 * Build: tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include "mbcf/mbcf.h"
#include "proto/proto.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR 3
#define NCTX 3
#define NRECV 12
#define NSEND 6
#define GUARD 64
#define GUARD_BYTE 0xA5
#define MAX_OPS 256
#define SEND_MAX (64 * 1024)

typedef struct rbuf {
    unsigned char *mem; /* GUARD | cap | GUARD */
    size_t cap;
} rbuf_t;

static struct {
    tl_self_group_t *g;
    mbcf_t *m[NR];
    tl_t *tl[NR];
    proto_t *p[NR];
    proto_comm_t pc[NR][NCTX];
    tl_callbacks_t cb0;              /* rank 0's callbacks (notify injection) */
    proto_req_t rr[NRECV];           /* receives at rank 0 */
    int rr_used[NRECV];
    rbuf_t rb[NRECV];
    proto_req_t sr[NSEND];           /* sends from rank 0 */
    int sr_used[NSEND];
    proto_req_t sr2[NSEND];          /* sends from rank 2 */
    int sr2_used[NSEND];
    uint32_t next_seq[NR];           /* harness-built headers "from" rank i to rank 0 */
} W;

static int verbose; /* FUZZ_VERBOSE=1: rank 0's counters per input */
static unsigned char *sendbuf;       /* SEND_MAX bytes of pattern, never freed */

static void die(const char *why)
{
    fprintf(stderr, "fuzz_fifo: invariant violated: %s\n", why);
    abort();
}

static unsigned char *rb_data(rbuf_t *b)
{
    return b->mem + GUARD;
}

static void world_open(void)
{
    int i, k;

    memset(&W, 0, sizeof(W));
    W.g = tl_self_group_create(NR);
    if (!W.g)
        die("group");
    tl_self_group_select(W.g);
    for (i = 0; i < NR; i++) {
        mbcf_params_t mp = {.rank = i, .size = NR, .credits = 64 * 1024, .fifo_credits = 0, .write_chunk = 0};
        tl_params_t tp = {.rank = i, .size = NR, .provider = NULL, .fifo_buf_size = 0, .fifo_buf_count = 0,
                          .min_fifo_free = 70000};
        proto_params_t pp = {.rank = i,
                             .size = NR,
                             .eager_only = 0,
                             .eager_limit = 4096,
                             .req_min = 0,
                             .req_max = 8,
                             .rts_read = 1};
        tl_callbacks_t cb;

        if (mbcf_create(&mp, &W.m[i]) != UT_OK)
            die("mbcf_create");
        mbcf_tl_callbacks(W.m[i], &cb);
        if (i == 0)
            W.cb0 = cb;
        if (tl_self_ops.open(&tp, &cb, &W.tl[i]) != UT_OK)
            die("tl open");
        mbcf_attach(W.m[i], W.tl[i]);
        if (proto_create(W.m[i], &pp, &W.p[i]) != UT_OK)
            die("proto_create");
        for (k = 0; k < NCTX; k++)
            proto_comm_init(&W.pc[i][k], (uint32_t)k);
    }
}

static void progress_all(int rounds)
{
    int n, i;

    for (n = 0; n < rounds; n++) {
        int ev = 0;
        for (i = 0; i < NR; i++)
            ev += proto_progress(W.p[i]);
        if (!ev && n > 2)
            break;
    }
}

static void check_guards(void)
{
    int i;
    size_t j;

    for (i = 0; i < NRECV; i++) {
        rbuf_t *b = &W.rb[i];
        if (!b->mem)
            continue;
        for (j = 0; j < GUARD; j++)
            if (b->mem[j] != GUARD_BYTE || b->mem[GUARD + b->cap + j] != GUARD_BYTE)
                die("receive buffer guard overwritten");
    }
}

static void check_completions(void)
{
    int i;

    for (i = 0; i < NRECV; i++) {
        proto_req_t *r = &W.rr[i];
        if (!W.rr_used[i] || !r->done || r->cancelled)
            continue;
        if (r->st_err == UT_OK && r->st_len > r->len)
            die("receive completed OK with more bytes than its buffer");
        /* st_src is the sender's claimed rank in the communicator: proto
         * cannot bound it (it does not know communicator sizes), only
         * refuse negative ones */
        if (r->st_src < 0)
            die("receive completed with a negative source");
        if (verbose && r->st_src >= NR)
            fprintf(stderr, "receive %d (peer %d) completed with source %d, tag %d, len %zu\n", i, r->peer,
                    r->st_src, r->st_tag, r->st_len);
    }
}

static void world_close(void)
{
    int i;

    check_guards();
    check_completions();
    for (i = NR - 1; i >= 0; i--) {
        proto_destroy(W.p[i]);
        mbcf_destroy(W.m[i]);
        tl_close(W.tl[i]);
    }
    tl_self_group_destroy(W.g);
    for (i = 0; i < NRECV; i++)
        free(W.rb[i].mem);
    memset(&W, 0, sizeof(W));
}

/* Posts a receive at rank 0 in a free slot; size in bytes. */
static void post_recv(int peer, int tag, int ctx, size_t cap)
{
    int i, src;

    for (i = 0; i < NRECV; i++)
        if (!W.rr_used[i])
            break;
    if (i == NRECV)
        return;
    W.rb[i].cap = cap;
    W.rb[i].mem = malloc(cap + 2 * GUARD);
    if (!W.rb[i].mem)
        die("malloc");
    memset(W.rb[i].mem, GUARD_BYTE, cap + 2 * GUARD);
    src = peer; /* world communicator: comm rank == world rank */
    if (proto_irecv(W.p[0], &W.rr[i], rb_data(&W.rb[i]), cap, peer, src, (uint32_t)ctx, tag, &W.pc[0][ctx]) !=
        UT_OK) {
        free(W.rb[i].mem);
        W.rb[i].mem = NULL;
        return;
    }
    W.rr_used[i] = 1;
}

static void post_send(proto_t *p, proto_req_t *reqs, int *used, int me, int peer, size_t len, int tag, int sync)
{
    int i;

    for (i = 0; i < NSEND; i++)
        if (!used[i])
            break;
    if (i == NSEND)
        return;
    if (proto_isend(p, &reqs[i], sendbuf, len, peer, me, 1, tag, sync) == UT_OK)
        used[i] = 1;
}

static const size_t size_class[8] = {0, 1, 64, 200, 4096, 4097, 20000, SEND_MAX};

/* The state every input starts from. */
static void world_populate(void)
{
    post_recv(1, 5, 1, 8192);          /* named, REQ to rank 1 */
    post_recv(1, PROTO_ANY, 1, 300);   /* named, second REQ in the chain */
    post_recv(2, 9, 1, 100000);        /* named, REQ to rank 2 */
    post_recv(1, 5, 2, 64);            /* other communicator */
    post_recv(PROTO_ANY, 7, 1, 1024);  /* ANY_SOURCE: no REQ */
    post_send(W.p[0], W.sr, W.sr_used, 0, 1, 20000, 3, 0); /* RTS to rank 1: waits for a CTS */
    post_send(W.p[0], W.sr, W.sr_used, 0, 2, 100, 4, 1);   /* sync send to rank 2 */
    progress_all(8);
}

static void inject_built(int ctl, const uint8_t *d, size_t n)
{
    unsigned char buf[sizeof(mbcf_hdr_t) + 65536];
    mbcf_hdr_t h;
    int src = 1 + ((ctl >> 3) & 1);
    uint32_t off = (uint32_t)((ctl >> 4) & 3);
    size_t blen = n > 3 ? n - 3 : 0;

    memset(&h, 0, sizeof(h));
    h.version = MBCF_VERSION;
    h.type = n > 0 ? (uint8_t)(d[0] % MBCF_MAX_TYPES) : 1;
    h.fifo_cr = n > 1 ? d[1] : 0;
    h.eager_cr = n > 2 ? d[2] : 0;
    h.src = (uint16_t)src;
    h.len = (uint32_t)blen;
    if (h.type == MBCF_TYPE_CREDIT) {
        h.seq = MBCF_SEQ_NONE;
    } else {
        h.seq = W.next_seq[src] + off;
        if (off == 0)
            W.next_seq[src]++;
    }
    memcpy(buf, &h, sizeof(h));
    if (blen)
        memcpy(buf + sizeof(h), d + 3, blen);
    tl_self_inject_recv(W.tl[0], buf, sizeof(h) + blen);
}

static void app_call(const uint8_t *d, size_t n)
{
    uint8_t a[5] = {0};
    int i;

    memcpy(a, d, n < sizeof(a) ? n : sizeof(a));
    switch (a[0] % 4) {
    case 0: {
        int peer = a[1] % 4 == 3 ? PROTO_ANY : a[1] % 3;
        int tag = a[2] == 0xff ? PROTO_ANY : a[2] % 16;
        post_recv(peer, tag, a[3] % NCTX, size_class[a[4] % 8] + (a[4] >> 3));
        break;
    }
    case 1:
        i = a[1] % NRECV;
        if (W.rr_used[i] && !W.rr[i].done)
            proto_cancel(W.p[0], &W.rr[i]);
        break;
    case 2: {
        int flag = 0, s = 0, t = 0;
        size_t l = 0;
        proto_iprobe(W.p[0], a[1] % 4 == 3 ? PROTO_ANY : a[1] % 3, a[2] % NCTX, a[3] == 0xff ? PROTO_ANY : a[3] % 16,
                     &flag, &s, &t, &l);
        break;
    }
    default:
        post_send(W.p[0], W.sr, W.sr_used, 0, 1 + (a[1] & 1), size_class[a[2] % 8], a[3] % 16, a[1] >> 7);
        break;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    size_t i;

    (void)argc;
    (void)argv;
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    ut_log_level = -1; /* rejected input is expected: keep the log quiet */
    sendbuf = malloc(SEND_MAX);
    for (i = 0; i < SEND_MAX; i++)
        sendbuf[i] = (unsigned char)(i * 7 + 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    int ops = 0;

    world_open();
    world_populate();
    while (off < size && ops++ < MAX_OPS) {
        int ctl = data[off++];
        size_t n = 0;
        const uint8_t *d;
        uint32_t w = 0;

        if (off + 2 <= size) {
            n = (size_t)data[off] | (size_t)data[off + 1] << 8;
            off += 2;
        } else {
            off = size;
        }
        if (n > size - off)
            n = size - off;
        d = data + off;
        off += n;
        switch (ctl & 7) {
        case 0:
            tl_self_inject_recv(W.tl[0], d, n);
            break;
        case 2:
            memcpy(&w, d, n < 4 ? n : 4);
            W.cb0.notify(W.cb0.arg, w);
            break;
        case 3:
            progress_all(1 + (n ? d[0] % 8 : 0));
            break;
        case 4:
            app_call(d, n);
            break;
        case 5:
            post_send(W.p[2], W.sr2, W.sr2_used, 2, 0, size_class[n ? d[0] % 8 : 0], n > 1 ? d[1] % 16 : 7,
                      n > 2 ? d[2] & 1 : 0);
            break;
        default:
            inject_built(ctl, d, n);
            break;
        }
        check_guards();
    }
    progress_all(64);
    if (verbose) {
        const mbcf_stats_t *ms = mbcf_stats(W.m[0]);
        const proto_stats_t *ps = proto_stats(W.p[0]);
        fprintf(stderr, "rank 0: fifo_recv %lu rejected %lu notifies %lu | proto rejected %llu eager %llu rts %llu "
                "write %llu unexpected %llu req_sent %llu req_killed %llu | writes refused at 1: %lu\n",
                ms->fifo_recv, ms->rejected, ms->notifies, ps->rejected, ps->eager_msgs, ps->rts_msgs,
                ps->write_msgs, ps->unexpected_msgs, ps->req_sent, ps->req_killed, tl_self_rejected_writes(W.tl[1]));
    }
    world_close();
    return 0;
}
