/*
 * transport/transport.h: the transport behind one small ops table.
 *
 * A transport moves bytes between the ranks of one job with two kinds of
 * operation, the ones mbcf/ needs and nothing more:
 *   - send:  a message of up to caps.max_msg bytes into the peer's
 *            receive FIFO (FI_MULTI_RECV buffers over libfabric); the peer's
 *            `recv` callback sees it whole;
 *   - write: bytes into a region the peer registered for remote write,
 *            optionally with a 32-bit notification delivered to the peer's
 *            `notify` callback once the data has landed;
 *   - read (optional): bytes out of a region the peer registered for
 *            reading (a rendezvous send's buffer), done on return.
 * Both are non-blocking; every completion is reported by progress().
 *
 * Two implementations: transport/ofi.c (libfabric: shm, tcp;ofi_rxm,
 * sockets, ...) and transport/self.c (in-process endpoints for unit tests,
 * with fault injection and raw-byte injection).
 */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct tl tl_t;
typedef struct tl_mr tl_mr_t;

/* What a peer needs to write into a region: filled by mem_reg, carried in
 * protocol messages, never trusted by the target (the transport checks key
 * and bounds there). */
typedef struct tl_rkey {
    uint64_t addr;           /* base to add offsets to (VA or 0) */
    uint64_t key;
    uint64_t len;
} tl_rkey_t;

typedef struct tl_caps {
    const char *name;        /* provider, e.g. "shm" */
    uint32_t version;        /* provider version (FI_VERSION) */
    size_t inject_size;      /* sends/writes up to this size complete at once */
    int send_copies;         /* 1: every send has copied its iovec when it returns and never
                              * returns UT_INPROGRESS (the iovec may live on the stack) */
    size_t max_msg;          /* largest FIFO message */
    size_t max_write;        /* largest single write */
    int notify_bytes;        /* remote CQ data bytes (>= 4) */
    int fd;                  /* waitable fd, or -1 */
    size_t fifo_bytes;       /* receive FIFO capacity */
    size_t fifo_slot;        /* FIFO bytes any message occupies at least (0: its size) */
    size_t write_min;        /* writes below this cost what a FIFO message does (0: none do) */
    size_t read_min;         /* sends from read_min to read_max bytes are worth reading (tl_read)
                              * rather than writing after a CTS */
    size_t read_max;         /* (0: no reads; may change, see tl_shmem_set_cma) */
    size_t read_max_xchg;    /* the same for a send hinted TL_SHM_EXCHANGE, where larger
                              * (0: as read_max) */
} tl_caps_t;

/* Callbacks into the layer above (mbcf/). */
typedef struct tl_callbacks {
    /* A whole FIFO message arrived (buf may be unaligned, valid only during the call). */
    void (*recv)(void *arg, const void *buf, size_t len);
    /* A remote write with notification landed; data is the 32-bit word. */
    void (*notify)(void *arg, uint32_t data);
    /* A send or write that returned UT_INPROGRESS completed (status UT_OK or an error). */
    void (*tx_done)(void *arg, void *op_ctx, int status);
    void *arg;
} tl_callbacks_t;

typedef struct tl_params {
    int rank;
    int size;
    const char *provider;    /* libfabric provider name; NULL = choose */
    size_t fifo_buf_size;    /* bytes per multi-recv buffer */
    int fifo_buf_count;
    size_t min_fifo_free;    /* a buffer is released when less than this is free (>= max message) */
    const char *fifo_mode;   /* "multi" (FI_MULTI_RECV), "single" (a message per buffer), NULL: per provider */
    int loopback;            /* every rank is on this host: network endpoints bind to 127.0.0.1 */
} tl_params_t;

typedef struct tl_ops {
    const char *name;
    int (*open)(const tl_params_t *params, const tl_callbacks_t *cb, tl_t **tl_p);
    void (*close)(tl_t *tl);
    int (*get_addr)(tl_t *tl, void *buf, size_t *len_p);
    /* addrs: size entries of addrlen bytes each, indexed by rank. */
    int (*connect)(tl_t *tl, const void *addrs, size_t addrlen);
    int (*mem_reg)(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p);
    void (*mem_dereg)(tl_t *tl, tl_mr_t *mr);
    /* UT_OK (done, op_ctx unused), UT_INPROGRESS (tx_done(op_ctx) later),
     * UT_ERR_NO_RESOURCE (retry after progress), or an error. op_ctx must
     * point to at least TL_OP_CTX_SIZE bytes aligned to TL_OP_CTX_ALIGN,
     * owned by the caller until done. */
    int (*send)(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx);
    int (*write)(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey, uint64_t offset,
                 int notify, uint32_t data, void *op_ctx);
    /* Drain up to a batch of completions; returns the number handled. */
    int (*progress)(tl_t *tl);
    /* Optional pair (NULL: no reads). mem_reg_read registers buf for the
     * peers to read, never to write (mem_dereg ends it). read copies len
     * bytes at rkey + offset of such a region on peer into dst, done on
     * return: UT_OK, UT_ERR_UNSUPPORTED (not to this peer now: use another
     * way), UT_ERR_PERM (key not registered there for reading, or out of
     * bounds) or another error. */
    int (*mem_reg_read)(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p);
    int (*read)(tl_t *tl, int peer, void *dst, size_t len, const tl_rkey_t *rkey, uint64_t offset);
    /* Optional (NULL: writes ignore hints): what the writes that follow
     * are for, until the next call (TL_HINT_NONE: nothing); see
     * tl_shm_hint_t below. */
    void (*hint)(tl_t *tl, int hint);
    /* Optional (NULL: nothing to do): a send to peer is about to be built;
     * the transport may start fetching what that send will store into (a
     * cache line of the peer's ring), so that the stores do not wait for
     * it. A hint only: nothing is reserved or sent. */
    void (*send_ahead)(tl_t *tl, int peer, size_t len);
} tl_ops_t;

/* Every transport object starts with this. */
struct tl {
    const tl_ops_t *ops;
    tl_caps_t caps;
};

/* Space an op_ctx must reserve for the transport (libfabric's fi_context2,
 * and after it an RMA ring record's header and trailer), and its alignment
 * (transports keep structures with pointers there). */
#define TL_OP_CTX_SIZE 96
#define TL_OP_CTX_ALIGN 16

extern const tl_ops_t tl_ofi_ops;
extern const tl_ops_t tl_self_ops;
/* mbmpi's own intra-host transport (transport/shmem.c, "mbshm"): a segment
 * per rank in /dev/shm with one ring per sender, single-copy writes with
 * process_vm_writev when allowed. Writes refused at this rank (bad key or
 * bounds) and malformed messages dropped are counted. */
extern const tl_ops_t tl_shmem_ops;
unsigned long tl_shmem_rejected_writes(tl_t *tl);
/* What the writes issued next are for, which decides how mbshm copies
 * them (the other transports have no hint op). The hint travels with the
 * request (proto_req_t.tl_hint, mbcf_write_hint), and mbcf sets it for
 * each of that op's tl_write calls only and resets it to TL_HINT_NONE
 * after, so it never applies to another request's writes.
 *   TL_SHM_REWRITE   the sender writes into the source right after: every
 *                    write goes through the rings, whatever MBMPI_SHM_CMA
 *                    says (a single copy leaves the lines shared with, or
 *                    owned by, the other CPU), and proto offers no read of
 *                    it (its RTS waits for a CTS);
 *   TL_SHM_OPERAND   the target uses the data at once (a reduction's
 *                    operands): writes of 32 KiB or more are copied by the
 *                    target alone (process_vm_readv) where single copies
 *                    are allowed, so they then sit in its cache;
 *   TL_SHM_EXCHANGE  the sender also receives at once (MPI_Sendrecv): writes
 *                    of 64 KiB or more are read by their target with one
 *                    copy when exchanges pull (MBMPI_SHM_CMA=exchange, or
 *                    auto unless MPI_Init timed the rings clearly faster),
 *                    as the rings' second copy only adds work to two busy
 *                    CPUs, and so are rendezvous sends of any size from
 *                    32 KiB (caps.read_max_xchg: a SHARE's second copier
 *                    is seldom free);
 *   TL_SHM_FLAT      a block of a flat Scatter or Gather (the root and each
 *                    other rank, one block each way): writes of 32 KiB or
 *                    more are single copies (from 256 KiB copied by both
 *                    sides) wherever MPI_Init timed single copies faster,
 *                    also with more ranks than CPUs, where other one-way
 *                    writes keep to the rings (a Bcast's inner ranks
 *                    forward while their children copy out; here the root
 *                    copies every block either way, and the rings only add
 *                    each receiver's copy);
 *   TL_SHM_FANOUT    a Bcast's message (a sender that sends the same data on
 *                    to several ranks): with more ranks than CPUs
 *                    (tl_shmem_set_read_all), writes of 256 KiB or more
 *                    are copied by their target alone (process_vm_readv),
 *                    so the receivers' copies spread over the CPUs while
 *                    the sender's CPU serves the others. */
/* TL_SHM_FANOUT writes from here on are read by their targets */
#define TL_SHM_FANOUT_MIN ((size_t)256 << 10)
typedef enum tl_shm_hint {
    TL_HINT_NONE,
    TL_SHM_REWRITE,
    TL_SHM_OPERAND,
    TL_SHM_EXCHANGE,
    TL_SHM_FLAT,
    TL_SHM_FANOUT,
    TL_SHM_NHINTS
} tl_shm_hint_t;
/* 1 when exchanges are read by their targets (see above), else 0. */
int tl_shmem_exchange_pulls(tl_t *tl);
/* 1 when large writes outside exchanges (32 KiB+) are single copies with
 * process_vm_writev (MBMPI_SHM_CMA=1, or auto where timed faster), else 0. */
int tl_shmem_cma_writes(tl_t *tl);
/* Writes this rank made with process_vm_writev (single copies); 0 for
 * another transport. */
unsigned long tl_shmem_single_copies(tl_t *tl);
/* 1 with MBMPI_SHM_CMA=auto (the default): the choice between the rings and
 * single copies (for the peers reachable with process_vm_readv/writev) is
 * left to tl_shmem_set_cma (mpi/shm_tune.c times both at MPI_Init). Rings
 * until then. The same on every rank of a job: it depends on the
 * environment only. */
int tl_shmem_cma_tunable(tl_t *tl);
/* Peers this rank reaches with process_vm_readv/writev (0 for another
 * transport, or where ptrace rules refuse it). */
int tl_shmem_cma_peers(tl_t *tl);
/* Where tunable: one-way writes of 32 KiB+ as single copies (`writes`: 0
 * none, 1 all, 2 only those hinted TL_SHM_FLAT), exchanges read by their
 * targets or not (`exchanges`). No-op otherwise. */
void tl_shmem_set_cma(tl_t *tl, int writes, int exchanges);
/* Where tunable: one-way single-copy writes only from min bytes on (32 KiB
 * at least, the default); SIZE_MAX: none. */
void tl_shmem_set_cma_min(tl_t *tl, size_t min);
/* Reads this rank made from peers' registered buffers (tl_read); 0 for
 * another transport. */
unsigned long tl_shmem_reads(tl_t *tl);
/* mbshm: how often a producer restarted one of its rings at the start
 * (the consumer had read everything; shm_reserve) */
unsigned long tl_shmem_recycled(tl_t *tl);
/* mbshm: writes this rank pushed through a ring (its copy in, the target's
 * copy out), whatever their size */
unsigned long tl_shmem_ring_writes(tl_t *tl);
/* 1 when TL_SHM_FANOUT writes of TL_SHM_FANOUT_MIN or more are copied by
 * their targets (more ranks than CPUs, and reads in use); 0 otherwise or
 * for another transport */
int tl_shmem_fanout_reads(tl_t *tl);
/* Reads of any size (1: more ranks than CPUs on the host, where a sender
 * that shares the copy of a big write has no CPU to do it with), or only
 * below 256 KiB (0, the default: above, a write copied by both sides is
 * twice as fast as one reader). No-op for another transport. */
void tl_shmem_set_read_all(tl_t *tl, int all);
/* Pieces of peers' writes this rank copied itself (process_vm_readv); 0 for
 * another transport. */
unsigned long tl_shmem_pulled(tl_t *tl);
unsigned long tl_shmem_malformed(tl_t *tl);
void tl_shmem_print_provider(void *file);

static inline void tl_close(tl_t *tl)
{
    tl->ops->close(tl);
}
static inline int tl_get_addr(tl_t *tl, void *buf, size_t *len_p)
{
    return tl->ops->get_addr(tl, buf, len_p);
}
static inline int tl_connect(tl_t *tl, const void *addrs, size_t addrlen)
{
    return tl->ops->connect(tl, addrs, addrlen);
}
static inline int tl_mem_reg(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return tl->ops->mem_reg(tl, buf, len, mr_p, rkey_p);
}
static inline void tl_mem_dereg(tl_t *tl, tl_mr_t *mr)
{
    tl->ops->mem_dereg(tl, mr);
}
static inline int tl_send(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    return tl->ops->send(tl, peer, iov, iovcnt, op_ctx);
}
static inline int tl_write(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey,
                           uint64_t offset, int notify, uint32_t data, void *op_ctx)
{
    return tl->ops->write(tl, peer, src, len, rkey, offset, notify, data, op_ctx);
}
/* 1 when the transport can read peers' memory (tl_read may still refuse
 * a given peer with UT_ERR_UNSUPPORTED). */
static inline int tl_can_read(const tl_t *tl)
{
    return tl->ops->read != NULL && tl->ops->mem_reg_read != NULL;
}
static inline int tl_mem_reg_read(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return tl->ops->mem_reg_read(tl, buf, len, mr_p, rkey_p);
}
static inline int tl_read(tl_t *tl, int peer, void *dst, size_t len, const tl_rkey_t *rkey, uint64_t offset)
{
    return tl->ops->read(tl, peer, dst, len, rkey, offset);
}
static inline int tl_progress(tl_t *tl)
{
    return tl->ops->progress(tl);
}

static inline void tl_send_ahead(tl_t *tl, int peer, size_t len)
{
    if (tl->ops->send_ahead)
        tl->ops->send_ahead(tl, peer, len);
}
static inline void tl_hint(tl_t *tl, int hint)
{
    if (tl->ops->hint)
        tl->ops->hint(tl, hint);
}

/* Print the libfabric providers that offer what mbmpi needs (FILE *). */
void tl_ofi_print_providers(void *file);

/* The provider for ranks on more than one host (MBMPI_PROVIDER=auto):
 * "net" where this libfabric offers it (1.17's native-RDM rewrite of tcp,
 * which 1.18 renamed tcp), else "tcp;ofi_rxm". */
const char *tl_ofi_network_default(void);
/* 1 when transport/ofi.c will send through RMA rings (FIFO mode rma) for
 * this provider (as MBMPI_PROVIDER names it), MBMPI_FIFO_MODE (NULL or
 * "auto": the default) and job size: forced, or tcp;ofi_rxm up to 64 ranks. */
int tl_ofi_rings_expected(const char *provider, const char *fifo_mode, int size);
/* MBMPI_LIBFABRIC: the libfabric library transport/ofi.c opens at first use
 * (NULL: the environment variable, else libfabric.so.1). */
extern const char *tl_ofi_library;

/* ---- self transport extras (unit tests) ---- */
/* A group of in-process endpoints: open() with params->rank/size joins the
 * group `tl_self_group_current` (created by tl_self_group_create). */
typedef struct tl_self_group tl_self_group_t;
tl_self_group_t *tl_self_group_create(int size);
void tl_self_group_destroy(tl_self_group_t *g);
void tl_self_group_select(tl_self_group_t *g);
/* Deliver raw bytes to `tl`'s recv callback as if a FIFO message arrived. */
void tl_self_inject_recv(tl_t *tl, const void *buf, size_t len);
/* Fault injection: the next `n` sends/writes/mem_regs return `status`. */
void tl_self_fail_next(tl_t *tl, int nsend, int nwrite, int nreg, int status);
/* The next n reads return status (UT_ERR_UNSUPPORTED: as a peer that
 * cannot be read). */
void tl_self_fail_reads(tl_t *tl, int n, int status);
/* Counters of rejected operations at this endpoint (bad key/bounds, reads
 * of its regions included), and of reads it made. */
unsigned long tl_self_rejected_writes(tl_t *tl);
unsigned long tl_self_reads(tl_t *tl);

#endif
