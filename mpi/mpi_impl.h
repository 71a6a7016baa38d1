/*
 * mpi/mpi_impl.h: internals shared by the files of mpi/ (not installed).
 *
 * Ownership:
 *   mpi/init.c mpi/comm.c mpi/p2p.c mpi/request.c mpi/errhandler.c: the core
 *   mpi/datatype.c: datatypes (table, constructors, pack/unpack)
 *   mpi/op.c:       reduction ops (predefined + user)
 *   mpi/errstr.c:   error strings and classes
 *   mpi/topo.c:     Cartesian topologies
 *   mpi/coll/ files: collectives (built on the mpii_*_ctx point-to-point below)
 */
#ifndef MPI_IMPL_H
#define MPI_IMPL_H

#include "mpi.h"
#include "mpi/mt.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* datatypes (mpi/datatype.c)                                          */

/* One contiguous run of bytes of a flattened type map, relative to the
 * buffer pointer (may be negative). */
typedef struct mpii_dtblock {
    MPI_Aint disp;
    size_t len;
} mpii_dtblock_t;

typedef struct mpii_datatype {
    int in_use;
    int predefined;
    int committed;
    size_t size;             /* bytes of data in one element */
    MPI_Aint lb;             /* MPI lower bound */
    MPI_Aint extent;         /* MPI extent (ub - lb) */
    MPI_Aint true_lb;
    MPI_Aint true_extent;
    int contig;              /* one block of `size` bytes at disp true_lb, and extent == size */
    MPI_Datatype basic;      /* basic type if every element has it (for reductions), else NULL */
    size_t basic_count;      /* number of basic elements in one element of this type */
    size_t nblocks;          /* flattened type map of one element */
    size_t blen;             /* the length every block has, or 0 (lengths differ) */
    mpii_dtblock_t *blocks;
} mpii_datatype_t;

int mpii_datatype_init(void);
void mpii_datatype_finalize(void);
/* NULL for MPI_DATATYPE_NULL, an unknown or a freed handle. */
mpii_datatype_t *mpii_datatype_get(MPI_Datatype dt);
/* MPI_SUCCESS, or MPI_ERR_TYPE when the handle is invalid or not committed. */
int mpii_datatype_check(MPI_Datatype dt);
/* both in one lookup: the committed datatype behind dt, or NULL */
mpii_datatype_t *mpii_datatype_committed(MPI_Datatype dt);
/* A pending operation keeps a derived type's handle bound (and working)
 * after MPI_Type_free, until unhold (MPI 3.1 4.1.9). hold returns 1 when it
 * took a hold (a valid derived type), else 0 (nothing to undo). */
int mpii_datatype_hold(MPI_Datatype dt);
void mpii_datatype_unhold(MPI_Datatype dt);
/* the type's name ("MPI_INT", or what MPI_Type_set_name gave), else "datatype N" in buf */
const char *mpii_datatype_name(MPI_Datatype dt, char *buf, size_t n);
/* Copy `count` elements laid out by dt at src into contiguous dst. */
void mpii_datatype_pack(const void *src, size_t count, const mpii_datatype_t *dt, void *dst);
/* Scatter the first `nbytes` of contiguous src into `count` elements of dt at
 * dst; never writes past count elements (nbytes larger is clipped). */
/* MPI_Type_get_envelope / get_contents; `large`: the _c forms, which may
 * describe a type recorded with large counts (else MPI_ERR_VALUE_TOO_LARGE) */
int mpii_type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner, int large);
int mpii_type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[], int large);
/* Record newtype (made of int-count pieces) as MPI_Type_contiguous_c(count,
 * oldtype) made it: CONTIGUOUS with one large count. */
int mpii_datatype_record_large(MPI_Datatype newtype, MPI_Count count, MPI_Datatype oldtype);
/* The large counts of datatype's record (0 and NULL: none). */
int mpii_datatype_large_counts(MPI_Datatype datatype, const MPI_Count **counts);
void mpii_datatype_unpack(const void *src, size_t nbytes, void *dst, size_t count,
                          const mpii_datatype_t *dt);

/* The type signature of count elements of dt in type-map order: fn(arg,
 * basic, n) for each run of n elements of a basic (predefined) type, pair
 * types (MPI_2INT, ...) as themselves. Stops at, and returns, the first
 * non-zero fn returns; -1 for a type it cannot describe. */
typedef int (*mpii_sig_fn)(void *arg, MPI_Datatype basic, size_t n);
int mpii_datatype_signature(MPI_Datatype dt, size_t count, mpii_sig_fn fn, void *arg);

/* external32 (mpi/pack_external.c) for MPI-IO: does every basic value of dt
 * keep its native size in external32 (so a file layout is the same in both)?
 * And the conversion, in place, of count elements of dt packed natively
 * (to_ext) or as external32 (back); 0, or -1 where a value changes size. */
int mpii_ext32_same_size(MPI_Datatype dt);
int mpii_ext32_convert(MPI_Datatype dt, size_t count, void *buf, int to_ext);

/* ------------------------------------------------------------------ */
/* reduction ops (mpi/op.c)                                            */

int mpii_op_init(void);
void mpii_op_finalize(void);
/* MPI_SUCCESS, MPI_ERR_OP (invalid handle, or op not defined on dt). */
int mpii_op_check(MPI_Op op, MPI_Datatype dt);
/* "MPI_SUM", or "user op N" / "op N" written into buf (for messages) */
const char *mpii_op_name(MPI_Op op, char *buf, size_t n);
int mpii_op_is_commutative(MPI_Op op);
/* The same for a user-defined op and MPI_Op_free. */
int mpii_op_hold(MPI_Op op);
void mpii_op_unhold(MPI_Op op);
/* inoutvec[i] = invec[i] op inoutvec[i] for count elements of dt (MPI order). */
void mpii_op_apply(MPI_Op op, const void *invec, void *inoutvec, int count, MPI_Datatype dt);

/* ------------------------------------------------------------------ */
/* error strings (mpi/errstr.c)                                        */

const char *mpii_error_class_string(int errclass);

/* ------------------------------------------------------------------ */
/* communicators (mpi/comm.c)                                          */

typedef struct mpii_comm {
    int in_use;
    MPI_Comm handle;
    int rank;
    int size;
    int *world_ranks; /* comm rank -> MPI_COMM_WORLD rank (the local group) */
    /* the ranks point-to-point names: world_ranks and size, or an
     * inter-communicator's remote group (mpi/intercomm.c) */
    int *peer_ranks;
    int peer_size;
    /* inter-communicators: the remote group (peer_ranks), and an
     * intra-communicator of the local group on contexts of its own (the
     * local steps of the collectives; never handed to the user) */
    int is_inter;
    int *remote_ranks;
    struct mpii_comm *local;
    int hidden;              /* the `local` of an inter-communicator */
    uint32_t ctx;            /* point-to-point context id; ctx + 1 is the collective one */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    /* topology (mpi/topo.c); topo_kind is 0 (MPI_UNDEFINED for Topo_test) or MPI_CART */
    int topo_kind;
    int ndims;
    int *dims;
    int *periods;
    /* MPI_GRAPH (mpi/topo_graph.c): the whole graph as given, g_index of
     * g_nnodes entries and g_index[g_nnodes - 1] g_edges; MPI_DIST_GRAPH:
     * this rank's sources and destinations, their weights (NULL when
     * unweighted) */
    int g_nnodes, *g_index, *g_edges;
    int d_indeg, d_outdeg, d_weighted;
    int *d_src, *d_srcw, *d_dst, *d_dstw;
    /* protocol per-communicator state */
    void *proto;
    unsigned nbc_seq;        /* nonblocking collectives started (mpi/coll/nbc.c) */
    int refs;                /* requests that still use it (mpi/p2p.c, mpi/coll/nbc.c) */
    int free_deferred;       /* MPI_Comm_free'd while refs > 0: destroyed by the last one */
    int *tree_scratch;       /* mpi/coll/tree_map.c's placement */
    int tree_root;           /* root + 1 of the placement in tree_scratch (0: none) */
} mpii_comm_t;

/* NULL for MPI_COMM_NULL, unknown or freed handles. */
mpii_comm_t *mpii_comm_get(MPI_Comm comm);
/* A new intra-communicator of n ranks (world ranks given; copied), this
 * process at `rank`, on contexts ctx and ctx + 1. MPI error class. */
int mpii_comm_new(int n, const int *world_ranks, int rank, uint32_t ctx, MPI_Errhandler eh,
                  mpii_comm_t **c_p);
/* Destroy a communicator (no callbacks: a half-built one). */
void mpii_comm_destroy(mpii_comm_t *c);
/* Context id agreement (mpi/comm.c): `reduce` is one member's side of a
 * MAX (max != 0) or MIN reduction of *v over every member of the new
 * communicator; salt tells overlapping agreements apart. */
typedef int (*mpii_ctx_reduce_t)(void *arg, unsigned *v, int max);
int mpii_ctx_agree(mpii_ctx_reduce_t reduce, void *arg, uint32_t salt, uint32_t *ctx_p);
/* The same over an intra-communicator's members. */
int mpii_ctx_agree_comm(mpii_comm_t *c, uint32_t *ctx_p);
/* Inter-communicators (mpi/intercomm.c): MPI_Comm_dup, MPI_Comm_split and
 * MPI_Comm_create of one (arguments checked); MPI error class. */
int mpii_inter_dup(mpii_comm_t *c, mpii_comm_t **nc_p);
int mpii_inter_split(mpii_comm_t *c, int color, int key, MPI_Comm *newcomm);
/* MPI_Comm_split's order: by key, then by rank in the parent (qsort) */
typedef struct split_ent {
    int key;
    int rank;
} split_ent_t;
int mpii_split_cmp(const void *a, const void *b);
/* mpi/group.c: a group of the given world ranks (copied) */
int mpii_group_from_ranks(int n, const int *world_ranks, MPI_Group *out);
/* mpi/topo_graph.c: copy the topology of src onto dst (MPI_Comm_dup), free
 * it (the communicator goes). mpii_topo_dup returns an MPI error class. */
int mpii_topo_dup(mpii_comm_t *dst, const mpii_comm_t *src);
/* mpi/topo.c: MPI_Cart_shift of a Cartesian communicator, arguments valid */
void mpii_cart_shift(const mpii_comm_t *c, int direction, int disp, int *rank_source, int *rank_dest);
void mpii_topo_free(mpii_comm_t *c);
/* Destroy a communicator whose MPI_Comm_free waited for its pending
 * requests (free_deferred), once the last one is released. */
void mpii_comm_destroy_deferred(mpii_comm_t *c);
/* mpi/p2p.c: wait until no request on c is in flight (MPI_Comm_disconnect). */
void mpii_comm_drain(mpii_comm_t *c);
/* A request (or pending operation) stops using c. */
static inline void mpii_comm_unref(mpii_comm_t *c)
{
    if (--c->refs == 0 && c->free_deferred)
        mpii_comm_destroy_deferred(c);
}

/* ------------------------------------------------------------------ */
/* errors (mpi/errhandler.c)                                           */

/* Report an error raised by MPI call `fn` on `comm` (NULL: MPI_COMM_WORLD's
 * handler). With MPI_ERRORS_ARE_FATAL prints "mbmpi: <fn>: <message>" and
 * aborts the job; with MPI_ERRORS_RETURN returns errclass. */
int mpii_err(mpii_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for an error of window `win` whose handler is eh (mpi/win.c). */
int mpii_err_win(MPI_Errhandler eh, int win, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* mpi/win.c: the error handler of a window, NULL for an invalid handle. */
MPI_Errhandler *mpii_win_errhandler(MPI_Win win);
/* MPI_Intercomm_create, named fn in errors; coll: the leaders use
 * peer_comm's collective context (mpi/intercomm.c) */
int mpii_intercomm_create(const char *fn, MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, int coll, MPI_Comm *newintercomm);
/* a file's error handler (MPI_FILE_NULL's too), NULL for an invalid handle (mpi/io.c) */
MPI_Errhandler *mpii_file_errhandler(MPI_File file);
/* a session's error handler, NULL for an invalid handle; sessions open (mpi/session.c) */
MPI_Errhandler *mpii_session_errhandler(MPI_Session session);
int mpii_session_count(void);
void mpii_session_finalize(void);
/* free what a large-count call kept for a request (mpi/large_count_extra.c) */
void mpii_lc_release(void *keep);
/* an error handler an object may be given (mpi/errhandler.c) */
int mpii_errhandler_valid(MPI_Errhandler h);
/* MPI_Session_create_errhandler (mpi/session.c): a handler for sessions only */
int mpii_session_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
/* mpi/init.c: start the library for a session (MPI_SUCCESS when it runs
 * already; an error once it has shut down), and let it shut down when
 * neither the world model nor a session needs it any more */
int mpii_runtime_start(int thread_level);
void mpii_runtime_release(void);
/* mpi/comm.c: the hidden communicator of all processes that
 * MPI_Comm_create_from_group works over */
MPI_Comm mpii_session_world(void);
/* mpi/win.c: non-zero for a window handle in use; its predefined attribute
 * keyval's value (MPI_WIN_BASE ...): 1 and *val set, or 0. */
int mpii_win_valid(MPI_Win win);
int mpii_win_predef_attr(MPI_Win win, int keyval, void **val);
/* mpi/attr.c: delete a window's attributes (MPI_Win_free); MPI error class. */
int mpii_attr_win_free(MPI_Win win);
/* mpi/win.c: one progress round of the windows' targets (called by
 * mpii_progress when mpii_rma_nwin > 0). */
extern int mpii_rma_nwin;
int mpii_rma_progress(void);
void mpii_win_finalize(void);

/* Non-zero once MPI_Init has run and MPI_Finalize has not. */
int mpii_is_initialized(void);
/* Ranks of the job on this host, and CPUs this process may run on (init.c). */
int mpii_host_ranks(void);
int mpii_host_cpus(void);
/* The job's most loaded host (most ranks per CPU), the same at every rank
 * after MPI_Init's address exchange (this host's before it): what the
 * collectives' model prices, so that every rank picks the same algorithm */
int mpii_job_host_ranks(void);
int mpii_job_host_cpus(void);
/* the processes of the job (MPI_COMM_WORLD's size once it is up) */
int mpii_job_size(void);
/* The CPU class (0 .. n - 1) world rank w runs on when the ranks, all on
 * this host and pinned round robin, outnumber its n CPUs; -1 otherwise
 * (init.c; the same answer at every rank) */
int mpii_world_cpu_class(int w);
/* Use at the top of every MPI call that needs an initialized library. */
#define MPII_CHECK_INIT(fn)                                                          \
    do {                                                                             \
        if (!mpii_is_initialized())                                                  \
            return mpii_err(NULL, MPI_ERR_OTHER, fn, "called before MPI_Init or after MPI_Finalize"); \
    } while (0)

/* ------------------------------------------------------------------ */
/* internal point-to-point for collectives and topology (mpi/p2p.c)    */
/* `coll` non-zero selects the communicator's collective context, so these
 * never match user messages. Arguments are not validated (callers do it).
 * Return an MPI error class. Requests are ordinary MPI_Requests: complete
 * them with MPI_Wait/MPI_Waitall. */
int mpii_isend_ctx(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                   int coll, MPI_Request *req);
int mpii_irecv_ctx(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm, int coll,
                   MPI_Request *req);
int mpii_send_ctx(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                  int coll);
/* sync non-zero: synchronous mode (completes once the receive matched) */
int mpii_send_ctx_sync(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                       int coll, int sync);
int mpii_recv_ctx(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm, int coll,
                  MPI_Status *status);
int mpii_sendrecv_ctx(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                      int rcount, MPI_Datatype rdt, int src, int rtag, mpii_comm_t *comm, int coll,
                      MPI_Status *status);
/* Two collective-context calls that tell the intra-host transport what the
 * data is for (p2p.c). An exchange step after which this rank writes into
 * sbuf again (the reductions combine into the vectors they send, and every
 * call starts by copying its input over them): over mbshm it keeps to the
 * rings. */
int mpii_sendrecv_coll_rewrite(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                               int rcount, MPI_Datatype rdt, int src, int rtag, mpii_comm_t *comm);
/* A send of an operand that the receiver combines at once: over mbshm the
 * receiver copies it itself, into its cache. */
int mpii_send_coll_operand(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm);
/* A block of a flat Scatter (root to each rank) or Gather (each rank to the
 * root): over mbshm a single copy by the writer wherever MPI_Init timed
 * single copies faster, also with more ranks than CPUs. */
int mpii_isend_coll_flat(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                         MPI_Request *req);
int mpii_send_coll_flat(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm);
/* A Bcast's message: over mbshm with more ranks than CPUs, one of 256 KiB
 * or more is copied by its receiver alone. */
int mpii_isend_coll_fanout(const void *buf, int count, MPI_Datatype dt, int dest, int tag, mpii_comm_t *comm,
                           MPI_Request *req);
/* A send of a rank that receives from others at the same time (the blocks
 * of a direct Alltoall): over mbshm, from 64 KiB read by its receiver with
 * one copy where exchanges pull, as MPI_Sendrecv's sends are. */
int mpii_isend_coll_exchange(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             mpii_comm_t *comm, MPI_Request *req);
/* The receive of such a step: with more ranks than CPUs over mbshm it sends
 * no REQ (its message comes eagerly, or as an RTS its receiver reads). */
int mpii_irecv_coll_exchange(void *buf, int count, MPI_Datatype dt, int src, int tag, mpii_comm_t *comm,
                             MPI_Request *req);
/* Complete requests made by mpii_i*_ctx without invoking error handlers. */
int mpii_waitall(int n, MPI_Request *reqs);

/* ------------------------------------------------------------------ */
/* nonblocking collectives (mpi/coll/nbc.c)                            */

/* Added to the tag of every collective-context message while a nonblocking
 * collective's coroutine runs (0 otherwise). */
extern int mpii_coll_tag_off;
/* Nonblocking collectives pending. */
extern int mpii_nbc_nactive;
/* Non-zero inside a nonblocking collective's coroutine. */
int mpii_nbc_in_coroutine(void);
/* The running nonblocking collective's MPI name ("MPI_Ibcast"), or NULL. */
const char *mpii_nbc_name(void);
/* Inside a coroutine: give the CPU back to the main context until *done. */
void mpii_nbc_yield(volatile int *done);
/* Resume the coroutines whose wait is over; the number resumed. */
int mpii_nbc_progress(void);
/* MPI_Finalize: free the kept coroutine stacks. */
void mpii_nbc_finalize(void);
/* MPI_Comm_idup: MPI_Comm_dup on a coroutine; *newcomm is set when the
 * request completes. */
int mpii_nbc_comm_idup(const char *fn, MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);

#endif
