/*
 * tests/unit/test_datatype_more.c: unit tests of the later additions to
 * mpi/datatype.c: MPI_Type_create_indexed_block / _hindexed_block /
 * _subarray, MPI_Type_get_envelope / _get_contents (every combiner, and the
 * lifetime of the handles get_contents returns), the _x queries, type names,
 * MPI_Status_set_elements(_x) and MPI_Type_match_size.
 * Standalone: cc ... test_datatype_more.c mpi/datatype.c tests/unit/mpi_stubs.c -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_stubs.h"

static int setup(void **state)
{
    (void)state;
    stub_reset();
    stub_initialized = 1;
    assert_int_equal(mpii_datatype_init(), MPI_SUCCESS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mpii_datatype_finalize();
    stub_cleanup();
    return 0;
}

static void expect_bounds(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                          MPI_Aint textent)
{
    int s;
    MPI_Aint a, b;
    MPI_Count cs, ca, cb;
    assert_int_equal(MPI_Type_size(t, &s), MPI_SUCCESS);
    assert_int_equal(s, size);
    assert_int_equal(MPI_Type_get_extent(t, &a, &b), MPI_SUCCESS);
    assert_int_equal(a, lb);
    assert_int_equal(b, extent);
    assert_int_equal(MPI_Type_get_true_extent(t, &a, &b), MPI_SUCCESS);
    assert_int_equal(a, tlb);
    assert_int_equal(b, textent);
    /* the _x forms agree */
    assert_int_equal(MPI_Type_size_x(t, &cs), MPI_SUCCESS);
    assert_int_equal(cs, size);
    assert_int_equal(MPI_Type_get_extent_x(t, &ca, &cb), MPI_SUCCESS);
    assert_int_equal(ca, lb);
    assert_int_equal(cb, extent);
    assert_int_equal(MPI_Type_get_true_extent_x(t, &ca, &cb), MPI_SUCCESS);
    assert_int_equal(ca, tlb);
    assert_int_equal(cb, textent);
}

/* Pack `count` elements of t from src; the ints packed must be want[0..n-1]. */
static void expect_packed_ints(const void *src, int count, MPI_Datatype t, const int *want, int n)
{
    mpii_datatype_t *p = mpii_datatype_get(t);
    int *out = calloc((size_t)n + 1, sizeof *out);
    assert_non_null(p);
    assert_int_equal(p->size * (size_t)count, (size_t)n * sizeof(int));
    mpii_datatype_pack(src, (size_t)count, p, out);
    for (int i = 0; i < n; i++) {
        if (out[i] != want[i])
            fail_msg("packed int %d is %d, expected %d", i, out[i], want[i]);
    }
    free(out);
}

typedef struct envelope {
    int ni, na, nd, combiner;
} envelope_t;

static envelope_t envelope(MPI_Datatype t)
{
    envelope_t e = {-1, -1, -1, -1};
    assert_int_equal(MPI_Type_get_envelope(t, &e.ni, &e.na, &e.nd, &e.combiner), MPI_SUCCESS);
    return e;
}

static void expect_envelope(MPI_Datatype t, int combiner, int ni, int na, int nd)
{
    envelope_t e = envelope(t);
    assert_int_equal(e.combiner, combiner);
    assert_int_equal(e.ni, ni);
    assert_int_equal(e.na, na);
    assert_int_equal(e.nd, nd);
}

/* Contents of t (envelope sizes asserted by the caller); arrays big enough. */
typedef struct contents {
    int ints[64];
    MPI_Aint aints[16];
    MPI_Datatype types[16];
} contents_t;

static void get_contents(MPI_Datatype t, contents_t *c)
{
    envelope_t e = envelope(t);
    memset(c, 0xa5, sizeof *c);
    assert_true(e.ni <= 64 && e.na <= 16 && e.nd <= 16);
    assert_int_equal(MPI_Type_get_contents(t, e.ni, e.na, e.nd, c->ints, c->aints, c->types), MPI_SUCCESS);
}

static int is_named(MPI_Datatype t)
{
    return envelope(t).combiner == MPI_COMBINER_NAMED;
}

/* Free the derived types get_contents returned. */
static void free_contents_types(contents_t *c, int nd)
{
    for (int i = 0; i < nd; i++)
        if (!is_named(c->types[i]))
            assert_int_equal(MPI_Type_free(&c->types[i]), MPI_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* indexed_block / hindexed_block                                      */

static void test_indexed_block(void **state)
{
    int buf[32];
    int disp[3] = {5, 0, 9};
    MPI_Datatype t, u;
    (void)state;
    for (int i = 0; i < 32; i++)
        buf[i] = 100 + i;
    /* blocks of 2 ints at 5, 0, 9: data 0..8, 20..28, 36..44 in type-map order */
    assert_int_equal(MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 24, 0, 44, 0, 44);
    assert_false(mpii_datatype_get(t)->committed);
    assert_int_equal(mpii_datatype_get(t)->basic, MPI_INT);
    assert_int_equal(mpii_datatype_get(t)->basic_count, 6);
    {
        int want[6] = {105, 106, 100, 101, 109, 110};
        expect_packed_ints(buf, 1, t, want, 6);
    }
    { /* two elements: the second starts one extent (11 ints) later */
        int want[12] = {105, 106, 100, 101, 109, 110, 116, 117, 111, 112, 120, 121};
        expect_packed_ints(buf, 2, t, want, 12);
    }
    /* displacements count in extents of oldtype */
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &u), MPI_SUCCESS);
    {
        int d2[2] = {1, 3};
        MPI_Datatype w;
        assert_int_equal(MPI_Type_create_indexed_block(2, 1, d2, u, &w), MPI_SUCCESS);
        expect_bounds(w, 16, 8, 24, 8, 24);
        int want[4] = {102, 103, 106, 107};
        expect_packed_ints(buf, 1, w, want, 4);
        MPI_Type_free(&w);
    }
    /* negative displacement; count 0; blocklength 0 */
    disp[1] = -2;
    assert_int_equal(MPI_Type_create_indexed_block(2, 1, disp, MPI_INT, &u), MPI_SUCCESS);
    expect_bounds(u, 8, -8, 32, -8, 32);
    {
        int want[2] = {115, 108};
        expect_packed_ints(buf + 10, 1, u, want, 2);
    }
    MPI_Type_free(&u);
    assert_int_equal(MPI_Type_create_indexed_block(0, 2, NULL, MPI_INT, &u), MPI_SUCCESS);
    expect_bounds(u, 0, 0, 0, 0, 0);
    MPI_Type_free(&u);
    assert_int_equal(MPI_Type_create_indexed_block(3, 0, disp, MPI_INT, &u), MPI_SUCCESS);
    expect_bounds(u, 0, 0, 0, 0, 0);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    /* errors */
    assert_int_equal(MPI_Type_create_indexed_block(-1, 1, disp, MPI_INT, &u), MPI_ERR_COUNT);
    assert_string_equal(stub_last_fn, "MPI_Type_create_indexed_block");
    assert_int_equal(MPI_Type_create_indexed_block(1, -1, disp, MPI_INT, &u), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_indexed_block(1, 1, NULL, MPI_INT, &u), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_indexed_block(1, 1, disp, MPI_DATATYPE_NULL, &u), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_indexed_block(1, 1, disp, MPI_INT, NULL), MPI_ERR_ARG);
}

static void test_hindexed_block(void **state)
{
    double buf[16];
    MPI_Aint disp[3] = {40, 0, 80};
    MPI_Datatype t, u;
    (void)state;
    for (int i = 0; i < 16; i++)
        buf[i] = i + 0.5;
    /* blocks of 2 doubles at bytes 40, 0, 80 */
    assert_int_equal(MPI_Type_create_hindexed_block(3, 2, disp, MPI_DOUBLE, &t), MPI_SUCCESS);
    expect_bounds(t, 48, 0, 96, 0, 96);
    {
        double out[6], want[6] = {5.5, 6.5, 0.5, 1.5, 10.5, 11.5};
        mpii_datatype_pack(buf, 1, mpii_datatype_get(t), out);
        for (int i = 0; i < 6; i++)
            assert_true(out[i] == want[i]);
    }
    /* byte displacements are not scaled: an odd offset of chars */
    {
        char cb[16];
        MPI_Aint d2[2] = {3, 9};
        char out[6];
        for (int i = 0; i < 16; i++)
            cb[i] = (char)('a' + i);
        assert_int_equal(MPI_Type_create_hindexed_block(2, 3, d2, MPI_CHAR, &u), MPI_SUCCESS);
        expect_bounds(u, 6, 3, 9, 3, 9);
        mpii_datatype_pack(cb, 1, mpii_datatype_get(u), out);
        assert_memory_equal(out, "defjkl", 6);
        MPI_Type_free(&u);
    }
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_hindexed_block(0, 1, NULL, MPI_INT, &u), MPI_SUCCESS);
    expect_bounds(u, 0, 0, 0, 0, 0);
    MPI_Type_free(&u);
    assert_int_equal(MPI_Type_create_hindexed_block(-2, 1, disp, MPI_INT, &u), MPI_ERR_COUNT);
    assert_string_equal(stub_last_fn, "MPI_Type_create_hindexed_block");
    assert_int_equal(MPI_Type_create_hindexed_block(1, -1, disp, MPI_INT, &u), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &u), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_hindexed_block(1, 1, disp, 4711, &u), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_hindexed_block(1, 1, disp, MPI_INT, NULL), MPI_ERR_ARG);
}

/* ------------------------------------------------------------------ */
/* subarray                                                            */

/* a[i][j] = 100 * i + j */
#define NR 4
#define NC 5

static void test_subarray_c_2d(void **state)
{
    int a[NR][NC];
    int sizes[2] = {NR, NC}, subs[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Datatype t;
    (void)state;
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++)
            a[i][j] = 100 * i + j;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_SUCCESS);
    /* lb 0, extent the whole array; data from a[1][1] to a[2][3] */
    expect_bounds(t, 24, 0, NR * NC * 4, (1 * NC + 1) * 4, ((2 * NC + 3) - (1 * NC + 1) + 1) * 4);
    {
        int want[6] = {101, 102, 103, 201, 202, 203};
        expect_packed_ints(a, 1, t, want, 6);
    }
    assert_int_equal(mpii_datatype_get(t)->nblocks, 2);
    assert_int_equal(mpii_datatype_get(t)->basic, MPI_INT);
    /* unpack into a zeroed array touches exactly the subarray */
    {
        int z[NR][NC], src[6] = {1, 2, 3, 4, 5, 6};
        memset(z, 0, sizeof z);
        mpii_datatype_unpack(src, sizeof src, z, 1, mpii_datatype_get(t));
        for (int i = 0; i < NR; i++)
            for (int j = 0; j < NC; j++) {
                int in = i >= 1 && i < 3 && j >= 1 && j < 4;
                assert_int_equal(z[i][j], in ? (i - 1) * 3 + (j - 1) + 1 : 0);
            }
    }
    MPI_Type_free(&t);

    /* whole array: contiguous */
    subs[0] = NR;
    subs[1] = NC;
    starts[0] = starts[1] = 0;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, NR * NC * 4, 0, NR * NC * 4, 0, NR * NC * 4);
    assert_true(mpii_datatype_get(t)->contig);
    MPI_Type_free(&t);

    /* one column */
    subs[0] = NR;
    subs[1] = 1;
    starts[1] = 4;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_SUCCESS);
    {
        int want[NR] = {4, 104, 204, 304};
        expect_packed_ints(a, 1, t, want, NR);
    }
    /* count 2 steps over the whole array */
    {
        int two[2][NR][NC];
        memcpy(two[0], a, sizeof a);
        for (int i = 0; i < NR; i++)
            for (int j = 0; j < NC; j++)
                two[1][i][j] = a[i][j] + 1000;
        int want[2 * NR] = {4, 104, 204, 304, 1004, 1104, 1204, 1304};
        expect_packed_ints(two, 2, t, want, 2 * NR);
    }
    MPI_Type_free(&t);
}

static void test_subarray_fortran_and_3d(void **state)
{
    /* Fortran order on reversed arrays selects what C order does */
    int sizes[3] = {3, 4, 5}, subs[3] = {2, 2, 3}, starts[3] = {1, 2, 0};
    int rsizes[3] = {5, 4, 3}, rsubs[3] = {3, 2, 2}, rstarts[3] = {0, 2, 1};
    int a[3][4][5];
    MPI_Datatype c, f;
    (void)state;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++)
                a[i][j][k] = 10000 * i + 100 * j + k;
    assert_int_equal(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &c), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_subarray(3, rsizes, rsubs, rstarts, MPI_ORDER_FORTRAN, MPI_INT, &f),
                     MPI_SUCCESS);
    {
        int want[12], n = 0;
        for (int i = 1; i < 3; i++)
            for (int j = 2; j < 4; j++)
                for (int k = 0; k < 3; k++)
                    want[n++] = a[i][j][k];
        expect_packed_ints(a, 1, c, want, 12);
        expect_packed_ints(a, 1, f, want, 12);
    }
    {
        MPI_Aint tlb = (MPI_Aint)((1 * 4 + 2) * 5 + 0) * 4, tub = (MPI_Aint)((2 * 4 + 3) * 5 + 2 + 1) * 4;
        expect_bounds(c, 48, 0, 3 * 4 * 5 * 4, tlb, tub - tlb);
        expect_bounds(f, 48, 0, 3 * 4 * 5 * 4, tlb, tub - tlb);
    }
    MPI_Type_free(&c);
    MPI_Type_free(&f);

    /* Fortran order, 2D: a(4,3) column-major, rows 2..3, columns 1..2 (0-based) */
    {
        int fa[3][4]; /* fa[col][row] = element (row, col) */
        int fs[2] = {4, 3}, fsub[2] = {2, 2}, fst[2] = {2, 1};
        for (int col = 0; col < 3; col++)
            for (int row = 0; row < 4; row++)
                fa[col][row] = 10 * row + col;
        assert_int_equal(MPI_Type_create_subarray(2, fs, fsub, fst, MPI_ORDER_FORTRAN, MPI_INT, &f),
                         MPI_SUCCESS);
        int want[4] = {21, 31, 22, 32}; /* first index fastest */
        expect_packed_ints(fa, 1, f, want, 4);
        expect_bounds(f, 16, 0, 48, (1 * 4 + 2) * 4, ((2 * 4 + 3) - (1 * 4 + 2) + 1) * 4);
        MPI_Type_free(&f);
    }
    /* 1D */
    {
        int s1 = 10, sub1 = 3, st1 = 7;
        assert_int_equal(MPI_Type_create_subarray(1, &s1, &sub1, &st1, MPI_ORDER_C, MPI_SHORT, &c),
                         MPI_SUCCESS);
        expect_bounds(c, 6, 0, 20, 14, 6);
        MPI_Type_free(&c);
        assert_int_equal(MPI_Type_create_subarray(1, &s1, &sub1, &st1, MPI_ORDER_FORTRAN, MPI_SHORT, &c),
                         MPI_SUCCESS);
        expect_bounds(c, 6, 0, 20, 14, 6);
        MPI_Type_free(&c);
    }
}

static void test_subarray_derived_oldtype(void **state)
{
    /* copies of oldtype sit at multiples of its extent, whatever its lb */
    int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Datatype rs, t, pair, u;
    (void)state;
    assert_int_equal(MPI_Type_create_resized(MPI_INT, -4, 12, &rs), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, rs, &t), MPI_SUCCESS);
    expect_bounds(t, 24, 0, 240, 72, 88);
    MPI_Type_free(&t);
    MPI_Type_free(&rs);

    /* oldtype {int, gap, int}: two ints per element, extent 12 */
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 8};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
        assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &pair), MPI_SUCCESS);
    }
    expect_bounds(pair, 8, 0, 12, 0, 12);
    {
        int s1 = 4, sub1 = 2, st1 = 1, buf[12];
        for (int i = 0; i < 12; i++)
            buf[i] = i;
        assert_int_equal(MPI_Type_create_subarray(1, &s1, &sub1, &st1, MPI_ORDER_C, pair, &u), MPI_SUCCESS);
        expect_bounds(u, 16, 0, 48, 12, 24);
        int want[4] = {3, 5, 6, 8};
        expect_packed_ints(buf, 1, u, want, 4);
        MPI_Type_free(&u);
    }
    MPI_Type_free(&pair);
}

static void test_subarray_errors(void **state)
{
    int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Datatype t;
    (void)state;
    assert_int_equal(MPI_Type_create_subarray(0, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    assert_string_equal(stub_last_fn, "MPI_Type_create_subarray");
    assert_int_equal(MPI_Type_create_subarray(-1, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, 3, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_subarray(2, NULL, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, NULL, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, NULL, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DATATYPE_NULL, &t),
                     MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, NULL),
                     MPI_ERR_ARG);
    starts[1] = 3; /* 3 + 3 > 5 */
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    starts[1] = -1;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    starts[1] = 0;
    subs[0] = 0;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    subs[0] = 5; /* > size 4 */
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    subs[0] = 2;
    sizes[1] = 0;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    /* the whole array's extent must fit in MPI_Aint */
    {
        int big[3] = {INT_MAX, INT_MAX, INT_MAX}, one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
        assert_int_equal(MPI_Type_create_subarray(3, big, one, zero, MPI_ORDER_C, MPI_DOUBLE, &t),
                         MPI_ERR_ARG);
    }
    stub_initialized = 0;
    sizes[1] = 5;
    assert_int_equal(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_OTHER);
    stub_initialized = 1;
}

/* ------------------------------------------------------------------ */
/* envelopes and contents                                              */

static void test_envelope_named(void **state)
{
    contents_t c;
    (void)state;
    for (MPI_Datatype h = MPI_CHAR; h <= MPI_UB; h++)
        expect_envelope(h, MPI_COMBINER_NAMED, 0, 0, 0);
    /* the pair types are named too */
    expect_envelope(MPI_2INT, MPI_COMBINER_NAMED, 0, 0, 0);
    assert_int_equal(MPI_Type_get_contents(MPI_INT, 4, 4, 4, c.ints, c.aints, c.types), MPI_ERR_TYPE);
    assert_string_equal(stub_last_fn, "MPI_Type_get_contents");
    {
        int a, b, d, e;
        assert_int_equal(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &a, &b, &d, &e), MPI_ERR_TYPE);
        assert_int_equal(MPI_Type_get_envelope(MPI_INT, NULL, &b, &d, &e), MPI_ERR_ARG);
        assert_int_equal(MPI_Type_get_envelope(MPI_INT, &a, &b, &d, NULL), MPI_ERR_ARG);
    }
}

static void test_contents_simple(void **state)
{
    MPI_Datatype t;
    contents_t c;
    (void)state;
    assert_int_equal(MPI_Type_contiguous(7, MPI_DOUBLE, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    get_contents(t, &c);
    assert_int_equal(c.ints[0], 7);
    assert_int_equal(c.types[0], MPI_DOUBLE);
    MPI_Type_free(&t);

    assert_int_equal(MPI_Type_vector(3, 2, -5, MPI_SHORT, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_VECTOR, 3, 0, 1);
    get_contents(t, &c);
    assert_int_equal(c.ints[0], 3);
    assert_int_equal(c.ints[1], 2);
    assert_int_equal(c.ints[2], -5);
    assert_int_equal(c.types[0], MPI_SHORT);
    MPI_Type_free(&t);

    assert_int_equal(MPI_Type_create_hvector(4, 1, 1234567, MPI_CHAR, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
    get_contents(t, &c);
    assert_int_equal(c.ints[0], 4);
    assert_int_equal(c.ints[1], 1);
    assert_int_equal(c.aints[0], 1234567);
    assert_int_equal(c.types[0], MPI_CHAR);
    MPI_Type_free(&t);

    {
        int bl[3] = {1, 0, 4}, d[3] = {9, 3, -2};
        assert_int_equal(MPI_Type_indexed(3, bl, d, MPI_FLOAT, &t), MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_INDEXED, 7, 0, 1);
        get_contents(t, &c);
        int want[7] = {3, 1, 0, 4, 9, 3, -2};
        assert_memory_equal(c.ints, want, sizeof want);
        assert_int_equal(c.types[0], MPI_FLOAT);
        MPI_Type_free(&t);
    }
    {
        int bl[2] = {2, 3};
        MPI_Aint d[2] = {64, -8};
        assert_int_equal(MPI_Type_create_hindexed(2, bl, d, MPI_LONG, &t), MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_HINDEXED, 3, 2, 1);
        get_contents(t, &c);
        assert_int_equal(c.ints[0], 2);
        assert_int_equal(c.ints[1], 2);
        assert_int_equal(c.ints[2], 3);
        assert_int_equal(c.aints[0], 64);
        assert_int_equal(c.aints[1], -8);
        assert_int_equal(c.types[0], MPI_LONG);
        MPI_Type_free(&t);
    }
    {
        int d[4] = {6, 2, 4, 0};
        assert_int_equal(MPI_Type_create_indexed_block(4, 2, d, MPI_INT, &t), MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_INDEXED_BLOCK, 6, 0, 1);
        get_contents(t, &c);
        int want[6] = {4, 2, 6, 2, 4, 0};
        assert_memory_equal(c.ints, want, sizeof want);
        assert_int_equal(c.types[0], MPI_INT);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint d[3] = {16, 0, 48};
        assert_int_equal(MPI_Type_create_hindexed_block(3, 5, d, MPI_BYTE, &t), MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
        get_contents(t, &c);
        assert_int_equal(c.ints[0], 3);
        assert_int_equal(c.ints[1], 5);
        assert_int_equal(c.aints[0], 16);
        assert_int_equal(c.aints[1], 0);
        assert_int_equal(c.aints[2], 48);
        assert_int_equal(c.types[0], MPI_BYTE);
        MPI_Type_free(&t);
    }
    {
        int bl[3] = {1, 2, 1};
        MPI_Aint d[3] = {0, 8, 24};
        MPI_Datatype ty[3] = {MPI_LB, MPI_DOUBLE, MPI_UB};
        assert_int_equal(MPI_Type_create_struct(3, bl, d, ty, &t), MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_STRUCT, 4, 3, 3);
        get_contents(t, &c);
        int want[4] = {3, 1, 2, 1};
        assert_memory_equal(c.ints, want, sizeof want);
        assert_memory_equal(c.aints, d, sizeof d);
        assert_memory_equal(c.types, ty, sizeof ty);
        MPI_Type_free(&t);
    }
    {
        int sizes[3] = {9, 8, 7}, subs[3] = {3, 2, 1}, starts[3] = {6, 5, 4};
        assert_int_equal(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t),
                         MPI_SUCCESS);
        expect_envelope(t, MPI_COMBINER_SUBARRAY, 11, 0, 1);
        get_contents(t, &c);
        int want[11] = {3, 9, 8, 7, 3, 2, 1, 6, 5, 4, MPI_ORDER_FORTRAN};
        assert_memory_equal(c.ints, want, sizeof want);
        assert_int_equal(c.types[0], MPI_DOUBLE);
        MPI_Type_free(&t);
    }
    assert_int_equal(MPI_Type_create_resized(MPI_INT, -3, 17, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_RESIZED, 0, 2, 1);
    get_contents(t, &c);
    assert_int_equal(c.aints[0], -3);
    assert_int_equal(c.aints[1], 17);
    assert_int_equal(c.types[0], MPI_INT);
    MPI_Type_free(&t);

    assert_int_equal(MPI_Type_dup(MPI_C_DOUBLE_COMPLEX, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_DUP, 0, 0, 1);
    get_contents(t, &c);
    assert_int_equal(c.types[0], MPI_C_DOUBLE_COMPLEX);
    /* arrays too small; NULL arrays */
    assert_int_equal(MPI_Type_get_contents(t, 0, 0, 0, c.ints, c.aints, c.types), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_contents(t, 0, 0, 1, c.ints, c.aints, NULL), MPI_ERR_ARG);
    /* NULL arrays are fine where nothing is stored */
    assert_int_equal(MPI_Type_get_contents(t, 0, 0, 1, NULL, NULL, c.types), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_contents(MPI_DATATYPE_NULL, 1, 1, 1, c.ints, c.aints, c.types),
                     MPI_ERR_TYPE);
    MPI_Type_free(&t);

    /* zero counts are recorded as given */
    assert_int_equal(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_INDEXED, 1, 0, 1);
    get_contents(t, &c);
    assert_int_equal(c.ints[0], 0);
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_struct(0, NULL, NULL, NULL, &t), MPI_SUCCESS);
    expect_envelope(t, MPI_COMBINER_STRUCT, 1, 0, 0);
    MPI_Type_free(&t);
}

/* Derived type arguments: the handle get_contents returns describes the same
 * type, must be freed by the caller, and stays usable after the original
 * handle was freed (the constructed type keeps the object). */
static void test_contents_derived_lifetime(void **state)
{
    MPI_Datatype inner, vec, outer, got, got2, ty[2];
    contents_t c;
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 64};
    (void)state;
    assert_int_equal(MPI_Type_vector(2, 1, 3, MPI_INT, &inner), MPI_SUCCESS);
    assert_int_equal(MPI_Type_contiguous(3, inner, &vec), MPI_SUCCESS);
    ty[0] = MPI_CHAR;
    ty[1] = vec;
    assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &outer), MPI_SUCCESS);

    /* while the original handle is valid, that handle comes back */
    get_contents(vec, &c);
    assert_int_equal(c.ints[0], 3);
    got = c.types[0];
    assert_int_equal(got, inner);
    expect_envelope(got, MPI_COMBINER_VECTOR, 3, 0, 1);
    /* ... with one more reference: two frees are needed */
    assert_int_equal(MPI_Type_free(&got), MPI_SUCCESS);
    expect_bounds(inner, 8, 0, 16, 0, 16);
    assert_int_equal(MPI_Type_free(&inner), MPI_SUCCESS);
    assert_null(mpii_datatype_get(c.types[0]));

    /* inner is freed by the user, but vec still describes it */
    get_contents(vec, &c);
    got = c.types[0];
    assert_non_null(mpii_datatype_get(got));
    expect_envelope(got, MPI_COMBINER_VECTOR, 3, 0, 1);
    expect_bounds(got, 8, 0, 16, 0, 16);
    {
        contents_t c2;
        get_contents(got, &c2);
        assert_int_equal(c2.ints[0], 2);
        assert_int_equal(c2.ints[1], 1);
        assert_int_equal(c2.ints[2], 3);
        assert_int_equal(c2.types[0], MPI_INT);
    }
    /* a second call gives the same handle (another reference) */
    get_contents(vec, &c);
    got2 = c.types[0];
    assert_int_equal(got2, got);
    /* the returned type works: commit and use it */
    assert_int_equal(MPI_Type_commit(&got), MPI_SUCCESS);
    assert_int_equal(mpii_datatype_check(got), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&got), MPI_SUCCESS);
    assert_non_null(mpii_datatype_get(got2));
    assert_int_equal(MPI_Type_free(&got2), MPI_SUCCESS);
    assert_null(mpii_datatype_get(c.types[0]));

    /* walk the whole tree from outer after freeing vec */
    assert_int_equal(MPI_Type_free(&vec), MPI_SUCCESS);
    get_contents(outer, &c);
    assert_int_equal(c.types[0], MPI_CHAR);
    {
        MPI_Datatype v2 = c.types[1];
        contents_t c2, c3;
        expect_envelope(v2, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
        expect_bounds(v2, 24, 0, 48, 0, 48);
        get_contents(v2, &c2);
        expect_envelope(c2.types[0], MPI_COMBINER_VECTOR, 3, 0, 1);
        get_contents(c2.types[0], &c3);
        assert_int_equal(c3.types[0], MPI_INT);
        free_contents_types(&c2, 1);
        free_contents_types(&c, 2);
    }
    /* the same derived type twice in one struct */
    {
        MPI_Datatype pair, s2;
        MPI_Datatype two[2];
        assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &pair), MPI_SUCCESS);
        two[0] = two[1] = pair;
        assert_int_equal(MPI_Type_create_struct(2, bl, d, two, &s2), MPI_SUCCESS);
        assert_int_equal(MPI_Type_free(&pair), MPI_SUCCESS);
        get_contents(s2, &c);
        assert_int_equal(c.types[0], c.types[1]);
        assert_int_equal(MPI_Type_free(&c.types[0]), MPI_SUCCESS);
        assert_non_null(mpii_datatype_get(c.types[1]));
        assert_int_equal(MPI_Type_free(&c.types[1]), MPI_SUCCESS);
        MPI_Type_free(&s2);
    }
    /* dup and resized of derived types */
    {
        MPI_Datatype base, dup, rs;
        assert_int_equal(MPI_Type_contiguous(4, MPI_CHAR, &base), MPI_SUCCESS);
        assert_int_equal(MPI_Type_dup(base, &dup), MPI_SUCCESS);
        assert_int_equal(MPI_Type_create_resized(dup, 0, 8, &rs), MPI_SUCCESS);
        MPI_Type_free(&base);
        MPI_Type_free(&dup);
        get_contents(rs, &c);
        expect_envelope(c.types[0], MPI_COMBINER_DUP, 0, 0, 1);
        {
            contents_t c2;
            get_contents(c.types[0], &c2);
            expect_envelope(c2.types[0], MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
            free_contents_types(&c2, 1);
        }
        free_contents_types(&c, 1);
        MPI_Type_free(&rs);
    }
    /* outer left for mpii_datatype_finalize (valgrind checks the tree is freed) */
    (void)outer;
}

/* ------------------------------------------------------------------ */
/* _x queries                                                          */

static void test_x_queries(void **state)
{
    MPI_Status s;
    MPI_Count n;
    MPI_Datatype st, big;
    (void)state;
    memset(&s, 0, sizeof s);
    s.mbmpi_count = 40;
    assert_int_equal(MPI_Get_elements_x(&s, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 10);
    s.mbmpi_count = 6;
    assert_int_equal(MPI_Get_elements_x(&s, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, MPI_UNDEFINED);
    s.mbmpi_count = 0;
    assert_int_equal(MPI_Get_elements_x(&s, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    { /* {int, double}: partial elements count basic elements */
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 8};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, d, ty, &st);
        MPI_Type_commit(&st);
    }
    s.mbmpi_count = 12 + 4;
    assert_int_equal(MPI_Get_elements_x(&s, st, &n), MPI_SUCCESS);
    assert_int_equal(n, 3);
    s.mbmpi_count = 12 + 6;
    assert_int_equal(MPI_Get_elements_x(&s, st, &n), MPI_SUCCESS);
    assert_int_equal(n, MPI_UNDEFINED);
    /* beyond an int: the int form says MPI_UNDEFINED, the _x form counts */
    s.mbmpi_count = 3LL * 1024 * 1024 * 1024;
    assert_int_equal(MPI_Get_elements_x(&s, MPI_CHAR, &n), MPI_SUCCESS);
    assert_true(n == 3LL * 1024 * 1024 * 1024);
    {
        int e;
        assert_int_equal(MPI_Get_elements(&s, MPI_CHAR, &e), MPI_SUCCESS);
        assert_int_equal(e, MPI_UNDEFINED);
    }
    /* a type larger than an int */
    {
        MPI_Datatype mb;
        int sz;
        MPI_Count csz;
        MPI_Type_contiguous(1024 * 1024, MPI_CHAR, &mb);
        MPI_Type_contiguous(4096, mb, &big);
        assert_int_equal(MPI_Type_size(big, &sz), MPI_SUCCESS);
        assert_int_equal(sz, MPI_UNDEFINED);
        assert_int_equal(MPI_Type_size_x(big, &csz), MPI_SUCCESS);
        assert_true(csz == 4096LL * 1024 * 1024);
        MPI_Type_free(&mb);
        MPI_Type_free(&big);
    }
    /* MPI_Status_set_elements(_x): what Get_elements / Get_count then say */
    {
        int e, cnt;
        MPI_Datatype four;
        MPI_Type_contiguous(4, MPI_INT, &four);
        MPI_Type_commit(&four);
        assert_int_equal(MPI_Status_set_elements(&s, MPI_INT, 10), MPI_SUCCESS);
        assert_int_equal(MPI_Get_elements(&s, MPI_INT, &e), MPI_SUCCESS);
        assert_int_equal(e, 10);
        assert_int_equal(MPI_Get_count(&s, MPI_INT, &cnt), MPI_SUCCESS);
        assert_int_equal(cnt, 10);
        assert_int_equal(MPI_Status_set_elements_x(&s, four, 4), MPI_SUCCESS);
        assert_int_equal(MPI_Get_count(&s, four, &cnt), MPI_SUCCESS);
        assert_int_equal(cnt, 1);
        assert_int_equal(MPI_Get_elements_x(&s, four, &n), MPI_SUCCESS);
        assert_int_equal(n, 4);
        assert_int_equal(MPI_Status_set_elements(&s, four, 6), MPI_SUCCESS);
        assert_int_equal(MPI_Get_count(&s, four, &cnt), MPI_SUCCESS);
        assert_int_equal(cnt, MPI_UNDEFINED);
        assert_int_equal(MPI_Get_elements(&s, four, &e), MPI_SUCCESS);
        assert_int_equal(e, 6);
        /* mixed basic types: {int, double} */
        assert_int_equal(MPI_Status_set_elements(&s, st, 3), MPI_SUCCESS);
        assert_int_equal(s.mbmpi_count, 12 + 4);
        assert_int_equal(MPI_Get_elements(&s, st, &e), MPI_SUCCESS);
        assert_int_equal(e, 3);
        /* beyond an int */
        assert_int_equal(MPI_Status_set_elements_x(&s, four, 4LL * (INT_MAX / 2)), MPI_SUCCESS);
        assert_int_equal(MPI_Get_elements(&s, four, &e), MPI_SUCCESS);
        assert_int_equal(e, MPI_UNDEFINED);
        assert_int_equal(MPI_Get_elements_x(&s, four, &n), MPI_SUCCESS);
        assert_true(n == 4LL * (INT_MAX / 2));
        assert_int_equal(MPI_Get_count(&s, four, &cnt), MPI_SUCCESS);
        assert_int_equal(cnt, INT_MAX / 2);
        assert_int_equal(MPI_Status_set_elements(&s, MPI_LB, 0), MPI_SUCCESS);
        assert_int_equal(MPI_Status_set_elements(&s, MPI_LB, 1), MPI_ERR_TYPE);
        assert_int_equal(MPI_Status_set_elements(&s, MPI_INT, -1), MPI_ERR_COUNT);
        assert_int_equal(MPI_Status_set_elements(NULL, MPI_INT, 1), MPI_ERR_ARG);
        assert_int_equal(MPI_Status_set_elements_x(&s, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
        assert_string_equal(stub_last_fn, "MPI_Status_set_elements_x");
        MPI_Type_free(&four);
    }
    /* errors */
    assert_int_equal(MPI_Get_elements_x(NULL, MPI_INT, &n), MPI_ERR_ARG);
    assert_int_equal(MPI_Get_elements_x(&s, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    assert_int_equal(MPI_Get_elements_x(&s, MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_size_x(MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_size_x(MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_extent_x(MPI_INT, &n, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_extent_x(777, &n, &n), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_get_true_extent_x(MPI_INT, NULL, &n), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_true_extent_x(-5, &n, &n), MPI_ERR_TYPE);
    MPI_Type_free(&st);
}

/* ------------------------------------------------------------------ */
/* names                                                               */

static void test_names(void **state)
{
    static const struct {
        MPI_Datatype h;
        const char *name;
    } names[] = {
        {MPI_CHAR, "MPI_CHAR"},
        {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"},
        {MPI_BYTE, "MPI_BYTE"},
        {MPI_WCHAR, "MPI_WCHAR"},
        {MPI_SHORT, "MPI_SHORT"},
        {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"},
        {MPI_INT, "MPI_INT"},
        {MPI_UNSIGNED, "MPI_UNSIGNED"},
        {MPI_LONG, "MPI_LONG"},
        {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
        {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"},
        {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
        {MPI_FLOAT, "MPI_FLOAT"},
        {MPI_DOUBLE, "MPI_DOUBLE"},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
        {MPI_C_BOOL, "MPI_C_BOOL"},
        {MPI_INT8_T, "MPI_INT8_T"},
        {MPI_INT16_T, "MPI_INT16_T"},
        {MPI_INT32_T, "MPI_INT32_T"},
        {MPI_INT64_T, "MPI_INT64_T"},
        {MPI_UINT8_T, "MPI_UINT8_T"},
        {MPI_UINT16_T, "MPI_UINT16_T"},
        {MPI_UINT32_T, "MPI_UINT32_T"},
        {MPI_UINT64_T, "MPI_UINT64_T"},
        {MPI_C_COMPLEX, "MPI_C_COMPLEX"}, /* the same handle as MPI_C_FLOAT_COMPLEX */
        {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
        {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
        {MPI_AINT, "MPI_AINT"},
        {MPI_OFFSET, "MPI_OFFSET"},
        {MPI_COUNT, "MPI_COUNT"},
        {MPI_PACKED, "MPI_PACKED"},
        {MPI_FLOAT_INT, "MPI_FLOAT_INT"},
        {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
        {MPI_LONG_INT, "MPI_LONG_INT"},
        {MPI_2INT, "MPI_2INT"},
        {MPI_SHORT_INT, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
        {MPI_INTEGER, "MPI_INTEGER"},
        {MPI_REAL, "MPI_REAL"},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
        {MPI_COMPLEX, "MPI_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
        {MPI_LOGICAL, "MPI_LOGICAL"},
        {MPI_CHARACTER, "MPI_CHARACTER"},
        {MPI_2INTEGER, "MPI_2INTEGER"},
        {MPI_2REAL, "MPI_2REAL"},
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
        {MPI_INTEGER8, "MPI_INTEGER8"},
        {MPI_REAL8, "MPI_REAL8"},
        {MPI_LB, "MPI_LB"},
        {MPI_UB, "MPI_UB"},
    };
    char name[MPI_MAX_OBJECT_NAME];
    char longname[MPI_MAX_OBJECT_NAME + 50];
    int len;
    MPI_Datatype t, d;
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        len = -1;
        assert_int_equal(MPI_Type_get_name(names[i].h, name, &len), MPI_SUCCESS);
        assert_string_equal(name, names[i].name);
        assert_int_equal(len, (int)strlen(names[i].name));
    }
    /* every predefined handle has a name */
    for (MPI_Datatype h = MPI_CHAR; h <= MPI_UB; h++) {
        assert_int_equal(MPI_Type_get_name(h, name, &len), MPI_SUCCESS);
        assert_true(len > 4 && strncmp(name, "MPI_", 4) == 0);
    }
    /* derived: empty until set; names are not copied by dup */
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    len = -1;
    assert_int_equal(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "");
    assert_int_equal(len, 0);
    assert_int_equal(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "pair of ints");
    assert_int_equal(len, 12);
    assert_int_equal(MPI_Type_set_name(t, "renamed"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "renamed");
    assert_int_equal(MPI_Type_dup(t, &d), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(d, name, &len), MPI_SUCCESS);
    assert_int_equal(len, 0);
    /* too long: truncated to MPI_MAX_OBJECT_NAME - 1 characters */
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(MPI_Type_set_name(d, longname), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(d, name, &len), MPI_SUCCESS);
    assert_int_equal(len, MPI_MAX_OBJECT_NAME - 1);
    assert_int_equal((int)strlen(name), MPI_MAX_OBJECT_NAME - 1);
    /* predefined types can be renamed (MPI 3.1 section 6.8) */
    assert_int_equal(MPI_Type_set_name(MPI_FLOAT, "my float"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(MPI_FLOAT, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "my float");
    /* errors */
    assert_int_equal(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len), MPI_ERR_TYPE);
    assert_string_equal(stub_last_fn, "MPI_Type_get_name");
    assert_int_equal(MPI_Type_get_name(MPI_INT, NULL, &len), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_name(MPI_INT, name, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_set_name(MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_set_name(99999, "x"), MPI_ERR_TYPE);
    assert_string_equal(stub_last_fn, "MPI_Type_set_name");
    MPI_Type_free(&t);
    MPI_Type_free(&d);
}

/* Runs after test_names: the predefined names are back after a restart. */
static void test_names_reset(void **state)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    (void)state;
    assert_int_equal(MPI_Type_get_name(MPI_FLOAT, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_FLOAT");
}

static void test_match_size(void **state)
{
    MPI_Datatype t;
    (void)state;
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_REAL);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_DOUBLE_PRECISION);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_INTEGER);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_INTEGER8);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 1, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_INT8_T);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_INT16_T);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_COMPLEX);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t), MPI_SUCCESS);
    assert_int_equal(t, MPI_DOUBLE_COMPLEX);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, (int)sizeof(long double), &t), MPI_SUCCESS);
    if (sizeof(long double) > 8)
        assert_int_equal(t, MPI_LONG_DOUBLE);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, -4, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_match_size(42, 4, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL), MPI_ERR_ARG);
}

/* The MPI-1 names removed in MPI 3.0 build the same types as their
 * replacements (legacy codes and MPICH's dtpools call them). */
static void test_mpi1_names(void **state)
{
    MPI_Datatype hv, hi, st, ref, types[2] = {MPI_INT, MPI_DOUBLE};
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {0, 16}, ext, lb, ub, a, b;
    double x;
    (void)state;
    assert_int_equal(MPI_Type_hvector(3, 2, 40, MPI_INT, &hv), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_hvector(3, 2, 40, MPI_INT, &ref), MPI_SUCCESS);
    assert_int_equal(MPI_Type_extent(hv, &ext), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_extent(ref, &lb, &a), MPI_SUCCESS);
    assert_int_equal(ext, a);
    assert_int_equal(ext, 2 * 40 + 2 * 4);
    assert_int_equal(MPI_Type_hindexed(2, bl, disp, MPI_INT, &hi), MPI_SUCCESS);
    assert_int_equal(MPI_Type_extent(hi, &ext), MPI_SUCCESS);
    assert_int_equal(ext, 20);
    disp[0] = 8;
    assert_int_equal(MPI_Type_struct(2, bl, disp, types, &st), MPI_SUCCESS);
    assert_int_equal(MPI_Type_lb(st, &lb), MPI_SUCCESS);
    assert_int_equal(lb, 8);
    assert_int_equal(MPI_Type_ub(st, &ub), MPI_SUCCESS);
    assert_int_equal(ub, 24);
    assert_int_equal(MPI_Type_extent(MPI_DATATYPE_NULL, &ext), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_lb(st, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Address(&x, &a), MPI_SUCCESS);
    assert_int_equal(MPI_Get_address(&x, &b), MPI_SUCCESS);
    assert_int_equal(a, b);
    MPI_Type_free(&hv);
    MPI_Type_free(&ref);
    MPI_Type_free(&hi);
    MPI_Type_free(&st);
}

/* MPI_Type_create_darray (MPI 3.1 4.1.4): a 4 x 6 array of ints over a
 * 2 x 2 process grid (row-major ranks) */
static void test_darray(void **state)
{
    int a[4][6], gs[2] = {4, 6}, ps[2] = {2, 2},
                 dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int blk[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int cyc[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, cdarg[2] = {1, 2};
    int ni, na, nd, comb, ints[32];
    MPI_Aint adds[1];
    MPI_Datatype t, types[1];
    (void)state;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            a[i][j] = 10 * i + j;
    /* block x block, rank 3 = coords (1, 1): rows 2-3, columns 3-5 */
    assert_int_equal(MPI_Type_create_darray(4, 3, 2, gs, blk, dflt, ps, MPI_ORDER_C, MPI_INT, &t),
                     MPI_SUCCESS);
    expect_bounds(t, 6 * 4, 0, 24 * 4, (2 * 6 + 3) * 4, ((3 * 6 + 5) - (2 * 6 + 3) + 1) * 4);
    {
        int want[6] = {23, 24, 25, 33, 34, 35};
        expect_packed_ints(a, 1, t, want, 6);
    }
    assert_int_equal(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);
    assert_int_equal(comb, MPI_COMBINER_DARRAY);
    assert_int_equal(ni, 4 * 2 + 4);
    assert_int_equal(MPI_Type_get_contents(t, 32, 1, 1, ints, adds, types), MPI_SUCCESS);
    assert_int_equal(ints[0], 4);
    assert_int_equal(ints[1], 3);
    assert_int_equal(ints[11], MPI_ORDER_C);
    MPI_Type_free(&t);
    /* cyclic(1) x cyclic(2), rank 1 = coords (0, 1): rows 0, 2; columns 2-3 */
    assert_int_equal(MPI_Type_create_darray(4, 1, 2, gs, cyc, cdarg, ps, MPI_ORDER_C, MPI_INT, &t),
                     MPI_SUCCESS);
    {
        int want[4] = {2, 3, 22, 23};
        expect_packed_ints(a, 1, t, want, 4);
    }
    MPI_Type_free(&t);
    /* Fortran order: the first dimension varies fastest; the same grid
     * over a 6 x 4 (Fortran) view of the memory, rank 2 = coords (1, 0):
     * first-dimension indices 3-5, second 0-1 */
    {
        int fg[2] = {6, 4}, want[6] = {3, 4, 5, 13, 14, 15}; /* flat 3-5, 9-11 */
        assert_int_equal(MPI_Type_create_darray(4, 2, 2, fg, blk, dflt, ps, MPI_ORDER_FORTRAN, MPI_INT, &t),
                         MPI_SUCCESS);
        expect_packed_ints(a, 1, t, want, 6);
        MPI_Type_free(&t);
    }
    /* errors: a grid of the wrong size, NONE over 2 processes, a block too small */
    assert_int_equal(MPI_Type_create_darray(3, 0, 2, gs, blk, dflt, ps, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    {
        int none[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, small[2] = {1, 1};
        assert_int_equal(MPI_Type_create_darray(4, 0, 2, gs, none, dflt, ps, MPI_ORDER_C, MPI_INT, &t),
                         MPI_ERR_ARG);
        assert_int_equal(MPI_Type_create_darray(4, 0, 2, gs, blk, small, ps, MPI_ORDER_C, MPI_INT, &t),
                         MPI_ERR_ARG);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_indexed_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hindexed_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subarray_c_2d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subarray_fortran_and_3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subarray_derived_oldtype, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subarray_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_envelope_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contents_simple, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contents_derived_lifetime, setup, teardown),
        cmocka_unit_test_setup_teardown(test_x_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mpi1_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_darray, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
