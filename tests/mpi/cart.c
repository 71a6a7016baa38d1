/*
 * cart: Cartesian topologies. Dims_create (the standard's examples and
 * invariants), Cart_create 1-D..3-D with mixed periodicity (reorder off:
 * ranks kept; reorder on: only consistency), Cart_coords/Cart_rank round
 * trips (periodic wrap-around in Cart_rank), Cart_shift (MPI_PROC_NULL at
 * non-periodic edges, displacements 1, -1 and 2), Cart_get, Cartdim_get,
 * Topo_test, Cart_sub, a grid smaller than the job (MPI_COMM_NULL for the
 * rest), and a halo exchange with Sendrecv along every dimension that
 * checks the neighbours' data.
 */
#define TEST_NAME "cart"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;

static void dims_create_checks(void)
{
    int d2[2] = {0, 0}, d3[3] = {0, 3, 0}, d1[1] = {0};
    MPI_CHECK(MPI_Dims_create(6, 2, d2));
    CHECK(d2[0] == 3 && d2[1] == 2, "Dims_create(6, 2) = (%d, %d), expected (3, 2)", d2[0], d2[1]);
    d2[0] = d2[1] = 0;
    MPI_CHECK(MPI_Dims_create(7, 2, d2));
    CHECK(d2[0] == 7 && d2[1] == 1, "Dims_create(7, 2) = (%d, %d), expected (7, 1)", d2[0], d2[1]);
    MPI_CHECK(MPI_Dims_create(6, 3, d3));
    CHECK(d3[0] == 2 && d3[1] == 3 && d3[2] == 1,
          "Dims_create(6, 3, (0,3,0)) = (%d, %d, %d), expected (2, 3, 1)", d3[0], d3[1], d3[2]);
    d2[0] = d2[1] = 0;
    MPI_CHECK(MPI_Dims_create(16, 2, d2));
    CHECK(d2[0] == 4 && d2[1] == 4, "Dims_create(16, 2) = (%d, %d)", d2[0], d2[1]);
    MPI_CHECK(MPI_Dims_create(5, 1, d1));
    CHECK(d1[0] == 5, "Dims_create(5, 1) = %d", d1[0]);
    /* invariants for every job size up to 64 and 1..4 dimensions */
    for (int n = 1; n <= 64; n++)
        for (int nd = 1; nd <= 4; nd++) {
            int d[4] = {0, 0, 0, 0}, prod = 1;
            MPI_CHECK(MPI_Dims_create(n, nd, d));
            for (int k = 0; k < nd; k++) {
                CHECK(d[k] >= 1, "Dims_create(%d, %d): dims[%d] = %d", n, nd, k, d[k]);
                if (k > 0)
                    CHECK(d[k] <= d[k - 1], "Dims_create(%d, %d): not non-increasing", n, nd);
                prod *= d[k];
            }
            CHECK(prod == n, "Dims_create(%d, %d): product %d", n, nd, prod);
        }
    /* fixed entries are kept */
    int df[3] = {0, 2, 0};
    MPI_CHECK(MPI_Dims_create(12, 3, df));
    CHECK(df[1] == 2 && df[0] * df[1] * df[2] == 12 && df[0] >= df[2],
          "Dims_create(12, 3, (0,2,0)) = (%d,%d,%d)", df[0], df[1], df[2]);
}

/* Build a grid over all ranks and check every query on it. */
static void grid_checks(int ndims, const int *periods, int reorder)
{
    int dims[3] = {0, 0, 0}, coords[3], c2[3], r2;
    MPI_Comm cart;
    char what[64];
    snprintf(what, sizeof what, "%d-D grid (periods %d%d%d, reorder %d)", ndims, periods[0],
             ndims > 1 ? periods[1] : 0, ndims > 2 ? periods[2] : 0, reorder);
    MPI_CHECK(MPI_Dims_create(size, ndims, dims));
    MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &cart));
    CHECK(cart != MPI_COMM_NULL, "%s: no communicator", what);
    int crank, csize, topo = -1, nd = -1;
    MPI_CHECK(MPI_Comm_rank(cart, &crank));
    MPI_CHECK(MPI_Comm_size(cart, &csize));
    CHECK(csize == size, "%s: size %d", what, csize);
    if (!reorder)
        CHECK(crank == rank, "%s: rank %d changed without reorder (was %d)", what, crank, rank);
    MPI_CHECK(MPI_Topo_test(cart, &topo));
    CHECK(topo == MPI_CART, "%s: Topo_test %d, expected MPI_CART", what, topo);
    MPI_CHECK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims, "%s: Cartdim_get %d", what, nd);
    int gd[3], gp[3], gc[3];
    MPI_CHECK(MPI_Cart_get(cart, ndims, gd, gp, gc));
    MPI_CHECK(MPI_Cart_coords(cart, crank, ndims, coords));
    for (int k = 0; k < ndims; k++) {
        CHECK(gd[k] == dims[k] && (gp[k] != 0) == (periods[k] != 0),
              "%s: Cart_get dims/periods differ in dim %d", what, k);
        CHECK(gc[k] == coords[k], "%s: Cart_get coords differ from Cart_coords in dim %d", what, k);
    }
    /* row-major order: coords of rank r */
    for (int r = 0; r < size; r++) {
        MPI_CHECK(MPI_Cart_coords(cart, r, ndims, c2));
        int rem = r;
        for (int k = ndims - 1; k >= 0; k--) {
            CHECK(c2[k] == rem % dims[k], "%s: Cart_coords(%d)[%d] = %d, expected %d (row-major)", what, r, k,
                  c2[k], rem % dims[k]);
            rem /= dims[k];
        }
        MPI_CHECK(MPI_Cart_rank(cart, c2, &r2));
        CHECK(r2 == r, "%s: Cart_rank(Cart_coords(%d)) = %d", what, r, r2);
    }
    /* periodic wrap in Cart_rank */
    for (int k = 0; k < ndims; k++) {
        if (!periods[k])
            continue;
        memcpy(c2, coords, sizeof c2);
        c2[k] = coords[k] + dims[k];
        MPI_CHECK(MPI_Cart_rank(cart, c2, &r2));
        CHECK(r2 == crank, "%s: Cart_rank with coordinate + dims in periodic dim %d gives %d", what, k, r2);
        c2[k] = coords[k] - dims[k];
        MPI_CHECK(MPI_Cart_rank(cart, c2, &r2));
        CHECK(r2 == crank, "%s: Cart_rank with coordinate - dims in periodic dim %d gives %d", what, k, r2);
    }
    /* shifts */
    for (int k = 0; k < ndims; k++) {
        for (int disp = -1; disp <= 2; disp++) {
            if (disp == 0)
                continue;
            int src, dst;
            MPI_CHECK(MPI_Cart_shift(cart, k, disp, &src, &dst));
            for (int side = 0; side < 2; side++) {
                int c = coords[k] + (side ? disp : -disp), expect;
                if (periods[k]) {
                    memcpy(c2, coords, sizeof c2);
                    c2[k] = ((c % dims[k]) + dims[k]) % dims[k];
                    MPI_CHECK(MPI_Cart_rank(cart, c2, &expect));
                } else if (c < 0 || c >= dims[k]) {
                    expect = MPI_PROC_NULL;
                } else {
                    memcpy(c2, coords, sizeof c2);
                    c2[k] = c;
                    MPI_CHECK(MPI_Cart_rank(cart, c2, &expect));
                }
                int got = side ? dst : src;
                CHECK(got == expect, "%s: Cart_shift(dim %d, disp %d) %s = %d, expected %d", what, k, disp,
                      side ? "dest" : "source", got, expect);
            }
        }
    }
    /* halo exchange: a 64-cell face per dimension and direction, ghost
     * faces filled by Sendrecv along each dimension both ways; the values
     * carry the owner's cart rank, so each ghost cell proves its neighbour,
     * and ghost faces next to MPI_PROC_NULL stay untouched. */
    for (int k = 0; k < ndims; k++) {
        int src, dst;
        MPI_CHECK(MPI_Cart_shift(cart, k, 1, &src, &dst));
        enum { W = 64 };
        int face_out[2][W], face_in[2][W];
        for (int i = 0; i < W; i++) {
            face_out[0][i] = crank * 1000 + k * 100 + i;    /* goes up (to dst) */
            face_out[1][i] = -(crank * 1000 + k * 100 + i); /* goes down (to src) */
            face_in[0][i] = face_in[1][i] = 0x7eadbeef;
        }
        MPI_Status st;
        MPI_CHECK(MPI_Sendrecv(face_out[0], W, MPI_INT, dst, 10 + k, face_in[0], W, MPI_INT, src, 10 + k,
                               cart, &st));
        MPI_CHECK(MPI_Sendrecv(face_out[1], W, MPI_INT, src, 20 + k, face_in[1], W, MPI_INT, dst, 20 + k,
                               cart, &st));
        for (int i = 0; i < W; i++) {
            int e0 = src == MPI_PROC_NULL ? 0x7eadbeef : src * 1000 + k * 100 + i;
            int e1 = dst == MPI_PROC_NULL ? 0x7eadbeef : -(dst * 1000 + k * 100 + i);
            CHECK(face_in[0][i] == e0, "%s: halo from below in dim %d, cell %d = %d, expected %d", what, k, i,
                  face_in[0][i], e0);
            CHECK(face_in[1][i] == e1, "%s: halo from above in dim %d, cell %d = %d, expected %d", what, k, i,
                  face_in[1][i], e1);
        }
    }
    /* Cart_sub keeping the last dimension: rows */
    if (ndims >= 2) {
        int remain[3] = {0, 0, 0};
        remain[ndims - 1] = 1;
        MPI_Comm row;
        MPI_CHECK(MPI_Cart_sub(cart, remain, &row));
        int rr, rs, rnd = -1, rd[1], rp[1], rc[1];
        MPI_CHECK(MPI_Comm_rank(row, &rr));
        MPI_CHECK(MPI_Comm_size(row, &rs));
        CHECK(rs == dims[ndims - 1] && rr == coords[ndims - 1], "%s: Cart_sub rank/size %d/%d", what, rr, rs);
        MPI_CHECK(MPI_Cartdim_get(row, &rnd));
        CHECK(rnd == 1, "%s: Cart_sub has %d dims", what, rnd);
        MPI_CHECK(MPI_Cart_get(row, 1, rd, rp, rc));
        CHECK(rd[0] == dims[ndims - 1] && (rp[0] != 0) == (periods[ndims - 1] != 0) && rc[0] == rr,
              "%s: Cart_sub Cart_get", what);
        int s = -1, e = 0;
        for (int j = 0; j < rs; j++)
            e += crank - coords[ndims - 1] + j;
        MPI_CHECK(MPI_Allreduce(&crank, &s, 1, MPI_INT, MPI_SUM, row));
        CHECK(s == e, "%s: Allreduce over a Cart_sub row: %d, expected %d", what, s, e);
        MPI_CHECK(MPI_Comm_free(&row));
    }
    MPI_CHECK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    int topo = 0;
    MPI_CHECK(MPI_Topo_test(MPI_COMM_WORLD, &topo));
    CHECK(topo == MPI_UNDEFINED, "Topo_test(MPI_COMM_WORLD) = %d, expected MPI_UNDEFINED", topo);

    dims_create_checks();
    static const int p1[3] = {1, 0, 0}, p0[3] = {0, 0, 0}, p2[3] = {1, 0, 0}, p3[3] = {0, 1, 1};
    grid_checks(1, p1, 0);
    grid_checks(1, p0, 0);
    grid_checks(2, p2, 0);
    grid_checks(3, p3, 0);
    grid_checks(2, p0, 1);

    /* a grid smaller than the job: the extra ranks get MPI_COMM_NULL */
    if (size > 1) {
        int d[1] = {size - 1}, p[1] = {0};
        MPI_Comm c;
        MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &c));
        if (rank == size - 1) {
            CHECK(c == MPI_COMM_NULL, "rank outside a smaller grid got a communicator");
        } else {
            int r = -1, s = -1;
            CHECK(c != MPI_COMM_NULL, "rank inside a smaller grid got MPI_COMM_NULL");
            MPI_CHECK(MPI_Comm_rank(c, &r));
            MPI_CHECK(MPI_Comm_size(c, &s));
            CHECK(r == rank && s == size - 1, "smaller grid rank/size %d/%d", r, s);
            MPI_CHECK(MPI_Comm_free(&c));
        }
    }
    MPI_CHECK(MPI_Finalize());
    return 0;
}
