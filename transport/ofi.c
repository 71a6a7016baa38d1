/*
 * transport/ofi.c: the libfabric transport (FI_EP_RDM).
 *
 * One endpoint, one CQ (FI_CQ_FORMAT_DATA) for sends, writes, FIFO receives
 * and remote-write notifications, one AV table indexed by rank. The FIFO is
 * a ring of FI_MULTI_RECV buffers, reposted when the provider releases them.
 * Writes use fi_writedata (remote CQ data = the 32-bit notification) or
 * fi_write. mr_mode is honoured: VIRT_ADDR decides whether remote addresses
 * are virtual or offsets, PROV_KEY whether the key comes from the provider;
 * otherwise keys are unique per domain (a 64-bit counter, never reused).
 * Manual progress everywhere (LIBFABRIC.md): progress() reads the CQ.
 */
#include "transport/transport.h"
#include "util/log.h"
#include "util/status.h"

#include <dlfcn.h>
#include <errno.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#define OFI_CQ_BATCH 16
#define OFI_INJECT_STACK 4096

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

static int lf_load(void)
{
    void *h;

    if (!lf.tried) {
        lf.tried = 1;
        const char *path = tl_ofi_library && *tl_ofi_library ? tl_ofi_library : getenv("MBMPI_LIBFABRIC");

        if (!path || !*path)
            path = "libfabric.so.1";
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
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
    rc = lf.getinfo(FI_VERSION(1, 9), node, NULL, node ? FI_SOURCE : 0, hints, &info);
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
static int ofi_map_fifo(tl_ofi_t *t, size_t len)
{
    const size_t huge = 2u << 20;
    size_t map_len;
    char *m, *a;

    t->rxmem_len = (len + huge - 1) & ~(huge - 1);
    map_len = t->rxmem_len + huge; /* room to align the start */
    m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        ut_error("libfabric FIFO: mmap of %zu bytes: %s", map_len, strerror(errno));
        return UT_ERR_NO_MEMORY;
    }
    a = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + t->rxmem_len < m + map_len)
        munmap(a + t->rxmem_len, (size_t)(m + map_len - (a + t->rxmem_len)));
    t->rxmem = a;
#ifdef MADV_HUGEPAGE
    (void)madvise(t->rxmem, t->rxmem_len, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    if (madvise(t->rxmem, t->rxmem_len, MADV_POPULATE_WRITE) == 0)
        return UT_OK;
#endif
    memset(t->rxmem, 0, t->rxmem_len);
    return UT_OK;
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

static void ofi_close(tl_t *tl)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;

    if (t->ep)
        fi_close(&t->ep->fid);
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
    free(t);
}

static int ofi_open(const tl_params_t *params, const tl_callbacks_t *cb, tl_t **tl_p)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE, .size = 0};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)params->size};
    size_t min_free = params->min_fifo_free;
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
     * user set it; 64 KiB buffers would cost about 200 MB per rank. */
    if (min_free > 16384 && !getenv("FI_OFI_RXM_BUFFER_SIZE")) {
        char v[32];
        snprintf(v, sizeof(v), "%zu", min_free);
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
    /* sockets 1.17 loses messages when a multi-recv buffer runs low under
     * load (seen here with 16 ranks); there the FIFO is a ring of buffers of
     * one message each, the same total size. */
    t->multi = strcmp(t->info->fabric_attr->prov_name, "sockets") != 0;
    if (params->fifo_mode && !strcmp(params->fifo_mode, "multi"))
        t->multi = 1;
    else if (params->fifo_mode && !strcmp(params->fifo_mode, "single"))
        t->multi = 0;
    {
        size_t one = t->multi ? params->fifo_buf_size : min_free;
        t->nrxbufs = t->multi ? params->fifo_buf_count
                              : (int)((params->fifo_buf_size * (size_t)params->fifo_buf_count) / min_free);
        /* one buffer fills while the provider hands back another */
        if (t->nrxbufs < (t->multi ? 2 : 16))
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
    }
    return UT_OK;
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

static int ofi_send(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    size_t total = 0;
    ssize_t rc;
    int i;

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

static int ofi_write(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey, uint64_t offset,
                     int notify, uint32_t data, void *op_ctx)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    uint64_t raddr = rkey->addr + offset;
    ssize_t rc;

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
    if (err.op_context)
        t->cb.tx_done(t->cb.arg, err.op_context, ofi_status(-(ssize_t)err.err));
}

static int ofi_progress(tl_t *tl)
{
    tl_ofi_t *t = (tl_ofi_t *)tl;
    struct fi_cq_data_entry ent[OFI_CQ_BATCH];
    ssize_t n, i;

    n = fi_cq_read(t->cq, ent, OFI_CQ_BATCH);
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
    for (i = 0; i < n; i++) {
        struct fi_cq_data_entry *e = &ent[i];
        /* Local completions first: sockets flags a writedata's own
         * completion with FI_REMOTE_CQ_DATA too. */
        if ((e->flags & (FI_SEND | FI_WRITE)) && !(e->flags & (FI_REMOTE_WRITE | FI_RECV))) {
            if (e->op_context)
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
