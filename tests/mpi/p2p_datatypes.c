/*
 * p2p_datatypes: every predefined C type (MPI_C_DOUBLE_COMPLEX and the
 * pair types included) sent and received with value checks; derived types
 * (contiguous, vector with positive and negative stride, hvector, indexed,
 * hindexed, struct, resized, dup, nested) on both sides with different
 * layouts (send vector, receive contiguous and the reverse, struct to a
 * struct with another field order); Get_count / Get_elements on partial
 * receives; Type_size / extents; Pack/Unpack with MPI_PACKED; a large
 * strided message. Each rank exchanges with its partner (2k <-> 2k+1, the
 * last rank of an odd job with itself) through Sendrecv or Irecv/Isend.
 */
#define TEST_NAME "p2p_datatypes"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

static int rank, size, partner;
static int xfer_mode;

/* send (sbuf, scount, stype) to the partner and receive the partner's
 * message into (rbuf, rcount, rtype); alternates Sendrecv and Irecv/Isend */
static void xfer(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Status *st)
{
    int tag = 100 + (xfer_mode % 50);
    if (xfer_mode++ % 2 == 0) {
        MPI_CHECK(MPI_Sendrecv(sbuf, scount, stype, partner, tag, rbuf, rcount, rtype, partner, tag,
                               MPI_COMM_WORLD, st));
    } else {
        MPI_Request rq[2];
        MPI_Status sts[2];
        MPI_CHECK(MPI_Irecv(rbuf, rcount, rtype, partner, tag, MPI_COMM_WORLD, &rq[0]));
        MPI_CHECK(MPI_Isend(sbuf, scount, stype, partner, tag, MPI_COMM_WORLD, &rq[1]));
        MPI_CHECK(MPI_Waitall(2, rq, sts));
        *st = sts[0];
    }
}

static void check_counts(const MPI_Status *st, MPI_Datatype t, int count, int elements, const char *what)
{
    int c = -2, e = -2;
    MPI_CHECK(MPI_Get_count(st, t, &c));
    MPI_CHECK(MPI_Get_elements(st, t, &e));
    CHECK(c == count, "%s: Get_count %d, expected %d", what, c, count);
    CHECK(e == elements, "%s: Get_elements %d, expected %d", what, e, elements);
}

#define NB 37
static int v(int src, int i)
{
    return src * 37 + i * 3 + 1;
}

#define BASIC(T, MT, GEN)                                                                                    \
    do {                                                                                                     \
        T a_[NB], b_[NB];                                                                                    \
        MPI_Status st_;                                                                                      \
        for (int i = 0; i < NB; i++) {                                                                       \
            int x = v(rank, i);                                                                              \
            a_[i] = (T)(GEN);                                                                                \
        }                                                                                                    \
        memset(b_, 0, sizeof b_);                                                                            \
        xfer(a_, NB, MT, b_, NB, MT, &st_);                                                                  \
        for (int i = 0; i < NB; i++) {                                                                       \
            int x = v(partner, i);                                                                           \
            T e_ = (T)(GEN);                                                                                 \
            CHECK(b_[i] == e_, "%s: element %d wrong", #MT, i);                                              \
        }                                                                                                    \
        check_counts(&st_, MT, NB, NB, #MT);                                                                 \
    } while (0)

#define PAIR(VT, MT)                                                                                         \
    do {                                                                                                     \
        struct {                                                                                             \
            VT val;                                                                                          \
            int idx;                                                                                         \
        } a_[NB], b_[NB];                                                                                    \
        MPI_Status st_;                                                                                      \
        for (int i = 0; i < NB; i++) {                                                                       \
            a_[i].val = (VT)(v(rank, i) % 1000);                                                             \
            a_[i].idx = -v(rank, i);                                                                         \
        }                                                                                                    \
        memset(b_, 0, sizeof b_);                                                                            \
        xfer(a_, NB, MT, b_, NB, MT, &st_);                                                                  \
        for (int i = 0; i < NB; i++)                                                                         \
            CHECK(b_[i].val == (VT)(v(partner, i) % 1000) && b_[i].idx == -v(partner, i),                    \
                  "%s: pair %d wrong", #MT, i);                                                              \
        int c_ = -1;                                                                                         \
        MPI_CHECK(MPI_Get_count(&st_, MT, &c_));                                                             \
        CHECK(c_ == NB, "%s: Get_count %d", #MT, c_);                                                        \
    } while (0)

static void basic_types(void)
{
    BASIC(char, MPI_CHAR, x % 100 + 20);
    BASIC(signed char, MPI_SIGNED_CHAR, x % 200 - 100);
    BASIC(unsigned char, MPI_UNSIGNED_CHAR, x % 250);
    BASIC(unsigned char, MPI_BYTE, x * 7);
    BASIC(wchar_t, MPI_WCHAR, x % 1000 + 65);
    BASIC(short, MPI_SHORT, -x * 3);
    BASIC(unsigned short, MPI_UNSIGNED_SHORT, x * 5 + 40000);
    BASIC(int, MPI_INT, -x * 1000003);
    BASIC(unsigned, MPI_UNSIGNED, (unsigned)x * 3000000019u);
    BASIC(long, MPI_LONG, -(long)x * 100000007L);
    BASIC(unsigned long, MPI_UNSIGNED_LONG, (unsigned long)x * 4000000007UL);
    BASIC(long long, MPI_LONG_LONG_INT, -(long long)x * 1000000000039LL);
    BASIC(long long, MPI_LONG_LONG, (long long)x << 33);
    BASIC(unsigned long long, MPI_UNSIGNED_LONG_LONG, (unsigned long long)x * 0x9E3779B97F4A7C15ULL);
    BASIC(float, MPI_FLOAT, x + 0.25f);
    BASIC(double, MPI_DOUBLE, x * 1.0e100 + 0.5);
    BASIC(long double, MPI_LONG_DOUBLE, (long double)x / 3.0L);
    BASIC(bool, MPI_C_BOOL, x % 3 == 0);
    BASIC(int8_t, MPI_INT8_T, x % 200 - 100);
    BASIC(int16_t, MPI_INT16_T, -x * 7);
    BASIC(int32_t, MPI_INT32_T, -x * 100003);
    BASIC(int64_t, MPI_INT64_T, (int64_t)x * -((int64_t)1 << 40));
    BASIC(uint8_t, MPI_UINT8_T, x % 256);
    BASIC(uint16_t, MPI_UINT16_T, x * 11);
    BASIC(uint32_t, MPI_UINT32_T, (uint32_t)x * 2654435761u);
    BASIC(uint64_t, MPI_UINT64_T, (uint64_t)x * 0xD1B54A32D192ED03ULL);
    BASIC(float _Complex, MPI_C_FLOAT_COMPLEX, x + (x + 0.5f) * I);
    BASIC(float _Complex, MPI_C_COMPLEX, x - 2.0f * I);
    BASIC(double _Complex, MPI_C_DOUBLE_COMPLEX, x * 1.5 + (x * -2.25) * I);
    BASIC(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, x / 7.0L + (x / 9.0L) * I);
    BASIC(MPI_Aint, MPI_AINT, (MPI_Aint)x * 123456789);
    BASIC(MPI_Offset, MPI_OFFSET, (MPI_Offset)x * 987654321987LL);
    BASIC(MPI_Count, MPI_COUNT, -(MPI_Count)x * 55555555555LL);
    PAIR(float, MPI_FLOAT_INT);
    PAIR(double, MPI_DOUBLE_INT);
    PAIR(long, MPI_LONG_INT);
    PAIR(int, MPI_2INT);
    PAIR(short, MPI_SHORT_INT);
    PAIR(long double, MPI_LONG_DOUBLE_INT);
}

static void check_type(MPI_Datatype t, int esize, MPI_Aint elb, MPI_Aint eext, MPI_Aint etlb, MPI_Aint etext,
                       const char *what)
{
    int sz = -1;
    MPI_Aint lb, ext, tlb, text;
    MPI_CHECK(MPI_Type_size(t, &sz));
    MPI_CHECK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_CHECK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK(sz == esize, "%s: Type_size %d, expected %d", what, sz, esize);
    CHECK(lb == elb && ext == eext, "%s: lb/extent %ld/%ld, expected %ld/%ld", what, (long)lb, (long)ext,
          (long)elb, (long)eext);
    CHECK(tlb == etlb && text == etext, "%s: true lb/extent %ld/%ld, expected %ld/%ld", what, (long)tlb,
          (long)text, (long)etlb, (long)etext);
}

static void contiguous_types(void)
{
    MPI_Datatype t5, t5dup, nested;
    int out[64], in[64];
    MPI_Status st;
    MPI_CHECK(MPI_Type_contiguous(5, MPI_INT, &t5));
    MPI_CHECK(MPI_Type_commit(&t5));
    check_type(t5, 20, 0, 20, 0, 20, "contiguous(5, MPI_INT)");
    for (int i = 0; i < 64; i++)
        out[i] = v(rank, i);

    /* 3 x t5 out, 15 ints in (receive count larger) */
    memset(in, 0, sizeof in);
    xfer(out, 3, t5, in, 20, MPI_INT, &st);
    check_counts(&st, MPI_INT, 15, 15, "contiguous -> ints");
    for (int i = 0; i < 15; i++)
        CHECK(in[i] == v(partner, i), "contiguous -> ints: element %d", i);
    CHECK(in[15] == 0, "contiguous -> ints wrote past the message");

    /* 15 ints out, t5 in: 3 whole t5 */
    memset(in, 0, sizeof in);
    xfer(out, 15, MPI_INT, in, 4, t5, &st);
    check_counts(&st, t5, 3, 15, "ints -> contiguous");
    /* 7 ints out, t5 in: 1.4 t5 -> MPI_UNDEFINED count, 7 elements */
    memset(in, 0, sizeof in);
    xfer(out, 7, MPI_INT, in, 2, t5, &st);
    check_counts(&st, t5, MPI_UNDEFINED, 7, "7 ints -> contiguous(5)");
    for (int i = 0; i < 7; i++)
        CHECK(in[i] == v(partner, i), "partial contiguous: element %d", i);
    CHECK(in[7] == 0, "partial contiguous wrote past the message");

    /* Type_dup works like the original */
    MPI_CHECK(MPI_Type_dup(t5, &t5dup));
    check_type(t5dup, 20, 0, 20, 0, 20, "Type_dup(contiguous)");
    memset(in, 0, sizeof in);
    xfer(out, 2, t5dup, in, 2, t5, &st);
    check_counts(&st, t5, 2, 10, "dup -> original");
    for (int i = 0; i < 10; i++)
        CHECK(in[i] == v(partner, i), "dup: element %d", i);

    /* nested: every other t5 (vector of 3 blocks of 1 t5, stride 2 t5) */
    MPI_CHECK(MPI_Type_vector(3, 1, 2, t5, &nested));
    MPI_CHECK(MPI_Type_commit(&nested));
    check_type(nested, 60, 0, 100, 0, 100, "vector of contiguous");
    memset(in, 0, sizeof in);
    xfer(out, 1, nested, in, 15, MPI_INT, &st);
    check_counts(&st, MPI_INT, 15, 15, "vector of contiguous -> ints");
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 5; j++)
            CHECK(in[b * 5 + j] == v(partner, b * 10 + j), "vector of contiguous: block %d elem %d", b, j);

    MPI_CHECK(MPI_Type_free(&nested));
    MPI_CHECK(MPI_Type_free(&t5dup));
    MPI_CHECK(MPI_Type_free(&t5));
    CHECK(t5 == MPI_DATATYPE_NULL, "Type_free did not set the handle to MPI_DATATYPE_NULL");
}

static void vector_types(void)
{
    double m[6][8], col[6];
    MPI_Datatype column, blocks, neg;
    MPI_Status st;
    /* a matrix column */
    MPI_CHECK(MPI_Type_vector(6, 1, 8, MPI_DOUBLE, &column));
    MPI_CHECK(MPI_Type_commit(&column));
    check_type(column, 48, 0, 41 * 8, 0, 41 * 8, "column vector");
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 8; c++)
            m[r][c] = v(rank, r * 8 + c) + 0.5;
    memset(col, 0, sizeof col);
    xfer(&m[0][2], 1, column, col, 6, MPI_DOUBLE, &st);
    check_counts(&st, MPI_DOUBLE, 6, 6, "column -> contiguous");
    for (int r = 0; r < 6; r++)
        CHECK(col[r] == v(partner, r * 8 + 2) + 0.5, "column -> contiguous: row %d", r);
    /* contiguous -> column: only column 5 changes */
    for (int r = 0; r < 6; r++)
        col[r] = -(double)v(rank, r);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 8; c++)
            m[r][c] = 1.0e6;
    xfer(col, 6, MPI_DOUBLE, &m[0][5], 1, column, &st);
    check_counts(&st, column, 1, 6, "contiguous -> column");
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 8; c++)
            CHECK(m[r][c] == (c == 5 ? -(double)v(partner, r) : 1.0e6), "contiguous -> column: [%d][%d] = %g",
                  r, c, m[r][c]);

    /* blocks of 3 ints, stride 5, count 2 of them on the wire */
    int out[64], in[64];
    MPI_CHECK(MPI_Type_vector(4, 3, 5, MPI_INT, &blocks));
    MPI_CHECK(MPI_Type_commit(&blocks));
    check_type(blocks, 48, 0, 72, 0, 72, "vector(4,3,5)");
    for (int i = 0; i < 64; i++)
        out[i] = v(rank, i);
    memset(in, 0, sizeof in);
    xfer(out, 2, blocks, in, 24, MPI_INT, &st);
    check_counts(&st, MPI_INT, 24, 24, "2 x vector(4,3,5) -> ints");
    for (int k = 0; k < 24; k++) {
        int inst = k / 12, blk = (k % 12) / 3, j = k % 3;
        CHECK(in[k] == v(partner, inst * 18 + blk * 5 + j), "2 x vector(4,3,5) -> ints: element %d", k);
    }
    /* ints -> vector: gaps untouched; partial (7 of 12) */
    for (int i = 0; i < 64; i++)
        in[i] = -1;
    xfer(out, 7, MPI_INT, in, 1, blocks, &st);
    check_counts(&st, blocks, MPI_UNDEFINED, 7, "7 ints -> vector(4,3,5)");
    for (int i = 0; i < 20; i++) {
        int blk = i / 5, j = i % 5, k = blk * 3 + j;
        int expect = (j < 3 && k < 7) ? v(partner, k) : -1;
        CHECK(in[i] == expect, "ints -> vector: slot %d is %d, expected %d", i, in[i], expect);
    }

    /* negative stride: elements 6, 4, 2, 0 */
    MPI_CHECK(MPI_Type_vector(4, 1, -2, MPI_INT, &neg));
    MPI_CHECK(MPI_Type_commit(&neg));
    check_type(neg, 16, -24, 28, -24, 28, "vector(4,1,-2)");
    memset(in, 0, sizeof in);
    xfer(&out[6], 1, neg, in, 4, MPI_INT, &st);
    for (int k = 0; k < 4; k++)
        CHECK(in[k] == v(partner, 6 - 2 * k), "negative-stride vector: element %d", k);

    MPI_CHECK(MPI_Type_free(&neg));
    MPI_CHECK(MPI_Type_free(&blocks));
    MPI_CHECK(MPI_Type_free(&column));
}

struct rec {
    int a;
    double d;
    char c;
};

static void hvector_types(void)
{
    struct rec rs[10];
    double ds[10];
    MPI_Datatype hv;
    MPI_Status st;
    MPI_CHECK(MPI_Type_create_hvector(10, 1, (MPI_Aint)sizeof(struct rec), MPI_DOUBLE, &hv));
    MPI_CHECK(MPI_Type_commit(&hv));
    check_type(hv, 80, 0, (MPI_Aint)(9 * sizeof(struct rec) + 8), 0, (MPI_Aint)(9 * sizeof(struct rec) + 8),
               "hvector");
    for (int i = 0; i < 10; i++) {
        rs[i].a = -1;
        rs[i].d = v(rank, i) * 0.125;
        rs[i].c = 'x';
    }
    memset(ds, 0, sizeof ds);
    xfer(&rs[0].d, 1, hv, ds, 10, MPI_DOUBLE, &st);
    check_counts(&st, MPI_DOUBLE, 10, 10, "hvector -> doubles");
    for (int i = 0; i < 10; i++)
        CHECK(ds[i] == v(partner, i) * 0.125, "hvector -> doubles: element %d", i);
    /* doubles -> hvector: other fields untouched */
    for (int i = 0; i < 10; i++)
        ds[i] = v(rank, i) * 4.0;
    xfer(ds, 10, MPI_DOUBLE, &rs[0].d, 1, hv, &st);
    for (int i = 0; i < 10; i++)
        CHECK(rs[i].d == v(partner, i) * 4.0 && rs[i].a == -1 && rs[i].c == 'x',
              "doubles -> hvector: record %d", i);
    MPI_CHECK(MPI_Type_free(&hv));
}

static void indexed_types(void)
{
    const int bl[3] = {1, 2, 3}, dp[3] = {0, 4, 10};
    const int pos[6] = {0, 4, 5, 10, 11, 12};
    MPI_Datatype ix, hix, vec;
    MPI_Status st;
    int out[32], in[32];
    MPI_CHECK(MPI_Type_indexed(3, bl, dp, MPI_INT, &ix));
    MPI_CHECK(MPI_Type_commit(&ix));
    check_type(ix, 24, 0, 52, 0, 52, "indexed");
    for (int i = 0; i < 32; i++)
        out[i] = v(rank, i);
    /* indexed -> contiguous */
    memset(in, 0, sizeof in);
    xfer(out, 1, ix, in, 6, MPI_INT, &st);
    check_counts(&st, MPI_INT, 6, 6, "indexed -> ints");
    for (int k = 0; k < 6; k++)
        CHECK(in[k] == v(partner, pos[k]), "indexed -> ints: element %d", k);
    /* contiguous -> indexed */
    for (int i = 0; i < 32; i++)
        in[i] = -1;
    xfer(out, 6, MPI_INT, in, 1, ix, &st);
    check_counts(&st, ix, 1, 6, "ints -> indexed");
    for (int i = 0, k = 0; i < 16; i++) {
        int expect = (k < 6 && pos[k] == i) ? v(partner, k++) : -1;
        CHECK(in[i] == expect, "ints -> indexed: slot %d is %d, expected %d", i, in[i], expect);
    }
    /* indexed -> vector(3 blocks of 2, stride 3): same signature, other layout */
    MPI_CHECK(MPI_Type_vector(3, 2, 3, MPI_INT, &vec));
    MPI_CHECK(MPI_Type_commit(&vec));
    for (int i = 0; i < 32; i++)
        in[i] = -1;
    xfer(out, 1, ix, in, 1, vec, &st);
    for (int k = 0; k < 6; k++)
        CHECK(in[(k / 2) * 3 + k % 2] == v(partner, pos[k]), "indexed -> vector: element %d", k);
    CHECK(in[2] == -1 && in[5] == -1, "indexed -> vector wrote a gap");
    /* hindexed with byte displacements, two instances */
    const MPI_Aint hdp[2] = {8, 0};
    const int hbl[2] = {2, 1};
    MPI_CHECK(MPI_Type_create_hindexed(2, hbl, hdp, MPI_INT, &hix));
    MPI_CHECK(MPI_Type_commit(&hix));
    check_type(hix, 12, 0, 16, 0, 16, "hindexed");
    memset(in, 0, sizeof in);
    xfer(out, 2, hix, in, 6, MPI_INT, &st);
    check_counts(&st, MPI_INT, 6, 6, "hindexed -> ints");
    const int hpos[6] = {2, 3, 0, 6, 7, 4};
    for (int k = 0; k < 6; k++)
        CHECK(in[k] == v(partner, hpos[k]), "hindexed -> ints: element %d is %d", k, in[k]);
    MPI_CHECK(MPI_Type_free(&hix));
    MPI_CHECK(MPI_Type_free(&vec));
    MPI_CHECK(MPI_Type_free(&ix));
}

struct s_out {
    int a;
    double b[2];
    char c[3];
};
struct s_in { /* same type signature (int, 2 double, 3 char), other layout */
    char c[3];
    double b[2];
    int a;
};

static void struct_types(void)
{
    MPI_Datatype to0, tout, ti0, tin;
    MPI_Status st;
    const int bl[3] = {1, 2, 3};
    const MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Aint d_out[3] = {offsetof(struct s_out, a), offsetof(struct s_out, b), offsetof(struct s_out, c)};
    MPI_Aint d_in[3] = {offsetof(struct s_in, a), offsetof(struct s_in, b), offsetof(struct s_in, c)};
    MPI_CHECK(MPI_Type_create_struct(3, bl, d_out, ty, &to0));
    MPI_CHECK(MPI_Type_create_resized(to0, 0, (MPI_Aint)sizeof(struct s_out), &tout));
    MPI_CHECK(MPI_Type_commit(&tout));
    MPI_CHECK(MPI_Type_create_struct(3, bl, d_in, ty, &ti0));
    MPI_CHECK(MPI_Type_create_resized(ti0, 0, (MPI_Aint)sizeof(struct s_in), &tin));
    MPI_CHECK(MPI_Type_commit(&tin));
    check_type(tout, 23, 0, (MPI_Aint)sizeof(struct s_out), 0, (MPI_Aint)(offsetof(struct s_out, c) + 3),
               "struct (resized)");

    /* with addresses from MPI_Get_address, the way applications build them */
    struct s_out probe;
    MPI_Aint base, fa;
    MPI_CHECK(MPI_Get_address(&probe, &base));
    MPI_CHECK(MPI_Get_address(&probe.b, &fa));
    CHECK(fa - base == d_out[1], "Get_address difference %ld, expected %ld", (long)(fa - base),
          (long)d_out[1]);

    struct s_out so[5];
    struct s_in si[6];
    for (int i = 0; i < 5; i++) {
        so[i].a = v(rank, i);
        so[i].b[0] = v(rank, i) + 0.5;
        so[i].b[1] = -v(rank, i) - 0.25;
        for (int j = 0; j < 3; j++)
            so[i].c[j] = (char)('a' + (v(rank, i) + j) % 26);
    }
    memset(si, 0x7f, sizeof si);
    xfer(so, 5, tout, si, 6, tin, &st);
    check_counts(&st, tin, 5, 30, "struct -> struct");
    for (int i = 0; i < 5; i++) {
        CHECK(si[i].a == v(partner, i) && si[i].b[0] == v(partner, i) + 0.5 &&
                  si[i].b[1] == -v(partner, i) - 0.25,
              "struct -> struct: record %d numbers", i);
        for (int j = 0; j < 3; j++)
            CHECK(si[i].c[j] == (char)('a' + (v(partner, i) + j) % 26), "struct -> struct: record %d char %d",
                  i, j);
    }
    CHECK(si[5].a == 0x7f7f7f7f, "struct -> struct wrote past the message");
    MPI_CHECK(MPI_Type_free(&to0));
    MPI_CHECK(MPI_Type_free(&ti0));
    /* resized types survive freeing their parents */
    memset(si, 0, sizeof si);
    xfer(so, 2, tout, si, 2, tin, &st);
    CHECK(si[1].a == v(partner, 1) && si[1].c[2] == (char)('a' + (v(partner, 1) + 2) % 26),
          "struct after freeing the parent type");
    MPI_CHECK(MPI_Type_free(&tout));
    MPI_CHECK(MPI_Type_free(&tin));
}

static void pack_unpack(void)
{
    MPI_Datatype blocks;
    int out[40], in[40], hdr = 1000 + rank, hdr_in = -1, psize = 0, pos = 0;
    MPI_Status st;
    MPI_CHECK(MPI_Type_vector(4, 2, 5, MPI_INT, &blocks));
    MPI_CHECK(MPI_Type_commit(&blocks));
    for (int i = 0; i < 40; i++)
        out[i] = v(rank, i);
    int s1 = 0, s2 = 0;
    MPI_CHECK(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1));
    MPI_CHECK(MPI_Pack_size(2, blocks, MPI_COMM_WORLD, &s2));
    CHECK(s1 >= 4 && s2 >= 64, "Pack_size %d / %d too small", s1, s2);
    psize = s1 + s2;
    char *pbuf = malloc(psize), *rbuf = malloc(psize);
    CHECK(pbuf && rbuf, "out of memory");
    MPI_CHECK(MPI_Pack(&hdr, 1, MPI_INT, pbuf, psize, &pos, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Pack(out, 2, blocks, pbuf, psize, &pos, MPI_COMM_WORLD));
    CHECK(pos > 0 && pos <= psize, "Pack position %d (buffer %d)", pos, psize);
    xfer(pbuf, pos, MPI_PACKED, rbuf, psize, MPI_PACKED, &st);
    int got = -1;
    MPI_CHECK(MPI_Get_count(&st, MPI_PACKED, &got));
    CHECK(got == pos, "MPI_PACKED Get_count %d, expected %d", got, pos);
    int upos = 0;
    memset(in, 0, sizeof in);
    MPI_CHECK(MPI_Unpack(rbuf, got, &upos, &hdr_in, 1, MPI_INT, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Unpack(rbuf, got, &upos, in, 16, MPI_INT, MPI_COMM_WORLD)); /* unpacked contiguous */
    CHECK(upos == got, "Unpack position %d, expected %d", upos, got);
    CHECK(hdr_in == 1000 + partner, "unpacked header %d", hdr_in);
    for (int k = 0; k < 16; k++) {
        int inst = k / 8, blk = (k % 8) / 2, j = k % 2;
        CHECK(in[k] == v(partner, inst * 17 + blk * 5 + j), "unpacked element %d", k);
    }
    /* typed send, received as ints then packed/unpacked locally round trip */
    pos = 0;
    MPI_CHECK(MPI_Pack(out, 1, blocks, pbuf, psize, &pos, MPI_COMM_WORLD));
    upos = 0;
    for (int i = 0; i < 40; i++)
        in[i] = -1;
    MPI_CHECK(MPI_Unpack(pbuf, pos, &upos, in, 1, blocks, MPI_COMM_WORLD));
    for (int i = 0; i < 17; i++)
        CHECK(in[i] == ((i % 5) < 2 ? out[i] : -1), "local pack/unpack round trip: slot %d", i);
    free(pbuf);
    free(rbuf);
    MPI_CHECK(MPI_Type_free(&blocks));
}

/* 512 KiB of strided data each way, both directions of the layout change */
static void large_strided(void)
{
    enum { CNT = 65536 };
    MPI_Datatype vt;
    MPI_Status st;
    int *sparse = malloc(sizeof(int) * 3 * CNT), *dense = malloc(sizeof(int) * 2 * CNT);
    CHECK(sparse && dense, "out of memory");
    MPI_CHECK(MPI_Type_vector(CNT, 2, 3, MPI_INT, &vt));
    MPI_CHECK(MPI_Type_commit(&vt));
    for (int i = 0; i < 3 * CNT; i++)
        sparse[i] = v(rank, i);
    memset(dense, 0, sizeof(int) * 2 * CNT);
    xfer(sparse, 1, vt, dense, 2 * CNT, MPI_INT, &st);
    check_counts(&st, MPI_INT, 2 * CNT, 2 * CNT, "large vector -> ints");
    for (int k = 0; k < 2 * CNT; k++)
        if (dense[k] != v(partner, (k / 2) * 3 + k % 2))
            FAIL("large vector -> ints: element %d", k);
    for (int k = 0; k < 2 * CNT; k++)
        dense[k] = -v(rank, k);
    for (int i = 0; i < 3 * CNT; i++)
        sparse[i] = 7;
    xfer(dense, 2 * CNT, MPI_INT, sparse, 1, vt, &st);
    check_counts(&st, vt, 1, 2 * CNT, "ints -> large vector");
    for (int i = 0; i < 3 * CNT; i++) {
        int expect = (i % 3 == 2) ? 7 : -v(partner, (i / 3) * 2 + i % 3);
        if (sparse[i] != expect)
            FAIL("ints -> large vector: slot %d is %d, expected %d", i, sparse[i], expect);
    }
    MPI_CHECK(MPI_Type_free(&vt));
    free(sparse);
    free(dense);
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    partner = (rank ^ 1) < size ? (rank ^ 1) : rank;

    basic_types();
    contiguous_types();
    vector_types();
    hvector_types();
    indexed_types();
    struct_types();
    pack_unpack();
    large_strided();

    MPI_CHECK(MPI_Finalize());
    return 0;
}
