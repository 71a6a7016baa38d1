/*
 * mpi/shift/maxplus.c: max-plus evaluation of timed event graphs (longest
 * paths in one topological pass) and the event graph of MPIX_Shift for each
 * variant, built from the same step plan as the implementation
 * (shift_plan.c), so model and code cannot drift apart. See maxplus.h.
 */
#include "mpi/shift/maxplus.h"

#include <stdlib.h>

#include "mpi/shift/shift_plan.h"

/* ------------------------------------------------------------------ */
/* graphs                                                              */

void mxp_graph_init(mxp_graph_t *g)
{
    g->nnodes = g->node_cap = 0;
    g->nedges = g->edge_cap = 0;
    g->x0 = NULL;
    g->efrom = g->eto = NULL;
    g->ew = NULL;
}

void mxp_graph_free(mxp_graph_t *g)
{
    free(g->x0);
    free(g->efrom);
    free(g->eto);
    free(g->ew);
    mxp_graph_init(g);
}

int mxp_node_add(mxp_graph_t *g, double x0)
{
    if (g->nnodes == g->node_cap) {
        int cap = g->node_cap ? 2 * g->node_cap : 64;
        double *p = realloc(g->x0, (size_t)cap * sizeof(*p));
        if (!p)
            return MXP_ERR_NO_MEMORY;
        g->x0 = p;
        g->node_cap = cap;
    }
    g->x0[g->nnodes] = x0;
    return g->nnodes++;
}

int mxp_edge_add(mxp_graph_t *g, int from, int to, double w)
{
    if (from < 0 || from >= g->nnodes || to < 0 || to >= g->nnodes)
        return MXP_ERR_INVALID;
    if (g->nedges == g->edge_cap) {
        int cap = g->edge_cap ? 2 * g->edge_cap : 128;
        int *f = realloc(g->efrom, (size_t)cap * sizeof(*f));
        if (!f)
            return MXP_ERR_NO_MEMORY;
        g->efrom = f;
        int *t = realloc(g->eto, (size_t)cap * sizeof(*t));
        if (!t)
            return MXP_ERR_NO_MEMORY;
        g->eto = t;
        double *w2 = realloc(g->ew, (size_t)cap * sizeof(*w2));
        if (!w2)
            return MXP_ERR_NO_MEMORY;
        g->ew = w2;
        g->edge_cap = cap;
    }
    g->efrom[g->nedges] = from;
    g->eto[g->nedges] = to;
    g->ew[g->nedges] = w;
    g->nedges++;
    return MXP_OK;
}

/* Kahn's order: a node is final once every predecessor is, and then
 * x[v] = x0[v] (+) (+)_{u -> v} x[u] (x) w: the row v of A* (x) x0. */
int mxp_graph_eval(const mxp_graph_t *g, double *x)
{
    int n = g->nnodes, m = g->nedges, done = 0, rc = MXP_OK;
    int *indeg = calloc((size_t)n + 1, sizeof(int));
    int *start = calloc((size_t)n + 1, sizeof(int));
    int *adj = malloc(((size_t)m + 1) * sizeof(int));
    int *queue = malloc(((size_t)n + 1) * sizeof(int));
    int head = 0, tail = 0;

    if (!indeg || !start || !adj || !queue) {
        rc = MXP_ERR_NO_MEMORY;
        goto out_free;
    }
    /* out-edges grouped by source (CSR) */
    for (int i = 0; i < m; i++) {
        start[g->efrom[i] + 1]++;
        indeg[g->eto[i]]++;
    }
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    {
        int *fill = queue; /* borrowed as a cursor array before the queue is used */
        for (int v = 0; v < n; v++)
            fill[v] = start[v];
        for (int i = 0; i < m; i++)
            adj[fill[g->efrom[i]]++] = i;
    }
    for (int v = 0; v < n; v++) {
        x[v] = g->x0[v];
        if (indeg[v] == 0)
            queue[tail++] = v;
    }
    while (head < tail) {
        int u = queue[head++];
        done++;
        for (int j = start[u]; j < start[u + 1]; j++) {
            int e = adj[j], v = g->eto[e];
            double t = x[u] + g->ew[e];
            if (t > x[v])
                x[v] = t;
            if (--indeg[v] == 0)
                queue[tail++] = v;
        }
    }
    if (done != n)
        rc = MXP_ERR_CYCLE;
out_free:
    free(queue);
    free(adj);
    free(start);
    free(indeg);
    return rc;
}

/* ------------------------------------------------------------------ */
/* durations                                                           */

double mxp_cost_time(const mxp_cost_t *c, int kind, double bytes)
{
    if (kind < 0 || kind >= MXP_T_KINDS)
        return 0.0;
    if (c->ntab <= 0 || !c->tab_t[kind])
        return c->lat[kind] + bytes * c->sec_per_byte[kind];
    const double *b = c->tab_bytes, *t = c->tab_t[kind];
    int n = c->ntab;
    if (n == 1 || bytes <= b[0])
        return t[0];
    int i = 1;
    while (i < n - 1 && bytes > b[i])
        i++;
    /* between b[i-1] and b[i], or beyond b[n-1] on the last segment's line */
    double slope = (t[i] - t[i - 1]) / (b[i] - b[i - 1]);
    if (bytes > b[n - 1] && slope < 0)
        slope = 0;
    return t[i - 1] + (bytes - b[i - 1]) * slope;
}

/* ------------------------------------------------------------------ */
/* the Shift's event graph                                             */

/* One message of the exchange, indexed by (sender, axis, direction, step). */
typedef struct mxp_msg {
    int present;  /* the sender's plan has it */
    int received; /* the receiver's plan has it */
    double bytes;
    int s_prev;   /* blocking: sender's node before the send */
    int s_node;   /* blocking: sender's node after the send */
    int r_prev;   /* blocking: receiver's node before the receive */
    int r_node;   /* blocking: receiver's node after the receive */
    int arrival;  /* the message's own node: the data is in the receive buffer */
    int receiver;
} mxp_msg_t;

typedef struct shift_build {
    const mxp_shift_spec_t *spec;
    const mxp_cost_t *cost;
    mxp_graph_t *g;
    int nranks;
    int depth;
    mxp_msg_t *msg;
    int *start;   /* per rank: node at time 0 */
    int *fin;     /* per rank: final node */
} shift_build_t;

static int msg_index(const shift_build_t *b, int rank, int axis, int dir, int k)
{
    return ((rank * SHIFT_NAXES + axis) * 2 + (dir < 0)) * b->depth + (k - 1);
}

static void rank_geom(const shift_build_t *b, int rank, shift_geom_t *g)
{
    int coords[SHIFT_NAXES];
    shift_rank_coords(b->spec->dims, rank, coords);
    shift_geom_init(g, b->spec->dims, b->spec->periods, coords, b->depth);
}

static int msg_rendezvous(const shift_build_t *b, double bytes)
{
    return b->spec->variant == MXP_SHIFT_SSEND || bytes > b->cost->eager_limit;
}

static double msg_time(const shift_build_t *b, double bytes)
{
    int kind = b->spec->variant == MXP_SHIFT_SSEND ? MXP_T_SSEND : MXP_T_SEND;
    return mxp_cost_time(b->cost, kind, bytes);
}

/* Add a node, turning a failure into a status for `goto`-free callers. */
static int node(shift_build_t *b, double x0, int *id)
{
    int n = mxp_node_add(b->g, x0);
    if (n < 0)
        return n;
    *id = n;
    return MXP_OK;
}

/* Blocking variants: each rank is a chain of operations in program order,
 * per step "send then receive" on even coordinates along the step's axis,
 * "receive then send" on odd ones (what shift.c does). A rendezvous (Ssend,
 * or a standard send above the eager limit) happens when both sides reached
 * it and lasts t; an eager send costs the sender o and arrives t later. */
static int build_blocking(shift_build_t *b)
{
    int rc, d = b->depth;
    for (int r = 0; r < b->nranks; r++) {
        shift_geom_t geo;
        int cur = b->start[r];
        rank_geom(b, r, &geo);
        for (int a = 0; a < SHIFT_NAXES; a++)
            for (int dir = 1; dir >= -1; dir -= 2)
                for (int k = 1; k <= d; k++) {
                    shift_step_t st;
                    shift_plan_step(&geo, a, dir, k, &st);
                    if (st.self)
                        continue; /* a local copy: no time in the model */
                    int send_first = geo.coords[a] % 2 == 0;
                    for (int pass = 0; pass < 2; pass++) {
                        int n;
                        if (pass == (send_first ? 0 : 1) && st.send) {
                            mxp_msg_t *m = &b->msg[msg_index(b, r, a, dir, k)];
                            if ((rc = node(b, MXP_EPS, &n)) != MXP_OK)
                                return rc;
                            m->present = 1;
                            m->bytes = st.nslots * b->spec->slot_bytes;
                            m->s_prev = cur;
                            m->s_node = n;
                            m->receiver = shift_coords_rank(b->spec->dims, st.send_to);
                            cur = n;
                        } else if (pass == (send_first ? 1 : 0) && st.recv) {
                            int src = shift_coords_rank(b->spec->dims, st.recv_from);
                            mxp_msg_t *m = &b->msg[msg_index(b, src, a, dir, k)];
                            if ((rc = node(b, MXP_EPS, &n)) != MXP_OK)
                                return rc;
                            if ((rc = mxp_edge_add(b->g, cur, n, 0.0)) != MXP_OK)
                                return rc;
                            m->received = 1;
                            m->r_prev = cur;
                            m->r_node = n;
                            cur = n;
                        }
                    }
                }
        b->fin[r] = cur;
    }
    int nmsg = b->nranks * SHIFT_NAXES * 2 * d;
    for (int i = 0; i < nmsg; i++) {
        mxp_msg_t *m = &b->msg[i];
        if (m->present != m->received)
            return MXP_ERR_INVALID; /* a plan without its counterpart: a bug */
        if (!m->present)
            continue;
        double t = msg_time(b, m->bytes);
        if ((rc = node(b, MXP_EPS, &m->arrival)) != MXP_OK)
            return rc;
        if ((rc = mxp_edge_add(b->g, m->s_prev, m->arrival, t)) != MXP_OK)
            return rc;
        if (msg_rendezvous(b, m->bytes)) {
            if ((rc = mxp_edge_add(b->g, m->r_prev, m->arrival, t)) != MXP_OK)
                return rc;
            if ((rc = mxp_edge_add(b->g, m->arrival, m->s_node, 0.0)) != MXP_OK)
                return rc;
        } else {
            double o = mxp_cost_time(b->cost, MXP_T_OVERHEAD, m->bytes);
            if ((rc = mxp_edge_add(b->g, m->s_prev, m->s_node, o)) != MXP_OK)
                return rc;
        }
        if ((rc = mxp_edge_add(b->g, m->arrival, m->r_node, 0.0)) != MXP_OK)
            return rc;
    }
    return MXP_OK;
}

/* Non-blocking variant: every receive is posted at time 0; a send goes as
 * soon as its data is there (step 1 of an axis: every receive of the axes
 * before it has landed; step k > 1: the receive of step k - 1 in the same
 * direction has landed) and, with one_port, once the rank's previous send
 * (in step order) has had its time; it arrives t after it started. A rank is
 * done when its last receive landed and its last send completed (eager: o
 * after it started). Every dependency points to an earlier step or axis, or
 * to an earlier send of the same step, so the graph stays acyclic. */
static int build_nonblocking(shift_build_t *b)
{
    int rc, d = b->depth;
    int nmsg = b->nranks * SHIFT_NAXES * 2 * d;

    for (int r = 0; r < b->nranks; r++) { /* one node per message first */
        shift_geom_t geo;
        rank_geom(b, r, &geo);
        for (int a = 0; a < SHIFT_NAXES; a++)
            for (int dir = 1; dir >= -1; dir -= 2)
                for (int k = 1; k <= d; k++) {
                    shift_step_t st;
                    shift_plan_step(&geo, a, dir, k, &st);
                    if (st.self || !st.send)
                        continue;
                    mxp_msg_t *m = &b->msg[msg_index(b, r, a, dir, k)];
                    m->present = 1;
                    m->bytes = st.nslots * b->spec->slot_bytes;
                    m->receiver = shift_coords_rank(b->spec->dims, st.send_to);
                    if ((rc = node(b, MXP_EPS, &m->arrival)) != MXP_OK)
                        return rc;
                }
    }
    for (int r = 0; r < b->nranks; r++) {
        shift_geom_t geo;
        int axis_done[SHIFT_NAXES + 1], fin;
        rank_geom(b, r, &geo);
        axis_done[0] = b->start[r];
        for (int a = 0; a < SHIFT_NAXES; a++) {
            if ((rc = node(b, MXP_EPS, &axis_done[a + 1])) != MXP_OK)
                return rc;
            if ((rc = mxp_edge_add(b->g, axis_done[a], axis_done[a + 1], 0.0)) != MXP_OK)
                return rc;
        }
        if ((rc = node(b, MXP_EPS, &fin)) != MXP_OK)
            return rc;
        if ((rc = mxp_edge_add(b->g, axis_done[SHIFT_NAXES], fin, 0.0)) != MXP_OK)
            return rc;
        int port = -1;         /* one_port: start node of the rank's previous send */
        double port_t = 0.0;   /* and its message time */
        for (int a = 0; a < SHIFT_NAXES; a++)
            for (int k = 1; k <= d; k++)
                for (int dir = 1; dir >= -1; dir -= 2) {
                    shift_step_t st;
                    shift_plan_step(&geo, a, dir, k, &st);
                    if (st.self)
                        continue;
                    if (st.recv) {
                        int src = shift_coords_rank(b->spec->dims, st.recv_from);
                        mxp_msg_t *m = &b->msg[msg_index(b, src, a, dir, k)];
                        if (!m->present)
                            return MXP_ERR_INVALID;
                        m->received = 1;
                        if ((rc = mxp_edge_add(b->g, m->arrival, axis_done[a + 1], 0.0)) != MXP_OK)
                            return rc;
                    }
                    if (!st.send)
                        continue;
                    int ready = axis_done[a];
                    if (k > 1) { /* the block to forward came in step k - 1 */
                        shift_step_t prev;
                        shift_plan_step(&geo, a, dir, k - 1, &prev);
                        if (!prev.recv)
                            return MXP_ERR_INVALID;
                        int src = shift_coords_rank(b->spec->dims, prev.recv_from);
                        ready = b->msg[msg_index(b, src, a, dir, k - 1)].arrival;
                    }
                    mxp_msg_t *m = &b->msg[msg_index(b, r, a, dir, k)];
                    double t = msg_time(b, m->bytes);
                    if (b->cost->one_port) {
                        int s0;
                        if ((rc = node(b, MXP_EPS, &s0)) != MXP_OK)
                            return rc;
                        if ((rc = mxp_edge_add(b->g, ready, s0, 0.0)) != MXP_OK)
                            return rc;
                        if (port >= 0 && (rc = mxp_edge_add(b->g, port, s0, port_t)) != MXP_OK)
                            return rc;
                        port = s0;
                        port_t = t;
                        ready = s0; /* the send starts here */
                    }
                    if ((rc = mxp_edge_add(b->g, ready, m->arrival, t)) != MXP_OK)
                        return rc;
                    if (msg_rendezvous(b, m->bytes)) {
                        if ((rc = mxp_edge_add(b->g, b->start[m->receiver], m->arrival, t)) != MXP_OK)
                            return rc;
                        if ((rc = mxp_edge_add(b->g, m->arrival, fin, 0.0)) != MXP_OK)
                            return rc;
                    } else {
                        double o = mxp_cost_time(b->cost, MXP_T_OVERHEAD, m->bytes);
                        if ((rc = mxp_edge_add(b->g, ready, fin, o)) != MXP_OK)
                            return rc;
                    }
                }
        b->fin[r] = fin;
    }
    for (int i = 0; i < nmsg; i++)
        if (b->msg[i].present != b->msg[i].received)
            return MXP_ERR_INVALID;
    return MXP_OK;
}

static int spec_valid(const mxp_shift_spec_t *s)
{
    if (!s || s->depth < 1 || s->depth > 1000 || s->slot_bytes < 0)
        return 0;
    if (s->variant != MXP_SHIFT_SSEND && s->variant != MXP_SHIFT_SEND && s->variant != MXP_SHIFT_NONBLOCKING)
        return 0;
    long long n = 1;
    for (int a = 0; a < 3; a++) {
        if (s->dims[a] < 1)
            return 0;
        n *= s->dims[a];
    }
    return n * 6 * s->depth < (1 << 26); /* keep the graph within memory */
}

int mxp_shift_graph(const mxp_shift_spec_t *spec, const mxp_cost_t *cost, mxp_graph_t *g, int *fin,
                    mxp_shift_result_t *res)
{
    shift_build_t b;
    int rc;

    if (!spec_valid(spec) || !cost || !g)
        return MXP_ERR_INVALID;
    b.spec = spec;
    b.cost = cost;
    b.g = g;
    b.depth = spec->depth;
    b.nranks = spec->dims[0] * spec->dims[1] * spec->dims[2];
    int nmsg = b.nranks * SHIFT_NAXES * 2 * b.depth;
    b.msg = calloc((size_t)nmsg, sizeof(*b.msg));
    b.start = malloc((size_t)b.nranks * sizeof(int));
    b.fin = malloc((size_t)b.nranks * sizeof(int));
    if (!b.msg || !b.start || !b.fin) {
        rc = MXP_ERR_NO_MEMORY;
        goto out_free;
    }
    for (int r = 0; r < b.nranks; r++)
        if ((rc = node(&b, 0.0, &b.start[r])) != MXP_OK)
            goto out_free;
    rc = spec->variant == MXP_SHIFT_NONBLOCKING ? build_nonblocking(&b) : build_blocking(&b);
    if (rc != MXP_OK)
        goto out_free;
    if (fin)
        for (int r = 0; r < b.nranks; r++)
            fin[r] = b.fin[r];
    if (res) {
        res->nmsgs = res->eager_msgs = 0;
        res->msg_time_sum = 0.0;
        for (int i = 0; i < nmsg; i++)
            if (b.msg[i].present) {
                res->nmsgs++;
                res->eager_msgs += !msg_rendezvous(&b, b.msg[i].bytes);
                res->msg_time_sum += msg_time(&b, b.msg[i].bytes);
            }
        res->nnodes = g->nnodes;
        res->nedges = g->nedges;
    }
out_free:
    free(b.fin);
    free(b.start);
    free(b.msg);
    return rc;
}

double mxp_shift_simple(const mxp_shift_spec_t *spec, const mxp_cost_t *cost)
{
    if (!spec_valid(spec) || !cost)
        return 0.0;
    int nranks = spec->dims[0] * spec->dims[1] * spec->dims[2], d = spec->depth;
    int kind = spec->variant == MXP_SHIFT_SSEND ? MXP_T_SSEND : MXP_T_SEND;
    double worst = 0.0;
    for (int r = 0; r < nranks; r++) {
        shift_geom_t geo;
        int coords[SHIFT_NAXES];
        double sum = 0.0;
        shift_rank_coords(spec->dims, r, coords);
        shift_geom_init(&geo, spec->dims, spec->periods, coords, d);
        for (int a = 0; a < SHIFT_NAXES; a++)
            for (int k = 1; k <= d; k++) {
                double step_max = 0.0;
                for (int dir = 1; dir >= -1; dir -= 2) {
                    shift_step_t st;
                    shift_plan_step(&geo, a, dir, k, &st);
                    if (st.self)
                        continue;
                    double t = mxp_cost_time(cost, kind, st.nslots * spec->slot_bytes);
                    int n = st.send + st.recv;
                    if (spec->variant == MXP_SHIFT_NONBLOCKING) {
                        /* both directions, sends and receives of a step overlap */
                        if (n > 0 && t > step_max)
                            step_max = t;
                    } else {
                        sum += n * t; /* one message at a time */
                    }
                }
                sum += step_max;
            }
        if (sum > worst)
            worst = sum;
    }
    return worst;
}

int mxp_shift_predict(const mxp_shift_spec_t *spec, const mxp_cost_t *cost, double *rank_t,
                      mxp_shift_result_t *res)
{
    mxp_graph_t g;
    mxp_shift_result_t tmp;
    int rc, nranks, *fin = NULL;
    double *x = NULL;

    if (!spec_valid(spec) || !cost)
        return MXP_ERR_INVALID;
    if (!res)
        res = &tmp;
    nranks = spec->dims[0] * spec->dims[1] * spec->dims[2];
    mxp_graph_init(&g);
    fin = malloc((size_t)nranks * sizeof(int));
    if (!fin) {
        rc = MXP_ERR_NO_MEMORY;
        goto out_free;
    }
    if ((rc = mxp_shift_graph(spec, cost, &g, fin, res)) != MXP_OK)
        goto out_free;
    x = malloc(((size_t)g.nnodes + 1) * sizeof(double));
    if (!x) {
        rc = MXP_ERR_NO_MEMORY;
        goto out_free;
    }
    if ((rc = mxp_graph_eval(&g, x)) != MXP_OK)
        goto out_free;
    res->tmax = 0.0;
    for (int r = 0; r < nranks; r++) {
        if (rank_t)
            rank_t[r] = x[fin[r]];
        if (x[fin[r]] > res->tmax)
            res->tmax = x[fin[r]];
    }
    res->tgraph = res->tmax;
    res->twork = cost->work_div > 0 ? res->msg_time_sum / cost->work_div : 0.0;
    if (res->twork > res->tmax)
        res->tmax = res->twork;
    res->simple = mxp_shift_simple(spec, cost);
out_free:
    free(x);
    free(fin);
    mxp_graph_free(&g);
    return rc;
}
