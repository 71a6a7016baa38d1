/*
 * mpi/op.c: reduction operations.
 *
 * Predefined ops are applied by kernels `void k(in, inout, n)` over n
 * consecutive elements of one basic type; the allowed (op, type) pairs are
 * those of MPI 3.1 section 5.9.2:
 *   MPI_MAX, MPI_MIN        C integer, Fortran integer, multi-language, floating point
 *   MPI_SUM, MPI_PROD       the same and complex
 *   MPI_LAND, MPI_LOR, MPI_LXOR   C integer, logical
 *   MPI_BAND, MPI_BOR, MPI_BXOR   C integer, Fortran integer, multi-language, byte
 *   MPI_MAXLOC, MPI_MINLOC  the pair types
 * MPI_REPLACE and MPI_NO_OP (one-sided ops) work on any type.
 * A derived type whose type map holds a single basic type is reduced element
 * by element of that basic type, following its flattened blocks.
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */

#include "mpi_impl.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*kernel_fn)(const void *in, void *inout, size_t n);

/* ------------------------------------------------------------------ */
/* kernels                                                             */

/* X(handle, C type, name). MPI_CHAR is not among the C integer types of
 * MPI 3.1 5.9.2 (the standard leaves an op on it undefined, and requires no
 * error): Open MPI 4.1 and MPICH 4.0 both reduce it as the integer C's char
 * is, and programs written against them do, so mbmpi does too. */
#define C_INTEGER(X)                                                                                         \
    X(MPI_CHAR, char, char)                                                                                  \
    X(MPI_INT, int, int)                                                                                     \
    X(MPI_LONG, long, long)                                                                                  \
    X(MPI_SHORT, short, short)                                                                               \
    X(MPI_UNSIGNED_SHORT, unsigned short, ushort)                                                            \
    X(MPI_UNSIGNED, unsigned, uint)                                                                          \
    X(MPI_UNSIGNED_LONG, unsigned long, ulong)                                                               \
    X(MPI_LONG_LONG_INT, long long, llong)                                                                   \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, ullong)                                                    \
    X(MPI_SIGNED_CHAR, signed char, schar)                                                                   \
    X(MPI_UNSIGNED_CHAR, unsigned char, uchar)                                                               \
    X(MPI_INT8_T, int8_t, i8)                                                                                \
    X(MPI_INT16_T, int16_t, i16)                                                                             \
    X(MPI_INT32_T, int32_t, i32)                                                                             \
    X(MPI_INT64_T, int64_t, i64)                                                                             \
    X(MPI_UINT8_T, uint8_t, u8)                                                                              \
    X(MPI_UINT16_T, uint16_t, u16)                                                                           \
    X(MPI_UINT32_T, uint32_t, u32)                                                                           \
    X(MPI_UINT64_T, uint64_t, u64)
/* Fortran integer and the multi-language types (MPI_AINT, MPI_OFFSET, MPI_COUNT) */
#define F_INTEGER(X)                                                                         \
    X(MPI_INTEGER, int32_t, integer)                                                         \
    X(MPI_INTEGER8, int64_t, integer8)                                                       \
    X(MPI_INTEGER1, int8_t, integer1)                                                        \
    X(MPI_INTEGER2, int16_t, integer2)                                                       \
    X(MPI_INTEGER4, int32_t, integer4)                                                       \
    X(MPI_AINT, MPI_Aint, aint)                                                              \
    X(MPI_OFFSET, MPI_Offset, offset)                                                        \
    X(MPI_COUNT, MPI_Count, count)
/* Fortran INTEGER*16: wider than unsigned long long, so its own wrap-around type */
#define F_INTEGER16(X) X(MPI_INTEGER16, __int128, integer16)
#define FLOATING(X)                                                                          \
    X(MPI_FLOAT, float, float)                                                               \
    X(MPI_DOUBLE, double, double)                                                            \
    X(MPI_LONG_DOUBLE, long double, ldouble)                                                 \
    X(MPI_REAL, float, real)                                                                 \
    X(MPI_DOUBLE_PRECISION, double, dprec)                                                   \
    X(MPI_REAL8, double, real8)                                                              \
    X(MPI_REAL4, float, real4)
#define COMPLEX(X)                                                                           \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, cfloat)                                           \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, cdouble)                                        \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, cldouble)                             \
    X(MPI_COMPLEX, float _Complex, fcomplex)                                                 \
    X(MPI_DOUBLE_COMPLEX, double _Complex, fdcomplex)                                        \
    X(MPI_COMPLEX8, float _Complex, complex8)                                                \
    X(MPI_COMPLEX16, double _Complex, complex16)                                             \
    X(MPI_CXX_FLOAT_COMPLEX, float _Complex, cxxfcomplex)                                    \
    X(MPI_CXX_DOUBLE_COMPLEX, double _Complex, cxxdcomplex)                                  \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, cxxldcomplex)
/* Fortran LOGICAL is a 4-byte integer: true is non-zero, results are 0 or 1 */
#define LOGICAL(X)                                                                           \
    X(MPI_C_BOOL, _Bool, cbool)                                                              \
    X(MPI_LOGICAL, int32_t, logical)                                                         \
    X(MPI_CXX_BOOL, _Bool, cxxbool)
#define BYTE(X) X(MPI_BYTE, unsigned char, byte)
/* P(handle, value type, index type, name): struct { V v; I i; } */
#define PAIRS(P)                                                                             \
    P(MPI_FLOAT_INT, float, int, float_int)                                                  \
    P(MPI_DOUBLE_INT, double, int, double_int)                                               \
    P(MPI_LONG_INT, long, int, long_int)                                                     \
    P(MPI_2INT, int, int, 2int)                                                              \
    P(MPI_SHORT_INT, short, int, short_int)                                                  \
    P(MPI_LONG_DOUBLE_INT, long double, int, long_double_int)                                \
    P(MPI_2INTEGER, int32_t, int32_t, 2integer)                                              \
    P(MPI_2REAL, float, float, 2real)                                                        \
    P(MPI_2DOUBLE_PRECISION, double, double, 2double_precision)

/* inout[i] = in[i] op inout[i], with a = in[i], b = inout[i]. Buffers whose
 * address is not aligned for T (possible with derived types) go through memcpy. */
#define KERNEL(name, T, EXPR)                                                                \
    static void name(const void *in_, void *io_, size_t n)                                   \
    {                                                                                        \
        if ((((uintptr_t)in_ | (uintptr_t)io_) & (alignof(T) - 1)) == 0) {                   \
            const T *restrict in = in_;                                                      \
            T *restrict io = io_;                                                            \
            for (size_t k = 0; k < n; k++) {                                                 \
                T a = in[k], b = io[k];                                                      \
                io[k] = (T)(EXPR);                                                           \
            }                                                                                \
        } else {                                                                             \
            const char *in = in_;                                                            \
            char *io = io_;                                                                  \
            for (size_t k = 0; k < n; k++) {                                                 \
                T a, b, r;                                                                   \
                memcpy(&a, in + k * sizeof(T), sizeof(T));                                   \
                memcpy(&b, io + k * sizeof(T), sizeof(T));                                   \
                r = (T)(EXPR);                                                               \
                memcpy(io + k * sizeof(T), &r, sizeof(T));                                   \
            }                                                                                \
        }                                                                                    \
    }

/* Integer sum and product wrap around (computed unsigned: no undefined overflow). */
#define INT_KERNELS(h, T, name)                                                              \
    KERNEL(max_##name, T, a > b ? a : b)                                                     \
    KERNEL(min_##name, T, a < b ? a : b)                                                     \
    KERNEL(sum_##name, T, (unsigned long long)a + (unsigned long long)b)                     \
    KERNEL(prod_##name, T, (unsigned long long)a * (unsigned long long)b)                    \
    KERNEL(band_##name, T, a & b)                                                            \
    KERNEL(bor_##name, T, a | b)                                                             \
    KERNEL(bxor_##name, T, a ^ b)
#define INT128_KERNELS(h, T, name)                                                           \
    KERNEL(max_##name, T, a > b ? a : b)                                                     \
    KERNEL(min_##name, T, a < b ? a : b)                                                     \
    KERNEL(sum_##name, T, (unsigned __int128)a + (unsigned __int128)b)                       \
    KERNEL(prod_##name, T, (unsigned __int128)a * (unsigned __int128)b)                      \
    KERNEL(band_##name, T, a & b)                                                            \
    KERNEL(bor_##name, T, a | b)                                                             \
    KERNEL(bxor_##name, T, a ^ b)
#define LOGICAL_KERNELS(h, T, name)                                                          \
    KERNEL(land_##name, T, a && b)                                                           \
    KERNEL(lor_##name, T, a || b)                                                            \
    KERNEL(lxor_##name, T, !a != !b)
#define CINT_KERNELS(h, T, name) INT_KERNELS(h, T, name) LOGICAL_KERNELS(h, T, name)
#define FLOAT_KERNELS(h, T, name)                                                            \
    KERNEL(max_##name, T, a > b ? a : b)                                                     \
    KERNEL(min_##name, T, a < b ? a : b)                                                     \
    KERNEL(sum_##name, T, a + b)                                                             \
    KERNEL(prod_##name, T, a * b)
#define COMPLEX_KERNELS(h, T, name)                                                          \
    KERNEL(sum_##name, T, a + b)                                                             \
    KERNEL(prod_##name, T, a * b)
#define BYTE_KERNELS(h, T, name)                                                             \
    KERNEL(band_##name, T, a & b)                                                            \
    KERNEL(bor_##name, T, a | b)                                                             \
    KERNEL(bxor_##name, T, a ^ b)

C_INTEGER(CINT_KERNELS)
F_INTEGER(INT_KERNELS)
F_INTEGER16(INT128_KERNELS)
FLOATING(FLOAT_KERNELS)
COMPLEX(COMPLEX_KERNELS)
LOGICAL(LOGICAL_KERNELS)
BYTE(BYTE_KERNELS)

/* MAXLOC/MINLOC (MPI 3.1 5.9.4): the better value wins; on a tie the lower
 * index. Members are accessed one by one (memcpy) so that the padding of the
 * struct, which is not part of the type map, is neither read nor written. */
#define PAIR_KERNEL(name, S, V, I, BETTER)                                                   \
    static void name(const void *in_, void *io_, size_t n)                                   \
    {                                                                                        \
        const char *in = in_;                                                                \
        char *io = io_;                                                                      \
        for (size_t k = 0; k < n; k++, in += sizeof(S), io += sizeof(S)) {                   \
            V av, bv;                                                                        \
            I ai, bi;                                                                        \
            memcpy(&av, in + offsetof(S, v), sizeof av);                                     \
            memcpy(&ai, in + offsetof(S, i), sizeof ai);                                     \
            memcpy(&bv, io + offsetof(S, v), sizeof bv);                                     \
            memcpy(&bi, io + offsetof(S, i), sizeof bi);                                     \
            if (BETTER) {                                                                    \
                memcpy(io + offsetof(S, v), &av, sizeof av);                                 \
                memcpy(io + offsetof(S, i), &ai, sizeof ai);                                 \
            } else if (av == bv && ai < bi) {                                                \
                memcpy(io + offsetof(S, i), &ai, sizeof ai);                                 \
            }                                                                                \
        }                                                                                    \
    }
#define PAIR_KERNELS(h, V, I, name)                                                          \
    typedef struct pair_##name {                                                             \
        V v;                                                                                 \
        I i;                                                                                 \
    } pair_##name##_t;                                                                       \
    PAIR_KERNEL(maxloc_##name, pair_##name##_t, V, I, av > bv)                               \
    PAIR_KERNEL(minloc_##name, pair_##name##_t, V, I, av < bv)

PAIRS(PAIR_KERNELS)

/* case selectors: SEL_op(handle, T, name) -> case handle: return op_name; */
#define SEL_max(h, T, name) case h: return max_##name;
#define SEL_min(h, T, name) case h: return min_##name;
#define SEL_sum(h, T, name) case h: return sum_##name;
#define SEL_prod(h, T, name) case h: return prod_##name;
#define SEL_land(h, T, name) case h: return land_##name;
#define SEL_lor(h, T, name) case h: return lor_##name;
#define SEL_lxor(h, T, name) case h: return lxor_##name;
#define SEL_band(h, T, name) case h: return band_##name;
#define SEL_bor(h, T, name) case h: return bor_##name;
#define SEL_bxor(h, T, name) case h: return bxor_##name;
#define SEL_maxloc(h, V, I, name) case h: return maxloc_##name;
#define SEL_minloc(h, V, I, name) case h: return minloc_##name;

/* The kernel of predefined op `op` on basic type `t`, NULL if not allowed. */
static kernel_fn kernel_for(MPI_Op op, MPI_Datatype t)
{
    switch (op) {
    case MPI_MAX:
        switch (t) { C_INTEGER(SEL_max) F_INTEGER(SEL_max) F_INTEGER16(SEL_max) FLOATING(SEL_max) default: return NULL; }
    case MPI_MIN:
        switch (t) { C_INTEGER(SEL_min) F_INTEGER(SEL_min) F_INTEGER16(SEL_min) FLOATING(SEL_min) default: return NULL; }
    case MPI_SUM:
        switch (t) {
            C_INTEGER(SEL_sum) F_INTEGER(SEL_sum) F_INTEGER16(SEL_sum) FLOATING(SEL_sum) COMPLEX(SEL_sum)
            default: return NULL;
        }
    case MPI_PROD:
        switch (t) {
            C_INTEGER(SEL_prod) F_INTEGER(SEL_prod) F_INTEGER16(SEL_prod) FLOATING(SEL_prod) COMPLEX(SEL_prod)
            default: return NULL;
        }
    case MPI_LAND:
        switch (t) { C_INTEGER(SEL_land) LOGICAL(SEL_land) default: return NULL; }
    case MPI_LOR:
        switch (t) { C_INTEGER(SEL_lor) LOGICAL(SEL_lor) default: return NULL; }
    case MPI_LXOR:
        switch (t) { C_INTEGER(SEL_lxor) LOGICAL(SEL_lxor) default: return NULL; }
    case MPI_BAND:
        switch (t) { C_INTEGER(SEL_band) F_INTEGER(SEL_band) F_INTEGER16(SEL_band) BYTE(SEL_band) default: return NULL; }
    case MPI_BOR:
        switch (t) { C_INTEGER(SEL_bor) F_INTEGER(SEL_bor) F_INTEGER16(SEL_bor) BYTE(SEL_bor) default: return NULL; }
    case MPI_BXOR:
        switch (t) { C_INTEGER(SEL_bxor) F_INTEGER(SEL_bxor) F_INTEGER16(SEL_bxor) BYTE(SEL_bxor) default: return NULL; }
    case MPI_MAXLOC:
        switch (t) { PAIRS(SEL_maxloc) default: return NULL; }
    case MPI_MINLOC:
        switch (t) { PAIRS(SEL_minloc) default: return NULL; }
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------ */
/* user ops                                                            */

typedef struct user_op {
    MPI_User_function *fn; /* or an MPI_User_function_c when big */
    int big;               /* MPI_Op_create_c: the length is an MPI_Count */
    int commute;
    int holds; /* pending nonblocking reductions: fn stays after MPI_Op_free */
    int freed; /* MPI_Op_free came while held: invalid for new calls */
} user_op_t;

static user_op_t *uops; /* uops[i] has handle MBMPI_OP_PREDEFINED_MAX + 1 + i; fn NULL when free */
static size_t uops_cap;

/* the op behind a handle, also one freed but still held (pending calls) */
static user_op_t *user_op_any(MPI_Op op)
{
    if (op > MBMPI_OP_PREDEFINED_MAX) {
        size_t i = (size_t)op - MBMPI_OP_PREDEFINED_MAX - 1;
        if (i < uops_cap && uops[i].fn)
            return &uops[i];
    }
    return NULL;
}

/* the op behind a valid handle */
static user_op_t *user_op(MPI_Op op)
{
    user_op_t *u = user_op_any(op);
    return u && !u->freed ? u : NULL;
}

int mpii_op_hold(MPI_Op op)
{
    user_op_t *u = user_op_any(op); /* also one freed but held (a started persistent collective) */
    if (!u)
        return 0;
    u->holds++;
    return 1;
}

void mpii_op_unhold(MPI_Op op)
{
    user_op_t *u = user_op_any(op);
    if (u && u->holds > 0 && --u->holds == 0 && u->freed) {
        u->fn = NULL;
        u->freed = 0;
    }
}

static int is_predefined(MPI_Op op)
{
    return op >= MPI_MAX && op <= MPI_NO_OP;
}

int mpii_op_init(void)
{
    return MPI_SUCCESS;
}

void mpii_op_finalize(void)
{
    free(uops);
    uops = NULL;
    uops_cap = 0;
}

static int op_create(const char *fn, MPI_User_function *user_fn, int big, int commute, MPI_Op *op)
{
    size_t i;
    MPII_CHECK_INIT(fn);
    if (!user_fn)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "user_fn is NULL");
    if (!op)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "op is NULL");
    for (i = 0; i < uops_cap; i++)
        if (!uops[i].fn)
            break;
    if (i == uops_cap) {
        size_t ncap = uops_cap ? 2 * uops_cap : 8;
        user_op_t *n = realloc(uops, ncap * sizeof *n);
        if (!n)
            return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        memset(n + uops_cap, 0, (ncap - uops_cap) * sizeof *n);
        uops = n;
        uops_cap = ncap;
    }
    uops[i].fn = user_fn;
    uops[i].big = big;
    uops[i].commute = commute != 0;
    uops[i].holds = 0;
    uops[i].freed = 0;
    *op = (MPI_Op)(MBMPI_OP_PREDEFINED_MAX + 1 + i);
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, 0, commute, op);
}

/* MPI 4.0: the function gets the length as an MPI_Count */
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", (MPI_User_function *)(void (*)(void))user_fn, 1, commute, op);
}

int MPI_Op_free(MPI_Op *op)
{
    static const char fn[] = "MPI_Op_free";
    user_op_t *u;
    MPII_CHECK_INIT(fn);
    if (!op)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "op is NULL");
    if (is_predefined(*op)) {
        char ob[32];
        return mpii_err(NULL, MPI_ERR_OP, fn, "cannot free predefined op %s", mpii_op_name(*op, ob, sizeof ob));
    }
    u = user_op(*op);
    if (!u)
        return mpii_err(NULL, MPI_ERR_OP, fn, "invalid op %d", (int)*op);
    if (u->holds > 0)
        u->freed = 1; /* pending reductions still apply it */
    else
        u->fn = NULL;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* checking and applying                                               */

const char *mpii_op_name(MPI_Op op, char *buf, size_t n)
{
    static const char *const names[] = {"",        "MPI_MAX",  "MPI_MIN",    "MPI_SUM",    "MPI_PROD",
                                        "MPI_LAND", "MPI_BAND", "MPI_LOR",    "MPI_BOR",    "MPI_LXOR",
                                        "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
    if (op > 0 && op < (MPI_Op)(sizeof(names) / sizeof(names[0])))
        return names[op];
    snprintf(buf, n, "%s %d", user_op(op) ? "user op" : "op", (int)op);
    return buf;
}

int mpii_op_check(MPI_Op op, MPI_Datatype dt)
{
    mpii_datatype_t *t;
    /* a started persistent collective (mpi/coll/nbc.c) runs with the op
     * its _init call held: the user may have freed the handle since */
    if (!is_predefined(op) && !(mpii_nbc_in_coroutine() ? user_op_any(op) : user_op(op)))
        return MPI_ERR_OP;
    t = mpii_datatype_get(dt);
    if (!t)
        return MPI_ERR_TYPE;
    if (!is_predefined(op) || op == MPI_REPLACE || op == MPI_NO_OP || t->size == 0)
        return MPI_SUCCESS;
    if (t->basic == MPI_DATATYPE_NULL || !kernel_for(op, t->basic))
        return MPI_ERR_OP;
    return MPI_SUCCESS;
}

int mpii_op_is_commutative(MPI_Op op)
{
    user_op_t *u;
    if (is_predefined(op))
        return op != MPI_REPLACE && op != MPI_NO_OP;
    u = user_op_any(op);
    return u ? u->commute : 0;
}

static inline const char *cat(const void *buf, MPI_Aint off)
{
    return (const char *)((uintptr_t)buf + (uintptr_t)off);
}

static inline char *at(void *buf, MPI_Aint off)
{
    return (char *)((uintptr_t)buf + (uintptr_t)off);
}

void mpii_op_apply(MPI_Op op, const void *invec, void *inoutvec, int count, MPI_Datatype dt)
{
    user_op_t *u;
    mpii_datatype_t *t, *b;
    kernel_fn k;
    if (count <= 0)
        return;
    if ((u = user_op_any(op)) != NULL) {
        int n = count;
        MPI_Count nc = count;
        MPI_Datatype d = dt;
        if (u->big)
            ((MPI_User_function_c *)(void (*)(void))u->fn)((void *)(uintptr_t)invec, inoutvec, &nc, &d);
        else
            u->fn((void *)(uintptr_t)invec, inoutvec, &n, &d);
        return;
    }
    t = mpii_datatype_get(dt);
    if (!t || op == MPI_NO_OP || t->size == 0)
        return;
    if (op == MPI_REPLACE) {
        for (int i = 0; i < count; i++) {
            MPI_Aint base = (MPI_Aint)i * t->extent;
            for (size_t j = 0; j < t->nblocks; j++)
                memmove(at(inoutvec, base + t->blocks[j].disp), cat(invec, base + t->blocks[j].disp),
                        t->blocks[j].len);
        }
        return;
    }
    if (t->basic == MPI_DATATYPE_NULL || (k = kernel_for(op, t->basic)) == NULL)
        return;
    if (t->predefined) { /* an array of the basic type (its extent is sizeof the C type) */
        k(invec, inoutvec, (size_t)count);
        return;
    }
    b = mpii_datatype_get(t->basic);
    if (b->contig) {
        /* every flattened block is a whole number of consecutive basic elements */
        if (t->contig) {
            k(cat(invec, t->true_lb), at(inoutvec, t->true_lb), (size_t)count * t->basic_count);
            return;
        }
        for (int i = 0; i < count; i++) {
            MPI_Aint base = (MPI_Aint)i * t->extent;
            for (size_t j = 0; j < t->nblocks; j++)
                k(cat(invec, base + t->blocks[j].disp), at(inoutvec, base + t->blocks[j].disp),
                  t->blocks[j].len / b->size);
        }
        return;
    }
    /* basic type with holes (e.g. MPI_SHORT_INT): a basic element starts at every
     * multiple of its size in the data stream of one element of t */
    for (int i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * t->extent;
        size_t pos = 0;
        for (size_t j = 0; j < t->nblocks; j++) {
            size_t len = t->blocks[j].len;
            size_t q = (pos + b->size - 1) / b->size * b->size;
            for (; q < pos + len; q += b->size) {
                MPI_Aint off = base + t->blocks[j].disp + (MPI_Aint)(q - pos);
                k(cat(invec, off), at(inoutvec, off), 1);
            }
            pos += len;
        }
    }
}
