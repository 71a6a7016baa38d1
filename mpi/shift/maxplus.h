/*
 * mpi/shift/maxplus.h: a max-plus evaluator of timed event graphs, and the
 * event graph of the Shift halo exchange (MPIX_Shift) built from per-message
 * durations, so a completion time can be predicted from ping-pong times.
 *
 * Algebra. In max-plus, a (+) b = max(a, b) and a (x) b = a + b, with
 * eps = -inf as zero. An event graph with an edge u -> v of weight w means
 * "event v cannot happen before u happened plus w". With A[v][u] = w, the
 * earliest times are the least solution of x = A (x) x (+) x0, i.e.
 * x = A* (x) x0 with A* = E (+) A (+) A^2 (+) ... For an acyclic graph the
 * series is finite and one topological longest-path pass computes it without
 * forming any power of A (mxp_graph_eval). A cycle has no finite answer here
 * (the Shift never has one) and is reported.
 *
 * Pure C (no MPI calls): usable from bench/shift.c and the unit tests.
 */
#ifndef MBMPI_SHIFT_MAXPLUS_H
#define MBMPI_SHIFT_MAXPLUS_H

#include <math.h>

#define MXP_EPS (-INFINITY) /* the max-plus zero: "never" */

enum {
    MXP_OK = 0,
    MXP_ERR_NO_MEMORY = -1,
    MXP_ERR_INVALID = -2, /* bad argument: node id, dims, depth, variant */
    MXP_ERR_CYCLE = -3,   /* the graph is not acyclic */
};

typedef struct mxp_graph {
    int nnodes;
    int node_cap;
    double *x0;   /* initial time of each node (MXP_EPS: none, fires only through edges) */
    int nedges;
    int edge_cap;
    int *efrom;   /* edge i: efrom[i] -> eto[i], weight ew[i] */
    int *eto;
    double *ew;
} mxp_graph_t;

void mxp_graph_init(mxp_graph_t *g);
void mxp_graph_free(mxp_graph_t *g);
/* Add a node with initial time x0; returns its id (>= 0) or MXP_ERR_NO_MEMORY. */
int mxp_node_add(mxp_graph_t *g, double x0);
/* x[to] >= x[from] + w. */
int mxp_edge_add(mxp_graph_t *g, int from, int to, double w);
/* x = A* (x) x0 by one topological longest-path pass; x has g->nnodes entries. */
int mxp_graph_eval(const mxp_graph_t *g, double *x);

/* ---- message durations ---- */

/* Kinds of duration, in seconds (any unit works if used consistently). */
enum {
    MXP_T_SEND = 0,  /* one-way time of a standard send (half a ping-pong round trip) */
    MXP_T_SSEND = 1, /* one-way time of a synchronous send (half an Ssend ping-pong) */
    MXP_T_OVERHEAD = 2, /* time a sender spends in an eager send that it does not wait for */
    MXP_T_KINDS = 3,
};

/* Durations as a function of the message size: latency + bytes / bandwidth
 * when ntab == 0, else a table (ntab sizes, increasing) interpolated
 * linearly, extrapolated from its last two points above its last size,
 * and constant below its first. */
typedef struct mxp_cost {
    double lat[MXP_T_KINDS];
    double sec_per_byte[MXP_T_KINDS];
    int ntab;
    const double *tab_bytes;
    const double *tab_t[MXP_T_KINDS];
    double eager_limit; /* largest payload MPI_Send / MPI_Isend sends eagerly */
    int one_port;       /* 1: a rank pushes one message at a time (see below) */
    /* > 0: the messages share the machine: the exchange takes at least the
     * sum of its message times divided by work_div (how many messages of
     * the measured kind run at once, e.g. the pairs of a concurrent
     * ping-pong, whose times already include their share of the CPUs). */
    double work_div;
} mxp_cost_t;

double mxp_cost_time(const mxp_cost_t *c, int kind, double bytes);

/* ---- the Shift ---- */

/* Same values as MPIX_SHIFT_SSEND, MPIX_SHIFT_SEND, MPIX_SHIFT_NONBLOCKING. */
enum {
    MXP_SHIFT_SSEND = 0,
    MXP_SHIFT_SEND = 1,
    MXP_SHIFT_NONBLOCKING = 2,
};

typedef struct mxp_shift_spec {
    int dims[3];
    int periods[3];
    int depth;
    int variant;
    double slot_bytes; /* bytes of one rank's payload (count x type size) */
} mxp_shift_spec_t;

typedef struct mxp_shift_result {
    double tmax;       /* max-plus: completion time of the slowest rank, at least twork */
    double tgraph;     /* the event graph's longest path alone */
    double twork;      /* msg_time_sum / cost->work_div (0 without work_div) */
    double msg_time_sum; /* the sum of every message's time */
    double simple;     /* the seed's model: one message time per sequential exchange */
    int nmsgs;         /* messages in the whole exchange */
    int eager_msgs;    /* of which the model treats as eager */
    int nnodes;        /* size of the event graph */
    int nedges;
} mxp_shift_result_t;

/* Build the Shift's event graph for spec and evaluate it (all ranks start at
 * time 0). The blocking variants send one message at a time anyway; for the
 * non-blocking one, cost->one_port = 0 lets a rank's messages overlap fully
 * (a lower bound: both directions at once cost one message time), 1 makes
 * each rank's sends start one after the other in step order (+1, -1, +2, -2
 * ... of each axis), each occupying the rank for its whole message time (an
 * upper bound when a message's time is mostly CPU time, as over shm).
 * rank_t (may be NULL) receives each rank's completion time, indexed by
 * Cartesian rank (row-major, as MPI_Cart_rank). */
int mxp_shift_predict(const mxp_shift_spec_t *spec, const mxp_cost_t *cost, double *rank_t,
                      mxp_shift_result_t *res);

/* Build the graph only (for inspection and tests): fin (may be NULL, one
 * entry per rank) receives the id of each rank's final node. */
int mxp_shift_graph(const mxp_shift_spec_t *spec, const mxp_cost_t *cost, mxp_graph_t *g, int *fin,
                    mxp_shift_result_t *res);

/* The simple model alone. */
double mxp_shift_simple(const mxp_shift_spec_t *spec, const mxp_cost_t *cost);

#endif
