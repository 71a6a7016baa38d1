/*
 * transport/shmem.c: mbmpi's own intra-host transport ("mbshm"), below
 * libfabric's shm provider.
 *
 * Every rank creates one segment, a file /dev/shm/mbshm-<job>-<rank>:
 *   - a header page (magic, sizes, pid, the address of a probe word);
 *   - its registration table: SHM_TABLE_SLOTS entries {key, addr, len}
 *     written only by the owner; peers map this part read-only;
 *   - one inbound ring per sender rank (single producer: that sender,
 *     single consumer: the owner), mapped read-write by that sender only.
 * A ring is a byte array of ring_size (a power of two) plus a control line
 * holding the consumer's position. Messages start on 64-byte boundaries
 * and begin with a 16-byte header whose first word, the stamp, is stored
 * last with release semantics: the consumer polls the stamp where the next
 * message will start (one cache line crosses cores per message, no shared
 * tail index). The stamp is a bijection of the ring position mixed with a
 * per-ring random salt, so stale bytes of an earlier lap never pass for a
 * new message and nothing needs to be cleared after use. A message that
 * would cross the ring's end is preceded by a PAD header filling the rest.
 *
 * Message kinds: SEND (a FIFO message for the recv callback, delivered in
 * place), WRITE (a fragment of a remote write: key, offset, bytes; the
 * target checks key and bounds in its own table before copying, like a NIC,
 * and raises the notification with the last fragment), NOTIFY (the
 * notification of a write done with process_vm_writev) and SHARE (a big
 * write the target may help copy, see shm_write_share).
 *
 * Writes of SHM_CMA_MIN (32 KiB) or more go straight into the target's
 * memory with process_vm_writev (one copy) when a probe at connect showed
 * it is allowed; the sender first checks the key and bounds in the
 * target's published table (a stale or foreign key is refused), then
 * queues the notification behind the data. From SHM_SPLIT_MIN (256 KiB) the
 * target may take 128 KiB pieces of the copy itself (process_vm_readv)
 * while it is polling anyway, so two cores copy; the writer never waits for
 * a target that is not running. Smaller writes, or all without CMA, are
 * fragments through the ring (a quarter of the write each, 8-64 KiB),
 * pipelined: the sender fills the ring while the target copies out (no
 * system call).
 *
 * Reads (shm_read): a rendezvous send's buffer, registered read-only
 * (shm_mem_reg_read; writes to it are refused like a foreign key), is
 * copied by its receiver with process_vm_readv after checking key, access
 * and bounds in the sender's published table. Offered wherever some single
 * copy is in use (MBMPI_SHM_CMA other than 0; with auto, once MPI_Init
 * timed one faster than the rings), else refused with UT_ERR_UNSUPPORTED
 * and proto falls back to its CTS.
 *
 * Ordering: everything to one peer leaves in issue order; while a write to
 * a peer is still being pushed into its ring, further sends and writes to it
 * return UT_ERR_NO_RESOURCE (mbcf retries them after progress).
 *
 * No lock, malloc or system call on the send/progress/small-write path.
 * Every length read from shared memory is bounded before use: a malformed
 * message is dropped and counted; a header whose length makes no sense ends
 * reading of that ring (its stream can no longer be followed).
 *
 * Knobs (environment): MBMPI_SHM_CMA=exchange sends writes through the
 * rings except while the rank is in an exchange (MPI_Sendrecv and the
 * collective steps built on it, TL_SHM_EXCHANGE): then a write of
 * SHM_XCHG_MIN (64 KiB) or more is posted as a SHARE that the target reads
 * alone, one copy per byte instead of two on CPUs that both send and
 * receive. MBMPI_SHM_CMA=auto (the default) starts on the rings alone;
 * MPI_Init then times the rings against single copies between ranks 0 and
 * 1 (mpi/shm_tune.c) and sets, for every rank, whether one-way writes are
 * single copies (as MBMPI_SHM_CMA=1) and whether exchanges pull (as
 * exchange; an exchange that does not pull then keeps to the rings): which
 * wins changes from host to host (2-3x either way on the same VM kind, see
 * shm_tune.c). MBMPI_SHM_CMA=0 never uses process_vm_*. MBMPI_SHM_CMA=1
 * enables single-copy writes with process_vm_writev/readv,
 * MBMPI_SHM_CMA=single the same with big writes kept to the writer alone
 * (no SHARE), MBMPI_SHM_CMA=pull makes the target
 * copy every write of SHM_CMA_MIN or more alone (process_vm_readv, the way
 * Open MPI's CMA rendezvous reads; the writer only posts the SHARE). Pull
 * for every write was meant for more
 * ranks than CPUs, where the receivers' copies could spread over the
 * cores: Bcast of 256 KiB and 1 MiB at P = 8 on 2 CPUs measured the same
 * as the rings within the noise (+-30 %), so it is not the default.
 * Measured with bench/rtt and bench/bw on 2 cores
 * (2026-12-02): the rings' two pipelined copies (sender in, receiver out)
 * stream 4 MiB at 6.3-6.8 GB/s against 4.4-5.5 with CMA, and a 64 KiB
 * ping-pong takes 10 us against 14 (7.3-8.4 us since writes are cut into
 * quarter fragments, shm_frag_size); CMA with SHARE wins only a lone large
 * ping-pong (1 MiB: 52 against 91 us).
 * MBMPI_SHM_RING=bytes sets the ring size per sender (power of two, default
 * 256 KiB, the same on every rank). MBMPI_SHM_AHEAD=0 stops the prefetch of
 * the next message's ring lines (shm_send_ahead).
 */
#include "transport/transport.h"
#include "util/copy.h"
#include "util/log.h"
#include "util/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x6d6273686d763031ull /* "mbshmv01" */
#define SHM_VERSION 1
#define SHM_LINE 64
#define SHM_PAGE 4096
#define SHM_HDR 16  /* message header */
#define SHM_AHEAD_MAX 2048 /* bytes of a message's lines shm_send_ahead takes */
#define SHM_RECYCLE 16384  /* ring bytes used before shm_reserve looks whether to restart */
#define SHM_WHDR 40 /* write fragment header: a write of up to 24 bytes is one line */
#define SHM_RING_DEFAULT ((size_t)256 << 10)
#define SHM_RING_MIN ((size_t)64 << 10)
#define SHM_RING_MAX ((size_t)64 << 20)
#define SHM_TABLE_BITS 14
#define SHM_TABLE_SLOTS (1u << SHM_TABLE_BITS)
#define SHM_CMA_MIN ((size_t)32 << 10) /* smaller writes go through the ring (no system call) */
#define SHM_BATCH 32                   /* messages per progress call */
#define SHM_FRAG_MIN ((size_t)8 << 10) /* smallest fragment a write is cut into */
/* Writes from this size on are read by the target (one copy) while the
 * sender is in an exchange (TL_SHM_EXCHANGE, MBMPI_SHM_CMA=auto).
 * Measured at P = 2 (bench/coll): Alltoall of 64 KiB blocks 10.4 against
 * 14.6 us through the rings, but Allreduce of 64 KiB (32 KiB halves
 * exchanged) 25 against 17-20: below 64 KiB the system call costs more
 * than the second copy. */
#define SHM_XCHG_MIN ((size_t)64 << 10)
#define SHM_MAX_WRITE ((size_t)1 << 30)

enum {
    SHM_T_SEND = 1,
    SHM_T_WRITE = 2,
    SHM_T_NOTIFY = 3,
    SHM_T_PAD = 4,
    SHM_T_SHARE = 5, /* a big write whose chunks the target may help copy (process_vm_readv) */
};
#define SHM_SPLIT_MIN ((size_t)256 << 10) /* writes from here on may be copied by both sides */
#define SHM_CHUNK ((size_t)128 << 10)     /* unit of that sharing */
#define SHM_PULL_RANKS 3072               /* ranks whose pull ability fits the header page */
#define SHM_F_NOTIFY 1

/* One message header in a ring. */
typedef struct shm_hdr {
    _Atomic uint64_t stamp; /* stored last (release): the message is complete */
    uint32_t len;           /* bytes after the header (SEND, WRITE) */
    uint8_t type;
    uint8_t flags;
    uint16_t rsv;
} shm_hdr_t;

/* What follows the header of a WRITE fragment (data at SHM_WHDR). */
typedef struct shm_whdr {
    uint64_t key;
    uint64_t offset;
    uint32_t data; /* notification word (flags & SHM_F_NOTIFY) */
    uint32_t rsv;
} shm_whdr_t;

/* What follows the header of a SHARE (hdr.len: bytes of the write). Both
 * sides claim SHM_CHUNK pieces with fetch-add on `next`; the target counts
 * the ones it copied in `tdone`. */
typedef struct shm_share {
    uint64_t key;
    uint64_t offset;
    uint64_t src;           /* address in the sender */
    _Atomic uint32_t next;  /* next chunk to claim */
    _Atomic uint32_t tdone; /* chunks the target copied */
    _Atomic uint32_t tfail; /* the target failed to copy one */
    uint32_t rsv;
} shm_share_t;

_Static_assert(sizeof(shm_hdr_t) == SHM_HDR, "header layout");
_Static_assert(SHM_HDR + sizeof(shm_share_t) <= SHM_LINE, "share layout");
_Static_assert(SHM_HDR + sizeof(shm_whdr_t) <= SHM_WHDR, "write header layout");

/* A registration, as published in the owner's segment. */
typedef struct shm_slot {
    _Atomic uint64_t key; /* 0: free */
    _Atomic uint64_t addr;
    _Atomic uint64_t len;
    _Atomic uint64_t access; /* SHM_ACC_WRITE (peers write into it) or SHM_ACC_READ (peers read it) */
} shm_slot_t;

#define SHM_ACC_WRITE 0u
#define SHM_ACC_READ 1u

/* Control block in front of each ring: the consumer's position, alone in
 * its (pair of) cache lines so the producer's stores never bounce it. */
typedef struct shm_ctl {
    _Atomic uint64_t head;
    uint64_t salt;           /* set once by the owner at open */
    _Atomic uint32_t mapped; /* set by the sender once it mapped the ring */
    char pad[128 - 20];
} shm_ctl_t;

/* Segment header (first page). */
typedef struct shm_seg {
    uint64_t magic;
    uint32_t version;
    uint32_t size; /* ranks */
    uint32_t rank;
    uint32_t pid;
    uint64_t ring_size;
    uint64_t ring_stride;
    uint64_t table_off;
    uint64_t rings_off;
    uint64_t seg_size;
    uint64_t table_slots;
    uint64_t probe_va; /* the owner's address of `probe` (CMA probe target) */
    _Atomic uint64_t probe;
    /* can_pull[r]: the owner reaches rank r with process_vm_readv/writev
     * (found at its connect; 0 before): senders split big writes with it */
    _Atomic uint8_t can_pull[SHM_PULL_RANKS];
} shm_seg_t;

_Static_assert(sizeof(shm_seg_t) <= SHM_PAGE, "segment header fits its page");

/* The address one rank publishes. */
typedef struct shm_addr {
    char path[80];
    uint32_t pid;
    uint32_t magic;
} shm_addr_t;

/* A write still being pushed into a ring: lives in the caller's op_ctx. */
typedef struct shm_wop {
    const char *src;
    size_t len;
    size_t done;
    uint64_t key;
    uint64_t offset;
    uint32_t data;
    int notify;
    int pushed_one; /* a zero-length write still sends one fragment */
} shm_wop_t;

_Static_assert(sizeof(shm_wop_t) <= TL_OP_CTX_SIZE, "op ctx too small");

struct tl_mr {
    uint32_t slot;
    int live;
};

/* Our consumer side of the ring a peer fills: what a poll touches, packed
 * in one array so an idle poll of every peer reads few lines. */
typedef struct shm_rx {
    char *data;
    uint64_t head;   /* next message position */
    uint64_t expect; /* its stamp */
    uint64_t salt;
    shm_ctl_t *ctl;
    int src;
    int dead; /* malformed stream: no longer read */
} shm_rx_t;

/* Per peer: our producer side of its ring for us. Hot fields first. */
typedef struct shm_peer {
    /* tx: the ring at the peer that we fill */
    char *tx_data;
    shm_ctl_t *tx_ctl;
    uint64_t tx_tail; /* our next position */
    uint64_t tx_head; /* last consumer position seen (refreshed when short of space) */
    uint64_t tx_recheck; /* position from which shm_reserve looks again whether to recycle */
    uint64_t tx_salt;
    shm_wop_t *pending; /* a write being pushed (at most one) */
    void *pending_ctx;
    int cma; /* process_vm_writev into it works */
    pid_t pid;
    const shm_seg_t *seg; /* its segment header + table, read-only */
    /* a shared write whose target chunks are still being copied */
    shm_share_t *share; /* its line in the ring (NULL: none) */
    void *share_ctx;
    uint64_t share_pos;    /* its ring position */
    uint32_t share_target; /* chunks the target claimed */
    int share_status;      /* of our own chunks */
    int share_pull;        /* the target was to copy every chunk (we copy none) */
    size_t seg_map_len;
    void *ring_map; /* its ring for us, read-write */
    size_t ring_map_len;
} shm_peer_t;

typedef struct tl_shmem {
    tl_t super;
    tl_callbacks_t cb;
    int rank;
    int size;
    size_t ring_size;
    uint64_t ring_mask;
    size_t frag_max; /* largest WRITE fragment */
    shm_peer_t *peers;
    shm_rx_t *rx; /* size - 1 rings, by sender */
    int nrx;
    int npending;
    int nshare;      /* peers with a shared write in flight */
    int rr;          /* round-robin start of the next poll */
    int in_progress; /* recursion guard: messages are delivered in place */
    int want_cma;
    int auto_cma;    /* MBMPI_SHM_CMA=auto or exchange: probe the peers' single-copy access */
    int tune;        /* MBMPI_SHM_CMA=auto: want_cma and xchg_pull set by tl_shmem_set_cma */
    int ncma;        /* peers reached with process_vm_writev/readv */
    int xchg_pull;   /* exchanges are read by their targets (exchange: always; auto: if timed faster) */
    int hint;        /* tl_shm_hint_t of the write being issued (shm_hint) */
    int want_split;  /* big writes copied by both sides */
    int want_pull;   /* writes of SHM_CMA_MIN or more copied by the target alone */
    int flat_cma;    /* TL_SHM_FLAT writes are single copies even when want_cma is 0 */
    size_t cma_min;  /* smallest one-way write made a single copy (SHM_CMA_MIN; tl_shmem_set_cma_min) */
    int ahead;       /* shm_send_ahead prefetches (MBMPI_SHM_AHEAD, default 1) */
    int want_read;   /* rendezvous sends are read by their receivers (shm_read): wherever some
                      * single copy is used (auto: where one was timed faster than the rings) */
    int read_all;    /* also from SHM_SPLIT_MIN on (tl_shmem_set_read_all) */
    int linked;      /* our segment file still has a name */
    int unlink_scan; /* rings whose sender has mapped them: rx[0 .. unlink_scan) */
    /* own segment */
    char path[80];
    shm_seg_t *seg;
    size_t seg_size;
    shm_slot_t *table;
    struct tl_mr *mrs; /* by slot */
    uint32_t *free_slots;
    uint32_t nfree;
    uint64_t key_state;
    unsigned long rejected;  /* writes refused here (bad key or bounds) */
    unsigned long malformed; /* messages dropped */
    unsigned long helped;    /* pieces of senders' shared writes copied here */
    unsigned long single;    /* writes sent with process_vm_writev */
    unsigned long recycled;  /* jumps back to a ring's start (shm_recycle) */
    unsigned long ring_writes; /* writes this rank pushed through a ring */
    unsigned long reads;     /* rendezvous sends read from their senders (shm_read) */
} tl_shmem_t;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The stamp of a message starting at ring position pos (a multiple of 64):
 * odd-constant multiplication is a bijection, so no two positions share a
 * stamp, and the salt keeps structured payload bytes from looking like one. */
static inline uint64_t shm_stamp(uint64_t salt, uint64_t pos)
{
    return ((pos / SHM_LINE) + 1) * 0x9e3779b97f4a7c15ull ^ salt;
}

/* A line fetched for writing (exclusive), or at least fetched. */
static inline void shm_prefetch_write(const char *a)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*a));
#else
    __builtin_prefetch(a, 1, 3);
#endif
}

static inline size_t align_line(size_t n)
{
    return (n + SHM_LINE - 1) & ~(size_t)(SHM_LINE - 1);
}

static inline size_t align_page(size_t n)
{
    return (n + SHM_PAGE - 1) & ~(size_t)(SHM_PAGE - 1);
}

static uint64_t random_u64(uint64_t fallback)
{
    uint64_t v;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
        v = fallback ^ 0x9e3779b97f4a7c15ull;
    return v;
}

static void shm_malformed(tl_shmem_t *t, shm_rx_t *r, const char *what, int fatal);

/*
 * Map the pages of [addr, addr + len) now (MADV_POPULATE_WRITE, Linux 5.14;
 * a no-op elsewhere): the first SHM_RECYCLE bytes of a ring are where small
 * messages go, and each of their pages would otherwise cost a page fault
 * on both sides during the first lap, in the middle of the first calls.
 */
static void shm_prefault(void *addr, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(SHM_PAGE - 1);
    (void)madvise((void *)a, (uintptr_t)addr + len - a, MADV_POPULATE_WRITE);
#else
    (void)addr;
    (void)len;
#endif
}

/* ------------------------------------------------------------ tx side */

/*
 * Past the first SHM_RECYCLE bytes of a lap, and again every SHM_RECYCLE
 * bytes: when the consumer has read everything, the next message starts
 * the next lap (a PAD over the rest of this one). Small messages then keep
 * to the first lines and pages of the ring, which stay in the caches and
 * the TLB of both sides, instead of walking the whole ring: with 8 ranks on
 * 2 CPUs, where each rank finds its rings cold after every context switch,
 * an Alltoall of 64 B took 95-103 us with 256 KiB rings used whole against
 * 51-52 with 64 KiB rings (2026-12-04, AMD EPYC). Only when the message
 * fits before the jump's end (total <= off: the PAD and the message never
 * exceed an empty ring) and no SHARE line of this ring is still in use.
 * Returns the new position (tail, or the next lap's start).
 */
static uint64_t shm_recycle(tl_shmem_t *t, shm_peer_t *p, uint64_t tail, size_t off)
{
    shm_hdr_t *h;

    p->tx_head = atomic_load_explicit(&p->tx_ctl->head, memory_order_acquire);
    if (p->tx_head != tail) {
        p->tx_recheck = tail + SHM_RECYCLE; /* busy: look again later */
        return tail;
    }
    h = (shm_hdr_t *)(p->tx_data + off);
    h->len = 0;
    h->type = SHM_T_PAD;
    h->flags = 0;
    atomic_store_explicit(&h->stamp, shm_stamp(p->tx_salt, tail), memory_order_release);
    tail += t->ring_size - off;
    p->tx_recheck = tail + SHM_RECYCLE;
    t->recycled++;
    return tail;
}

/*
 * How far the peer has read this rank's ring, as far as this rank may
 * reuse it: a pending SHARE's line is read back by shm_drive_shares (how
 * many pieces the target copied) until that retires it, so the ring's lap
 * stops there even when the target has passed it. (Without, a sender that
 * went on sending wrapped over the line, and the SHARE's count, read from
 * the next lap's bytes, said the target had refused the write: a Bcast of
 * 280 KB failed "permission denied" under an Iallreduce, MBMPI_RTS_READ=0.)
 */
static inline uint64_t shm_tx_head(const shm_peer_t *p)
{
    uint64_t head = atomic_load_explicit(&p->tx_ctl->head, memory_order_acquire);

    return p->share && head > p->share_pos ? p->share_pos : head;
}

/*
 * Room for `total` bytes (a multiple of 64) at the tail of the peer's ring,
 * PAD included when the message would cross the end. Returns the position
 * where the message goes (a PAD is written first when needed), or
 * UINT64_MAX when the ring is too full now.
 */
static inline uint64_t shm_reserve(tl_shmem_t *t, shm_peer_t *p, size_t total)
{
    uint64_t tail = p->tx_tail;
    size_t off = (size_t)(tail & t->ring_mask);
    size_t need = total, pad = 0;

    if (off >= SHM_RECYCLE && tail >= p->tx_recheck && total <= off && !p->share) {
        tail = shm_recycle(t, p, tail, off);
        off = (size_t)(tail & t->ring_mask);
    }

    if (off + total > t->ring_size) {
        pad = t->ring_size - off;
        need += pad;
    }
    if (tail + need - p->tx_head > t->ring_size) {
        p->tx_head = shm_tx_head(p);
        if (tail + need - p->tx_head > t->ring_size)
            return UINT64_MAX;
    }
    if (pad) {
        shm_hdr_t *h = (shm_hdr_t *)(p->tx_data + off);
        h->len = 0;
        h->type = SHM_T_PAD;
        h->flags = 0;
        atomic_store_explicit(&h->stamp, shm_stamp(p->tx_salt, tail), memory_order_release);
        tail += pad;
    }
    return tail;
}

static inline void shm_publish(shm_peer_t *p, shm_hdr_t *h, uint64_t pos, size_t total)
{
    atomic_store_explicit(&h->stamp, shm_stamp(p->tx_salt, pos), memory_order_release);
    p->tx_tail = pos + total;
}

static int shm_send(tl_t *tl, int peer, const struct iovec *iov, int iovcnt, void *op_ctx)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    shm_peer_t *p = &t->peers[peer];
    size_t len = 0, total;
    uint64_t pos;
    shm_hdr_t *h;
    char *d;
    int i;

    (void)op_ctx;
    if ((unsigned)peer >= (unsigned)t->size || peer == t->rank || !p->tx_data)
        return UT_ERR_UNREACHABLE;
    for (i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > t->super.caps.max_msg)
        return UT_ERR_INVALID_PARAM;
    if (p->pending)
        return UT_ERR_NO_RESOURCE; /* keeps the order behind the write */
    total = align_line(SHM_HDR + len);
    pos = shm_reserve(t, p, total);
    if (pos == UINT64_MAX)
        return UT_ERR_NO_RESOURCE;
    h = (shm_hdr_t *)(p->tx_data + (pos & t->ring_mask));
    h->len = (uint32_t)len;
    h->type = SHM_T_SEND;
    h->flags = 0;
    d = (char *)h + SHM_HDR;
    for (i = 0; i < iovcnt; i++) {
        ut_copy(d, iov[i].iov_base, iov[i].iov_len);
        d += iov[i].iov_len;
    }
    shm_publish(p, h, pos, total);
    return UT_OK;
}

/* A NOTIFY message (after a CMA write). The caller made sure it fits. */
static int shm_push_notify(tl_shmem_t *t, shm_peer_t *p, uint32_t data)
{
    uint64_t pos = shm_reserve(t, p, SHM_LINE);
    shm_hdr_t *h;

    if (pos == UINT64_MAX)
        return 0;
    h = (shm_hdr_t *)(p->tx_data + (pos & t->ring_mask));
    h->len = 0;
    h->type = SHM_T_NOTIFY;
    h->flags = 0;
    memcpy((char *)h + SHM_HDR, &data, sizeof(data));
    shm_publish(p, h, pos, SHM_LINE);
    return 1;
}

/* Fragment size of a write of len bytes: about a quarter of it, between
 * SHM_FRAG_MIN and frag_max, so that even a mid-sized write is a pipeline
 * (the target copies one fragment out while the sender copies the next
 * in). With frag_max (64 KiB) for every write, a write of 64 KiB or less
 * was one fragment, copied in and then out one after the other. */
static inline size_t shm_frag_size(const tl_shmem_t *t, size_t len)
{
    size_t f = (len / 4 + SHM_LINE - 1) & ~(size_t)(SHM_LINE - 1);

    if (f < SHM_FRAG_MIN)
        f = SHM_FRAG_MIN;
    return f < t->frag_max ? f : t->frag_max;
}

/* Push as many fragments of w as fit. Returns 1 when the last one is in. */
static int shm_push_write(tl_shmem_t *t, shm_peer_t *p, shm_wop_t *w)
{
    size_t frag = shm_frag_size(t, w->len);

    while (w->done < w->len || !w->pushed_one) {
        size_t n = w->len - w->done, total;
        shm_whdr_t wh;
        shm_hdr_t *h;
        uint64_t pos;
        int last;

        if (n > frag)
            n = frag;
        total = align_line(SHM_WHDR + n);
        pos = shm_reserve(t, p, total);
        if (pos == UINT64_MAX) {
            /* The whole fragment does not fit: send the part that does, so
             * the ring keeps flowing (pipelining), unless that is tiny.
             * shm_reserve refreshed tx_head. */
            size_t off = (size_t)(p->tx_tail & t->ring_mask);
            size_t space = t->ring_size - (size_t)(p->tx_tail - p->tx_head);
            size_t contig = space < t->ring_size - off ? space : t->ring_size - off;
            size_t piece;
            if (contig >= SHM_WHDR + 4096)
                piece = contig - SHM_WHDR; /* up to the ring's end */
            else if (space > t->ring_size - off && space - (t->ring_size - off) >= SHM_WHDR + 4096)
                piece = space - (t->ring_size - off) - SHM_WHDR; /* after a PAD, from the start */
            else
                return 0;
            piece &= ~(size_t)(SHM_LINE - 1);
            if (piece >= n)
                return 0; /* cannot be: the whole one did not fit */
            n = piece;
            total = align_line(SHM_WHDR + n); /* <= the room: it is a multiple of 64 */
            pos = shm_reserve(t, p, total);
            if (pos == UINT64_MAX)
                return 0;
        }
        last = w->done + n == w->len;
        h = (shm_hdr_t *)(p->tx_data + (pos & t->ring_mask));
        h->len = (uint32_t)n;
        h->type = SHM_T_WRITE;
        h->flags = last && w->notify ? SHM_F_NOTIFY : 0;
        wh.key = w->key;
        wh.offset = w->offset + w->done;
        wh.data = w->data;
        wh.rsv = 0;
        memcpy((char *)h + SHM_HDR, &wh, sizeof(wh));
        if (n)
            memcpy((char *)h + SHM_WHDR, w->src + w->done, n);
        shm_publish(p, h, pos, total);
        w->done += n;
        w->pushed_one = 1;
    }
    return 1;
}

/* Look the key up in the peer's published table (seqlock-style: the key is
 * read before and after the fields). Returns 0 when it is not live there
 * with access `acc`. */
static int shm_peer_lookup(const shm_peer_t *p, uint64_t key, uint64_t acc, uint64_t *addr_p, uint64_t *len_p)
{
    const shm_slot_t *table = (const shm_slot_t *)((const char *)p->seg + p->seg->table_off);
    const shm_slot_t *s = &table[key & (SHM_TABLE_SLOTS - 1)];
    uint64_t k1, k2, a;

    if (!key)
        return 0;
    k1 = atomic_load_explicit((_Atomic uint64_t *)&s->key, memory_order_acquire);
    *addr_p = atomic_load_explicit((_Atomic uint64_t *)&s->addr, memory_order_relaxed);
    *len_p = atomic_load_explicit((_Atomic uint64_t *)&s->len, memory_order_relaxed);
    a = atomic_load_explicit((_Atomic uint64_t *)&s->access, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    k2 = atomic_load_explicit((_Atomic uint64_t *)&s->key, memory_order_relaxed);
    return k1 == key && k2 == key && a == acc;
}

/* The range [offset, offset + len) of the peer's region `rkey`, live there
 * with access `acc`: its address in *addr_p, else a warning and 0. */
static int shm_peer_range(const shm_peer_t *p, int peer, const tl_rkey_t *rkey, uint64_t acc, uint64_t offset,
                          size_t len, uint64_t *addr_p)
{
    uint64_t rlen;

    if (shm_peer_lookup(p, rkey->key, acc, addr_p, &rlen) && offset <= rlen && len <= rlen - offset)
        return 1;
    ut_warn(
        "mbshm: %s of %zu bytes at offset %llu %s rank %d refused (key %#llx not registered there%s, or out "
        "of bounds)",
        acc == SHM_ACC_READ ? "read" : "write", len, (unsigned long long)offset,
        acc == SHM_ACC_READ ? "from" : "to", peer, (unsigned long long)rkey->key,
        acc == SHM_ACC_READ ? " for reading" : "");
    return 0;
}

/* Single-copy write. UT_OK, UT_ERR_NO_RESOURCE, UT_ERR_PERM, or
 * UT_ERR_UNSUPPORTED (CMA refused: the caller falls back to the ring). */
static int shm_write_cma(tl_shmem_t *t, int peer, const void *src, size_t len, const tl_rkey_t *rkey,
                         uint64_t offset, int notify, uint32_t data)
{
    shm_peer_t *p = &t->peers[peer];
    uint64_t addr, tail;
    size_t done = 0;

    if (!shm_peer_range(p, peer, rkey, SHM_ACC_WRITE, offset, len, &addr))
        return UT_ERR_PERM;
    if (notify) {
        /* The notification must follow the data: make sure it will fit. */
        tail = p->tx_tail;
        size_t off = (size_t)(tail & t->ring_mask);
        size_t need = SHM_LINE + (off + SHM_LINE > t->ring_size ? t->ring_size - off : 0);
        if (tail + need - p->tx_head > t->ring_size) {
            p->tx_head = shm_tx_head(p);
            if (tail + need - p->tx_head > t->ring_size)
                return UT_ERR_NO_RESOURCE;
        }
    }
    while (done < len) {
        struct iovec l = {.iov_base = (char *)src + done, .iov_len = len - done};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(addr + offset + done), .iov_len = len - done};
        ssize_t n = process_vm_writev(p->pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            if (done == 0 && (e == EPERM || e == ENOSYS)) {
                ut_warn("mbshm: process_vm_writev to rank %d: %s; writes go through the ring", peer,
                        strerror(e));
                p->cma = 0;
                return UT_ERR_UNSUPPORTED;
            }
            ut_error("mbshm: process_vm_writev to rank %d (%zu bytes at %#llx): %s", peer, len - done,
                     (unsigned long long)(addr + offset + done), strerror(e));
            return e == EFAULT ? UT_ERR_PERM : UT_ERR_IO;
        }
        done += (size_t)n;
    }
    t->single++;
    if (notify && !shm_push_notify(t, p, data))
        return UT_ERR_IO; /* cannot happen: room was checked above */
    return UT_OK;
}

/* process_vm_readv/writev of one range, whole. 0 or an errno. */
static int shm_cma_copy(pid_t pid, int out, void *local, uint64_t remote, size_t len)
{
    size_t done = 0;

    while (done < len) {
        struct iovec l = {.iov_base = (char *)local + done, .iov_len = len - done};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote + done), .iov_len = len - done};
        ssize_t n = out ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        done += (size_t)n;
    }
    return 0;
}

static uint32_t shm_nchunks(size_t len)
{
    return (uint32_t)((len + SHM_CHUNK - 1) / SHM_CHUNK);
}

/*
 * A big write that the target may help copy: one core alone copies slower
 * than two. A SHARE line in the ring names the write; we claim SHM_CHUNK
 * pieces with fetch-add on its counter and copy them with
 * process_vm_writev, while the target, as soon as it reads the SHARE,
 * claims pieces from the same counter and pulls them with
 * process_vm_readv (after checking key and bounds in its own table). When
 * the target is not running, we simply copy everything: nothing waits for
 * it. The notification follows at once: the ring is FIFO and the target
 * finishes its pieces before it reads further. tx_done waits only for the
 * pieces the target claimed (our source is in use until then).
 * UT_ERR_UNSUPPORTED: not possible now, use another path.
 */
static int shm_write_share(tl_shmem_t *t, int peer, const char *src, size_t len, const tl_rkey_t *rkey,
                           uint64_t offset, int notify, uint32_t data, void *op_ctx, int pull)
{
    shm_peer_t *p = &t->peers[peer];
    shm_share_t *sh;
    shm_hdr_t *h;
    uint64_t addr, rlen, pos;
    uint32_t c, n = shm_nchunks(len), mine = 0;
    int rc = UT_OK, e;

    if (p->share || t->rank >= SHM_PULL_RANKS ||
        !atomic_load_explicit(&p->seg->can_pull[t->rank], memory_order_relaxed))
        return UT_ERR_UNSUPPORTED;
    if (!shm_peer_lookup(p, rkey->key, SHM_ACC_WRITE, &addr, &rlen) || offset > rlen || len > rlen - offset)
        return UT_ERR_UNSUPPORTED; /* the plain path refuses it with a message */
    if (t->ring_size - (size_t)(p->tx_tail - p->tx_head) < 2 * SHM_LINE) {
        p->tx_head = shm_tx_head(p);
        if (t->ring_size - (size_t)(p->tx_tail - p->tx_head) < 2 * SHM_LINE)
            return UT_ERR_NO_RESOURCE; /* SHARE and NOTIFY: one line each, never padded */
    }
    pos = shm_reserve(t, p, SHM_LINE);
    h = (shm_hdr_t *)(p->tx_data + (pos & t->ring_mask));
    sh = (shm_share_t *)((char *)h + SHM_HDR);
    h->len = (uint32_t)len;
    h->type = SHM_T_SHARE;
    h->flags = 0;
    sh->key = rkey->key;
    sh->offset = offset;
    sh->src = (uint64_t)(uintptr_t)src;
    atomic_store_explicit(&sh->next, 0, memory_order_relaxed);
    atomic_store_explicit(&sh->tdone, 0, memory_order_relaxed);
    atomic_store_explicit(&sh->tfail, 0, memory_order_relaxed);
    shm_publish(p, h, pos, SHM_LINE);

    /* Pull mode: the target copies every piece (see shm_open_tl). */
    while (!pull && (c = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed)) < n) {
        size_t o = (size_t)c * SHM_CHUNK, k = len - o < SHM_CHUNK ? len - o : SHM_CHUNK;
        mine++;
        if (rc != UT_OK)
            continue; /* keep claiming, so the accounting stays exact */
        e = shm_cma_copy(p->pid, 1, (char *)src + o, addr + offset + o, k);
        if (e) {
            ut_error("mbshm: process_vm_writev to rank %d (%zu bytes): %s", peer, k, strerror(e));
            rc = e == EFAULT ? UT_ERR_PERM : UT_ERR_IO;
        }
    }
    if (rc == UT_OK && notify)
        shm_push_notify(t, p, data);
    if (mine == n || atomic_load_explicit(&sh->tdone, memory_order_acquire) == n - mine) {
        if (mine != n && atomic_load_explicit(&sh->tfail, memory_order_relaxed) && rc == UT_OK)
            rc = UT_ERR_IO;
        return rc;
    }
    p->share = sh;
    p->share_ctx = op_ctx;
    p->share_pos = pos;
    p->share_target = n - mine;
    p->share_status = rc;
    p->share_pull = pull;
    t->nshare++;
    return UT_INPROGRESS;
}

/* Shared writes whose target pieces are now done: tx_done. */
static int shm_drive_shares(tl_shmem_t *t)
{
    int i, n = 0;

    for (i = 0; i < t->size && t->nshare; i++) {
        shm_peer_t *p = &t->peers[i];
        uint64_t head;
        int st;
        void *ctx;

        if (!p->share)
            continue;
        /* Once the target's position passed the SHARE it is done with it
         * (and the line may be reused); before, the line is still ours to read. */
        head = atomic_load_explicit(&p->tx_ctl->head, memory_order_acquire);
        if (head <= p->share_pos &&
            atomic_load_explicit(&p->share->tdone, memory_order_acquire) != p->share_target)
            continue;
        st = p->share_status;
        if (st == UT_OK && head <= p->share_pos &&
            atomic_load_explicit(&p->share->tfail, memory_order_relaxed))
            st = UT_ERR_IO;
        /* Pulled (MBMPI_SHM_CMA=pull, or a hint's): the target passed the
         * SHARE without copying all of it (it refused the key): the data
         * never arrived. */
        if (st == UT_OK && p->share_pull && head > p->share_pos &&
            atomic_load_explicit(&p->share->tdone, memory_order_acquire) != p->share_target)
            st = UT_ERR_PERM;
        ctx = p->share_ctx;
        p->share = NULL;
        p->share_ctx = NULL;
        t->nshare--;
        n++;
        t->cb.tx_done(t->cb.arg, ctx, st);
    }
    return n;
}

/* A SHARE: after the target-side check, claim and pull pieces until none
 * is left. A refused one is left to the sender (which checked the same
 * table) and counted. */
static void shm_rx_share(tl_shmem_t *t, shm_rx_t *r, volatile shm_hdr_t *h, uint32_t len)
{
    shm_peer_t *p = &t->peers[r->src];
    shm_share_t *sh = (shm_share_t *)((char *)h + SHM_HDR);
    uint64_t key = sh->key, offset = sh->offset, src = sh->src;
    shm_slot_t *s = &t->table[key & (SHM_TABLE_SLOTS - 1)];
    uint64_t addr, rlen;
    uint32_t c, n = shm_nchunks(len);
    int e;

    if (!key || atomic_load_explicit(&s->key, memory_order_relaxed) != key || !p->pid ||
        atomic_load_explicit(&s->access, memory_order_relaxed) != SHM_ACC_WRITE)
        goto refuse;
    addr = atomic_load_explicit(&s->addr, memory_order_relaxed);
    rlen = atomic_load_explicit(&s->len, memory_order_relaxed);
    if (offset > rlen || len > rlen - offset)
        goto refuse;
    while ((c = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed)) < n) {
        size_t o = (size_t)c * SHM_CHUNK, k = len - o < SHM_CHUNK ? len - o : SHM_CHUNK;
        e = shm_cma_copy(p->pid, 0, (char *)(uintptr_t)addr + offset + o, src + o, k);
        if (e) {
            ut_error("mbshm: process_vm_readv from rank %d (%zu bytes): %s", r->src, k, strerror(e));
            atomic_store_explicit(&sh->tfail, 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&sh->tdone, 1, memory_order_release);
        t->helped++;
    }
    return;
refuse:
    t->rejected++;
    ut_warn("mbshm: refused to help a write from rank %d (key %#llx, offset %llu, %u bytes)", r->src,
            (unsigned long long)key, (unsigned long long)offset, len);
}

/* 1 when TL_SHM_FANOUT writes of TL_SHM_FANOUT_MIN or more are pulled:
 * more ranks than CPUs, and reads in use */
static int shm_fanout_reads(const tl_shmem_t *t)
{
    return t->read_all && t->want_read;
}

/* 1 when the hint of the write being issued has its target copy all of a
 * write of len bytes (process_vm_readv), where the peer allows it */
static int shm_hint_pulls(const tl_shmem_t *t, size_t len)
{
    switch (t->hint) {
    case TL_SHM_OPERAND:
        /* the target uses the data at once: it reads it into its cache
         * (not with MBMPI_SHM_CMA=single, the writer copying alone) */
        return t->want_split && len >= SHM_CMA_MIN;
    case TL_SHM_EXCHANGE:
        /* an exchange: the target reads it (one copy, landing in its cache) */
        return t->xchg_pull && len >= SHM_XCHG_MIN;
    case TL_SHM_FANOUT:
        /* a Bcast's message with more ranks than CPUs (transport.h).
         * bench/coll --osu --sync window, P = 8 on 2 CPUs, medians of 3
         * alternated runs (2026-12-04): Bcast of 512 KiB / 1 MiB 510 / 928
         * us through the rings and reads, 397 / 709 pulled; the same for
         * every one-way write cost Reduce 15-32 % at 256 KiB-1 MiB (its
         * root then copies every operand alone) */
        return shm_fanout_reads(t) && len >= TL_SHM_FANOUT_MIN;
    default:
        return 0;
    }
}

static int shm_write(tl_t *tl, int peer, const void *src, size_t len, const tl_rkey_t *rkey, uint64_t offset,
                     int notify, uint32_t data, void *op_ctx)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    shm_peer_t *p = &t->peers[peer];
    shm_wop_t w, *wp;

    if ((unsigned)peer >= (unsigned)t->size || peer == t->rank || !p->tx_data)
        return UT_ERR_UNREACHABLE;
    if (len > SHM_MAX_WRITE || offset > rkey->len || len > rkey->len - offset)
        return UT_ERR_INVALID_PARAM;
    if (p->pending)
        return UT_ERR_NO_RESOURCE;
    if (t->hint == TL_SHM_REWRITE)
        goto rings;
    if (p->cma && shm_hint_pulls(t, len)) {
        int rc = shm_write_share(t, peer, src, len, rkey, offset, notify, data, op_ctx, 1);
        if (rc != UT_ERR_UNSUPPORTED)
            return rc;
    }
    /* MBMPI_SHM_CMA=auto: an exchange that does not pull uses the rings,
     * whatever was chosen for one-way writes (both were timed apart) */
    int one_way = !(t->tune && t->hint == TL_SHM_EXCHANGE);
    /* a flat Scatter's or Gather's block (transport.h) */
    int want_cma = t->want_cma || (t->hint == TL_SHM_FLAT && t->flat_cma);
    if (one_way && p->cma && want_cma &&
        ((t->want_pull && len >= t->cma_min) || (len >= SHM_SPLIT_MIN && t->want_split))) {
        int rc = shm_write_share(t, peer, src, len, rkey, offset, notify, data, op_ctx, t->want_pull);
        if (rc != UT_ERR_UNSUPPORTED)
            return rc;
    }
    if (one_way && p->cma && len >= t->cma_min && want_cma) {
        int rc = shm_write_cma(t, peer, src, len, rkey, offset, notify, data);
        if (rc != UT_ERR_UNSUPPORTED)
            return rc;
    }
rings:
    w.src = src;
    w.len = len;
    w.done = 0;
    w.key = rkey->key;
    w.offset = offset;
    w.data = data;
    w.notify = notify;
    w.pushed_one = 0;
    if (shm_push_write(t, p, &w)) {
        t->ring_writes++;
        return UT_OK;
    }
    if (!w.pushed_one)
        return UT_ERR_NO_RESOURCE;
    t->ring_writes++;
    /* Partly in the ring: the rest follows from progress(). */
    wp = op_ctx;
    *wp = w;
    p->pending = wp;
    p->pending_ctx = op_ctx;
    t->npending++;
    return UT_INPROGRESS;
}

/* ------------------------------------------------------------ rx side */

static void shm_malformed(tl_shmem_t *t, shm_rx_t *r, const char *what, int fatal)
{
    int src = r->src;

    t->malformed++;
    if (fatal) {
        r->dead = 1;
        ut_error("mbshm: malformed message from rank %d (%s): its ring is no longer read", src, what);
    } else {
        ut_warn("mbshm: dropped a malformed message from rank %d (%s)", src, what);
    }
}

/* The target-side check of a WRITE fragment, then the copy. */
static void shm_rx_write(tl_shmem_t *t, int src, const volatile shm_hdr_t *h, uint32_t len)
{
    shm_whdr_t wh;
    shm_slot_t *s;
    uint64_t addr, rlen;
    uint8_t flags = h->flags;

    memcpy(&wh, (const char *)h + SHM_HDR, sizeof(wh));
    s = &t->table[wh.key & (SHM_TABLE_SLOTS - 1)];
    if (!wh.key || atomic_load_explicit(&s->key, memory_order_relaxed) != wh.key ||
        atomic_load_explicit(&s->access, memory_order_relaxed) != SHM_ACC_WRITE)
        goto refuse;
    addr = atomic_load_explicit(&s->addr, memory_order_relaxed);
    rlen = atomic_load_explicit(&s->len, memory_order_relaxed);
    if (wh.offset > rlen || len > rlen - wh.offset)
        goto refuse;
    if (len)
        memcpy((char *)(uintptr_t)addr + wh.offset, (const char *)h + SHM_WHDR, len);
    if (flags & SHM_F_NOTIFY)
        t->cb.notify(t->cb.arg, wh.data);
    return;
refuse:
    t->rejected++;
    ut_warn("mbshm: refused a write from rank %d (key %#llx, offset %llu, %u bytes)", src,
            (unsigned long long)wh.key, (unsigned long long)wh.offset, len);
}

/* Handle up to `budget` messages of one ring, stopping after the first
 * SEND or NOTIFY delivered (shm_progress). Returns how many. */
static int shm_poll_ring(tl_shmem_t *t, shm_rx_t *r, int budget)
{
    uint64_t head = r->head;
    int n = 0;

    while (n < budget) {
        size_t off = (size_t)(head & t->ring_mask);
        const volatile shm_hdr_t *h = (const volatile shm_hdr_t *)(r->data + off);
        size_t room = t->ring_size - off, total;
        uint32_t len;
        uint8_t type;

        if (atomic_load_explicit((_Atomic uint64_t *)&h->stamp, memory_order_acquire) != r->expect)
            break;
        len = h->len;
        type = h->type;
        switch (type) {
        case SHM_T_SEND:
            if (len > t->super.caps.max_msg || SHM_HDR + (size_t)len > room) {
                shm_malformed(t, r, "message length", 1);
                goto out;
            }
            total = align_line(SHM_HDR + len);
            t->cb.recv(t->cb.arg, (const char *)h + SHM_HDR, len);
            break;
        case SHM_T_WRITE:
            if (len > t->frag_max || SHM_WHDR + (size_t)len > room) {
                shm_malformed(t, r, "write fragment length", 1);
                goto out;
            }
            total = align_line(SHM_WHDR + len);
            shm_rx_write(t, r->src, h, len);
            break;
        case SHM_T_NOTIFY: {
            uint32_t data;
            memcpy(&data, (const char *)h + SHM_HDR, sizeof(data));
            total = SHM_LINE;
            t->cb.notify(t->cb.arg, data);
            break;
        }
        case SHM_T_SHARE:
            total = SHM_LINE;
            if (len > SHM_MAX_WRITE)
                shm_malformed(t, r, "shared write length", 0);
            else
                shm_rx_share(t, r, (volatile shm_hdr_t *)h, len);
            break;
        case SHM_T_PAD:
            if (off == 0) {
                shm_malformed(t, r, "padding at the ring start", 1);
                goto out;
            }
            total = room;
            n--; /* not a message */
            break;
        default:
            /* A message of unknown kind but sane length is skipped alone. */
            if (SHM_HDR + (size_t)len > room) {
                shm_malformed(t, r, "unknown kind and length", 1);
                goto out;
            }
            shm_malformed(t, r, "unknown kind", 0);
            total = align_line(SHM_HDR + len);
            break;
        }
        head += total;
        r->expect = shm_stamp(r->salt, head);
        /* Released at once: a producer short of space sees it early. */
        atomic_store_explicit(&r->ctl->head, head, memory_order_release);
        n++;
        if (type == SHM_T_SEND || type == SHM_T_NOTIFY)
            break; /* one delivery per ring and call: see shm_progress */
    }
out:
    r->head = head;
    return n;
}

/* Keep pushing the pending writes; tx_done once a write is wholly in. */
static int shm_drive_pending(tl_shmem_t *t)
{
    int i, n = 0;

    for (i = 0; i < t->size && t->npending; i++) {
        shm_peer_t *p = &t->peers[i];
        if (!p->pending || !shm_push_write(t, p, p->pending))
            continue;
        {
            void *ctx = p->pending_ctx;
            p->pending = NULL;
            p->pending_ctx = NULL;
            t->npending--;
            n++;
            t->cb.tx_done(t->cb.arg, ctx, UT_OK);
        }
    }
    return n;
}

/* Once every sender has mapped our segment, its name can go: then nothing
 * is left in /dev/shm even if the job is killed hard (mpirun removes the
 * names of jobs killed before that point). One system call, once. */
static void shm_try_unlink(tl_shmem_t *t)
{
    while (t->unlink_scan < t->nrx &&
           atomic_load_explicit(&t->rx[t->unlink_scan].ctl->mapped, memory_order_acquire))
        t->unlink_scan++;
    if (t->unlink_scan == t->nrx) {
        unlink(t->path);
        t->linked = 0;
    }
}

/*
 * Polls every inbound ring once, round robin. A ring yields at most one
 * delivered message (SEND or NOTIFY) per call, then the caller sees what
 * it completed: looking for the next message right away reads the line the
 * sender is about to store into, which costs the reader a miss (about 180
 * ns between two vCPUs here) and takes the line from a sender that is
 * writing back to back. Between two ranks in one process pair, alternated
 * (2026-12-04, AMD EPYC, /tmp abx.c, medians of 15): MPI_Sendrecv of 0 B
 * then 16 B 1.00-1.02 us against 1.23-1.38 with the ring drained; Barrier
 * + Allreduce of 16 B 1.07 against 1.27-1.39; Alltoall of 16 B 0.58
 * against 0.76-0.78; Barrier 0.44 against 0.46-0.53; ping-pong and the
 * 8 B message rate unchanged (Open MPI in the same hour: 1.04, 1.07, 0.57,
 * 0.51). Write fragments and PADs do not stop the poll (a write's last
 * fragment raises its notification from shm_rx_write and the poll goes
 * on: the fragments before it have kept the reader busy anyway).
 */
static int shm_progress(tl_t *tl)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    int n = 0, i, src;
    const int budget = SHM_BATCH;

    if (t->in_progress)
        return 0; /* called from a callback: messages are delivered in place */
    t->in_progress = 1;
    if (t->npending)
        n += shm_drive_pending(t);
    if (t->nshare)
        n += shm_drive_shares(t);
    if (__builtin_expect(t->linked, 0))
        shm_try_unlink(t);
    /* Round robin: the next poll starts after the ring that used up the
     * budget, so a busy sender cannot starve the others. */
    src = t->rr;
    for (i = 0; i < t->nrx; i++) {
        shm_rx_t *r = &t->rx[src];
        if (++src == t->nrx)
            src = 0;
        if (r->dead)
            continue;
        n += shm_poll_ring(t, r, budget - n);
        if (n >= budget) {
            t->rr = src;
            break;
        }
    }
    t->in_progress = 0;
    return n;
}

/* ----------------------------------------------------------- registration */

static int shm_reg(tl_shmem_t *t, void *buf, size_t len, uint64_t acc, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    shm_slot_t *s;
    uint64_t key;
    uint32_t slot;

    if (!t->nfree) {
        /* the caller decides: proto waits for one to come back */
        ut_debug("mbshm: more than %u memory registrations", SHM_TABLE_SLOTS);
        return UT_ERR_NO_RESOURCE;
    }
    slot = t->free_slots[--t->nfree];
    /* The slot is in the key's low bits (found in O(1) on both sides); the
     * other bits are unpredictable, so a rank cannot guess another's key. */
    do
        key = (splitmix64(&t->key_state) << SHM_TABLE_BITS) | slot;
    while (key == slot);
    s = &t->table[slot];
    atomic_store_explicit(&s->addr, (uint64_t)(uintptr_t)buf, memory_order_relaxed);
    atomic_store_explicit(&s->len, (uint64_t)len, memory_order_relaxed);
    atomic_store_explicit(&s->access, acc, memory_order_relaxed);
    atomic_store_explicit(&s->key, key, memory_order_release);
    t->mrs[slot].slot = slot;
    t->mrs[slot].live = 1;
    rkey_p->addr = (uint64_t)(uintptr_t)buf;
    rkey_p->key = key;
    rkey_p->len = len;
    *mr_p = &t->mrs[slot];
    return UT_OK;
}

/* caps.read_max: what proto offers to read. From SHM_SPLIT_MIN on a write
 * copied by both sides (SHARE) is about twice as fast as a lone reader
 * (bench/rtt, 1 MiB: 68 against 161 us half round trip), unless there are more
 * ranks than CPUs (read_all): then a sender seldom has a CPU to share the
 * copy with, and reads win (flat Bcast of 256 KiB at P = 8 on 2 CPUs: 197
 * against 294 us through a CTS and the rings). */
static void shm_read_max(tl_shmem_t *t)
{
    t->super.caps.read_max = !t->want_read ? 0 : t->read_all || !t->want_split ? SIZE_MAX : SHM_SPLIT_MIN - 1;
    /* an exchange's CPUs are both busy, so a SHARE's second copier is
     * seldom free: where exchanges pull, the receiver reads them whole */
    t->super.caps.read_max_xchg = t->want_read && t->xchg_pull ? SIZE_MAX : 0;
}

static int shm_mem_reg(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return shm_reg((tl_shmem_t *)tl, buf, len, SHM_ACC_WRITE, mr_p, rkey_p);
}

static int shm_mem_reg_read(tl_t *tl, void *buf, size_t len, tl_mr_t **mr_p, tl_rkey_t *rkey_p)
{
    return shm_reg((tl_shmem_t *)tl, buf, len, SHM_ACC_READ, mr_p, rkey_p);
}

/* A rendezvous send's buffer, read by its receiver with one copy
 * (process_vm_readv) after checking key, access and bounds in the
 * sender's published table. */
static int shm_read(tl_t *tl, int peer, void *dst, size_t len, const tl_rkey_t *rkey, uint64_t offset)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    shm_peer_t *p;
    uint64_t addr;
    int e;

    if ((unsigned)peer >= (unsigned)t->size || peer == t->rank)
        return UT_ERR_UNREACHABLE;
    p = &t->peers[peer];
    if (!p->cma || !t->want_read)
        return UT_ERR_UNSUPPORTED;
    if (!shm_peer_range(p, peer, rkey, SHM_ACC_READ, offset, len, &addr))
        return UT_ERR_PERM;
    e = shm_cma_copy(p->pid, 0, dst, addr + offset, len);
    if (e == EPERM || e == ENOSYS) {
        ut_warn("mbshm: process_vm_readv from rank %d: %s; no more single copies with it", peer, strerror(e));
        p->cma = 0;
        return UT_ERR_UNSUPPORTED;
    }
    if (e) {
        ut_error("mbshm: process_vm_readv from rank %d (%zu bytes): %s", peer, len, strerror(e));
        return e == EFAULT ? UT_ERR_PERM : UT_ERR_IO;
    }
    t->reads++;
    return UT_OK;
}

static void shm_mem_dereg(tl_t *tl, tl_mr_t *mr)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;

    if (!mr || !mr->live)
        return;
    atomic_store_explicit(&t->table[mr->slot].key, 0, memory_order_release);
    mr->live = 0;
    t->free_slots[t->nfree++] = mr->slot;
}

/* ------------------------------------------------------- open / connect */

/* Something unique per job and host: mpirun's MBMPI_JOBID, else a hash of
 * the store address and secret (other launchers). The secret itself never
 * appears in a file name. */
static void shm_job_id(char *buf, size_t len)
{
    const char *id = getenv("MBMPI_JOBID");
    const char *a = getenv("MBMPI_STORE"), *b = getenv("MBMPI_SECRET");
    uint64_t h = 0xcbf29ce484222325ull;
    const char *s;

    if (id && *id && strlen(id) < 32 && !strchr(id, '/')) {
        snprintf(buf, len, "%s", id);
        return;
    }
    for (s = a ? a : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    for (s = b ? b : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    if (!a && !b)
        h ^= (uint64_t)getppid();
    snprintf(buf, len, "h%016llx", (unsigned long long)h);
}

/*
 * A message to peer is about to be built: take the ring lines it will start
 * on (up to SHM_AHEAD_MAX bytes) for writing now. The consumer keeps
 * reading the line at our tail while it waits, so every message's first
 * store needs that line back from the other core (about 180 ns between two
 * vCPUs here). A store that waits for it holds up every later store of the
 * sender: bench/bw moved 40 MB/s of 8-byte messages, against 57 with the
 * lines taken while proto and mbcf do their bookkeeping (AMD EPYC). A hint only: the
 * lines may hold messages the consumer has not read yet, which costs it a
 * cache miss, never a wrong byte. MBMPI_SHM_AHEAD=0 turns it off.
 */
static void shm_send_ahead(tl_t *tl, int peer, size_t len)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    shm_peer_t *p = &t->peers[peer];
    size_t n, off;

    if (!t->ahead || !p->tx_data)
        return;
    n = SHM_HDR + len;
    if (n > SHM_AHEAD_MAX)
        n = SHM_AHEAD_MAX;
    for (off = 0; off < n; off += SHM_LINE)
        shm_prefetch_write(p->tx_data + ((p->tx_tail + off) & t->ring_mask));
}

/* tl_hint: the writes that follow are for `hint` (transport.h) */
static void shm_hint(tl_t *tl, int hint)
{
    ((tl_shmem_t *)tl)->hint = hint > TL_HINT_NONE && hint < TL_SHM_NHINTS ? hint : TL_HINT_NONE;
}

static void shm_close(tl_t *tl)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    int i;

    for (i = 0; t->peers && i < t->size; i++) {
        shm_peer_t *p = &t->peers[i];
        if (p->seg)
            munmap((void *)p->seg, p->seg_map_len);
        if (p->ring_map)
            munmap(p->ring_map, p->ring_map_len);
    }
    if (t->seg) {
        munmap(t->seg, t->seg_size);
        if (t->linked)
            unlink(t->path);
    }
    ut_debug("mbshm: copied %lu pieces of peers' shared writes", t->helped);
    if (t->malformed || t->rejected)
        ut_warn("mbshm: %lu malformed messages dropped, %lu writes refused", t->malformed, t->rejected);
    free(t->peers);
    free(t->rx);
    free(t->mrs);
    free(t->free_slots);
    free(t);
}

static size_t shm_ring_size(void)
{
    const char *e = getenv("MBMPI_SHM_RING");
    size_t r = SHM_RING_DEFAULT;

    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 0);
        if (*end == 'k' || *end == 'K')
            v <<= 10;
        else if (*end == 'm' || *end == 'M')
            v <<= 20;
        if (v >= SHM_RING_MIN && v <= SHM_RING_MAX && !(v & (v - 1)))
            r = (size_t)v;
        else
            ut_warn("mbshm: MBMPI_SHM_RING=%s is not a power of two in [64K, 64M]; using %zu", e, r);
    }
    return r;
}

static int shm_ahead_enabled(void)
{
    const char *e = getenv("MBMPI_SHM_AHEAD");

    if (e && !strcmp(e, "0"))
        return 0;
    if (e && *e && strcmp(e, "1"))
        ut_warn("mbshm: MBMPI_SHM_AHEAD must be 0 or 1, not \"%s\"; using 1", e);
    return 1;
}

static int shm_open_tl(const tl_params_t *params, const tl_callbacks_t *cb, tl_t **tl_p)
{
    char job[40];
    tl_shmem_t *t;
    size_t ring, table_bytes, max_msg;
    const char *cma;
    int fd, rc, i;

    if (params->size < 1 || params->rank < 0 || params->rank >= params->size)
        return UT_ERR_INVALID_PARAM;
    t = calloc(1, sizeof(*t));
    if (!t)
        return UT_ERR_NO_MEMORY;
    t->super.ops = &tl_shmem_ops;
    t->cb = *cb;
    t->rank = params->rank;
    t->size = params->size;
    t->key_state = random_u64((uint64_t)(uintptr_t)t ^ (uint64_t)getpid());
    cma = getenv("MBMPI_SHM_CMA");
    if (!cma)
        cma = "auto";
    if (strcmp(cma, "auto") && strcmp(cma, "exchange") && strcmp(cma, "0") && strcmp(cma, "1") &&
        strcmp(cma, "single") && strcmp(cma, "pull") && strcmp(cma, "flat")) {
        ut_error("mbshm: MBMPI_SHM_CMA must be auto, exchange, 0, 1, single, pull or flat, not \"%s\"", cma);
        free(t);
        return UT_ERR_INVALID_PARAM;
    }
    t->want_cma = !strcmp(cma, "1") || !strcmp(cma, "single") || !strcmp(cma, "pull");
    t->auto_cma = !strcmp(cma, "auto") || !strcmp(cma, "exchange");
    t->tune = !strcmp(cma, "auto");
    t->xchg_pull = !strcmp(cma, "exchange");
    t->want_split = strcmp(cma, "single") != 0;
    t->want_pull = !strcmp(cma, "pull");
    t->cma_min = SHM_CMA_MIN;
    t->flat_cma = t->want_cma || !strcmp(cma, "flat");
    t->want_read = t->flat_cma || t->xchg_pull;
    shm_read_max(t);
    t->ahead = shm_ahead_enabled();

    /* A FIFO message is at most what mbcf asks for (eager limit + headers),
     * and at most a quarter of a ring, so several are in flight. */
    ring = shm_ring_size();
    max_msg = params->min_fifo_free ? params->min_fifo_free : 16640;
    while (max_msg + SHM_LINE + SHM_HDR > ring / 4 && ring < SHM_RING_MAX)
        ring *= 2;
    t->ring_size = ring;
    t->ring_mask = ring - 1;
    t->frag_max = ring / 4 - SHM_WHDR;

    t->peers = calloc((size_t)t->size, sizeof(*t->peers));
    t->rx = calloc((size_t)t->size, sizeof(*t->rx));
    t->mrs = calloc(SHM_TABLE_SLOTS, sizeof(*t->mrs));
    t->free_slots = malloc(SHM_TABLE_SLOTS * sizeof(*t->free_slots));
    if (!t->peers || !t->rx || !t->mrs || !t->free_slots) {
        rc = UT_ERR_NO_MEMORY;
        goto err;
    }
    for (i = 0; i < (int)SHM_TABLE_SLOTS; i++)
        t->free_slots[i] = SHM_TABLE_SLOTS - 1 - (uint32_t)i; /* slot 0 first */
    t->nfree = SHM_TABLE_SLOTS;

    table_bytes = align_page(SHM_TABLE_SLOTS * sizeof(shm_slot_t));
    t->seg_size = SHM_PAGE + table_bytes + (size_t)t->size * (sizeof(shm_ctl_t) + ring);
    t->seg_size = align_page(t->seg_size);
    shm_job_id(job, sizeof(job));
    snprintf(t->path, sizeof(t->path), "/dev/shm/mbshm-%s-%d", job, t->rank);
    /* O_EXCL: the job id is unique (mpirun: pid and 32 random bits), so an
     * existing file belongs to someone else and is left alone. */
    fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        ut_error("mbshm: cannot create %s: %s", t->path, strerror(errno));
        t->path[0] = 0;
        rc = UT_ERR_IO;
        goto err;
    }
    /* Allocated now, not on first touch: a full /dev/shm fails here with a
     * message instead of SIGBUS in the middle of the run. */
    rc = posix_fallocate(fd, 0, (off_t)t->seg_size);
    if (rc == EOPNOTSUPP || rc == ENOSYS)
        rc = ftruncate(fd, (off_t)t->seg_size) < 0 ? errno : 0;
    if (rc) {
        ut_error("mbshm: cannot allocate %zu bytes for %s: %s (is /dev/shm full?)", t->seg_size, t->path,
                 strerror(rc));
        close(fd);
        unlink(t->path);
        rc = UT_ERR_NO_MEMORY;
        goto err;
    }
    t->seg = mmap(NULL, t->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (t->seg == MAP_FAILED) {
        ut_error("mbshm: mmap %s: %s", t->path, strerror(errno));
        t->seg = NULL;
        unlink(t->path);
        rc = UT_ERR_NO_MEMORY;
        goto err;
    }
    t->linked = 1;
    t->seg->version = SHM_VERSION;
    t->seg->size = (uint32_t)t->size;
    t->seg->rank = (uint32_t)t->rank;
    t->seg->pid = (uint32_t)getpid();
    t->seg->ring_size = ring;
    t->seg->ring_stride = sizeof(shm_ctl_t) + ring;
    t->seg->table_off = SHM_PAGE;
    t->seg->rings_off = SHM_PAGE + table_bytes;
    t->seg->seg_size = t->seg_size;
    t->seg->table_slots = SHM_TABLE_SLOTS;
    t->seg->probe_va = (uint64_t)(uintptr_t)&t->seg->probe;
    t->table = (shm_slot_t *)((char *)t->seg + t->seg->table_off);
    for (i = 0; i < t->size; i++) {
        shm_rx_t *r;
        char *ring = (char *)t->seg + t->seg->rings_off + (size_t)i * t->seg->ring_stride;
        if (i == t->rank)
            continue;
        r = &t->rx[t->nrx++];
        r->src = i;
        r->ctl = (shm_ctl_t *)ring;
        r->data = ring + sizeof(shm_ctl_t);
        r->salt = random_u64((uint64_t)i * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)ring);
        r->head = 0;
        r->expect = shm_stamp(r->salt, 0);
        r->ctl->salt = r->salt;
        atomic_store_explicit(&r->ctl->head, 0, memory_order_relaxed);
        shm_prefault(r->ctl, sizeof(shm_ctl_t) + SHM_RECYCLE + SHM_AHEAD_MAX);
    }
    /* Last: a peer that sees the magic sees everything above. */
    atomic_thread_fence(memory_order_release);
    t->seg->magic = SHM_MAGIC;

    t->super.caps.name = "mbshm";
    t->super.caps.version = (1u << 16) | 0;
    t->super.caps.max_msg = max_msg;
    t->super.caps.inject_size = max_msg; /* every send completes at once */
    t->super.caps.send_copies = 1;
    t->super.caps.max_write = SHM_MAX_WRITE;
    t->super.caps.notify_bytes = 4;
    t->super.caps.fd = -1;
    /* Each sender has a ring of its own and mbcf divides fifo_bytes by the
     * number of peers: each gets 3/4 of its ring in credits. A message of n
     * bytes costs n rounded up to 256 B of credit and at most n + 79 bytes
     * of ring (header, 64-byte alignment): 3/4 keeps the credited messages
     * inside the ring with room for mbcf's explicit CREDIT messages, so a
     * full ring (UT_ERR_NO_RESOURCE, retried) stays rare. */
    t->super.caps.fifo_bytes = (size_t)(t->size > 1 ? t->size - 1 : 1) * (ring / 4 * 3);
    t->super.caps.fifo_slot = 0;
    /* A write of one fragment goes through the ring like a FIFO message:
     * same copies, but its REQ is one more message (and, in a collective
     * where sends race the REQs, a conflict to resolve). From two fragments
     * on the target copies out while the sender fills (bench/rtt at P = 2:
     * 12 KiB 3.7 us with the REQ, 3.9 eager; 2 KiB 1.6 against 1.4). */
    t->super.caps.write_min = SHM_FRAG_MIN;
    /* below, the rings' two pipelined copies beat a system call's one
     * (bench/rtt at 24 KiB: 4.5 against 8.4-9.6 us half round trip) */
    t->super.caps.read_min = SHM_CMA_MIN;
    *tl_p = &t->super;
    return UT_OK;

err:
    shm_close(&t->super);
    return rc;
}

static int shm_get_addr(tl_t *tl, void *buf, size_t *len_p)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    shm_addr_t a;

    if (*len_p < sizeof(a))
        return UT_ERR_INVALID_PARAM;
    memset(&a, 0, sizeof(a));
    snprintf(a.path, sizeof(a.path), "%s", t->path);
    a.pid = (uint32_t)getpid();
    a.magic = (uint32_t)SHM_MAGIC;
    memcpy(buf, &a, sizeof(a));
    *len_p = sizeof(a);
    return UT_OK;
}

/* Can we write into p's memory with process_vm_writev? One 8-byte write to
 * the probe word its header names. */
static int shm_probe_cma(shm_peer_t *p)
{
    uint64_t v = 1;
    struct iovec l = {.iov_base = &v, .iov_len = sizeof(v)};
    struct iovec r = {.iov_base = (void *)(uintptr_t)p->seg->probe_va, .iov_len = sizeof(v)};

    return process_vm_writev(p->pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(v);
}

static int shm_connect(tl_t *tl, const void *addrs, size_t addrlen)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    int i, ncma = 0;

    if (addrlen != sizeof(shm_addr_t))
        return UT_ERR_INVALID_PARAM;
    for (i = 0; i < t->size; i++) {
        shm_peer_t *p = &t->peers[i];
        shm_addr_t a;
        struct stat st;
        const shm_seg_t *sg;
        size_t ring_off, map_off;
        void *m;
        int fd;

        if (i == t->rank)
            continue;
        memcpy(&a, (const char *)addrs + (size_t)i * addrlen, sizeof(a));
        a.path[sizeof(a.path) - 1] = 0;
        if (a.magic != (uint32_t)SHM_MAGIC || strncmp(a.path, "/dev/shm/mbshm-", 15)) {
            ut_error("mbshm: rank %d sent no mbshm address (is every rank using --provider mbshm?)", i);
            return UT_ERR_PROTO;
        }
        fd = open(a.path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            ut_error("mbshm: cannot open rank %d's segment %s: %s (mbshm needs every rank on this host)", i,
                     a.path, strerror(errno));
            return UT_ERR_UNREACHABLE;
        }
        if (fstat(fd, &st) < 0 || (size_t)st.st_size != t->seg_size) {
            ut_error("mbshm: rank %d's segment %s has the wrong size", i, a.path);
            close(fd);
            return UT_ERR_PROTO;
        }
        m = mmap(NULL, t->seg->rings_off, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            ut_error("mbshm: mmap %s: %s", a.path, strerror(errno));
            close(fd);
            return UT_ERR_NO_MEMORY;
        }
        p->seg = sg = m;
        p->seg_map_len = t->seg->rings_off;
        if (sg->magic != SHM_MAGIC || sg->version != SHM_VERSION || sg->size != (uint32_t)t->size ||
            sg->rank != (uint32_t)i || sg->pid != a.pid || sg->ring_size != t->ring_size ||
            sg->ring_stride != t->seg->ring_stride || sg->table_off != t->seg->table_off ||
            sg->rings_off != t->seg->rings_off || sg->table_slots != SHM_TABLE_SLOTS) {
            ut_error("mbshm: rank %d's segment %s does not match ours (different settings?)", i, a.path);
            close(fd);
            return UT_ERR_PROTO;
        }
        atomic_thread_fence(memory_order_acquire);
        /* Our ring in its segment, read-write. */
        ring_off = (size_t)sg->rings_off + (size_t)t->rank * (size_t)sg->ring_stride;
        map_off = ring_off & ~(size_t)(SHM_PAGE - 1);
        p->ring_map_len = align_page(ring_off + (size_t)sg->ring_stride) - map_off;
        m = mmap(NULL, p->ring_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map_off);
        close(fd);
        if (m == MAP_FAILED) {
            ut_error("mbshm: mmap %s: %s", a.path, strerror(errno));
            return UT_ERR_NO_MEMORY;
        }
        p->ring_map = m;
        p->tx_ctl = (shm_ctl_t *)((char *)m + (ring_off - map_off));
        p->tx_data = (char *)p->tx_ctl + sizeof(shm_ctl_t);
        p->tx_salt = p->tx_ctl->salt;
        shm_prefault(p->tx_ctl, sizeof(shm_ctl_t) + SHM_RECYCLE + SHM_AHEAD_MAX);
        atomic_store_explicit(&p->tx_ctl->mapped, 1, memory_order_release);
        p->tx_tail = 0;
        p->tx_head = 0;
        p->pid = (pid_t)a.pid;
        p->cma = (t->flat_cma || t->auto_cma) && shm_probe_cma(p);
        ncma += p->cma;
        if (i < SHM_PULL_RANKS)
            atomic_store_explicit(&t->seg->can_pull[i], (uint8_t)p->cma, memory_order_relaxed);
    }
    t->ncma = ncma; /* MBMPI_SHM_CMA=auto: rings until tl_shmem_set_cma (timed at MPI_Init) */
    ut_debug("mbshm: connected to %d peers, %d with single-copy writes, ring %zu bytes", t->size - 1, ncma,
             t->ring_size);
    return UT_OK;
}

const tl_ops_t tl_shmem_ops = {
    .name = "mbshm",
    .open = shm_open_tl,
    .close = shm_close,
    .get_addr = shm_get_addr,
    .connect = shm_connect,
    .mem_reg = shm_mem_reg,
    .mem_dereg = shm_mem_dereg,
    .send = shm_send,
    .write = shm_write,
    .progress = shm_progress,
    .hint = shm_hint,
    .mem_reg_read = shm_mem_reg_read,
    .read = shm_read,
    .send_ahead = shm_send_ahead,
};

int tl_shmem_cma_tunable(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops && ((tl_shmem_t *)tl)->tune;
}

int tl_shmem_cma_peers(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->ncma : 0;
}

void tl_shmem_set_cma(tl_t *tl, int writes, int exchanges)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;

    if (!tl_shmem_cma_tunable(tl))
        return;
    t->want_cma = writes == 1;
    t->flat_cma = writes != 0;
    t->xchg_pull = exchanges != 0;
    t->want_read = writes != 0 || exchanges != 0;
    shm_read_max(t);
}

int tl_shmem_cma_writes(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops && ((tl_shmem_t *)tl)->want_cma && ((tl_shmem_t *)tl)->ncma > 0;
}

int tl_shmem_exchange_pulls(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops && ((tl_shmem_t *)tl)->xchg_pull;
}

unsigned long tl_shmem_single_copies(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->single : 0;
}

void tl_shmem_set_cma_min(tl_t *tl, size_t min)
{
    if (tl_shmem_cma_tunable(tl))
        ((tl_shmem_t *)tl)->cma_min = min > SHM_CMA_MIN ? min : SHM_CMA_MIN;
}

void tl_shmem_set_read_all(tl_t *tl, int all)
{
    if (tl && tl->ops == &tl_shmem_ops) {
        ((tl_shmem_t *)tl)->read_all = all;
        shm_read_max((tl_shmem_t *)tl);
    }
}

unsigned long tl_shmem_recycled(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->recycled : 0;
}

int tl_shmem_fanout_reads(tl_t *tl)
{
    tl_shmem_t *t = (tl_shmem_t *)tl;
    return tl && tl->ops == &tl_shmem_ops && shm_fanout_reads(t) && t->ncma > 0;
}

unsigned long tl_shmem_ring_writes(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->ring_writes : 0;
}

unsigned long tl_shmem_reads(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->reads : 0;
}

unsigned long tl_shmem_pulled(tl_t *tl)
{
    return tl && tl->ops == &tl_shmem_ops ? ((tl_shmem_t *)tl)->helped : 0;
}

unsigned long tl_shmem_rejected_writes(tl_t *tl)
{
    return ((tl_shmem_t *)tl)->rejected;
}

unsigned long tl_shmem_malformed(tl_t *tl)
{
    return ((tl_shmem_t *)tl)->malformed;
}

/* For bin/mbmpi_info. */
void tl_shmem_print_provider(void *file)
{
    FILE *f = file;

    if (access("/dev/shm", W_OK) != 0) {
        fprintf(f, "%-14s not available (/dev/shm is not writable: %s)\n", "mbshm", strerror(errno));
        return;
    }
    fprintf(f,
            "%-14s available (mbmpi's own shared-memory rings, %zu KiB per sender; single-copy writes with "
            "process_vm_writev when allowed)\n",
            "mbshm", SHM_RING_DEFAULT >> 10);
}
