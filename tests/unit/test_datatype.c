/*
 * tests/unit/test_datatype.c: unit tests of mpi/datatype.c.
 * Standalone: cc ... test_datatype.c mpi/datatype.c tests/unit/mpi_stubs.c -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "mpi/mpi_impl.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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
    assert_int_equal(MPI_Type_size(t, &s), MPI_SUCCESS);
    assert_int_equal(s, size);
    assert_int_equal(MPI_Type_get_extent(t, &a, &b), MPI_SUCCESS);
    assert_int_equal(a, lb);
    assert_int_equal(b, extent);
    assert_int_equal(MPI_Type_get_true_extent(t, &a, &b), MPI_SUCCESS);
    assert_int_equal(a, tlb);
    assert_int_equal(b, textent);
}

/* ------------------------------------------------------------------ */
/* predefined                                                          */

struct pred {
    MPI_Datatype h;
    size_t size, extent, true_extent;
};

#define SIMPLE(h, T)                                                                                         \
    {                                                                                                        \
        h, sizeof(T), sizeof(T), sizeof(T)                                                                   \
    }
#define PAIRT(h, V, I, S)                                                                                    \
    {                                                                                                        \
        h, sizeof(V) + sizeof(I), sizeof(S), offsetof(S, i) + sizeof(I)                                      \
    }

typedef struct {
    float v;
    int i;
} s_float_int;
typedef struct {
    double v;
    int i;
} s_double_int;
typedef struct {
    long v;
    int i;
} s_long_int;
typedef struct {
    int v;
    int i;
} s_2int;
typedef struct {
    short v;
    int i;
} s_short_int;
typedef struct {
    long double v;
    int i;
} s_long_double_int;
typedef struct {
    float v;
    float i;
} s_2real;
typedef struct {
    double v;
    double i;
} s_2dp;

static const struct pred preds[] = {
    SIMPLE(MPI_CHAR, char),
    SIMPLE(MPI_SIGNED_CHAR, signed char),
    SIMPLE(MPI_UNSIGNED_CHAR, unsigned char),
    SIMPLE(MPI_BYTE, char),
    SIMPLE(MPI_WCHAR, wchar_t),
    SIMPLE(MPI_SHORT, short),
    SIMPLE(MPI_UNSIGNED_SHORT, unsigned short),
    SIMPLE(MPI_INT, int),
    SIMPLE(MPI_UNSIGNED, unsigned),
    SIMPLE(MPI_LONG, long),
    SIMPLE(MPI_UNSIGNED_LONG, unsigned long),
    SIMPLE(MPI_LONG_LONG_INT, long long),
    SIMPLE(MPI_LONG_LONG, long long),
    SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SIMPLE(MPI_FLOAT, float),
    SIMPLE(MPI_DOUBLE, double),
    SIMPLE(MPI_LONG_DOUBLE, long double),
    SIMPLE(MPI_C_BOOL, _Bool),
    SIMPLE(MPI_INT8_T, int8_t),
    SIMPLE(MPI_INT16_T, int16_t),
    SIMPLE(MPI_INT32_T, int32_t),
    SIMPLE(MPI_INT64_T, int64_t),
    SIMPLE(MPI_UINT8_T, uint8_t),
    SIMPLE(MPI_UINT16_T, uint16_t),
    SIMPLE(MPI_UINT32_T, uint32_t),
    SIMPLE(MPI_UINT64_T, uint64_t),
    SIMPLE(MPI_C_FLOAT_COMPLEX, float _Complex),
    SIMPLE(MPI_C_COMPLEX, float _Complex),
    SIMPLE(MPI_C_DOUBLE_COMPLEX, double _Complex),
    SIMPLE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    SIMPLE(MPI_AINT, MPI_Aint),
    SIMPLE(MPI_OFFSET, long long),
    SIMPLE(MPI_COUNT, long long),
    SIMPLE(MPI_PACKED, char),
    PAIRT(MPI_FLOAT_INT, float, int, s_float_int),
    PAIRT(MPI_DOUBLE_INT, double, int, s_double_int),
    PAIRT(MPI_LONG_INT, long, int, s_long_int),
    PAIRT(MPI_2INT, int, int, s_2int),
    PAIRT(MPI_SHORT_INT, short, int, s_short_int),
    PAIRT(MPI_LONG_DOUBLE_INT, long double, int, s_long_double_int),
    SIMPLE(MPI_INTEGER, int32_t),
    SIMPLE(MPI_REAL, float),
    SIMPLE(MPI_DOUBLE_PRECISION, double),
    SIMPLE(MPI_COMPLEX, float _Complex),
    SIMPLE(MPI_DOUBLE_COMPLEX, double _Complex),
    SIMPLE(MPI_LOGICAL, int32_t),
    SIMPLE(MPI_CHARACTER, char),
    PAIRT(MPI_2INTEGER, int32_t, int32_t, s_2int),
    PAIRT(MPI_2REAL, float, float, s_2real),
    PAIRT(MPI_2DOUBLE_PRECISION, double, double, s_2dp),
    SIMPLE(MPI_INTEGER8, int64_t),
    SIMPLE(MPI_REAL8, double),
};

static void test_predefined_sizes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof preds / sizeof preds[0]; i++) {
        const struct pred *p = &preds[i];
        mpii_datatype_t *t = mpii_datatype_get(p->h);
        assert_non_null(t);
        expect_bounds(p->h, (int)p->size, 0, (MPI_Aint)p->extent, 0, (MPI_Aint)p->true_extent);
        assert_true(t->predefined);
        assert_true(t->committed);
        assert_int_equal(t->basic, p->h);
        assert_int_equal(t->basic_count, 1);
        assert_int_equal(mpii_datatype_check(p->h), MPI_SUCCESS);
        assert_int_equal(t->contig, p->size == p->extent && p->size == p->true_extent);
    }
    /* spot checks of the layouts the brief names */
    assert_int_equal(mpii_datatype_get(MPI_LONG_DOUBLE)->size, sizeof(long double));
    assert_int_equal(mpii_datatype_get(MPI_SHORT_INT)->nblocks, 2);
    assert_int_equal(mpii_datatype_get(MPI_SHORT_INT)->blocks[1].disp, offsetof(s_short_int, i));
    assert_int_equal(mpii_datatype_get(MPI_DOUBLE_INT)->nblocks, 1);
    assert_int_equal(mpii_datatype_get(MPI_DOUBLE_INT)->blocks[0].len, 12);
    expect_bounds(MPI_LB, 0, 0, 0, 0, 0);
    expect_bounds(MPI_UB, 0, 0, 0, 0, 0);
}

static void test_invalid_handles(void **state)
{
    int s;
    MPI_Aint a, b;
    (void)state;
    assert_null(mpii_datatype_get(MPI_DATATYPE_NULL));
    /* 53..MBMPI_DATATYPE_PREDEFINED_MAX: the sized Fortran and the C++ types */
    assert_non_null(mpii_datatype_get(MPI_INTEGER1));
    assert_non_null(mpii_datatype_get(MBMPI_DATATYPE_PREDEFINED_MAX));
    assert_null(mpii_datatype_get(MBMPI_DATATYPE_PREDEFINED_MAX + 1));
    assert_null(mpii_datatype_get(-5));
    assert_int_equal(mpii_datatype_check(MPI_DATATYPE_NULL), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_size(MPI_DATATYPE_NULL, &s), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_extent(999, &a, &b), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_get_extent(MPI_INT, NULL, &b), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_get_true_extent(MPI_INT, &a, NULL), MPI_ERR_ARG);
}

/* ------------------------------------------------------------------ */
/* constructors                                                        */

static void test_contiguous(void **state)
{
    MPI_Datatype t, e;
    mpii_datatype_t *p;
    (void)state;
    assert_int_equal(MPI_Type_contiguous(5, MPI_INT, &t), MPI_SUCCESS);
    assert_true(t > MBMPI_DATATYPE_PREDEFINED_MAX);
    expect_bounds(t, 20, 0, 20, 0, 20);
    p = mpii_datatype_get(t);
    assert_true(p->contig);
    assert_false(p->predefined);
    assert_false(p->committed);
    assert_int_equal(p->nblocks, 1);
    assert_int_equal(p->basic, MPI_INT);
    assert_int_equal(p->basic_count, 5);
    assert_int_equal(mpii_datatype_check(t), MPI_ERR_TYPE); /* not committed */
    assert_int_equal(MPI_Type_contiguous(0, MPI_DOUBLE, &e), MPI_SUCCESS);
    expect_bounds(e, 0, 0, 0, 0, 0);
    assert_int_equal(MPI_Type_free(&t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&e), MPI_SUCCESS);
}

static void test_vector(void **state)
{
    MPI_Datatype t;
    mpii_datatype_t *p;
    (void)state;
    /* 3 blocks of 2 doubles, stride 4 doubles: data at 0..16, 32..48, 64..80 */
    assert_int_equal(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t), MPI_SUCCESS);
    expect_bounds(t, 48, 0, 80, 0, 80);
    p = mpii_datatype_get(t);
    assert_false(p->contig);
    assert_int_equal(p->nblocks, 3);
    assert_int_equal(p->blocks[1].disp, 32);
    assert_int_equal(p->blocks[1].len, 16);
    assert_int_equal(p->basic, MPI_DOUBLE);
    assert_int_equal(p->basic_count, 6);
    MPI_Type_free(&t);

    /* stride == blocklength: contiguous, one merged block */
    assert_int_equal(MPI_Type_vector(4, 2, 2, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 32, 0, 32, 0, 32);
    p = mpii_datatype_get(t);
    assert_true(p->contig);
    assert_int_equal(p->nblocks, 1);
    MPI_Type_free(&t);

    /* negative stride: ints at 0,4 | -16,-12 | -32,-28 */
    assert_int_equal(MPI_Type_vector(3, 2, -4, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 24, -32, 40, -32, 40);
    p = mpii_datatype_get(t);
    assert_int_equal(p->nblocks, 3);
    assert_int_equal(p->blocks[0].disp, 0); /* type-map order is kept */
    assert_int_equal(p->blocks[2].disp, -32);
    MPI_Type_free(&t);

    /* hvector with a byte stride */
    assert_int_equal(MPI_Type_create_hvector(3, 1, 10, MPI_SHORT, &t), MPI_SUCCESS);
    expect_bounds(t, 6, 0, 22, 0, 22);
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_hvector(2, 2, -12, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 16, -12, 20, -12, 20);
    MPI_Type_free(&t);

    /* count 0 and blocklength 0 */
    assert_int_equal(MPI_Type_vector(0, 2, 3, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_vector(3, 0, 3, MPI_INT, &t), MPI_SUCCESS);
    expect_bounds(t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
}

/* oldtype = {(double,0),(char,8)}, extent 16: the examples of MPI 3.1 section 4.1.2 */
static MPI_Datatype double_char(void)
{
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_CHAR}, t;
    assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &t), MPI_SUCCESS);
    return t;
}

static void test_standard_examples(void **state)
{
    MPI_Datatype old, t;
    mpii_datatype_t *p;
    (void)state;
    old = double_char();
    expect_bounds(old, 9, 0, 16, 0, 9);
    p = mpii_datatype_get(old);
    assert_int_equal(p->basic, MPI_DATATYPE_NULL);

    assert_int_equal(MPI_Type_contiguous(3, old, &t), MPI_SUCCESS);
    expect_bounds(t, 27, 0, 48, 0, 41);
    MPI_Type_free(&t);

    /* MPI_TYPE_VECTOR(2, 3, 4, oldtype): (double,0)...(char,104), extent 112 */
    assert_int_equal(MPI_Type_vector(2, 3, 4, old, &t), MPI_SUCCESS);
    expect_bounds(t, 54, 0, 112, 0, 105);
    MPI_Type_free(&t);

    /* negative stride: copies at 0, -32, -64 */
    assert_int_equal(MPI_Type_vector(3, 1, -2, old, &t), MPI_SUCCESS);
    expect_bounds(t, 27, -64, 80, -64, 73);
    MPI_Type_free(&t);

    /* MPI_TYPE_INDEXED(2, B=(3,1), D=(4,0), oldtype): blocks at 64 then 0 */
    {
        int bl[2] = {3, 1}, disp[2] = {4, 0};
        assert_int_equal(MPI_Type_indexed(2, bl, disp, old, &t), MPI_SUCCESS);
        expect_bounds(t, 36, 0, 112, 0, 105);
        p = mpii_datatype_get(t);
        assert_int_equal(p->blocks[0].disp, 64);
        assert_int_equal(p->blocks[p->nblocks - 1].disp, 0);
        MPI_Type_free(&t);
    }
    /* hindexed with byte displacements */
    {
        int bl[2] = {2, 1};
        MPI_Aint disp[2] = {100, -20};
        assert_int_equal(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &t), MPI_SUCCESS);
        expect_bounds(t, 12, -20, 128, -20, 128);
        MPI_Type_free(&t);
    }
    /* struct {2 floats at 0, oldtype at 16, 3 chars at 26}: oldtype's ub (32, its
     * padded extent) is the largest; alignment 8 keeps the extent at 32 */
    {
        int bl[3] = {2, 1, 3};
        MPI_Aint disp[3] = {0, 16, 26};
        MPI_Datatype ty[3] = {MPI_FLOAT, old, MPI_CHAR};
        assert_int_equal(MPI_Type_create_struct(3, bl, disp, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 8 + 9 + 3, 0, 32, 0, 29);
        MPI_Type_free(&t);
    }
    MPI_Type_free(&old);
}

static void test_struct_alignment(void **state)
{
    MPI_Datatype t;
    (void)state;
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 4};
        MPI_Datatype ty[2] = {MPI_INT, MPI_CHAR};
        assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 5, 0, 8, 0, 5);
        MPI_Type_free(&t);
    }
    { /* a real C struct */
        struct s {
            char c;
            double d;
            short s[3];
        } x;
        int bl[3] = {1, 1, 3};
        MPI_Aint d[3], base;
        MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
        MPI_Get_address(&x, &base);
        MPI_Get_address(&x.c, &d[0]);
        MPI_Get_address(&x.d, &d[1]);
        MPI_Get_address(&x.s, &d[2]);
        for (int i = 0; i < 3; i++)
            d[i] -= base;
        assert_int_equal(MPI_Type_create_struct(3, bl, d, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 15, 0, sizeof(struct s), 0, offsetof(struct s, s) + 6);
        assert_int_equal(mpii_datatype_get(t)->basic, MPI_DATATYPE_NULL);
        MPI_Type_free(&t);
    }
    { /* struct of one type is homogeneous; zero blocklengths are ignored */
        int bl[3] = {2, 0, 1};
        MPI_Aint d[3] = {8, 0, 0};
        MPI_Datatype ty[3] = {MPI_FLOAT, MPI_DOUBLE, MPI_FLOAT};
        assert_int_equal(MPI_Type_create_struct(3, bl, d, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 12, 0, 16, 0, 16);
        assert_int_equal(mpii_datatype_get(t)->basic, MPI_FLOAT);
        assert_int_equal(mpii_datatype_get(t)->basic_count, 3);
        MPI_Type_free(&t);
    }
    { /* explicit MPI_LB / MPI_UB markers */
        int bl[3] = {1, 1, 1};
        MPI_Aint d[3] = {-8, 0, 16};
        MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB};
        assert_int_equal(MPI_Type_create_struct(3, bl, d, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 4, -8, 24, 0, 4);
        MPI_Type_free(&t);
    }
    { /* count 0 */
        assert_int_equal(MPI_Type_create_struct(0, NULL, NULL, NULL, &t), MPI_SUCCESS);
        expect_bounds(t, 0, 0, 0, 0, 0);
        MPI_Type_free(&t);
    }
}

static void test_resized(void **state)
{
    MPI_Datatype r, t, u;
    mpii_datatype_t *p;
    (void)state;
    assert_int_equal(MPI_Type_create_resized(MPI_INT, -4, 12, &r), MPI_SUCCESS);
    expect_bounds(r, 4, -4, 12, 0, 4);
    p = mpii_datatype_get(r);
    assert_false(p->contig);
    assert_int_equal(p->basic, MPI_INT);

    /* copies of a resized type are placed by its extent; the markers stay sticky */
    assert_int_equal(MPI_Type_contiguous(3, r, &t), MPI_SUCCESS);
    expect_bounds(t, 12, -4, 36, 0, 28);
    assert_int_equal(mpii_datatype_get(t)->nblocks, 3);
    MPI_Type_free(&t);

    /* a marker beats data: ub comes from r's marker even though an int lies beyond */
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 20};
        MPI_Datatype ty[2] = {r, MPI_INT};
        assert_int_equal(MPI_Type_create_struct(2, bl, d, ty, &t), MPI_SUCCESS);
        expect_bounds(t, 8, -4, 12, 0, 24);
        MPI_Type_free(&t);
    }
    /* resizing to the element size makes a strided type contiguous in a row */
    assert_int_equal(MPI_Type_create_resized(MPI_INT, 0, 4, &u), MPI_SUCCESS);
    assert_true(mpii_datatype_get(u)->contig);
    MPI_Type_free(&u);
    /* the classic column type: vector(3,1,4,double) resized to one double */
    assert_int_equal(MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_resized(t, 0, sizeof(double), &u), MPI_SUCCESS);
    expect_bounds(u, 24, 0, 8, 0, 72);
    MPI_Type_free(&t);
    MPI_Type_free(&u);
    MPI_Type_free(&r);
}

static void test_dup(void **state)
{
    MPI_Datatype v, d, dp;
    (void)state;
    assert_int_equal(MPI_Type_vector(2, 1, 3, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_dup(v, &d), MPI_SUCCESS);
    assert_int_not_equal(v, d);
    expect_bounds(d, 8, 0, 16, 0, 16);
    assert_int_equal(mpii_datatype_check(d), MPI_ERR_TYPE); /* v was not committed */
    MPI_Type_free(&d);
    MPI_Type_commit(&v);
    assert_int_equal(MPI_Type_dup(v, &d), MPI_SUCCESS);
    assert_int_equal(mpii_datatype_check(d), MPI_SUCCESS); /* same committed state */
    MPI_Type_free(&v);
    expect_bounds(d, 8, 0, 16, 0, 16); /* independent of v */
    MPI_Type_free(&d);
    assert_int_equal(MPI_Type_dup(MPI_DOUBLE, &dp), MPI_SUCCESS);
    assert_false(mpii_datatype_get(dp)->predefined);
    assert_int_equal(mpii_datatype_check(dp), MPI_SUCCESS);
    assert_int_equal(mpii_datatype_get(dp)->basic, MPI_DOUBLE);
    assert_int_equal(MPI_Type_free(&dp), MPI_SUCCESS);
}

static void test_commit_free(void **state)
{
    MPI_Datatype a, b, c, pre = MPI_INT, n = MPI_DATATYPE_NULL;
    (void)state;
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &a), MPI_SUCCESS);
    assert_int_equal(MPI_Type_vector(2, 1, 2, a, &b), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&a), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&a), MPI_SUCCESS); /* twice is fine */
    assert_int_equal(mpii_datatype_check(a), MPI_SUCCESS);
    assert_int_equal(MPI_Type_free(&a), MPI_SUCCESS);
    assert_int_equal(a, MPI_DATATYPE_NULL);
    /* b was built from a and stays valid */
    expect_bounds(b, 16, 0, 24, 0, 24);
    assert_int_equal(MPI_Type_commit(&b), MPI_SUCCESS);
    assert_int_equal(mpii_datatype_check(b), MPI_SUCCESS);
    /* freed handle is invalid; free of predefined and NULL fails */
    c = b;
    assert_int_equal(MPI_Type_free(&b), MPI_SUCCESS);
    assert_null(mpii_datatype_get(c));
    assert_int_equal(MPI_Type_free(&c), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_free(&pre), MPI_ERR_TYPE);
    assert_int_equal(pre, MPI_INT);
    assert_int_equal(MPI_Type_free(&n), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_free(NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_commit(&n), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_commit(NULL), MPI_ERR_ARG);
    pre = MPI_DOUBLE;
    assert_int_equal(MPI_Type_commit(&pre), MPI_SUCCESS);
    /* many types: the table grows, handles stay valid */
    {
        MPI_Datatype many[100];
        for (int i = 0; i < 100; i++)
            assert_int_equal(MPI_Type_contiguous(i, MPI_CHAR, &many[i]), MPI_SUCCESS);
        for (int i = 0; i < 100; i++) {
            int s;
            MPI_Type_size(many[i], &s);
            assert_int_equal(s, i);
        }
        for (int i = 0; i < 100; i += 2)
            MPI_Type_free(&many[i]);
        for (int i = 1; i < 100; i += 2) {
            int s;
            MPI_Type_size(many[i], &s);
            assert_int_equal(s, i);
        }
        /* leave the odd ones to mpii_datatype_finalize (valgrind checks it frees them) */
    }
}

static void test_constructor_errors(void **state)
{
    MPI_Datatype t;
    int bl[2] = {1, -1}, di[2] = {0, 1};
    MPI_Aint da[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, 12345};
    (void)state;
    assert_int_equal(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    assert_string_equal(stub_last_fn, "MPI_Type_contiguous");
    assert_int_equal(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    assert_string_equal(stub_last_fn, "MPI_Type_vector");
    assert_int_equal(MPI_Type_vector(1, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_vector(1, 1, 1, 999, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_vector(1, 1, 1, MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_hvector(-3, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    assert_int_equal(MPI_Type_create_hvector(1, 1, 1, 0, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_indexed(-1, bl, di, MPI_INT, &t), MPI_ERR_COUNT);
    assert_int_equal(MPI_Type_indexed(2, bl, di, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_indexed(1, NULL, di, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_indexed(1, bl, di, 0, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_hindexed(-1, bl, da, MPI_INT, &t), MPI_ERR_COUNT);
    assert_int_equal(MPI_Type_create_hindexed(2, bl, da, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_hindexed(1, bl, NULL, MPI_INT, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_struct(-1, bl, da, ty, &t), MPI_ERR_COUNT);
    bl[1] = 1;
    assert_int_equal(MPI_Type_create_struct(2, bl, da, ty, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_struct(1, bl, da, NULL, &t), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_struct(1, bl, da, ty, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_create_resized(MPI_INT, 0, 4, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Type_dup(-1, &t), MPI_ERR_TYPE);
    assert_int_equal(MPI_Type_dup(MPI_INT, NULL), MPI_ERR_ARG);
    /* not initialized */
    stub_initialized = 0;
    assert_int_equal(MPI_Type_contiguous(1, MPI_INT, &t), MPI_ERR_OTHER);
    assert_int_equal(MPI_Type_size(MPI_INT, &bl[0]), MPI_ERR_OTHER);
    stub_initialized = 1;
}

/* ------------------------------------------------------------------ */
/* pack / unpack                                                       */

static void test_pack_vector_roundtrip(void **state)
{
    MPI_Datatype t;
    int src[12], dst[12], packed[6];
    (void)state;
    for (int i = 0; i < 12; i++)
        src[i] = 100 + i;
    /* 3 blocks of 2 ints, stride 4: picks 0,1,4,5,8,9 */
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    mpii_datatype_pack(src, 1, mpii_datatype_get(t), packed);
    int want[6] = {100, 101, 104, 105, 108, 109};
    assert_memory_equal(packed, want, sizeof want);
    memset(dst, 0, sizeof dst);
    mpii_datatype_unpack(packed, sizeof packed, dst, 1, mpii_datatype_get(t));
    for (int i = 0; i < 12; i++)
        assert_int_equal(dst[i], (i % 4) < 2 ? 100 + i : 0);
    /* partial unpack: only the first 3 ints land, nothing past */
    memset(dst, 0, sizeof dst);
    mpii_datatype_unpack(packed, 3 * sizeof(int), dst, 1, mpii_datatype_get(t));
    assert_int_equal(dst[0], 100);
    assert_int_equal(dst[1], 101);
    assert_int_equal(dst[4], 104);
    assert_int_equal(dst[5], 0);
    /* nbytes beyond count elements is clipped */
    {
        int big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[4] = {0};
        mpii_datatype_unpack(big, sizeof big, out, 3, mpii_datatype_get(MPI_INT));
        assert_int_equal(out[2], 3);
        assert_int_equal(out[3], 0);
    }
    MPI_Type_free(&t);
}

/* Blocks of one length take the fixed-size copy loops (lengths 1, 2, 4, 8,
 * 16) or the general one (3, 24): every length packs and unpacks the same
 * bytes as a byte-by-byte reference, count 3, with a partial unpack that
 * must stop in the middle of a block. */
static void test_pack_fixed_lengths(void **state)
{
    static const int lens[] = {1, 2, 3, 4, 8, 16, 24};
    unsigned char src[3 * 5 * 2 * 24], packed[3 * 5 * 24], want[3 * 5 * 24], dst[sizeof src];
    (void)state;
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        int L = lens[k];
        MPI_Datatype t;
        mpii_datatype_t *p;
        size_t n = 0, total = (size_t)3 * 5 * L;
        /* 5 blocks of L bytes, 2 L apart; elements 9 L apart (the extent) */
        assert_int_equal(MPI_Type_vector(5, L, 2 * L, MPI_BYTE, &t), MPI_SUCCESS);
        MPI_Type_commit(&t);
        p = mpii_datatype_get(t);
        assert_int_equal(p->blen, (size_t)L);
        for (int e = 0; e < 3; e++)
            for (int b = 0; b < 5; b++)
                for (int j = 0; j < L; j++)
                    want[n++] = src[(size_t)e * p->extent + (size_t)b * 2 * L + j];
        mpii_datatype_pack(src, 3, p, packed);
        assert_memory_equal(packed, want, total);
        memset(dst, 0, sizeof dst);
        mpii_datatype_unpack(packed, total, dst, 3, p);
        for (size_t i = 0; i < (size_t)3 * p->extent; i++)
            assert_int_equal(dst[i], (i % p->extent / L) % 2 == 0 ? src[i] : 0);
        /* partial: 1 element and half a block */
        memset(dst, 0, sizeof dst);
        n = (size_t)5 * L + (L + 1) / 2;
        mpii_datatype_unpack(packed, n, dst, 3, p);
        for (size_t i = 0, got = 0; i < (size_t)3 * p->extent; i++) {
            int in_block = (i % p->extent / L) % 2 == 0;
            assert_int_equal(dst[i], in_block && got < n ? src[i] : 0);
            got += in_block;
        }
        MPI_Type_free(&t);
    }
    /* blocks of different lengths: no fixed length */
    {
        MPI_Datatype t;
        int bl[2] = {1, 2}, disp[2] = {0, 4};
        MPI_Type_indexed(2, bl, disp, MPI_INT, &t);
        assert_int_equal(mpii_datatype_get(t)->blen, 0);
        MPI_Type_free(&t);
    }
}

static void test_pack_negative_stride(void **state)
{
    MPI_Datatype t;
    int buf[12], packed[6], back[12];
    (void)state;
    for (int i = 0; i < 12; i++)
        buf[i] = i;
    /* base at buf+8: blocks at +0,+1 | -4,-3 | -8,-7 */
    MPI_Type_vector(3, 2, -4, MPI_INT, &t);
    MPI_Type_commit(&t);
    mpii_datatype_pack(buf + 8, 1, mpii_datatype_get(t), packed);
    int want[6] = {8, 9, 4, 5, 0, 1};
    assert_memory_equal(packed, want, sizeof want);
    memset(back, -1, sizeof back);
    mpii_datatype_unpack(packed, sizeof packed, back + 8, 1, mpii_datatype_get(t));
    for (int i = 0; i < 12; i++)
        assert_int_equal(back[i], (i % 4) < 2 ? i : -1);
    MPI_Type_free(&t);
}

static void test_pack_struct_count(void **state)
{
    struct s {
        char c;
        double d;
        int i;
    } in[3], out[3];
    MPI_Datatype t;
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    char packed[3 * 13];
    (void)state;
    MPI_Type_create_struct(3, bl, d, ty, &t);
    MPI_Type_commit(&t);
    expect_bounds(t, 13, 0, sizeof(struct s), 0, offsetof(struct s, i) + 4);
    for (int k = 0; k < 3; k++) {
        in[k].c = (char)('a' + k);
        in[k].d = 1.5 * k;
        in[k].i = -k;
    }
    mpii_datatype_pack(in, 3, mpii_datatype_get(t), packed);
    assert_int_equal(packed[13], 'b');
    memset(out, 0, sizeof out);
    mpii_datatype_unpack(packed, sizeof packed, out, 3, mpii_datatype_get(t));
    for (int k = 0; k < 3; k++) {
        assert_int_equal(out[k].c, 'a' + k);
        assert_true(out[k].d == 1.5 * k);
        assert_int_equal(out[k].i, -k);
    }
    MPI_Type_free(&t);
}

static void test_mpi_pack_unpack(void **state)
{
    double a[4] = {1, 2, 3, 4}, a2[4] = {0};
    int n[3] = {7, 8, 9}, n2[3] = {0};
    char buf[64];
    int pos = 0, sz;
    MPI_Datatype col, uncommitted;
    (void)state;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &col); /* a[0], a[2] */
    MPI_Type_commit(&col);
    assert_int_equal(MPI_Pack_size(2, col, MPI_COMM_WORLD, &sz), MPI_SUCCESS);
    assert_int_equal(sz, 32);
    assert_int_equal(MPI_Pack(n, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 12);
    assert_int_equal(MPI_Pack(a, 1, col, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 28);
    assert_int_equal(MPI_Pack(a, 0, col, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 28);
    /* does not fit */
    assert_int_equal(MPI_Pack(a, 3, col, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    assert_int_equal(pos, 28);
    {
        int outsize = pos, p2 = 0;
        assert_int_equal(MPI_Unpack(buf, outsize, &p2, n2, 3, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
        assert_int_equal(p2, 12);
        assert_int_equal(MPI_Unpack(buf, outsize, &p2, a2, 1, col, MPI_COMM_WORLD), MPI_SUCCESS);
        assert_int_equal(p2, 28);
        assert_memory_equal(n, n2, sizeof n);
        assert_true(a2[0] == 1 && a2[1] == 0 && a2[2] == 3 && a2[3] == 0);
        assert_int_equal(MPI_Unpack(buf, outsize, &p2, n2, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    }
    /* errors */
    pos = 0;
    assert_int_equal(MPI_Pack(n, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    assert_int_equal(MPI_Pack(n, -1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    assert_int_equal(MPI_Pack(n, 1, MPI_DATATYPE_NULL, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    assert_int_equal(MPI_Pack(n, 1, MPI_INT, buf, 64, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    assert_int_equal(MPI_Pack(n, 1, uncommitted, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    assert_int_equal(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &sz), MPI_ERR_COUNT);
    assert_int_equal(MPI_Pack_size(1, MPI_INT, 77, &sz), MPI_ERR_COMM);
    assert_int_equal(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Unpack(buf, 64, &pos, n2, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Type_free(&uncommitted);
    MPI_Type_free(&col);
}

static void test_pack_bottom(void **state)
{
    /* absolute addresses with MPI_BOTTOM */
    int x = 5;
    double y = 2.5;
    int bl[2] = {1, 1};
    MPI_Aint d[2];
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, t;
    char buf[12];
    int pos = 0;
    (void)state;
    MPI_Get_address(&x, &d[0]);
    MPI_Get_address(&y, &d[1]);
    MPI_Type_create_struct(2, bl, d, ty, &t);
    MPI_Type_commit(&t);
    assert_int_equal(MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    x = 0;
    y = 0;
    pos = 0;
    assert_int_equal(MPI_Unpack(buf, sizeof buf, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(x, 5);
    assert_true(y == 2.5);
    MPI_Type_free(&t);
    assert_int_equal(MPI_Get_address(&x, NULL), MPI_ERR_ARG);
}

/* ------------------------------------------------------------------ */
/* Get_count / Get_elements                                            */

static int count_of(long long bytes, MPI_Datatype t)
{
    MPI_Status st;
    int c = -12345;
    memset(&st, 0, sizeof st);
    st.mbmpi_count = bytes;
    assert_int_equal(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
    return c;
}

static int elements_of(long long bytes, MPI_Datatype t)
{
    MPI_Status st;
    int c = -12345;
    memset(&st, 0, sizeof st);
    st.mbmpi_count = bytes;
    assert_int_equal(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
    return c;
}

static void test_get_count_elements(void **state)
{
    MPI_Datatype two, st, empty;
    MPI_Status s;
    int c;
    (void)state;
    assert_int_equal(count_of(40, MPI_INT), 10);
    assert_int_equal(count_of(0, MPI_INT), 0);
    assert_int_equal(count_of(6, MPI_INT), MPI_UNDEFINED);
    assert_int_equal(elements_of(40, MPI_INT), 10);
    assert_int_equal(elements_of(6, MPI_INT), MPI_UNDEFINED);

    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    assert_int_equal(count_of(16, two), 2);
    assert_int_equal(count_of(12, two), MPI_UNDEFINED);
    assert_int_equal(elements_of(12, two), 3);
    assert_int_equal(elements_of(16, two), 4);

    { /* {int, double, 2 char}: size 14 */
        int bl[3] = {1, 1, 2};
        MPI_Aint d[3] = {0, 8, 16};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(3, bl, d, ty, &st);
        MPI_Type_commit(&st);
    }
    assert_int_equal(count_of(28, st), 2);
    assert_int_equal(elements_of(28, st), 8);
    assert_int_equal(elements_of(14 + 4, st), 5);
    assert_int_equal(elements_of(14 + 12, st), 6);
    assert_int_equal(elements_of(14 + 13, st), 7);
    assert_int_equal(elements_of(14 + 6, st), MPI_UNDEFINED);
    /* pair types: two basic elements each */
    assert_int_equal(elements_of(8, MPI_2INT), 2);
    assert_int_equal(elements_of(4, MPI_2INT), 1);
    assert_int_equal(count_of(4, MPI_2INT), MPI_UNDEFINED);
    assert_int_equal(elements_of(12, MPI_DOUBLE_INT), 2);
    assert_int_equal(elements_of(8, MPI_DOUBLE_INT), 1);
    assert_int_equal(count_of(24, MPI_DOUBLE_INT), 2);
    /* size-0 type: count 0 */
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    assert_int_equal(count_of(0, empty), 0);
    assert_int_equal(elements_of(0, empty), 0);
    /* errors */
    memset(&s, 0, sizeof s);
    assert_int_equal(MPI_Get_count(NULL, MPI_INT, &c), MPI_ERR_ARG);
    assert_int_equal(MPI_Get_count(&s, MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
    assert_int_equal(MPI_Get_count(&s, MPI_INT, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Get_elements(&s, 4242, &c), MPI_ERR_TYPE);
    MPI_Type_free(&two);
    MPI_Type_free(&st);
    MPI_Type_free(&empty);
}

static void test_basic_tracking(void **state)
{
    MPI_Datatype v, s, h, mixed;
    (void)state;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE_INT, &v);
    assert_int_equal(mpii_datatype_get(v)->basic, MPI_DOUBLE_INT);
    assert_int_equal(mpii_datatype_get(v)->basic_count, 4);
    MPI_Type_contiguous(3, v, &s);
    assert_int_equal(mpii_datatype_get(s)->basic, MPI_DOUBLE_INT);
    assert_int_equal(mpii_datatype_get(s)->basic_count, 12);
    {
        int bl[2] = {2, 1};
        MPI_Aint d[2] = {0, 100};
        MPI_Datatype ty[2] = {MPI_INT, MPI_UNSIGNED};
        MPI_Type_create_struct(2, bl, d, ty, &mixed);
        assert_int_equal(mpii_datatype_get(mixed)->basic, MPI_DATATYPE_NULL);
        ty[1] = MPI_INT;
        MPI_Type_create_struct(2, bl, d, ty, &h);
        assert_int_equal(mpii_datatype_get(h)->basic, MPI_INT);
        assert_int_equal(mpii_datatype_get(h)->basic_count, 3);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&s);
    MPI_Type_free(&h);
    MPI_Type_free(&mixed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_predefined_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contiguous, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vector, setup, teardown),
        cmocka_unit_test_setup_teardown(test_standard_examples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_struct_alignment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resized, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constructor_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pack_vector_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pack_fixed_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pack_negative_stride, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pack_struct_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mpi_pack_unpack, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pack_bottom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get_count_elements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_basic_tracking, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
