/*
 * tests/unit/test_topo_dims.c: unit tests of mpi/topo.c: MPI_Dims_create, and
 * the Cartesian calls as seen by one process (stub communicators).
 * Standalone: cc ... test_topo_dims.c mpi/topo.c tests/unit/mpi_stubs.c -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "mpi/mpi_impl.h"

#include <string.h>

#include "mpi_stubs.h"

static int setup(void **state)
{
    (void)state;
    stub_world_rank = 0;
    stub_world_size = 1;
    stub_reset();
    stub_initialized = 1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    stub_cleanup();
    return 0;
}

/* ------------------------------------------------------------------ */
/* MPI_Dims_create                                                     */

#define DIMS(nnodes, n, ...)                                                                 \
    do {                                                                                     \
        int d_[n] = {__VA_ARGS__};                                                           \
        assert_int_equal(MPI_Dims_create(nnodes, n, d_), MPI_SUCCESS);                       \
        memcpy(got, d_, sizeof d_);                                                          \
    } while (0)

static void expect_dims(const int *got, int n, const int *want)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("dims[%d] = %d, want %d", i, got[i], want[i]);
}

static void test_dims_standard_examples(void **state)
{
    int got[16];
    (void)state;
    /* MPI 3.1 section 7.5.2, Example 7.1 */
    DIMS(6, 2, 0, 0);
    expect_dims(got, 2, (int[]){3, 2});
    DIMS(7, 2, 0, 0);
    expect_dims(got, 2, (int[]){7, 1});
    DIMS(6, 3, 0, 3, 0);
    expect_dims(got, 3, (int[]){2, 3, 1});
    {
        int d[3] = {0, 3, 0};
        assert_int_equal(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS);
        assert_string_equal(stub_last_fn, "MPI_Dims_create");
    }
}

static void test_dims_more(void **state)
{
    int got[16];
    (void)state;
    DIMS(12, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){3, 2, 2});
    DIMS(16, 4, 0, 0, 0, 0);
    expect_dims(got, 4, (int[]){2, 2, 2, 2});
    DIMS(24, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){4, 3, 2});
    DIMS(30, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){5, 3, 2});
    DIMS(64, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){4, 4, 4});
    DIMS(72, 2, 0, 0); /* a greedy prime assignment would give 12 x 6 */
    expect_dims(got, 2, (int[]){9, 8});
    DIMS(210, 2, 0, 0);
    expect_dims(got, 2, (int[]){15, 14});
    DIMS(1000, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){10, 10, 10});
    /* equally balanced choices (spread 4): MPICH and Open MPI take the one with
     * the larger factors at the small end */
    DIMS(360, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){10, 6, 6});
    DIMS(20, 4, 0, 0, 0, 0);
    expect_dims(got, 4, (int[]){5, 2, 2, 1});
    DIMS(2160, 4, 0, 0, 0, 0);
    expect_dims(got, 4, (int[]){10, 6, 6, 6});
    DIMS(2880, 4, 0, 0, 0, 0);
    expect_dims(got, 4, (int[]){10, 8, 6, 6});
    DIMS(1, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){1, 1, 1});
    DIMS(5, 1, 0);
    expect_dims(got, 1, (int[]){5});
    DIMS(2147483647, 2, 0, 0); /* prime */
    expect_dims(got, 2, (int[]){2147483647, 1});
    DIMS(1000000000, 3, 0, 0, 0);
    expect_dims(got, 3, (int[]){1000, 1000, 1000});
    DIMS(172800, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); /* 2^8 3^3 5^2: spread 3 is the best */
    expect_dims(got, 10, (int[]){5, 5, 4, 4, 4, 3, 3, 3, 2, 2});
    DIMS(2095133040, 8, 0, 0, 0, 0, 0, 0, 0, 0); /* must stay fast */
    expect_dims(got, 8, (int[]){19, 18, 17, 15, 14, 13, 12, 11});
    DIMS(2095133040, 2, 0, 0); /* 1600 divisors */
    assert_int_equal((long long)got[0] * got[1], 2095133040LL);
    assert_true(got[0] >= got[1]);
    /* fixed entries are kept, free ones filled in non-increasing order */
    DIMS(24, 4, 0, 2, 0, 0);
    expect_dims(got, 4, (int[]){3, 2, 2, 2});
    DIMS(40, 3, 0, 0, 4);
    expect_dims(got, 3, (int[]){5, 2, 4});
    DIMS(12, 2, 3, 4);
    expect_dims(got, 2, (int[]){3, 4});
    DIMS(12, 3, 12, 0, 0);
    expect_dims(got, 3, (int[]){12, 1, 1});
    assert_int_equal(MPI_Dims_create(4, 0, NULL), MPI_SUCCESS);
}

static void test_dims_errors(void **state)
{
    (void)state;
    {
        int d[2] = {3, 5};
        assert_int_equal(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS); /* product differs */
    }
    {
        int d[2] = {0, 5};
        assert_int_equal(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS); /* 5 does not divide 12 */
        assert_int_equal(d[0], 0);
    }
    {
        int d[2] = {24, 0};
        assert_int_equal(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS);
    }
    {
        int d[2] = {-1, 0};
        assert_int_equal(MPI_Dims_create(4, 2, d), MPI_ERR_DIMS);
    }
    {
        int d[2] = {0, 0};
        assert_int_equal(MPI_Dims_create(4, -1, d), MPI_ERR_DIMS);
        assert_int_equal(MPI_Dims_create(0, 2, d), MPI_ERR_ARG);
        assert_int_equal(MPI_Dims_create(-4, 2, d), MPI_ERR_ARG);
        assert_int_equal(MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG);
        stub_initialized = 0;
        assert_int_equal(MPI_Dims_create(4, 2, d), MPI_ERR_OTHER);
        stub_initialized = 1;
    }
}

/* Brute force: smallest spread over all non-increasing factorizations. */
static int best_spread(int m, int k, int maxd, int first)
{
    int best = -1;
    if (k == 1)
        return m <= maxd ? first - m : -1;
    for (int d = maxd; d >= 1; d--) {
        if (m % d)
            continue;
        int s = best_spread(m / d, k - 1, d, first ? first : d);
        if (s >= 0 && (best < 0 || s < best))
            best = s;
    }
    return best;
}

static void test_dims_exhaustive(void **state)
{
    (void)state;
    for (int n = 1; n <= 256; n++)
        for (int k = 1; k <= 4; k++) {
            int d[4] = {0, 0, 0, 0};
            long long prod = 1;
            assert_int_equal(MPI_Dims_create(n, k, d), MPI_SUCCESS);
            for (int i = 0; i < k; i++) {
                prod *= d[i];
                if (i > 0 && d[i] > d[i - 1])
                    fail_msg("(%d,%d): not non-increasing", n, k);
            }
            if (prod != n)
                fail_msg("(%d,%d): product %lld", n, k, prod);
            int want = k == 1 ? 0 : best_spread(n, k, n, 0);
            if (d[0] - d[k - 1] != want)
                fail_msg("(%d,%d): spread %d, best %d", n, k, d[0] - d[k - 1], want);
        }
}

/* ------------------------------------------------------------------ */
/* Cartesian communicators (this process is rank 7 of 12)              */

static MPI_Comm make_cart_3x4(void)
{
    int dims[2] = {3, 4}, periods[2] = {5, 0}; /* any non-zero is true */
    MPI_Comm cart = MPI_COMM_NULL;
    stub_world_rank = 7;
    stub_world_size = 12;
    stub_reset();
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart), MPI_SUCCESS);
    assert_int_not_equal(cart, MPI_COMM_NULL);
    return cart;
}

static void test_cart_create_get(void **state)
{
    MPI_Comm cart = make_cart_3x4();
    int st, nd, dims[2], periods[2], coords[2];
    mpii_comm_t *c = mpii_comm_get(cart);
    (void)state;
    assert_int_equal(c->topo_kind, MPI_CART);
    assert_int_equal(MPI_Topo_test(cart, &st), MPI_SUCCESS);
    assert_int_equal(st, MPI_CART);
    assert_int_equal(MPI_Topo_test(MPI_COMM_WORLD, &st), MPI_SUCCESS);
    assert_int_equal(st, MPI_UNDEFINED);
    assert_int_equal(MPI_Topo_test(MPI_COMM_NULL, &st), MPI_ERR_COMM);
    assert_int_equal(MPI_Topo_test(cart, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Cartdim_get(cart, &nd), MPI_SUCCESS);
    assert_int_equal(nd, 2);
    assert_int_equal(MPI_Cart_get(cart, 2, dims, periods, coords), MPI_SUCCESS);
    assert_int_equal(dims[0], 3);
    assert_int_equal(dims[1], 4);
    assert_int_equal(periods[0], 1);
    assert_int_equal(periods[1], 0);
    assert_int_equal(coords[0], 1); /* 7 = 1 * 4 + 3 */
    assert_int_equal(coords[1], 3);
    assert_int_equal(MPI_Cart_get(cart, 1, dims, periods, coords), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_free(&cart), MPI_SUCCESS);
}

static void test_cart_coords_rank(void **state)
{
    MPI_Comm cart = make_cart_3x4();
    int coords[2], r;
    (void)state;
    for (int rank = 0; rank < 12; rank++) {
        assert_int_equal(MPI_Cart_coords(cart, rank, 2, coords), MPI_SUCCESS);
        assert_int_equal(coords[0], rank / 4);
        assert_int_equal(coords[1], rank % 4);
        assert_int_equal(MPI_Cart_rank(cart, coords, &r), MPI_SUCCESS);
        assert_int_equal(r, rank);
    }
    assert_int_equal(MPI_Cart_coords(cart, 12, 2, coords), MPI_ERR_RANK);
    assert_int_equal(MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK);
    assert_int_equal(MPI_Cart_coords(cart, 3, 1, coords), MPI_ERR_ARG);
    /* periodic dimension 0 wraps, non-periodic dimension 1 does not */
    assert_int_equal(MPI_Cart_rank(cart, (int[]){-1, 3}, &r), MPI_SUCCESS);
    assert_int_equal(r, 11);
    assert_int_equal(MPI_Cart_rank(cart, (int[]){4, 0}, &r), MPI_SUCCESS);
    assert_int_equal(r, 4);
    assert_int_equal(MPI_Cart_rank(cart, (int[]){-7, 1}, &r), MPI_SUCCESS);
    assert_int_equal(r, 9); /* -7 mod 3 = 2 */
    assert_int_equal(MPI_Cart_rank(cart, (int[]){0, 4}, &r), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_rank(cart, (int[]){0, -1}, &r), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_rank(cart, (int[]){0, 0}, NULL), MPI_ERR_ARG);
    MPI_Comm_free(&cart);
}

static void test_cart_shift(void **state)
{
    MPI_Comm cart = make_cart_3x4(); /* me: (1,3) = 7 */
    int src, dst;
    (void)state;
    assert_int_equal(MPI_Cart_shift(cart, 0, 1, &src, &dst), MPI_SUCCESS);
    assert_int_equal(src, 3);  /* (0,3) */
    assert_int_equal(dst, 11); /* (2,3) */
    assert_int_equal(MPI_Cart_shift(cart, 0, -1, &src, &dst), MPI_SUCCESS);
    assert_int_equal(src, 11);
    assert_int_equal(dst, 3);
    assert_int_equal(MPI_Cart_shift(cart, 0, 5, &src, &dst), MPI_SUCCESS);
    assert_int_equal(dst, 3);  /* (1+5) mod 3 = 0 */
    assert_int_equal(src, 11); /* (1-5) mod 3 = 2 */
    assert_int_equal(MPI_Cart_shift(cart, 1, 1, &src, &dst), MPI_SUCCESS);
    assert_int_equal(src, 6);
    assert_int_equal(dst, MPI_PROC_NULL);
    assert_int_equal(MPI_Cart_shift(cart, 1, -3, &src, &dst), MPI_SUCCESS);
    assert_int_equal(src, MPI_PROC_NULL);
    assert_int_equal(dst, 4);
    assert_int_equal(MPI_Cart_shift(cart, 1, 0, &src, &dst), MPI_SUCCESS);
    assert_int_equal(src, 7);
    assert_int_equal(dst, 7);
    assert_int_equal(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_shift(cart, 0, 1, NULL, &dst), MPI_ERR_ARG);
    MPI_Comm_free(&cart);
}

static void test_cart_sub(void **state)
{
    MPI_Comm cart = make_cart_3x4(), row, none;
    int nd, dims[1], periods[1], coords[1], st, r;
    mpii_comm_t *c;
    (void)state;
    /* keep dimension 1: my row (coordinate 0 = 1) of 4 processes, I am its rank 3 */
    stub_split_size = 4;
    stub_split_rank = 3;
    assert_int_equal(MPI_Cart_sub(cart, (int[]){0, 1}, &row), MPI_SUCCESS);
    assert_int_equal(MPI_Cartdim_get(row, &nd), MPI_SUCCESS);
    assert_int_equal(nd, 1);
    assert_int_equal(MPI_Cart_get(row, 1, dims, periods, coords), MPI_SUCCESS);
    assert_int_equal(dims[0], 4);
    assert_int_equal(periods[0], 0);
    assert_int_equal(coords[0], 3);
    /* drop everything: a zero-dimensional topology of one process */
    stub_split_size = 1;
    stub_split_rank = 0;
    assert_int_equal(MPI_Cart_sub(cart, (int[]){0, 0}, &none), MPI_SUCCESS);
    assert_int_equal(MPI_Topo_test(none, &st), MPI_SUCCESS);
    assert_int_equal(st, MPI_CART);
    assert_int_equal(MPI_Cartdim_get(none, &nd), MPI_SUCCESS);
    assert_int_equal(nd, 0);
    c = mpii_comm_get(none);
    assert_null(c->dims);
    assert_int_equal(MPI_Cart_rank(none, NULL, &r), MPI_SUCCESS);
    assert_int_equal(r, 0);
    assert_int_equal(MPI_Cart_get(none, 0, NULL, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_Cart_shift(none, 0, 1, &r, &r), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_sub(MPI_COMM_WORLD, (int[]){1}, &row), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cart_sub(cart, NULL, &row), MPI_ERR_ARG);
    MPI_Comm_free(&none);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
}

static void test_cart_create_cases(void **state)
{
    MPI_Comm cart;
    int nd;
    (void)state;
    stub_world_rank = 7;
    stub_world_size = 12;
    stub_reset();
    /* fewer processes than the communicator: ranks beyond get MPI_COMM_NULL */
    cart = 123;
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){0, 0}, 0, &cart),
                     MPI_SUCCESS);
    assert_int_equal(cart, MPI_COMM_NULL);
    stub_world_rank = 5;
    stub_reset();
    stub_split_size = 6;
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){0, 0}, 0, &cart),
                     MPI_SUCCESS);
    assert_int_not_equal(cart, MPI_COMM_NULL);
    MPI_Comm_free(&cart);
    /* ndims == 0: one process (rank 0) */
    stub_world_rank = 0;
    stub_reset();
    stub_split_size = 1;
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart), MPI_SUCCESS);
    assert_int_not_equal(cart, MPI_COMM_NULL);
    assert_int_equal(MPI_Cartdim_get(cart, &nd), MPI_SUCCESS);
    assert_int_equal(nd, 0);
    MPI_Comm_free(&cart);
    stub_world_rank = 3;
    stub_reset();
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart), MPI_SUCCESS);
    assert_int_equal(cart, MPI_COMM_NULL);
    /* errors */
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){5, 3}, (int[]){0, 0}, 0, &cart),
                     MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){0, 3}, (int[]){0, 0}, 0, &cart),
                     MPI_ERR_DIMS);
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){-2, 3}, (int[]){0, 0}, 0, &cart),
                     MPI_ERR_DIMS);
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, -1, NULL, NULL, 0, &cart), MPI_ERR_DIMS);
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, (int[]){0, 0}, 0, &cart), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){2}, (int[]){0}, 0, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Cart_create(MPI_COMM_NULL, 1, (int[]){2}, (int[]){0}, 0, &cart), MPI_ERR_COMM);
    assert_int_equal(MPI_Cart_create(99, 1, (int[]){2}, (int[]){0}, 0, &cart), MPI_ERR_COMM);
    /* Cartesian calls on a communicator without topology / an invalid one */
    assert_int_equal(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, &nd), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cart_rank(MPI_COMM_SELF, &nd, &nd), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &nd, &nd), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cart_get(MPI_COMM_WORLD, 1, &nd, &nd, &nd), MPI_ERR_TOPOLOGY);
    assert_int_equal(MPI_Cartdim_get(MPI_COMM_NULL, &nd), MPI_ERR_COMM);
    assert_int_equal(MPI_Cart_shift(42, 0, 1, &nd, &nd), MPI_ERR_COMM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dims_standard_examples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dims_more, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dims_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dims_exhaustive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cart_create_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cart_coords_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cart_shift, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cart_sub, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cart_create_cases, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
