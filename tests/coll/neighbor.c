/*
 * neighbor: the neighborhood collectives on Cartesian topologies
 * (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w), their
 * MPI_Ineighbor_* and MPI 4.0 _init forms).
 *
 * On several grids (1-D periodic and not, 2-D with one periodic dimension,
 * and periodic dimensions of size 1 and 2, where the same rank is a
 * neighbor twice, in both directions) every rank checks each received
 * block against what its neighbor sent (found with MPI_Cart_shift): block
 * k comes from neighbor k, which sent it as its block k ^ 1 (the opposite
 * direction); blocks of MPI_PROC_NULL neighbors stay untouched. Each
 * operation runs blocking, nonblocking and persistent (started twice).
 * Graph topologies (MPI_Graph_create: a ring, parallel edges at P <= 2;
 * ranks outside the graph get MPI_COMM_NULL) and distributed graphs
 * (MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create, each rank
 * sending to r + 1 twice and r + 2 once, weighted) check the queries
 * (MPI_Graph_neighbors*, MPI_Graphdims_get, MPI_Dist_graph_neighbors*,
 * MPI_Topo_test, the topology kept by MPI_Comm_dup) and the exchanges:
 * the j-th copy of a parallel edge must carry the j-th message.
 * Errors: a communicator without topology is MPI_ERR_TOPOLOGY; a negative
 * count MPI_ERR_COUNT.
 * Prints "neighbor: ok" on success; a failed check aborts the job.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAILX(...)                                                                                           \
    do {                                                                                                     \
        fprintf(stderr, "FAIL neighbor (rank %d): ", wrank);                                                 \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fprintf(stderr, "\n");                                                                               \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

enum { MAXN = 8, W = 8, UNTOUCHED = -7 };

static int wrank;

/* element i of the block rank r sends to its neighbor k, in round t */
static int val(int r, int k, int i, int t)
{
    return r * 10000 + k * 100 + i + t * 1000000;
}

typedef struct {
    MPI_Comm comm;
    int n, rank, nbr[MAXN];
} grid_t;

static void grid_make(grid_t *g, int ndims, const int *dims, const int *periods)
{
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &g->comm);
    g->n = 2 * ndims;
    if (g->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(g->comm, &g->rank);
    for (int d = 0; d < ndims; d++)
        MPI_Cart_shift(g->comm, d, 1, &g->nbr[2 * d], &g->nbr[2 * d + 1]);
}

/* mode 0 blocking, 1 nonblocking, 2 persistent (started twice) */
static void run(int mode, int op, grid_t *g, int *sbuf, int *rbuf, int round)
{
    int n = g->n, scnt[MAXN], sdsp[MAXN], rcnt[MAXN], rdsp[MAXN];
    MPI_Aint sdspa[MAXN], rdspa[MAXN];
    MPI_Datatype ty[MAXN];
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;

    for (int k = 0; k < n; k++) {
        scnt[k] = k + 1; /* v and w: block k has k + 1 elements */
        rcnt[k] = (k ^ 1) + 1;
        sdsp[k] = k * W;
        rdsp[k] = k * W;
        sdspa[k] = (MPI_Aint)(k * W * sizeof(int));
        rdspa[k] = (MPI_Aint)(k * W * sizeof(int));
        ty[k] = MPI_INT;
    }
    for (int rep = 0; rep < (mode == 2 ? 2 : 1); rep++) {
        int t = round * 3 + rep;
        for (int k = 0; k < n; k++)
            for (int i = 0; i < W; i++)
                sbuf[k * W + i] = op < 2 ? val(g->rank, 0, i, t) : val(g->rank, k, i, t);
        for (int i = 0; i < n * W; i++)
            rbuf[i] = UNTOUCHED;
        if (mode == 0) {
            switch (op) {
            case 0:
                rc = MPI_Neighbor_allgather(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm);
                break;
            case 1:
                rc = MPI_Neighbor_allgatherv(sbuf, W, MPI_INT, rbuf, (int[MAXN]){W, W, W, W, W, W, W, W},
                                             rdsp, MPI_INT, g->comm);
                break;
            case 2:
                rc = MPI_Neighbor_alltoall(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm);
                break;
            case 3:
                rc = MPI_Neighbor_alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, g->comm);
                break;
            default:
                rc = MPI_Neighbor_alltoallw(sbuf, scnt, sdspa, ty, rbuf, rcnt, rdspa, ty, g->comm);
            }
        } else {
            static int full[MAXN] = {W, W, W, W, W, W, W, W};
            if (rep == 0 || mode == 1) {
                switch (op * 2 + (mode == 2)) {
                case 0:
                    rc = MPI_Ineighbor_allgather(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm, &r);
                    break;
                case 1:
                    rc = MPI_Neighbor_allgather_init(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm,
                                                     MPI_INFO_NULL, &r);
                    break;
                case 2:
                    rc = MPI_Ineighbor_allgatherv(sbuf, W, MPI_INT, rbuf, full, rdsp, MPI_INT, g->comm, &r);
                    break;
                case 3:
                    rc = MPI_Neighbor_allgatherv_init(sbuf, W, MPI_INT, rbuf, full, rdsp, MPI_INT, g->comm,
                                                      MPI_INFO_NULL, &r);
                    break;
                case 4:
                    rc = MPI_Ineighbor_alltoall(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm, &r);
                    break;
                case 5:
                    rc = MPI_Neighbor_alltoall_init(sbuf, W, MPI_INT, rbuf, W, MPI_INT, g->comm,
                                                    MPI_INFO_NULL, &r);
                    break;
                case 6:
                    rc = MPI_Ineighbor_alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT,
                                                 g->comm, &r);
                    break;
                case 7:
                    rc = MPI_Neighbor_alltoallv_init(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT,
                                                     g->comm, MPI_INFO_NULL, &r);
                    break;
                case 8:
                    rc = MPI_Ineighbor_alltoallw(sbuf, scnt, sdspa, ty, rbuf, rcnt, rdspa, ty, g->comm, &r);
                    break;
                default:
                    rc = MPI_Neighbor_alltoallw_init(sbuf, scnt, sdspa, ty, rbuf, rcnt, rdspa, ty, g->comm,
                                                     MPI_INFO_NULL, &r);
                }
            }
            if (rc == MPI_SUCCESS && mode == 2)
                rc = MPI_Start(&r);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            FAILX("op %d mode %d returned %d", op, mode, rc);
        /* check */
        for (int k = 0; k < n; k++) {
            int len = op < 3 ? W : (k ^ 1) + 1;
            for (int i = 0; i < W; i++) {
                int want;
                if (g->nbr[k] == MPI_PROC_NULL || i >= len)
                    want = UNTOUCHED;
                else
                    want = op < 2 ? val(g->nbr[k], 0, i, t) : val(g->nbr[k], k ^ 1, i, t);
                if (rbuf[k * W + i] != want)
                    FAILX("op %d mode %d: block %d (neighbor %d) [%d] = %d, expected %d", op, mode, k,
                          g->nbr[k], i, rbuf[k * W + i], want);
            }
        }
    }
    if (mode == 2 && MPI_Request_free(&r) != MPI_SUCCESS)
        FAILX("MPI_Request_free of a persistent neighborhood collective");
}

static void check_grid(int ndims, const int *dims, const int *periods, int round)
{
    grid_t g;
    int sbuf[MAXN * W], rbuf[MAXN * W];
    grid_make(&g, ndims, dims, periods);
    if (g.comm == MPI_COMM_NULL)
        return;
    for (int op = 0; op < 5; op++)
        for (int mode = 0; mode < 3; mode++)
            run(mode, op, &g, sbuf, rbuf, round);
    MPI_Comm_free(&g.comm);
}

/* how many of list[0..k) equal list[k] */
static int occurrence(const int *list, int k)
{
    int o = 0;
    for (int j = 0; j < k; j++)
        o += list[j] == list[k];
    return o;
}

/* Exchanges over any topology whose in/out lists are known here: block j
 * to out[j] carries (me, occurrence of out[j] in out up to j); block k
 * from in[k] must carry (in[k], occurrence of in[k] in in up to k). */
static void check_lists(MPI_Comm comm, const int *in, int nin, const int *out, int nout, const char *what)
{
    int me, sb[64], rb[64], ag[64], rc;
    MPI_Request r;
    MPI_Comm_rank(comm, &me);
    if (nin > 64 || nout > 64)
        FAILX("%s: degree over 64", what);
    for (int mode = 0; mode < 3; mode++) {
        for (int rep = 0; rep < (mode == 2 ? 2 : 1); rep++) {
            for (int j = 0; j < nout; j++)
                sb[j] = me * 1000 + occurrence(out, j) + 100 * rep;
            for (int k = 0; k < nin; k++)
                rb[k] = ag[k] = UNTOUCHED;
            int x = me + 100 * rep;
            if (mode == 0) {
                rc = MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm);
                rc |= MPI_Neighbor_allgather(&x, 1, MPI_INT, ag, 1, MPI_INT, comm);
            } else if (mode == 1) {
                MPI_Request r2;
                rc = MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &r);
                rc |= MPI_Ineighbor_allgather(&x, 1, MPI_INT, ag, 1, MPI_INT, comm, &r2);
                rc |= MPI_Wait(&r2, MPI_STATUS_IGNORE);
                rc |= MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                static MPI_Request pr;
                if (rep == 0)
                    rc = MPI_Neighbor_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, MPI_INFO_NULL, &pr);
                else
                    rc = MPI_SUCCESS;
                rc |= MPI_Start(&pr);
                rc |= MPI_Wait(&pr, MPI_STATUS_IGNORE);
                rc |= MPI_Neighbor_allgather(&x, 1, MPI_INT, ag, 1, MPI_INT, comm);
                if (rep == 1)
                    rc |= MPI_Request_free(&pr);
            }
            if (rc != MPI_SUCCESS)
                FAILX("%s mode %d: a call failed", what, mode);
            for (int k = 0; k < nin; k++) {
                if (rb[k] != in[k] * 1000 + occurrence(in, k) + 100 * rep)
                    FAILX("%s mode %d: alltoall block %d from %d = %d, expected %d", what, mode, k, in[k],
                          rb[k], in[k] * 1000 + occurrence(in, k) + 100 * rep);
                if (ag[k] != in[k] + 100 * rep)
                    FAILX("%s mode %d: allgather block %d from %d = %d", what, mode, k, in[k], ag[k]);
            }
        }
    }
}

static void check_graph(int nnodes)
{
    int p, index[64], edges[128], nbr[8], n, ne, kind;
    MPI_Comm g, d;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (nnodes < 1 || nnodes > 64)
        return;
    for (int i = 0; i < nnodes; i++) {
        edges[2 * i] = (i + nnodes - 1) % nnodes;
        edges[2 * i + 1] = (i + 1) % nnodes;
        index[i] = 2 * (i + 1);
    }
    MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g);
    if (wrank >= nnodes) {
        if (g != MPI_COMM_NULL)
            FAILX("rank %d outside a graph of %d nodes got a communicator", wrank, nnodes);
        return;
    }
    MPI_Topo_test(g, &kind);
    if (kind != MPI_GRAPH)
        FAILX("MPI_Topo_test of a graph: %d", kind);
    MPI_Graphdims_get(g, &n, &ne);
    if (n != nnodes || ne != 2 * nnodes)
        FAILX("MPI_Graphdims_get: %d nodes %d edges", n, ne);
    MPI_Graph_neighbors_count(g, wrank, &n);
    MPI_Graph_neighbors(g, wrank, 8, nbr);
    if (n != 2 || nbr[0] != edges[2 * wrank] || nbr[1] != edges[2 * wrank + 1])
        FAILX("MPI_Graph_neighbors: %d: %d %d", n, nbr[0], nbr[1]);
    check_lists(g, nbr, 2, nbr, 2, "graph");
    MPI_Comm_dup(g, &d); /* keeps the topology */
    MPI_Topo_test(d, &kind);
    if (kind != MPI_GRAPH)
        FAILX("MPI_Comm_dup lost the graph topology");
    check_lists(d, nbr, 2, nbr, 2, "dup of graph");
    MPI_Comm_free(&d);
    MPI_Comm_free(&g);
}

static void check_dist_graph(void)
{
    int p, me, in[3], out[3], w_in[3], w_out[3], gin[3], gout[3], gwi[3], gwo[3], indeg, outdeg, weighted,
        kind;
    MPI_Comm g, g2;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    me = wrank;
    for (int j = 0; j < 3; j++) {
        int off = j == 1 ? 2 : 1;
        out[j] = (me + off) % p;
        in[j] = ((me - off) % p + p) % p;
        w_out[j] = 10 + j;
        w_in[j] = 10 + j;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, w_in, 3, out, w_out, MPI_INFO_NULL, 0, &g);
    MPI_Topo_test(g, &kind);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    if (kind != MPI_DIST_GRAPH || indeg != 3 || outdeg != 3 || !weighted)
        FAILX("adjacent dist graph: kind %d degrees %d %d weighted %d", kind, indeg, outdeg, weighted);
    MPI_Dist_graph_neighbors(g, 3, gin, gwi, 3, gout, gwo);
    for (int j = 0; j < 3; j++)
        if (gin[j] != in[j] || gout[j] != out[j] || gwi[j] != 10 + j || gwo[j] != 10 + j)
            FAILX("MPI_Dist_graph_neighbors [%d]: %d %d %d %d", j, gin[j], gout[j], gwi[j], gwo[j]);
    check_lists(g, in, 3, out, 3, "adjacent dist graph");
    MPI_Comm_free(&g);
    /* the same edges, each rank naming its own out-edges */
    int src = me, deg = 3;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, out, w_out, MPI_INFO_NULL, 0, &g2);
    MPI_Dist_graph_neighbors_count(g2, &indeg, &outdeg, &weighted);
    if (indeg != 3 || outdeg != 3 || !weighted)
        FAILX("dist graph: degrees %d %d weighted %d", indeg, outdeg, weighted);
    MPI_Dist_graph_neighbors(g2, 3, gin, gwi, 3, gout, gwo);
    {
        int cnt_in[2] = {0, 0}, cnt_out[2] = {0, 0};
        for (int j = 0; j < 3; j++) {
            /* the lists' order is the library's; the multisets are fixed */
            cnt_in[0] += gin[j] == in[0];
            cnt_in[1] += gin[j] == in[1];
            cnt_out[0] += gout[j] == out[0];
            cnt_out[1] += gout[j] == out[1];
        }
        if ((in[0] != in[1] && (cnt_in[0] != 2 || cnt_in[1] != 1)) ||
            (out[0] != out[1] && (cnt_out[0] != 2 || cnt_out[1] != 1)))
            FAILX("MPI_Dist_graph_create: wrong neighbors");
    }
    check_lists(g2, gin, 3, gout, 3, "dist graph");
    MPI_Comm_free(&g2);
    /* no edges at all, unweighted */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    if (indeg || outdeg || weighted)
        FAILX("empty dist graph: %d %d %d", indeg, outdeg, weighted);
    check_lists(g, NULL, 0, NULL, 0, "empty dist graph");
    MPI_Comm_free(&g);
}

static void check_errors(void)
{
    int x = 0, y[2], rc, cls, dims[1] = {0}, periods[1] = {1};
    MPI_Comm cart;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TOPOLOGY)
        FAILX("Neighbor_allgather without topology: class %d, expected MPI_ERR_TOPOLOGY", cls);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    rc = MPI_Neighbor_alltoall(&x, -1, MPI_INT, y, 1, MPI_INT, cart);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT)
        FAILX("Neighbor_alltoall with count -1: class %d, expected MPI_ERR_COUNT", cls);
    /* MPI_IN_PLACE is not defined for neighborhood collectives */
    rc = MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, cart);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_BUFFER)
        FAILX("Neighbor_allgather with MPI_IN_PLACE: class %d, expected MPI_ERR_BUFFER", cls);
    MPI_Comm_free(&cart);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int p, round = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    {
        int d[1] = {p}, per[1] = {1};
        check_grid(1, d, per, round++); /* ring */
        per[0] = 0;
        check_grid(1, d, per, round++); /* line */
    }
    {
        int d[2] = {0, 0}, per[2] = {1, 0};
        MPI_Dims_create(p, 2, d);
        check_grid(2, d, per, round++);
    }
    {
        int d[3] = {p, 1, 1}, per[3] = {1, 1, 0}; /* size-1 periodic: self twice */
        check_grid(3, d, per, round++);
    }
    if (p % 2 == 0) {
        int d[2] = {2, p / 2}, per[2] = {1, 1}; /* size 2 periodic: one neighbor both ways */
        check_grid(2, d, per, round++);
    }
    if (p > 1) {
        int d[1] = {p - 1}, per[1] = {1}; /* the last rank is outside the grid */
        check_grid(1, d, per, round++);
    }
    check_graph(p);
    check_graph(p > 1 ? p - 1 : 1);
    check_dist_graph();
    check_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("neighbor: ok\n");
    MPI_Finalize();
    return 0;
}
