/*
 * tests/unit/test_ofi_sockets.c: transport/ofi.c over libfabric's sockets
 * provider, two endpoints in one process on 127.0.0.1. sockets reads each
 * message header with recv(MSG_PEEK) and waits for all of it: with the
 * default 128 KiB receive buffer a header split at the end of a large
 * segment closed the TCP window for good (tests/mpi/many_inflight over
 * sockets hung about one run in 20). The transport raises the receive
 * buffers of the provider's sockets, and only of those: checked here on
 * every socket of the process after traffic both ways.
 */
#include "transport/ofi.c"

#include "tests/unit/ofi_pair.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>

/* tl_ofi_print_providers names mbshm too; not linked here */
void tl_shmem_print_provider(void *file)
{
    (void)file;
}

#define NMSG 200
#define MAXLEN 2000

typedef struct ep {
    tl_t *tl;
    int rank;
    unsigned nrecv, bad, ntx_done;
} ep_t;

static ep_t eps[2];
static int other[3] = {-1, -1, -1}; /* a listener and a connection of the program's own */
static int other_rcvbuf[3];

static size_t len_of(unsigned k)
{
    return 4 + (k * 2654435761u) % (MAXLEN - 4);
}

static void cb_recv(void *arg, const void *buf, size_t len)
{
    ep_t *e = arg;
    uint32_t k;

    memcpy(&k, buf, 4);
    if (k != e->nrecv || len != len_of(k))
        e->bad++;
    e->nrecv++;
}

static void cb_notify(void *arg, uint32_t data)
{
    (void)arg;
    (void)data;
}

static void cb_tx_done(void *arg, void *ctx, int status)
{
    ep_t *e = arg;
    (void)ctx;
    if (status == UT_OK)
        e->ntx_done++;
}

static int rcvbuf_of(int fd)
{
    int v = 0;
    socklen_t len = sizeof(v);

    return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) ? -1 : v;
}

/* A listener on 127.0.0.1 and a connection to it, opened before the
 * endpoints: not the provider's, so left as they are. */
static int open_others(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);

    other[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (other[0] < 0 || bind(other[0], (struct sockaddr *)&a, sizeof(a)) || listen(other[0], 4) ||
        getsockname(other[0], (struct sockaddr *)&a, &alen))
        return -1;
    other[1] = socket(AF_INET, SOCK_STREAM, 0);
    if (other[1] < 0 || connect(other[1], (struct sockaddr *)&a, sizeof(a)))
        return -1;
    other[2] = accept(other[0], NULL, NULL);
    if (other[2] < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        other_rcvbuf[i] = rcvbuf_of(other[i]);
    return 0;
}

static int setup(void **state)
{
    tl_params_t p = {.provider = "sockets",
                     .fifo_buf_size = 32 * (MAXLEN + 256),
                     .fifo_buf_count = 2,
                     .min_fifo_free = MAXLEN + 256,
                     .loopback = 1};
    tl_callbacks_t cb[2];
    tl_t *tl[2] = {NULL, NULL};
    int i, rc;

    (void)state;
    ut_log_level = UT_LOG_ERROR;
    if (open_others())
        return -1;
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
    (void)state;
    for (int i = 0; i < 2; i++) {
        if (eps[i].tl)
            tl_close(eps[i].tl);
        eps[i].tl = NULL;
    }
    for (int i = 0; i < 3; i++) {
        if (other[i] >= 0)
            close(other[i]);
        other[i] = -1;
    }
    return 0;
}

/* What SO_RCVBUF reads after the transport raised it: the kernel caps the
 * request at net.core.rmem_max and reports twice the size. */
static int raised_rcvbuf(void)
{
    FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
    long max = OFI_SOCK_RCVBUF;

    if (f) {
        if (fscanf(f, "%ld", &max) != 1)
            max = OFI_SOCK_RCVBUF;
        fclose(f);
    }
    return 2 * (int)(max < OFI_SOCK_RCVBUF ? max : OFI_SOCK_RCVBUF);
}

static unsigned port_of(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)a)->sin_port);
    if (a->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)(const void *)a)->sin6_port);
    return 0;
}

/* Messages both ways, then every stream socket of the process: those of
 * the provider (bound to an endpoint's port, or connected to one) have the
 * raised receive buffer, the program's own kept theirs. */
static void test_sockets_rcvbuf(void **state)
{
    static _Alignas(TL_OP_CTX_ALIGN) char ctx[2][NMSG][TL_OP_CTX_SIZE];
    static unsigned char msg[2][NMSG][MAXLEN];
    unsigned sent[2] = {0, 0}, inprog[2] = {0, 0}, ports[2];
    int i, spins = 0, provider_socks = 0, want = raised_rcvbuf();
    DIR *d;
    struct dirent *de;

    (void)state;
    for (i = 0; i < 2; i++) {
        struct sockaddr_storage a;
        memset(&a, 0, sizeof(a));
        memcpy(&a, pair_addrs[i], pair_addrlen < sizeof(a) ? pair_addrlen : sizeof(a));
        ports[i] = port_of(&a);
        assert_true(ports[i] != 0);
    }
    while ((sent[0] < NMSG || sent[1] < NMSG || eps[0].nrecv < NMSG || eps[1].nrecv < NMSG) &&
           spins++ < 20000000) {
        for (i = 0; i < 2; i++) {
            if (sent[i] < NMSG) {
                unsigned k = sent[i];
                struct iovec iov = {msg[i][k], len_of(k)};
                int rc;

                memcpy(msg[i][k], &k, 4);
                rc = tl_send(eps[i].tl, 1 - i, &iov, 1, ctx[i][k]);
                if (rc == UT_INPROGRESS)
                    inprog[i]++;
                if (rc == UT_OK || rc == UT_INPROGRESS)
                    sent[i]++;
                else
                    assert_int_equal(rc, UT_ERR_NO_RESOURCE);
            }
        }
        tl_progress(eps[0].tl);
        tl_progress(eps[1].tl);
    }
    for (i = 0; i < 2; i++) {
        while (eps[i].ntx_done < inprog[i] && spins++ < 20000000) {
            tl_progress(eps[0].tl);
            tl_progress(eps[1].tl);
        }
        assert_int_equal(eps[i].nrecv, NMSG);
        assert_int_equal(eps[i].bad, 0);
        assert_int_equal(eps[i].ntx_done, inprog[i]);
    }

    d = opendir("/proc/self/fd");
    assert_non_null(d);
    while ((de = readdir(d))) {
        struct sockaddr_storage a;
        socklen_t alen = sizeof(a);
        int fd = atoi(de->d_name), type = 0, ours = 0;
        socklen_t tlen = sizeof(type);

        if (de->d_name[0] < '0' || de->d_name[0] > '9' || fd == dirfd(d) ||
            getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) || type != SOCK_STREAM)
            continue;
        for (i = 0; i < 3; i++)
            if (fd == other[i]) {
                assert_int_equal(rcvbuf_of(fd), other_rcvbuf[i]);
                ours = 1;
            }
        if (ours)
            continue;
        memset(&a, 0, sizeof(a));
        if (!getsockname(fd, (struct sockaddr *)&a, &alen) &&
            (port_of(&a) == ports[0] || port_of(&a) == ports[1]))
            ours = 1;
        alen = sizeof(a);
        memset(&a, 0, sizeof(a));
        if (!getpeername(fd, (struct sockaddr *)&a, &alen) &&
            (port_of(&a) == ports[0] || port_of(&a) == ports[1]))
            ours = 1;
        if (!ours)
            continue;
        provider_socks++;
        assert_true(rcvbuf_of(fd) >= want);
    }
    closedir(d);
    /* two listeners and both ends of at least one connection */
    assert_true(provider_socks >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sockets_rcvbuf, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
