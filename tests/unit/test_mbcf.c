/*
 * tests/unit/test_mbcf.c: unit tests of mbcf/ (memory-based FIFO with
 * handlers, per-peer FIFO sequence numbers and reordering, credits, remote
 * write with chunking and notification, NO_RESOURCE retries) over the self
 * transport, 2 or 3 ranks in one process.
 *
 * Not covered: the FIFO seq wrapping at 2^32 (reaching it needs 4 billion
 * messages or access to mbcf.c's private peer table); the signed distance
 * used for it is checked from the receive side (far-behind and far-ahead
 * seqs) instead.
 *
 * Build (from the top directory):
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O0 -g -I. -Impi/include tests/unit/test_mbcf.c \
 *      proto/proto.c mbcf/mbcf.c transport/self.c util/log.c util/status.c -lcmocka -o build/unit/test_mbcf
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mbcf/mbcf.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

#define MAXR 3
#define A 0
#define B 1
#define C 2
#define KIB ((size_t)1024)
#define MIB ((size_t)1024 * 1024)
#define TYPE_X 3
#define TYPE_Y 5
#define MAXREC 4096

typedef struct rec {
    int type, src;
    size_t len;
    unsigned char *bytes;
} rec_t;

static struct {
    int n;
    tl_self_group_t *g;
    mbcf_t *m[MAXR];
    tl_t *tl[MAXR];
    int saved_log_level;
    /* what rank B's handlers saw */
    rec_t rec[MAXREC];
    int nrec;
    uint32_t notes[MAXREC];
    int nnotes;
    /* op completions */
    int cb_calls;
    int cb_status;
} W;

static void on_msg(void *arg, int src, const void *msg, size_t len)
{
    rec_t *r;
    assert_true(W.nrec < MAXREC);
    r = &W.rec[W.nrec++];
    r->type = (int)(intptr_t)arg;
    r->src = src;
    r->len = len;
    r->bytes = malloc(len ? len : 1);
    assert_non_null(r->bytes);
    if (len)
        memcpy(r->bytes, msg, len);
}

static void on_notify(void *arg, uint32_t data)
{
    (void)arg;
    assert_true(W.nnotes < MAXREC);
    W.notes[W.nnotes++] = data;
}

static void on_op(mbcf_op_t *op, int status)
{
    (void)op;
    W.cb_calls++;
    W.cb_status = status;
}

static void clear_recs(void)
{
    int i;
    for (i = 0; i < W.nrec; i++)
        free(W.rec[i].bytes);
    W.nrec = 0;
    W.nnotes = 0;
}

static int world_open_fifo(int n, size_t credits, size_t write_chunk, size_t max_msg, size_t fifo_credits)
{
    int i;

    memset(&W, 0, sizeof(W));
    W.n = n;
    W.saved_log_level = ut_log_level;
    W.g = tl_self_group_create(n);
    if (!W.g)
        return -1;
    for (i = 0; i < n; i++) {
        mbcf_params_t mp = {.rank = i, .size = n, .credits = credits, .fifo_credits = fifo_credits,
                            .write_chunk = write_chunk};
        tl_params_t tp = {.rank = i, .size = n, .provider = NULL, .fifo_buf_size = 0, .fifo_buf_count = 0,
                          .min_fifo_free = max_msg};
        tl_callbacks_t cb;

        if (mbcf_create(&mp, &W.m[i]) != UT_OK)
            return -1;
        mbcf_tl_callbacks(W.m[i], &cb);
        if (tl_self_ops.open(&tp, &cb, &W.tl[i]) != UT_OK)
            return -1;
        mbcf_attach(W.m[i], W.tl[i]);
        mbcf_set_handler(W.m[i], TYPE_X, on_msg, (void *)(intptr_t)TYPE_X);
        mbcf_set_handler(W.m[i], TYPE_Y, on_msg, (void *)(intptr_t)TYPE_Y);
        mbcf_set_notify_handler(W.m[i], on_notify, NULL);
    }
    return 0;
}

static int world_open(int n, size_t credits, size_t write_chunk)
{
    return world_open_fifo(n, credits, write_chunk, 70000, 0);
}

static void world_close(void)
{
    int i;
    clear_recs();
    for (i = W.n - 1; i >= 0; i--) {
        mbcf_destroy(W.m[i]);
        tl_close(W.tl[i]);
    }
    tl_self_group_destroy(W.g);
    ut_log_level = W.saved_log_level;
}

static int setup2(void **state)
{
    (void)state;
    return world_open(2, 64 * KIB, 0);
}
static int setup3(void **state)
{
    (void)state;
    return world_open(3, 64 * KIB, 0);
}
static int setup2_chunk(void **state)
{
    (void)state;
    return world_open(2, 64 * KIB, 1000);
}
static int teardown(void **state)
{
    (void)state;
    world_close();
    return 0;
}

static void progress_all(void)
{
    long it;
    for (it = 0; it < 100000; it++) {
        unsigned long r0 = 0, r1 = 0;
        int ev = 0, i;
        for (i = 0; i < W.n; i++)
            r0 += mbcf_stats(W.m[i])->retries;
        for (i = 0; i < W.n; i++)
            ev += mbcf_progress(W.m[i]);
        for (i = 0; i < W.n; i++)
            r1 += mbcf_stats(W.m[i])->retries;
        if (!ev && r0 == r1)
            return;
    }
    fail_msg("progress_all: never quiet");
}

static unsigned char pat(unsigned seed, size_t i)
{
    return (unsigned char)(seed * 29u + (unsigned)i * 11u + (unsigned)(i >> 8) + 3u);
}
static void fill(void *buf, size_t len, unsigned seed)
{
    size_t i;
    for (i = 0; i < len; i++)
        ((unsigned char *)buf)[i] = pat(seed, i);
}
static int pattern_ok(const void *buf, size_t len, unsigned seed)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (((const unsigned char *)buf)[i] != pat(seed, i))
            return 0;
    return 1;
}

/* The handler saw, as record i, hdr (hlen bytes of seed hs) + payload (plen of seed ps). */
static void check_rec(int i, int type, int src, size_t hlen, unsigned hs, size_t plen, unsigned ps)
{
    assert_true(i < W.nrec);
    assert_int_equal(W.rec[i].type, type);
    assert_int_equal(W.rec[i].src, src);
    assert_int_equal(W.rec[i].len, hlen + plen);
    assert_true(pattern_ok(W.rec[i].bytes, hlen, hs));
    assert_true(pattern_ok(W.rec[i].bytes + hlen, plen, ps));
}

/* Raw FIFO bytes into `dst` as if from `src`; credits: the eager credit
 * field (units of MBCF_CREDIT_UNIT). */
static void inject(int dst, int src, int type, uint32_t seq, uint16_t credits, const void *body, size_t blen)
{
    unsigned char buf[256];
    mbcf_hdr_t h = {.version = MBCF_VERSION, .type = (uint8_t)type, .src = (uint16_t)src, .seq = seq,
                    .len = (uint32_t)blen, .eager_cr = credits};
    assert_true(sizeof(h) + blen <= sizeof(buf));
    memcpy(buf, &h, sizeof(h));
    if (blen)
        memcpy(buf + sizeof(h), body, blen);
    tl_self_inject_recv(W.tl[dst], buf, sizeof(h) + blen);
}

/* ------------------------------------------------------------------ */

static void test_fifo_basic(void **state)
{
    static unsigned char h[64], pl[70000];
    static mbcf_op_t ops[4];
    (void)state;

    ops[0].cb = ops[1].cb = on_op;

    assert_int_equal(mbcf_fifo_max(W.m[A]), 70000 - sizeof(mbcf_hdr_t));
    /* inline: header and payload copied */
    fill(h, 8, 1);
    fill(pl, 20, 2);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, h, 8, pl, 20, NULL), UT_OK);
    memset(h, 0, sizeof(h)); /* copied: the caller's bytes may change */
    memset(pl, 0, 20);
    assert_int_equal(W.nrec, 0); /* nothing before the target progresses */
    progress_all();
    assert_int_equal(W.nrec, 1);
    check_rec(0, TYPE_X, A, 8, 1, 20, 2);
    assert_int_equal(mbcf_stats(W.m[A])->fifo_sent, 1);
    assert_int_equal(mbcf_stats(W.m[B])->fifo_recv, 1);

    /* header only, payload only, empty */
    fill(h, 64, 3);
    fill(pl, 100, 4);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, h, 64, NULL, 0, NULL), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, NULL, 0, pl, 100, NULL), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, NULL, 0, NULL, 0, NULL), UT_OK);
    /* with an op: payload by reference, up to fifo_max */
    fill(h, 16, 5);
    fill(pl, sizeof(pl), 6);
    W.cb_calls = 0;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, h, 16, pl, 60000, &ops[0]), UT_OK);
    assert_int_equal(W.cb_calls, 0); /* done at once: no callback */
    progress_all();
    assert_int_equal(W.nrec, 5);
    check_rec(1, TYPE_Y, A, 64, 3, 0, 0);
    check_rec(2, TYPE_Y, A, 0, 0, 100, 4);
    check_rec(3, TYPE_X, A, 0, 0, 0, 0);
    check_rec(4, TYPE_X, A, 16, 5, 60000, 6);

    /* too large: refused without using a sequence number */
    ut_log_level = -1;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, h, 64, pl, MBCF_INLINE_MAX, NULL), UT_ERR_INVALID_PARAM);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, h, 16, pl, mbcf_fifo_max(W.m[A]) - 15, &ops[1]),
                     UT_ERR_INVALID_PARAM);
    ut_log_level = W.saved_log_level;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, h, 16, pl, mbcf_fifo_max(W.m[A]) - 16, &ops[1]), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, h, 1, NULL, 0, NULL), UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 7);
    check_rec(5, TYPE_X, A, 16, 5, mbcf_fifo_max(W.m[A]) - 16, 6);
    check_rec(6, TYPE_Y, A, 1, 5, 0, 0);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 0);

    /* the credit type is mbcf's own */
    ut_log_level = -1;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, MBCF_TYPE_CREDIT, h, 1, NULL, 0, NULL), UT_ERR_INVALID_PARAM);
    ut_log_level = W.saved_log_level;
    /* handlers cannot be set on the credit type or out of range */
    mbcf_set_handler(W.m[B], MBCF_TYPE_CREDIT, on_msg, NULL);
    mbcf_set_handler(W.m[B], MBCF_MAX_TYPES, on_msg, NULL);
    mbcf_set_handler(W.m[B], -1, on_msg, NULL);
}

/* Many messages, both directions, mixed sizes: each side sees them in order. */
static void test_fifo_order(void **state)
{
    static mbcf_op_t ops[200];
    static unsigned char pl[200][3000];
    int i;
    (void)state;

    for (i = 0; i < 200; i++) {
        size_t len = (size_t)(i * 37) % 3000;
        fill(pl[i], len, 100 + (unsigned)i);
        ops[i].cb = on_op;
        if (len + 4 <= MBCF_INLINE_MAX)
            assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, &i, sizeof(i), pl[i], len, NULL), UT_OK);
        else
            assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, &i, sizeof(i), pl[i], len, &ops[i]), UT_OK);
        if (i % 50 == 49)
            progress_all();
    }
    progress_all();
    assert_int_equal(W.nrec, 200);
    for (i = 0; i < 200; i++) {
        int k;
        size_t len = (size_t)(i * 37) % 3000;
        memcpy(&k, W.rec[i].bytes, sizeof(k));
        assert_int_equal(k, i);
        assert_int_equal(W.rec[i].len, sizeof(int) + len);
        assert_true(pattern_ok(W.rec[i].bytes + sizeof(int), len, 100 + (unsigned)i));
    }
}

/* FIFO seqs restore order: out-of-order arrivals are held, then delivered. */
static void test_reorder(void **state)
{
    static const uint32_t perm[] = {3, 1, 2, 0, 4, 9, 8, 5, 7, 6};
    unsigned char body[8];
    size_t i;
    (void)state;

    /* C never sends by itself: its seqs start at 0 */
    fill(body, 8, 1);
    inject(B, C, TYPE_X, 1, 0, body, 8);
    assert_int_equal(W.nrec, 0);
    fill(body, 8, 0);
    inject(B, C, TYPE_X, 0, 0, body, 8);
    assert_int_equal(W.nrec, 2);
    check_rec(0, TYPE_X, C, 8, 0, 0, 0);
    check_rec(1, TYPE_X, C, 8, 1, 0, 0);

    /* a permutation of the next ten */
    clear_recs();
    for (i = 0; i < sizeof(perm) / sizeof(perm[0]); i++) {
        fill(body, 8, 10 + perm[i]);
        inject(B, C, perm[i] % 2 ? TYPE_Y : TYPE_X, 2 + perm[i], 0, body, 8);
    }
    assert_int_equal(W.nrec, 10);
    for (i = 0; i < 10; i++)
        check_rec((int)i, i % 2 ? TYPE_Y : TYPE_X, C, 8, 10 + (unsigned)i, 0, 0);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 0);
    assert_int_equal(mbcf_stats(W.m[B])->fifo_recv, 12);

    /* per source: A's own seqs are independent of C's */
    clear_recs();
    fill(body, 8, 50);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, body, 8, NULL, 0, NULL), UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 1);
    check_rec(0, TYPE_X, A, 8, 50, 0, 0);

    /* far behind (old or wrapped) is refused; far ahead is held */
    ut_log_level = -1;
    inject(B, C, TYPE_X, 12 - 1, 0, body, 8);
    inject(B, C, TYPE_X, 12 + 0x80000000u, 0, body, 8);
    inject(B, C, TYPE_X, 12 - 0x7fffffffu, 0, body, 8);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 3);
    inject(B, C, TYPE_X, 12 + 0x7fffffffu, 0, body, 8); /* held until destroy (valgrind: freed) */
    inject(B, C, TYPE_X, 12 + 1000, 0, body, 8);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 3);
    assert_int_equal(W.nrec, 1);
    /* a held duplicate is refused */
    inject(B, C, TYPE_X, 12 + 1000, 0, body, 8);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 4);
    /* a header B cannot hand to anybody does not move the seq either */
    inject(B, C, 9, 12, 0, body, 8);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 5);
    fill(body, 8, 60);
    inject(B, C, TYPE_Y, 12, 0, body, 8);
    assert_int_equal(W.nrec, 2);
    check_rec(1, TYPE_Y, C, 8, 60, 0, 0);
}

#define U MBCF_CREDIT_UNIT

/* Eager credits, in units of MBCF_CREDIT_UNIT bytes (rounded up). */
static void test_credits(void **state)
{
    unsigned char x = 1;
    (void)state;

    /* the full window (64 KiB), then nothing */
    assert_int_equal(mbcf_credits_take(W.m[A], B, 64 * KIB - U), 1);
    assert_int_equal(mbcf_credits_take(W.m[A], B, U + 1), 0); /* two units */
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 1);     /* one unit */
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 0);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 0), 1);
    /* other peers have their own window */
    assert_int_equal(mbcf_credits_take(W.m[A], C, 64 * KIB), 1);
    assert_int_equal(mbcf_credits_take(W.m[B], A, 64 * KIB), 1);

    /* less than a quarter: rides on the next message B -> A */
    mbcf_credits_return(W.m[B], A, 1000); /* 4 units */
    assert_int_equal(mbcf_stats(W.m[B])->credit_msgs, 0);
    progress_all();
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 0);
    assert_int_equal(mbcf_fifo_send(W.m[B], A, TYPE_X, &x, 1, NULL, 0, NULL), UT_OK);
    progress_all();
    assert_int_equal(mbcf_credits_take(W.m[A], B, 4 * U + 1), 0);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 4 * U), 1);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 0);
    clear_recs();

    /* a quarter or more: a CREDIT message of its own, not seen by handlers */
    mbcf_credits_return(W.m[B], A, 16 * KIB);
    assert_int_equal(mbcf_stats(W.m[B])->credit_msgs, 1);
    progress_all();
    assert_int_equal(mbcf_credits_take(W.m[A], B, 16 * KIB), 1);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 0);
    assert_int_equal(W.nrec, 0);

    /* more returned than was ever given: clamped, counted */
    ut_log_level = -1;
    mbcf_credits_return(W.m[B], A, 100 * KIB);
    progress_all();
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 1);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 64 * KIB), 1);
    assert_int_equal(mbcf_credits_take(W.m[A], B, 1), 0);
    /* and through raw bytes: CREDIT messages carry MBCF_SEQ_NONE */
    inject(A, C, MBCF_TYPE_CREDIT, MBCF_SEQ_NONE, 1, NULL, 0); /* A had taken all towards C */
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 1);
    assert_int_equal(mbcf_credits_take(W.m[A], C, 1), 1);
    assert_int_equal(mbcf_credits_take(W.m[A], C, 1), 0);
    inject(A, C, MBCF_TYPE_CREDIT, MBCF_SEQ_NONE, 64 * KIB / U + 1, NULL, 0); /* one unit too many */
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 2);
    assert_int_equal(mbcf_credits_take(W.m[A], C, 64 * KIB), 1);
    inject(A, C, MBCF_TYPE_CREDIT, 0, 0, NULL, 0); /* in the ordered stream: refused */
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 3);
    assert_int_equal(W.nrec, 0);
}

/* FIFO credits: a sender never fills more of the receiver's FIFO than it
 * was given; messages beyond wait, in order, until the receiver drains and
 * credits come back. (FIFO of 4 KiB per peer, messages up to 4 KiB.) */
static void test_fifo_credits(void **state)
{
    static mbcf_op_t ops[60];
    static unsigned char pl[60][1000];
    int i, inprog = 0;
    unsigned long waits;
    (void)state;

    world_close();
    assert_int_equal(world_open_fifo(2, 64 * KIB, 0, 4096, 4096), 0);
    W.cb_calls = 0;
    for (i = 0; i < 60; i++) {
        int rc;
        fill(pl[i], 1000, 300 + (unsigned)i);
        ops[i].cb = on_op;
        rc = mbcf_fifo_send(W.m[A], B, i % 3 ? TYPE_X : TYPE_Y, &i, sizeof(i), pl[i], 1000, &ops[i]);
        if (rc == UT_INPROGRESS)
            inprog++;
        else
            assert_int_equal(rc, UT_OK);
        if (i == 1) /* the inline kind waits too */
            assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, &i, sizeof(i), NULL, 0, NULL), UT_OK);
    }
    waits = mbcf_stats(W.m[A])->credit_waits;
    assert_true(waits > 0);
    assert_true(inprog >= 50); /* 4 KiB hold about 4 of them */
    /* only what fitted went out: B sees a few, then nothing until A hears
     * that B drained them (credits) */
    while (mbcf_progress(W.m[B]))
        ;
    assert_true(W.nrec > 0 && W.nrec <= 8);
    assert_int_equal(mbcf_stats(W.m[B])->fifo_recv, (unsigned long)W.nrec);
    progress_all();
    assert_int_equal(W.cb_calls, inprog);
    assert_int_equal(W.cb_status, UT_OK);
    assert_int_equal(W.nrec, 61);
    for (i = 0; i < 61; i++) {
        int k, j = i < 2 ? i : i - 1;
        memcpy(&k, W.rec[i].bytes, sizeof(k));
        if (i == 2) {
            assert_int_equal(k, 1);
            assert_int_equal(W.rec[i].len, sizeof(int));
            continue;
        }
        assert_int_equal(k, j);
        assert_int_equal(W.rec[i].type, j % 3 ? TYPE_X : TYPE_Y);
        assert_true(pattern_ok(W.rec[i].bytes + sizeof(int), 1000, 300 + (unsigned)j));
    }
    assert_true(mbcf_stats(W.m[B])->credit_msgs > 0);
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 0);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 0);
}

static void test_write_chunks(void **state)
{
    static mbcf_op_t op;
    unsigned char *dst = malloc(10000 + 64), *src = malloc(10000);
    mbcf_region_t reg;
    size_t i;
    (void)state;

    assert_non_null(dst);
    assert_non_null(src);
    op.cb = on_op;
    assert_int_equal(mbcf_write_chunk(W.m[A]), 1000);
    memset(dst, 0xEE, 10000 + 64);
    fill(src, 10000, 7);
    assert_int_equal(mbcf_expose(W.m[B], dst, 10000, &reg), UT_OK);

    /* 10 chunks of 1000, one notify each, all with the word */
    W.cb_calls = 0;
    assert_int_equal(mbcf_write(W.m[A], B, src, 10000, &reg.desc, 0, 0, 1, 0xabc, &op), UT_OK);
    assert_int_equal(W.cb_calls, 0);
    assert_int_equal(mbcf_stats(W.m[A])->writes, 10);
    progress_all();
    assert_int_equal(W.nnotes, 10);
    for (i = 0; i < 10; i++)
        assert_int_equal(W.notes[i], 0xabc);
    assert_int_equal(mbcf_stats(W.m[B])->notifies, 10);
    assert_true(pattern_ok(dst, 10000, 7));
    assert_int_equal(dst[10000], 0xEE);

    /* the caller's chunk: smaller is used, larger is capped */
    W.nnotes = 0;
    fill(src, 10000, 8);
    assert_int_equal(mbcf_write(W.m[A], B, src, 10000, &reg.desc, 0, 300, 1, 1, &op), UT_OK);
    progress_all();
    assert_int_equal(W.nnotes, 34);
    assert_true(pattern_ok(dst, 10000, 8));
    W.nnotes = 0;
    assert_int_equal(mbcf_write(W.m[A], B, src, 2500, &reg.desc, 0, 5000, 1, 2, &op), UT_OK);
    progress_all();
    assert_int_equal(W.nnotes, 3);

    /* at an offset, without notify */
    W.nnotes = 0;
    fill(src, 500, 9);
    assert_int_equal(mbcf_write(W.m[A], B, src, 500, &reg.desc, 9500, 0, 0, 0, &op), UT_OK);
    progress_all();
    assert_int_equal(W.nnotes, 0);
    assert_true(pattern_ok(dst + 9500, 500, 9));
    assert_int_equal(dst[10000], 0xEE);

    /* an empty write with notify: one notification */
    assert_int_equal(mbcf_write(W.m[A], B, src, 0, &reg.desc, 0, 0, 1, 3, &op), UT_OK);
    progress_all();
    assert_int_equal(W.nnotes, 1);
    assert_int_equal(W.notes[0], 3);

    /* bounds are checked on the writer too */
    ut_log_level = -1;
    assert_int_equal(mbcf_write(W.m[A], B, src, 501, &reg.desc, 9500, 0, 1, 4, &op), UT_ERR_INVALID_PARAM);
    assert_int_equal(mbcf_write(W.m[A], B, src, 1, &reg.desc, 10001, 0, 1, 4, &op), UT_ERR_INVALID_PARAM);
    ut_log_level = W.saved_log_level;

    /* NO_RESOURCE: queued, retried by progress, completes through the callback */
    W.nnotes = 0;
    W.cb_calls = 0;
    fill(src, 10000, 10);
    tl_self_fail_next(W.tl[A], 0, 3, 0, UT_ERR_NO_RESOURCE);
    assert_int_equal(mbcf_write(W.m[A], B, src, 10000, &reg.desc, 0, 0, 1, 5, &op), UT_INPROGRESS);
    assert_int_equal(W.cb_calls, 0);
    progress_all();
    assert_int_equal(W.cb_calls, 1);
    assert_int_equal(W.cb_status, UT_OK);
    assert_int_equal(W.nnotes, 10);
    assert_true(pattern_ok(dst, 10000, 10));
    assert_int_equal(mbcf_stats(W.m[A])->retries, 3);

    /* a hard error on a queued write reaches the callback */
    W.cb_calls = 0;
    tl_self_fail_next(W.tl[A], 1, 0, 0, UT_ERR_NO_RESOURCE);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, src, 4, NULL, 0, NULL), UT_OK); /* queued */
    assert_int_equal(mbcf_write(W.m[A], B, src, 10, &reg.desc, 0, 0, 1, 6, &op), UT_INPROGRESS);
    tl_self_fail_next(W.tl[A], 0, 1, 0, UT_ERR_IO);
    ut_log_level = -1;
    progress_all();
    assert_int_equal(W.cb_calls, 1);
    assert_int_equal(W.cb_status, UT_ERR_IO);

    /* revoked: the target refuses */
    mbcf_revoke(W.m[B], &reg);
    assert_null(reg.mr);
    assert_int_equal(mbcf_write(W.m[A], B, src, 10, &reg.desc, 0, 0, 1, 7, &op), UT_ERR_PERM);
    assert_int_equal(tl_self_rejected_writes(W.tl[B]), 1);
    mbcf_revoke(W.m[B], &reg); /* twice is harmless */
    free(dst);
    free(src);
}

/* The chunk size follows the transport: 0 means its max_write, more is capped. */
static void test_write_chunk_size(void **state)
{
    static mbcf_op_t op;
    size_t len = 3 * MIB + 7;
    unsigned char *dst = malloc(len), *src = malloc(len);
    mbcf_region_t reg;
    mbcf_t *m;
    mbcf_params_t mp = {.rank = A, .size = 2, .credits = 1, .write_chunk = 64 * MIB};
    (void)state;

    assert_non_null(dst);
    assert_non_null(src);
    op.cb = on_op;
    assert_int_equal(mbcf_write_chunk(W.m[A]), MIB); /* self: max_write 1 MiB */
    assert_int_equal(mbcf_create(&mp, &m), UT_OK);
    mbcf_attach(m, W.tl[A]);
    assert_int_equal(mbcf_write_chunk(m), MIB);
    mbcf_destroy(m);

    fill(src, len, 11);
    memset(dst, 0, len);
    assert_int_equal(mbcf_expose(W.m[B], dst, len, &reg), UT_OK);
    assert_int_equal(mbcf_write(W.m[A], B, src, len, &reg.desc, 0, 0, 1, 9, &op), UT_OK);
    progress_all();
    assert_int_equal(W.nnotes, 4);
    assert_true(pattern_ok(dst, len, 11));
    mbcf_revoke(W.m[B], &reg);
    free(dst);
    free(src);
}

/* NO_RESOURCE storms on sends keep FIFO order; op callbacks come once. */
static void test_send_retries(void **state)
{
    static mbcf_op_t ops[40];
    static unsigned char pl[40][1000];
    int i, inprog = 0;
    (void)state;

    tl_self_fail_next(W.tl[A], 7, 0, 0, UT_ERR_NO_RESOURCE);
    W.cb_calls = 0;
    for (i = 0; i < 40; i++) {
        int rc;
        fill(pl[i], 1000, 200 + (unsigned)i);
        ops[i].cb = on_op;
        if (i % 2)
            rc = mbcf_fifo_send(W.m[A], B, TYPE_X, &i, sizeof(i), pl[i], 100, NULL);
        else
            rc = mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[i], 1000, &ops[i]);
        if (i % 2)
            assert_int_equal(rc, UT_OK);
        else if (rc == UT_INPROGRESS)
            inprog++;
        else
            assert_int_equal(rc, UT_OK);
        if (i == 20)
            progress_all();
    }
    progress_all();
    assert_true(inprog > 0);
    assert_int_equal(W.cb_calls, inprog);
    assert_int_equal(W.cb_status, UT_OK);
    assert_true(mbcf_stats(W.m[A])->retries >= 7);
    assert_int_equal(W.nrec, 40);
    for (i = 0; i < 40; i++) {
        int k;
        memcpy(&k, W.rec[i].bytes, sizeof(k));
        assert_int_equal(k, i);
        assert_true(pattern_ok(W.rec[i].bytes + sizeof(int), i % 2 ? 100 : 1000, 200 + (unsigned)i));
    }
}

/* Over a transport that copies every send at once (caps.send_copies), a send
 * with the caller's op goes straight out and leaves the op unused; one the
 * transport refuses (NO_RESOURCE) is queued with the sequence number it
 * took, later ones wait behind it, and all arrive in order; a hard error
 * comes back from the call, without a callback, and breaks the peer. */
static void test_direct_send(void **state)
{
    static mbcf_op_t ops[5];
    static unsigned char pl[5][300];
    int i;
    (void)state;

    assert_true(mbcf_caps(W.m[A])->send_copies);
    W.cb_calls = 0;
    for (i = 0; i < 5; i++) {
        fill(pl[i], sizeof(pl[i]), 50 + (unsigned)i);
        ops[i].cb = on_op;
    }
    i = 0;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[0], 300, &ops[0]), UT_OK);
    assert_int_equal(W.cb_calls, 0);
    tl_self_fail_next(W.tl[A], 1, 0, 0, UT_ERR_NO_RESOURCE);
    i = 1;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[1], 300, &ops[1]), UT_INPROGRESS);
    i = 2;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[2], 300, &ops[2]), UT_INPROGRESS);
    assert_int_equal(mbcf_stats(W.m[A])->retries, 1);
    progress_all();
    assert_int_equal(W.cb_calls, 2);
    assert_int_equal(W.cb_status, UT_OK);
    i = 3; /* nothing queued any more: straight out again */
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[3], 300, &ops[3]), UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 4);
    for (i = 0; i < 4; i++) {
        int k;
        memcpy(&k, W.rec[i].bytes, sizeof(k));
        assert_int_equal(k, i);
        assert_true(pattern_ok(W.rec[i].bytes + sizeof(int), 300, 50 + (unsigned)i));
    }

    W.cb_calls = 0;
    tl_self_fail_next(W.tl[A], 1, 0, 0, UT_ERR_IO);
    ut_log_level = -1;
    i = 4;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[4], 300, &ops[4]), UT_ERR_IO);
    ut_log_level = W.saved_log_level;
    assert_int_equal(W.cb_calls, 0);
    assert_int_equal(mbcf_peer_status(W.m[A], B), UT_ERR_IO);
    progress_all();
    assert_int_equal(W.nrec, 4);
}

/* A hard send error (not NO_RESOURCE) consumed a sequence number the peer
 * never saw. Before the fix later messages still went out with higher seqs
 * and B held them forever waiting for the gap. Now the peer is broken: the
 * failed send and every later one report the error, none reaches B's hold
 * list, and another peer is unaffected. */
static void test_hard_send_error_breaks_peer(void **state)
{
    static mbcf_op_t ops[3];
    static unsigned char pl[3][600];
    int i, rc, v = 7;
    (void)state;

    W.nrec = 0;
    rc = mbcf_fifo_send(W.m[A], B, TYPE_X, &v, sizeof(v), NULL, 0, NULL);
    assert_int_equal(rc, UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 1);

    tl_self_fail_next(W.tl[A], 1, 0, 0, UT_ERR_IO);
    rc = mbcf_fifo_send(W.m[A], B, TYPE_X, &v, sizeof(v), NULL, 0, NULL);
    assert_int_equal(rc, UT_ERR_IO);
    assert_int_equal(mbcf_peer_status(W.m[A], B), UT_ERR_IO);
    assert_int_equal(mbcf_peer_status(W.m[A], C), UT_OK);
    for (i = 0; i < 3; i++) {
        ops[i].cb = on_op;
        rc = mbcf_fifo_send(W.m[A], B, TYPE_Y, &i, sizeof(i), pl[i], sizeof(pl[i]), &ops[i]);
        assert_int_equal(rc, UT_ERR_IO);
    }
    rc = mbcf_fifo_send(W.m[A], C, TYPE_X, &v, sizeof(v), NULL, 0, NULL);
    assert_int_equal(rc, UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 2); /* the first message to B and the one to C */
    assert_int_equal(mbcf_stats(W.m[A])->broken_peers, 1);
}

/* A FIFO window of one largest message: a small message in flight and a
 * large one waiting. The receiver owes less than a quarter of the window
 * after draining the small one and has nothing to send back; before the fix
 * it kept the credit and the large message waited forever. Both directions
 * at once too (each side's reply is itself waiting for credits). */
static void test_fifo_credits_small_window(void **state)
{
    static mbcf_op_t op[2];
    static unsigned char big[2][4000];
    unsigned char x = 7;
    int k;
    (void)state;

    world_close();
    assert_int_equal(world_open_fifo(2, 64 * KIB, 0, 4096, 4096), 0);
    op[0].cb = op[1].cb = on_op;
    fill(big[0], 4000, 400);
    fill(big[1], 4000, 401);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, &x, 1, NULL, 0, NULL), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, NULL, 0, big[0], 4000, &op[0]), UT_INPROGRESS);
    for (k = 0; k < 100 && W.cb_calls < 1; k++) {
        mbcf_progress(W.m[B]);
        mbcf_progress(W.m[A]);
    }
    assert_int_equal(W.cb_calls, 1);
    assert_int_equal(W.cb_status, UT_OK);
    progress_all();
    assert_int_equal(W.nrec, 2);
    check_rec(1, TYPE_X, A, 0, 0, 4000, 400);

    /* both ways */
    clear_recs();
    W.cb_calls = 0;
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, &x, 1, NULL, 0, NULL), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[B], A, TYPE_X, &x, 1, NULL, 0, NULL), UT_OK);
    assert_int_equal(mbcf_fifo_send(W.m[A], B, TYPE_X, NULL, 0, big[0], 4000, &op[0]), UT_INPROGRESS);
    assert_int_equal(mbcf_fifo_send(W.m[B], A, TYPE_Y, NULL, 0, big[1], 4000, &op[1]), UT_INPROGRESS);
    for (k = 0; k < 100 && W.cb_calls < 2; k++) {
        mbcf_progress(W.m[A]);
        mbcf_progress(W.m[B]);
    }
    assert_int_equal(W.cb_calls, 2);
    progress_all();
    assert_int_equal(W.nrec, 4);
    assert_int_equal(mbcf_stats(W.m[A])->rejected, 0);
    assert_int_equal(mbcf_stats(W.m[B])->rejected, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fifo_basic, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_order, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_reorder, setup3, teardown),
        cmocka_unit_test_setup_teardown(test_credits, setup3, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_credits, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_credits_small_window, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_write_chunks, setup2_chunk, teardown),
        cmocka_unit_test_setup_teardown(test_write_chunk_size, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_send_retries, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_direct_send, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_hard_send_error_breaks_peer, setup3, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
