/*
 * mpi/coll/model.h: model-based choice of the collective algorithms (not
 * installed).
 *
 * Every collective operation has a list of algorithms (the enums of coll.h
 * and coll_more.h, same order), each with a pLogP cost function and the
 * conditions under which it applies. mpii_coll_select() evaluates every
 * applicable one for (op, P, m) and returns the cheapest, unless
 * MBMPI_<OP>_ALGO or MPIX_Coll_force forced one. Segmented algorithms get
 * their segment size from the same search (s = m / 2^i, the seed's method).
 * Choices are cached per (op, communicator, m, count, commutativity) in
 * fixed arrays, so the hot path never allocates.
 */
#ifndef MPI_COLL_MODEL_H
#define MPI_COLL_MODEL_H

#include "../mpi_impl.h"
#include "plogp.h"

#include <stddef.h>

typedef enum mpii_coll_op {
    MPII_COLL_BARRIER = 0,
    MPII_COLL_BCAST,
    MPII_COLL_REDUCE,
    MPII_COLL_ALLREDUCE,
    MPII_COLL_SCATTER,
    MPII_COLL_GATHER,
    MPII_COLL_ALLGATHER,
    MPII_COLL_ALLTOALL,
    MPII_COLL_SCATTERV,
    MPII_COLL_GATHERV,
    MPII_COLL_ALLGATHERV,
    MPII_COLL_ALLTOALLV,
    MPII_COLL_REDUCE_SCATTER,
    MPII_COLL_REDUCE_SCATTER_BLOCK,
    MPII_COLL_SCAN,
    MPII_COLL_EXSCAN,
    MPII_COLL_OP_COUNT
} mpii_coll_op_t;

/* Configuration read by mpi/init.c's table (MBMPI_<OP>_ALGO,
 * MBMPI_PLOGP_FILE, MBMPI_COLL_VERBOSE) before mpii_coll_init(). */
extern const char *mpii_coll_cfg_algo[MPII_COLL_OP_COUNT];
extern const char *mpii_coll_cfg_plogp_file;
extern long mpii_coll_cfg_verbose;

/* Load the pLogP parameters (MBMPI_PLOGP_FILE, else the built-in set for
 * `provider`: shm for names containing "shm" or NULL (one rank), tcp
 * otherwise) and parse the MBMPI_<OP>_ALGO names. MPI_SUCCESS, or
 * MPI_ERR_OTHER after printing why on stderr (MPI_Init must then fail).
 * With MBMPI_COLL_VERBOSE, world rank 0 says which parameters it uses. */
int mpii_coll_init(const char *provider, int rank);
/* 1: oversubscribed over mbshm, a Bcast's big messages are read by their
 * receivers (tl_shmem_fanout_reads), and the model prices them so. */
void mpii_coll_set_fanout_reads(int on);
/* Messages of min bytes or more are read whole by their receivers when
 * ranks outnumber CPUs (mbshm's rendezvous reads; 0: none): the model
 * prices them as pulled single copies there. */
void mpii_coll_set_rendezvous_reads(double min);
/* A Bcast's, a flat Scatter's or Gather's and an exchange's messages of min
 * bytes or more are read by their receivers, eager sizes included
 * (MBMPI_COLL_READ_MIN; 0: none): over mbshm the model prices them by the
 * parameter file's "read" lines. */
void mpii_coll_set_collective_reads(double min);
/* The largest payload sent eagerly (MBMPI_EAGER_LIMIT): a root's sends up
 * to it complete on its own CPU, and the model takes them off the CPU work
 * that can hold up the critical path they are on (timed). */
void mpii_coll_set_eager_limit(double bytes);

/* The algorithm to run for op on comm with `bytes` per rank as MPIX_Coll_
 * predict defines m, `count` elements (for the conditions "count >= P") and
 * the op's commutativity (1 where there is no op). *seg_bytes receives the
 * segment size for segmented algorithms (else bytes). Same answer at every
 * rank given the same arguments. */
int mpii_coll_select(mpii_coll_op_t op, mpii_comm_t *comm, size_t bytes, long count, int commutative,
                     size_t *seg_bytes);

/* Segment size in whole elements of elem_size bytes (>= 1). */
int mpii_coll_seg_elems(size_t seg_bytes, size_t elem_size);

/* ---- for coll_ext.c (MPIX_Coll_*) ---- */
int mpii_coll_op_by_name(const char *name); /* -1 if unknown */
int mpii_coll_algo_count(mpii_coll_op_t op);
const char *mpii_coll_algo_name(mpii_coll_op_t op, int algo);
int mpii_coll_algo_by_name(mpii_coll_op_t op, const char *name); /* -1 if unknown */
/* algo -1: back to the model. */
void mpii_coll_force(mpii_coll_op_t op, int algo);
/* Predicted microseconds of algo (-1: the model's choice, stored in
 * *chosen) for P ranks and m bytes; < 0 when algo does not apply. The
 * element count behind m is taken as m (1-byte elements) for data movement
 * and m / 4 for the reductions (m >= 4), commutative op. */
double mpii_coll_predict(mpii_coll_op_t op, int algo, int P, double m, int *chosen);

#endif
