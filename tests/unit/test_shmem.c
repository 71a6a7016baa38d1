/*
 * tests/unit/test_shmem.c: unit tests of transport/shmem.c (mbshm) with two
 * or three endpoints in one process (the segments and rings are the real
 * ones; process_vm_writev targets this very process). The source is
 * included so the tests can reach the rings and forge bad messages.
 */
#include "transport/shmem.c"

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define NEP 3

typedef struct ep {
    tl_t *tl;
    int rank;
    unsigned nrecv;
    size_t last_len;
    char last[70000];
    _Atomic unsigned nnotify;
    uint32_t last_notify;
    unsigned ntx_done;
    void *last_ctx;
    int last_status;
} ep_t;

static ep_t eps[NEP];

static void cb_recv(void *arg, const void *buf, size_t len)
{
    ep_t *e = arg;
    e->nrecv++;
    e->last_len = len;
    if (len <= sizeof(e->last))
        memcpy(e->last, buf, len);
}

static void cb_notify(void *arg, uint32_t data)
{
    ep_t *e = arg;
    e->nnotify++;
    e->last_notify = data;
}

static void cb_tx_done(void *arg, void *ctx, int status)
{
    ep_t *e = arg;
    e->last_status = status;
    e->ntx_done++;
    e->last_ctx = ctx;
}

/* Opens and connects NEP endpoints (ring 64 KiB: wraps come quickly). */
static int setup(void **state)
{
    char job[32], addrs[NEP][sizeof(shm_addr_t)];
    size_t len;
    int i;

    (void)state;
    snprintf(job, sizeof(job), "unit%ld", (long)getpid());
    setenv("MBMPI_JOBID", job, 1);
    setenv("MBMPI_SHM_RING", "64K", 1);
    setenv("MBMPI_SHM_CMA", "1", 1); /* the single-copy paths are tested here too */
    memset(eps, 0, sizeof(eps));
    for (i = 0; i < NEP; i++) {
        tl_params_t p = {.rank = i, .size = NEP, .min_fifo_free = 4096};
        tl_callbacks_t cb = {.recv = cb_recv, .notify = cb_notify, .tx_done = cb_tx_done, .arg = &eps[i]};
        eps[i].rank = i;
        assert_int_equal(tl_shmem_ops.open(&p, &cb, &eps[i].tl), UT_OK);
        len = sizeof(addrs[i]);
        assert_int_equal(tl_get_addr(eps[i].tl, addrs[i], &len), UT_OK);
        assert_int_equal(len, sizeof(shm_addr_t));
    }
    for (i = 0; i < NEP; i++)
        assert_int_equal(tl_connect(eps[i].tl, addrs, sizeof(shm_addr_t)), UT_OK);
    return 0;
}

static int teardown(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < NEP; i++)
        tl_close(eps[i].tl);
    unsetenv("MBMPI_SHM_RING");
    unsetenv("MBMPI_SHM_CMA");
    return 0;
}

static void drain(int i)
{
    while (tl_progress(eps[i].tl) > 0)
        ;
}

static int send1(int from, int to, const void *buf, size_t len)
{
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    return tl_send(eps[from].tl, to, &iov, 1, NULL);
}

static void test_caps(void **state)
{
    const tl_caps_t *c = &eps[0].tl->caps;
    (void)state;
    assert_string_equal(c->name, "mbshm");
    assert_int_equal(c->max_msg, 4096);
    assert_int_equal(c->fd, -1);
    assert_true(c->fifo_bytes >= (NEP - 1) * c->max_msg);
    assert_int_equal(((tl_shmem_t *)eps[0].tl)->ring_size, 64 << 10);
}

static void test_send_iov_and_order(void **state)
{
    char a[] = "hello, ", b[] = "ring";
    struct iovec iov[2] = {{a, 7}, {b, 5}};
    unsigned i;
    (void)state;

    /* Every peer has mapped the segments: the first progress unlinks. */
    assert_int_equal(access(((tl_shmem_t *)eps[1].tl)->path, F_OK), 0);
    assert_int_equal(tl_send(eps[0].tl, 1, iov, 2, NULL), UT_OK);
    assert_int_equal(eps[1].nrecv, 0); /* nothing before progress */
    drain(1);
    assert_int_not_equal(access(((tl_shmem_t *)eps[1].tl)->path, F_OK), 0);
    assert_int_equal(eps[1].nrecv, 1);
    assert_int_equal(eps[1].last_len, 12);
    assert_string_equal(eps[1].last, "hello, ring");
    /* Empty message, then many small ones in order across several wraps. */
    assert_int_equal(send1(2, 1, "", 0), UT_OK);
    drain(1);
    assert_int_equal(eps[1].nrecv, 2);
    assert_int_equal(eps[1].last_len, 0);
    for (i = 0; i < 5000; i++) {
        uint32_t v = i;
        while (send1(0, 1, &v, sizeof(v)) == UT_ERR_NO_RESOURCE)
            tl_progress(eps[1].tl);
        if (i % 7 == 0) {
            tl_progress(eps[1].tl);
        }
    }
    drain(1);
    assert_int_equal(eps[1].nrecv, 5002);
    assert_int_equal(*(uint32_t *)eps[1].last, 4999);
    /* Too big */
    {
        static char big[8192];
        assert_int_equal(send1(0, 1, big, sizeof(big)), UT_ERR_INVALID_PARAM);
        assert_int_equal(send1(0, 0, big, 8), UT_ERR_UNREACHABLE);
    }
}

static void test_ring_full(void **state)
{
    static char msg[4096];
    int n = 0, rc;
    (void)state;

    while ((rc = send1(0, 2, msg, sizeof(msg))) == UT_OK)
        n++;
    assert_int_equal(rc, UT_ERR_NO_RESOURCE);
    assert_true(n >= 14 && n <= 16); /* 64 KiB ring, 4096 + 64 bytes each */
    drain(2);
    assert_int_equal(eps[2].nrecv, (unsigned)n);
    assert_int_equal(send1(0, 2, msg, sizeof(msg)), UT_OK);
    drain(2);
}

/* A producer whose consumer has read everything restarts at the ring's
 * start once past SHM_RECYCLE bytes (shm_reserve), so small messages keep
 * to the ring's first pages; a consumer that lags gets the whole ring. */
static void test_recycle(void **state)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[1].tl;
    shm_peer_t *p = &t->peers[0];
    unsigned long before = t->recycled;
    unsigned base = eps[0].nrecv, i, n = 0;
    char msg[200];
    int rc;
    (void)state;

    /* drained after each message: the ring restarts, nothing is lost */
    for (i = 0; i < 2000; i++) {
        memset(msg, (int)(i & 0xff), sizeof(msg));
        memcpy(msg, &i, sizeof(i));
        assert_int_equal(send1(1, 0, msg, sizeof(msg)), UT_OK);
        assert_true((p->tx_tail & t->ring_mask) < SHM_RECYCLE + SHM_LINE + sizeof(msg) + SHM_HDR);
        drain(0);
        assert_int_equal(eps[0].nrecv, base + i + 1);
        assert_int_equal(eps[0].last_len, sizeof(msg));
        assert_memory_equal(eps[0].last, &i, sizeof(i));
        assert_int_equal((unsigned char)eps[0].last[sizeof(msg) - 1], i & 0xff);
    }
    /* 2000 x 256 ring bytes = 500 KiB: a restart every 16 KiB, about 31 */
    assert_true(t->recycled - before >= 25);
    /* not drained: no restart, the ring fills up to its end */
    before = t->recycled;
    base = eps[0].nrecv;
    while ((rc = send1(1, 0, msg, sizeof(msg))) == UT_OK)
        n++;
    assert_int_equal(rc, UT_ERR_NO_RESOURCE);
    assert_int_equal(t->recycled, before);
    assert_true(n >= (64u << 10) / 256 - 65); /* all but what a restart could have kept */
    drain(0);
    assert_int_equal(eps[0].nrecv, base + n);
}

static void test_write_ring_and_checks(void **state)
{
    static char dst[200000], src[200000];
    tl_mr_t *mr;
    tl_rkey_t rk, bad;
    _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    int rc;
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(src); i++)
        src[i] = (char)(i * 7 + 1);
    memset(dst, 0, sizeof(dst));
    assert_int_equal(tl_mem_reg(eps[1].tl, dst, sizeof(dst), &mr, &rk), UT_OK);
    assert_true((rk.key & (SHM_TABLE_SLOTS - 1)) == mr->slot);

    /* Small write with notify: through the ring. */
    assert_int_equal(tl_write(eps[0].tl, 1, src, 100, &rk, 10, 1, 0xabc, ctx), UT_OK);
    assert_int_equal(dst[10], 0); /* the target copies during its progress */
    drain(1);
    assert_memory_equal(dst + 10, src, 100);
    assert_int_equal(eps[1].nnotify, 1);
    assert_int_equal(eps[1].last_notify, 0xabc);

    /* Zero bytes with a notification: one empty fragment. */
    assert_int_equal(tl_write(eps[0].tl, 1, src, 0, &rk, sizeof(dst), 1, 0xabd, ctx), UT_OK);
    drain(1);
    assert_int_equal(eps[1].nnotify, 2);
    assert_int_equal(eps[1].last_notify, 0xabd);

    /* Big write without CMA: pipelined fragments, tx_done at the end. */
    ((tl_shmem_t *)eps[0].tl)->peers[1].cma = 0;
    rc = tl_write(eps[0].tl, 1, src, sizeof(src), &rk, 0, 1, 77, ctx);
    assert_int_equal(rc, UT_INPROGRESS);
    assert_int_equal(send1(0, 1, "x", 1), UT_ERR_NO_RESOURCE); /* stays behind the write */
    while (eps[0].ntx_done == 0) {
        tl_progress(eps[1].tl);
        tl_progress(eps[0].tl);
    }
    assert_ptr_equal(eps[0].last_ctx, ctx);
    assert_int_equal(eps[0].last_status, UT_OK);
    drain(1);
    assert_memory_equal(dst, src, sizeof(src));
    assert_int_equal(eps[1].nnotify, 3);
    assert_int_equal(eps[1].last_notify, 77);

    /* Single copy (process_vm_writev into this process) when allowed. */
    ((tl_shmem_t *)eps[0].tl)->peers[1].cma = 1;
    memset(dst, 0, sizeof(dst));
    rc = tl_write(eps[0].tl, 1, src, 100000, &rk, 5, 1, 78, ctx);
    assert_int_equal(rc, UT_OK);
    drain(1);
    assert_int_equal(eps[1].last_notify, 78);
    assert_memory_equal(dst + 5, src, 100000);

    /* A foreign key: refused at the sender (CMA) or counted at the target. */
    bad = rk;
    bad.key ^= (uint64_t)1 << 40;
    assert_int_equal(tl_write(eps[0].tl, 1, src, 100000, &bad, 0, 1, 1, ctx), UT_ERR_PERM);
    assert_int_equal(tl_write(eps[0].tl, 1, src, 10, &bad, 0, 1, 1, ctx), UT_OK);
    memset(dst, 0, 16);
    drain(1);
    assert_int_equal(tl_shmem_rejected_writes(eps[1].tl), 1);
    assert_int_equal(dst[0], 0);
    assert_int_equal(eps[1].last_notify, 78); /* no notification either */

    /* Out of bounds: the rkey the sender holds claims more than registered. */
    bad = rk;
    bad.len = sizeof(dst) + 65536;
    assert_int_equal(tl_write(eps[0].tl, 1, src, 100, &bad, sizeof(dst) - 50, 0, 0, ctx), UT_OK);
    assert_int_equal(tl_write(eps[0].tl, 1, src, 40000, &bad, sizeof(dst) - 100, 0, 0, ctx), UT_ERR_PERM);
    drain(1);
    assert_int_equal(tl_shmem_rejected_writes(eps[1].tl), 2);

    /* After dereg the key is dead both ways. */
    tl_mem_dereg(eps[1].tl, mr);
    assert_int_equal(tl_write(eps[0].tl, 1, src, 100000, &rk, 0, 0, 0, ctx), UT_ERR_PERM);
    assert_int_equal(tl_write(eps[0].tl, 1, src, 10, &rk, 0, 0, 0, ctx), UT_OK);
    drain(1);
    assert_int_equal(tl_shmem_rejected_writes(eps[1].tl), 3);
}

/* Reads: a region registered for reading is copied by a peer with one
 * system call after its checks; it cannot be written, a region registered
 * for writing cannot be read, and nothing is read past the bounds, after
 * dereg, or where reads are off (MBMPI_SHM_CMA=0 or auto before timing). */
static void test_read(void **state)
{
    static char src[300000], dst[300000], wbuf[64];
    tl_mr_t *mr, *wmr;
    tl_rkey_t rk, wrk, bad;
    _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    tl_shmem_t *t1 = (tl_shmem_t *)eps[1].tl;
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(src); i++)
        src[i] = (char)(i * 13 + 5);
    assert_true(tl_can_read(eps[1].tl));
    /* MBMPI_SHM_CMA=1: from 32 KiB, below 256 KiB unless read_all */
    assert_int_equal(eps[1].tl->caps.read_min, 32 << 10);
    assert_int_equal(eps[1].tl->caps.read_max, (256 << 10) - 1);
    tl_shmem_set_read_all(eps[1].tl, 1);
    assert_int_equal(eps[1].tl->caps.read_max, SIZE_MAX);
    tl_shmem_set_read_all(eps[1].tl, 0);
    assert_int_equal(eps[1].tl->caps.read_max, (256 << 10) - 1);

    assert_int_equal(tl_mem_reg_read(eps[0].tl, src, sizeof(src), &mr, &rk), UT_OK);
    memset(dst, 0, sizeof(dst));
    assert_int_equal(tl_read(eps[1].tl, 0, dst + 3, 250000, &rk, 7), UT_OK);
    assert_memory_equal(dst + 3, src + 7, 250000);
    assert_int_equal(dst[2], 0);
    assert_int_equal(dst[3 + 250000], 0);
    assert_int_equal(tl_shmem_reads(eps[1].tl), 1);

    /* read-only: a write with its key is refused, by CMA and through the ring */
    assert_int_equal(tl_write(eps[1].tl, 0, dst, 100000, &rk, 0, 0, 0, ctx), UT_ERR_PERM);
    assert_int_equal(tl_write(eps[1].tl, 0, wbuf, sizeof(wbuf), &rk, 0, 0, 0, ctx), UT_OK);
    drain(0);
    assert_int_equal(tl_shmem_rejected_writes(eps[0].tl), 1);
    assert_int_equal(src[0], (char)5);

    /* out of bounds, a foreign key, a region registered for writing */
    bad = rk;
    bad.len = sizeof(src) + 100;
    assert_int_equal(tl_read(eps[1].tl, 0, dst, 200, &bad, sizeof(src) - 100), UT_ERR_PERM);
    bad = rk;
    bad.key ^= (uint64_t)1 << 41;
    assert_int_equal(tl_read(eps[1].tl, 0, dst, 200, &bad, 0), UT_ERR_PERM);
    assert_int_equal(tl_mem_reg(eps[0].tl, wbuf, sizeof(wbuf), &wmr, &wrk), UT_OK);
    assert_int_equal(tl_read(eps[1].tl, 0, dst, sizeof(wbuf), &wrk, 0), UT_ERR_PERM);
    tl_mem_dereg(eps[0].tl, wmr);
    assert_int_equal(tl_shmem_reads(eps[1].tl), 1);

    /* reads off: refused as unsupported (proto then asks for a write) */
    t1->want_read = 0;
    assert_int_equal(tl_read(eps[1].tl, 0, dst, 100, &rk, 0), UT_ERR_UNSUPPORTED);
    t1->want_read = 1;
    t1->peers[0].cma = 0;
    assert_int_equal(tl_read(eps[1].tl, 0, dst, 100, &rk, 0), UT_ERR_UNSUPPORTED);
    t1->peers[0].cma = 1;

    /* after dereg the key is dead */
    tl_mem_dereg(eps[0].tl, mr);
    assert_int_equal(tl_read(eps[1].tl, 0, dst, 100, &rk, 0), UT_ERR_PERM);
    assert_int_equal(tl_shmem_reads(eps[1].tl), 1);
}

/* Big writes may be copied by both sides: alone (the target is not
 * progressing), the writer copies every piece and is done at once; with the
 * target progressing in another thread, both copy and tx_done follows. */
static char share_dst[4 << 20], share_src[4 << 20];
static _Atomic int share_stop;

static void *target_thread(void *arg)
{
    (void)arg;
    while (!atomic_load(&share_stop))
        tl_progress(eps[2].tl);
    return NULL;
}

static void test_write_share(void **state)
{
    tl_mr_t *mr;
    tl_rkey_t rk;
    _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    unsigned done0 = eps[0].ntx_done, nn = eps[2].nnotify;
    pthread_t th;
    size_t i;
    int rc;
    (void)state;

    for (i = 0; i < sizeof(share_src); i++)
        share_src[i] = (char)(i * 13 + 5);
    memset(share_dst, 0, sizeof(share_dst));
    assert_true(((tl_shmem_t *)eps[0].tl)->peers[2].cma);
    assert_int_equal(tl_mem_reg(eps[2].tl, share_dst, sizeof(share_dst), &mr, &rk), UT_OK);
    assert_int_equal(tl_write(eps[0].tl, 2, share_src, (1 << 20) - 100, &rk, 100, 1, 4242, ctx), UT_OK);
    assert_memory_equal(share_dst + 100, share_src, (1 << 20) - 100);
    drain(2);
    assert_int_equal(eps[2].nnotify, nn + 1);
    assert_int_equal(eps[2].last_notify, 4242);

    memset(share_dst, 0, sizeof(share_dst));
    atomic_store(&share_stop, 0);
    assert_int_equal(pthread_create(&th, NULL, target_thread, NULL), 0);
    usleep(1000); /* let the target start polling */
    rc = tl_write(eps[0].tl, 2, share_src, sizeof(share_src), &rk, 0, 1, 4243, ctx);
    assert_true(rc == UT_OK || rc == UT_INPROGRESS);
    if (rc == UT_INPROGRESS) {
        while (eps[0].ntx_done == done0)
            tl_progress(eps[0].tl);
        assert_int_equal(eps[0].last_status, UT_OK);
        assert_ptr_equal(eps[0].last_ctx, ctx);
    }
    while (eps[2].nnotify == nn + 1)
        sched_yield();
    atomic_store(&share_stop, 1);
    pthread_join(th, NULL);
    assert_int_equal(eps[2].last_notify, 4243);
    assert_memory_equal(share_dst, share_src, sizeof(share_src));
    print_message("target copied %lu of 32 pieces\n", ((tl_shmem_t *)eps[2].tl)->helped);
    tl_mem_dereg(eps[2].tl, mr);
    /* Revoked: the writer's own check refuses at once. */
    assert_int_equal(tl_write(eps[0].tl, 2, share_src, sizeof(share_src), &rk, 0, 1, 4244, ctx), UT_ERR_PERM);
}

/* A Bcast's write with more ranks than CPUs (TL_SHM_FANOUT, read_all) is
 * copied by its target alone: nothing goes through the ring, and the writer
 * completes once the target copied. A target that refuses it (its buffer
 * deregistered after the writer's check) leaves the data uncopied: the
 * writer reports the write failed, not done. */
static void test_fanout_pull(void **state)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[0].tl;
    tl_mr_t *mr;
    tl_rkey_t rk;
    _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    size_t n = TL_SHM_FANOUT_MIN + 12345;
    unsigned long rings = t->ring_writes, rej = tl_shmem_rejected_writes(eps[2].tl);
    unsigned done0 = eps[0].ntx_done, nn = eps[2].nnotify;
    int rc;
    (void)state;

    assert_true(t->peers[2].cma);
    for (size_t i = 0; i < n; i++)
        share_src[i] = (char)(i * 7 + 3);
    memset(share_dst, 0, sizeof(share_dst));
    tl_shmem_set_read_all(eps[0].tl, 1);
    assert_int_equal(tl_shmem_fanout_reads(eps[0].tl), 1);
    assert_int_equal(tl_mem_reg(eps[2].tl, share_dst, sizeof(share_dst), &mr, &rk), UT_OK);
    tl_hint(eps[0].tl, TL_SHM_FANOUT);
    rc = tl_write(eps[0].tl, 2, share_src, n, &rk, 0, 1, 77, ctx);
    tl_hint(eps[0].tl, TL_HINT_NONE);
    assert_int_equal(rc, UT_INPROGRESS); /* the target has not copied yet */
    while (eps[2].nnotify == nn)
        tl_progress(eps[2].tl);
    while (eps[0].ntx_done == done0)
        tl_progress(eps[0].tl);
    assert_int_equal(eps[0].last_status, UT_OK);
    assert_memory_equal(share_dst, share_src, n);
    assert_int_equal(t->ring_writes, rings);

    /* refused at the target */
    done0 = eps[0].ntx_done;
    tl_hint(eps[0].tl, TL_SHM_FANOUT);
    rc = tl_write(eps[0].tl, 2, share_src, n, &rk, 0, 1, 78, ctx);
    tl_hint(eps[0].tl, TL_HINT_NONE);
    assert_int_equal(rc, UT_INPROGRESS);
    tl_mem_dereg(eps[2].tl, mr);
    drain(2);
    assert_int_equal(tl_shmem_rejected_writes(eps[2].tl), rej + 1);
    while (eps[0].ntx_done == done0)
        tl_progress(eps[0].tl);
    assert_int_not_equal(eps[0].last_status, UT_OK);
    tl_shmem_set_read_all(eps[0].tl, 0);
    assert_int_equal(tl_shmem_fanout_reads(eps[0].tl), 0);
}

/* A write of n bytes from 0 to 1 (hint h) to completion; 1 if it was a
 * single copy (process_vm_writev), 0 if it went through the ring. */
static int write_was_single(char *dst, const char *src, size_t n, const tl_rkey_t *rk, int h)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[0].tl;
    unsigned long s0 = t->single;
    unsigned done0 = eps[0].ntx_done, nn = eps[1].nnotify;
    _Alignas(TL_OP_CTX_ALIGN) char ctx[TL_OP_CTX_SIZE];
    int rc;

    memset(dst, 0, n);
    tl_hint(eps[0].tl, h);
    rc = tl_write(eps[0].tl, 1, src, n, rk, 0, 1, 99, ctx);
    tl_hint(eps[0].tl, TL_HINT_NONE);
    assert_true(rc == UT_OK || rc == UT_INPROGRESS);
    while (rc == UT_INPROGRESS && eps[0].ntx_done == done0) {
        tl_progress(eps[1].tl);
        tl_progress(eps[0].tl);
    }
    while (eps[1].nnotify == nn)
        tl_progress(eps[1].tl);
    assert_memory_equal(dst, src, n);
    return t->single != s0;
}

/* MBMPI_SHM_CMA=auto's choices (tl_shmem_set_cma, as mpi/shm_tune.c makes
 * them): one-way writes of 32 KiB or more are single copies for all
 * (writes = 1), only for those hinted TL_SHM_FLAT (2, more ranks than
 * CPUs), or for none (0). */
static void test_cma_choices(void **state)
{
    static char dst[200 << 10], src[200 << 10];
    tl_shmem_t *t = (tl_shmem_t *)eps[0].tl;
    int tune = t->tune, want = t->want_cma, flat = t->flat_cma, pull = t->xchg_pull, rd = t->want_read;
    tl_mr_t *mr;
    tl_rkey_t rk;
    (void)state;

    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (char)(i * 11 + 3);
    assert_int_equal(tl_mem_reg(eps[1].tl, dst, sizeof(dst), &mr, &rk), UT_OK);
    t->peers[1].cma = 1;
    t->tune = 1; /* as with MBMPI_SHM_CMA=auto */

    /* {writes, bytes, hint, single copy?}; with 2 (more ranks than CPUs)
     * only flat Scatter / Gather blocks */
    static const struct {
        int writes;
        size_t len;
        int hint, single;
    } cases[] = {
        {1, SHM_CMA_MIN - 1, TL_HINT_NONE, 0}, {1, SHM_CMA_MIN, TL_HINT_NONE, 1},
        {1, 200 << 10, TL_SHM_FLAT, 1},        {2, 100 << 10, TL_HINT_NONE, 0},
        {2, 100 << 10, TL_SHM_EXCHANGE, 0},    {2, SHM_CMA_MIN - 1, TL_SHM_FLAT, 0},
        {2, SHM_CMA_MIN, TL_SHM_FLAT, 1},      {2, 200 << 10, TL_SHM_FLAT, 1},
        {0, 100 << 10, TL_SHM_FLAT, 0},        {0, 100 << 10, TL_HINT_NONE, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tl_shmem_set_cma(eps[0].tl, cases[i].writes, 0);
        if (write_was_single(dst, src, cases[i].len, &rk, cases[i].hint) != cases[i].single)
            fail_msg("writes = %d, %zu bytes, hint %d: expected %s", cases[i].writes, cases[i].len,
                     cases[i].hint, cases[i].single ? "a single copy" : "the ring");
    }

    tl_mem_dereg(eps[1].tl, mr);
    t->tune = tune;
    t->want_cma = want;
    t->flat_cma = flat;
    t->xchg_pull = pull;
    t->want_read = rd;
    shm_read_max(t);
}

/* Forge a message in rank 0's ring at rank 1, as a broken peer would. */
static void forge(int type, uint32_t len)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[0].tl;
    shm_peer_t *p = &t->peers[1];
    uint64_t pos = shm_reserve(t, p, SHM_LINE);
    shm_hdr_t *h;

    assert_true(pos != UINT64_MAX);
    h = (shm_hdr_t *)(p->tx_data + (pos & t->ring_mask));
    h->len = len;
    h->type = (uint8_t)type;
    h->flags = 0;
    shm_publish(p, h, pos, SHM_LINE);
}

static void test_malformed(void **state)
{
    unsigned before = eps[1].nrecv;
    (void)state;

    forge(99, 8); /* unknown kind, sane length: dropped alone */
    assert_int_equal(send1(0, 1, "ok", 3), UT_OK);
    drain(1);
    assert_int_equal(tl_shmem_malformed(eps[1].tl), 1);
    assert_int_equal(eps[1].nrecv, before + 1);
    assert_string_equal(eps[1].last, "ok");

    forge(SHM_T_SEND, 0x7fffffff); /* length past the ring: that ring is no longer read */
    assert_int_equal(send1(0, 1, "lost", 5), UT_OK);
    drain(1);
    assert_int_equal(tl_shmem_malformed(eps[1].tl), 2);
    assert_int_equal(eps[1].nrecv, before + 1);
    /* Other senders are unaffected. */
    assert_int_equal(send1(2, 1, "fine", 5), UT_OK);
    drain(1);
    assert_int_equal(eps[1].nrecv, before + 2);
    assert_string_equal(eps[1].last, "fine");
}

/* Random bytes with valid stamps in a ring: whatever the kinds and
 * lengths, the reader stays inside the ring and refuses foreign keys. */
static void test_fuzz_ring(void **state)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[1].tl;
    static char ring[64 << 10] __attribute__((aligned(64)));
    static shm_ctl_t ctl;
    unsigned long rej = t->rejected;
    unsigned seed = 12345;
    int it, k;
    (void)state;

    assert_int_equal(t->ring_size, sizeof(ring));
    for (it = 0; it < 3000; it++) {
        shm_rx_t r = {.data = ring, .salt = 0x5eed, .ctl = &ctl, .src = 2};
        uint64_t pos;
        size_t i;

        for (i = 0; i < sizeof(ring); i += 4)
            *(uint32_t *)(ring + i) = (uint32_t)rand_r(&seed);
        r.head = (uint64_t)it * sizeof(ring) + (uint64_t)(rand_r(&seed) % (sizeof(ring) / 64)) * 64;
        r.expect = shm_stamp(r.salt, r.head);
        pos = r.head;
        for (k = 0; k < 4; k++) {
            shm_hdr_t *h = (shm_hdr_t *)(ring + (pos & (sizeof(ring) - 1)));
            uint32_t lens[] = {0, 8, 100, 4096, 4097, 16000, 70000, 0x7fffffff, 0xffffffff};
            h->len = lens[rand_r(&seed) % 9];
            h->type = (uint8_t)(rand_r(&seed) % 9);
            atomic_store(&h->stamp, shm_stamp(r.salt, pos));
            pos += align_line(SHM_HDR + (h->len < 70000 ? h->len : 0));
        }
        shm_poll_ring(t, &r, SHM_BATCH);
        assert_true(r.head >= (uint64_t)it * sizeof(ring));
    }
    assert_true(t->rejected > rej); /* random WRITE keys were refused */
}

/* A ring yields one delivered message per progress call (the caller
 * sees the completion before the next line is read); every ring is
 * polled in the same call, so nothing waits longer than one call each.
 * Rank 0 reads from 1 and 2 (test_malformed ended its ring from 0 to 1). */
static void test_one_delivery_per_ring_and_call(void **state)
{
    tl_shmem_t *t = (tl_shmem_t *)eps[0].tl;
    unsigned base;
    uint32_t v;
    int i;
    (void)state;

    for (i = 0; i < t->nrx; i++)
        assert_false(t->rx[i].dead);
    drain(0);
    base = eps[0].nrecv;
    for (v = 1; v <= 3; v++)
        assert_int_equal(send1(1, 0, &v, sizeof(v)), UT_OK);
    v = 100;
    assert_int_equal(send1(2, 0, &v, sizeof(v)), UT_OK);
    assert_int_equal(tl_progress(eps[0].tl), 2); /* one from each ring */
    assert_int_equal(eps[0].nrecv, base + 2);
    assert_int_equal(tl_progress(eps[0].tl), 1);
    assert_int_equal(*(uint32_t *)eps[0].last, 2);
    assert_int_equal(tl_progress(eps[0].tl), 1);
    assert_int_equal(*(uint32_t *)eps[0].last, 3);
    assert_int_equal(tl_progress(eps[0].tl), 0);
    assert_int_equal(eps[0].nrecv, base + 4);
}

static void test_stamp_unique(void **state)
{
    uint64_t salt = 0x1234, a = shm_stamp(salt, 0), b = shm_stamp(salt, 64), c = shm_stamp(salt, 64 << 20);
    (void)state;
    assert_true(a != b && b != c && a != c);
    assert_true(shm_stamp(0, 0) != 0); /* fresh zero memory is never a message */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_send_iov_and_order),
        cmocka_unit_test(test_ring_full),
        cmocka_unit_test(test_write_ring_and_checks),
        cmocka_unit_test(test_write_share),
        cmocka_unit_test(test_cma_choices),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_fuzz_ring),
        cmocka_unit_test(test_stamp_unique),
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_recycle),
        cmocka_unit_test(test_fanout_pull),
        cmocka_unit_test(test_one_delivery_per_ring_and_call),
    };
    ut_log_level = -1; /* the refusals below are expected */
    return cmocka_run_group_tests(tests, setup, teardown);
}
