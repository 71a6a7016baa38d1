/*
 * tests/unit/test_ofi_ring.c: the RMA rings of transport/ofi.c (FIFO mode
 * "rma", the default over tcp;ofi_rxm) with two real endpoints in one
 * process over 127.0.0.1. The source is included so the tests can reach
 * the rings and forge what a broken or hostile peer could write.
 */
#include "transport/ofi.c"

#include "tests/unit/ofi_pair.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* tl_ofi_print_providers names mbshm too; not linked here */
void tl_shmem_print_provider(void *file)
{
    (void)file;
}

#define NMSG 600
#define MAXLEN 20000 /* eager limit of these endpoints: the FIFO message is 20256 bytes */

typedef struct ep {
    tl_t *tl;
    int rank;
    unsigned nrecv, nnotify, ntx_done;
    unsigned bad; /* messages out of order or with wrong bytes */
    uint32_t last_notify;
    int notify_saw_data; /* at the last notification, the written bytes were there */
    char *wbuf;          /* registered for remote write */
    size_t wlen;
    unsigned char wexpect;
} ep_t;

static ep_t eps[2];

/* Message k: 4-byte k, then (k * 7 + i) & 0xff, of length len_of(k). */
static size_t len_of(unsigned k)
{
    return 4 + (k * 2654435761u) % (MAXLEN - 4);
}

static void cb_recv(void *arg, const void *buf, size_t len)
{
    ep_t *e = arg;
    const unsigned char *p = buf;
    uint32_t k;
    size_t i;

    memcpy(&k, p, 4);
    if (k != e->nrecv || len != len_of(k))
        e->bad++;
    for (i = 4; i < len; i++)
        if (p[i] != (unsigned char)(k * 7 + i)) {
            e->bad++;
            break;
        }
    e->nrecv++;
}

static void cb_notify(void *arg, uint32_t data)
{
    ep_t *e = arg;
    size_t i;

    e->nnotify++;
    e->last_notify = data;
    e->notify_saw_data = 1;
    for (i = 0; i < e->wlen; i++)
        if ((unsigned char)e->wbuf[i] != e->wexpect)
            e->notify_saw_data = 0;
}

static void cb_tx_done(void *arg, void *ctx, int status)
{
    ep_t *e = arg;
    (void)ctx;
    if (status == UT_OK)
        e->ntx_done++;
}

static int setup(void **state)
{
    tl_params_t p = {.provider = "tcp",
                     .fifo_buf_size = 8 * (MAXLEN + 256),
                     .fifo_buf_count = 2,
                     .min_fifo_free = MAXLEN + 256,
                     .loopback = 1};
    tl_callbacks_t cb[2];
    tl_t *tl[2] = {NULL, NULL};
    int i, rc;

    (void)state;
    ut_log_level = UT_LOG_ERROR;
    for (i = 0; i < 2; i++) {
        memset(&eps[i], 0, sizeof(eps[i]));
        eps[i].rank = i;
        cb[i] = (tl_callbacks_t){cb_recv, cb_notify, cb_tx_done, &eps[i]};
    }
    rc = ofi_pair_open(p, cb, tl);
    eps[0].tl = tl[0]; /* (closed by teardown even when the pair failed) */
    eps[1].tl = tl[1];
    return rc;
}

static int teardown(void **state)
{
    int i;

    (void)state;
    for (i = 0; i < 2; i++) {
        if (eps[i].tl)
            tl_close(eps[i].tl);
        free(eps[i].wbuf);
        eps[i].tl = NULL;
        eps[i].wbuf = NULL;
    }
    return 0;
}

static tl_ofi_t *T(int i)
{
    return (tl_ofi_t *)eps[i].tl;
}

static void progress_both(void)
{
    tl_progress(eps[0].tl);
    tl_progress(eps[1].tl);
}

static void test_rings_chosen(void **state)
{
    (void)state;
    assert_true(T(0)->rma);
    assert_true(T(1)->rma);
    assert_true(T(0)->rings[1].ready);
    assert_true(T(1)->rings[0].ready);
    assert_int_equal(T(0)->ring_len, 256 << 10); /* 2 x 8 x 20256 FIFO bytes, down to a power of 2 */
    assert_false(T(0)->rings[0].ready);         /* to itself: the FIFO */
    /* a message a record takes is one write there: no REQ asks for less */
    assert_int_equal(T(0)->super.caps.write_min, T(0)->super.caps.max_msg);
    assert_int_equal(T(0)->super.caps.max_msg, MAXLEN + 256);
}

/* Messages of 4-19999 bytes both ways, many laps of a 256 KiB ring: every
 * one arrives once, in order, with its bytes; small ones as inject writes,
 * up to a copy slot's size copied (done at once: the caller's buffer is
 * overwritten right away), larger ones or with every slot in flight from
 * the caller's buffers (done when tx_done says so). */
static void test_rings_traffic(void **state)
{
    static _Alignas(TL_OP_CTX_ALIGN) char ctx[2][NMSG][TL_OP_CTX_SIZE];
    static unsigned char msg[2][NMSG][MAXLEN];
    unsigned sent[2] = {0, 0}, inprog[2] = {0, 0}, copied[2] = {0, 0};
    int i, spins = 0;

    (void)state;
    while ((sent[0] < NMSG || sent[1] < NMSG || eps[0].nrecv < NMSG || eps[1].nrecv < NMSG) &&
           spins++ < 50000000) {
        for (i = 0; i < 2; i++) {
            if (sent[i] < NMSG) {
                unsigned k = sent[i];
                size_t len = len_of(k), j;
                struct iovec iov[2];
                int rc;

                memcpy(msg[i][k], &k, 4);
                for (j = 4; j < len; j++)
                    msg[i][k][j] = (unsigned char)(k * 7 + j);
                iov[0].iov_base = msg[i][k];
                iov[0].iov_len = len / 3;
                iov[1].iov_base = msg[i][k] + len / 3;
                iov[1].iov_len = len - len / 3;
                rc = tl_send(eps[i].tl, 1 - i, iov, 2, ctx[i][k]);
                if (rc == UT_INPROGRESS)
                    inprog[i]++;
                if (rc == UT_OK) {
                    /* done: the bytes are no longer read from here */
                    memset(msg[i][k], 0xee, len);
                    copied[i] += ofi_ring_wlen(RING_MSG, len) > T(i)->ring_inject;
                }
                if (rc == UT_OK || rc == UT_INPROGRESS)
                    sent[i]++;
                else
                    assert_int_equal(rc, UT_ERR_NO_RESOURCE);
            }
        }
        progress_both();
    }
    for (i = 0; i < 2; i++) {
        while (eps[i].ntx_done < inprog[i] && spins++ < 50000000)
            progress_both();
        assert_int_equal(eps[i].nrecv, NMSG);
        assert_int_equal(eps[i].bad, 0);
        assert_int_equal(eps[i].ntx_done, inprog[i]);
        assert_true(inprog[i] > 0);                                  /* some went from the caller's buffers */
        assert_true(copied[i] > 0);                                  /* some from copy slots */
        assert_int_equal(T(i)->bounce_nfree, OFI_BOUNCE_SLOTS);      /* every slot came back */
        assert_true(T(i)->rings[1 - i].tx_pos > 4 * T(i)->ring_len); /* lapped */
    }
}

/* A write with notification: when the notification is delivered, the
 * bytes written before it are there (small: inject; up to a copy slot:
 * copied, done at once, the source overwritten right away; large:
 * fi_write from the source). */
static void test_rings_notify_after_data(void **state)
{
    static _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    static char src[100000];
    size_t sizes[] = {8, 100, 3000, 5000, 100000};
    tl_mr_t *mr;
    tl_rkey_t rk;
    unsigned n;
    int spins = 0;

    (void)state;
    eps[1].wbuf = calloc(1, sizeof(src));
    assert_non_null(eps[1].wbuf);
    assert_int_equal(tl_mem_reg(eps[1].tl, eps[1].wbuf, sizeof(src), &mr, &rk), UT_OK);
    for (n = 0; n < 5; n++) {
        unsigned char v = (unsigned char)(0x41 + n);
        int rc;

        memset(src, v, sizes[n]);
        eps[1].wlen = sizes[n];
        eps[1].wexpect = v;
        do {
            rc = tl_write(eps[0].tl, 1, src, sizes[n], &rk, 0, 1, 0xabc00 + n, ctx);
            progress_both();
        } while (rc == UT_ERR_NO_RESOURCE);
        assert_true(rc == UT_OK || rc == UT_INPROGRESS);
        if (sizes[n] == 3000)
            assert_int_equal(rc, UT_OK);
        if (rc == UT_OK)
            memset(src, 0xee, sizes[n]); /* done: no longer read */
        while (eps[1].nnotify < n + 1 && spins++ < 50000000)
            progress_both();
        assert_int_equal(eps[1].nnotify, n + 1);
        assert_int_equal(eps[1].last_notify, 0xabc00 + n);
        assert_true(eps[1].notify_saw_data);
        while (rc == UT_INPROGRESS && eps[0].ntx_done == 0 && spins++ < 50000000)
            progress_both();
        eps[0].ntx_done = 0;
    }
    tl_mem_dereg(eps[1].tl, mr);
}

/* Rank 0 writes a record header with a valid stamp but the given kind
 * and length at its next position in rank 1's ring. */
static void forge(uint32_t kind, uint32_t len)
{
    ofi_ring_t *r = &T(0)->rings[1];
    uint64_t off = r->tx_pos & (r->tx_len - 1);
    ofi_ring_hdr_t h = {.len = len, .kind = kind, .stamp = ofi_ring_stamp(r->tx_salt, r->tx_pos)};
    int rc;

    while ((rc = ofi_ring_inject(T(0), 1, &h, sizeof(h), RING_HEAD + off)) == UT_ERR_NO_RESOURCE)
        progress_both();
    assert_int_equal(rc, UT_OK);
    r->tx_pos += 16;
}

static void send_msg0(void)
{
    static unsigned char m[MAXLEN];
    static _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    size_t len = len_of(0), j;
    struct iovec iov = {m, len};
    unsigned k = 0;
    int rc;

    memcpy(m, &k, 4);
    for (j = 4; j < len; j++)
        m[j] = (unsigned char)(k * 7 + j);
    while ((rc = tl_send(eps[0].tl, 1, &iov, 1, ctx)) == UT_ERR_NO_RESOURCE)
        progress_both();
    assert_true(rc == UT_OK || rc == UT_INPROGRESS);
}

/* A message, then a record that cannot be, then a message: the first is
 * delivered, the ring stops at the bad one (no crash, nothing read out of
 * the ring), the third is never delivered. */
static void check_bad(uint32_t kind, uint32_t len)
{
    int spins = 0;

    send_msg0();
    forge(kind, len);
    send_msg0();
    while (!T(1)->rings[0].broken && spins++ < 20000000)
        progress_both();
    for (spins = 0; spins < 1000; spins++)
        progress_both();
    assert_true(T(1)->rings[0].broken);
    assert_int_equal(eps[1].nrecv, 1);
    assert_int_equal(eps[1].bad, 0);
}

static void test_rings_bad_kind(void **state)
{
    (void)state;
    check_bad(9, 8);
}

static void test_rings_too_long(void **state)
{
    (void)state;
    check_bad(RING_MSG, 1u << 30); /* more than any message */
}

static void test_rings_past_end(void **state)
{
    ofi_ring_t *r = &T(0)->rings[1];
    int spins = 0;

    (void)state;
    /* to 512 bytes before the ring's end, where a record of a length
     * below the largest message would run past it */
    while ((r->tx_pos & (r->tx_len - 1)) < r->tx_len - 512) {
        send_msg0();
        progress_both();
    }
    while (T(1)->rings[0].rx_pos != r->tx_pos && spins++ < 20000000)
        progress_both();
    eps[1].nrecv = 0;
    eps[1].bad = 0;
    check_bad(RING_MSG, MAXLEN);
}

/* A tail slot that claims more was read than was written is ignored: the
 * writer's room never exceeds the ring. */
static void test_rings_forged_tail(void **state)
{
    ofi_ring_t *r = &T(0)->rings[1];
    uint64_t bogus = r->tx_pos + (1ull << 40);

    (void)state;
    send_msg0();
    assert_int_equal(ofi_ring_inject(T(1), 0, &bogus, sizeof(bogus), 0), UT_OK);
    for (int s = 0; s < 100000 && __atomic_load_n((uint64_t *)r->rx, __ATOMIC_ACQUIRE) != bogus; s++)
        progress_both();
    assert_int_equal(*(uint64_t *)r->rx, bogus);
    assert_true(ofi_ring_room(r) <= r->tx_len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rings_chosen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_traffic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_notify_after_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_bad_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_too_long, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_past_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rings_forged_tail, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
