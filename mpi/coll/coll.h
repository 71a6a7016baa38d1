/*
 * mpi/coll/coll.h: internals of the collectives (not installed).
 *
 * mpi/coll/coll.c holds the public MPI_Barrier/Bcast/Reduce/Allreduce: it
 * validates arguments, picks one algorithm per call through a small selector
 * (comm size, bytes) and reports errors. Each algorithm lives in its own file
 * and is named by an enum and a string (coll.c's tables), never by a number.
 *
 * Contract of every algorithm below:
 *   - arguments are already validated (comm, count >= 0, committed dt, root
 *     in range, op valid for dt, MPI_IN_PLACE only where MPI allows it);
 *   - all traffic goes through the mpii_*_ctx point-to-point with coll = 1
 *     and the operation's fixed tag (MPII_COLL_TAG_*); successive collectives
 *     on one communicator are kept apart by MPI's non-overtaking order (run
 *     by a nonblocking collective, mpi/coll/nbc.c, the tags get an offset
 *     of that instance's own, mpii_coll_tag_off);
 *   - waits go through mpii_progress_wait / mpii_waitall only (a
 *     nonblocking collective's coroutine yields there), and no state is
 *     kept in static variables across a wait (instances may interleave);
 *   - count == 0 and comm->size == 1 are valid and need no communication;
 *   - returns MPI_SUCCESS or an MPI error class, never calls an error handler
 *     (coll.c does, once).
 */
#ifndef MPI_COLL_COLL_H
#define MPI_COLL_COLL_H

#include "../mpi_impl.h"

#include <stdint.h>
#include <stdlib.h>

/* Fixed tag of each operation inside the collective context. */
enum mpii_coll_tag {
    MPII_COLL_TAG_BARRIER = 1,
    MPII_COLL_TAG_BCAST = 2,
    MPII_COLL_TAG_REDUCE = 3,
    MPII_COLL_TAG_ALLREDUCE = 4,
};

#include "model.h"

/* ---- algorithms, one enum per collective (order = coll.c's tables) ---- */

typedef enum mpii_barrier_algo {
    MPII_BARRIER_DISSEMINATION = 0,
    MPII_BARRIER_TREE,    /* binomial fan-in to rank 0 and release */
    MPII_BARRIER_RELEASE, /* binomial fan-in, flat release */
    MPII_BARRIER_ALGO_COUNT
} mpii_barrier_algo_t;

typedef enum mpii_bcast_algo {
    MPII_BCAST_BINOMIAL = 0,
    MPII_BCAST_FLAT,
    MPII_BCAST_CHAIN,                /* segmented */
    MPII_BCAST_BINTREE,              /* segmented */
    MPII_BCAST_SCATTER_ALLGATHER,    /* count >= P */
    MPII_BCAST_ALGO_COUNT
} mpii_bcast_algo_t;

typedef enum mpii_reduce_algo {
    MPII_REDUCE_BINOMIAL = 0,        /* commutative ops only */
    MPII_REDUCE_LINEAR,              /* any op, combines in rank order */
    MPII_REDUCE_RABENSEIFNER,        /* commutative, count >= P' */
    MPII_REDUCE_BINOMIAL_ORDERED,    /* any op, combines in rank order */
    MPII_REDUCE_ALGO_COUNT
} mpii_reduce_algo_t;

typedef enum mpii_allreduce_algo {
    MPII_ALLREDUCE_RECURSIVE_DOUBLING = 0, /* commutative ops only */
    MPII_ALLREDUCE_REDUCE_BCAST,           /* any op: reduce to 0, then bcast */
    MPII_ALLREDUCE_RABENSEIFNER,           /* commutative, count >= P' */
    MPII_ALLREDUCE_RING,                   /* commutative, count >= P */
    MPII_ALLREDUCE_ALGO_COUNT
} mpii_allreduce_algo_t;

/* mpi/coll/barrier_dissemination.c */
int mpii_barrier_dissemination(mpii_comm_t *comm);
/* mpi/coll/barrier_tree.c, barrier_release.c. mpii_barrier_fan_in: the
 * binomial fan-in to rank 0 of both; *parent_bit: the distance to the
 * parent (rank 0: the next power of two above its largest child distance). */
int mpii_barrier_fan_in(mpii_comm_t *comm, int *parent_bit);
int mpii_barrier_tree(mpii_comm_t *comm);
int mpii_barrier_release(mpii_comm_t *comm);

/* mpi/coll/tree_map.c: the numbering of a binomial tree's ranks, v = 0 at
 * the root: v = (rank - root) mod p, or on an oversubscribed host the CPUs'
 * ranks in blocks. Valid until the caller's first wait: take parents and
 * children from it before. */
typedef struct mpii_tree_map {
    const int *rank_of; /* v -> comm rank; NULL: (v + root) mod p */
    int root, p;
    int me; /* this rank's v */
} mpii_tree_map_t;
int mpii_coll_tree_map(mpii_comm_t *comm, int root, mpii_tree_map_t *tm);
static inline int mpii_tree_rank(const mpii_tree_map_t *tm, int v)
{
    return tm->rank_of ? tm->rank_of[v] : (v + tm->root) % tm->p;
}

/* mpi/coll/bcast_*.c. seg: segment size in elements (segmented algorithms
 * only, >= 1; the others ignore it). */
int mpii_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm);
int mpii_bcast_flat(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm);
int mpii_bcast_chain(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm);
int mpii_bcast_bintree(void *buf, int count, MPI_Datatype dt, int root, int seg, mpii_comm_t *comm);
/* count >= P */
int mpii_bcast_scatter_allgather(void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *comm);

/* mpi/coll/reduce_binomial.c: commutative ops only.
 * sendbuf may be MPI_IN_PLACE at the root (input then in recvbuf). */
int mpii_reduce_binomial(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, mpii_comm_t *comm);

/* mpi/coll/reduce_linear.c: any op; result is r0 op r1 op ... op r(p-1).
 * sendbuf may be MPI_IN_PLACE at the root. */
int mpii_reduce_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, mpii_comm_t *comm);

/* mpi/coll/reduce_binomial_ordered.c: any op (rank order kept); sendbuf
 * may be MPI_IN_PLACE at the root. */
int mpii_reduce_binomial_ordered(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                 int root, mpii_comm_t *comm);

/* mpi/coll/reduce_rabenseifner.c: commutative ops, count >= P' (largest
 * power of two <= P). sendbuf may be MPI_IN_PLACE at the root. */
int mpii_reduce_rabenseifner(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                             int root, mpii_comm_t *comm);

/* mpi/coll/allreduce_rabenseifner.c (count >= P'), allreduce_ring.c
 * (count >= P): commutative ops only; sendbuf may be MPI_IN_PLACE. */
int mpii_allreduce_rabenseifner(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                mpii_comm_t *comm);
int mpii_allreduce_ring(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                        mpii_comm_t *comm);

/* mpi/coll/allreduce_recursive_doubling.c: commutative ops only.
 * sendbuf may be MPI_IN_PLACE (input then in recvbuf). */
int mpii_allreduce_recursive_doubling(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                                      MPI_Op op, mpii_comm_t *comm);

/* ---- buffer helpers shared by the algorithms (mpi/coll/coll.c) ---- */

/* Allocate room for `count` elements of dt laid out as in a user buffer (so
 * the datatype can be used on it for sends, receives and mpii_op_apply).
 * *buf_p is the pointer to use, *base_p the one to mpii_scratch_free(). Count 0
 * gives a
 * valid, unusable pointer. MPI_SUCCESS or MPI_ERR_NO_MEM. */
/* The requests of a fan-out or fan-in of n messages: on the caller's stack
 * array of MPII_COLL_REQS_STACK up to that many (no malloc per call on the
 * usual communicator sizes), else malloc'd; NULL when that fails. */
#define MPII_COLL_REQS_STACK 32
static inline MPI_Request *mpii_coll_reqs(MPI_Request *stack, size_t n)
{
    return n <= MPII_COLL_REQS_STACK ? stack : malloc(sizeof(MPI_Request) * n);
}
static inline void mpii_coll_reqs_free(MPI_Request *reqs, MPI_Request *stack)
{
    if (reqs != stack)
        free(reqs);
}

int mpii_coll_tmp_alloc(int count, const mpii_datatype_t *dt, void **buf_p, void **base_p);
/* Whether send elements [sfirst, sfirst + sn) of st at sbuf and receive
 * elements [rfirst, rfirst + rn) of rt at rbuf share a byte, both types
 * contiguous (with holes, interleaved buffers may be legal: 0). */
int mpii_coll_bufs_overlap(const void *sbuf, long long sfirst, long long sn, MPI_Datatype st,
                           const void *rbuf, long long rfirst, long long rn, MPI_Datatype rt);

/* Scratch memory of the collectives: a few blocks are kept between calls
 * (up to MPII_SCRATCH_KEEP bytes each), so a collective that needs a
 * temporary vector neither calls mmap nor page-faults it in again. Free
 * with mpii_scratch_free (NULL is ignored); mpii_scratch_release at
 * MPI_Finalize returns the kept blocks. Not thread-safe (the library
 * serves one thread at a time). */
void *mpii_scratch_alloc(size_t n);
void mpii_scratch_free(void *p);
void mpii_scratch_release(void);

/* Copy `count` elements of dt from src to dst (both laid out by dt); touches
 * only the bytes of the type map in dst. No-op when src == dst.
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int mpii_coll_copy(const void *src, void *dst, int count, const mpii_datatype_t *dt);

/* buf + off bytes, computed on integers (buf may be MPI_BOTTOM). */
static inline void *mpii_coll_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* Largest power of two <= n (n >= 1). */
int mpii_coll_pof2_floor(int n);

/* Split `count` elements into n blocks as evenly as possible, the first
 * count % n blocks one element larger: block i starts at element
 * mpii_coll_block_start(count, n, i) and has mpii_coll_block_len(...). */
static inline int mpii_coll_block_start(int count, int n, int i)
{
    int q = count / n, r = count % n;
    return i * q + (i < r ? i : r);
}
static inline int mpii_coll_block_len(int count, int n, int i)
{
    return count / n + (i < count % n ? 1 : 0);
}

/* Recursive-halving reduce-scatter among the P' = pof2 participants of a
 * communicator (mpi/coll/reduce_rabenseifner.c), shared by the Rabenseifner
 * reduce and allreduce. buf holds count elements of this participant's
 * partial input; on return block `newrank` (mpii_coll_block_*(count, pof2,
 * newrank)) of buf holds the full reduction of that block. tmp has room for
 * count elements. to_rank maps a participant number to a comm rank. */
int mpii_coll_reduce_scatter_halving(void *buf, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int newrank,
                                     int pof2, int rem, int tag, mpii_comm_t *comm);

/* The comm rank of participant `newrank` after the fold-in of the
 * Rabenseifner / recursive-doubling algorithms (rem = P - P'): the odd ranks
 * below 2*rem and every rank from 2*rem on. */
static inline int mpii_coll_fold_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* mpi/coll/inter.c: the collectives on an inter-communicator c (checked
 * there; errors through c's handler). */
int mpii_inter_barrier(const char *fn, mpii_comm_t *c);
int mpii_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype dt, int root, mpii_comm_t *c);
int mpii_inter_reduce(const char *fn, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, mpii_comm_t *c);
int mpii_inter_allreduce(const char *fn, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         mpii_comm_t *c);
int mpii_inter_reduce_scatter(const char *fn, const void *sbuf, void *rbuf, int rcount, const int *counts,
                              MPI_Datatype dt, MPI_Op op, mpii_comm_t *c);
int mpii_inter_rooted(const char *fn, int gather, const void *sbuf, int scount, const int *scounts,
                      const int *sdispls, MPI_Datatype st, void *rbuf, int rcount, const int *rcounts,
                      const int *rdispls, MPI_Datatype rt, int root, mpii_comm_t *c);
int mpii_inter_all(const char *fn, int all_to_all, const void *sbuf, int scount, const int *scounts,
                   const int *sdispls, MPI_Datatype st, const MPI_Datatype *stypes, void *rbuf, int rcount,
                   const int *rcounts, const int *rdispls, MPI_Datatype rt, const MPI_Datatype *rtypes,
                   mpii_comm_t *c);

#endif
