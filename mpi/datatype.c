/*
 * mpi/datatype.c: MPI datatypes.
 *
 * Every datatype, predefined or derived, is kept flattened: the blocks of
 * bytes of one element in type-map order (adjacent blocks merged), its MPI
 * lower bound and extent, its true bounds, and the sequence of basic element
 * sizes (run-length encoded) that MPI_Get_elements needs.
 *
 * Bounds follow MPI 3.1 section 4.1.6/4.1.7: each type remembers whether its
 * lb and ub come from data (BK_DATA) or from explicit markers (BK_MARK, set
 * by MPI_Type_create_resized or the deprecated MPI_LB/MPI_UB). A constructor
 * takes the lb (ub) of its result from the strongest kind of bound among its
 * components; MPI_Type_create_struct also pads a data-derived extent to the
 * largest alignment among its components (the "epsilon" of the standard).
 *
 * Predefined handles are 1..MBMPI_DATATYPE_PREDEFINED_MAX; derived ones start at
 * MBMPI_DATATYPE_PREDEFINED_MAX + 1 and index a growable table of pointers
 * (so mpii_datatype_t pointers stay valid while the table grows).
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */

#include "mpi_impl.h"
#include "mpi3.h"

#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum { BK_NONE = 0, BK_DATA = 1, BK_MARK = 2 };

typedef struct dt_run {
    size_t esize; /* bytes of one basic element */
    size_t n;     /* how many in a row */
} dt_run_t;

struct dt_obj;

/* A datatype argument of the constructor call: a predefined handle, or a
 * counted reference to a derived type object (which outlives its handle). */
typedef struct dt_ref {
    MPI_Datatype named;
    struct dt_obj *obj;
} dt_ref_t;

typedef struct dt_obj {
    mpii_datatype_t pub; /* what mpii_datatype_get returns */
    int lb_kind, ub_kind;
    size_t align;  /* largest alignment of the basic types in the type map */
    size_t nruns;  /* basic element sizes of one element, in type-map order */
    dt_run_t *runs;
    size_t nelems; /* number of basic elements in one element */
    size_t blocks_cap, runs_cap;
    /* lifetime (derived types): refs counts the handle binding plus every
     * constructor record that names this object; hrefs counts the user's
     * references through `handle` (MPI_Type_get_contents hands out more). */
    int refs;
    int hrefs;
    int holds; /* pending nonblocking collectives using the handle: it stays bound */
    int f90;   /* made by MPI_Type_create_f90_*: predefined, never freed */
    MPI_Datatype handle; /* MPI_DATATYPE_NULL once every user reference is freed */
    char name[MPI_MAX_OBJECT_NAME];
    /* the constructor call (MPI_Type_get_envelope / MPI_Type_get_contents) */
    int combiner;
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    dt_ref_t *dts;
    int nl; /* large counts (MPI_Type_contiguous_c beyond int) */
    MPI_Count *lcounts;
} dt_obj_t;

#define NPREDEF (MBMPI_DATATYPE_PREDEFINED_MAX + 1)

static dt_obj_t predef[NPREDEF];
static mpii_dtblock_t predef_blocks[NPREDEF][2];
static dt_run_t predef_runs[NPREDEF][2];
static int predef_ready;

static dt_obj_t **derived; /* derived[i] has handle MBMPI_DATATYPE_PREDEFINED_MAX + 1 + i */
static size_t derived_cap;

/* ------------------------------------------------------------------ */
/* predefined types                                                    */

static void set_basic(MPI_Datatype h, size_t size, size_t align)
{
    dt_obj_t *t = &predef[h];
    memset(t, 0, sizeof *t);
    t->pub.in_use = 1;
    t->pub.predefined = 1;
    t->pub.committed = 1;
    t->pub.size = size;
    t->pub.extent = (MPI_Aint)size;
    t->pub.true_extent = (MPI_Aint)size;
    t->pub.contig = 1;
    t->pub.basic = h;
    t->pub.basic_count = 1;
    t->pub.nblocks = 1;
    t->pub.blocks = predef_blocks[h];
    predef_blocks[h][0].disp = 0;
    predef_blocks[h][0].len = size;
    t->pub.blen = size;
    t->lb_kind = t->ub_kind = BK_DATA;
    t->align = align;
    t->nruns = 1;
    t->runs = predef_runs[h];
    predef_runs[h][0].esize = size;
    predef_runs[h][0].n = 1;
    t->nelems = 1;
}

/* struct { V v; I i; }: value at 0, index at ioff, sizeof the struct ssize. */
static void set_pair(MPI_Datatype h, size_t vsize, size_t ioff, size_t isize, size_t ssize,
                     size_t align)
{
    dt_obj_t *t = &predef[h];
    set_basic(h, vsize + isize, align);
    t->pub.extent = (MPI_Aint)ssize;
    t->pub.true_extent = (MPI_Aint)(ioff + isize);
    if (ioff == vsize) {
        predef_blocks[h][0].len = vsize + isize;
    } else {
        predef_blocks[h][0].len = vsize;
        predef_blocks[h][1].disp = (MPI_Aint)ioff;
        predef_blocks[h][1].len = isize;
        t->pub.nblocks = 2;
    }
    t->pub.contig = t->pub.nblocks == 1 && t->pub.extent == (MPI_Aint)t->pub.size;
    t->pub.blen = t->pub.nblocks == 1 ? vsize + isize : vsize == isize ? vsize : 0;
    predef_runs[h][0].esize = vsize;
    if (vsize == isize) {
        predef_runs[h][0].n = 2;
    } else {
        predef_runs[h][1].esize = isize;
        predef_runs[h][1].n = 1;
        t->nruns = 2;
    }
    t->nelems = 2;
}

/* MPI_LB / MPI_UB: no data, one marker. */
static void set_marker(MPI_Datatype h, int is_lb)
{
    dt_obj_t *t = &predef[h];
    memset(t, 0, sizeof *t);
    t->pub.in_use = 1;
    t->pub.predefined = 1;
    t->pub.committed = 1;
    t->pub.basic = MPI_DATATYPE_NULL;
    t->lb_kind = is_lb ? BK_MARK : BK_NONE;
    t->ub_kind = is_lb ? BK_NONE : BK_MARK;
    t->align = 1;
}

#define BASIC(h, T) set_basic(h, sizeof(T), alignof(T))
#define PAIR(h, V, I)                                                                        \
    do {                                                                                     \
        struct pair { V v; I i; };                                                           \
        set_pair(h, sizeof(V), offsetof(struct pair, i), sizeof(I), sizeof(struct pair),     \
                 alignof(struct pair));                                                      \
    } while (0)

/* The standard names of the predefined types (MPI 3.1 section 6.8); where
 * two names share a handle the first one of the standard's tables is used. */
#define NAME(h) [h] = #h
static const char *const predef_names[NPREDEF] = {
    NAME(MPI_CHAR),
    NAME(MPI_SIGNED_CHAR),
    NAME(MPI_UNSIGNED_CHAR),
    NAME(MPI_BYTE),
    NAME(MPI_WCHAR),
    NAME(MPI_SHORT),
    NAME(MPI_UNSIGNED_SHORT),
    NAME(MPI_INT),
    NAME(MPI_UNSIGNED),
    NAME(MPI_LONG),
    NAME(MPI_UNSIGNED_LONG),
    [MPI_LONG_LONG_INT] = "MPI_LONG_LONG_INT",
    NAME(MPI_UNSIGNED_LONG_LONG),
    NAME(MPI_FLOAT),
    NAME(MPI_DOUBLE),
    NAME(MPI_LONG_DOUBLE),
    NAME(MPI_C_BOOL),
    NAME(MPI_INT8_T),
    NAME(MPI_INT16_T),
    NAME(MPI_INT32_T),
    NAME(MPI_INT64_T),
    NAME(MPI_UINT8_T),
    NAME(MPI_UINT16_T),
    NAME(MPI_UINT32_T),
    NAME(MPI_UINT64_T),
    [MPI_C_FLOAT_COMPLEX] = "MPI_C_COMPLEX",
    NAME(MPI_C_DOUBLE_COMPLEX),
    NAME(MPI_C_LONG_DOUBLE_COMPLEX),
    NAME(MPI_AINT),
    NAME(MPI_OFFSET),
    NAME(MPI_COUNT),
    NAME(MPI_PACKED),
    NAME(MPI_FLOAT_INT),
    NAME(MPI_DOUBLE_INT),
    NAME(MPI_LONG_INT),
    NAME(MPI_2INT),
    NAME(MPI_SHORT_INT),
    NAME(MPI_LONG_DOUBLE_INT),
    NAME(MPI_INTEGER),
    NAME(MPI_REAL),
    NAME(MPI_DOUBLE_PRECISION),
    NAME(MPI_COMPLEX),
    NAME(MPI_DOUBLE_COMPLEX),
    NAME(MPI_LOGICAL),
    NAME(MPI_CHARACTER),
    NAME(MPI_2INTEGER),
    NAME(MPI_2REAL),
    NAME(MPI_2DOUBLE_PRECISION),
    NAME(MPI_INTEGER8),
    NAME(MPI_REAL8),
    NAME(MPI_LB),
    NAME(MPI_UB),
    NAME(MPI_INTEGER1),
    NAME(MPI_INTEGER2),
    NAME(MPI_INTEGER4),
    NAME(MPI_REAL4),
    NAME(MPI_COMPLEX8),
    NAME(MPI_COMPLEX16),
    NAME(MPI_CXX_BOOL),
    NAME(MPI_CXX_FLOAT_COMPLEX),
    NAME(MPI_CXX_DOUBLE_COMPLEX),
    NAME(MPI_CXX_LONG_DOUBLE_COMPLEX),
    NAME(MPI_INTEGER16),
};
#undef NAME

static void predef_setup(void)
{
    if (predef_ready)
        return;
    BASIC(MPI_CHAR, char);
    BASIC(MPI_SIGNED_CHAR, signed char);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char);
    BASIC(MPI_BYTE, unsigned char);
    BASIC(MPI_WCHAR, wchar_t);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_INT, int);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_LONG, long);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_C_BOOL, _Bool);
    BASIC(MPI_INT8_T, int8_t);
    BASIC(MPI_INT16_T, int16_t);
    BASIC(MPI_INT32_T, int32_t);
    BASIC(MPI_INT64_T, int64_t);
    BASIC(MPI_UINT8_T, uint8_t);
    BASIC(MPI_UINT16_T, uint16_t);
    BASIC(MPI_UINT32_T, uint32_t);
    BASIC(MPI_UINT64_T, uint64_t);
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_OFFSET, MPI_Offset);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_PACKED, unsigned char);
    PAIR(MPI_FLOAT_INT, float, int);
    PAIR(MPI_DOUBLE_INT, double, int);
    PAIR(MPI_LONG_INT, long, int);
    PAIR(MPI_2INT, int, int);
    PAIR(MPI_SHORT_INT, short, int);
    PAIR(MPI_LONG_DOUBLE_INT, long double, int);
    BASIC(MPI_INTEGER, int32_t);
    BASIC(MPI_REAL, float);
    BASIC(MPI_DOUBLE_PRECISION, double);
    BASIC(MPI_COMPLEX, float _Complex);
    BASIC(MPI_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_LOGICAL, int32_t);
    BASIC(MPI_CHARACTER, char);
    PAIR(MPI_2INTEGER, int32_t, int32_t);
    PAIR(MPI_2REAL, float, float);
    PAIR(MPI_2DOUBLE_PRECISION, double, double);
    BASIC(MPI_INTEGER8, int64_t);
    BASIC(MPI_REAL8, double);
    set_marker(MPI_LB, 1);
    set_marker(MPI_UB, 0);
    BASIC(MPI_INTEGER1, int8_t);
    BASIC(MPI_INTEGER2, int16_t);
    BASIC(MPI_INTEGER4, int32_t);
    BASIC(MPI_REAL4, float);
    BASIC(MPI_COMPLEX8, float _Complex);
    BASIC(MPI_COMPLEX16, double _Complex);
    BASIC(MPI_CXX_BOOL, _Bool);
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_INTEGER16, __int128);
    for (int h = 1; h < NPREDEF; h++) {
        predef[h].combiner = MPI_COMBINER_NAMED;
        if (predef_names[h])
            strcpy(predef[h].name, predef_names[h]);
    }
    predef_ready = 1;
}

/* ------------------------------------------------------------------ */
/* table                                                               */

static dt_obj_t *lookup(MPI_Datatype h)
{
    if (h >= 1 && h < NPREDEF) {
        predef_setup();
        return &predef[h];
    }
    if (h > MBMPI_DATATYPE_PREDEFINED_MAX) {
        size_t i = (size_t)h - MBMPI_DATATYPE_PREDEFINED_MAX - 1;
        if (i < derived_cap && derived[i] && derived[i]->pub.in_use)
            return derived[i];
    }
    return NULL;
}

static void contents_clear(dt_obj_t *t);

/* Drop one reference to a derived type object; the last one frees it. */
static void obj_release(dt_obj_t *t)
{
    if (!t || --t->refs > 0)
        return;
    contents_clear(t);
    free(t->pub.blocks);
    free(t->runs);
    free(t);
}

/* Forget the constructor record, releasing the types it names. */
static void contents_clear(dt_obj_t *t)
{
    for (int i = 0; i < t->nd; i++)
        obj_release(t->dts[i].obj);
    free(t->ints);
    free(t->aints);
    free(t->dts);
    free(t->lcounts);
    t->ints = NULL;
    t->aints = NULL;
    t->dts = NULL;
    t->lcounts = NULL;
    t->ni = t->na = t->nd = t->nl = 0;
    t->combiner = 0;
}

/* Store t in the table under a new handle, with one user reference (the
 * table's binding owns one of t's refs: the caller's). MPI_DATATYPE_NULL when
 * out of memory (t is kept). */
static MPI_Datatype obj_register(dt_obj_t *t)
{
    size_t i;
    for (i = 0; i < derived_cap; i++)
        if (!derived[i])
            break;
    if (i == derived_cap) {
        size_t ncap = derived_cap ? 2 * derived_cap : 16;
        if (ncap > (size_t)INT_MAX - MBMPI_DATATYPE_PREDEFINED_MAX - 1)
            return MPI_DATATYPE_NULL;
        dt_obj_t **n = realloc(derived, ncap * sizeof *n);
        if (!n)
            return MPI_DATATYPE_NULL;
        memset(n + derived_cap, 0, (ncap - derived_cap) * sizeof *n);
        derived = n;
        derived_cap = ncap;
    }
    derived[i] = t;
    t->handle = (MPI_Datatype)(MBMPI_DATATYPE_PREDEFINED_MAX + 1 + i);
    t->hrefs = 1;
    return t->handle;
}

/* Remove t's handle from the table and drop the binding's reference. */
static void obj_unbind(dt_obj_t *t)
{
    derived[(size_t)t->handle - MBMPI_DATATYPE_PREDEFINED_MAX - 1] = NULL;
    t->handle = MPI_DATATYPE_NULL;
    t->hrefs = 0;
    obj_release(t);
}

int mpii_datatype_init(void)
{
    predef_setup();
    return MPI_SUCCESS;
}

static void f90_reset(void);

void mpii_datatype_finalize(void)
{
    f90_reset();
    for (size_t i = 0; i < derived_cap; i++)
        if (derived[i])
            obj_unbind(derived[i]);
    free(derived);
    derived = NULL;
    derived_cap = 0;
    predef_ready = 0; /* names set on predefined types do not outlive the library */
}

mpii_datatype_t *mpii_datatype_get(MPI_Datatype dt)
{
    dt_obj_t *t = lookup(dt);
    return t ? &t->pub : NULL;
}

int mpii_datatype_check(MPI_Datatype dt)
{
    dt_obj_t *t = lookup(dt);
    return t && t->pub.committed ? MPI_SUCCESS : MPI_ERR_TYPE;
}

mpii_datatype_t *mpii_datatype_committed(MPI_Datatype dt)
{
    dt_obj_t *t = lookup(dt);
    return t && t->pub.committed ? &t->pub : NULL;
}

/* ------------------------------------------------------------------ */
/* pack / unpack                                                       */

/* buf + off without pointer arithmetic on a possibly null (MPI_BOTTOM) base. */
static inline char *at(const void *buf, MPI_Aint off)
{
    return (char *)((uintptr_t)buf + (uintptr_t)off);
}

/* Blocks of one small length (vectors and indexed blocks of a basic type):
 * a copy of constant size, which the compiler turns into a load and a store
 * instead of a call to memcpy per block. MPI_Pack of 1000 doubles a stride
 * apart took 2.4-4.1 us with a memcpy call per block. */
#define DT_FIXED_LOOP(L, COPY)                                                                               \
    for (size_t i = 0; i < count; i++) {                                                                     \
        MPI_Aint base = (MPI_Aint)i * dt->extent;                                                            \
        for (size_t b = 0; b < dt->nblocks; b++) {                                                           \
            COPY(L);                                                                                         \
        }                                                                                                    \
    }
#define DT_FIXED(COPY)                                                                                       \
    switch (dt->blen) {                                                                                      \
    case 1:                                                                                                  \
        DT_FIXED_LOOP(1, COPY) return;                                                                       \
    case 2:                                                                                                  \
        DT_FIXED_LOOP(2, COPY) return;                                                                       \
    case 4:                                                                                                  \
        DT_FIXED_LOOP(4, COPY) return;                                                                       \
    case 8:                                                                                                  \
        DT_FIXED_LOOP(8, COPY) return;                                                                       \
    case 16:                                                                                                 \
        DT_FIXED_LOOP(16, COPY) return;                                                                      \
    default:                                                                                                 \
        break;                                                                                               \
    }
#define PACK_COPY(L)                                                                                         \
    do {                                                                                                     \
        memcpy(out, at(src, base + dt->blocks[b].disp), L);                                                  \
        out += L;                                                                                            \
    } while (0)
#define UNPACK_COPY(L)                                                                                       \
    do {                                                                                                     \
        memcpy(at(dst, base + dt->blocks[b].disp), in, L);                                                   \
        in += L;                                                                                             \
    } while (0)

void mpii_datatype_pack(const void *src, size_t count, const mpii_datatype_t *dt, void *dst)
{
    char *out = dst;
    if (count == 0 || dt->size == 0)
        return;
    if (dt->contig) {
        memcpy(out, at(src, dt->true_lb), count * dt->size);
        return;
    }
    DT_FIXED(PACK_COPY)
    for (size_t i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (size_t b = 0; b < dt->nblocks; b++) {
            memcpy(out, at(src, base + dt->blocks[b].disp), dt->blocks[b].len);
            out += dt->blocks[b].len;
        }
    }
}

void mpii_datatype_unpack(const void *src, size_t nbytes, void *dst, size_t count,
                          const mpii_datatype_t *dt)
{
    const char *in = src;
    size_t left;
    if (count == 0 || dt->size == 0)
        return;
    left = count * dt->size;
    if (nbytes < left)
        left = nbytes;
    if (dt->contig) {
        memcpy(at(dst, dt->true_lb), in, left);
        return;
    }
    if (left == count * dt->size)
        DT_FIXED(UNPACK_COPY)
    for (size_t i = 0; left > 0; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (size_t b = 0; b < dt->nblocks && left > 0; b++) {
            size_t n = dt->blocks[b].len < left ? dt->blocks[b].len : left;
            memcpy(at(dst, base + dt->blocks[b].disp), in, n);
            in += n;
            left -= n;
        }
    }
}

/* ------------------------------------------------------------------ */
/* building derived types                                              */

typedef struct builder {
    dt_obj_t *t;
    int lbk, ubk; /* strongest kind of bound seen so far, and its value */
    MPI_Aint lb, ub;
    int tany; /* any data seen: true bounds valid */
    MPI_Aint tlb, tub;
    int bset, bmixed; /* basic type seen / more than one seen */
    int nomem;
} builder_t;

static int push_block(dt_obj_t *t, MPI_Aint disp, size_t len)
{
    mpii_datatype_t *p = &t->pub;
    if (len == 0)
        return 0;
    if (p->nblocks > 0) {
        mpii_dtblock_t *last = &p->blocks[p->nblocks - 1];
        if (last->disp + (MPI_Aint)last->len == disp) {
            last->len += len;
            return 0;
        }
    }
    if (p->nblocks == t->blocks_cap) {
        size_t ncap = t->blocks_cap ? 2 * t->blocks_cap : 4;
        mpii_dtblock_t *n = realloc(p->blocks, ncap * sizeof *n);
        if (!n)
            return -1;
        p->blocks = n;
        t->blocks_cap = ncap;
    }
    p->blocks[p->nblocks].disp = disp;
    p->blocks[p->nblocks].len = len;
    p->nblocks++;
    return 0;
}

static int push_run(dt_obj_t *t, size_t esize, size_t n)
{
    if (n == 0)
        return 0;
    if (t->nruns > 0 && t->runs[t->nruns - 1].esize == esize) {
        t->runs[t->nruns - 1].n += n;
        return 0;
    }
    if (t->nruns == t->runs_cap) {
        size_t ncap = t->runs_cap ? 2 * t->runs_cap : 2;
        dt_run_t *r = realloc(t->runs, ncap * sizeof *r);
        if (!r)
            return -1;
        t->runs = r;
        t->runs_cap = ncap;
    }
    t->runs[t->nruns].esize = esize;
    t->runs[t->nruns].n = n;
    t->nruns++;
    return 0;
}

static void merge_bound(int *kind, MPI_Aint *val, int k, MPI_Aint v, int want_min)
{
    if (k > *kind || (k == *kind && (want_min ? v < *val : v > *val))) {
        *kind = k;
        *val = v;
    }
}

/* Append `bl` consecutive copies of `old` starting at byte displacement disp. */
static void add_component(builder_t *b, const dt_obj_t *old, MPI_Aint disp, size_t bl)
{
    dt_obj_t *t = b->t;
    const mpii_datatype_t *o = &old->pub;
    MPI_Aint span, lo, hi;
    if (bl == 0 || b->nomem)
        return;
    span = (MPI_Aint)(bl - 1) * o->extent;
    lo = disp + (span < 0 ? span : 0);
    hi = disp + (span > 0 ? span : 0);
    if (old->lb_kind != BK_NONE)
        merge_bound(&b->lbk, &b->lb, old->lb_kind, lo + o->lb, 1);
    if (old->ub_kind != BK_NONE)
        merge_bound(&b->ubk, &b->ub, old->ub_kind, hi + o->lb + o->extent, 0);
    if (o->size == 0)
        return;

    t->pub.size += bl * o->size;
    t->nelems += bl * old->nelems;
    if (!b->tany || lo + o->true_lb < b->tlb)
        b->tlb = lo + o->true_lb;
    if (!b->tany || hi + o->true_lb + o->true_extent > b->tub)
        b->tub = hi + o->true_lb + o->true_extent;
    b->tany = 1;
    if (old->align > t->align)
        t->align = old->align;
    if (!b->bset) {
        b->bset = 1;
        t->pub.basic = o->basic;
    } else if (t->pub.basic != o->basic) {
        b->bmixed = 1;
    }
    t->pub.basic_count += bl * o->basic_count;

    if (o->contig) {
        /* extent == size: the copies are one run of bytes */
        if (push_block(t, disp + o->true_lb, bl * o->size))
            b->nomem = 1;
    } else {
        for (size_t k = 0; k < bl && !b->nomem; k++) {
            MPI_Aint base = disp + (MPI_Aint)k * o->extent;
            for (size_t j = 0; j < o->nblocks; j++)
                if (push_block(t, base + o->blocks[j].disp, o->blocks[j].len)) {
                    b->nomem = 1;
                    break;
                }
        }
    }
    if (old->nruns == 1) {
        if (push_run(t, old->runs[0].esize, old->runs[0].n * bl))
            b->nomem = 1;
    } else {
        for (size_t k = 0; k < bl && !b->nomem; k++)
            for (size_t j = 0; j < old->nruns; j++)
                if (push_run(t, old->runs[j].esize, old->runs[j].n)) {
                    b->nomem = 1;
                    break;
                }
    }
}

static void set_contig(dt_obj_t *t)
{
    mpii_datatype_t *p = &t->pub;
    p->contig = p->nblocks == 1 && p->blocks[0].len == p->size && p->extent == (MPI_Aint)p->size;
    p->blen = p->nblocks ? p->blocks[0].len : 0;
    for (size_t j = 1; j < p->nblocks && p->blen; j++)
        if (p->blocks[j].len != p->blen)
            p->blen = 0;
}

/* Finish the type: bounds, padding (struct only), contig, basic. */
static void builder_finish(builder_t *b, int pad)
{
    dt_obj_t *t = b->t;
    MPI_Aint lb = b->lbk != BK_NONE ? b->lb : 0;
    MPI_Aint ub = b->ubk != BK_NONE ? b->ub : lb;
    if (pad && b->ubk == BK_DATA && t->align > 1) {
        MPI_Aint a = (MPI_Aint)t->align, r = (ub - lb) % a;
        if (r < 0)
            r += a;
        if (r)
            ub += a - r;
    }
    t->lb_kind = b->lbk;
    t->ub_kind = b->ubk;
    t->pub.lb = lb;
    t->pub.extent = ub - lb;
    if (b->tany) {
        t->pub.true_lb = b->tlb;
        t->pub.true_extent = b->tub - b->tlb;
    }
    if (b->bmixed || t->pub.basic == MPI_DATATYPE_NULL) {
        t->pub.basic = MPI_DATATYPE_NULL;
        t->pub.basic_count = 0;
    }
    set_contig(t);
}

static dt_obj_t *obj_new(void)
{
    dt_obj_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->refs = 1;
    t->pub.in_use = 1;
    t->pub.basic = MPI_DATATYPE_NULL;
    t->align = 1;
    return t;
}

/* One description for every constructor: entry i is bl_i copies of type_i at
 * displacement disp_i (bytes, or elements of type_i's extent when `scale`). */
typedef struct ctor {
    int n;
    const int *bls; /* or NULL: every block has `bl` */
    int bl;
    const int *idisp;      /* int displacements, or */
    const MPI_Aint *adisp; /* byte displacements, or (both NULL) i * stride */
    MPI_Aint stride;
    int scale;
    const MPI_Datatype *types; /* or NULL: every block has `type` */
    MPI_Datatype type;
} ctor_t;

/* Build the type described by c (arguments validated); NULL when out of memory. */
static dt_obj_t *ctor_make(const ctor_t *c, int is_struct)
{
    builder_t b;
    memset(&b, 0, sizeof b);
    b.t = obj_new();
    if (!b.t)
        return NULL;
    for (int i = 0; i < c->n && !b.nomem; i++) {
        const dt_obj_t *old = lookup(c->types ? c->types[i] : c->type);
        size_t bl = (size_t)(c->bls ? c->bls[i] : c->bl);
        MPI_Aint disp = c->adisp ? c->adisp[i] : c->idisp ? (MPI_Aint)c->idisp[i] : (MPI_Aint)i * c->stride;
        if (c->scale)
            disp *= old->pub.extent;
        add_component(&b, old, disp, bl);
    }
    if (b.nomem) {
        obj_release(b.t);
        return NULL;
    }
    builder_finish(&b, is_struct);
    if (!is_struct && !b.bset) {
        /* no data (count or blocklengths 0): keep the old basic type, 0 of them */
        b.t->pub.basic = lookup(c->type)->pub.basic;
        b.t->pub.basic_count = 0;
    }
    return b.t;
}

/* Copy of t's type map (uncommitted, derived, unnamed, no constructor record). */
static dt_obj_t *obj_clone(const dt_obj_t *t)
{
    dt_obj_t *c = obj_new();
    if (!c)
        return NULL;
    *c = *t;
    c->pub.predefined = 0;
    c->pub.committed = 0;
    c->pub.blocks = NULL;
    c->runs = NULL;
    c->blocks_cap = t->pub.nblocks;
    c->runs_cap = t->nruns;
    c->refs = 1;
    c->hrefs = 0;
    c->handle = MPI_DATATYPE_NULL;
    c->name[0] = '\0';
    c->combiner = 0;
    c->ni = c->na = c->nd = 0;
    c->ints = NULL;
    c->aints = NULL;
    c->dts = NULL;
    if (t->pub.nblocks) {
        c->pub.blocks = malloc(t->pub.nblocks * sizeof *c->pub.blocks);
        if (!c->pub.blocks)
            goto fail;
        memcpy(c->pub.blocks, t->pub.blocks, t->pub.nblocks * sizeof *c->pub.blocks);
    }
    if (t->nruns) {
        c->runs = malloc(t->nruns * sizeof *c->runs);
        if (!c->runs)
            goto fail;
        memcpy(c->runs, t->runs, t->nruns * sizeof *c->runs);
    }
    return c;
fail:
    obj_release(c);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* constructor records (MPI 3.1 section 4.1.13)                        */

/* Room for the record of a constructor call; -1 when out of memory. */
static int contents_init(dt_obj_t *t, int combiner, int ni, int na, int nd)
{
    t->ints = ni ? malloc((size_t)ni * sizeof *t->ints) : NULL;
    t->aints = na ? malloc((size_t)na * sizeof *t->aints) : NULL;
    t->dts = nd ? calloc((size_t)nd, sizeof *t->dts) : NULL;
    if ((ni && !t->ints) || (na && !t->aints) || (nd && !t->dts)) {
        contents_clear(t);
        return -1;
    }
    t->combiner = combiner;
    t->ni = ni;
    t->na = na;
    t->nd = nd;
    return 0;
}

/* Record datatype argument i (a valid handle): derived ones are referenced. */
static void contents_type(dt_obj_t *t, int i, MPI_Datatype h)
{
    dt_obj_t *o = lookup(h);
    if (o->pub.predefined) {
        t->dts[i].named = h;
    } else {
        t->dts[i].obj = o;
        o->refs++;
    }
}

/* Record the arguments of the constructor call that c describes. */
static int contents_record(dt_obj_t *t, int combiner, const ctor_t *c)
{
    int n = c->n, na = 0, nd = 1;
    long long ni = 0;
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS: ni = 1; break;
    case MPI_COMBINER_VECTOR: ni = 3; break;
    case MPI_COMBINER_HVECTOR: ni = 2; na = 1; break;
    case MPI_COMBINER_INDEXED: ni = 2LL * n + 1; break;
    case MPI_COMBINER_HINDEXED: ni = (long long)n + 1; na = n; break;
    case MPI_COMBINER_INDEXED_BLOCK: ni = (long long)n + 2; break;
    case MPI_COMBINER_HINDEXED_BLOCK: ni = 2; na = n; break;
    case MPI_COMBINER_STRUCT: ni = (long long)n + 1; na = n; nd = n; break;
    default: return -1;
    }
    /* num_integers is an int: a record that long cannot be described */
    if (ni > INT_MAX || contents_init(t, combiner, (int)ni, na, nd))
        return -1;
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        t->ints[0] = c->bl;
        break;
    case MPI_COMBINER_VECTOR:
        t->ints[0] = n;
        t->ints[1] = c->bl;
        t->ints[2] = (int)c->stride;
        break;
    case MPI_COMBINER_HVECTOR:
        t->ints[0] = n;
        t->ints[1] = c->bl;
        t->aints[0] = c->stride;
        break;
    case MPI_COMBINER_INDEXED:
        t->ints[0] = n;
        for (int i = 0; i < n; i++) {
            t->ints[1 + i] = c->bls[i];
            t->ints[1 + n + i] = c->idisp[i];
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        t->ints[0] = n;
        t->ints[1] = c->bl;
        for (int i = 0; i < n; i++)
            t->ints[2 + i] = c->idisp[i];
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        t->ints[0] = n;
        t->ints[1] = c->bl;
        for (int i = 0; i < n; i++)
            t->aints[i] = c->adisp[i];
        break;
    default: /* HINDEXED, STRUCT */
        t->ints[0] = n;
        for (int i = 0; i < n; i++) {
            t->ints[1 + i] = c->bls[i];
            t->aints[i] = c->adisp[i];
        }
        break;
    }
    for (int i = 0; i < nd; i++)
        contents_type(t, i, c->types ? c->types[i] : c->type);
    return 0;
}

/* ------------------------------------------------------------------ */
/* constructors                                                        */

#define CHECK_OLDTYPE(fn, dt)                                                                  \
    do {                                                                                       \
        if (!lookup(dt))                                                                       \
            return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid datatype %d", (int)(dt));       \
    } while (0)
#define CHECK_PTR(fn, p, what)                                                                 \
    do {                                                                                       \
        if (!(p))                                                                              \
            return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", what);                        \
    } while (0)
#define CHECK_COUNT(fn, n)                                                                     \
    do {                                                                                       \
        if ((n) < 0)                                                                           \
            return mpii_err(NULL, MPI_ERR_COUNT, fn, "invalid count %d", (int)(n));          \
    } while (0)

/* Register t (NULL: out of memory) and return its handle in *newtype. */
static int publish(const char *fn, dt_obj_t *t, MPI_Datatype *newtype)
{
    MPI_Datatype h = t ? obj_register(t) : MPI_DATATYPE_NULL;
    if (h == MPI_DATATYPE_NULL) {
        obj_release(t);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *newtype = h;
    return MPI_SUCCESS;
}

static int build_or_err(const char *fn, const ctor_t *c, int combiner, MPI_Datatype *newtype)
{
    dt_obj_t *t = ctor_make(c, combiner == MPI_COMBINER_STRUCT);
    if (t && contents_record(t, combiner, c)) {
        obj_release(t);
        t = NULL;
    }
    return publish(fn, t, newtype);
}

static int check_blocklens(const char *fn, int count, const int bls[])
{
    for (int i = 0; i < count; i++)
        if (bls[i] < 0)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid blocklength %d at index %d", bls[i], i);
    return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_contiguous";
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = 1, .bl = count, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_CONTIGUOUS, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_vector";
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (blocklength < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid blocklength %d", blocklength);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bl = blocklength, .stride = stride, .scale = 1, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_VECTOR, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hvector";
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (blocklength < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid blocklength %d", blocklength);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bl = blocklength, .stride = stride, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_HVECTOR, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_indexed";
    int rc;
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (count > 0) {
        CHECK_PTR(fn, array_of_blocklengths, "array_of_blocklengths");
        CHECK_PTR(fn, array_of_displacements, "array_of_displacements");
        if ((rc = check_blocklens(fn, count, array_of_blocklengths)) != MPI_SUCCESS)
            return rc;
    }
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bls = array_of_blocklengths, .idisp = array_of_displacements, .scale = 1,
                .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_INDEXED, newtype);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed";
    int rc;
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (count > 0) {
        CHECK_PTR(fn, array_of_blocklengths, "array_of_blocklengths");
        CHECK_PTR(fn, array_of_displacements, "array_of_displacements");
        if ((rc = check_blocklens(fn, count, array_of_blocklengths)) != MPI_SUCCESS)
            return rc;
    }
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bls = array_of_blocklengths, .adisp = array_of_displacements, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_HINDEXED, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_indexed_block";
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (blocklength < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid blocklength %d", blocklength);
    if (count > 0)
        CHECK_PTR(fn, array_of_displacements, "array_of_displacements");
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bl = blocklength, .idisp = array_of_displacements, .scale = 1, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_INDEXED_BLOCK, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed_block";
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (blocklength < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid blocklength %d", blocklength);
    if (count > 0)
        CHECK_PTR(fn, array_of_displacements, "array_of_displacements");
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bl = blocklength, .adisp = array_of_displacements, .type = oldtype};
    return build_or_err(fn, &c, MPI_COMBINER_HINDEXED_BLOCK, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                           MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct";
    int rc;
    MPII_CHECK_INIT(fn);
    CHECK_COUNT(fn, count);
    if (count > 0) {
        CHECK_PTR(fn, array_of_blocklengths, "array_of_blocklengths");
        CHECK_PTR(fn, array_of_displacements, "array_of_displacements");
        CHECK_PTR(fn, array_of_types, "array_of_types");
        if ((rc = check_blocklens(fn, count, array_of_blocklengths)) != MPI_SUCCESS)
            return rc;
        for (int i = 0; i < count; i++)
            if (!lookup(array_of_types[i]))
                return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid datatype %d at index %d",
                                (int)array_of_types[i], i);
    }
    CHECK_PTR(fn, newtype, "newtype");
    ctor_t c = {.n = count, .bls = array_of_blocklengths, .adisp = array_of_displacements,
                .types = array_of_types};
    return build_or_err(fn, &c, MPI_COMBINER_STRUCT, newtype);
}

/* The selected elements of an sz[] array of oldtype (copy k at
 * displacement k * extent(oldtype)), with lb 0 and the extent of the whole
 * array (`total` bytes): the subarray of MPI 3.1 section 4.1.3 and the
 * distributed array of 4.1.4. own[i] lists the selected indices of
 * dimension i ascending (C order: dimension 0 slowest); runs of
 * consecutive indices in the last dimension become one block each. NULL
 * when out of memory. */
static dt_obj_t *array_make(int ndims, const int sz[], int *const own[], const int nown[],
                            const dt_obj_t *old, MPI_Aint total)
{
    builder_t b;
    MPI_Aint *stride = malloc((size_t)ndims * sizeof *stride);
    int *idx = calloc((size_t)ndims, sizeof *idx), last = ndims - 1;
    memset(&b, 0, sizeof b);
    b.t = stride && idx ? obj_new() : NULL;
    if (!b.t) {
        free(stride);
        free(idx);
        return NULL;
    }
    stride[last] = 1;
    for (int i = last - 1; i >= 0; i--)
        stride[i] = stride[i + 1] * sz[i + 1];
    for (int i = 0; i < ndims; i++)
        if (nown[i] == 0)
            goto done; /* owns nothing: no data, the array's extent */
    for (;;) {
        MPI_Aint base = 0;
        int i;
        for (i = 0; i < last; i++)
            base += (MPI_Aint)own[i][idx[i]] * stride[i];
        /* the last dimension in runs of consecutive indices */
        for (int k = 0; k < nown[last] && !b.nomem;) {
            int r = 1;
            while (k + r < nown[last] && own[last][k + r] == own[last][k] + r)
                r++;
            add_component(&b, old, (base + own[last][k]) * old->pub.extent, (size_t)r);
            k += r;
        }
        if (b.nomem)
            break;
        for (i = last - 1; i >= 0; i--) {
            if (++idx[i] < nown[i])
                break;
            idx[i] = 0;
        }
        if (i < 0)
            break;
    }
done:
    free(stride);
    free(idx);
    if (b.nomem) {
        obj_release(b.t);
        return NULL;
    }
    builder_finish(&b, 0);
    if (!b.bset) {
        b.t->pub.basic = old->pub.basic;
        b.t->pub.basic_count = 0;
    }
    b.t->lb_kind = b.t->ub_kind = BK_MARK;
    b.t->pub.lb = 0;
    b.t->pub.extent = total;
    set_contig(b.t);
    return b.t;
}

/* The subarray of MPI 3.1 section 4.1.3 (arguments validated): the
 * indices start..start+subsize-1 of every dimension, for array_make. */
static dt_obj_t *subarray_make(int ndims, const int sizes[], const int subsizes[], const int starts[],
                               int order, const dt_obj_t *old, MPI_Aint total)
{
    int *sz = malloc((size_t)ndims * 2 * sizeof *sz), *nown = sz ? sz + ndims : NULL;
    int **own = calloc((size_t)ndims, sizeof *own);
    dt_obj_t *t = NULL;
    if (!sz || !own)
        goto out;
    for (int i = 0; i < ndims; i++) {
        int j = order == MPI_ORDER_C ? i : ndims - 1 - i; /* dimension 0 varies slowest */
        sz[i] = sizes[j];
        nown[i] = subsizes[j];
        own[i] = malloc((size_t)subsizes[j] * sizeof **own);
        if (!own[i])
            goto out;
        for (int x = 0; x < subsizes[j]; x++)
            own[i][x] = starts[j] + x;
    }
    t = array_make(ndims, sz, own, nown, old, total);
out:
    if (own)
        for (int i = 0; i < ndims; i++)
            free(own[i]);
    free(own);
    free(sz);
    return t;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    dt_obj_t *old, *t;
    MPI_Aint total;
    MPII_CHECK_INIT(fn);
    if (ndims < 1 || ndims > (INT_MAX - 2) / 3)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid ndims %d", ndims);
    CHECK_PTR(fn, array_of_sizes, "array_of_sizes");
    CHECK_PTR(fn, array_of_subsizes, "array_of_subsizes");
    CHECK_PTR(fn, array_of_starts, "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid order %d", order);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    old = lookup(oldtype);
    total = old->pub.extent;
    for (int i = 0; i < ndims; i++) {
        int n = array_of_sizes[i], m = array_of_subsizes[i], s = array_of_starts[i];
        if (n < 1)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid size %d in dimension %d", n, i);
        if (m < 1 || m > n)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid subsize %d in dimension %d (size %d)", m, i, n);
        if (s < 0 || s > n - m)
            return mpii_err(NULL, MPI_ERR_ARG, fn,
                            "invalid start %d in dimension %d (size %d, subsize %d)", s, i, n, m);
        if (__builtin_mul_overflow(total, (MPI_Aint)n, &total))
            return mpii_err(NULL, MPI_ERR_ARG, fn, "the array's extent overflows MPI_Aint");
    }
    t = subarray_make(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, old, total);
    if (t && contents_init(t, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1)) {
        obj_release(t);
        t = NULL;
    }
    if (t) {
        t->ints[0] = ndims;
        for (int i = 0; i < ndims; i++) {
            t->ints[1 + i] = array_of_sizes[i];
            t->ints[1 + ndims + i] = array_of_subsizes[i];
            t->ints[1 + 2 * ndims + i] = array_of_starts[i];
        }
        t->ints[1 + 3 * ndims] = order;
        contents_type(t, 0, oldtype);
    }
    return publish(fn, t, newtype);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray";
    dt_obj_t *old, *t = NULL;
    MPI_Aint total;
    long long nprocs = 1;
    int *sz = NULL, *nown = NULL, **own = NULL, coord, rest;
    MPII_CHECK_INIT(fn);
    if (size < 1 || rank < 0 || rank >= size)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid size %d or rank %d", size, rank);
    if (ndims < 1 || ndims > (INT_MAX - 4) / 4)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid ndims %d", ndims);
    CHECK_PTR(fn, array_of_gsizes, "array_of_gsizes");
    CHECK_PTR(fn, array_of_distribs, "array_of_distribs");
    CHECK_PTR(fn, array_of_dargs, "array_of_dargs");
    CHECK_PTR(fn, array_of_psizes, "array_of_psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid order %d", order);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    old = lookup(oldtype);
    total = old->pub.extent;
    for (int i = 0; i < ndims; i++) {
        int g = array_of_gsizes[i], d = array_of_distribs[i], a = array_of_dargs[i], p = array_of_psizes[i];
        if (g < 1 || p < 1)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid gsize %d or psize %d in dimension %d", g, p, i);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid distribution %d in dimension %d", d, i);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            return mpii_err(NULL, MPI_ERR_ARG, fn, "MPI_DISTRIBUTE_NONE over %d processes in dimension %d", p,
                            i);
        if (a != MPI_DISTRIBUTE_DFLT_DARG && (a < 1 || d == MPI_DISTRIBUTE_NONE))
            return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid darg %d in dimension %d", a, i);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (long long)a * p < g)
            return mpii_err(NULL, MPI_ERR_ARG, fn,
                            "block %d times %d processes does not cover %d in dimension %d", a, p, g, i);
        nprocs *= p;
        if (nprocs > size)
            break;
        if (__builtin_mul_overflow(total, (MPI_Aint)g, &total))
            return mpii_err(NULL, MPI_ERR_ARG, fn, "the array's extent overflows MPI_Aint");
    }
    if (nprocs != size)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "the process grid does not have %d processes", size);
    sz = malloc((size_t)ndims * sizeof *sz);
    nown = calloc((size_t)ndims, sizeof *nown);
    own = calloc((size_t)ndims, sizeof *own);
    if (!sz || !nown || !own)
        goto out;
    /* the process grid is row-major whatever the array's order */
    rest = rank;
    for (int i = ndims - 1; i >= 0; i--) {
        int g = array_of_gsizes[i], d = array_of_distribs[i], a = array_of_dargs[i], p = array_of_psizes[i];
        int j = order == MPI_ORDER_C ? i : ndims - 1 - i; /* C-order position of dimension i */
        int blk, n = 0;
        coord = rest % p;
        rest /= p;
        sz[j] = g;
        own[j] = malloc((size_t)g * sizeof **own);
        if (!own[j])
            goto out;
        if (d == MPI_DISTRIBUTE_NONE) {
            for (int x = 0; x < g; x++)
                own[j][n++] = x;
        } else if (d == MPI_DISTRIBUTE_BLOCK) {
            blk = a == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : a;
            for (long long x = (long long)coord * blk; x < (long long)(coord + 1) * blk && x < g; x++)
                own[j][n++] = (int)x;
        } else {
            blk = a == MPI_DISTRIBUTE_DFLT_DARG ? 1 : a;
            for (long long s0 = (long long)coord * blk; s0 < g; s0 += (long long)p * blk)
                for (long long x = s0; x < s0 + blk && x < g; x++)
                    own[j][n++] = (int)x;
        }
        nown[j] = n;
    }
    t = array_make(ndims, sz, own, nown, old, total);
    if (t && contents_init(t, MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1)) {
        obj_release(t);
        t = NULL;
    }
    if (t) {
        t->ints[0] = size;
        t->ints[1] = rank;
        t->ints[2] = ndims;
        for (int i = 0; i < ndims; i++) {
            t->ints[3 + i] = array_of_gsizes[i];
            t->ints[3 + ndims + i] = array_of_distribs[i];
            t->ints[3 + 2 * ndims + i] = array_of_dargs[i];
            t->ints[3 + 3 * ndims + i] = array_of_psizes[i];
        }
        t->ints[3 + 4 * ndims] = order;
        contents_type(t, 0, oldtype);
    }
out:
    if (own)
        for (int i = 0; i < ndims; i++)
            free(own[i]);
    free(own);
    free(nown);
    free(sz);
    return publish(fn, t, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_resized";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    t = obj_clone(lookup(oldtype));
    if (t && contents_init(t, MPI_COMBINER_RESIZED, 0, 2, 1)) {
        obj_release(t);
        t = NULL;
    }
    if (t) {
        t->lb_kind = t->ub_kind = BK_MARK;
        t->pub.lb = lb;
        t->pub.extent = extent;
        set_contig(t);
        t->aints[0] = lb;
        t->aints[1] = extent;
        contents_type(t, 0, oldtype);
    }
    return publish(fn, t, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    dt_obj_t *old, *t;
    int rc;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    old = lookup(oldtype);
    t = obj_clone(old);
    if (t && contents_init(t, MPI_COMBINER_DUP, 0, 0, 1)) {
        obj_release(t);
        t = NULL;
    }
    if (t) {
        t->pub.committed = old->pub.committed; /* same committed state (MPI 3.1 4.1.10) */
        contents_type(t, 0, oldtype);
    }
    rc = publish(fn, t, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the attributes of oldtype go through their copy callbacks (MPI 3.1 6.7.4) */
    rc = mpii_attr_type_dup(oldtype, *newtype);
    if (rc != MPI_SUCCESS) {
        (void)mpii_attr_type_free(*newtype);
        MPI_Type_free(newtype);
        return mpii_err(NULL, rc, fn, "an attribute copy callback failed (error %d)", rc);
    }
    return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_commit";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, datatype, "datatype");
    t = lookup(*datatype);
    if (!t)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid datatype %d", (int)*datatype);
    t->pub.committed = 1;
    return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_free";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, datatype, "datatype");
    t = lookup(*datatype);
    if (!t)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid datatype %d", (int)*datatype);
    if (t->pub.predefined || t->f90)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "cannot free predefined datatype %d%s", (int)*datatype,
                        t->f90 ? " (made by MPI_Type_create_f90_*)" : "");
    /* the handle dies with its last user reference (MPI_Type_get_contents
     * can hand out more); types built from this one keep the object */
    if (t->hrefs == 1) {
        /* the handle dies: its attributes' delete callbacks run first */
        int rc = mpii_attr_type_free(*datatype);
        if (rc != MPI_SUCCESS)
            return mpii_err(NULL, rc, fn, "an attribute delete callback failed (error %d)", rc);
    }
    if (--t->hrefs == 0 && t->holds == 0)
        obj_unbind(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int mpii_datatype_hold(MPI_Datatype dt)
{
    dt_obj_t *t = dt > MBMPI_DATATYPE_PREDEFINED_MAX ? lookup(dt) : NULL;
    if (!t)
        return 0;
    t->holds++;
    return 1;
}

void mpii_datatype_unhold(MPI_Datatype dt)
{
    dt_obj_t *t = lookup(dt);
    if (t && t->holds > 0 && --t->holds == 0 && t->hrefs == 0)
        obj_unbind(t);
}

/* ------------------------------------------------------------------ */
/* queries                                                             */

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char fn[] = "MPI_Type_size";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, size, "size");
    t = lookup(datatype);
    *size = t->pub.size > (size_t)INT_MAX ? MPI_UNDEFINED : (int)t->pub.size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    static const char fn[] = "MPI_Type_get_extent";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, lb, "lb");
    CHECK_PTR(fn, extent, "extent");
    t = lookup(datatype);
    *lb = t->pub.lb;
    *extent = t->pub.extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    static const char fn[] = "MPI_Type_get_true_extent";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, true_lb, "true_lb");
    CHECK_PTR(fn, true_extent, "true_extent");
    t = lookup(datatype);
    *true_lb = t->pub.true_lb;
    *true_extent = t->pub.true_extent;
    return MPI_SUCCESS;
}

/* Pure address arithmetic: works whether or not MPI is initialized. */
int MPI_Get_address(const void *location, MPI_Aint *address)
{
    CHECK_PTR("MPI_Get_address", address, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char fn[] = "MPI_Get_count";
    dt_obj_t *t;
    long long bytes;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, status, "status");
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, count, "count");
    t = lookup(datatype);
    bytes = status->mbmpi_count;
    if (t->pub.size == 0) {
        *count = 0;
    } else if (bytes < 0 || (unsigned long long)bytes % t->pub.size != 0) {
        *count = MPI_UNDEFINED;
    } else {
        unsigned long long n = (unsigned long long)bytes / t->pub.size;
        *count = n > (unsigned long long)INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return MPI_SUCCESS;
}

/* Basic elements of t in `bytes` received bytes; -1 if not a whole number. */
static long long elements_of(const dt_obj_t *t, long long bytes)
{
    unsigned long long full, rem, n;
    if (bytes < 0)
        return -1;
    if (t->pub.size == 0 || bytes == 0)
        return 0;
    full = (unsigned long long)bytes / t->pub.size;
    rem = (unsigned long long)bytes % t->pub.size;
    n = full * t->nelems;
    /* a partial element: count the whole basic elements it holds */
    for (size_t r = 0; r < t->nruns && rem > 0; r++) {
        unsigned long long run = (unsigned long long)t->runs[r].esize * t->runs[r].n;
        if (rem >= run) {
            n += t->runs[r].n;
            rem -= run;
        } else {
            if (rem % t->runs[r].esize != 0)
                return -1;
            n += rem / t->runs[r].esize;
            rem = 0;
        }
    }
    return n > (unsigned long long)LLONG_MAX ? -1 : (long long)n;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char fn[] = "MPI_Get_elements";
    long long n;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, status, "status");
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, count, "count");
    n = elements_of(lookup(datatype), status->mbmpi_count);
    *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    static const char fn[] = "MPI_Get_elements_x";
    long long n;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, status, "status");
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, count, "count");
    n = elements_of(lookup(datatype), status->mbmpi_count);
    *count = n < 0 ? MPI_UNDEFINED : (MPI_Count)n;
    return MPI_SUCCESS;
}

/* Bytes of the first `count` basic elements of a sequence of elements of t;
 * -1 if t holds no basic element but count > 0. */
static long long bytes_of_elements(const dt_obj_t *t, long long count)
{
    unsigned long long full, rem, bytes;
    if (count == 0)
        return 0;
    if (t->nelems == 0)
        return -1;
    full = (unsigned long long)count / t->nelems;
    rem = (unsigned long long)count % t->nelems;
    bytes = full * t->pub.size;
    for (size_t r = 0; r < t->nruns && rem > 0; r++) {
        unsigned long long n = t->runs[r].n < rem ? t->runs[r].n : rem;
        bytes += n * t->runs[r].esize;
        rem -= n;
    }
    return (long long)bytes;
}

/* MPI 3.1 section 12.3: set the status so that MPI_Get_elements(_x) on
 * datatype gives count (and MPI_Get_count the matching number of elements). */
static int status_set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    long long bytes;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, status, "status");
    CHECK_OLDTYPE(fn, datatype);
    if (count < 0)
        return mpii_err(NULL, MPI_ERR_COUNT, fn, "invalid count %lld", (long long)count);
    bytes = bytes_of_elements(lookup(datatype), count);
    if (bytes < 0)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "datatype %d holds no data", (int)datatype);
    status->mbmpi_count = bytes;
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return status_set_elements("MPI_Status_set_elements", status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return status_set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    static const char fn[] = "MPI_Type_size_x";
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, size, "size");
    *size = (MPI_Count)lookup(datatype)->pub.size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    static const char fn[] = "MPI_Type_get_extent_x";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, lb, "lb");
    CHECK_PTR(fn, extent, "extent");
    t = lookup(datatype);
    *lb = (MPI_Count)t->pub.lb;
    *extent = (MPI_Count)t->pub.extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    static const char fn[] = "MPI_Type_get_true_extent_x";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, true_lb, "true_lb");
    CHECK_PTR(fn, true_extent, "true_extent");
    t = lookup(datatype);
    *true_lb = (MPI_Count)t->pub.true_lb;
    *true_extent = (MPI_Count)t->pub.true_extent;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* envelopes and contents (MPI 3.1 section 4.1.13)                     */

/*
 * A type made by MPI_Type_contiguous_c with a count beyond int is built of
 * int-count pieces, but its record is the call that made it: CONTIGUOUS,
 * one large count (mpii_datatype_record_large). The int forms of the
 * queries cannot describe it (MPI_ERR_VALUE_TOO_LARGE, as MPICH); the _c
 * forms (large_count_extra.c) pass `large` and get the count from
 * mpii_datatype_large_counts.
 */
int mpii_type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner, int large)
{
    static const char fn[] = "MPI_Type_get_envelope";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, num_integers, "num_integers");
    CHECK_PTR(fn, num_addresses, "num_addresses");
    CHECK_PTR(fn, num_datatypes, "num_datatypes");
    CHECK_PTR(fn, combiner, "combiner");
    t = lookup(datatype);
    if (t->nl && !large)
        return mpii_err(NULL, MPI_ERR_VALUE_TOO_LARGE, fn,
                        "datatype %d was made with a count beyond int: MPI_Type_get_envelope_c describes it",
                        (int)datatype);
    *num_integers = t->ni;
    *num_addresses = t->na;
    *num_datatypes = t->nd;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int mpii_type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[], int large)
{
    static const char fn[] = "MPI_Type_get_contents";
    dt_obj_t *t;
    int i;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    t = lookup(datatype);
    if (t->nl && !large)
        return mpii_err(NULL, MPI_ERR_VALUE_TOO_LARGE, fn,
                        "datatype %d was made with a count beyond int: MPI_Type_get_contents_c describes it",
                        (int)datatype);
    if (t->combiner == MPI_COMBINER_NAMED)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "datatype %d is predefined (MPI_COMBINER_NAMED)",
                        (int)datatype);
    if (max_integers < t->ni || max_addresses < t->na || max_datatypes < t->nd)
        return mpii_err(NULL, MPI_ERR_ARG, fn,
                        "arrays too small: %d, %d, %d given, %d, %d, %d needed (MPI_Type_get_envelope)",
                        max_integers, max_addresses, max_datatypes, t->ni, t->na, t->nd);
    if (t->ni > 0)
        CHECK_PTR(fn, array_of_integers, "array_of_integers");
    if (t->na > 0)
        CHECK_PTR(fn, array_of_addresses, "array_of_addresses");
    if (t->nd > 0)
        CHECK_PTR(fn, array_of_datatypes, "array_of_datatypes");
    /* bind a handle to every derived type argument that lacks one first, so
     * that running out of memory leaves nothing behind */
    for (i = 0; i < t->nd; i++) {
        dt_obj_t *o = t->dts[i].obj;
        if (o && o->handle == MPI_DATATYPE_NULL) {
            o->refs++; /* the binding's */
            if (obj_register(o) == MPI_DATATYPE_NULL) {
                o->refs--;
                break;
            }
            o->hrefs = 0; /* counted below */
        }
    }
    if (i < t->nd) {
        for (int j = 0; j < i; j++) {
            dt_obj_t *o = t->dts[j].obj;
            if (o && o->handle != MPI_DATATYPE_NULL && o->hrefs == 0 && o->holds == 0)
                obj_unbind(o);
        }
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if (t->ni > 0)
        memcpy(array_of_integers, t->ints, (size_t)t->ni * sizeof *t->ints);
    if (t->na > 0)
        memcpy(array_of_addresses, t->aints, (size_t)t->na * sizeof *t->aints);
    /* predefined arguments come back as themselves; derived ones as a handle
     * the caller must free (the original handle while it is valid) */
    for (i = 0; i < t->nd; i++) {
        dt_obj_t *o = t->dts[i].obj;
        if (o) {
            o->hrefs++;
            array_of_datatypes[i] = o->handle;
        } else {
            array_of_datatypes[i] = t->dts[i].named;
        }
    }
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                          int *combiner)
{
    return mpii_type_get_envelope(datatype, num_integers, num_addresses, num_datatypes, combiner, 0);
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[])
{
    return mpii_type_get_contents(datatype, max_integers, max_addresses, max_datatypes, array_of_integers,
                                  array_of_addresses, array_of_datatypes, 0);
}

int mpii_datatype_record_large(MPI_Datatype newtype, MPI_Count count, MPI_Datatype oldtype)
{
    dt_obj_t *t = lookup(newtype);
    MPI_Count *lc = malloc(sizeof *lc);

    if (!t || !lc) {
        free(lc);
        return MPI_ERR_NO_MEM;
    }
    contents_clear(t);
    if (contents_init(t, MPI_COMBINER_CONTIGUOUS, 0, 0, 1)) {
        free(lc);
        return MPI_ERR_NO_MEM;
    }
    contents_type(t, 0, oldtype);
    lc[0] = count;
    t->lcounts = lc;
    t->nl = 1;
    return MPI_SUCCESS;
}

int mpii_datatype_large_counts(MPI_Datatype datatype, const MPI_Count **counts)
{
    dt_obj_t *t = lookup(datatype);

    *counts = t ? t->lcounts : NULL;
    return t ? t->nl : 0;
}

/* ------------------------------------------------------------------ */
/* names (MPI 3.1 section 6.8)                                         */

int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char fn[] = "MPI_Type_set_name";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, type_name, "type_name");
    t = lookup(datatype);
    /* longer names are truncated to MPI_MAX_OBJECT_NAME - 1 characters */
    strncpy(t->name, type_name, sizeof t->name - 1);
    t->name[sizeof t->name - 1] = '\0';
    return MPI_SUCCESS;
}

const char *mpii_datatype_name(MPI_Datatype dt, char *buf, size_t n)
{
    dt_obj_t *t = mpii_datatype_check(dt) == MPI_SUCCESS ? lookup(dt) : NULL;
    if (t && t->name[0])
        return t->name;
    snprintf(buf, n, "datatype %d", (int)dt);
    return buf;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, type_name, "type_name");
    CHECK_PTR(fn, resultlen, "resultlen");
    t = lookup(datatype);
    strcpy(type_name, t->name);
    *resultlen = (int)strlen(t->name);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* MPI_Type_match_size (MPI 3.1 section 17.1.9)                        */

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_match_size";
    /* in order of preference: the Fortran types, then the C ones */
    static const MPI_Datatype reals[] = {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype ints[] = {MPI_INTEGER, MPI_INTEGER8, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
                                        MPI_INT64_T};
    static const MPI_Datatype complexes[] = {MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *list;
    size_t n;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, datatype, "datatype");
    switch (typeclass) {
    case MPI_TYPECLASS_REAL: list = reals; n = sizeof reals / sizeof reals[0]; break;
    case MPI_TYPECLASS_INTEGER: list = ints; n = sizeof ints / sizeof ints[0]; break;
    case MPI_TYPECLASS_COMPLEX: list = complexes; n = sizeof complexes / sizeof complexes[0]; break;
    default: return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid typeclass %d", typeclass);
    }
    for (size_t i = 0; i < n; i++)
        if (size >= 0 && lookup(list[i])->pub.size == (size_t)size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return mpii_err(NULL, MPI_ERR_ARG, fn, "no type of class %d has size %d", typeclass, size);
}

/* ------------------------------------------------------------------ */
/* MPI_Type_create_f90_integer / _real / _complex (MPI 3.1 17.1.9)     */

/* The types made so far: the same arguments give the same handle (the
 * result is predefined: never freed), different ones distinct handles
 * (MPI_Type_get_contents gives the arguments back). */
static struct f90_type {
    int combiner, p, r;
    MPI_Datatype h;
} * f90_types;
static int nf90, capf90;

static int f90_make(const char *fn, int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype)
{
    dt_obj_t *t;
    int rc;

    CHECK_PTR(fn, newtype, "newtype");
    for (int i = 0; i < nf90; i++)
        if (f90_types[i].combiner == combiner && f90_types[i].p == p && f90_types[i].r == r) {
            *newtype = f90_types[i].h;
            return MPI_SUCCESS;
        }
    if (nf90 == capf90) {
        int nc = capf90 ? 2 * capf90 : 8;
        struct f90_type *n = realloc(f90_types, (size_t)nc * sizeof *n);
        if (!n)
            return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        f90_types = n;
        capf90 = nc;
    }
    t = obj_clone(lookup(base));
    if (t && contents_init(t, combiner, combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2, 0, 0)) {
        obj_release(t);
        t = NULL;
    }
    if (t) {
        if (combiner == MPI_COMBINER_F90_INTEGER) {
            t->ints[0] = r;
        } else {
            t->ints[0] = p;
            t->ints[1] = r;
        }
        t->pub.committed = 1;
        t->f90 = 1;
    }
    rc = publish(fn, t, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    f90_types[nf90].combiner = combiner;
    f90_types[nf90].p = p;
    f90_types[nf90].r = r;
    f90_types[nf90].h = *newtype;
    nf90++;
    return MPI_SUCCESS;
}

static void f90_reset(void)
{
    free(f90_types);
    f90_types = NULL;
    nf90 = capf90 = 0;
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_f90_integer";
    MPI_Datatype base;
    MPII_CHECK_INIT(fn);
    /* the kind SELECTED_INT_KIND(r) gives, by its size (gfortran: 1, 2, 4, 8, 16 bytes) */
    if (r < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "r = %d is negative", r);
    base = r <= 2    ? MPI_INTEGER1
           : r <= 4  ? MPI_INTEGER2
           : r <= 9  ? MPI_INTEGER4
           : r <= 18 ? MPI_INTEGER8
           : r <= 38 ? MPI_INTEGER16
                     : MPI_DATATYPE_NULL;
    if (base == MPI_DATATYPE_NULL)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "no integer type has %d decimal digits", r);
    return f90_make(fn, MPI_COMBINER_F90_INTEGER, 0, r, base, newtype);
}

/* The real (or complex) type of the kind SELECTED_REAL_KIND(p, r) gives:
 * 4 bytes, 8, or the x87 extended kind (C's long double), else an error. */
static int f90_float(const char *fn, int combiner, int p, int r, MPI_Datatype *newtype)
{
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_LONG_DOUBLE};
    static const MPI_Datatype complexes[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_C_LONG_DOUBLE_COMPLEX};
    static const int max_p[] = {6, 15, 18}, max_r[] = {37, 307, 4931};
    int pu = p == MPI_UNDEFINED, ru = r == MPI_UNDEFINED;

    MPII_CHECK_INIT(fn);
    if (!(pu && ru) && (pu || p >= 0) && (ru || r >= 0))
        for (int k = 0; k < 3; k++)
            if ((pu || p <= max_p[k]) && (ru || r <= max_r[k]))
                return f90_make(fn, combiner, p, r,
                                combiner == MPI_COMBINER_F90_REAL ? reals[k] : complexes[k], newtype);
    return mpii_err(NULL, MPI_ERR_ARG, fn, "no %s type has precision %d and range %d",
                    combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", p, r);
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_float("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_float("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

/* ------------------------------------------------------------------ */
/* MPI_Pack / MPI_Unpack (the packed format is the raw bytes in type-map order) */

/* The type signature (MPI_Pack_external): a homogeneous type is its basic
 * type times basic_count; a struct walks its entries in order; any other
 * constructor repeats its one old type size / old size times. */
static int sig_walk(const dt_obj_t *t, size_t count, mpii_sig_fn fn, void *arg)
{
    if (count == 0 || t->pub.size == 0)
        return 0;
    if (t->pub.basic != MPI_DATATYPE_NULL)
        return fn(arg, t->pub.basic, count * t->pub.basic_count);
    if (t->nd == 0) /* a predefined type with no basic: cannot be described */
        return -1;
    for (size_t k = 0; k < count; k++) {
        if (t->combiner == MPI_COMBINER_STRUCT) {
            for (int i = 0; i < t->nd; i++) {
                const dt_obj_t *o = t->dts[i].obj ? t->dts[i].obj : lookup(t->dts[i].named);
                int rc = o ? sig_walk(o, (size_t)t->ints[1 + i], fn, arg) : -1;
                if (rc)
                    return rc;
            }
        } else {
            const dt_obj_t *o = t->dts[0].obj ? t->dts[0].obj : lookup(t->dts[0].named);
            int rc = o && o->pub.size ? sig_walk(o, t->pub.size / o->pub.size, fn, arg) : -1;
            if (rc)
                return rc;
        }
    }
    return 0;
}

int mpii_datatype_signature(MPI_Datatype dt, size_t count, mpii_sig_fn fn, void *arg)
{
    const dt_obj_t *t = lookup(dt);
    return t ? sig_walk(t, count, fn, arg) : -1;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    static const char fn[] = "MPI_Pack";
    mpii_comm_t *c;
    mpii_datatype_t *t;
    unsigned long long need;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (incount < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "invalid count %d", incount);
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", (int)datatype);
    if (!position)
        return mpii_err(c, MPI_ERR_ARG, fn, "position is NULL");
    if (outsize < 0 || *position < 0 || *position > outsize)
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid position %d or outsize %d", *position, outsize);
    t = mpii_datatype_get(datatype);
    need = (unsigned long long)incount * t->size;
    if (need > (unsigned long long)(outsize - *position))
        return mpii_err(c, MPI_ERR_TRUNCATE, fn, "%llu bytes do not fit in %d bytes left", need,
                        outsize - *position);
    if (need > 0 && !outbuf)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "outbuf is NULL");
    mpii_datatype_pack(inbuf, (size_t)incount, t, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Unpack";
    mpii_comm_t *c;
    mpii_datatype_t *t;
    unsigned long long need;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (outcount < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "invalid count %d", outcount);
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", (int)datatype);
    if (!position)
        return mpii_err(c, MPI_ERR_ARG, fn, "position is NULL");
    if (insize < 0 || *position < 0 || *position > insize)
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid position %d or insize %d", *position, insize);
    t = mpii_datatype_get(datatype);
    need = (unsigned long long)outcount * t->size;
    if (need > (unsigned long long)(insize - *position))
        return mpii_err(c, MPI_ERR_TRUNCATE, fn, "%llu bytes wanted, %d bytes left", need,
                        insize - *position);
    if (need > 0 && !inbuf)
        return mpii_err(c, MPI_ERR_BUFFER, fn, "inbuf is NULL");
    mpii_datatype_unpack((const char *)inbuf + *position, (size_t)need, outbuf, (size_t)outcount, t);
    *position += (int)need;
    return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Pack_size";
    mpii_comm_t *c;
    unsigned long long need;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (incount < 0)
        return mpii_err(c, MPI_ERR_COUNT, fn, "invalid count %d", incount);
    if (!lookup(datatype))
        return mpii_err(c, MPI_ERR_TYPE, fn, "invalid datatype %d", (int)datatype);
    if (!size)
        return mpii_err(c, MPI_ERR_ARG, fn, "size is NULL");
    need = (unsigned long long)incount * lookup(datatype)->pub.size;
    if (need > (unsigned long long)INT_MAX)
        return mpii_err(c, MPI_ERR_ARG, fn, "packed size %llu does not fit in an int", need);
    *size = (int)need;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* MPI-1 names removed in MPI 3.0 (deprecated since MPI 2.0). Legacy    */
/* codes and MPICH's own test library (dtpools) still call them, and    */
/* MPICH still provides them: each is its MPI-2 replacement.            */
/* ------------------------------------------------------------------ */

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                                  newtype);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb = 0;
    if (!extent)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Type_extent", "extent is NULL");
    return MPI_Type_get_extent(datatype, &lb, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent = 0;
    if (!displacement)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Type_lb", "displacement is NULL");
    return MPI_Type_get_extent(datatype, displacement, &extent);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb = 0, extent = 0;
    int rc;
    if (!displacement)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Type_ub", "displacement is NULL");
    rc = MPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        *displacement = lb + extent;
    return rc;
}

int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}
