/*
 * tests/fuzz/gen_corpus.c: writes the seed corpora of tests/fuzz/ (valid
 * messages in the record framing of fuzz_fifo.c and fuzz_store.c).
 *
 *   cc -std=c11 -D_GNU_SOURCE -I. tests/fuzz/gen_corpus.c -o build/fuzz/gen_corpus
 *   build/fuzz/gen_corpus tests/fuzz/corpus
 *
 * FIFO seeds: mbcf headers from rank 1 (or 2) to rank 0 with fifo seqs
 * 0, 1, 2, ...; proto bodies with the layouts of proto/proto.c. The notify
 * words and send ids name the state fuzz_fifo.c's world starts with (first
 * exposure: slot 0 generation 1 = notify word 0x2; slot 1 = 0x1002; first
 * send slot: sreq 1 << 32).
 * Store seeds: HELLO/WATCH with the harness's secret, then PUT, GET, FENCE,
 * ABORT, FINI, for ranks 0 and 1 of a 2-rank job.
 */
#include "mbcf/mbcf.h"
#include "transport/boot_wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { T_CREDIT = 0, T_EAGER = 1, T_RTS, T_REQ, T_CTS, T_WDONE, T_CANCEL, T_CANCEL_ACK };

typedef struct { uint32_t ctx; int32_t tag; int32_t src; uint32_t seq; uint64_t len; } env_t;
typedef struct {
    uint32_t ctx;
    int32_t tag;
    int32_t src;
    uint32_t seq;
} eager_t; /* length: the message's */
typedef struct { env_t env; uint64_t sreq; uint32_t sync; uint32_t pad; } rts_t;
typedef struct { uint32_t ctx; int32_t tag; uint32_t seq; uint32_t base; uint32_t notify; uint32_t pad;
                 uint64_t chunk; tl_rkey_t rkey; } req_t;
typedef struct { uint64_t sreq; uint32_t notify; uint32_t flags; uint64_t chunk; tl_rkey_t rkey; } cts_t;
typedef struct { uint32_t notify; uint32_t seq; int32_t tag; uint32_t chunks; uint64_t len; } wdone_t;
typedef struct { uint32_t seq; uint32_t notify; uint32_t result; uint32_t pad; } cancel_t;

static const char SECRET[] = "0123456789abcdef0123456789abcdef";

static unsigned char out[1 << 16];
static size_t outlen;
static char dir[4096];
static int nfiles;

static void rec(int ctl, const void *d, size_t n)
{
    out[outlen++] = (unsigned char)ctl;
    out[outlen++] = (unsigned char)n;
    out[outlen++] = (unsigned char)(n >> 8);
    if (n)
        memcpy(out + outlen, d, n);
    outlen += n;
}

static void flush(const char *name)
{
    char path[8192];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(out, 1, outlen, f) != outlen || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    outlen = 0;
    nfiles++;
}

/* ---------------------------------------------------------------- fifo */

static uint32_t seq_of[3];

/* op 0: a whole mbcf message from src with the next fifo seq */
static void fifo_raw(int src, int type, const void *hdr, size_t hlen, const void *pl, size_t plen)
{
    unsigned char buf[sizeof(mbcf_hdr_t) + 8192];
    mbcf_hdr_t h = {.version = MBCF_VERSION, .type = (uint8_t)type, .src = (uint16_t)src,
                    .seq = type == T_CREDIT ? MBCF_SEQ_NONE : seq_of[src]++, .len = (uint32_t)(hlen + plen)};
    if (type == T_CREDIT) {
        h.fifo_cr = 1;
        h.eager_cr = 0;
    }
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), hdr, hlen);
    if (plen)
        memcpy(buf + sizeof(h) + hlen, pl, plen);
    rec(0, buf, sizeof(h) + hlen + plen);
}

/* op 1: the harness builds the header (type, credits, body) */
static void fifo_auto(int src, int type, const void *hdr, size_t hlen, const void *pl, size_t plen)
{
    unsigned char buf[3 + 8192];
    buf[0] = (unsigned char)type;
    buf[1] = 0;
    buf[2] = 0;
    memcpy(buf + 3, hdr, hlen);
    if (plen)
        memcpy(buf + 3 + hlen, pl, plen);
    rec(1 | (src == 2 ? 8 : 0), buf, 3 + hlen + plen);
}

static void notify(uint32_t w)
{
    rec(2, &w, 4);
}

static void progress(int n)
{
    unsigned char b = (unsigned char)n;
    rec(3, &b, 1);
}

static void app(uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3, uint8_t a4)
{
    uint8_t a[5] = {a0, a1, a2, a3, a4};
    rec(4, a, 5);
}

static env_t env(int tag, int src, uint32_t seq, uint64_t len)
{
    env_t e = {.ctx = 1, .tag = tag, .src = src, .seq = seq, .len = len};
    return e;
}

static eager_t eager(int tag, int src, uint32_t seq)
{
    eager_t e = {.ctx = 1, .tag = tag, .src = src, .seq = seq};
    return e;
}

typedef void (*fifo_fn)(int, int, const void *, size_t, const void *, size_t);

static void fifo_set(fifo_fn f, const char *pfx)
{
    char name[64];
    unsigned char pl[4096];
    size_t i;

    for (i = 0; i < sizeof(pl); i++)
        pl[i] = (unsigned char)(i * 13 + 5);

#define SEED(n)                                          \
    do {                                                 \
        snprintf(name, sizeof(name), "%s_%s", pfx, n);   \
        flush(name);                                     \
        memset(seq_of, 0, sizeof(seq_of));               \
    } while (0)

    { /* EAGER for the first posted receive (conflicts its REQ) */
        eager_t e = eager(5, 1, 0);
        f(1, T_EAGER, &e, sizeof(e), pl, 16);
        progress(4);
        SEED("eager");
    }
    { /* EAGER unexpected (tag 11), then a matching receive */
        eager_t e = eager(11, 2, 0);
        f(2, T_EAGER, &e, sizeof(e), pl, 100);
        app(0, 2, 11, 1, 2);
        progress(4);
        SEED("eager_unexp");
    }
    { /* RTS: rank 0 answers CTS for its posted receive */
        rts_t r = {.env = env(5, 1, 0, 5000), .sreq = 77, .sync = 0};
        f(1, T_RTS, &r, sizeof(r), NULL, 0);
        progress(4);
        SEED("rts");
    }
    { /* REQ for rank 0's next send to rank 1 (seq 1: its RTS was seq 0), then that send */
        req_t q = {.ctx = 1, .tag = 3, .seq = 1, .base = 1, .notify = 0x2, .chunk = 65536,
                   .rkey = {.addr = 0, .key = 0x1234, .len = 4096}};
        f(1, T_REQ, &q, sizeof(q), NULL, 0);
        app(3, 0, 3, 3, 0);
        progress(8);
        SEED("req");
    }
    { /* CTS for rank 0's RTS (first send slot, generation 1) */
        cts_t c = {.sreq = (uint64_t)1 << 32, .notify = 0x2, .flags = 0, .chunk = 65536,
                   .rkey = {.addr = 0, .key = 0x99, .len = 20000}};
        f(1, T_CTS, &c, sizeof(c), NULL, 0);
        progress(8);
        SEED("cts");
    }
    { /* the write protocol seen from rank 0: notify for slot 0, then WDONE */
        wdone_t w = {.notify = 0x2, .seq = 0, .tag = 5, .chunks = 1, .len = 100};
        notify(0x2);
        f(1, T_WDONE, &w, sizeof(w), NULL, 0);
        progress(4);
        SEED("wdone");
    }
    { /* exact notify (no WDONE needed) */
        notify(0x3);
        progress(4);
        SEED("notify_exact");
    }
    { /* CREDIT */
        f(1, T_CREDIT, NULL, 0, NULL, 0);
        progress(2);
        SEED("credit");
    }
    { /* CANCEL of a REQ rank 1 "sent" (rank 0 answers CANCEL_ACK) */
        cancel_t c = {.seq = 0, .notify = 0x2, .result = 0};
        f(1, T_CANCEL, &c, sizeof(c), NULL, 0);
        progress(4);
        SEED("cancel");
    }
    { /* rank 0 cancels its first receive; rank 1 acknowledges: disarmed */
        cancel_t c = {.seq = 0, .notify = 0x2, .result = 0};
        app(1, 0, 0, 0, 0);
        progress(2);
        f(1, T_CANCEL_ACK, &c, sizeof(c), NULL, 0);
        progress(4);
        SEED("cancel_ack");
    }
    { /* in order and out of order: seq 0 eager, seq 2 eager (held), seq 1 RTS */
        eager_t e0 = eager(5, 1, 0), e2 = eager(7, 1, 2);
        rts_t r = {.env = env(5, 1, 1, 9000), .sreq = 5, .sync = 1};
        f(1, T_EAGER, &e0, sizeof(e0), pl, 32);
        if (f == fifo_raw) {
            seq_of[1] = 2;
            f(1, T_EAGER, &e2, sizeof(e2), pl, 64);
            seq_of[1] = 1;
            f(1, T_RTS, &r, sizeof(r), NULL, 0);
        } else {
            f(1, T_RTS, &r, sizeof(r), NULL, 0);
            f(1, T_EAGER, &e2, sizeof(e2), pl, 64);
        }
        progress(8);
        SEED("reorder");
    }
    { /* real traffic from rank 2 and an iprobe */
        uint8_t s[3] = {4, 9, 0};
        rec(5, s, 3);
        progress(8);
        app(2, 3, 1, 0xff, 0);
        progress(8);
        SEED("rank2_send");
    }
    { /* a large eager payload to the ANY_SOURCE receive (tag 7) */
        eager_t e = eager(7, 2, 0);
        f(2, T_EAGER, &e, sizeof(e), pl, 1000);
        progress(4);
        SEED("eager_any");
    }
}

/* ---------------------------------------------------------------- store */

static void store_msg(int conn, int type, const void *key, size_t klen, const void *val, size_t vlen)
{
    unsigned char buf[BOOT_WIRE_MSG_MAX];
    boot_wire_hdr_t h;

    boot_wire_hdr_pack(&h, type, klen, vlen);
    memcpy(buf, &h, sizeof(h));
    if (klen)
        memcpy(buf + sizeof(h), key, klen);
    if (vlen)
        memcpy(buf + sizeof(h) + klen, val, vlen);
    rec(conn & 3, buf, sizeof(h) + klen + vlen);
}

static void hello(int conn, int type, uint32_t rank, uint32_t size)
{
    uint8_t v[8];
    boot_wire_put_u32(v, rank);
    boot_wire_put_u32(v + 4, size);
    store_msg(conn, type, SECRET, 32, v, 8);
}

static void store_set(void)
{
    uint8_t val[600];
    uint8_t ab[40];
    size_t i;

    for (i = 0; i < sizeof(val); i++)
        val[i] = (uint8_t)i;

    /* one rank's whole life: HELLO, WATCH, PUT, GET, GET (missing), FENCE, FINI */
    hello(0, BOOT_MSG_HELLO, 0, 2);
    hello(1, BOOT_MSG_WATCH, 0, 2);
    store_msg(0, BOOT_MSG_PUT, "addr-0", 6, val, 64);
    store_msg(0, BOOT_MSG_GET, "addr-0", 6, NULL, 0);
    store_msg(0, BOOT_MSG_GET, "addr-1", 6, NULL, 0);
    store_msg(0, BOOT_MSG_FENCE, NULL, 0, NULL, 0);
    store_msg(0, BOOT_MSG_FINI, NULL, 0, NULL, 0);
    flush("store_life");

    /* two ranks meet at a fence, exchange, finish */
    hello(0, BOOT_MSG_HELLO, 0, 2);
    hello(2, BOOT_MSG_HELLO, 1, 2);
    hello(1, BOOT_MSG_WATCH, 0, 2);
    hello(3, BOOT_MSG_WATCH, 1, 2);
    store_msg(0, BOOT_MSG_PUT, "k0", 2, val, 600);
    store_msg(2, BOOT_MSG_PUT, "k1", 2, val, 0);
    store_msg(0, BOOT_MSG_FENCE, NULL, 0, NULL, 0);
    store_msg(2, BOOT_MSG_FENCE, NULL, 0, NULL, 0);
    store_msg(0, BOOT_MSG_GET, "k1", 2, NULL, 0);
    store_msg(2, BOOT_MSG_GET, "k0", 2, NULL, 0);
    store_msg(0, BOOT_MSG_PUT, "k0", 2, val, 10); /* overwrite */
    store_msg(0, BOOT_MSG_FINI, NULL, 0, NULL, 0);
    store_msg(2, BOOT_MSG_FINI, NULL, 0, NULL, 0);
    rec(4 << 2 | 0, NULL, 0); /* close after FINI */
    rec(4 << 2 | 2, NULL, 0);
    flush("store_two");

    /* ABORT on the watch connection */
    hello(0, BOOT_MSG_HELLO, 1, 2);
    hello(1, BOOT_MSG_WATCH, 1, 2);
    boot_wire_put_u32(ab, 3);
    memcpy(ab + 4, "rank 1 gave up\n\x01", 16);
    store_msg(1, BOOT_MSG_ABORT, NULL, 0, ab, 20);
    flush("store_abort");

    /* a fence that cannot complete: rank 1 exits */
    hello(0, BOOT_MSG_HELLO, 0, 2);
    store_msg(0, BOOT_MSG_FENCE, NULL, 0, NULL, 0);
    {
        uint8_t g = 2; /* rank_gone(2 % 3 - 1 = 1) */
        rec(5 << 2, &g, 1);
    }
    flush("store_fence_stuck");

    /* a message split over several writes, then the connection lost */
    {
        unsigned char buf[64];
        boot_wire_hdr_t h;
        uint8_t v[8];
        boot_wire_put_u32(v, 1);
        boot_wire_put_u32(v + 4, 2);
        boot_wire_hdr_pack(&h, BOOT_MSG_HELLO, 32, 8);
        memcpy(buf, &h, 8);
        memcpy(buf + 8, SECRET, 32);
        memcpy(buf + 40, v, 8);
        rec(0, buf, 5);
        rec(0, buf + 5, 30);
        rec(0, buf + 35, 13);
        store_msg(0, BOOT_MSG_PUT, "x", 1, val, 100);
        rec(4 << 2, NULL, 0);
        flush("store_split");
    }

    /* a slow unauthenticated connection expires; a reconnect joins */
    {
        uint8_t t[4] = {0x20, 0x4e, 0, 0}; /* +20000 ms (mod 20000: 0) -> use 15000 */
        t[0] = 0x98;
        t[1] = 0x3a; /* 15000 */
        rec(0, "\x01\x01", 2);
        rec(6 << 2, t, 4);
        rec(7 << 2, NULL, 0);
        hello(0, BOOT_MSG_HELLO, 0, 2);
        flush("store_expire");
    }
}

int main(int argc, char **argv)
{
    const char *top = argc > 1 ? argv[1] : "tests/fuzz/corpus";

    snprintf(dir, sizeof(dir), "%s/fifo", top);
    mkdir(top, 0755);
    mkdir(dir, 0755);
    fifo_set(fifo_raw, "raw");
    fifo_set(fifo_auto, "auto");
    snprintf(dir, sizeof(dir), "%s/store", top);
    mkdir(dir, 0755);
    store_set();
    printf("gen_corpus: %d files under %s\n", nfiles, top);
    return 0;
}
