/*
 * tests/unit/test_maxplus.c: unit tests of the max-plus evaluator and the
 * Shift's event graph (mpi/shift/maxplus.c, shift_plan.c) on cases small
 * enough to work out by hand: a chain, a fork-join, a cycle, random DAGs
 * against the dense A* = E (+) A (+) ... (+) A^(n-1), the cost tables, a
 * 2x1x1 grid per variant (and the one-port model), open boundaries (3x1x1, 2x1x1 with d = 2), and
 * the message count and time of a 2x2x2 grid.
 * Standalone: cc test_maxplus.c mpi/shift/maxplus.c mpi/shift/shift_plan.c -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "mpi/shift/maxplus.h"
#include "mpi/shift/shift_plan.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_chain(void **state)
{
    (void)state;
    mxp_graph_t g;
    double x[3];
    mxp_graph_init(&g);
    int a = mxp_node_add(&g, 0.0), b = mxp_node_add(&g, MXP_EPS), c = mxp_node_add(&g, MXP_EPS);
    assert_int_equal(mxp_edge_add(&g, a, b, 2.0), MXP_OK);
    assert_int_equal(mxp_edge_add(&g, b, c, 3.0), MXP_OK);
    assert_int_equal(mxp_graph_eval(&g, x), MXP_OK);
    NEAR(x[a], 0.0);
    NEAR(x[b], 2.0);
    NEAR(x[c], 5.0);
    /* an initial time later than the path wins (x0 term of A* (x) x0) */
    g.x0[c] = 10.0;
    assert_int_equal(mxp_graph_eval(&g, x), MXP_OK);
    NEAR(x[c], 10.0);
    mxp_graph_free(&g);
}

static void test_fork_join(void **state)
{
    (void)state;
    mxp_graph_t g;
    double x[4];
    mxp_graph_init(&g);
    for (int i = 0; i < 4; i++)
        mxp_node_add(&g, i == 0 ? 0.0 : MXP_EPS);
    /* join edges first: the order of insertion must not matter */
    mxp_edge_add(&g, 1, 3, 2.0);
    mxp_edge_add(&g, 2, 3, 1.0);
    mxp_edge_add(&g, 0, 1, 1.0);
    mxp_edge_add(&g, 0, 2, 5.0);
    assert_int_equal(mxp_graph_eval(&g, x), MXP_OK);
    NEAR(x[1], 1.0);
    NEAR(x[2], 5.0);
    NEAR(x[3], 6.0); /* max(1 + 2, 5 + 1) */
    mxp_graph_free(&g);
}

static void test_cycle_and_bad_edges(void **state)
{
    (void)state;
    mxp_graph_t g;
    double x[3];
    mxp_graph_init(&g);
    mxp_node_add(&g, 0.0);
    mxp_node_add(&g, MXP_EPS);
    mxp_node_add(&g, MXP_EPS);
    mxp_edge_add(&g, 0, 1, 1.0);
    mxp_edge_add(&g, 1, 2, 1.0);
    mxp_edge_add(&g, 2, 1, 1.0);
    assert_int_equal(mxp_graph_eval(&g, x), MXP_ERR_CYCLE);
    assert_int_equal(mxp_edge_add(&g, 0, 3, 1.0), MXP_ERR_INVALID);
    assert_int_equal(mxp_edge_add(&g, -1, 0, 1.0), MXP_ERR_INVALID);
    mxp_graph_free(&g);
}

/* Dense reference: x = A* (x) x0 with A* = E (+) A (+) A^2 (+) ... (+) A^(n-1). */
static void dense_star(const mxp_graph_t *g, double *x)
{
    int n = g->nnodes;
    double *A = malloc(sizeof(double) * n * n), *P = malloc(sizeof(double) * n * n);
    double *S = malloc(sizeof(double) * n * n), *T = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++)
        A[i] = MXP_EPS;
    for (int e = 0; e < g->nedges; e++) { /* A[to][from]: parallel edges keep the max */
        double *a = &A[g->eto[e] * n + g->efrom[e]];
        if (g->ew[e] > *a)
            *a = g->ew[e];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            P[i * n + j] = S[i * n + j] = i == j ? 0.0 : MXP_EPS; /* E */
    for (int p = 1; p < n; p++) {
        for (int i = 0; i < n; i++) /* T = A (x) P */
            for (int j = 0; j < n; j++) {
                double m = MXP_EPS;
                for (int k = 0; k < n; k++)
                    if (A[i * n + k] + P[k * n + j] > m)
                        m = A[i * n + k] + P[k * n + j];
                T[i * n + j] = m;
            }
        for (int i = 0; i < n * n; i++) {
            P[i] = T[i];
            if (P[i] > S[i])
                S[i] = P[i];
        }
    }
    for (int i = 0; i < n; i++) {
        double m = MXP_EPS;
        for (int j = 0; j < n; j++)
            if (S[i * n + j] + g->x0[j] > m)
                m = S[i * n + j] + g->x0[j];
        x[i] = m;
    }
    free(A);
    free(P);
    free(S);
    free(T);
}

static void test_random_dags_match_dense_star(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 20; trial++) {
        mxp_graph_t g;
        int n = 3 + rand() % 12;
        double x[16], ref[16];
        mxp_graph_init(&g);
        for (int i = 0; i < n; i++)
            mxp_node_add(&g, rand() % 3 == 0 ? (double)(rand() % 5) : MXP_EPS);
        /* edges between a random permutation's order: acyclic, inserted shuffled */
        int perm[16];
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int e = 0; e < 3 * n; e++) {
            int i = rand() % n, j = rand() % n;
            if (i == j)
                continue;
            if (i > j) {
                int t = i;
                i = j;
                j = t;
            }
            assert_int_equal(mxp_edge_add(&g, perm[i], perm[j], (double)(rand() % 10) / 2.0), MXP_OK);
        }
        assert_int_equal(mxp_graph_eval(&g, x), MXP_OK);
        dense_star(&g, ref);
        for (int i = 0; i < n; i++) {
            if (ref[i] == MXP_EPS)
                assert_true(x[i] == MXP_EPS);
            else
                NEAR(x[i], ref[i]);
        }
        mxp_graph_free(&g);
    }
}

static void test_cost_models(void **state)
{
    (void)state;
    static const double b[3] = {10, 100, 1000}, t[3] = {1, 2, 11};
    mxp_cost_t c = {.lat = {2, 3, 0.5}, .sec_per_byte = {0.5, 1, 0}, .eager_limit = 100};
    NEAR(mxp_cost_time(&c, MXP_T_SEND, 10), 7.0);
    NEAR(mxp_cost_time(&c, MXP_T_SSEND, 10), 13.0);
    NEAR(mxp_cost_time(&c, MXP_T_OVERHEAD, 1e6), 0.5);
    c.ntab = 3;
    c.tab_bytes = b;
    c.tab_t[MXP_T_SEND] = t;
    NEAR(mxp_cost_time(&c, MXP_T_SEND, 55), 1.5);
    NEAR(mxp_cost_time(&c, MXP_T_SEND, 100), 2.0);
    NEAR(mxp_cost_time(&c, MXP_T_SEND, 5), 1.0);      /* below the table: its first value */
    NEAR(mxp_cost_time(&c, MXP_T_SEND, 2000), 21.0);  /* beyond: the last segment's line */
    NEAR(mxp_cost_time(&c, MXP_T_SSEND, 10), 13.0);   /* a kind without a table stays linear */
}

/* every message takes 1, an eager send costs its sender 0.1 */
static const mxp_cost_t unit_cost = {.lat = {1, 1, 0.1}, .sec_per_byte = {0, 0, 0}, .eager_limit = 1e9};

static void spec_set(mxp_shift_spec_t *s, int px, int py, int pz, int periodic, int depth, int variant)
{
    s->dims[0] = px;
    s->dims[1] = py;
    s->dims[2] = pz;
    for (int a = 0; a < 3; a++)
        s->periods[a] = periodic;
    s->depth = depth;
    s->variant = variant;
    s->slot_bytes = 1;
}

/* 2x1x1 periodic, d = 1: rank 0 (even) sends first, rank 1 receives first.
 *   x+: 0->1 at [0,1], 1->0 at [1,2];  x-: 0->1 at [2,3], 1->0 at [3,4]
 * The y and z axes have length 1: local copies, no time. */
static void test_grid_2x1x1(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    mxp_shift_result_t r;
    double t[2];

    spec_set(&s, 2, 1, 1, 1, 1, MXP_SHIFT_SSEND);
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(t[0], 4.0);
    NEAR(t[1], 4.0);
    NEAR(r.tmax, 4.0);
    NEAR(r.simple, 4.0); /* 4 sequential messages of 1 */
    assert_int_equal(r.nmsgs, 4);
    assert_int_equal(r.eager_msgs, 0);

    /* eager: the senders do not wait; rank 1's last send ends at 3 + 0.1 */
    s.variant = MXP_SHIFT_SEND;
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(t[0], 4.0);
    NEAR(t[1], 3.1);
    assert_int_equal(r.eager_msgs, 4);

    /* above the eager limit, standard sends are rendezvous again */
    mxp_cost_t small_eager = unit_cost;
    small_eager.eager_limit = 0;
    assert_int_equal(mxp_shift_predict(&s, &small_eager, t, &r), MXP_OK);
    NEAR(t[1], 4.0);
    assert_int_equal(r.eager_msgs, 0);

    /* non-blocking: both directions at once, every message ready at 0 */
    s.variant = MXP_SHIFT_NONBLOCKING;
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(r.tmax, 1.0);
    NEAR(r.simple, 1.0);

    /* one port: the - message waits for the + one: [0,1] then [1,2] */
    mxp_cost_t port = unit_cost;
    port.one_port = 1;
    assert_int_equal(mxp_shift_predict(&s, &port, t, &r), MXP_OK);
    NEAR(r.tmax, 2.0);

    /* d = 2: the second step forwards what the first brought */
    s.depth = 2;
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(r.tmax, 2.0);
    assert_int_equal(r.nmsgs, 8);
    /* one port: +1 [0,1], -1 [1,2], +2 ready at 1 (+1 landed) but the port
     * is busy until 2: [2,3], -2 ready at 2, port free at 3: [3,4] */
    assert_int_equal(mxp_shift_predict(&s, &port, t, &r), MXP_OK);
    NEAR(r.tmax, 4.0);
    NEAR(t[0], 4.0);
    NEAR(t[1], 4.0);
    s.variant = MXP_SHIFT_SSEND;
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(r.tmax, 8.0);
}

/* 3x1x1 open, d = 1, Ssend (rank 0 even, 1 odd, 2 even):
 *   x+: 0->1 [0,1] (1 receives first), 1->2 [1,2];
 *   x-: 2->1 at max(2, 2) -> 3, then 1->0 -> 4. Rank 2 is done at 3. */
static void test_open_boundary(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    mxp_shift_result_t r;
    double t[3];

    spec_set(&s, 3, 1, 1, 0, 1, MXP_SHIFT_SSEND);
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
    NEAR(t[0], 4.0);
    NEAR(t[1], 4.0);
    NEAR(t[2], 3.0);
    assert_int_equal(r.nmsgs, 4);
    NEAR(r.simple, 4.0); /* rank 1 has 4 operations */

    /* 2x1x1 open: one message each way, and d = 2 adds none (the boxes
     * two away do not exist) */
    for (int d = 1; d <= 2; d++) {
        spec_set(&s, 2, 1, 1, 0, d, MXP_SHIFT_SSEND);
        assert_int_equal(mxp_shift_predict(&s, &unit_cost, t, &r), MXP_OK);
        assert_int_equal(r.nmsgs, 2);
        NEAR(r.tmax, 2.0);
    }
}

/* 2x2x2 periodic, d = 1, slot 10 bytes, time = bytes: messages of 10 (x),
 * 30 (y, a row) and 90 (z, a plane) bytes; 8 ranks x 6 messages. */
static void test_grid_2x2x2(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    mxp_shift_result_t r;
    mxp_cost_t c = {.lat = {0, 0, 0}, .sec_per_byte = {1, 1, 0}, .eager_limit = 1e9};

    spec_set(&s, 2, 2, 2, 1, 1, MXP_SHIFT_SSEND);
    s.slot_bytes = 10;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    assert_int_equal(r.nmsgs, 48);
    NEAR(r.tmax, 4 * (10 + 30 + 90));
    NEAR(r.simple, 4 * (10 + 30 + 90));
    s.variant = MXP_SHIFT_NONBLOCKING;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    NEAR(r.tmax, 10 + 30 + 90);

    /* open 2x2x2: rows and planes shrink to the existing boxes (2 and 4 slots) */
    spec_set(&s, 2, 2, 2, 0, 1, MXP_SHIFT_NONBLOCKING);
    s.slot_bytes = 10;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    assert_int_equal(r.nmsgs, 24);
    NEAR(r.tmax, 10 + 20 + 40);
}

/* The CPU bound (work_div): 2x2x2 periodic, d = 1, slot 10 bytes, time =
 * bytes: 16 messages each of 10, 30 and 90 bytes sum to 2080. Non-blocking,
 * the graph's longest path is 130; with 4 messages at a time the machine
 * needs 520, with 100 at a time the graph decides; without work_div no
 * bound. */
static void test_work_bound(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    mxp_shift_result_t r;
    mxp_cost_t c = {.lat = {0, 0, 0}, .sec_per_byte = {1, 1, 0}, .eager_limit = 1e9};

    spec_set(&s, 2, 2, 2, 1, 1, MXP_SHIFT_NONBLOCKING);
    s.slot_bytes = 10;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    NEAR(r.msg_time_sum, 2080);
    NEAR(r.tgraph, 130);
    NEAR(r.twork, 0);
    NEAR(r.tmax, 130);
    c.work_div = 4;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    NEAR(r.tgraph, 130);
    NEAR(r.twork, 520);
    NEAR(r.tmax, 520);
    c.work_div = 100;
    assert_int_equal(mxp_shift_predict(&s, &c, NULL, &r), MXP_OK);
    NEAR(r.tmax, 130);
}

/* The one-port model never beats the concurrent one, and stays acyclic on
 * bigger grids, periodic and open. */
static void test_one_port_bounds(void **state)
{
    (void)state;
    mxp_cost_t par = {.lat = {1, 1, 0.1}, .sec_per_byte = {0.01, 0.01, 0}, .eager_limit = 50};
    mxp_cost_t port = par;
    port.one_port = 1;
    for (int periodic = 0; periodic <= 1; periodic++)
        for (int d = 1; d <= 3; d++) {
            mxp_shift_spec_t s;
            mxp_shift_result_t a, b;
            spec_set(&s, 3, 4, 2, periodic, d, MXP_SHIFT_NONBLOCKING);
            s.slot_bytes = 7;
            assert_int_equal(mxp_shift_predict(&s, &par, NULL, &a), MXP_OK);
            assert_int_equal(mxp_shift_predict(&s, &port, NULL, &b), MXP_OK);
            assert_true(b.tmax >= a.tmax - 1e-12);
            assert_int_equal(a.nmsgs, b.nmsgs);
        }
}

/* The graph of a small Shift agrees with the dense A* too. */
static void test_shift_graph_dense(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    mxp_graph_t g;
    int fin[3];
    double x[64], ref[64];
    for (int v = 0; v < 3; v++) {
        mxp_cost_t c = unit_cost;
        c.one_port = v == MXP_SHIFT_NONBLOCKING;
        spec_set(&s, 3, 1, 1, 0, 1, v);
        mxp_graph_init(&g);
        assert_int_equal(mxp_shift_graph(&s, &c, &g, fin, NULL), MXP_OK);
        assert_true(g.nnodes <= 64);
        assert_int_equal(mxp_graph_eval(&g, x), MXP_OK);
        dense_star(&g, ref);
        for (int i = 0; i < g.nnodes; i++)
            NEAR(x[i], ref[i]);
        mxp_graph_free(&g);
    }
}

static void test_invalid_specs(void **state)
{
    (void)state;
    mxp_shift_spec_t s;
    spec_set(&s, 2, 2, 2, 1, 0, MXP_SHIFT_SSEND);
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, NULL, NULL), MXP_ERR_INVALID);
    spec_set(&s, 2, 0, 2, 1, 1, MXP_SHIFT_SSEND);
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, NULL, NULL), MXP_ERR_INVALID);
    spec_set(&s, 2, 2, 2, 1, 1, 7);
    assert_int_equal(mxp_shift_predict(&s, &unit_cost, NULL, NULL), MXP_ERR_INVALID);
}

/* The plan: slot rule, valid ranges at an open corner, block shapes. */
static void test_plan(void **state)
{
    (void)state;
    shift_geom_t g;
    shift_step_t st;
    int dims[3] = {3, 3, 3}, open[3] = {0, 0, 0}, corner[3] = {0, 0, 0};
    assert_int_equal(shift_slot(1, -1, -1, -1), 0);
    assert_int_equal(shift_slot(1, 1, 1, 1), 26);
    assert_int_equal(shift_slot(1, 2, 0, 0), -1);
    shift_geom_init(&g, dims, open, corner, 2);
    assert_int_equal(g.lo[0], 0);
    assert_int_equal(g.hi[0], 2);
    /* z step 1 at the corner: rows dy = 0..2, each dx = 0..2, 5 slots apart */
    shift_plan_step(&g, 2, 1, 1, &st);
    assert_int_equal(st.send, 1);
    assert_int_equal(st.recv, 0);
    assert_int_equal(st.rows, 3);
    assert_int_equal(st.row_len, 3);
    assert_int_equal(st.row_stride, 5);
    assert_int_equal(st.send_slot, shift_slot(2, 0, 0, 0));
    shift_plan_step(&g, 0, -1, 2, &st); /* x-, step 2: receive the box at +2 */
    assert_int_equal(st.recv, 1);
    assert_int_equal(st.recv_slot, shift_slot(2, 2, 0, 0));
    assert_int_equal(st.send, 0); /* no left neighbour */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_fork_join),
        cmocka_unit_test(test_cycle_and_bad_edges),
        cmocka_unit_test(test_random_dags_match_dense_star),
        cmocka_unit_test(test_cost_models),
        cmocka_unit_test(test_grid_2x1x1),
        cmocka_unit_test(test_open_boundary),
        cmocka_unit_test(test_grid_2x2x2),
        cmocka_unit_test(test_one_port_bounds),
        cmocka_unit_test(test_shift_graph_dense),
        cmocka_unit_test(test_invalid_specs),
        cmocka_unit_test(test_work_bound),
        cmocka_unit_test(test_plan),
    };
    return cmocka_run_group_tests_name("maxplus", tests, NULL, NULL);
}
