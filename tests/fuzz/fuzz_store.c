/*
 * tests/fuzz/fuzz_store.c: libFuzzer target for bin/mpirun's bootstrap store
 * (transport/launch/store.c: header check, payload bounds, HELLO/WATCH
 * authentication, PUT/GET/FENCE/ABORT/FINI handling, fence bookkeeping).
 *
 * store.c's parser is static and fed by recv() on accepted sockets, so the
 * harness includes store.c and builds a store without a listening socket
 * (the same fields store_create() sets; nranks = 2, a fixed secret), then
 * adds NCONN client connections as AF_UNIX socketpairs through the store's
 * own store_conn_add(). The store runs through its public loop
 * (store_pollfds / store_process) with the revents set by the harness
 * (POLLIN | POLLOUT on every descriptor: reads end at EAGAIN), so no poll(),
 * no timeouts, no sleeps: deterministic.
 *
 * Input: a sequence of records  [ctl u8][len u16 LE][len bytes]
 * (len clamped to what is left). ctl & 3 = connection; (ctl >> 2) & 7:
 *   0..3  write the bytes to that connection, then one store pass;
 *   4     close the client end (EOF at the store), one pass;
 *   5     the launcher reports rank data[0] % 3 - 1 gone (store_rank_gone);
 *   6     one store pass at time data[0..3] ms (expiry of unauthenticated
 *         connections);
 *   7     open a new connection in place of that one (old client end closed).
 * After each pass the harness reads every client end and checks that the
 * store only sends well-formed replies (boot_wire_reply_ok, whole
 * messages); at the end it drains events (their msg must be NUL-terminated
 * within bounds) and destroys the store.
 */
#include "transport/launch/store.c"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>

#define NCONN 4
#define NRANKS 2
#define MAX_OPS 512
static const char SECRET[BOOT_WIRE_SECRET_HEX + 1] = "0123456789abcdef0123456789abcdef";

typedef struct client {
    int fd;                         /* our end, -1 closed */
    uint8_t in[BOOT_WIRE_HDR_SIZE + BOOT_WIRE_VAL_MAX];
    size_t inlen;
} client_t;

static client_t cl[NCONN];
static store_t *st;
static struct pollfd *fds;
static int64_t now_ms;

static void die(const char *why)
{
    fprintf(stderr, "fuzz_store: invariant violated: %s\n", why);
    abort();
}

static store_t *store_new(void)
{
    store_t *s = calloc(1, sizeof(*s));

    if (!s)
        die("calloc");
    s->listen_fd = -1;
    s->listen_pause = INT64_MAX; /* never poll the (absent) listening socket */
    s->nranks = NRANKS;
    memcpy(s->secret, SECRET, BOOT_WIRE_SECRET_HEX);
    s->ranks = calloc(NRANKS, sizeof(*s->ranks));
    s->nbuckets = 64;
    s->buckets = calloc(s->nbuckets, sizeof(*s->buckets));
    if (!s->ranks || !s->buckets)
        die("calloc");
    return s;
}

static void client_open(int i)
{
    int sv[2];

    if (cl[i].fd >= 0)
        close(cl[i].fd);
    cl[i].fd = -1;
    cl[i].inlen = 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
        die("socketpair");
    if (store_conn_add(st, sv[0], now_ms) != UT_OK)
        die("store_conn_add");
    cl[i].fd = sv[1];
}

/* Reads what the store sent to client i; every reply must be well formed. */
static void client_drain(int i)
{
    client_t *c = &cl[i];

    if (c->fd < 0)
        return;
    for (;;) {
        ssize_t n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, 0);
        size_t off = 0;
        if (n <= 0)
            return; /* EAGAIN, or EOF: the store closed it */
        c->inlen += (size_t)n;
        while (c->inlen - off >= BOOT_WIRE_HDR_SIZE) {
            boot_wire_hdr_t h;
            size_t need;
            memcpy(&h, c->in + off, sizeof(h));
            if (!boot_wire_reply_ok(&h))
                die("store sent a malformed reply");
            need = sizeof(h) + boot_wire_hdr_vlen(&h);
            if (c->inlen - off < need)
                break;
            off += need;
        }
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
    }
}

static void pass(void)
{
    size_t n, i;

    n = store_pollfds(st, fds, store_max_fds(st));
    for (i = 0; i < n; i++)
        fds[i].revents = (short)(POLLIN | POLLOUT);
    store_process(st, fds, n, now_ms);
    for (i = 0; i < NCONN; i++)
        client_drain((int)i);
}

static void drain_events(void)
{
    store_ev_t ev;

    while (store_next_event(st, &ev)) {
        if (memchr(ev.msg, 0, sizeof(ev.msg)) == NULL)
            die("event message not terminated");
        if (ev.rank < 0 || ev.rank >= NRANKS)
            die("event for an impossible rank");
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ut_log_level = -1;
    fds = calloc(1 + 2 * NRANKS + STORE_UNAUTH_MAX, sizeof(*fds));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    int i, ops = 0;
    now_ms = 1000;
    st = store_new();
    for (i = 0; i < NCONN; i++) {
        cl[i].fd = -1;
        client_open(i);
    }
    while (off < size && ops++ < MAX_OPS) {
        int ctl = data[off++];
        int conn = ctl & 3, op = (ctl >> 2) & 7;
        size_t n = 0;
        const uint8_t *d;

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
        switch (op) {
        case 4:
            if (cl[conn].fd >= 0) {
                close(cl[conn].fd);
                cl[conn].fd = -1;
            }
            pass();
            break;
        case 5:
            store_rank_gone(st, (n ? d[0] % 3 : 0) - 1);
            pass();
            break;
        case 6: {
            uint32_t t = 0;
            memcpy(&t, d, n < 4 ? n : 4);
            now_ms += t % 20000;
            pass();
            break;
        }
        case 7:
            if (st->nunauth < STORE_UNAUTH_MAX) /* as store_accept() */
                client_open(conn);
            pass();
            break;
        default:
            /* a full socket buffer just drops the rest (the store reads on
             * the next pass) */
            if (cl[conn].fd >= 0 && n)
                (void)send(cl[conn].fd, d, n, MSG_NOSIGNAL);
            pass();
            break;
        }
        drain_events();
        for (i = 0; i < NRANKS; i++) {
            const store_rank_t *r = &st->ranks[i];
            if (r->in_fence && !r->joined)
                die("rank in a fence without joining");
        }
        if (st->nfence < 0 || st->nfence > NRANKS)
            die("fence count out of range");
        if (st->bytes > STORE_BYTES_MAX)
            die("store over its byte bound");
    }
    pass();
    drain_events();
    for (i = 0; i < NCONN; i++)
        if (cl[i].fd >= 0) {
            close(cl[i].fd);
            cl[i].fd = -1;
        }
    store_destroy(st);
    st = NULL;
    return 0;
}
