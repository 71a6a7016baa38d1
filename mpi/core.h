/*
 * mpi/core.h: state of the runtime core (init, communicators, requests),
 * private to mpi/init.c, comm.c, p2p.c, errhandler.c.
 */
#ifndef MPI_CORE_H
#define MPI_CORE_H

#include "mpi/mpi_impl.h"
#include "proto/proto.h"
#include "transport/boot.h"

typedef struct mpii_global {
    int initialized;
    int finalized;
    int thread_level;
    int rank;
    int size;
    boot_t *boot;
    tl_t *tl;
    mbcf_t *m;
    proto_t *p;
    double t0;
    uint32_t next_ctx;       /* lowest context id this rank has not used */
    /* settings (MBMPI_*) */
    const char *provider;
    const char *protocol;
    const char *bind; /* MBMPI_BIND: auto, core, none */
    int report_bindings; /* MBMPI_REPORT_BINDINGS: say the CPU at MPI_Init */
    size_t eager_limit;
    size_t credits;
    size_t fifo_buf_size;
    long fifo_bufs;
    const char *fifo_mode;
    long req_max;
    long rts_read;           /* MBMPI_RTS_READ */
    long win_shm;            /* MBMPI_WIN_SHM */
    const char *req_min_str; /* MBMPI_REQ_MIN: a size or "auto" */
    size_t req_min;
    const char *rts_read_min_str;  /* MBMPI_RTS_READ_MIN: a size or "auto" */
    const char *coll_read_min_str; /* MBMPI_COLL_READ_MIN: a size, "auto" or "off" */
    /* a collective's fan-out, flat and exchange messages of this many bytes
     * or more are offered to their receivers to read (0: none; p2p.c) */
    size_t coll_read_min;
    /* the receives of a collective's exchange steps send no REQ (more ranks
     * than CPUs on mbshm with RTS reads: mpi/p2p.c, recv_start_xchg) */
    int xchg_noreq;
    size_t write_chunk;
    long stats;
    long spin;
    long sleep_after; /* MBMPI_SLEEP_AFTER: yields in a row before a wait sleeps (0: never) */
    long sleep_us;    /* MBMPI_SLEEP_US: length of one such sleep */
} mpii_global_t;

extern mpii_global_t mpii_g;

/* MPI_Init was called, MPI_Finalize not yet (mpii_is_initialized, inline
 * for the calls on every message's path) */
static inline int mpii_running(void)
{
    return mpii_g.initialized && !mpii_g.finalized;
}

/* The communicator table (mpi/comm.c); mpii_comm_get, inline. */
extern mpii_comm_t **mpii_comms;
extern int mpii_ncomms;

static inline mpii_comm_t *mpii_comm_lookup(MPI_Comm comm)
{
    if (comm <= 0 || comm >= mpii_ncomms || !mpii_comms[comm] || !mpii_comms[comm]->in_use)
        return NULL;
    return mpii_comms[comm];
}

#include "util/config.h"
extern const ut_cfg_table_t mpii_cfg_table;

/* (4 is MPII_REQ_GREQ, private to mpi/p2p.c) */
enum { MPII_REQ_SEND = 1, MPII_REQ_RECV = 2, MPII_REQ_NULL = 3, MPII_REQ_NBC = 5 };

typedef struct mpii_request {
    proto_req_t pr;          /* first */
    /* what every request's start and release touch, next to each other */
    MPI_Request handle;
    int kind;
    int freed;               /* MPI_Request_free on an active request */
    int persistent;          /* MPI_Send_init / MPI_Recv_init + MPI_Start */
    int active;              /* started and not yet completed */
    mpii_comm_t *comm;
    void *tmp;                 /* non-contiguous data: packed copy, unpacked at completion */
    mpii_datatype_t *p_dtcopy; /* a derived p_dt's type map, kept: the user may free the type */
    void *pcoll;               /* a persistent collective's arguments (MPI_Bcast_init ...), or NULL */
    void *lc_keep;             /* arrays a large-count call converted for it (mpi/large_count.h), or NULL */
    MPI_Request bs_inner;      /* MPI_Ibsend's send from the attached buffer (mpi/bsend.c), or NULL */
    mpii_comm_t *ref_comm;     /* the communicator this request holds a reference on, or NULL */
    mpii_datatype_t *udt;      /* = &udt_copy: the user may free the type meanwhile */
    void *ubuf;
    int ucount;
    size_t ubytes;           /* bytes the user buffer holds */
    /* persistent requests */
    int p_recv;
    int p_sync;
    void *p_buf;
    int p_count;
    MPI_Datatype p_dt;
    int p_rank;
    int p_tag;
    int p_parts;             /* partitioned (MPI_Psend_init / MPI_Precv_init): partitions, else 0 */
    int p_nready;            /* partitioned send: partitions marked ready since MPI_Start */
    unsigned char *p_ready;  /* ... which ones */
    uint32_t p_ctx;          /* partitioned: the context of its messages (mpi/p2p.c) */
    int nbc_rc;              /* MPII_REQ_NBC: the collective's result (mpi/coll/nbc.c) */
    int nbc_has_st;          /* ... and nbc_st its status (MPI_Isendrecv), else an empty one */
    MPI_Status nbc_st;
    mpii_datatype_t udt_copy;
} mpii_request_t;

mpii_request_t *mpii_request_get(MPI_Request h);
/* mpi/coll/nbc.c: MPI_Start of a persistent collective request (r->pcoll set, inactive). */
int mpii_nbc_pstart(mpii_request_t *r);
/* Its arguments go with the request (MPI_Request_free). */
void mpii_nbc_pfree(void *pcoll);
void mpii_progress_wait(volatile int *done);
/* One round of a wait loop that made no progress (idle counts them; the
 * caller resets it to 0 on progress): poll, then yield, then sleep. */
void mpii_idle_wait(long *idle);
/* Write out what the program's C streams and Fortran units hold (before the
 * process ends with _exit: MPI_Abort, a fatal error). */
void mpii_flush_output(void);
/* One progress round: the transport, then (outside a coroutine) the
 * nonblocking collectives whose awaited operation completed. Returns the
 * number of events. */
int mpii_progress(void);

int mpii_comm_world_init(void);
/* mbshm, MBMPI_SHM_CMA=auto: rings or single copies, timed (mpi/shm_tune.c); collective */
int mpii_shm_tune(void);
void mpii_comm_finalize(void);
/* coll: 0 point-to-point, 1 (or any other nonzero) collectives,
 * MPII_CTX_PART partitioned communication, whose contexts have the top
 * bit set (mpi/p2p.c; mpii_comm_proto only) */
#define MPII_CTX_PART 2
#define MPII_CTX_PART_BIT 0x80000000u

/* What c->proto points to (mpi/comm.c). */
typedef struct mpii_comm_proto {
    proto_comm_t pc[3]; /* [0] point-to-point, [1] collectives, [2] partitioned */
} mpii_comm_proto_t;

static inline proto_comm_t *mpii_comm_proto(mpii_comm_t *c, int coll)
{
    return &((mpii_comm_proto_t *)c->proto)->pc[coll == MPII_CTX_PART ? 2 : coll ? 1 : 0];
}

static inline uint32_t mpii_comm_ctx(mpii_comm_t *c, int coll)
{
    return c->ctx + (coll ? 1u : 0u);
}

void mpii_requests_finalize(void);

#endif
