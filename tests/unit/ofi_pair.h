/*
 * tests/unit/ofi_pair.h: ranks 0 and 1 of a 2-rank job over one libfabric
 * provider, both in this process, for the unit tests that include
 * transport/ofi.c (test_ofi_ring, test_ofi_sockets). pair_addrs[i] keeps
 * endpoint i's address.
 */
#ifndef TESTS_UNIT_OFI_PAIR_H
#define TESTS_UNIT_OFI_PAIR_H

#include <pthread.h>

static char pair_addrs[2][256];
static size_t pair_addrlen;

typedef struct pair_conn {
    tl_t *tl;
    int rc;
} pair_conn_t;

static void *pair_connect_thread(void *arg)
{
    pair_conn_t *c = arg;
    c->rc = tl_connect(c->tl, pair_addrs, pair_addrlen);
    return NULL;
}

/* Open both endpoints with p (its rank and size set here) and cb[i], and
 * connect them, each in its own thread (the rings' hellos wait for the
 * other side). 0 on success. */
static int ofi_pair_open(tl_params_t p, const tl_callbacks_t cb[2], tl_t *tl[2])
{
    pthread_t th[2];
    pair_conn_t c[2];
    int i;

    for (i = 0; i < 2; i++) {
        size_t len = sizeof(pair_addrs[i]);

        p.rank = i;
        p.size = 2;
        if (tl_ofi_ops.open(&p, &cb[i], &tl[i]) != UT_OK)
            return -1;
        if (tl_get_addr(tl[i], pair_addrs[i], &len) != UT_OK)
            return -1;
        if (i && len != pair_addrlen)
            return -1;
        pair_addrlen = len;
    }
    /* tl_connect takes the addresses as rows of pair_addrlen bytes
     * (pair_addrs[1] keeps its copy) */
    if (pair_addrlen < sizeof(pair_addrs[0]))
        memmove(pair_addrs[0] + pair_addrlen, pair_addrs[1], pair_addrlen);
    for (i = 0; i < 2; i++) {
        c[i].tl = tl[i];
        pthread_create(&th[i], NULL, pair_connect_thread, &c[i]);
    }
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return c[0].rc == UT_OK && c[1].rc == UT_OK ? 0 : -1;
}

#endif
