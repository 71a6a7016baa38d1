/*
 * mpi/topo_graph.c: graph and distributed graph topologies (MPI 3.1 7.5.3,
 * 7.5.4, 7.5.5), MPI_Cart_map / MPI_Graph_map, and the copy and release of
 * every topology with its communicator.
 *
 * A graph communicator is made by MPI_Comm_split (ranks nnodes and up get
 * MPI_COMM_NULL) and keeps the whole graph (index, edges) as given. A
 * distributed graph communicator is a duplicate of comm_old that keeps this
 * rank's sources and destinations (and weights). reorder is ignored, as
 * the standard allows.
 *
 * MPI_Dist_graph_create: every rank may name edges of any other, so the
 * edges are sent to both ends (one MPI_Alltoall of counts, one
 * MPI_Alltoallv of (source, destination, weight) triples on comm_old). Each
 * rank sorts what it got by (source, destination, origin rank, position
 * there): its list of sources and its list of destinations then order the
 * parallel edges of one pair alike, which is what the neighborhood
 * collectives (mpi/coll/neighbor.c) need to match them.
 */
#include "mpi_impl.h"
#include "mpi/mpi3.h"

#include <stdlib.h>
#include <string.h>

/* what MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY point to (mpi.h) */
int mbmpi_unweighted_[1];
int mbmpi_weights_empty_[1];

static int *dup_ints(const int *src, int n)
{
    int *d = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (d && n > 0)
        memcpy(d, src, (size_t)n * sizeof(int));
    return d;
}

void mpii_topo_free(mpii_comm_t *c)
{
    free(c->dims);
    free(c->periods);
    free(c->g_index);
    free(c->g_edges);
    free(c->d_src);
    free(c->d_srcw);
    free(c->d_dst);
    free(c->d_dstw);
    c->dims = c->periods = c->g_index = c->g_edges = NULL;
    c->d_src = c->d_srcw = c->d_dst = c->d_dstw = NULL;
    c->topo_kind = 0;
}

int mpii_topo_dup(mpii_comm_t *dst, const mpii_comm_t *src)
{
    int ok = 1;
    dst->topo_kind = src->topo_kind;
    switch (src->topo_kind) {
    case MPI_CART:
        dst->ndims = src->ndims;
        ok = (dst->dims = dup_ints(src->dims, src->ndims)) &&
             (dst->periods = dup_ints(src->periods, src->ndims));
        break;
    case MPI_GRAPH:
        dst->g_nnodes = src->g_nnodes;
        ok = (dst->g_index = dup_ints(src->g_index, src->g_nnodes)) &&
             (dst->g_edges = dup_ints(src->g_edges, src->g_nnodes ? src->g_index[src->g_nnodes - 1] : 0));
        break;
    case MPI_DIST_GRAPH:
        dst->d_indeg = src->d_indeg;
        dst->d_outdeg = src->d_outdeg;
        dst->d_weighted = src->d_weighted;
        ok = (dst->d_src = dup_ints(src->d_src, src->d_indeg)) &&
             (dst->d_dst = dup_ints(src->d_dst, src->d_outdeg));
        if (ok && src->d_weighted)
            ok = (dst->d_srcw = dup_ints(src->d_srcw, src->d_indeg)) &&
                 (dst->d_dstw = dup_ints(src->d_dstw, src->d_outdeg));
        break;
    default:
        break;
    }
    if (!ok) {
        mpii_topo_free(dst);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* graphs                                                              */

/* comm, if valid and of topology kind (MPI_GRAPH or MPI_DIST_GRAPH) */
static mpii_comm_t *topo_get(const char *fn, MPI_Comm comm, int kind, int *rc)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    if (!c) {
        *rc = mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
        return NULL;
    }
    if (c->topo_kind != kind) {
        *rc = mpii_err(c, MPI_ERR_TOPOLOGY, fn, "communicator has no %s topology",
                       kind == MPI_GRAPH ? "graph" : "distributed graph");
        return NULL;
    }
    return c;
}

/* The checks every constructor makes first: MPI initialized, comm_old
 * valid, the output pointer given. */
static int create_check(const char *fn, MPI_Comm comm_old, const MPI_Comm *out, mpii_comm_t **c_p)
{
    *c_p = NULL;
    MPII_CHECK_INIT(fn);
    *c_p = mpii_comm_get(comm_old);
    if (!*c_p)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm_old);
    if ((*c_p)->is_inter)
        return mpii_err(*c_p, MPI_ERR_COMM, fn, "communicator %d is an inter-communicator", (int)comm_old);
    if (!out)
        return mpii_err(*c_p, MPI_ERR_ARG, fn, "the new communicator's pointer is NULL");
    return MPI_SUCCESS;
}

/* index[] non-decreasing from >= 0, edges[] in [0, nnodes) */
static int graph_check(mpii_comm_t *c, const char *fn, int nnodes, const int index[], const int edges[])
{
    if (nnodes < 0 || nnodes > c->size)
        return mpii_err(c, MPI_ERR_ARG, fn, "nnodes %d outside 0..%d", nnodes, c->size);
    if (nnodes > 0 && !index)
        return mpii_err(c, MPI_ERR_ARG, fn, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpii_err(c, MPI_ERR_ARG, fn, "index[%d] = %d is smaller than the one before", i, index[i]);
    if (nnodes > 0 && index[nnodes - 1] > 0 && !edges)
        return mpii_err(c, MPI_ERR_ARG, fn, "edges is NULL");
    for (int i = 0; nnodes > 0 && i < index[nnodes - 1]; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return mpii_err(c, MPI_ERR_RANK, fn, "edges[%d] = %d is not a node of 0..%d", i, edges[i],
                            nnodes - 1);
    return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    mpii_comm_t *c = NULL, *nc;
    int rc;
    (void)reorder;
    if ((rc = create_check(fn, comm_old, comm_graph, &c)) != MPI_SUCCESS)
        return rc;
    rc = graph_check(c, fn, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_split(comm_old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank, comm_graph);
    if (rc != MPI_SUCCESS || *comm_graph == MPI_COMM_NULL)
        return rc;
    nc = mpii_comm_get(*comm_graph);
    nc->topo_kind = MPI_GRAPH;
    nc->g_nnodes = nnodes;
    nc->g_index = dup_ints(index, nnodes);
    nc->g_edges = dup_ints(edges, index[nnodes - 1]);
    if (!nc->g_index || !nc->g_edges) {
        MPI_Comm_free(comm_graph);
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char fn[] = "MPI_Graphdims_get";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_GRAPH, &rc)))
        return rc;
    if (!nnodes || !nedges)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !nnodes ? "nnodes" : "nedges");
    *nnodes = c->g_nnodes;
    *nedges = c->g_nnodes ? c->g_index[c->g_nnodes - 1] : 0;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    mpii_comm_t *c;
    int rc, ne;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_GRAPH, &rc)))
        return rc;
    if (maxindex < 0 || maxedges < 0)
        return mpii_err(c, MPI_ERR_ARG, fn, "negative maxindex %d or maxedges %d", maxindex, maxedges);
    if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return mpii_err(c, MPI_ERR_ARG, fn, "index or edges is NULL");
    ne = c->g_nnodes ? c->g_index[c->g_nnodes - 1] : 0;
    for (int i = 0; i < maxindex && i < c->g_nnodes; i++)
        index[i] = c->g_index[i];
    for (int i = 0; i < maxedges && i < ne; i++)
        edges[i] = c->g_edges[i];
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_GRAPH, &rc)))
        return rc;
    if (rank < 0 || rank >= c->g_nnodes)
        return mpii_err(c, MPI_ERR_RANK, fn, "invalid rank %d", rank);
    if (!nneighbors)
        return mpii_err(c, MPI_ERR_ARG, fn, "nneighbors is NULL");
    *nneighbors = c->g_index[rank] - (rank ? c->g_index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    mpii_comm_t *c;
    int rc, first;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_GRAPH, &rc)))
        return rc;
    if (rank < 0 || rank >= c->g_nnodes)
        return mpii_err(c, MPI_ERR_RANK, fn, "invalid rank %d", rank);
    if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors))
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid maxneighbors %d or neighbors NULL", maxneighbors);
    first = rank ? c->g_index[rank - 1] : 0;
    for (int i = 0; i < maxneighbors && first + i < c->g_index[rank]; i++)
        neighbors[i] = c->g_edges[first + i];
    return MPI_SUCCESS;
}

/* MPI_Graph_map, MPI_Cart_map: no reordering, so rank r keeps its place
 * if the topology has one for it */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char fn[] = "MPI_Graph_map";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (nnodes < 1)
        return mpii_err(c, MPI_ERR_ARG, fn, "nnodes %d is not positive", nnodes);
    rc = graph_check(c, fn, nnodes, index, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newrank)
        return mpii_err(c, MPI_ERR_ARG, fn, "newrank is NULL");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    mpii_comm_t *c;
    long long prod = 1;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
        return mpii_err(c, MPI_ERR_DIMS, fn, "invalid ndims %d or dims/periods NULL", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpii_err(c, MPI_ERR_DIMS, fn, "invalid dims[%d] = %d", i, dims[i]);
        prod *= dims[i];
        if (prod > c->size)
            return mpii_err(c, MPI_ERR_DIMS, fn, "the grid has more points than %d processes", c->size);
    }
    if (!newrank)
        return mpii_err(c, MPI_ERR_ARG, fn, "newrank is NULL");
    *newrank = c->rank < prod ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* distributed graphs                                                  */

static int is_unweighted(const int *w)
{
    return w == MPI_UNWEIGHTED;
}

/* attach (sources, destinations) to a duplicate of comm_old; takes the
 * arrays (weights NULL when unweighted) */
static int dist_attach(const char *fn, mpii_comm_t *c, MPI_Comm comm_old, int indeg, int *src, int *srcw,
                       int outdeg, int *dst, int *dstw, int weighted, MPI_Comm *newcomm)
{
    mpii_comm_t *nc;
    int rc;
    if ((indeg && !src) || (outdeg && !dst) || (weighted && ((indeg && !srcw) || (outdeg && !dstw)))) {
        rc = mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        goto fail;
    }
    rc = MPI_Comm_dup(comm_old, newcomm);
    if (rc != MPI_SUCCESS)
        goto fail;
    nc = mpii_comm_get(*newcomm);
    mpii_topo_free(nc); /* a duplicate of a topology communicator has its topology */
    nc->topo_kind = MPI_DIST_GRAPH;
    nc->d_indeg = indeg;
    nc->d_outdeg = outdeg;
    nc->d_weighted = weighted;
    nc->d_src = src;
    nc->d_srcw = srcw;
    nc->d_dst = dst;
    nc->d_dstw = dstw;
    return MPI_SUCCESS;
fail:
    free(src);
    free(srcw);
    free(dst);
    free(dstw);
    return rc;
}

static int check_ranks(mpii_comm_t *c, const char *fn, const char *what, const int *r, int n)
{
    if (n < 0)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s degree %d is negative", what, n);
    if (n > 0 && !r)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= c->size)
            return mpii_err(c, MPI_ERR_RANK, fn, "%s[%d] = %d is not a rank", what, i, r[i]);
    return MPI_SUCCESS;
}

static int check_weights(mpii_comm_t *c, const char *fn, const char *what, const int *w, int n)
{
    if (w == MPI_UNWEIGHTED || (w == MPI_WEIGHTS_EMPTY && n == 0))
        return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is MPI_WEIGHTS_EMPTY for %d edges", what, n);
    if (n > 0 && !w)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return mpii_err(c, MPI_ERR_ARG, fn, "%s[%d] = %d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int destinations[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    mpii_comm_t *c = NULL;
    int rc, weighted;
    (void)reorder;
    if ((rc = create_check(fn, comm_old, comm_dist_graph, &c)) != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(c, MPI_ERR_INFO, fn, "invalid info object");
    if ((rc = check_ranks(c, fn, "sources", sources, indegree)) != MPI_SUCCESS ||
        (rc = check_ranks(c, fn, "destinations", destinations, outdegree)) != MPI_SUCCESS ||
        (rc = check_weights(c, fn, "sourceweights", sourceweights, indegree)) != MPI_SUCCESS ||
        (rc = check_weights(c, fn, "destweights", destweights, outdegree)) != MPI_SUCCESS)
        return rc;
    if (is_unweighted(sourceweights) != is_unweighted(destweights))
        return mpii_err(c, MPI_ERR_ARG, fn, "MPI_UNWEIGHTED given for one side only");
    weighted = !is_unweighted(sourceweights);
    return dist_attach(fn, c, comm_old, indegree, dup_ints(sources, indegree),
                       weighted ? dup_ints(sourceweights, indegree) : NULL, outdegree,
                       dup_ints(destinations, outdegree), weighted ? dup_ints(destweights, outdegree) : NULL,
                       weighted, comm_dist_graph);
}

typedef struct {
    int src, dst, w, origin, pos;
} edge_t;

static int edge_cmp(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    mpii_comm_t *c = NULL;
    int rc, p, ne = 0, nrecv = 0, weighted, any_weighted;
    int *scnt = NULL, *rcnt = NULL, *sdsp = NULL, *rdsp = NULL, *fill = NULL;
    int *sbuf = NULL, *rbuf = NULL, *src = NULL, *srcw = NULL, *dst = NULL, *dstw = NULL, indeg = 0,
        outdeg = 0;
    edge_t *ed = NULL;
    (void)reorder;
    if ((rc = create_check(fn, comm_old, comm_dist_graph, &c)) != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && !mpii_info_valid(info))
        return mpii_err(c, MPI_ERR_INFO, fn, "invalid info object");
    if (n < 0 || (n > 0 && (!sources || !degrees)))
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid n %d or sources/degrees NULL", n);
    if ((rc = check_ranks(c, fn, "sources", sources, n)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mpii_err(c, MPI_ERR_ARG, fn, "degrees[%d] = %d is negative", i, degrees[i]);
        ne += degrees[i];
    }
    if ((rc = check_ranks(c, fn, "destinations", destinations, ne)) != MPI_SUCCESS ||
        (rc = check_weights(c, fn, "weights", weights, ne)) != MPI_SUCCESS)
        return rc;
    p = c->size;
    weighted = !is_unweighted(weights);
    /* every rank must agree on weighted or not: MPI_UNWEIGHTED everywhere or nowhere */
    rc = MPI_Allreduce(&weighted, &any_weighted, 1, MPI_INT, MPI_MAX, comm_old);
    if (rc != MPI_SUCCESS)
        return rc;
    scnt = calloc((size_t)p, sizeof(int));
    rcnt = calloc((size_t)p, sizeof(int));
    sdsp = calloc((size_t)p, sizeof(int));
    rdsp = calloc((size_t)p, sizeof(int));
    fill = calloc((size_t)p, sizeof(int));
    sbuf = malloc((size_t)(ne > 0 ? ne : 1) * 2 * 4 * sizeof(int));
    if (!scnt || !rcnt || !sdsp || !rdsp || !fill || !sbuf) {
        rc = mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        goto out;
    }
    /* each edge goes to its source and to its destination: (src, dst, w, pos) */
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            scnt[sources[i]] += 4;
            scnt[destinations[e]] += 4;
        }
    for (int q = 1; q < p; q++)
        sdsp[q] = sdsp[q - 1] + scnt[q - 1];
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int ends[2] = {sources[i], destinations[e]};
            for (int k = 0; k < 2; k++) {
                int *t = sbuf + sdsp[ends[k]] + fill[ends[k]];
                t[0] = sources[i];
                t[1] = destinations[e];
                t[2] = weighted ? weights[e] : 1;
                t[3] = e * 2 + k; /* an edge to oneself arrives twice: keep both */
                fill[ends[k]] += 4;
            }
        }
    rc = MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm_old);
    if (rc != MPI_SUCCESS)
        goto out;
    for (int q = 0; q < p; q++) {
        rdsp[q] = nrecv;
        nrecv += rcnt[q];
    }
    rbuf = malloc((size_t)(nrecv > 0 ? nrecv : 1) * sizeof(int));
    ed = malloc((size_t)(nrecv / 4 > 0 ? nrecv / 4 : 1) * sizeof(edge_t));
    if (!rbuf || !ed) {
        rc = mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
        goto out;
    }
    rc = MPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, comm_old);
    if (rc != MPI_SUCCESS)
        goto out;
    for (int q = 0, k = 0; q < p; q++)
        for (int i = 0; i < rcnt[q]; i += 4, k++)
            ed[k] = (edge_t){rbuf[rdsp[q] + i], rbuf[rdsp[q] + i + 1], rbuf[rdsp[q] + i + 2], q,
                             rbuf[rdsp[q] + i + 3] / 2};
    qsort(ed, (size_t)(nrecv / 4), sizeof(edge_t), edge_cmp);
    for (int k = 0; k < nrecv / 4; k++) {
        /* an edge c->rank -> c->rank came twice (to both ends): counts once each way */
        if (ed[k].dst == c->rank && (ed[k].src != c->rank || k == 0 || edge_cmp(&ed[k], &ed[k - 1]) != 0))
            indeg++;
        if (ed[k].src == c->rank && (ed[k].dst != c->rank || k == 0 || edge_cmp(&ed[k], &ed[k - 1]) != 0))
            outdeg++;
    }
    src = malloc((size_t)(indeg > 0 ? indeg : 1) * sizeof(int));
    dst = malloc((size_t)(outdeg > 0 ? outdeg : 1) * sizeof(int));
    if (any_weighted) {
        srcw = malloc((size_t)(indeg > 0 ? indeg : 1) * sizeof(int));
        dstw = malloc((size_t)(outdeg > 0 ? outdeg : 1) * sizeof(int));
    }
    if (src && dst && (!any_weighted || (srcw && dstw))) {
        int ni = 0, no = 0;
        for (int k = 0; k < nrecv / 4; k++) {
            int first = k == 0 || edge_cmp(&ed[k], &ed[k - 1]) != 0;
            if (ed[k].dst == c->rank && (ed[k].src != c->rank || first)) {
                if (any_weighted)
                    srcw[ni] = ed[k].w;
                src[ni++] = ed[k].src;
            }
            if (ed[k].src == c->rank && (ed[k].dst != c->rank || first)) {
                if (any_weighted)
                    dstw[no] = ed[k].w;
                dst[no++] = ed[k].dst;
            }
        }
    }
    rc = dist_attach(fn, c, comm_old, indeg, src, srcw, outdeg, dst, dstw, any_weighted, comm_dist_graph);
out:
    free(scnt);
    free(rcnt);
    free(sdsp);
    free(rdsp);
    free(fill);
    free(sbuf);
    free(rbuf);
    free(ed);
    return rc;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_DIST_GRAPH, &rc)))
        return rc;
    if (!indegree || !outdegree || !weighted)
        return mpii_err(c, MPI_ERR_ARG, fn, "NULL argument");
    *indegree = c->d_indeg;
    *outdegree = c->d_outdeg;
    *weighted = c->d_weighted;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = topo_get(fn, comm, MPI_DIST_GRAPH, &rc)))
        return rc;
    if (maxindegree < 0 || maxoutdegree < 0 || (maxindegree > 0 && !sources) ||
        (maxoutdegree > 0 && !destinations))
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid maxindegree/maxoutdegree or NULL array");
    for (int i = 0; i < maxindegree && i < c->d_indeg; i++) {
        sources[i] = c->d_src[i];
        if (c->d_weighted && sourceweights && sourceweights != MPI_UNWEIGHTED)
            sourceweights[i] = c->d_srcw[i];
    }
    for (int i = 0; i < maxoutdegree && i < c->d_outdeg; i++) {
        destinations[i] = c->d_dst[i];
        if (c->d_weighted && destweights && destweights != MPI_UNWEIGHTED)
            destweights[i] = c->d_dstw[i];
    }
    return MPI_SUCCESS;
}
