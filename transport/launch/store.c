/*
 * transport/launch/store.c: bin/mpirun's key-value store (protocol in
 * transport/boot_wire.h).
 *
 * One listening socket, non-blocking connections, a hash table of keys.
 * Every byte read is bounded before it is stored: a header is checked before
 * its payload is read, and the input buffer holds one message at most.
 * Unauthenticated connections (first message not yet a valid HELLO/WATCH
 * with the secret) are few (STORE_UNAUTH_MAX at a time; further ones wait in
 * the listen backlog), short-lived (STORE_UNAUTH_MS) and closed silently on
 * the first wrong byte. A joined
 * rank that misbehaves is reported (STORE_EV_PROTO) and cut off; the
 * launcher then ends the job.
 */
#include "store.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "util/status.h"

#define STORE_UNAUTH_MAX 256              /* pending unauthenticated connections (more wait in the backlog) */
#define STORE_UNAUTH_MS 10000             /* time to send HELLO/WATCH */
#define STORE_OUT_HIGH (64 * 1024)        /* stop reading a connection above this backlog */
#define STORE_BYTES_MAX (256u << 20)      /* total key+value bytes kept */
#define STORE_ACCEPT_BACKOFF_MS 100       /* accept() out of descriptors: pause listening */

typedef enum store_conn_kind {
    STORE_CONN_UNAUTH,
    STORE_CONN_MAIN,
    STORE_CONN_WATCH,
} store_conn_kind_t;

typedef struct store_conn {
    int fd;
    store_conn_kind_t kind;
    int rank;                 /* -1 until authenticated */
    int closed;               /* fd closed; freed after the current pass */
    int64_t deadline;         /* unauthenticated: close at this time */
    size_t inlen;
    uint8_t in[BOOT_WIRE_MSG_MAX];
    uint8_t *out;
    size_t outlen;
    size_t outcap;
} store_conn_t;

typedef struct store_rank {
    store_conn_t *main;
    store_conn_t *watch;
    int joined;               /* HELLO accepted once (never again) */
    int watched;              /* WATCH accepted once */
    int fini;                 /* sent FINI */
    int in_fence;             /* sent FENCE, waits for FENCE_DONE */
    int gone;                 /* the launcher saw its process exit */
    int cut;                  /* reported (PROTO / CONN_LOST): ignore from now on */
} store_rank_t;

typedef struct store_kv {
    struct store_kv *next;
    size_t klen;
    size_t vlen;
    char key[BOOT_WIRE_KEY_MAX];
    uint8_t *val;
} store_kv_t;

struct store {
    int listen_fd;
    int nranks;
    char secret[BOOT_WIRE_SECRET_HEX];
    store_rank_t *ranks;
    /* connections */
    store_conn_t **conns;
    size_t nconns;
    size_t conncap;
    size_t nunauth;
    store_conn_t **polled;    /* conns in the order of the last store_pollfds() */
    size_t npolled;
    int listen_polled;
    int64_t listen_pause;     /* accept() ran out of descriptors: skip listening until then (-1: no) */
    /* fence */
    int nfence;
    int stuck_reported;
    /* table */
    store_kv_t **buckets;
    size_t nbuckets;
    size_t nkeys;
    size_t bytes;
    /* events */
    store_ev_t *evs;
    size_t nevs;
    size_t evhead;
    size_t evcap;
};

/* ------------------------------------------------------------------ */
/* events                                                              */

static void store_copy_printable(char *dst, const uint8_t *src, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        unsigned char c = src[i];
        dst[i] = (c == '\t' || (c >= 0x20 && c != 0x7f)) ? (char)c : '?';
    }
    dst[len] = '\0';
}

static store_ev_t *store_ev_push(store_t *st, store_ev_type_t type, int rank)
{
    store_ev_t *ev;

    if (st->evhead == st->nevs) {
        st->evhead = 0;
        st->nevs = 0;
    }
    if (st->nevs == st->evcap) {
        size_t cap = st->evcap ? st->evcap * 2 : 8;
        store_ev_t *evs = realloc(st->evs, cap * sizeof(*evs));
        if (!evs) {
            fprintf(stderr, "mpirun: out of memory\n");
            exit(1);
        }
        st->evs = evs;
        st->evcap = cap;
    }
    ev = &st->evs[st->nevs++];
    memset(ev, 0, offsetof(store_ev_t, msg));
    ev->msg[0] = '\0';
    ev->type = type;
    ev->rank = rank;
    return ev;
}

int store_next_event(store_t *st, store_ev_t *ev)
{
    if (st->evhead == st->nevs)
        return 0;
    *ev = st->evs[st->evhead++];
    return 1;
}

/* ------------------------------------------------------------------ */
/* key-value table                                                     */

static uint64_t store_hash(const char *key, size_t klen)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    size_t i;

    for (i = 0; i < klen; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    return h;
}

static store_kv_t *store_kv_find(const store_t *st, const char *key, size_t klen)
{
    store_kv_t *kv = st->buckets[store_hash(key, klen) & (st->nbuckets - 1)];

    for (; kv; kv = kv->next)
        if (kv->klen == klen && !memcmp(kv->key, key, klen))
            return kv;
    return NULL;
}

static int store_kv_grow(store_t *st)
{
    size_t n = st->nbuckets * 2, i;
    store_kv_t **b = calloc(n, sizeof(*b));

    if (!b)
        return UT_ERR_NO_MEMORY;
    for (i = 0; i < st->nbuckets; i++) {
        store_kv_t *kv = st->buckets[i], *next;
        for (; kv; kv = next) {
            size_t j = store_hash(kv->key, kv->klen) & (n - 1);
            next = kv->next;
            kv->next = b[j];
            b[j] = kv;
        }
    }
    free(st->buckets);
    st->buckets = b;
    st->nbuckets = n;
    return UT_OK;
}

/* Inserts or replaces. UT_ERR_NO_RESOURCE when the table would exceed
 * STORE_BYTES_MAX, UT_ERR_NO_MEMORY when malloc fails. */
static int store_kv_put(store_t *st, const char *key, size_t klen, const uint8_t *val, size_t vlen)
{
    store_kv_t *kv = store_kv_find(st, key, klen);
    uint8_t *copy;
    size_t idx;

    if (st->bytes - (kv ? kv->vlen : 0) + vlen + (kv ? 0 : klen) > STORE_BYTES_MAX)
        return UT_ERR_NO_RESOURCE;
    copy = malloc(vlen ? vlen : 1);
    if (!copy)
        return UT_ERR_NO_MEMORY;
    memcpy(copy, val, vlen);
    if (kv) {
        st->bytes -= kv->vlen;
        free(kv->val);
        kv->val = copy;
        kv->vlen = vlen;
        st->bytes += vlen;
        return UT_OK;
    }
    if (st->nkeys >= st->nbuckets * 2 && store_kv_grow(st) != UT_OK) {
        free(copy);
        return UT_ERR_NO_MEMORY;
    }
    kv = malloc(sizeof(*kv));
    if (!kv) {
        free(copy);
        return UT_ERR_NO_MEMORY;
    }
    memcpy(kv->key, key, klen);
    kv->klen = klen;
    kv->val = copy;
    kv->vlen = vlen;
    idx = store_hash(key, klen) & (st->nbuckets - 1);
    kv->next = st->buckets[idx];
    st->buckets[idx] = kv;
    st->nkeys++;
    st->bytes += klen + vlen;
    return UT_OK;
}

/* ------------------------------------------------------------------ */
/* connections                                                         */

static void store_conn_close(store_t *st, store_conn_t *c)
{
    if (c->closed)
        return;
    close(c->fd);
    c->fd = -1;
    c->closed = 1;
    if (c->kind == STORE_CONN_UNAUTH) {
        st->nunauth--;
    } else if (c->rank >= 0) {
        store_rank_t *r = &st->ranks[c->rank];
        if (r->main == c)
            r->main = NULL;
        if (r->watch == c)
            r->watch = NULL;
    }
}

/* The rank behind c misbehaved (PROTO: drop both of its connections) or
 * one of its connections closed (CONN_LOST: drop that one only, so that the
 * rank does not exit because of us before the launcher has judged it).
 * Reported once; the rank is ignored from then on. */
static void store_rank_cut(store_t *st, store_conn_t *c, store_ev_type_t type, const char *why)
{
    store_rank_t *r = &st->ranks[c->rank];

    if (!r->cut) {
        store_ev_t *ev = store_ev_push(st, type, c->rank);
        snprintf(ev->msg, sizeof(ev->msg), "%s", why);
        r->cut = 1;
    }
    if (r->in_fence) {
        r->in_fence = 0;
        st->nfence--;
    }
    if (type == STORE_EV_CONN_LOST) {
        store_conn_close(st, c);
        return;
    }
    if (r->main)
        store_conn_close(st, r->main);
    if (r->watch)
        store_conn_close(st, r->watch);
}

/* Writes as much of c's output as the socket takes. A send error means the
 * peer is gone; the next read reports it. */
static void store_conn_flush(store_t *st, store_conn_t *c)
{
    size_t off = 0;

    while (off < c->outlen) {
        ssize_t n = send(c->fd, c->out + off, c->outlen - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        /* peer reset: treat like EOF */
        if (c->rank >= 0 && !st->ranks[c->rank].fini)
            store_rank_cut(st, c, STORE_EV_CONN_LOST, "connection reset");
        else
            store_conn_close(st, c);
        return;
    }
    memmove(c->out, c->out + off, c->outlen - off);
    c->outlen -= off;
}

static void store_conn_reply(store_t *st, store_conn_t *c, int type, const void *val, size_t vlen)
{
    boot_wire_hdr_t h;
    size_t need = c->outlen + sizeof(h) + vlen;

    if (c->closed)
        return;
    if (need > c->outcap) {
        size_t cap = c->outcap ? c->outcap : 256;
        uint8_t *out;
        while (cap < need)
            cap *= 2;
        out = realloc(c->out, cap);
        if (!out) {
            fprintf(stderr, "mpirun: out of memory\n");
            exit(1);
        }
        c->out = out;
        c->outcap = cap;
    }
    boot_wire_hdr_pack(&h, type, 0, vlen);
    memcpy(c->out + c->outlen, &h, sizeof(h));
    if (vlen)
        memcpy(c->out + c->outlen + sizeof(h), val, vlen);
    c->outlen = need;
    store_conn_flush(st, c);
}

/* ------------------------------------------------------------------ */
/* fence                                                               */

static void store_fence_check(store_t *st)
{
    int i, gone = -1, waiting = -1;

    if (st->nfence == 0)
        return;
    if (st->nfence == st->nranks) {
        for (i = 0; i < st->nranks; i++) {
            store_rank_t *r = &st->ranks[i];
            r->in_fence = 0;
            if (r->main)
                store_conn_reply(st, r->main, BOOT_MSG_FENCE_DONE, NULL, 0);
        }
        st->nfence = 0;
        return;
    }
    /* Can it still complete? Not if a rank outside it has finalized or
     * exited: report that once. */
    if (st->stuck_reported)
        return;
    for (i = 0; i < st->nranks; i++) {
        store_rank_t *r = &st->ranks[i];
        if (r->in_fence && waiting < 0)
            waiting = i;
        if (!r->in_fence && (r->fini || r->gone) && gone < 0)
            gone = i;
    }
    if (gone >= 0 && waiting >= 0) {
        store_ev_t *ev = store_ev_push(st, STORE_EV_FENCE_STUCK, waiting);
        ev->other = gone;
        st->stuck_reported = 1;
    }
}

/* ------------------------------------------------------------------ */
/* messages                                                            */

static int store_secret_equal(const char *a, const uint8_t *b)
{
    unsigned diff = 0;
    size_t i;

    for (i = 0; i < BOOT_WIRE_SECRET_HEX; i++)
        diff |= (unsigned char)a[i] ^ b[i];
    return diff == 0;
}

/* First message of a connection. Anything but a well-formed HELLO/WATCH for
 * a rank that may join: close without a word. */
static void store_handle_hello(store_t *st, store_conn_t *c, const boot_wire_hdr_t *h, const uint8_t *key,
                               const uint8_t *val)
{
    uint32_t rank, size;
    store_rank_t *r;

    if ((h->type != BOOT_MSG_HELLO && h->type != BOOT_MSG_WATCH) || !store_secret_equal(st->secret, key)) {
        ut_debug("store: refused a connection (wrong secret or first message)");
        store_conn_close(st, c);
        return;
    }
    rank = boot_wire_get_u32(val);
    size = boot_wire_get_u32(val + 4);
    if (size != (uint32_t)st->nranks || rank >= size) {
        fprintf(stderr, "mpirun: warning: refused a store connection for rank %u of %u (job size %d)\n",
                rank, size, st->nranks);
        store_conn_close(st, c);
        return;
    }
    r = &st->ranks[rank];
    if (r->cut || (h->type == BOOT_MSG_HELLO && r->joined) ||
        (h->type == BOOT_MSG_WATCH && (!r->joined || r->watched || r->fini))) {
        fprintf(stderr, "mpirun: warning: refused a second %s connection for rank %u\n",
                h->type == BOOT_MSG_HELLO ? "main" : "watch", rank);
        store_conn_close(st, c);
        return;
    }
    st->nunauth--;
    c->rank = (int)rank;
    c->deadline = -1;
    if (h->type == BOOT_MSG_HELLO) {
        c->kind = STORE_CONN_MAIN;
        r->main = c;
        r->joined = 1;
    } else {
        c->kind = STORE_CONN_WATCH;
        r->watch = c;
        r->watched = 1;
    }
    store_conn_reply(st, c, BOOT_MSG_OK, NULL, 0);
}

static void store_handle_abort(store_t *st, store_conn_t *c, const uint8_t *val, size_t vlen)
{
    store_ev_t *ev = store_ev_push(st, STORE_EV_ABORT, c->rank);

    ev->code = (int)(int32_t)boot_wire_get_u32(val);
    store_copy_printable(ev->msg, val + 4, vlen - 4);
    /* nothing more is expected from this rank: mpirun ends the job */
    st->ranks[c->rank].cut = 1;
}

static void store_handle_request(store_t *st, store_conn_t *c, const boot_wire_hdr_t *h, const uint8_t *key,
                                 const uint8_t *val)
{
    store_rank_t *r = &st->ranks[c->rank];
    size_t klen = boot_wire_hdr_klen(h), vlen = boot_wire_hdr_vlen(h);
    store_kv_t *kv;
    int rc;

    if (h->type == BOOT_MSG_ABORT) {
        store_handle_abort(st, c, val, vlen);
        return;
    }
    if (c->kind == STORE_CONN_WATCH) {
        store_rank_cut(st, c, STORE_EV_PROTO, "request on the watch connection");
        return;
    }
    if (r->fini) {
        store_rank_cut(st, c, STORE_EV_PROTO, "request after FINI");
        return;
    }
    switch (h->type) {
    case BOOT_MSG_PUT:
        rc = store_kv_put(st, (const char *)key, klen, val, vlen);
        if (rc == UT_ERR_NO_RESOURCE) {
            store_rank_cut(st, c, STORE_EV_PROTO, "store full (256 MiB of keys and values)");
        } else if (rc != UT_OK) {
            fprintf(stderr, "mpirun: out of memory\n");
            exit(1);
        }
        break;
    case BOOT_MSG_GET:
        kv = store_kv_find(st, (const char *)key, klen);
        if (kv)
            store_conn_reply(st, c, BOOT_MSG_VALUE, kv->val, kv->vlen);
        else
            store_conn_reply(st, c, BOOT_MSG_NOTFOUND, NULL, 0);
        break;
    case BOOT_MSG_FENCE:
        if (r->in_fence) {
            store_rank_cut(st, c, STORE_EV_PROTO, "FENCE while already in a fence");
            return;
        }
        r->in_fence = 1;
        st->nfence++;
        store_fence_check(st);
        break;
    case BOOT_MSG_FINI:
        if (r->in_fence) {
            store_rank_cut(st, c, STORE_EV_PROTO, "FINI while in a fence");
            return;
        }
        r->fini = 1;
        store_conn_reply(st, c, BOOT_MSG_OK, NULL, 0);
        store_fence_check(st);
        break;
    default: /* HELLO / WATCH again */
        store_rank_cut(st, c, STORE_EV_PROTO, "second HELLO/WATCH");
        break;
    }
}

/* Parses and handles every complete message in c->in. */
static void store_conn_parse(store_t *st, store_conn_t *c)
{
    size_t off = 0;

    while (!c->closed && c->inlen - off >= BOOT_WIRE_HDR_SIZE) {
        boot_wire_hdr_t h;
        size_t klen, vlen, need;
        const uint8_t *key, *val;

        memcpy(&h, c->in + off, sizeof(h));
        if (!boot_wire_request_ok(&h)) {
            if (c->kind == STORE_CONN_UNAUTH) {
                ut_debug("store: dropped an unauthenticated connection (malformed header)");
                store_conn_close(st, c);
            } else {
                char why[96];
                snprintf(why, sizeof(why), "bad header: version %u, type %u, key %zu bytes, value %zu bytes",
                         h.version, h.type, boot_wire_hdr_klen(&h), boot_wire_hdr_vlen(&h));
                store_rank_cut(st, c, STORE_EV_PROTO, why);
            }
            return;
        }
        klen = boot_wire_hdr_klen(&h);
        vlen = boot_wire_hdr_vlen(&h);
        need = sizeof(h) + klen + vlen;
        if (c->inlen - off < need)
            break;
        key = c->in + off + sizeof(h);
        val = key + klen;
        if (c->kind == STORE_CONN_UNAUTH)
            store_handle_hello(st, c, &h, key, val);
        else if (!st->ranks[c->rank].cut)
            store_handle_request(st, c, &h, key, val);
        off += need;
    }
    if (!c->closed) {
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
    }
}

static void store_conn_eof(store_t *st, store_conn_t *c)
{
    if (c->kind == STORE_CONN_UNAUTH || c->rank < 0 || st->ranks[c->rank].fini ||
        st->ranks[c->rank].cut) {
        store_conn_close(st, c);
        return;
    }
    store_rank_cut(st, c, STORE_EV_CONN_LOST,
                   c->kind == STORE_CONN_MAIN ? "main connection closed" : "watch connection closed");
}

static void store_conn_read(store_t *st, store_conn_t *c)
{
    while (!c->closed && c->outlen <= STORE_OUT_HIGH) {
        ssize_t n;
        /* store_conn_parse() leaves less than one whole message (<= the
         * buffer), so there is always room; never recv() 0 bytes (= EOF) */
        if (c->inlen >= sizeof(c->in)) {
            store_conn_close(st, c);
            return;
        }
        n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, 0);
        if (n > 0) {
            c->inlen += (size_t)n;
            store_conn_parse(st, c);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        store_conn_eof(st, c);
        return;
    }
}

static int store_conn_add(store_t *st, int fd, int64_t now_ms)
{
    store_conn_t *c;

    if (st->nconns == st->conncap) {
        size_t cap = st->conncap ? st->conncap * 2 : 16;
        store_conn_t **conns = realloc(st->conns, cap * sizeof(*conns));
        store_conn_t **polled = realloc(st->polled, cap * sizeof(*polled));
        if (conns)
            st->conns = conns;
        if (polled)
            st->polled = polled;
        if (!conns || !polled)
            return UT_ERR_NO_MEMORY;
        st->conncap = cap;
    }
    c = calloc(1, sizeof(*c));
    if (!c)
        return UT_ERR_NO_MEMORY;
    c->fd = fd;
    c->kind = STORE_CONN_UNAUTH;
    c->rank = -1;
    c->deadline = now_ms + STORE_UNAUTH_MS;
    st->conns[st->nconns++] = c;
    st->nunauth++;
    return UT_OK;
}

static void store_accept(store_t *st, int64_t now_ms)
{
    /* past STORE_UNAUTH_MAX, new connections wait in the kernel's backlog
     * until pending ones authenticate or expire */
    while (st->nunauth < STORE_UNAUTH_MAX) {
        int one = 1;
        int fd = accept4(st->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                /* EMFILE & co: the listening socket stays readable; do not
                 * spin on it */
                ut_warn("store: accept: %s", strerror(errno));
                st->listen_pause = now_ms + STORE_ACCEPT_BACKOFF_MS;
            }
            return;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (store_conn_add(st, fd, now_ms) != UT_OK) {
            close(fd);
            return;
        }
    }
}

/* Frees closed connections (only between passes, never while polled[]
 * points at them). */
static void store_conn_sweep(store_t *st)
{
    size_t i, j = 0;

    for (i = 0; i < st->nconns; i++) {
        store_conn_t *c = st->conns[i];
        if (c->closed) {
            free(c->out);
            free(c);
        } else {
            st->conns[j++] = c;
        }
    }
    st->nconns = j;
    st->npolled = 0;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

size_t store_max_fds(const store_t *st)
{
    return 1 + 2 * (size_t)st->nranks + STORE_UNAUTH_MAX;
}

size_t store_pollfds(store_t *st, struct pollfd *fds, size_t max)
{
    size_t n = 0, i;

    store_conn_sweep(st);
    st->listen_polled = 0;
    if (n < max && st->listen_pause < 0 && st->nunauth < STORE_UNAUTH_MAX) {
        fds[n].fd = st->listen_fd;
        fds[n].events = POLLIN;
        fds[n].revents = 0;
        n++;
        st->listen_polled = 1;
    }
    for (i = 0; i < st->nconns && n < max; i++) {
        store_conn_t *c = st->conns[i];
        fds[n].fd = c->fd;
        fds[n].events = (short)((c->outlen <= STORE_OUT_HIGH ? POLLIN : 0) | (c->outlen ? POLLOUT : 0));
        fds[n].revents = 0;
        st->polled[st->npolled++] = c;
        n++;
    }
    return n;
}

void store_process(store_t *st, const struct pollfd *fds, size_t n, int64_t now_ms)
{
    size_t i, first = st->listen_polled ? 1 : 0;

    for (i = first; i < n && i - first < st->npolled; i++) {
        store_conn_t *c = st->polled[i - first];
        if (c->closed)
            continue;
        if ((fds[i].revents & POLLOUT) && c->outlen)
            store_conn_flush(st, c);
        if (!c->closed && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            store_conn_read(st, c);
    }
    if (st->listen_pause >= 0 && now_ms >= st->listen_pause)
        st->listen_pause = -1;
    /* expire slow unauthenticated connections */
    for (i = 0; i < st->npolled; i++) {
        store_conn_t *c = st->polled[i];
        if (!c->closed && c->kind == STORE_CONN_UNAUTH && now_ms >= c->deadline) {
            ut_debug("store: unauthenticated connection timed out");
            store_conn_close(st, c);
        }
    }
    if (first && n > 0 && (fds[0].revents & POLLIN))
        store_accept(st, now_ms);
}

int64_t store_next_deadline(const store_t *st)
{
    int64_t d = st->listen_pause;
    size_t i;

    for (i = 0; i < st->nconns; i++) {
        const store_conn_t *c = st->conns[i];
        if (!c->closed && c->kind == STORE_CONN_UNAUTH && (d < 0 || c->deadline < d))
            d = c->deadline;
    }
    return d;
}

void store_rank_gone(store_t *st, int rank)
{
    if (rank < 0 || rank >= st->nranks)
        return;
    st->ranks[rank].gone = 1;
    store_fence_check(st);
}

int store_rank_joined(const store_t *st, int rank)
{
    return st->ranks[rank].joined;
}

int store_rank_finalized(const store_t *st, int rank)
{
    return st->ranks[rank].fini;
}

int store_create(const char *bind_addr, int nranks, const char *secret, store_t **store_p, int *port_p)
{
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    store_t *st;
    int one = 1;

    if (nranks < 1 || strlen(secret) != BOOT_WIRE_SECRET_HEX)
        return UT_ERR_INVALID_PARAM;
    st = calloc(1, sizeof(*st));
    if (!st)
        return UT_ERR_NO_MEMORY;
    st->listen_fd = -1;
    st->listen_pause = -1;
    st->nranks = nranks;
    memcpy(st->secret, secret, BOOT_WIRE_SECRET_HEX);
    st->ranks = calloc((size_t)nranks, sizeof(*st->ranks));
    st->nbuckets = 64;
    st->buckets = calloc(st->nbuckets, sizeof(*st->buckets));
    if (!st->ranks || !st->buckets)
        goto err_free;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
        fprintf(stderr, "mpirun: cannot listen on '%s': not an IPv4 address\n", bind_addr);
        store_destroy(st);
        return UT_ERR_INVALID_PARAM;
    }
    st->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (st->listen_fd < 0)
        goto err_sys;
    setsockopt(st->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(st->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(st->listen_fd, SOMAXCONN) < 0 ||
        getsockname(st->listen_fd, (struct sockaddr *)&sa, &salen) < 0)
        goto err_sys;
    *port_p = ntohs(sa.sin_port);
    *store_p = st;
    return UT_OK;

err_sys:
    fprintf(stderr, "mpirun: cannot listen on %s: %s\n", bind_addr, strerror(errno));
    store_destroy(st);
    return UT_ERR_IO;
err_free:
    store_destroy(st);
    return UT_ERR_NO_MEMORY;
}

void store_destroy(store_t *st)
{
    size_t i;

    if (!st)
        return;
    for (i = 0; i < st->nconns; i++)
        store_conn_close(st, st->conns[i]);
    st->npolled = 0;
    store_conn_sweep(st);
    if (st->listen_fd >= 0)
        close(st->listen_fd);
    for (i = 0; st->buckets && i < st->nbuckets; i++) {
        store_kv_t *kv = st->buckets[i], *next;
        for (; kv; kv = next) {
            next = kv->next;
            free(kv->val);
            free(kv);
        }
    }
    free(st->buckets);
    free(st->conns);
    free(st->polled);
    free(st->ranks);
    free(st->evs);
    free(st);
}
