/*
 * tests/unit/test_op.c: unit tests of mpi/op.c (and of mpi/errstr.c, which is
 * too small for a file of its own).
 * Standalone: cc ... test_op.c mpi/op.c mpi/datatype.c mpi/errstr.c tests/unit/mpi_stubs.c -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */
#pragma GCC diagnostic ignored "-Wcomment"
#include "mpi/mpi_impl.h"

#include <complex.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpi_stubs.h"

static int setup(void **state)
{
    (void)state;
    stub_reset();
    stub_initialized = 1;
    assert_int_equal(mpii_datatype_init(), MPI_SUCCESS);
    assert_int_equal(mpii_op_init(), MPI_SUCCESS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mpii_op_finalize();
    mpii_datatype_finalize();
    stub_cleanup();
    return 0;
}

/* Apply op to 4 elements: inout starts as b, must end as r0..r3. */
#define RUN4(h, T, op, a, b, r0, r1, r2, r3)                                                                 \
    do {                                                                                                     \
        T io_[4];                                                                                            \
        memcpy(io_, b, sizeof io_);                                                                          \
        assert_int_equal(mpii_op_check(op, h), MPI_SUCCESS);                                                 \
        mpii_op_apply(op, a, io_, 4, h);                                                                     \
        assert_true(io_[0] == (T)(r0));                                                                      \
        assert_true(io_[1] == (T)(r1));                                                                      \
        assert_true(io_[2] == (T)(r2));                                                                      \
        assert_true(io_[3] == (T)(r3));                                                                      \
    } while (0)

/* ------------------------------------------------------------------ */
/* every op on every allowed type                                      */

/* X(handle, C type, name) — written from MPI 3.1 section 5.9.2 */
#define C_INTEGER(X)                                                                                         \
    X(MPI_INT, int, int)                                                                                     \
    X(MPI_LONG, long, long) X(MPI_SHORT, short, short) X(MPI_UNSIGNED_SHORT, unsigned short, ushort)         \
        X(MPI_UNSIGNED, unsigned, uint) X(MPI_UNSIGNED_LONG, unsigned long, ulong)                           \
            X(MPI_LONG_LONG_INT, long long, llong) X(MPI_LONG_LONG, long long, llong2)                       \
                X(MPI_UNSIGNED_LONG_LONG, unsigned long long, ullong) X(MPI_SIGNED_CHAR, signed char, schar) \
                    X(MPI_UNSIGNED_CHAR, unsigned char, uchar) X(MPI_INT8_T, int8_t, i8)                     \
                        X(MPI_INT16_T, int16_t, i16) X(MPI_INT32_T, int32_t, i32)                            \
                            X(MPI_INT64_T, int64_t, i64) X(MPI_UINT8_T, uint8_t, u8)                         \
                                X(MPI_UINT16_T, uint16_t, u16) X(MPI_UINT32_T, uint32_t, u32)                \
                                    X(MPI_UINT64_T, uint64_t, u64)
#define OTHER_INTEGER(X)                                                                                     \
    X(MPI_INTEGER, int32_t, integer)                                                                         \
    X(MPI_INTEGER8, int64_t, integer8) X(MPI_AINT, MPI_Aint, aint) X(MPI_OFFSET, MPI_Offset, offset)         \
        X(MPI_COUNT, MPI_Count, count)
#define FLOATING(X)                                                                                          \
    X(MPI_FLOAT, float, float)                                                                               \
    X(MPI_DOUBLE, double, double) X(MPI_LONG_DOUBLE, long double, ldouble) X(MPI_REAL, float, real)          \
        X(MPI_DOUBLE_PRECISION, double, dprec) X(MPI_REAL8, double, real8)
#define COMPLEX(X)                                                                                           \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, cfloat)                                                           \
    X(MPI_C_COMPLEX, float _Complex, ccomplex) X(MPI_C_DOUBLE_COMPLEX, double _Complex, cdouble)             \
        X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, cldouble)                                         \
            X(MPI_COMPLEX, float _Complex, fcomplex) X(MPI_DOUBLE_COMPLEX, double _Complex, fdcomplex)
#define PAIRS(P)                                                                                             \
    P(MPI_FLOAT_INT, float, int, float_int)                                                                  \
    P(MPI_DOUBLE_INT, double, int, double_int) P(MPI_LONG_INT, long, int, long_int)                          \
        P(MPI_2INT, int, int, two_int) P(MPI_SHORT_INT, short, int, short_int)                               \
            P(MPI_LONG_DOUBLE_INT, long double, int, long_double_int)                                        \
                P(MPI_2INTEGER, int32_t, int32_t, two_integer) P(MPI_2REAL, float, float, two_real)          \
                    P(MPI_2DOUBLE_PRECISION, double, double, two_dp)

#define ARITH_BITWISE(h, T)                                                                                  \
    do {                                                                                                     \
        T a[4] = {5, 2, 12, 0}, b[4] = {3, 7, 10, 0};                                                        \
        RUN4(h, T, MPI_MAX, a, b, 5, 7, 12, 0);                                                              \
        RUN4(h, T, MPI_MIN, a, b, 3, 2, 10, 0);                                                              \
        RUN4(h, T, MPI_SUM, a, b, 8, 9, 22, 0);                                                              \
        RUN4(h, T, MPI_PROD, a, b, 15, 14, 120, 0);                                                          \
        RUN4(h, T, MPI_BAND, a, b, 1, 2, 8, 0);                                                              \
        RUN4(h, T, MPI_BOR, a, b, 7, 7, 14, 0);                                                              \
        RUN4(h, T, MPI_BXOR, a, b, 6, 5, 6, 0);                                                              \
    } while (0)
#define LOGICAL_OPS(h, T, t, f)                                                                              \
    do {                                                                                                     \
        T a[4] = {t, f, t, f}, b[4] = {t, t, f, f};                                                          \
        RUN4(h, T, MPI_LAND, a, b, 1, 0, 0, 0);                                                              \
        RUN4(h, T, MPI_LOR, a, b, 1, 1, 1, 0);                                                               \
        RUN4(h, T, MPI_LXOR, a, b, 0, 1, 1, 0);                                                              \
    } while (0)

#define C_INTEGER_TEST(h, T, name)                                                                           \
    static void test_c_integer_##name(void **state)                                                          \
    {                                                                                                        \
        (void)state;                                                                                         \
        ARITH_BITWISE(h, T);                                                                                 \
        LOGICAL_OPS(h, T, 5, 0);                                                                             \
        assert_int_equal(mpii_op_check(MPI_MAXLOC, h), MPI_ERR_OP);                                          \
    }
#define OTHER_INTEGER_TEST(h, T, name)                                                                       \
    static void test_other_integer_##name(void **state)                                                      \
    {                                                                                                        \
        (void)state;                                                                                         \
        ARITH_BITWISE(h, T);                                                                                 \
        assert_int_equal(mpii_op_check(MPI_LAND, h), MPI_ERR_OP);                                            \
        assert_int_equal(mpii_op_check(MPI_LOR, h), MPI_ERR_OP);                                             \
        assert_int_equal(mpii_op_check(MPI_LXOR, h), MPI_ERR_OP);                                            \
    }
#define FLOATING_TEST(h, T, name)                                                                            \
    static void test_floating_##name(void **state)                                                           \
    {                                                                                                        \
        T a[4] = {1.5, -2, 3, 0.25}, b[4] = {2.5, -1, 3, 4};                                                 \
        (void)state;                                                                                         \
        RUN4(h, T, MPI_MAX, a, b, 2.5, -1, 3, 4);                                                            \
        RUN4(h, T, MPI_MIN, a, b, 1.5, -2, 3, 0.25);                                                         \
        RUN4(h, T, MPI_SUM, a, b, 4, -3, 6, 4.25);                                                           \
        RUN4(h, T, MPI_PROD, a, b, 3.75, 2, 9, 1);                                                           \
        assert_int_equal(mpii_op_check(MPI_BAND, h), MPI_ERR_OP);                                            \
        assert_int_equal(mpii_op_check(MPI_LAND, h), MPI_ERR_OP);                                            \
    }
#define COMPLEX_TEST(h, T, name)                                                                             \
    static void test_complex_##name(void **state)                                                            \
    {                                                                                                        \
        T a[4] = {1 + 2 * I, 2, 3 * I, 0}, b[4] = {3 + 4 * I, 1 - 1 * I, 2 * I, 5};                          \
        (void)state;                                                                                         \
        RUN4(h, T, MPI_SUM, a, b, 4 + 6 * I, 3 - 1 * I, 5 * I, 5);                                           \
        RUN4(h, T, MPI_PROD, a, b, -5 + 10 * I, 2 - 2 * I, -6, 0);                                           \
        assert_int_equal(mpii_op_check(MPI_MAX, h), MPI_ERR_OP);                                             \
        assert_int_equal(mpii_op_check(MPI_MIN, h), MPI_ERR_OP);                                             \
        assert_int_equal(mpii_op_check(MPI_LAND, h), MPI_ERR_OP);                                            \
        assert_int_equal(mpii_op_check(MPI_BOR, h), MPI_ERR_OP);                                             \
    }
/* MAXLOC/MINLOC, with ties won by the lower index either way round */
#define PAIR_TEST(h, V, I, name)                                                                             \
    static void test_pair_##name(void **state)                                                               \
    {                                                                                                        \
        struct p {                                                                                           \
            V v;                                                                                             \
            I i;                                                                                             \
        };                                                                                                   \
        const struct p a[4] = {{3, 1}, {5, 2}, {2, 4}, {6, 9}};                                              \
        const struct p b[4] = {{3, 0}, {5, 7}, {8, 1}, {1, 3}};                                              \
        const struct p mx[4] = {{3, 0}, {5, 2}, {8, 1}, {6, 9}};                                             \
        const struct p mn[4] = {{3, 0}, {5, 2}, {2, 4}, {1, 3}};                                             \
        struct p io[4];                                                                                      \
        (void)state;                                                                                         \
        assert_int_equal(sizeof(struct p), mpii_datatype_get(h)->extent);                                    \
        assert_int_equal(mpii_op_check(MPI_MAXLOC, h), MPI_SUCCESS);                                         \
        memcpy(io, b, sizeof io);                                                                            \
        mpii_op_apply(MPI_MAXLOC, a, io, 4, h);                                                              \
        for (int k = 0; k < 4; k++) {                                                                        \
            assert_true(io[k].v == mx[k].v);                                                                 \
            assert_true(io[k].i == mx[k].i);                                                                 \
        }                                                                                                    \
        assert_int_equal(mpii_op_check(MPI_MINLOC, h), MPI_SUCCESS);                                         \
        memcpy(io, b, sizeof io);                                                                            \
        mpii_op_apply(MPI_MINLOC, a, io, 4, h);                                                              \
        for (int k = 0; k < 4; k++) {                                                                        \
            assert_true(io[k].v == mn[k].v);                                                                 \
            assert_true(io[k].i == mn[k].i);                                                                 \
        }                                                                                                    \
        assert_int_equal(mpii_op_check(MPI_MAX, h), MPI_ERR_OP);                                             \
        assert_int_equal(mpii_op_check(MPI_SUM, h), MPI_ERR_OP);                                             \
        assert_int_equal(mpii_op_check(MPI_BAND, h), MPI_ERR_OP);                                            \
    }

C_INTEGER(C_INTEGER_TEST)
OTHER_INTEGER(OTHER_INTEGER_TEST)
FLOATING(FLOATING_TEST)
COMPLEX(COMPLEX_TEST)
PAIRS(PAIR_TEST)

static void test_logical(void **state)
{
    (void)state;
    LOGICAL_OPS(MPI_C_BOOL, _Bool, 1, 0);
    /* Fortran LOGICAL: any non-zero is true, true results are 1 */
    {
        int32_t a[4] = {2, 0, -1, 0}, b[4] = {7, 1, 0, 0};
        RUN4(MPI_LOGICAL, int32_t, MPI_LAND, a, b, 1, 0, 0, 0);
        RUN4(MPI_LOGICAL, int32_t, MPI_LOR, a, b, 1, 1, 1, 0);
        RUN4(MPI_LOGICAL, int32_t, MPI_LXOR, a, b, 0, 1, 1, 0);
    }
    static const MPI_Op bad[] = {MPI_MAX, MPI_MIN,  MPI_SUM,    MPI_PROD,  MPI_BAND,
                                 MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(mpii_op_check(bad[i], MPI_C_BOOL), MPI_ERR_OP);
        assert_int_equal(mpii_op_check(bad[i], MPI_LOGICAL), MPI_ERR_OP);
    }
}

static void test_byte(void **state)
{
    unsigned char a[4] = {0xF0, 0x0F, 0xAA, 0}, b[4] = {0xFF, 0xF0, 0x55, 0};
    (void)state;
    RUN4(MPI_BYTE, unsigned char, MPI_BAND, a, b, 0xF0, 0x00, 0x00, 0);
    RUN4(MPI_BYTE, unsigned char, MPI_BOR, a, b, 0xFF, 0xFF, 0xFF, 0);
    RUN4(MPI_BYTE, unsigned char, MPI_BXOR, a, b, 0x0F, 0xFF, 0xFF, 0);
    static const MPI_Op bad[] = {MPI_MAX, MPI_MIN,  MPI_SUM,    MPI_PROD,  MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(mpii_op_check(bad[i], MPI_BYTE), MPI_ERR_OP);
}

static void test_signed_and_wrap(void **state)
{
    (void)state;
    {
        int a[4] = {-5, 3, INT_MAX, INT_MIN}, b[4] = {-7, -1, 1, -1};
        RUN4(MPI_INT, int, MPI_MAX, a, b, -5, 3, INT_MAX, -1);
        RUN4(MPI_INT, int, MPI_MIN, a, b, -7, -1, 1, INT_MIN);
        RUN4(MPI_INT, int, MPI_SUM, a, b, -12, 2, INT_MIN, INT_MAX); /* wraps */
        RUN4(MPI_INT, int, MPI_PROD, a, b, 35, -3, INT_MAX, INT_MIN);
        RUN4(MPI_INT, int, MPI_BAND, a, b, -5 & -7, 3 & -1, 1, INT_MIN);
    }
    {
        int8_t a[4] = {-128, 100, -1, 64}, b[4] = {-1, 100, -1, 2};
        RUN4(MPI_INT8_T, int8_t, MPI_SUM, a, b, 127, -56, -2, 66);
        RUN4(MPI_INT8_T, int8_t, MPI_MAX, a, b, -1, 100, -1, 64);
    }
    {
        uint64_t a[4] = {UINT64_MAX, 1, 3, 0}, b[4] = {1, UINT64_MAX, 5, 0};
        RUN4(MPI_UINT64_T, uint64_t, MPI_SUM, a, b, 0, 0, 8, 0);
        RUN4(MPI_UINT64_T, uint64_t, MPI_MAX, a, b, UINT64_MAX, UINT64_MAX, 5, 0);
    }
    {
        unsigned short a[4] = {65535, 300, 2, 1}, b[4] = {65535, 300, 3, 1};
        RUN4(MPI_UNSIGNED_SHORT, unsigned short, MPI_PROD, a, b, 1, 24464, 6, 1);
    }
    {
        MPI_Aint a[4] = {-4, 8, 0, 1}, b[4] = {-2, -8, 0, 1};
        RUN4(MPI_AINT, MPI_Aint, MPI_MIN, a, b, -4, -8, 0, 1);
        RUN4(MPI_AINT, MPI_Aint, MPI_SUM, a, b, -6, 0, 0, 2);
    }
}

/* the whole (op, predefined type) matrix against the standard's table */
static void test_allowed_matrix(void **state)
{
    enum { CI = 1, FI = 2, FL = 4, CX = 8, LG = 16, BY = 32, PR = 64, NONE = 0 };
    int cat[MBMPI_DATATYPE_PREDEFINED_MAX + 1] = {0};
    static const int ci[] = {MPI_CHAR,
                             MPI_INT,
                             MPI_LONG,
                             MPI_SHORT,
                             MPI_UNSIGNED_SHORT,
                             MPI_UNSIGNED,
                             MPI_UNSIGNED_LONG,
                             MPI_LONG_LONG_INT,
                             MPI_UNSIGNED_LONG_LONG,
                             MPI_SIGNED_CHAR,
                             MPI_UNSIGNED_CHAR,
                             MPI_INT8_T,
                             MPI_INT16_T,
                             MPI_INT32_T,
                             MPI_INT64_T,
                             MPI_UINT8_T,
                             MPI_UINT16_T,
                             MPI_UINT32_T,
                             MPI_UINT64_T};
    static const int fi[] = {MPI_INTEGER,  MPI_INTEGER8, MPI_AINT,     MPI_OFFSET,   MPI_COUNT,
                             MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER16};
    static const int fl[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
                             MPI_REAL8, MPI_REAL4};
    static const int cx[] = {MPI_C_FLOAT_COMPLEX,
                             MPI_C_DOUBLE_COMPLEX,
                             MPI_C_LONG_DOUBLE_COMPLEX,
                             MPI_COMPLEX,
                             MPI_DOUBLE_COMPLEX,
                             MPI_COMPLEX8,
                             MPI_COMPLEX16,
                             MPI_CXX_FLOAT_COMPLEX,
                             MPI_CXX_DOUBLE_COMPLEX,
                             MPI_CXX_LONG_DOUBLE_COMPLEX};
    static const int lg[] = {MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL};
    static const int pr[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
                             MPI_2INT,      MPI_SHORT_INT,  MPI_LONG_DOUBLE_INT,
                             MPI_2INTEGER,  MPI_2REAL,      MPI_2DOUBLE_PRECISION};
    const int allowed[MPI_NO_OP + 1] = {
        [MPI_MAX] = CI | FI | FL,       [MPI_MIN] = CI | FI | FL,  [MPI_SUM] = CI | FI | FL | CX,
        [MPI_PROD] = CI | FI | FL | CX, [MPI_LAND] = CI | LG,      [MPI_LOR] = CI | LG,
        [MPI_LXOR] = CI | LG,           [MPI_BAND] = CI | FI | BY, [MPI_BOR] = CI | FI | BY,
        [MPI_BXOR] = CI | FI | BY,      [MPI_MAXLOC] = PR,         [MPI_MINLOC] = PR,
    };
    (void)state;
    for (size_t i = 0; i < sizeof ci / sizeof *ci; i++)
        cat[ci[i]] = CI;
    for (size_t i = 0; i < sizeof fi / sizeof *fi; i++)
        cat[fi[i]] = FI;
    for (size_t i = 0; i < sizeof fl / sizeof *fl; i++)
        cat[fl[i]] = FL;
    for (size_t i = 0; i < sizeof cx / sizeof *cx; i++)
        cat[cx[i]] = CX;
    for (size_t i = 0; i < sizeof lg / sizeof *lg; i++)
        cat[lg[i]] = LG;
    for (size_t i = 0; i < sizeof pr / sizeof *pr; i++)
        cat[pr[i]] = PR;
    cat[MPI_BYTE] = BY;
    /* MPI_WCHAR, MPI_CHARACTER, MPI_PACKED: text/packed data, no op (MPI_CHAR
     * reduces as a C integer, as in Open MPI and MPICH) */
    assert_int_equal(cat[MPI_WCHAR] | cat[MPI_CHARACTER] | cat[MPI_PACKED], NONE);
    for (MPI_Op op = MPI_MAX; op <= MPI_MINLOC; op++)
        for (MPI_Datatype t = MPI_CHAR; t <= MBMPI_DATATYPE_PREDEFINED_MAX; t++) {
            if (t == MPI_LB || t == MPI_UB)
                continue; /* markers, not data */
            int want = (allowed[op] & cat[t]) ? MPI_SUCCESS : MPI_ERR_OP;
            if (mpii_op_check(op, t) != want)
                fail_msg("op %d on type %d: got %d, want %d", op, t, mpii_op_check(op, t), want);
        }
    /* REPLACE and NO_OP take anything */
    for (MPI_Datatype t = MPI_CHAR; t <= MPI_REAL8; t++) {
        assert_int_equal(mpii_op_check(MPI_REPLACE, t), MPI_SUCCESS);
        assert_int_equal(mpii_op_check(MPI_NO_OP, t), MPI_SUCCESS);
    }
    /* MPI_CHAR combines as C's char */
    {
        char in[3] = {1, -2, 100}, io[3] = {2, 5, 20};
        mpii_op_apply(MPI_SUM, in, io, 3, MPI_CHAR);
        assert_true(io[0] == 3 && io[1] == 3 && io[2] == 120);
        mpii_op_apply(MPI_MIN, in, io, 3, MPI_CHAR);
        assert_true(io[0] == 1 && io[1] == -2 && io[2] == 100);
        mpii_op_apply(MPI_LAND, (char[3]){0, 7, 1}, io, 3, MPI_CHAR);
        assert_true(io[0] == 0 && io[1] == 1 && io[2] == 1);
    }
    /* invalid handles */
    assert_int_equal(mpii_op_check(MPI_OP_NULL, MPI_INT), MPI_ERR_OP);
    assert_int_equal(mpii_op_check(MBMPI_OP_PREDEFINED_MAX, MPI_INT), MPI_ERR_OP);
    assert_int_equal(mpii_op_check(MBMPI_OP_PREDEFINED_MAX + 1, MPI_INT), MPI_ERR_OP);
    assert_int_equal(mpii_op_check(-3, MPI_INT), MPI_ERR_OP);
    assert_int_equal(mpii_op_check(MPI_SUM, MPI_DATATYPE_NULL), MPI_ERR_TYPE);
}

/* ------------------------------------------------------------------ */
/* derived types                                                       */

static void test_derived_vector(void **state)
{
    MPI_Datatype v;
    int in[10], io[10];
    (void)state;
    /* ints 0, 2, 4 of each element; extent 5 ints; count 2 covers 0,2,4,5,7,9 */
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    for (int i = 0; i < 10; i++) {
        in[i] = i + 1;
        io[i] = 100 * i;
    }
    assert_int_equal(mpii_op_check(MPI_SUM, v), MPI_SUCCESS);
    assert_int_equal(mpii_op_check(MPI_MAXLOC, v), MPI_ERR_OP);
    mpii_op_apply(MPI_SUM, in, io, 2, v);
    for (int i = 0; i < 10; i++) {
        int touched = i == 0 || i == 2 || i == 4 || i == 5 || i == 7 || i == 9;
        assert_int_equal(io[i], 100 * i + (touched ? i + 1 : 0));
    }
    /* MPI_REPLACE follows the blocks too */
    for (int i = 0; i < 10; i++)
        io[i] = -1;
    mpii_op_apply(MPI_REPLACE, in, io, 1, v);
    for (int i = 0; i < 10; i++)
        assert_int_equal(io[i], (i == 0 || i == 2 || i == 4) ? i + 1 : -1);
    mpii_op_apply(MPI_NO_OP, in, io, 2, v);
    assert_int_equal(io[1], -1);
    MPI_Type_free(&v);
}

static void test_derived_contig_and_resized(void **state)
{
    MPI_Datatype c, r;
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {6, 5, 4, 3, 2, 1};
    int x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
    (void)state;
    MPI_Type_contiguous(3, MPI_DOUBLE, &c);
    MPI_Type_commit(&c);
    mpii_op_apply(MPI_MAX, a, b, 2, c);
    for (int i = 0; i < 6; i++)
        assert_true(b[i] == (i < 3 ? 6 - i : i + 1));
    /* resized int with extent 8: every other int */
    MPI_Type_create_resized(MPI_INT, 0, 8, &r);
    MPI_Type_commit(&r);
    mpii_op_apply(MPI_PROD, x, y, 3, r);
    assert_int_equal(y[0], 10);
    assert_int_equal(y[1], 20);
    assert_int_equal(y[2], 90);
    assert_int_equal(y[3], 40);
    assert_int_equal(y[4], 250);
    assert_int_equal(y[5], 60);
    MPI_Type_free(&c);
    MPI_Type_free(&r);
}

static void test_derived_unaligned(void **state)
{
    /* ints at byte offsets 0 and 5: the second is misaligned */
    MPI_Datatype h;
    unsigned char in[12], io[12];
    int v;
    (void)state;
    MPI_Type_create_hvector(2, 1, 5, MPI_INT, &h);
    MPI_Type_commit(&h);
    memset(in, 0, sizeof in);
    memset(io, 0, sizeof io);
    v = 1000;
    memcpy(in + 5, &v, 4);
    v = 234;
    memcpy(io + 5, &v, 4);
    mpii_op_apply(MPI_SUM, in, io, 1, h);
    memcpy(&v, io + 5, 4);
    assert_int_equal(v, 1234);
    assert_int_equal(io[4], 0);
    assert_int_equal(io[9], 0);
    MPI_Type_free(&h);
}

static void test_derived_pairs(void **state)
{
    MPI_Datatype v, hi;
    (void)state;
    { /* MPI_SHORT_INT has a hole: the stream walk must find each pair */
        struct si {
            short v;
            int i;
        } a[4] = {{1, 0}, {9, 9}, {7, 3}, {9, 9}};
        struct si b[4] = {{2, 1}, {5, 5}, {7, 2}, {5, 5}};
        MPI_Type_vector(2, 1, 2, MPI_SHORT_INT, &v);
        MPI_Type_commit(&v);
        assert_int_equal(mpii_datatype_get(v)->basic, MPI_SHORT_INT);
        assert_int_equal(mpii_op_check(MPI_MAXLOC, v), MPI_SUCCESS);
        assert_int_equal(mpii_op_check(MPI_SUM, v), MPI_ERR_OP);
        mpii_op_apply(MPI_MAXLOC, a, b, 1, v);
        assert_int_equal(b[0].v, 2);
        assert_int_equal(b[0].i, 1);
        assert_int_equal(b[1].v, 5); /* not in the type */
        assert_int_equal(b[2].v, 7);
        assert_int_equal(b[2].i, 2); /* tie: lower index */
        MPI_Type_free(&v);
    }
    { /* MPI_DOUBLE_INT packed at 12-byte spacing: no write beyond the 12 data bytes */
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 12};
        unsigned char a[32], b[32];
        double dv;
        int iv;
        MPI_Type_create_hindexed(2, bl, d, MPI_DOUBLE_INT, &hi);
        MPI_Type_commit(&hi);
        memset(a, 0, sizeof a);
        memset(b, 0xEE, sizeof b);
        dv = 3.0, iv = 7;
        memcpy(a, &dv, 8), memcpy(a + 8, &iv, 4);
        dv = 1.0, iv = 8;
        memcpy(a + 12, &dv, 8), memcpy(a + 20, &iv, 4);
        dv = 2.0, iv = 1;
        memcpy(b, &dv, 8), memcpy(b + 8, &iv, 4);
        dv = 1.0, iv = 4;
        memcpy(b + 12, &dv, 8), memcpy(b + 20, &iv, 4);
        mpii_op_apply(MPI_MINLOC, a, b, 1, hi);
        memcpy(&dv, b, 8), memcpy(&iv, b + 8, 4);
        assert_true(dv == 2.0);
        assert_int_equal(iv, 1);
        memcpy(&dv, b + 12, 8), memcpy(&iv, b + 20, 4);
        assert_true(dv == 1.0);
        assert_int_equal(iv, 4);
        for (int k = 24; k < 32; k++)
            assert_int_equal(b[k], 0xEE);
        MPI_Type_free(&hi);
    }
}

static void test_derived_mixed_and_empty(void **state)
{
    MPI_Datatype s, e;
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    (void)state;
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_commit(&s);
    assert_int_equal(mpii_op_check(MPI_SUM, s), MPI_ERR_OP);
    assert_int_equal(mpii_op_check(MPI_REPLACE, s), MPI_SUCCESS);
    MPI_Type_contiguous(0, MPI_INT, &e);
    MPI_Type_commit(&e);
    assert_int_equal(mpii_op_check(MPI_SUM, e), MPI_SUCCESS);
    mpii_op_apply(MPI_SUM, NULL, NULL, 5, e);
    MPI_Type_free(&s);
    MPI_Type_free(&e);
}

/* ------------------------------------------------------------------ */
/* user ops                                                            */

static int calls, seen_len;
static MPI_Datatype seen_dt;

static void my_diff(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    calls++;
    seen_len = *len;
    seen_dt = *dt;
    if (*dt == MPI_INT)
        for (int i = 0; i < *len; i++)
            b[i] = a[i] - b[i];
}

static void test_user_ops(void **state)
{
    MPI_Op op, op2, pre = MPI_SUM;
    MPI_Datatype v;
    int a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    (void)state;
    assert_int_equal(MPI_Op_create(my_diff, 0, &op), MPI_SUCCESS);
    assert_true(op > MBMPI_OP_PREDEFINED_MAX);
    assert_int_equal(MPI_Op_create(my_diff, 1, &op2), MPI_SUCCESS);
    assert_int_not_equal(op, op2);
    assert_int_equal(mpii_op_is_commutative(op), 0);
    assert_int_equal(mpii_op_is_commutative(op2), 1);
    assert_int_equal(mpii_op_check(op, MPI_INT), MPI_SUCCESS);
    assert_int_equal(mpii_op_check(op, MPI_CHAR), MPI_SUCCESS); /* any type */
    mpii_op_apply(op, a, b, 3, MPI_INT);
    assert_int_equal(calls, 1);
    assert_int_equal(b[0], 9);
    assert_int_equal(b[2], 27);
    /* the user function sees the original derived handle and count */
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_commit(&v);
    mpii_op_apply(op2, a, b, 7, v);
    assert_int_equal(calls, 2);
    assert_int_equal(seen_len, 7);
    assert_int_equal(seen_dt, v);
    MPI_Type_free(&v);
    /* free */
    assert_int_equal(MPI_Op_free(&op), MPI_SUCCESS);
    assert_int_equal(op, MPI_OP_NULL);
    assert_int_equal(MPI_Op_free(&op), MPI_ERR_OP);
    assert_int_equal(MPI_Op_free(&pre), MPI_ERR_OP);
    assert_int_equal(pre, MPI_SUM);
    assert_int_equal(MPI_Op_free(NULL), MPI_ERR_ARG);
    {
        MPI_Op stale = op2;
        assert_int_equal(MPI_Op_free(&op2), MPI_SUCCESS);
        assert_int_equal(mpii_op_check(stale, MPI_INT), MPI_ERR_OP);
        assert_int_equal(mpii_op_is_commutative(stale), 0);
    }
    assert_int_equal(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    assert_int_equal(MPI_Op_create(my_diff, 1, NULL), MPI_ERR_ARG);
    /* many ops grow the table; finalize frees whatever is left */
    for (int i = 0; i < 40; i++)
        assert_int_equal(MPI_Op_create(my_diff, i & 1, &op), MPI_SUCCESS);
    assert_int_equal(mpii_op_is_commutative(op), 1);
    stub_initialized = 0;
    assert_int_equal(MPI_Op_create(my_diff, 1, &op), MPI_ERR_OTHER);
    stub_initialized = 1;
}

/* the sized Fortran types and C++'s: sizes, names, arithmetic */
static void test_sized_types(void **state)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    (void)state;
    assert_int_equal(mpii_datatype_get(MPI_INTEGER1)->size, 1);
    assert_int_equal(mpii_datatype_get(MPI_INTEGER2)->size, 2);
    assert_int_equal(mpii_datatype_get(MPI_INTEGER4)->size, 4);
    assert_int_equal(mpii_datatype_get(MPI_INTEGER16)->size, 16);
    assert_int_equal(mpii_datatype_get(MPI_REAL4)->size, 4);
    assert_int_equal(mpii_datatype_get(MPI_COMPLEX8)->size, 8);
    assert_int_equal(mpii_datatype_get(MPI_COMPLEX16)->size, 16);
    assert_int_equal(mpii_datatype_get(MPI_CXX_BOOL)->size, 1);
    assert_int_equal(MPI_Type_get_name(MPI_INTEGER4, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_INTEGER4");
    assert_int_equal(MPI_Type_get_name(MPI_CXX_LONG_DOUBLE_COMPLEX, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_CXX_LONG_DOUBLE_COMPLEX");
    {
        __int128 a[2] = {(__int128)1 << 100, -5}, b[2] = {(__int128)3 << 100, 7};
        mpii_op_apply(MPI_SUM, a, b, 2, MPI_INTEGER16);
        assert_true(b[0] == (__int128)4 << 100 && b[1] == 2);
    }
    {
        float a[2] = {1.5f, -2.0f}, b[2] = {2.0f, 8.0f};
        mpii_op_apply(MPI_PROD, a, b, 2, MPI_REAL4);
        assert_true(b[0] == 3.0f && b[1] == -16.0f);
    }
    {
        double _Complex a = 1.0 + 2.0 * I, b = 3.0 - 1.0 * I;
        mpii_op_apply(MPI_SUM, &a, &b, 1, MPI_COMPLEX16);
        assert_true(creal(b) == 4.0 && cimag(b) == 1.0);
    }
    {
        _Bool a[2] = {1, 0}, b[2] = {1, 1};
        mpii_op_apply(MPI_LAND, a, b, 2, MPI_CXX_BOOL);
        assert_true(b[0] == 1 && b[1] == 0);
    }
    /* optional types this platform lacks are MPI_DATATYPE_NULL */
    assert_int_equal(MPI_REAL16, MPI_DATATYPE_NULL);
    assert_int_equal(MPI_COMPLEX32, MPI_DATATYPE_NULL);
}

static void test_commutative_predefined(void **state)
{
    (void)state;
    for (MPI_Op op = MPI_MAX; op <= MPI_MINLOC; op++)
        assert_int_equal(mpii_op_is_commutative(op), 1);
    assert_int_equal(mpii_op_is_commutative(MPI_REPLACE), 0);
    assert_int_equal(mpii_op_is_commutative(MPI_NO_OP), 0);
}

/* ------------------------------------------------------------------ */
/* error strings (mpi/errstr.c)                                        */

static void test_error_strings(void **state)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    (void)state;
    for (int c = MPI_SUCCESS; c <= MPI_ERR_VALUE_TOO_LARGE; c++) {
        assert_int_equal(MPI_Error_string(c, s, &len), MPI_SUCCESS);
        assert_int_equal(len, (int)strlen(s));
        assert_true(len > 0 && len < MPI_MAX_ERROR_STRING);
        assert_int_equal(strncmp(s, "MPI_", 4), 0);
        assert_string_equal(s, mpii_error_class_string(c));
        assert_int_equal(MPI_Error_class(c, &cls), MPI_SUCCESS);
        assert_int_equal(cls, c);
    }
    MPI_Error_string(MPI_ERR_COUNT, s, &len);
    assert_non_null(strstr(s, "MPI_ERR_COUNT"));
    assert_int_equal(MPI_Error_class(MPI_ERR_LASTCODE, &cls), MPI_SUCCESS);
    /* invalid codes */
    assert_int_equal(MPI_Error_string(999, s, &len), MPI_ERR_ARG);
    assert_string_equal(s, "unknown error code 999");
    assert_int_equal(len, (int)strlen(s));
    assert_int_equal(MPI_Error_string(-1, s, &len), MPI_ERR_ARG);
    assert_int_equal(MPI_Error_class(MPI_ERR_VALUE_TOO_LARGE + 1, &cls), MPI_ERR_ARG);
    assert_int_equal(MPI_Error_class(-2, &cls), MPI_ERR_ARG);
    assert_int_equal(MPI_Error_string(MPI_SUCCESS, NULL, &len), MPI_ERR_ARG);
    assert_int_equal(MPI_Error_string(MPI_SUCCESS, s, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Error_class(MPI_SUCCESS, NULL), MPI_ERR_ARG);
    assert_string_equal(mpii_error_class_string(-1), "unknown error class");
    assert_string_equal(mpii_error_class_string(1000), "unknown error class");
    /* before MPI_Init: still works, and errors do not go through the handler */
    stub_initialized = 0;
    stub_last_err = MPI_SUCCESS;
    assert_int_equal(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len), MPI_SUCCESS);
    assert_non_null(strstr(s, "MPI_ERR_TRUNCATE"));
    assert_int_equal(MPI_Error_class(MPI_ERR_OP, &cls), MPI_SUCCESS);
    assert_int_equal(cls, MPI_ERR_OP);
    assert_int_equal(MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls), MPI_ERR_ARG);
    assert_int_equal(stub_last_err, MPI_SUCCESS);
    stub_initialized = 1;
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
#define T_C_INTEGER(h, T_, name) T(test_c_integer_##name),
#define T_OTHER_INTEGER(h, T_, name) T(test_other_integer_##name),
#define T_FLOATING(h, T_, name) T(test_floating_##name),
#define T_COMPLEX(h, T_, name) T(test_complex_##name),
#define T_PAIR(h, V, I, name) T(test_pair_##name),

int main(void)
{
    const struct CMUnitTest tests[] = {
        C_INTEGER(T_C_INTEGER) OTHER_INTEGER(T_OTHER_INTEGER) FLOATING(T_FLOATING) COMPLEX(T_COMPLEX)
            PAIRS(T_PAIR) T(test_logical),
        T(test_byte),
        T(test_signed_and_wrap),
        T(test_allowed_matrix),
        T(test_derived_vector),
        T(test_derived_contig_and_resized),
        T(test_derived_unaligned),
        T(test_derived_pairs),
        T(test_derived_mixed_and_empty),
        T(test_user_ops),
        T(test_commutative_predefined),
        T(test_sized_types),
        T(test_error_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
