/*
 * transport/boot_client.c: the rank side of transport/boot.h, talking to the
 * store of bin/mpirun (protocol: transport/boot_wire.h).
 *
 * Two TCP connections to the store:
 *   main   HELLO, then PUT / GET / FENCE / FINI (one request at a time, under
 *          b->lock, so threads may share a boot_t). A fence may be split
 *          (boot_fence_begin / boot_fence_test) so the caller can progress
 *          its network meanwhile; a GET in between is fine (a FENCE_DONE
 *          that arrives before its answer is kept for boot_fence_test).
 *   watch  WATCH, then read by a monitor thread that blocks in recv(): EOF
 *          or an error means mpirun is gone, and unless boot_finalize() has
 *          begun the rank prints one line and _exit(1)s (so a rank never
 *          outlives its launcher, even on another host or when mpirun was
 *          SIGKILLed). boot_abort() sends ABORT on this connection.
 * Without MBMPI_STORE the process is a singleton: rank 0 of 1, put/get on a
 * local table, fence a no-op.
 */
#include "boot.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot_wire.h"
#include "util/log.h"
#include "util/status.h"

#define BOOT_CONNECT_MS 10000     /* connect() */
#define BOOT_HELLO_MS 60000       /* the HELLO/WATCH reply (mpirun may still be forking ranks) */
#define BOOT_ABORT_WAIT_MS 30000  /* after ABORT, wait this long to be killed */

typedef enum boot_phase {
    BOOT_PHASE_RUNNING,
    BOOT_PHASE_FINALIZING,        /* store EOF is expected now */
    BOOT_PHASE_ABORTING,          /* store EOF: _exit(abort code) quietly */
} boot_phase_t;

typedef struct boot_local_kv {
    struct boot_local_kv *next;
    char key[BOOT_WIRE_KEY_MAX + 1];
    size_t len;
    unsigned char val[];
} boot_local_kv_t;

struct boot {
    int rank;
    int size;
    int all_local;
    int singleton;
    int fd;                       /* main connection */
    int watch_fd;
    int broken;                   /* main connection failed: fail fast */
    int fence_pending;            /* FENCE sent, FENCE_DONE not read yet */
    int fence_done;               /* FENCE_DONE read (by another request), not yet reported */
    int watch_started;
    pthread_t watch_thread;
    pthread_mutex_t lock;         /* one request at a time on fd */
    _Atomic int phase;            /* boot_phase_t, read by the monitor */
    _Atomic int abort_code;
    boot_local_kv_t *local;       /* singleton table */
};

/* ------------------------------------------------------------------ */
/* plumbing                                                            */

static int boot_exit_status(int code)
{
    if (code == 0)
        return 0;
    return (code & 0xff) ? (code & 0xff) : 1;
}

static int boot_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return UT_ERR_IO;
        p += n;
        len -= (size_t)n;
    }
    return UT_OK;
}

/* UT_ERR_IO on error or EOF (errno 0 for EOF). */
static int boot_recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = 0;
        if (n <= 0)
            return UT_ERR_IO;
        p += n;
        len -= (size_t)n;
    }
    return UT_OK;
}

static int boot_send_msg(int fd, int type, const char *key, size_t klen, const void *v1, size_t l1,
                         const void *v2, size_t l2)
{
    unsigned char buf[BOOT_WIRE_MSG_MAX];
    boot_wire_hdr_t h;
    size_t off = sizeof(h);

    boot_wire_hdr_pack(&h, type, klen, l1 + l2);
    memcpy(buf, &h, sizeof(h));
    if (klen)
        memcpy(buf + off, key, klen);
    off += klen;
    if (l1)
        memcpy(buf + off, v1, l1);
    off += l1;
    if (l2)
        memcpy(buf + off, v2, l2);
    off += l2;
    return boot_send_all(fd, buf, off);
}

/* Reads one reply. The value (if any) goes to val (up to maxlen bytes, the
 * rest is read and dropped); *type_p and *vlen_p get the type and the full
 * length. UT_ERR_IO (connection) or UT_ERR_PROTO (bad header). */
static int boot_recv_reply(int fd, int *type_p, void *val, size_t maxlen, size_t *vlen_p)
{
    unsigned char scratch[BOOT_WIRE_VAL_MAX];
    boot_wire_hdr_t h;
    size_t vlen, keep;
    int rc;

    rc = boot_recv_all(fd, &h, sizeof(h));
    if (rc != UT_OK)
        return rc;
    if (!boot_wire_reply_ok(&h))
        return UT_ERR_PROTO;
    vlen = boot_wire_hdr_vlen(&h);
    keep = vlen < maxlen ? vlen : maxlen;
    if (keep) {
        rc = boot_recv_all(fd, val, keep);
        if (rc != UT_OK)
            return rc;
    }
    if (vlen > keep) {
        rc = boot_recv_all(fd, scratch, vlen - keep);
        if (rc != UT_OK)
            return rc;
    }
    *type_p = h.type;
    *vlen_p = vlen;
    return UT_OK;
}

/* The main connection failed: log once, then every call fails fast. */
static int boot_lost(boot_t *b, int rc, const char *what)
{
    if (!b->broken) {
        if (rc == UT_ERR_PROTO)
            ut_error("boot: malformed reply from mpirun's store during %s", what);
        else
            ut_error("boot: lost the connection to mpirun's store during %s: %s", what,
                     errno ? strerror(errno) : "closed by mpirun");
        b->broken = 1;
    }
    return rc == UT_ERR_PROTO ? UT_ERR_PROTO : UT_ERR_UNREACHABLE;
}

static int boot_env_int(const char *name, int lo, int hi, int *out)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s || !*s) {
        ut_error("boot: %s is not set (MBMPI_STORE is: start the job with bin/mpirun)", name);
        return UT_ERR_INVALID_PARAM;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        ut_error("boot: bad %s '%s'", name, s);
        return UT_ERR_INVALID_PARAM;
    }
    *out = (int)v;
    return UT_OK;
}

/* Connects to "host:port" within BOOT_CONNECT_MS. Returns a blocking
 * socket, or -1 (logged). */
static int boot_connect(const char *store)
{
    char host[256], *colon;
    const char *port;
    struct addrinfo hints, *ais, *ai;
    int fd = -1, rc, one = 1;

    if (strlen(store) >= sizeof(host)) {
        ut_error("boot: MBMPI_STORE '%s' is too long", store);
        return -1;
    }
    strcpy(host, store);
    colon = strrchr(host, ':');
    if (!colon || colon == host || !colon[1]) {
        ut_error("boot: MBMPI_STORE '%s' is not host:port", store);
        return -1;
    }
    *colon = '\0';
    port = colon + 1;
    if (host[0] == '[' && colon[-1] == ']') { /* [v6]:port */
        colon[-1] = '\0';
        memmove(host, host + 1, strlen(host));
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &ais);
    if (rc != 0) {
        ut_error("boot: cannot resolve the store address '%s': %s", store, gai_strerror(rc));
        return -1;
    }
    for (ai = ais; ai; ai = ai->ai_next) {
        struct pollfd pfd;
        int err = 0;
        socklen_t elen = sizeof(err);

        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
            if (errno != EINPROGRESS) {
                err = errno;
            } else {
                pfd.fd = fd;
                pfd.events = POLLOUT;
                do
                    rc = poll(&pfd, 1, BOOT_CONNECT_MS);
                while (rc < 0 && errno == EINTR);
                if (rc == 0)
                    err = ETIMEDOUT;
                else if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
                    err = errno;
            }
        }
        if (err == 0)
            break;
        errno = err;
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        ut_error("boot: cannot connect to mpirun's store at %s: %s", store, strerror(errno));
    freeaddrinfo(ais);
    if (fd < 0)
        return -1;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* HELLO or WATCH on a fresh connection; waits for OK. */
static int boot_handshake(boot_t *b, int fd, int type, const char *secret)
{
    struct timeval tv = {BOOT_HELLO_MS / 1000, 0}, none = {0, 0};
    unsigned char v[8];
    size_t vlen;
    int rc, rtype;

    boot_wire_put_u32(v, (uint32_t)b->rank);
    boot_wire_put_u32(v + 4, (uint32_t)b->size);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    rc = boot_send_msg(fd, type, secret, BOOT_WIRE_SECRET_HEX, v, sizeof(v), NULL, 0);
    if (rc == UT_OK)
        rc = boot_recv_reply(fd, &rtype, NULL, 0, &vlen);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
    if (rc == UT_OK && rtype == BOOT_MSG_OK)
        return UT_OK;
    if (rc == UT_ERR_IO && (errno == 0 || errno == ECONNRESET)) {
        ut_error("boot: mpirun's store refused rank %d (wrong MBMPI_SECRET, a rank that already joined, "
                 "or a size other than %d)", b->rank, b->size);
        return UT_ERR_PERM;
    }
    ut_error("boot: handshake with mpirun's store failed: %s",
             rc == UT_OK || rc == UT_ERR_PROTO ? "malformed reply"
             : (errno == EAGAIN || errno == EWOULDBLOCK) ? "no reply within 60 s"
                                                          : strerror(errno));
    return UT_ERR_UNREACHABLE;
}

/* ------------------------------------------------------------------ */
/* launcher monitor                                                    */

static void *boot_watch_main(void *arg)
{
    boot_t *b = arg;
    char buf[64], msg[128];
    int len;

    for (;;) {
        ssize_t n = recv(b->watch_fd, buf, sizeof(buf), 0);
        if (n > 0)
            continue; /* nothing is expected after OK; ignore */
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    switch (atomic_load(&b->phase)) {
    case BOOT_PHASE_FINALIZING:
        return NULL;
    case BOOT_PHASE_ABORTING:
        _exit(boot_exit_status(atomic_load(&b->abort_code)));
    default:
        len = snprintf(msg, sizeof(msg), "mbmpi: rank %d: launcher (mpirun) is gone; exiting\n", b->rank);
        if (write(STDERR_FILENO, msg, (size_t)len) < 0)
            _exit(1);
        _exit(1);
    }
    return NULL;
}

static int boot_watch_start(boot_t *b)
{
    sigset_t all, old;
    int rc;

    /* signals stay with the application's threads */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&b->watch_thread, NULL, boot_watch_main, b);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ut_error("boot: cannot start the launcher monitor thread: %s", strerror(rc));
        return UT_ERR_NO_RESOURCE;
    }
    b->watch_started = 1;
    return UT_OK;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

int boot_init(boot_t **boot_p)
{
    const char *store = getenv("MBMPI_STORE"), *secret, *s;
    boot_t *b;
    int rc;

    b = calloc(1, sizeof(*b));
    if (!b)
        return UT_ERR_NO_MEMORY;
    b->fd = -1;
    b->watch_fd = -1;
    pthread_mutex_init(&b->lock, NULL);
    atomic_init(&b->phase, BOOT_PHASE_RUNNING);
    atomic_init(&b->abort_code, 0);

    if (!store || !*store) {
        b->singleton = 1;
        b->rank = 0;
        b->size = 1;
        b->all_local = 1;
        *boot_p = b;
        return UT_OK;
    }
    rc = boot_env_int("MBMPI_SIZE", 1, 1 << 30, &b->size);
    if (rc == UT_OK)
        rc = boot_env_int("MBMPI_RANK", 0, b->size - 1, &b->rank);
    if (rc != UT_OK)
        goto err_free;
    s = getenv("MBMPI_ALL_LOCAL");
    b->all_local = s && !strcmp(s, "1");
    if (ut_log_rank < 0)
        ut_log_rank = b->rank;
    secret = getenv("MBMPI_SECRET");
    if (!secret || strlen(secret) != BOOT_WIRE_SECRET_HEX) {
        ut_error("boot: MBMPI_SECRET is %s (expected %d hex digits from mpirun)", secret ? "malformed" : "not set",
                 BOOT_WIRE_SECRET_HEX);
        rc = UT_ERR_PERM;
        goto err_free;
    }

    b->fd = boot_connect(store);
    if (b->fd < 0) {
        rc = UT_ERR_UNREACHABLE;
        goto err_free;
    }
    rc = boot_handshake(b, b->fd, BOOT_MSG_HELLO, secret);
    if (rc != UT_OK)
        goto err_close_main;
    b->watch_fd = boot_connect(store);
    if (b->watch_fd < 0) {
        rc = UT_ERR_UNREACHABLE;
        goto err_close_main;
    }
    rc = boot_handshake(b, b->watch_fd, BOOT_MSG_WATCH, secret);
    if (rc != UT_OK)
        goto err_close_watch;
    rc = boot_watch_start(b);
    if (rc != UT_OK)
        goto err_close_watch;
    *boot_p = b;
    return UT_OK;

err_close_watch:
    close(b->watch_fd);
err_close_main:
    close(b->fd);
err_free:
    pthread_mutex_destroy(&b->lock);
    free(b);
    return rc;
}

int boot_rank(const boot_t *b)
{
    return b->rank;
}

int boot_size(const boot_t *b)
{
    return b->size;
}

int boot_all_local(const boot_t *b)
{
    return b->all_local;
}

static int boot_key_ok(const char *key)
{
    size_t n = key ? strlen(key) : 0;

    return n >= 1 && n <= BOOT_WIRE_KEY_MAX;
}

static int boot_local_put(boot_t *b, const char *key, const void *val, size_t len)
{
    boot_local_kv_t **pp, *kv;

    for (pp = &b->local; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->key, key)) {
            kv = *pp;
            *pp = kv->next;
            free(kv);
            break;
        }
    }
    kv = malloc(sizeof(*kv) + (len ? len : 1));
    if (!kv)
        return UT_ERR_NO_MEMORY;
    strcpy(kv->key, key);
    kv->len = len;
    if (len)
        memcpy(kv->val, val, len);
    kv->next = b->local;
    b->local = kv;
    return UT_OK;
}

int boot_put(boot_t *b, const char *key, const void *val, size_t len)
{
    int rc;

    if (!boot_key_ok(key) || len > BOOT_WIRE_VAL_MAX || (len && !val)) {
        ut_error("boot: put of key '%.80s' (%zu bytes): key must be 1..%d chars, value <= %d bytes",
                 key ? key : "(null)", len, BOOT_WIRE_KEY_MAX, BOOT_WIRE_VAL_MAX);
        return UT_ERR_INVALID_PARAM;
    }
    if (b->singleton)
        return boot_local_put(b, key, val, len);
    pthread_mutex_lock(&b->lock);
    rc = b->broken ? UT_ERR_UNREACHABLE : boot_send_msg(b->fd, BOOT_MSG_PUT, key, strlen(key), val, len, NULL, 0);
    if (rc != UT_OK)
        rc = boot_lost(b, rc, "put");
    pthread_mutex_unlock(&b->lock);
    return rc;
}

/* Reads the reply to a GET or FINI. A FENCE_DONE for a fence begun with
 * boot_fence_begin() may come first: it is noted for boot_fence_test().
 * Called with b->lock held. */
static int boot_recv_answer(boot_t *b, int *type_p, void *val, size_t maxlen, size_t *vlen_p)
{
    int rc;

    for (;;) {
        rc = boot_recv_reply(b->fd, type_p, val, maxlen, vlen_p);
        if (rc != UT_OK || *type_p != BOOT_MSG_FENCE_DONE || !b->fence_pending)
            return rc;
        b->fence_pending = 0;
        b->fence_done = 1;
    }
}

/* Sends FENCE. Called with b->lock held. */
static int boot_fence_send(boot_t *b)
{
    int rc;

    if (b->fence_pending || b->fence_done) {
        ut_error("boot: a fence was begun and not completed (boot_fence_test)");
        return UT_ERR_INVALID_PARAM;
    }
    rc = b->broken ? UT_ERR_UNREACHABLE : boot_send_msg(b->fd, BOOT_MSG_FENCE, NULL, 0, NULL, 0, NULL, 0);
    if (rc != UT_OK)
        return boot_lost(b, rc, "fence");
    b->fence_pending = 1;
    return UT_OK;
}

/* Reads the FENCE_DONE of the pending fence (blocking when `block`, else
 * only if bytes are there). *done_p: 1 once it is read. Called with b->lock
 * held. */
static int boot_fence_poll(boot_t *b, int block, int *done_p)
{
    struct pollfd pfd;
    size_t vlen;
    int rc, type;

    *done_p = 0;
    if (b->fence_done) {
        b->fence_done = 0;
        *done_p = 1;
        return UT_OK;
    }
    if (!b->fence_pending) {
        ut_error("boot: fence test without boot_fence_begin");
        return UT_ERR_INVALID_PARAM;
    }
    if (b->broken)
        return UT_ERR_UNREACHABLE;
    if (!block) {
        pfd.fd = b->fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, 0) <= 0)
            return UT_OK;
    }
    rc = boot_recv_reply(b->fd, &type, NULL, 0, &vlen);
    if (rc == UT_OK && type != BOOT_MSG_FENCE_DONE)
        rc = UT_ERR_PROTO;
    if (rc != UT_OK)
        return boot_lost(b, rc, "fence");
    b->fence_pending = 0;
    *done_p = 1;
    return UT_OK;
}

int boot_fence(boot_t *b)
{
    int rc, done;

    if (b->singleton)
        return UT_OK;
    pthread_mutex_lock(&b->lock);
    rc = boot_fence_send(b);
    if (rc == UT_OK)
        rc = boot_fence_poll(b, 1, &done);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int boot_fence_begin(boot_t *b)
{
    int rc;

    if (b->singleton)
        return UT_OK;
    pthread_mutex_lock(&b->lock);
    rc = boot_fence_send(b);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int boot_fence_test(boot_t *b, int *done_p)
{
    int rc, done = 0;

    if (b->singleton) {
        *done_p = 1;
        return UT_OK;
    }
    pthread_mutex_lock(&b->lock);
    rc = boot_fence_poll(b, 0, &done);
    pthread_mutex_unlock(&b->lock);
    *done_p = done;
    return rc;
}

int boot_get(boot_t *b, const char *key, void *val, size_t maxlen, size_t *len_p)
{
    size_t vlen = 0;
    int rc, type = 0;

    if (!boot_key_ok(key) || (maxlen && !val)) {
        ut_error("boot: get of a bad key '%.80s'", key ? key : "(null)");
        return UT_ERR_INVALID_PARAM;
    }
    if (b->singleton) {
        boot_local_kv_t *kv;
        for (kv = b->local; kv; kv = kv->next) {
            if (!strcmp(kv->key, key)) {
                memcpy(val, kv->val, kv->len < maxlen ? kv->len : maxlen);
                if (len_p)
                    *len_p = kv->len;
                return kv->len > maxlen ? UT_ERR_TRUNCATED : UT_OK;
            }
        }
        return UT_ERR_INVALID_PARAM;
    }
    pthread_mutex_lock(&b->lock);
    rc = b->broken ? UT_ERR_UNREACHABLE : boot_send_msg(b->fd, BOOT_MSG_GET, key, strlen(key), NULL, 0, NULL, 0);
    if (rc == UT_OK)
        rc = boot_recv_answer(b, &type, val, maxlen, &vlen);
    if (rc == UT_OK && type != BOOT_MSG_VALUE && type != BOOT_MSG_NOTFOUND)
        rc = UT_ERR_PROTO;
    if (rc != UT_OK)
        rc = boot_lost(b, rc, "get");
    pthread_mutex_unlock(&b->lock);
    if (rc != UT_OK)
        return rc;
    if (type == BOOT_MSG_NOTFOUND)
        return UT_ERR_INVALID_PARAM;
    if (len_p)
        *len_p = vlen;
    return vlen > maxlen ? UT_ERR_TRUNCATED : UT_OK;
}

void boot_abort(boot_t *b, int code, const char *msg)
{
    size_t mlen = msg ? strlen(msg) : 0;
    unsigned char c[4];
    int i;

    if (!b || b->singleton) {
        fprintf(stderr, "mbmpi: MPI_Abort(%d)%s%s\n", code, mlen ? ": " : "", msg ? msg : "");
        _exit(boot_exit_status(code));
    }
    if (mlen > BOOT_WIRE_VAL_MAX - 4)
        mlen = BOOT_WIRE_VAL_MAX - 4;
    atomic_store(&b->abort_code, code);
    atomic_store(&b->phase, BOOT_PHASE_ABORTING);
    boot_wire_put_u32(c, (uint32_t)code);
    /* the watch connection: the main one may hold another thread's
     * half-sent request */
    if (boot_send_msg(b->watch_fd, BOOT_MSG_ABORT, NULL, 0, c, 4, msg, mlen) != UT_OK) {
        fprintf(stderr, "mbmpi: rank %d: MPI_Abort(%d)%s%s (mpirun unreachable)\n", b->rank, code,
                mlen ? ": " : "", msg ? msg : "");
        _exit(boot_exit_status(code));
    }
    /* mpirun kills this process; the monitor _exit()s if mpirun goes first */
    for (i = 0; i < BOOT_ABORT_WAIT_MS / 100; i++)
        poll(NULL, 0, 100);
    _exit(boot_exit_status(code));
}

void boot_finalize(boot_t *b)
{
    size_t vlen;
    int type;

    if (!b)
        return;
    if (!b->singleton) {
        atomic_store(&b->phase, BOOT_PHASE_FINALIZING);
        pthread_mutex_lock(&b->lock);
        /* FINI is acknowledged, so mpirun knows before this process exits */
        if (!b->broken && (boot_send_msg(b->fd, BOOT_MSG_FINI, NULL, 0, NULL, 0, NULL, 0) != UT_OK ||
                           boot_recv_answer(b, &type, NULL, 0, &vlen) != UT_OK || type != BOOT_MSG_OK))
            ut_warn("boot: mpirun did not acknowledge the end of rank %d", b->rank);
        pthread_mutex_unlock(&b->lock);
        close(b->fd);
        if (b->watch_started) {
            shutdown(b->watch_fd, SHUT_RDWR); /* wakes the monitor's recv() */
            pthread_join(b->watch_thread, NULL);
        }
        close(b->watch_fd);
    }
    while (b->local) {
        boot_local_kv_t *kv = b->local;
        b->local = kv->next;
        free(kv);
    }
    pthread_mutex_destroy(&b->lock);
    free(b);
}
