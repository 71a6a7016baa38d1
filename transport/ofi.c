/*
 * transport/ofi.c: the libfabric transport (FI_EP_RDM).
 *
 * One endpoint, one CQ (FI_CQ_FORMAT_DATA) for sends, writes, FIFO receives
 * and remote-write notifications, one AV table indexed by rank. The FIFO is
 * a ring of FI_MULTI_RECV buffers, reposted when the provider releases them,
 * or (FIFO mode rma, the default over tcp;ofi_rxm) one ring per peer in
 * this rank's memory that the peer fills with RMA writes, polled here (see
 * "RMA rings").
 * Writes use fi_writedata (remote CQ data = the 32-bit notification) or
 * fi_write. mr_mode is honoured: VIRT_ADDR decides whether remote addresses
 * are virtual or offsets, PROV_KEY whether the key comes from the provider;
 * otherwise keys are unique per domain (a 64-bit counter, never reused).
 * Manual progress everywhere (LIBFABRIC.md): progress() reads the CQ.
 */
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#define OFI_CQ_BATCH 16
#define OFI_INJECT_STACK 4096
#define OFI_RXM_RING_BUFFER ((size_t)2048) /* FI_OFI_RXM_BUFFER_SIZE with RMA rings (ofi_open) */
#define OFI_BOUNCE_SLOTS 64
#define OFI_BOUNCE_LEN 16512 /* a record of 16 KiB of payload and its headers */
#define OFI_RING_AUTO_MAX 64 /* ranks up to which FIFO mode auto takes the RMA rings over tcp;ofi_rxm */

_Static_assert(sizeof(struct fi_context2) <= TL_OP_CTX_SIZE, "op ctx too small");

typedef struct ofi_rxbuf {
    struct fi_context2 ctx;  /* first: the CQ hands it back */
    void *buf;
    size_t len;
    int posted;
} ofi_rxbuf_t;

struct tl_mr {
    struct fid_mr *mr;
};

/* One peer's pair of rings in FIFO mode "rma" (see "RMA rings" below). */
typedef struct ofi_ring {
    /* what this rank exposes to the peer: [tail slot | ring of rx_len] */
    char *rx;
    struct fid_mr *rx_mr;
    uint64_t rx_pos;  /* next record (bytes ever consumed) */
    uint64_t rx_told; /* consumption last written into the peer's tail slot */
    uint64_t rx_salt;
    int tell;   /* rx_pos not yet written to the peer */
    int broken; /* a malformed record came: the peer's stream stops here */
    /* the peer's ring for this rank, from its hello */
    int ready;
    uint64_t tx_base; /* remote address of its region (VA or 0) */
    uint64_t tx_key;
    uint64_t tx_len;
    uint64_t tx_salt;
    uint64_t tx_pos;  /* bytes ever written */
    uint64_t tx_tail; /* the peer's consumption, as last read from our tail slot */
} ofi_ring_t;

typedef struct tl_ofi {
    tl_t super;
    tl_callbacks_t cb;
    int rank;
    int size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t *addrs;        /* by rank */
    ofi_rxbuf_t *rxbufs;
    void *rxmem; /* the FIFO buffers, one mapping */
    size_t rxmem_len;
    int nrxbufs;
    int multi;               /* FIFO as FI_MULTI_RECV buffers (else one message per buffer) */
    int virt_addr;           /* FI_MR_VIRT_ADDR granted */
    int prov_key;            /* FI_MR_PROV_KEY granted */
    int mr_endpoint;         /* FI_MR_ENDPOINT granted */
    uint64_t key_state;      /* keys we request: splitmix64 of this (see ofi_next_key) */
    int rma;                 /* FIFO mode "rma": every send and notification goes through RMA rings */
    ofi_ring_t *rings;       /* by rank (rma) */
    void *ringmem;           /* the regions, one mapping */
    size_t ringmem_len;
    size_t ring_len;    /* bytes of each ring, a power of 2 */
    size_t ring_inject; /* records up to this size go as inject writes */
    int ring_next;      /* where the next scan starts */
    int ring_scanning;
    /* copy slots for records above ring_inject (see ofi_ring_put) */
    struct fi_context2 *bounce_ctx; /* by slot: the CQ hands it back */
    char *bounce_mem;               /* OFI_BOUNCE_SLOTS x OFI_BOUNCE_LEN bytes */
    int *bounce_free;               /* stack of free slots */
    int bounce_nfree;
    /* sockets: its TCP sockets' receive buffers (see ofi_sock_rcvbuf) */
    unsigned char *sock_seen;           /* by rank: an operation went there (NULL: not sockets) */
    struct sockaddr_storage *sock_name; /* by rank: its endpoint's address */
    struct sockaddr_storage sock_self;  /* this endpoint's (the provider's listener) */
} tl_ofi_t;

/*
 * libfabric is opened at first use (dlopen), not linked into programs.
 * Debian 12's libfabric1 needs libpsm_infinipath, whose load-time
 * constructor calibrates the CPU clock with 2 x 100 ms of usleep before
 * main() runs, in every process linked with -lfabric, whether it opens a
 * libfabric endpoint or not. Jobs on mbshm (the default on one host) and
 * every singleton now start without it. The library entry points used here
 * are these six; everything else in libfabric's API is an inline call
 * through the objects' operation tables. MBMPI_LIBFABRIC names another
 * build of the library (a path, or a file name the loader searches for).
 */
const char *tl_ofi_library;

static struct {
    int tried;
    int ok;
    char why[256]; /* why it could not be loaded */
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
} lf;

/*
 * Signal dispositions. Loading Debian's libfabric runs libinfinipath.so.4's
 * constructor, which replaces the handlers of SIGINT, SIGILL, SIGABRT,
 * SIGBUS, SIGSEGV and SIGTERM with its own: a crash then wrote a backtrace
 * file (<prog>.<n>s-<pid>,<host>.btr) into the working directory and exited
 * with status 1, so mpirun reported "exited with status 1" instead of the
 * signal, and a handler the program had set before MPI_Init was gone;
 * opening a psm2/psm3 domain installs some of them again. mbmpi installs
 * none, so whatever the program had is put back after each libfabric call
 * that may load or initialise a provider (tests/mpi/sig_handlers).
 */
static const int lf_sig_list[] = {SIGINT, SIGQUIT, SIGILL,  SIGTRAP, SIGABRT,
                                  SIGBUS, SIGFPE,  SIGSEGV, SIGTERM, SIGSYS};
#define LF_NSIG (sizeof(lf_sig_list) / sizeof(lf_sig_list[0]))
typedef struct {
    struct sigaction act[LF_NSIG];
} lf_sigs_t;

static void lf_sigs_save(lf_sigs_t *s)
{
    for (size_t i = 0; i < LF_NSIG; i++)
        sigaction(lf_sig_list[i], NULL, &s->act[i]);
}

static void lf_sigs_restore(const lf_sigs_t *s)
{
    for (size_t i = 0; i < LF_NSIG; i++)
        sigaction(lf_sig_list[i], &s->act[i], NULL);
}

static int lf_load(void)
{
    void *h;

    if (!lf.tried) {
        lf.tried = 1;
        const char *path = tl_ofi_library && *tl_ofi_library ? tl_ofi_library : getenv("MBMPI_LIBFABRIC");

        if (!path || !*path)
            path = "libfabric.so.1";
        lf_sigs_t sigs;

        lf_sigs_save(&sigs);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        lf_sigs_restore(&sigs);
        if (!h) {
            snprintf(lf.why, sizeof(lf.why), "%s", dlerror());
        } else {
            lf.getinfo = (int (*)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                                  struct fi_info **))dlsym(h, "fi_getinfo");
            lf.freeinfo = (void (*)(struct fi_info *))dlsym(h, "fi_freeinfo");
            lf.dupinfo = (struct fi_info * (*)(const struct fi_info *)) dlsym(h, "fi_dupinfo");
            lf.fabric = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))dlsym(h, "fi_fabric");
            lf.strerror = (const char *(*)(int))dlsym(h, "fi_strerror");
            lf.version = (uint32_t(*)(void))dlsym(h, "fi_version");
            lf.ok = lf.getinfo && lf.freeinfo && lf.dupinfo && lf.fabric && lf.strerror && lf.version;
            if (!lf.ok)
                snprintf(lf.why, sizeof(lf.why),
                         "libfabric.so.1 lacks one of fi_getinfo, fi_freeinfo, fi_dupinfo, "
                         "fi_fabric, fi_strerror, fi_version");
        }
    }
    if (lf.ok)
        return UT_OK;
    ut_error(
        "cannot load libfabric: %s (install libfabric1; on one host, --provider mbshm needs no libfabric)",
        lf.why);
    return UT_ERR_UNSUPPORTED;
}

/* The one place where -FI_E* becomes a status. */
static int ofi_status(ssize_t rc)
{
    if (rc >= 0)
        return UT_OK;
    switch (-rc) {
    case FI_EAGAIN: return UT_ERR_NO_RESOURCE;
    case FI_ENOMEM: return UT_ERR_NO_MEMORY;
    case FI_EINVAL: return UT_ERR_INVALID_PARAM;
    case FI_ETRUNC: return UT_ERR_TRUNCATED;
    case FI_ECANCELED: return UT_ERR_CANCELED;
    case FI_EHOSTUNREACH:
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ENOTCONN:
    case FI_EADDRNOTAVAIL: return UT_ERR_UNREACHABLE;
    case FI_EACCES:
    case FI_EPERM:
    case FI_EKEYREJECTED: return UT_ERR_PERM;
    case FI_ENOSYS:
    case FI_EOPNOTSUPP: return UT_ERR_UNSUPPORTED;
    default: return UT_ERR_IO;
    }
}

static const char *ofi_provider_name(const char *p)
{
    if (!p || !*p)
        return NULL;
    if (!strcmp(p, "tcp") || !strcmp(p, "rxm"))
        return "tcp;ofi_rxm";
    if (!strcmp(p, "verbs"))
        return "verbs;ofi_rxm";
    if (!strcmp(p, "udp"))
        return "udp;ofi_rxd";
    return p;
}

/*
 * libfabric's shm provider names its endpoint, and the /dev/shm region
 * behind it, after the process id unless told otherwise ("<pid>:0:0"). A
 * SIGKILLed rank leaves its region behind, and a later process that gets the
 * same pid then fails to open its endpoint (EBUSY). So within a job the shm
 * endpoint is named after the job and the rank (fi_getinfo's node with
 * FI_SOURCE); bin/mpirun removes the job's regions at the end.
 */
static int ofi_getinfo_named(const char *prov, const char *node, struct fi_info **info_p);

static int ofi_getinfo(const char *prov, struct fi_info **info_p)
{
    return ofi_getinfo_named(prov, NULL, info_p);
}

static int ofi_getinfo_named(const char *prov, const char *node, struct fi_info **info_p)
{
    struct fi_info *hints, *info = NULL;
    lf_sigs_t sigs;
    int rc;

    rc = lf_load();
    if (rc != UT_OK)
        return rc;
    hints = lf.dupinfo(NULL);
    if (!hints)
        return UT_ERR_NO_MEMORY;
    hints->caps = FI_MSG | FI_RMA | FI_MULTI_RECV | FI_WRITE | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    hints->domain_attr->cq_data_size = 4;
    hints->tx_attr->op_flags = 0;
    hints->rx_attr->op_flags = 0;
    if (prov) {
        hints->fabric_attr->prov_name = strdup(prov);
        if (!hints->fabric_attr->prov_name) {
            lf.freeinfo(hints);
            return UT_ERR_NO_MEMORY;
        }
    }
    lf_sigs_save(&sigs);
    rc = lf.getinfo(FI_VERSION(1, 9), node, NULL, node ? FI_SOURCE : 0, hints, &info);
    lf_sigs_restore(&sigs);
    lf.freeinfo(hints);
    if (rc || !info) {
        ut_error("no libfabric provider %s offers RDM + RMA + multi-recv here: %s", prov ? prov : "(any)",
                 rc ? lf.strerror(-rc) : "none found");
        return UT_ERR_UNSUPPORTED;
    }
    *info_p = info;
    return UT_OK;
}

/*
 * The FIFO buffers: one mapping, populated now rather than by the first lap
 * of messages, in huge pages where the kernel gives them (THP in madvise
 * mode). Over tcp;ofi_rxm, 8 KiB messages to a waiting receiver took 33 us
 * one way instead of 12 until 16 MiB had gone through: two page faults
 * each, inside the provider's copy. Populated 4 KiB pages still took 20 us
 * (15000 B: 43 us against 13) on this PVM guest, whose shadow page tables
 * charge each 4 KiB page a message touches; 2 MiB pages do not, and take 8
 * faults at MPI_Init instead of 4096.
 */
static int ofi_map_huge(const char *what, size_t len, void **mem_p, size_t *len_p)
{
    const size_t huge = 2u << 20;
    size_t map_len, mem_len;
    char *m, *a;

    mem_len = (len + huge - 1) & ~(huge - 1);
    map_len = mem_len + huge; /* room to align the start */
    m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        ut_error("libfabric %s: mmap of %zu bytes: %s", what, map_len, strerror(errno));
        return UT_ERR_NO_MEMORY;
    }
    a = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + mem_len < m + map_len)
        munmap(a + mem_len, (size_t)(m + map_len - (a + mem_len)));
    *mem_p = a;
    *len_p = mem_len;
#ifdef MADV_HUGEPAGE
    (void)madvise(a, mem_len, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    if (madvise(a, mem_len, MADV_POPULATE_WRITE) == 0)
        return UT_OK;
#endif
    memset(a, 0, mem_len);
    return UT_OK;
}

static int ofi_map_fifo(tl_ofi_t *t, size_t len)
{
    return ofi_map_huge("FIFO", len, &t->rxmem, &t->rxmem_len);
}

/*
 * Post one FIFO buffer. A buffer handed back by the provider always finds
 * room again (it held that room), so a repost retries until it is taken.
 * At MPI_Init (`initial`) the provider's receive queue may be shorter than
 * the FIFO's buffer count: MBMPI_FIFO_MODE=single with a small eager limit
 * makes thousands of one-message buffers (16 MiB / (1000 + 256) B = 13357)
 * and ofi_rxm takes 2048, then answers -FI_EAGAIN for ever, with nothing in
 * flight to free a slot (libfabric's shm: -FI_ENOMEM after 1024). There a
 * full queue ends the posting:
 * UT_ERR_NO_RESOURCE, and the FIFO is the buffers posted so far.
 */
static int ofi_post_rxbuf(tl_ofi_t *t, ofi_rxbuf_t *rb, int initial)
{
    struct iovec iov = {.iov_base = rb->buf, .iov_len = rb->len};
    struct fi_msg msg = {.msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &rb->ctx};
    ssize_t rc;
    int tries = 0;

    do {
        rc = fi_recvmsg(t->ep, &msg, t->multi ? FI_MULTI_RECV : 0);
        if (rc == -FI_EAGAIN) {
            if (initial && ++tries > 100)
                return UT_ERR_NO_RESOURCE;
            (void)fi_cq_read(t->cq, NULL, 0);
        }
    } while (rc == -FI_EAGAIN);
    if (rc == -FI_ENOMEM && initial)
        return UT_ERR_NO_RESOURCE; /* shm's answer when its queue is full */
    if (rc) {
        ut_error("fi_recvmsg(FI_MULTI_RECV): %s", lf.strerror((int)-rc));
        return ofi_status(rc);
    }
    rb->posted = 1;
    return UT_OK;
}

/*
 * The sockets provider's receive buffers. sockets (1.17) reads each message
 * header with recv(MSG_PEEK) and waits until the whole header (24 bytes) is
 * there. Linux charges a segment's whole buffer to the socket until its last
 * byte is read: when a header's first bytes end a large segment (up to 64 KiB
 * over loopback) and the receive buffer is still the default 128 KiB, the
 * space left is below one segment, the kernel advertises a zero window, the
 * rest of the header never comes, and the connection stalls for good
 * (tests/mpi/many_inflight over sockets hung about one run in 20 at 2 ranks:
 * 8 bytes unread, 91 KiB charged, the sender's 100 KiB waiting for the
 * window). With a receive buffer many segments long the window stays open
 * whatever the provider leaves unread. The provider's sockets are found by
 * their addresses among this process's descriptors: its listener (this
 * endpoint's name; the connections it accepts inherit the size) right after
 * fi_enable, and the connection it opens to a peer, at the first operation
 * towards that peer (sockets connects inside that call).
 */
#define OFI_SOCK_RCVBUF (4 << 20)

/* Same family, port and address (a wildcard address in want matches any). */
static int ofi_sock_addr_eq(const struct sockaddr_storage *have, const struct sockaddr_storage *want)
{
    if (have->ss_family != want->ss_family)
        return 0;
    if (want->ss_family == AF_INET) {
        const struct sockaddr_in *h = (const void *)have, *w = (const void *)want;
        return h->sin_port == w->sin_port &&
               (w->sin_addr.s_addr == htonl(INADDR_ANY) || h->sin_addr.s_addr == w->sin_addr.s_addr);
    }
    if (want->ss_family == AF_INET6) {
        const struct sockaddr_in6 *h = (const void *)have, *w = (const void *)want;
        return h->sin6_port == w->sin6_port && (IN6_IS_ADDR_UNSPECIFIED(&w->sin6_addr) ||
                                                !memcmp(&h->sin6_addr, &w->sin6_addr, sizeof(w->sin6_addr)));
    }
    return 0;
}

/* Raise the receive buffer of every stream socket of this process bound to
 * this endpoint's address (the listener and the connections it accepted) or,
 * with peer >= 0, connected to that peer's endpoint. */
static void ofi_sock_rcvbuf(tl_ofi_t *t, int peer)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d))) {
        struct sockaddr_storage a;
        socklen_t alen = sizeof(a);
        int fd, type = 0, have = 0, want = OFI_SOCK_RCVBUF;
        socklen_t olen = sizeof(type);
        char *end;
        long v = strtol(de->d_name, &end, 10);

        if (*end || end == de->d_name || v < 0 || v == dirfd(d))
            continue;
        fd = (int)v;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &olen) || type != SOCK_STREAM)
            continue;
        memset(&a, 0, sizeof(a));
        if (getsockname(fd, (struct sockaddr *)&a, &alen) || !ofi_sock_addr_eq(&a, &t->sock_self)) {
            alen = sizeof(a);
            memset(&a, 0, sizeof(a));
            if (peer < 0 || getpeername(fd, (struct sockaddr *)&a, &alen) ||
                !ofi_sock_addr_eq(&a, &t->sock_name[peer]))
                continue;
        }
        olen = sizeof(have);
        /* the kernel reports twice what was set (its bookkeeping share) */
        if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &have, &olen) && have < want &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want)))
            ut_debug("sockets: SO_RCVBUF on descriptor %d: %s", fd, strerror(errno));
    }
    closedir(d);
}

/* After an operation towards peer: the first time, its connection exists. */
static inline void ofi_sock_seen(tl_ofi_t *t, int peer, int rc)
{
    if (t->sock_seen && !t->sock_seen[peer] && (rc == UT_OK || rc == UT_INPROGRESS)) {
        t->sock_seen[peer] = 1;
        ofi_sock_rcvbuf(t, peer);
    }
}

static int ofi_ring_open(tl_ofi_t *t, size_t ring_len);
static void ofi_ring_close(tl_ofi_t *t);
static int ofi_ring_connect(tl_ofi_t *t);
static void ofi_handle_error(tl_ofi_t *t);

static void ofi_close(tl_t *tl)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;

    if (t->ep)
        fi_close(&t->ep->fid);
    ofi_ring_close(t);
    if (t->cq)
        fi_close(&t->cq->fid);
    if (t->av)
        fi_close(&t->av->fid);
    if (t->domain)
        fi_close(&t->domain->fid);
    if (t->fabric)
        fi_close(&t->fabric->fid);
    if (t->info)
        lf.freeinfo(t->info);
    if (t->rxmem)
        munmap(t->rxmem, t->rxmem_len);
    free(t->rxbufs);
    free(t->addrs);
    free(t->sock_seen);
    free(t->sock_name);
    free(t);
}

int tl_ofi_rings_expected(const char *provider, const char *fifo_mode, int size)
{
    const char *pn = ofi_provider_name(provider);

    if (size < 2 || (fifo_mode && strcmp(fifo_mode, "rma") && strcmp(fifo_mode, "auto")))
        return 0;
    if (fifo_mode && !strcmp(fifo_mode, "rma"))
        return 1;
    /* the hellos connect every pair at MPI_Init: 16 ranks on this 2-CPU
     * host start in 2.2 s instead of 1.3; auto stops at 64 ranks */
    return pn && !strcmp(pn, "tcp;ofi_rxm") && size <= OFI_RING_AUTO_MAX;
}

/* FIFO mode "rma" (the rings): asked for, or by default over tcp;ofi_rxm;
 * it needs writes ordered to each peer. */
static int ofi_ring_choose(tl_ofi_t *t, const tl_params_t *params)
{
    const char *pn = t->info->fabric_attr->prov_name;
    int forced = params->fifo_mode && !strcmp(params->fifo_mode, "rma");

    t->rma = tl_ofi_rings_expected(pn, params->fifo_mode, params->size);
    if (t->rma && !(t->info->tx_attr->msg_order & FI_ORDER_WAW)) {
        if (forced) {
            ut_error("MBMPI_FIFO_MODE=rma: provider %s does not order writes (FI_ORDER_WAW)", pn);
            return UT_ERR_UNSUPPORTED;
        }
        t->rma = 0;
    }
    /* ofi_rxm hands an inject write to its message endpoint when it fits
     * that endpoint's inject size (tcp: 128 bytes), with no completion
     * anywhere; rxm's own inject_size (64) is that of its messages. */
    t->ring_inject = !strcmp(pn, "tcp;ofi_rxm") ? 128 : t->info->tx_attr->inject_size;
    if (t->ring_inject > OFI_INJECT_STACK)
        t->ring_inject = OFI_INJECT_STACK;
    return UT_OK;
}

static int ofi_open(const tl_params_t *params, const tl_callbacks_t *cb, tl_t **tl_p)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE, .size = 0};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)params->size};
    size_t min_free = params->min_fifo_free;
    lf_sigs_t sigs;
    tl_ofi_t *t;
    int rc, i;

    t = calloc(1, sizeof(*t));
    if (!t)
        return UT_ERR_NO_MEMORY;
    t->super.ops = &tl_ofi_ops;
    t->cb = *cb;
    t->rank = params->rank;
    t->size = params->size;
    /* Requested keys are unpredictable: a rank that sees the keys exposed to
     * it cannot guess the ones exposed to another rank. Seeded once here;
     * each registration then costs a few arithmetic operations. */
    if (getrandom(&t->key_state, sizeof(t->key_state), 0) != (ssize_t)sizeof(t->key_state))
        t->key_state = (uint64_t)(uintptr_t)t ^ 0x9e3779b97f4a7c15ull;

    /* ofi_rxm sends a message larger than its buffer size (default 16384
     * bytes, FI_OFI_RXM_BUFFER_SIZE) through its own rendezvous: over tcp a
     * 16384-byte eager MPI message (payload + headers) took 46 us one way,
     * against 13 us for 16000 bytes, and 13 us once the buffers held the
     * largest FIFO message. Raised to that size (min_fifo_free) unless the
     * user set it; 64 KiB buffers would cost about 200 MB per rank. With
     * RMA rings only the hellos (40 bytes) are rxm messages, and rxm's
     * pools of 16 KiB buffers were 4 x 17 MB per rank that fi_enable
     * allocated and touched: 0.17 s of a 0.52 s `mpirun -n 2 --provider
     * tcp` of an empty program (2 KiB: 0.35 s; the same rtt and bw figures
     * from 8 B to 1 MiB, 2026-12-07). Lowered then, unless the user set it
     * (a FIFO message sent before its ring is up, or without rings after
     * all, goes through rxm's rendezvous above 2 KiB: slower, not wrong). */
    if (!getenv("FI_OFI_RXM_BUFFER_SIZE")) {
        char v[32];
        int rings = tl_ofi_rings_expected(params->provider, params->fifo_mode, params->size);

        snprintf(v, sizeof(v), "%zu", rings ? OFI_RXM_RING_BUFFER : min_free);
        if (rings || min_free > 16384)
            setenv("FI_OFI_RXM_BUFFER_SIZE", v, 0);
    }
    {
        const char *prov = ofi_provider_name(params->provider);
        const char *job = getenv("MBMPI_JOBID");
        char node[96];

        if (prov && !strcmp(prov, "shm") && job && *job && strlen(job) < 64) {
            /* fixed width: every rank's address has the same length */
            snprintf(node, sizeof(node), "mbmpi_%s_%07d", job, params->rank);
            rc = ofi_getinfo_named(prov, node, &t->info);
        } else if (params->loopback && prov && strcmp(prov, "shm")) {
            /* every rank on this host: the network providers (tcp, sockets,
             * net, udp) listen and connect on 127.0.0.1, not on the first
             * interface's address (which they pick otherwise) */
            rc = ofi_getinfo_named(prov, "127.0.0.1", &t->info);
        } else {
            rc = ofi_getinfo(prov, &t->info);
        }
    }
    if (rc != UT_OK)
        goto err_free;
    t->virt_addr = !!(t->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR);
    t->prov_key = !!(t->info->domain_attr->mr_mode & FI_MR_PROV_KEY);
    t->mr_endpoint = !!(t->info->domain_attr->mr_mode & FI_MR_ENDPOINT);
    if (t->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        ut_error("provider %s requires FI_MR_LOCAL, not supported yet", t->info->fabric_attr->prov_name);
        rc = UT_ERR_UNSUPPORTED;
        goto err_free;
    }
    if (t->info->domain_attr->mr_key_size > 8 || t->info->tx_attr->iov_limit < 2) {
        ut_error("provider %s: key size %zu / iov limit %zu not supported", t->info->fabric_attr->prov_name,
                 t->info->domain_attr->mr_key_size, t->info->tx_attr->iov_limit);
        rc = UT_ERR_UNSUPPORTED;
        goto err_free;
    }

    lf_sigs_save(&sigs);
    rc = lf.fabric(t->info->fabric_attr, &t->fabric, NULL);
    if (!rc)
        rc = fi_domain(t->fabric, t->info, &t->domain, NULL);
    if (!rc)
        rc = fi_cq_open(t->domain, &cq_attr, &t->cq, NULL);
    if (!rc)
        rc = fi_av_open(t->domain, &av_attr, &t->av, NULL);
    if (!rc)
        rc = fi_endpoint(t->domain, t->info, &t->ep, NULL);
    if (!rc)
        rc = fi_ep_bind(t->ep, &t->cq->fid, FI_TRANSMIT | FI_RECV);
    if (!rc)
        rc = fi_ep_bind(t->ep, &t->av->fid, 0);
    if (!rc)
        rc = fi_enable(t->ep);
    lf_sigs_restore(&sigs);
    if (rc) {
        ut_error("libfabric %s: opening the endpoint failed: %s", t->info->fabric_attr->prov_name,
                 lf.strerror(-rc));
        rc = ofi_status(rc);
        goto err_free;
    }
    /* After fi_enable on 1.x (shm crashes when set before: LIBFABRIC.md #1). */
    rc = fi_setopt(&t->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min_free, sizeof(min_free));
    if (rc) {
        ut_error("FI_OPT_MIN_MULTI_RECV: %s", lf.strerror(-rc));
        rc = ofi_status(rc);
        goto err_free;
    }

    t->super.caps.name = t->info->fabric_attr->prov_name;
    t->super.caps.version = t->info->fabric_attr->prov_version;
    t->super.caps.inject_size = t->info->tx_attr->inject_size;
    if (t->super.caps.inject_size > OFI_INJECT_STACK)
        t->super.caps.inject_size = OFI_INJECT_STACK;
    /* A FIFO message must fit the free space a posted buffer guarantees. */
    t->super.caps.max_msg = t->info->ep_attr->max_msg_size < min_free ? t->info->ep_attr->max_msg_size : min_free;
    t->super.caps.max_write = t->info->ep_attr->max_msg_size;
    t->super.caps.notify_bytes = (int)t->info->domain_attr->cq_data_size;
    t->super.caps.fd = -1;

    t->addrs = calloc((size_t)params->size, sizeof(*t->addrs));
    if (!strcmp(t->info->fabric_attr->prov_name, "sockets")) {
        size_t len = sizeof(t->sock_self);

        t->sock_seen = calloc((size_t)params->size, 1);
        t->sock_name = calloc((size_t)params->size, sizeof(*t->sock_name));
        if (!t->sock_seen || !t->sock_name) {
            rc = UT_ERR_NO_MEMORY;
            goto err_free;
        }
        if (!fi_getname(&t->ep->fid, &t->sock_self, &len))
            ofi_sock_rcvbuf(t, -1);
    }
    /* sockets 1.17 loses messages when a multi-recv buffer runs low under
     * load (seen here with 16 ranks); there the FIFO is a ring of buffers of
     * one message each, the same total size. */
    t->multi = strcmp(t->info->fabric_attr->prov_name, "sockets") != 0;
    if (params->fifo_mode && !strcmp(params->fifo_mode, "multi"))
        t->multi = 1;
    else if (params->fifo_mode && !strcmp(params->fifo_mode, "single"))
        t->multi = 0;
    rc = ofi_ring_choose(t, params);
    if (rc != UT_OK)
        goto err_free;
    {
        /* with rings the FIFO only carries the hellos: its smallest size */
        size_t one = t->multi ? (t->rma ? 4 * min_free : params->fifo_buf_size) : min_free;
        t->nrxbufs = t->multi ? params->fifo_buf_count
                              : (int)((params->fifo_buf_size * (size_t)params->fifo_buf_count) / min_free);
        /* one buffer fills while the provider hands back another */
        if (t->nrxbufs < (t->multi ? 2 : 16) || t->rma)
            t->nrxbufs = t->multi ? 2 : 16;
        t->rxbufs = calloc((size_t)t->nrxbufs, sizeof(*t->rxbufs));
        if (!t->addrs || !t->rxbufs) {
            rc = UT_ERR_NO_MEMORY;
            goto err_free;
        }
        /* each buffer 64-byte aligned, whatever the eager limit */
        size_t stride = (one + 63) & ~(size_t)63;

        rc = ofi_map_fifo(t, (size_t)t->nrxbufs * stride);
        if (rc != UT_OK)
            goto err_free;
        for (i = 0; i < t->nrxbufs; i++) {
            t->rxbufs[i].len = one;
            t->rxbufs[i].buf = (char *)t->rxmem + (size_t)i * stride;
            rc = ofi_post_rxbuf(t, &t->rxbufs[i], 1);
            if (rc == UT_ERR_NO_RESOURCE && i >= (t->multi ? 2 : 16)) {
                ut_debug("libfabric FIFO: the provider's receive queue took %d of %d buffers", i, t->nrxbufs);
                t->nrxbufs = i;
                break;
            }
            if (rc != UT_OK) {
                if (rc == UT_ERR_NO_RESOURCE)
                    ut_error("libfabric FIFO: the provider's receive queue took only %d buffers", i);
                goto err_free;
            }
        }
        /* A multi-recv buffer is released with up to min_free unused. */
        t->super.caps.fifo_bytes = t->multi ? (size_t)t->nrxbufs * (one - min_free) : (size_t)t->nrxbufs * one;
        t->super.caps.fifo_slot = t->multi ? 0 : one;
    }
    if (t->rma) {
        size_t per = params->fifo_buf_size * (size_t)params->fifo_buf_count / (size_t)(params->size - 1);
        size_t lo = 64 << 10, len = 1;

        while (lo < 4 * min_free)
            lo *= 2;
        while (len * 2 <= per && len < ((size_t)1 << 20))
            len *= 2;
        rc = ofi_ring_open(t, len > lo ? len : lo);
        if (rc != UT_OK)
            goto err_free;
        /* mbcf's credits count 256-byte units, more than a small record
         * takes; a ring that is fuller than they say (a WRAP wastes its
         * end) answers UT_ERR_NO_RESOURCE until the peer tells it read on */
        t->super.caps.fifo_bytes = t->ring_len * (size_t)(params->size - 1);
        t->super.caps.fifo_slot = 0;
        /* A message that fits a ring record is one write there; written
         * into the receive buffer instead it is that write and a
         * notification, after the receiver's REQ (two more operations,
         * each a system call over tcp, against one copy out of the ring).
         * Alltoall of 1 / 4 / 16 KiB at P = 8 on 2 CPUs over tcp;ofi_rxm,
         * OSU-style: 139-147 / 204-212 / 359-381 us with REQs at every
         * size, 102-105 / 167-169 / 256-292 without below this; ping-pong
         * and streaming of 256 B-64 KiB alike. */
        t->super.caps.write_min = t->super.caps.max_msg;
    }
    *tl_p = &t->super;
    return UT_OK;

err_free:
    ofi_close(&t->super);
    return rc;
}

static int ofi_get_addr(tl_t *tl, void *buf, size_t *len_p)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    int rc = fi_getname(&t->ep->fid, buf, len_p);

    if (rc) {
        ut_error("fi_getname: %s", lf.strerror(-rc));
        return ofi_status(rc);
    }
    return UT_OK;
}

static int ofi_connect(tl_t *tl, const void *addrs, size_t addrlen)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    int i, rc;

    for (i = 0; i < t->size; i++) {
        rc = fi_av_insert(t->av, (const char *)addrs + (size_t)i * addrlen, 1, &t->addrs[i], 0, NULL);
        if (rc != 1) {
            ut_error("fi_av_insert(rank %d): %s", i, rc < 0 ? lf.strerror(-rc) : "not inserted");
            return UT_ERR_UNREACHABLE;
        }
        if (t->sock_name)
            memcpy(&t->sock_name[i], (const char *)addrs + (size_t)i * addrlen,
                   addrlen < sizeof(t->sock_name[i]) ? addrlen : sizeof(t->sock_name[i]));
    }
    return t->rma ? ofi_ring_connect(t) : UT_OK;
}

/* splitmix64: a bijection of a counter, so keys never repeat within 2^64
 * registrations, and consecutive ones look unrelated. Ignored by providers
 * that pick keys themselves (FI_MR_PROV_KEY). */
static uint64_t ofi_next_key(tl_ofi_t *t)
{
    uint64_t z = (t->key_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int ofi_mem_reg(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    tl_mr_t *m;
    int rc;

    m = malloc(sizeof(*m));
    if (!m)
        return UT_ERR_NO_MEMORY;
    rc = fi_mr_reg(t->domain, buf, len, FI_REMOTE_WRITE, 0, ofi_next_key(t), 0, &m->mr, NULL);
    if (rc == -FI_ENOKEY) /* a 64-bit collision with a live key: draw again */
        rc = fi_mr_reg(t->domain, buf, len, FI_REMOTE_WRITE, 0, ofi_next_key(t), 0, &m->mr, NULL);
    if (rc) {
        ut_error("fi_mr_reg(%zu bytes): %s", len, lf.strerror(-rc));
        free(m);
        return ofi_status(rc);
    }
    if (t->mr_endpoint) {
        rc = fi_mr_bind(m->mr, &t->ep->fid, 0);
        if (!rc)
            rc = fi_mr_enable(m->mr);
        if (rc) {
            ut_error("fi_mr_bind/enable: %s", lf.strerror(-rc));
            fi_close(&m->mr->fid);
            free(m);
            return ofi_status(rc);
        }
    }
    rkey_p->addr = t->virt_addr ? (uint64_t)(uintptr_t)buf : 0;
    rkey_p->key = fi_mr_key(m->mr);
    rkey_p->len = len;
    *mr_p = m;
    return UT_OK;
}

static void ofi_mem_dereg(tl_t *tl, tl_mr_t *mr)
{
    (void)tl;
    fi_close(&mr->mr->fid);
    free(mr);
}

/*
 * RMA rings (FIFO mode "rma", the default over tcp;ofi_rxm).
 *
 * libfabric 1.17's tcp provider forces a wait object on every CQ (the one
 * ofi_rxm opens on it included) and signals it for each completion it
 * writes: one write and, at the next progress, a poll and a read of a
 * socket pair per message received, on top of the socket's own recv and
 * send (strace: 2.5 of the 5.5 system calls per message). A remote write
 * without CQ data writes no completion at its target, and an inject write
 * of up to the tcp endpoint's inject size (128 bytes) none at its origin.
 * So here each rank exposes to each peer a region of its own (its own key):
 *
 *   [ tail slot (64 B) | ring of ring_len bytes ]
 *
 * The peer writes its messages into the ring as records and this rank
 * finds them by polling memory, as the MBCF paper's FIFO does; the tail
 * slot is where the peer writes how much of this rank's ring at the peer
 * it has consumed, which bounds what this rank may write there. A record:
 *
 *   { u32 len, u32 kind, u64 stamp } payload, 0-7 zero bytes, u64 stamp
 *
 * 16-byte aligned; a notification is a header alone (len = the 32-bit
 * word), and a header WRAP sends the reader to the ring's start. The stamp
 * is a hash of the record's position (bytes ever written) and a salt the
 * ring's owner drew, so nothing left from an earlier lap or from payload
 * bytes passes for it. It is last in the header and last in the record:
 * the stream providers place a write's bytes in order (the tcp provider
 * receives them straight into the region), so when the trailing stamp is
 * there the record is whole. Writes to one peer are ordered (FI_ORDER_WAW,
 * which the mode requires), so a notification's record lands after the
 * data written before it. A record whose length or kind is impossible stops
 * that peer's ring (that peer only harms its own messages).
 *
 * The rings are set up at connect: each rank sends each peer a hello
 * (rank, region address and key, ring length, salt) through the provider's
 * FIFO and waits for theirs; from then on every send to a peer and every
 * notification goes through the rings (to itself a rank keeps the FIFO).
 *
 * Figures (2 ranks over loopback, tcp;ofi_rxm, 8 B ping-pong, half round
 * trip): libfabric inject + multi-recv 4.0-5.0 us, inject write polled in
 * memory 3.3-3.5 us; Open MPI's tcp BTL 4.0.
 */
#define RING_HEAD 64           /* the tail slot, a cache line of its own */
#define RING_MAGIC 0x6d627268u /* "mbrh" */
#define RING_BATCH 16
enum { RING_MSG = 1, RING_NOTIFY = 2, RING_WRAP = 3 };

typedef struct ofi_ring_hdr {
    uint32_t len;
    uint32_t kind;
    uint64_t stamp;
} ofi_ring_hdr_t;

/* What a record written from the caller's buffers (not injected) needs
 * until its completion: the op context handed in. */
typedef struct ofi_ring_ctx {
    struct fi_context2 ctx; /* first: the CQ hands it back */
    ofi_ring_hdr_t hdr;
    uint64_t trail[2]; /* zero padding, then the stamp */
} ofi_ring_ctx_t;
_Static_assert(sizeof(ofi_ring_ctx_t) <= TL_OP_CTX_SIZE, "op ctx too small for a ring record");

typedef struct ofi_hello {
    uint32_t magic;
    int32_t rank;
    uint64_t base;
    uint64_t key;
    uint64_t len;
    uint64_t salt;
} ofi_hello_t;

static uint64_t ofi_ring_stamp(uint64_t salt, uint64_t pos)
{
    uint64_t z = pos ^ salt;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) | 1; /* never 0, what a fresh ring holds */
}

/* Bytes a record of kind with len payload bytes writes, and occupies. */
static size_t ofi_ring_wlen(int kind, size_t len)
{
    return kind == RING_MSG ? sizeof(ofi_ring_hdr_t) + len + ((0 - len) & 7) + 8 : sizeof(ofi_ring_hdr_t);
}

static size_t ofi_ring_adv(size_t wlen)
{
    return (wlen + 15) & ~(size_t)15;
}

/* The regions, one mapping for all peers, registered one by one. */
static int ofi_ring_open(tl_ofi_t *t, size_t ring_len)
{
    size_t stride = RING_HEAD + ring_len;
    int i, rc;

    t->ring_len = ring_len;
    t->rings = calloc((size_t)t->size, sizeof(*t->rings));
    if (!t->rings)
        return UT_ERR_NO_MEMORY;
    /* one region per peer, none for this rank; huge pages as the FIFO's */
    rc = ofi_map_huge("rings", stride * (size_t)(t->size - 1), &t->ringmem, &t->ringmem_len);
    if (rc != UT_OK)
        return rc;
    for (i = 0; i < t->size; i++) {
        ofi_ring_t *r = &t->rings[i];
        tl_rkey_t rk;
        tl_mr_t *mr;

        if (i == t->rank)
            continue;
        r->rx = (char *)t->ringmem + (size_t)(i < t->rank ? i : i - 1) * stride;
        rc = ofi_mem_reg(&t->super, r->rx, stride, &mr, &rk);
        if (rc != UT_OK)
            return rc;
        r->rx_mr = mr->mr;
        free(mr);
        if (getrandom(&r->rx_salt, sizeof(r->rx_salt), 0) != (ssize_t)sizeof(r->rx_salt))
            r->rx_salt = ofi_next_key(t);
    }
    t->bounce_ctx = calloc(OFI_BOUNCE_SLOTS, sizeof(*t->bounce_ctx));
    t->bounce_free = calloc(OFI_BOUNCE_SLOTS, sizeof(*t->bounce_free));
    t->bounce_mem = aligned_alloc(64, (size_t)OFI_BOUNCE_SLOTS * OFI_BOUNCE_LEN);
    if (!t->bounce_ctx || !t->bounce_free || !t->bounce_mem)
        return UT_ERR_NO_MEMORY;
    for (i = 0; i < OFI_BOUNCE_SLOTS; i++)
        t->bounce_free[i] = OFI_BOUNCE_SLOTS - 1 - i;
    t->bounce_nfree = OFI_BOUNCE_SLOTS;
    return UT_OK;
}

static void ofi_ring_close(tl_ofi_t *t)
{
    int i;

    if (t->rings)
        for (i = 0; i < t->size; i++)
            if (t->rings[i].rx_mr)
                fi_close(&t->rings[i].rx_mr->fid);
    free(t->rings);
    if (t->ringmem)
        munmap(t->ringmem, t->ringmem_len);
    free(t->bounce_ctx);
    free(t->bounce_free);
    free(t->bounce_mem);
}

/* Copy slots. A write above the inject size completes through the CQ, with
 * a signal of the tcp provider's read at the next progress (a poll and a
 * read), so its sender could not finish before that; from a copy here the
 * write is done when posted and the slot comes back with the completion.
 * Scatter of 256 B-4 KiB at P = 2 over tcp;ofi_rxm: 4.8-6.6 -> 3.8-4.1 us
 * from synchronised starts; slots of 16 KiB against 4 KiB: a flat Bcast
 * root of 16 KiB at P = 4 11.5 against 12-13 us, ping-pong and streaming
 * of 4-16 KiB alike or 1-3 % better (the copy costs what the wait did). */
static char *ofi_bounce_peek(tl_ofi_t *t, size_t len)
{
    if (len > OFI_BOUNCE_LEN || !t->bounce_nfree)
        return NULL;
    return t->bounce_mem + (size_t)t->bounce_free[t->bounce_nfree - 1] * OFI_BOUNCE_LEN;
}

/* Write len bytes of the slot ofi_bounce_peek gave to raddr at peer. */
static int ofi_bounce_post(tl_ofi_t *t, size_t len, int peer, uint64_t raddr, uint64_t key)
{
    int slot = t->bounce_free[t->bounce_nfree - 1];
    ssize_t frc = fi_write(t->ep, t->bounce_mem + (size_t)slot * OFI_BOUNCE_LEN, len, NULL, t->addrs[peer],
                           raddr, key, &t->bounce_ctx[slot]);

    if (frc)
        return ofi_status(frc);
    t->bounce_nfree--;
    return UT_OK;
}

/* A copy slot's completion: the slot is free again. */
static int ofi_bounce_done(tl_ofi_t *t, void *op_context)
{
    struct fi_context2 *c = op_context;

    if (!t->bounce_ctx || c < t->bounce_ctx || c >= t->bounce_ctx + OFI_BOUNCE_SLOTS)
        return 0;
    t->bounce_free[t->bounce_nfree++] = (int)(c - t->bounce_ctx);
    return 1;
}

/* Free bytes in the peer's ring for this rank. The tail slot is the peer's
 * word: taken only when it moves forward and stays behind what was written. */
static uint64_t ofi_ring_room(ofi_ring_t *r)
{
    uint64_t tail = __atomic_load_n((uint64_t *)r->rx, __ATOMIC_ACQUIRE);

    if (tail - r->tx_tail <= r->tx_pos - r->tx_tail)
        r->tx_tail = tail;
    return r->tx_len - (r->tx_pos - r->tx_tail);
}

/* Room a record of adv bytes needs at the ring's head: a WRAP's waste too. */
static uint64_t ofi_ring_need(const ofi_ring_t *r, size_t adv)
{
    uint64_t off = r->tx_pos & (r->tx_len - 1);

    return off + adv > r->tx_len ? (r->tx_len - off) + adv : adv;
}

static int ofi_ring_inject(tl_ofi_t *t, int peer, const void *buf, size_t len, uint64_t off)
{
    ofi_ring_t *r = &t->rings[peer];
    ssize_t rc = fi_inject_write(t->ep, buf, len, t->addrs[peer], r->tx_base + off, r->tx_key);

    return rc ? ofi_status(rc) : UT_OK;
}

/* Write one record (kind RING_MSG from iov, or RING_NOTIFY of data) into the
 * peer's ring. UT_OK, UT_INPROGRESS (a large record: tx_done(op_ctx) when
 * written), UT_ERR_NO_RESOURCE (ring full or provider busy: retry after
 * progress; nothing was written but perhaps a WRAP) or an error. */
static int ofi_ring_put(tl_ofi_t *t, int peer, const struct iovec *iov, int iovcnt, uint32_t data,
                        void *op_ctx)
{
    ofi_ring_t *r = &t->rings[peer];
    int kind = iov ? RING_MSG : RING_NOTIFY;
    size_t len = 0, wlen, adv, pad;
    uint64_t off, stamp;
    int i, rc;

    for (i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    wlen = ofi_ring_wlen(kind, len);
    adv = ofi_ring_adv(wlen);
    off = r->tx_pos & (r->tx_len - 1);
    if (ofi_ring_room(r) < ofi_ring_need(r, adv))
        return UT_ERR_NO_RESOURCE;
    if (off + adv > r->tx_len) {
        ofi_ring_hdr_t w = {.len = 0, .kind = RING_WRAP, .stamp = ofi_ring_stamp(r->tx_salt, r->tx_pos)};

        rc = ofi_ring_inject(t, peer, &w, sizeof(w), RING_HEAD + off);
        if (rc != UT_OK)
            return rc;
        r->tx_pos += r->tx_len - off;
        off = 0;
    }
    stamp = ofi_ring_stamp(r->tx_salt, r->tx_pos);
    pad = (0 - len) & 7;
    char *slot = wlen > t->ring_inject ? ofi_bounce_peek(t, wlen) : NULL;
    if (wlen <= t->ring_inject || slot) {
        _Alignas(16) char stack[OFI_INJECT_STACK];
        ofi_ring_hdr_t h = {
            .len = kind == RING_MSG ? (uint32_t)len : data, .kind = (uint32_t)kind, .stamp = stamp};
        size_t o = sizeof(h);
        char *buf = slot ? slot : stack;

        memcpy(buf, &h, sizeof(h));
        if (kind == RING_MSG) {
            for (i = 0; i < iovcnt; i++) {
                memcpy(buf + o, iov[i].iov_base, iov[i].iov_len);
                o += iov[i].iov_len;
            }
            memset(buf + o, 0, pad);
            memcpy(buf + o + pad, &stamp, sizeof(stamp));
        }
        if (!slot)
            rc = ofi_ring_inject(t, peer, buf, wlen, RING_HEAD + off);
        else
            rc = ofi_bounce_post(t, wlen, peer, r->tx_base + RING_HEAD + off, r->tx_key);
        if (rc == UT_OK)
            r->tx_pos += adv;
        return rc;
    } else {
        ofi_ring_ctx_t *c = op_ctx;
        struct iovec v[4];
        ssize_t frc;
        int n = 0;

        c->hdr.len = (uint32_t)len;
        c->hdr.kind = RING_MSG;
        c->hdr.stamp = stamp;
        c->trail[0] = 0;
        c->trail[1] = stamp;
        v[n].iov_base = &c->hdr;
        v[n++].iov_len = sizeof(c->hdr);
        for (i = 0; i < iovcnt; i++)
            v[n++] = iov[i];
        v[n].iov_base = (char *)&c->trail[1] - pad;
        v[n++].iov_len = pad + 8;
        frc = fi_writev(t->ep, v, NULL, (size_t)n, t->addrs[peer], r->tx_base + RING_HEAD + off, r->tx_key,
                        &c->ctx);
        if (frc)
            return ofi_status(frc);
        r->tx_pos += adv;
        return UT_INPROGRESS;
    }
}

/* Tell the peer how much of its ring here this rank has consumed. */
static void ofi_ring_tell(tl_ofi_t *t, int peer)
{
    ofi_ring_t *r = &t->rings[peer];
    uint64_t pos = r->rx_pos;

    r->tell = ofi_ring_inject(t, peer, &pos, sizeof(pos), 0) != UT_OK;
    if (!r->tell)
        r->rx_told = pos;
}

/* Deliver the records that have landed, up to RING_BATCH per peer. */
static int ofi_ring_scan(tl_ofi_t *t)
{
    const uint64_t mask = t->ring_len - 1;
    int n = 0, k, peer;

    if (t->ring_scanning) /* a callback that progressed: the outer scan goes on */
        return 0;
    t->ring_scanning = 1;
    peer = t->ring_next;
    for (k = 0; k < t->size; k++, peer = peer + 1 == t->size ? 0 : peer + 1) {
        ofi_ring_t *r = &t->rings[peer];
        char *ring;
        int b;

        if (!r->rx || r->broken)
            continue;
        ring = r->rx + RING_HEAD;
        for (b = 0; b < RING_BATCH; b++) {
            uint64_t pos = r->rx_pos, off = pos & mask;
            const ofi_ring_hdr_t *h = (const ofi_ring_hdr_t *)(ring + off);
            uint64_t stamp = ofi_ring_stamp(r->rx_salt, pos);
            uint32_t len, kind;
            size_t wlen;

            if (__atomic_load_n(&h->stamp, __ATOMIC_ACQUIRE) != stamp)
                break;
            len = h->len;
            kind = h->kind;
            if (kind == RING_WRAP) {
                r->rx_pos += t->ring_len - off;
                continue;
            }
            if (kind == RING_NOTIFY) {
                r->rx_pos += ofi_ring_adv(sizeof(*h));
                t->cb.notify(t->cb.arg, len);
                n++;
                continue;
            }
            wlen = ofi_ring_wlen(RING_MSG, len);
            if (kind != RING_MSG || len > t->super.caps.max_msg || off + wlen > t->ring_len) {
                ut_error("malformed record from rank %d (kind %u, %u bytes): its messages stop here", peer,
                         kind, len);
                r->broken = 1;
                break;
            }
            if (__atomic_load_n((const uint64_t *)(ring + off + wlen - 8), __ATOMIC_ACQUIRE) != stamp)
                break; /* not all there yet */
            r->rx_pos += ofi_ring_adv(wlen);
            t->cb.recv(t->cb.arg, ring + off + sizeof(*h), len);
            n++;
        }
        if (r->tell || r->rx_pos - r->rx_told >= t->ring_len / 4)
            ofi_ring_tell(t, peer);
    }
    t->ring_next = t->ring_next + 1 == t->size ? 0 : t->ring_next + 1;
    t->ring_scanning = 0;
    return n;
}

/* A write with notification to a peer with rings: the data by RMA (no CQ
 * data), then the notification's record, which lands after it. Room for the
 * record is checked first; once the data is posted the record is retried
 * until the provider takes it. */
static int ofi_ring_write(tl_ofi_t *t, int peer, const void *src, size_t len, const tl_rkey_t *rkey,
                          uint64_t offset, uint32_t data, void *op_ctx)
{
    ofi_ring_t *r = &t->rings[peer];
    uint64_t raddr = rkey->addr + offset;
    ssize_t frc = 0;
    int rc, done = 1;
    char *copy;

    if (ofi_ring_room(r) < ofi_ring_need(r, ofi_ring_adv(sizeof(ofi_ring_hdr_t))))
        return UT_ERR_NO_RESOURCE;
    if (len <= t->ring_inject) {
        frc = fi_inject_write(t->ep, src, len, t->addrs[peer], raddr, rkey->key);
    } else if ((copy = ofi_bounce_peek(t, len))) {
        memcpy(copy, src, len);
        rc = ofi_bounce_post(t, len, peer, raddr, rkey->key);
        if (rc != UT_OK)
            return rc;
    } else {
        frc = fi_write(t->ep, src, len, NULL, t->addrs[peer], raddr, rkey->key, op_ctx);
        done = 0;
    }
    if (frc)
        return ofi_status(frc);
    while ((rc = ofi_ring_put(t, peer, NULL, 0, data, NULL)) == UT_ERR_NO_RESOURCE)
        (void)fi_cq_read(t->cq, NULL, 0);
    if (rc != UT_OK)
        ut_error("notification to rank %d: %s", peer, ut_status_str(rc));
    return done ? UT_OK : UT_INPROGRESS;
}

/* A hello from the FIFO: the sender's ring for this rank. */
static int ofi_ring_hello(tl_ofi_t *t, const void *buf, size_t len)
{
    ofi_hello_t h;
    ofi_ring_t *r;

    if (len != sizeof(h))
        return UT_ERR_PROTO;
    memcpy(&h, buf, sizeof(h));
    if (h.magic != RING_MAGIC || h.rank < 0 || h.rank >= t->size || h.rank == t->rank || h.len < 4096 ||
        (h.len & (h.len - 1)) || h.len > ((uint64_t)1 << 30))
        return UT_ERR_PROTO;
    r = &t->rings[h.rank];
    if (r->ready)
        return UT_ERR_PROTO;
    r->tx_base = h.base;
    r->tx_key = h.key;
    r->tx_len = h.len;
    r->tx_salt = h.salt;
    r->ready = 1;
    return UT_OK;
}

/* Each rank sends each peer its hello and waits for all of theirs (the
 * provider connects every pair now: with rings there is no other FIFO
 * traffic to order them against). */
static int ofi_ring_connect(tl_ofi_t *t)
{
    struct fi_cq_data_entry ent[OFI_CQ_BATCH];
    int i, got = 0, rc;
    time_t start = time(NULL);

    for (i = 0; i < t->size; i++) {
        ofi_ring_t *r = &t->rings[i];
        ofi_hello_t h = {.magic = RING_MAGIC,
                         .rank = t->rank,
                         .base = t->virt_addr ? (uint64_t)(uintptr_t)r->rx : 0,
                         .key = r->rx_mr ? fi_mr_key(r->rx_mr) : 0,
                         .len = t->ring_len,
                         .salt = r->rx_salt};
        ssize_t frc;

        if (i == t->rank)
            continue;
        while ((frc = fi_inject(t->ep, &h, sizeof(h), t->addrs[i])) == -FI_EAGAIN)
            (void)fi_cq_read(t->cq, NULL, 0);
        if (frc) {
            ut_error("ring hello to rank %d: %s", i, lf.strerror((int)-frc));
            return ofi_status(frc);
        }
        ofi_sock_seen(t, i, UT_OK);
    }
    while (got < t->size - 1) {
        ssize_t n = fi_cq_read(t->cq, ent, OFI_CQ_BATCH), k;

        if (n == -FI_EAVAIL) {
            ofi_handle_error(t);
            continue;
        }
        if (n == -FI_EAGAIN) {
            if (time(NULL) - start > 120) {
                ut_error("ring hellos: %d of %d peers answered in 120 s", got, t->size - 1);
                return UT_ERR_UNREACHABLE;
            }
            continue;
        }
        if (n < 0)
            return ofi_status(n);
        for (k = 0; k < n; k++) {
            struct fi_cq_data_entry *e = &ent[k];

            if (!(e->flags & (FI_RECV | FI_MULTI_RECV)))
                continue; /* nothing else was posted with a context */
            if (e->len && (e->flags & FI_RECV)) {
                rc = ofi_ring_hello(t, e->buf, e->len);
                if (rc != UT_OK) {
                    ut_error("ring hello: malformed, or a peer not in FIFO mode rma (%zu bytes)", e->len);
                    return rc;
                }
                got++;
            }
            if ((e->flags & FI_MULTI_RECV) || !t->multi) {
                ofi_rxbuf_t *rb = e->op_context;
                rb->posted = 0;
                ofi_post_rxbuf(t, rb, 0);
            }
        }
    }
    return UT_OK;
}

static int ofi_send_now(tl_ofi_t *t, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    size_t total = 0;
    ssize_t rc;
    int i;

    if (t->rma && t->rings[peer].ready)
        return ofi_ring_put(t, peer, iov, iovcnt, 0, op_ctx);
    for (i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (total <= t->super.caps.inject_size) {
        char buf[OFI_INJECT_STACK];
        size_t off = 0;
        for (i = 0; i < iovcnt; i++) {
            memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
            off += iov[i].iov_len;
        }
        rc = fi_inject(t->ep, buf, total, t->addrs[peer]);
        return rc ? ofi_status(rc) : UT_OK;
    }
    rc = fi_sendv(t->ep, iov, NULL, (size_t)iovcnt, t->addrs[peer], op_ctx);
    return rc ? ofi_status(rc) : UT_INPROGRESS;
}

static int ofi_send(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    int rc = ofi_send_now(t, peer, iov, iovcnt, op_ctx);

    ofi_sock_seen(t, peer, rc);
    return rc;
}

static int ofi_write_now(tl_ofi_t *t, int peer, const void *src, size_t len, const tl_rkey_t *rkey,
                         uint64_t offset, int notify, uint32_t data, void *op_ctx)
{
    uint64_t raddr = rkey->addr + offset;
    ssize_t rc;

    if (notify && t->rma && t->rings[peer].ready)
        return ofi_ring_write(t, peer, src, len, rkey, offset, data, op_ctx);
    if (len <= t->super.caps.inject_size) {
        if (notify)
            rc = fi_inject_writedata(t->ep, src, len, data, t->addrs[peer], raddr, rkey->key);
        else
            rc = fi_inject_write(t->ep, src, len, t->addrs[peer], raddr, rkey->key);
        return rc ? ofi_status(rc) : UT_OK;
    }
    if (notify)
        rc = fi_writedata(t->ep, src, len, NULL, data, t->addrs[peer], raddr, rkey->key, op_ctx);
    else
        rc = fi_write(t->ep, src, len, NULL, t->addrs[peer], raddr, rkey->key, op_ctx);
    return rc ? ofi_status(rc) : UT_INPROGRESS;
}

static int ofi_write(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey, uint64_t offset,
                     int notify, uint32_t data, void *op_ctx)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    int rc = ofi_write_now(t, peer, src, len, rkey, offset, notify, data, op_ctx);

    ofi_sock_seen(t, peer, rc);
    return rc;
}

static int ofi_is_rxbuf(tl_ofi_t *t, void *ctx)
{
    char *p = ctx;
    return t->nrxbufs && p >= (char *)t->rxbufs && p < (char *)(t->rxbufs + t->nrxbufs);
}

static void ofi_handle_error(tl_ofi_t *t)
{
    struct fi_cq_err_entry err = {0};
    ssize_t rc = fi_cq_readerr(t->cq, &err, 0);

    if (rc < 0)
        return;
    if (err.op_context && ofi_is_rxbuf(t, err.op_context)) {
        ofi_rxbuf_t *rb = err.op_context;
        if (err.err != FI_ECANCELED)
            ut_error("FIFO receive error: %s", lf.strerror(err.err));
        if (err.flags & FI_MULTI_RECV) {
            rb->posted = 0;
            ofi_post_rxbuf(t, rb, 0);
        }
        return;
    }
    if (err.flags & FI_REMOTE_WRITE) {
        ut_error("remote write to this rank failed: %s", lf.strerror(err.err));
        return;
    }
    ut_error("operation failed: %s (%s)", lf.strerror(err.err),
             fi_cq_strerror(t->cq, err.prov_errno, err.err_data, NULL, 0));
    if (err.op_context && !ofi_bounce_done(t, err.op_context))
        t->cb.tx_done(t->cb.arg, err.op_context, ofi_status(-(ssize_t)err.err));
}

static int ofi_handle_entries(tl_ofi_t *t, struct fi_cq_data_entry *ent, ssize_t n);

static int ofi_progress(tl_t *tl)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    struct fi_cq_data_entry ent[OFI_CQ_BATCH];
    ssize_t n;

    n = fi_cq_read(t->cq, ent, OFI_CQ_BATCH);
    if (t->rma) {
        /* the records the provider placed: their order among themselves
         * is all that matters (a completion here is local, or a FIFO
         * message that came before the rings) */
        int got = ofi_ring_scan(t);
        if (n == -FI_EAGAIN)
            return got;
        if (n > 0)
            return ofi_handle_entries(t, ent, n) + got;
    }
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL) {
        ofi_handle_error(t);
        return 1;
    }
    if (n < 0) {
        ut_error("fi_cq_read: %s", lf.strerror((int)-n));
        return 0;
    }
    return ofi_handle_entries(t, ent, n);
}

static int ofi_handle_entries(tl_ofi_t *t, struct fi_cq_data_entry *ent, ssize_t n)
{
    ssize_t i;

    for (i = 0; i < n; i++) {
        struct fi_cq_data_entry *e = &ent[i];
        /* Local completions first: sockets flags a writedata's own
         * completion with FI_REMOTE_CQ_DATA too. */
        if ((e->flags & (FI_SEND | FI_WRITE)) && !(e->flags & (FI_REMOTE_WRITE | FI_RECV))) {
            if (e->op_context && !ofi_bounce_done(t, e->op_context))
                t->cb.tx_done(t->cb.arg, e->op_context, UT_OK);
            continue;
        }
        if (e->flags & FI_REMOTE_CQ_DATA) {
            t->cb.notify(t->cb.arg, (uint32_t)e->data);
            continue;
        }
        if (e->flags & (FI_RECV | FI_MULTI_RECV)) {
            /* shm releases a buffer with a separate empty completion that
             * may carry FI_MULTI_RECV alone; rxm flags the last message. */
            if (e->len && (e->flags & FI_RECV))
                t->cb.recv(t->cb.arg, e->buf, e->len);
            if ((e->flags & FI_MULTI_RECV) || !t->multi) {
                ofi_rxbuf_t *rb = e->op_context;
                ut_debug("FIFO buffer %d released", (int)(rb - t->rxbufs));
                rb->posted = 0;
                ofi_post_rxbuf(t, rb, 0);
            }
            continue;
        }
    }
    return (int)n;
}

const tl_ops_t tl_ofi_ops = {
    .name = "ofi",
    .open = ofi_open,
    .close = ofi_close,
    .get_addr = ofi_get_addr,
    .connect = ofi_connect,
    .mem_reg = ofi_mem_reg,
    .mem_dereg = ofi_mem_dereg,
    .send = ofi_send,
    .write = ofi_write,
    .progress = ofi_progress,
};

/*
 * Off-host default. Over loopback on this VM kind (2 ranks, 2026-12-05),
 * net against tcp;ofi_rxm: half round trip 5.5 / 8.5 us at 8 B (Open MPI's
 * tcp BTL 6.9), MPI_Sendrecv exchange 10.3 us steady against 14-24 (Open
 * MPI 12). tcp;ofi_rxm's tcp provider forces a wait object on the CQ ofi_rxm
 * opens and signals it on every completion (a write, then a poll and a read
 * of a socket pair); net leaves a CQ without a wait object alone.
 */
const char *tl_ofi_network_default(void)
{
    struct fi_info *info = NULL;
    int lvl = ut_log_level, ok;

    ut_log_level = -1; /* probing: stay quiet */
    ok = ofi_getinfo("net", &info) == UT_OK;
    ut_log_level = lvl;
    if (ok)
        lf.freeinfo(info);
    return ok ? "net" : "tcp;ofi_rxm";
}

/* For bin/mbmpi_info: each provider that offers what mbmpi needs. */
void tl_ofi_print_providers(void *file)
{
    static const char *const names[] = {"shm", "tcp;ofi_rxm", "sockets", "verbs;ofi_rxm", "udp;ofi_rxd", "net"};
    FILE *f = file;
    size_t i;

    if (lf_load() != UT_OK) {
        fprintf(f, "# libfabric: not available (%s)\n", lf.why);
        tl_shmem_print_provider(f);
        return;
    }
    fprintf(f, "# libfabric %u.%u providers (RDM + RMA + multi-recv, manual progress)\n",
            FI_MAJOR(lf.version()), FI_MINOR(lf.version()));
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct fi_info *info = NULL;
        int lvl = ut_log_level;
        ut_log_level = -1; /* probing: stay quiet */
        if (ofi_getinfo(names[i], &info) == UT_OK) {
            fprintf(f, "%-14s available (version %u.%u, inject %zu B, max message %zu B, mr_mode %#x)\n", names[i],
                    FI_MAJOR(info->fabric_attr->prov_version), FI_MINOR(info->fabric_attr->prov_version),
                    info->tx_attr->inject_size, info->ep_attr->max_msg_size, info->domain_attr->mr_mode);
            lf.freeinfo(info);
        } else {
            fprintf(f, "%-14s not available\n", names[i]);
        }
        ut_log_level = lvl;
    }
    tl_shmem_print_provider(f);
}
