/*
 * tests/unit/test_mprobe.c: unit tests of the matched-probe hook of proto/
 * (proto_improbe / proto_imrecv, used by MPI_Mprobe / MPI_Mrecv), 2 or 3
 * ranks in one process over the self transport (transport/self.c), under
 * valgrind with the other unit tests. Checked: a probed message leaves
 * matching (a wildcard receive posted afterwards takes the next message);
 * eager payloads and their credits; an RTS gets its CTS only at
 * proto_imrecv (the sender stays pending until then); self messages
 * (eager and synchronous); named sources (a message of another rank is not
 * found); probes beside receives that have write-protocol REQs out; and
 * nothing malformed is ever reported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mbcf/mbcf.h"
#include "proto/proto.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

#define MAXR 3
#define A 0
#define B 1
#define C 2
#define CTX 1
#define EAGER_LIMIT 4096

static struct {
    int n;
    tl_self_group_t *g;
    mbcf_t *m[MAXR];
    tl_t *tl[MAXR];
    proto_t *p[MAXR];
    proto_comm_t pc[MAXR];
} W;

static int world_open(int n)
{
    int i;

    memset(&W, 0, sizeof(W));
    W.n = n;
    W.g = tl_self_group_create(n);
    if (!W.g)
        return -1;
    for (i = 0; i < n; i++) {
        mbcf_params_t mp = {.rank = i, .size = n, .credits = 64 * 1024};
        tl_params_t tp = {.rank = i, .size = n, .min_fifo_free = 70000};
        proto_params_t pp = {.rank = i, .size = n, .eager_limit = EAGER_LIMIT, .req_max = 8};
        tl_callbacks_t cb;

        if (mbcf_create(&mp, &W.m[i]) != UT_OK)
            return -1;
        mbcf_tl_callbacks(W.m[i], &cb);
        if (tl_self_ops.open(&tp, &cb, &W.tl[i]) != UT_OK)
            return -1;
        mbcf_attach(W.m[i], W.tl[i]);
        if (proto_create(W.m[i], &pp, &W.p[i]) != UT_OK)
            return -1;
        proto_comm_init(&W.pc[i], CTX);
    }
    return 0;
}

static int setup2(void **state)
{
    (void)state;
    return world_open(2);
}

static int setup3(void **state)
{
    (void)state;
    return world_open(3);
}

static int teardown(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < W.n; i++) {
        assert_int_equal(proto_stats(W.p[i])->rejected, 0);
        assert_int_equal(mbcf_stats(W.m[i])->rejected, 0);
    }
    for (i = W.n - 1; i >= 0; i--) {
        proto_destroy(W.p[i]);
        mbcf_destroy(W.m[i]);
        tl_close(W.tl[i]);
    }
    tl_self_group_destroy(W.g);
    return 0;
}

static void progress_all(void)
{
    int it, i, ev;
    for (it = 0; it < 100000; it++) {
        for (ev = 0, i = 0; i < W.n; i++)
            ev += proto_progress(W.p[i]);
        if (!ev)
            return;
    }
    fail_msg("the ranks never went quiet");
}

static void *payload(size_t len, unsigned seed)
{
    unsigned char *b = malloc(len ? len : 1);
    size_t i;
    assert_non_null(b);
    for (i = 0; i < len; i++)
        b[i] = (unsigned char)(seed * 31u + i * 7u + (i >> 8));
    return b;
}

static void isend(int from, proto_req_t *r, const void *buf, size_t len, int to, int tag, int sync)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(proto_isend(W.p[from], r, buf, len, to, from, CTX, tag, sync), UT_OK);
}

static void irecv(int at, proto_req_t *r, void *buf, size_t len, int from, int tag)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(proto_irecv(W.p[at], r, buf, len, from, from, CTX, tag, &W.pc[at]), UT_OK);
}

/* improbe at rank `at` for (from, tag); asserts found == expect */
static proto_msg_t *probe(int at, int from, int tag, int expect, int *src_p, int *tag_p, size_t *len_p)
{
    proto_msg_t *m = NULL;
    int flag = -1, s = -9, t = -9;
    size_t len = 0;

    assert_int_equal(proto_improbe(W.p[at], from, from, CTX, tag, &flag, &m, &s, &t, &len), UT_OK);
    assert_int_equal(flag, expect);
    if (src_p)
        *src_p = s;
    if (tag_p)
        *tag_p = t;
    if (len_p)
        *len_p = len;
    return m;
}

static void mrecv(int at, proto_req_t *r, void *buf, size_t len, proto_msg_t *m)
{
    memset(r, 0, sizeof(*r));
    assert_int_equal(proto_imrecv(W.p[at], r, buf, len, m), UT_OK);
}

static void check_done(const proto_req_t *r, int src, int tag, size_t len, const void *want, const void *got)
{
    assert_true(r->done);
    assert_int_equal(r->st_err, UT_OK);
    assert_int_equal(r->st_src, src);
    assert_int_equal(r->st_tag, tag);
    assert_int_equal(r->st_len, len);
    assert_memory_equal(want, got, len);
}

/* An eager message, once probed, is out of matching. */
static void test_eager_taken(void **state)
{
    proto_req_t s1, s2, r, mr;
    char *d1 = payload(100, 1), *d2 = payload(50, 2), b1[100], b2[100];
    proto_msg_t *m;
    size_t len;
    int src, tag;

    (void)state;
    isend(A, &s1, d1, 100, B, 5, 0);
    progress_all();
    m = probe(B, PROTO_ANY, PROTO_ANY, 1, &src, &tag, &len);
    assert_int_equal(src, A);
    assert_int_equal(tag, 5);
    assert_int_equal(len, 100);
    probe(B, PROTO_ANY, PROTO_ANY, 0, NULL, NULL, NULL);
    /* a wildcard receive now waits for the next message */
    irecv(B, &r, b2, sizeof b2, PROTO_ANY, PROTO_ANY);
    progress_all();
    assert_false(r.done);
    isend(A, &s2, d2, 50, B, 6, 0);
    progress_all();
    check_done(&r, A, 6, 50, d2, b2);
    mrecv(B, &mr, b1, sizeof b1, m);
    check_done(&mr, A, 5, 100, d1, b1);
    assert_true(s1.done && s2.done);
    free(d1);
    free(d2);
}

/* An RTS gets its CTS only when the buffer is given: the sender waits. */
static void test_rts_deferred(void **state)
{
    size_t big = 3 * EAGER_LIMIT + 17;
    char *d = payload(big, 3), *b = malloc(big);
    proto_req_t s, r;
    proto_msg_t *m;
    size_t len;

    (void)state;
    isend(A, &s, d, big, B, 9, 0);
    progress_all();
    m = probe(B, A, 9, 1, NULL, NULL, &len);
    assert_int_equal(len, big);
    progress_all();
    assert_false(s.done);
    assert_int_equal(proto_stats(W.p[A])->rts_msgs, 1);
    mrecv(B, &r, b, big, m);
    progress_all();
    assert_true(s.done);
    check_done(&r, A, 9, big, d, b);
    free(d);
    free(b);
}

/* Messages to self: a buffered small one and a synchronous one. */
static void test_self(void **state)
{
    char *d1 = payload(10, 4), *d2 = payload(20, 5), b[20];
    proto_req_t s1, s2, r;
    proto_msg_t *m;

    (void)state;
    isend(A, &s1, d1, 10, A, 1, 0);
    isend(A, &s2, d2, 20, A, 2, 1);
    assert_true(s1.done);
    assert_false(s2.done);
    m = probe(A, A, 2, 1, NULL, NULL, NULL);
    mrecv(A, &r, b, sizeof b, m);
    assert_true(s2.done);
    check_done(&r, A, 2, 20, d2, b);
    m = probe(A, A, PROTO_ANY, 1, NULL, NULL, NULL);
    mrecv(A, &r, b, sizeof b, m);
    check_done(&r, A, 1, 10, d1, b);
    free(d1);
    free(d2);
}

/* A named source finds only its own messages; truncation is reported. */
static void test_named_source(void **state)
{
    char *d = payload(64, 6), b[16];
    proto_req_t s, r;
    proto_msg_t *m;

    (void)state;
    isend(C, &s, d, 64, B, 3, 0);
    progress_all();
    probe(B, A, PROTO_ANY, 0, NULL, NULL, NULL);
    m = probe(B, C, 3, 1, NULL, NULL, NULL);
    mrecv(B, &r, b, sizeof b, m);
    assert_true(r.done);
    assert_int_equal(r.st_err, UT_ERR_TRUNCATED);
    assert_int_equal(r.st_len, 64);
    assert_memory_equal(b, d, sizeof b);
    free(d);
}

/* Probes beside receives that use write-protocol REQs: receives for tags
 * 0, 1, 3 are posted first (a REQ for seq 0 at least: the REQ window
 * starts at 1); A sends tags 0..3, so 0 is written straight into its
 * buffer, the others go through the FIFO; 2 is probed and received last. */
static void test_beside_reqs(void **state)
{
    char *d[4], b[4][256];
    proto_req_t s[4], r[4], mr;
    proto_msg_t *m;
    int i;

    (void)state;
    for (i = 0; i < 4; i++)
        d[i] = payload(200, 10 + (unsigned)i);
    for (i = 0; i < 4; i++)
        if (i != 2)
            irecv(B, &r[i], b[i], 256, A, i);
    progress_all(); /* the REQs reach A */
    assert_true(proto_stats(W.p[B])->req_sent >= 1);
    for (i = 0; i < 4; i++)
        isend(A, &s[i], d[i], 200, B, i, 0);
    progress_all();
    assert_true(proto_stats(W.p[B])->write_msgs >= 1);
    m = probe(B, A, PROTO_ANY, 1, NULL, NULL, NULL);
    for (i = 0; i < 4; i++)
        if (i != 2)
            check_done(&r[i], A, i, 200, d[i], b[i]);
    mrecv(B, &mr, b[2], 256, m);
    check_done(&mr, A, 2, 200, d[2], b[2]);
    probe(B, A, PROTO_ANY, 0, NULL, NULL, NULL);
    for (i = 0; i < 4; i++) {
        assert_true(s[i].done);
        free(d[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_eager_taken, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_rts_deferred, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_self, setup2, teardown),
        cmocka_unit_test_setup_teardown(test_named_source, setup3, teardown),
        cmocka_unit_test_setup_teardown(test_beside_reqs, setup2, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
