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
 * Predefined handles are 1..MPI_UB; derived ones start at
 * MBMPI_DATATYPE_PREDEFINED_MAX + 1 and index a growable table of pointers
 * (so mpii_datatype_t pointers stay valid while the table grows).
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */

#include "mpi_impl.h"

#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum { BK_NONE = 0, BK_DATA = 1, BK_MARK = 2 };

typedef struct dt_run {
    size_t esize; /* bytes of one basic element */
    size_t n;     /* how many in a row */
} dt_run_t;

typedef struct dt_obj {
    mpii_datatype_t pub; /* what mpii_datatype_get returns */
    int lb_kind, ub_kind;
    size_t align;  /* largest alignment of the basic types in the type map */
    size_t nruns;  /* basic element sizes of one element, in type-map order */
    dt_run_t *runs;
    size_t nelems; /* number of basic elements in one element */
    size_t blocks_cap, runs_cap;
} dt_obj_t;

#define NPREDEF (MPI_UB + 1)

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

static void obj_free(dt_obj_t *t)
{
    free(t->pub.blocks);
    free(t->runs);
    free(t);
}

/* Store t in the table; MPI_DATATYPE_NULL when out of memory (t is kept). */
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
    return (MPI_Datatype)(MBMPI_DATATYPE_PREDEFINED_MAX + 1 + i);
}

int mpii_datatype_init(void)
{
    predef_setup();
    return MPI_SUCCESS;
}

void mpii_datatype_finalize(void)
{
    for (size_t i = 0; i < derived_cap; i++)
        if (derived[i])
            obj_free(derived[i]);
    free(derived);
    derived = NULL;
    derived_cap = 0;
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

/* ------------------------------------------------------------------ */
/* pack / unpack                                                       */

/* buf + off without pointer arithmetic on a possibly null (MPI_BOTTOM) base. */
static inline char *at(const void *buf, MPI_Aint off)
{
    return (char *)((uintptr_t)buf + (uintptr_t)off);
}

void mpii_datatype_pack(const void *src, size_t count, const mpii_datatype_t *dt, void *dst)
{
    char *out = dst;
    if (count == 0 || dt->size == 0)
        return;
    if (dt->contig) {
        memcpy(out, at(src, dt->true_lb), count * dt->size);
        return;
    }
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

/* Build, register and return the handle in *newtype; MPI_SUCCESS or MPI_ERR_NO_MEM.
 * Arguments must have been validated. */
static int ctor_build(const ctor_t *c, int is_struct, MPI_Datatype *newtype)
{
    builder_t b;
    memset(&b, 0, sizeof b);
    b.t = obj_new();
    if (!b.t)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < c->n && !b.nomem; i++) {
        const dt_obj_t *old = lookup(c->types ? c->types[i] : c->type);
        size_t bl = (size_t)(c->bls ? c->bls[i] : c->bl);
        MPI_Aint disp = c->adisp ? c->adisp[i] : c->idisp ? (MPI_Aint)c->idisp[i] : (MPI_Aint)i * c->stride;
        if (c->scale)
            disp *= old->pub.extent;
        add_component(&b, old, disp, bl);
    }
    if (b.nomem) {
        obj_free(b.t);
        return MPI_ERR_NO_MEM;
    }
    builder_finish(&b, is_struct);
    if (!is_struct && !b.bset) {
        /* no data (count or blocklengths 0): keep the old basic type, 0 of them */
        b.t->pub.basic = lookup(c->type)->pub.basic;
        b.t->pub.basic_count = 0;
    }
    *newtype = obj_register(b.t);
    if (*newtype == MPI_DATATYPE_NULL) {
        obj_free(b.t);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

/* Deep copy of t (uncommitted, derived). */
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
    obj_free(c);
    return NULL;
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

static int build_or_err(const char *fn, const ctor_t *c, int is_struct, MPI_Datatype *newtype)
{
    int rc = ctor_build(c, is_struct, newtype);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
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
    return build_or_err(fn, &c, 0, newtype);
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
    return build_or_err(fn, &c, 0, newtype);
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
    return build_or_err(fn, &c, 0, newtype);
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
    return build_or_err(fn, &c, 0, newtype);
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
    return build_or_err(fn, &c, 0, newtype);
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
    return build_or_err(fn, &c, 1, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_resized";
    dt_obj_t *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    t = obj_clone(lookup(oldtype));
    if (!t)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    t->lb_kind = t->ub_kind = BK_MARK;
    t->pub.lb = lb;
    t->pub.extent = extent;
    set_contig(t);
    *newtype = obj_register(t);
    if (*newtype == MPI_DATATYPE_NULL) {
        obj_free(t);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    dt_obj_t *old, *t;
    MPII_CHECK_INIT(fn);
    CHECK_OLDTYPE(fn, oldtype);
    CHECK_PTR(fn, newtype, "newtype");
    old = lookup(oldtype);
    t = obj_clone(old);
    if (!t)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    t->pub.committed = old->pub.committed; /* same committed state (MPI 3.1 4.1.10) */
    *newtype = obj_register(t);
    if (*newtype == MPI_DATATYPE_NULL) {
        obj_free(t);
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
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
    if (t->pub.predefined)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "cannot free predefined datatype %d", (int)*datatype);
    /* types built from this one hold their own flattened copy: nothing refers to it */
    derived[(size_t)*datatype - MBMPI_DATATYPE_PREDEFINED_MAX - 1] = NULL;
    obj_free(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
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

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char fn[] = "MPI_Get_elements";
    dt_obj_t *t;
    unsigned long long bytes, full, rem, n;
    MPII_CHECK_INIT(fn);
    CHECK_PTR(fn, status, "status");
    CHECK_OLDTYPE(fn, datatype);
    CHECK_PTR(fn, count, "count");
    t = lookup(datatype);
    if (t->pub.size == 0 || status->mbmpi_count <= 0) {
        *count = status->mbmpi_count < 0 ? MPI_UNDEFINED : 0;
        return MPI_SUCCESS;
    }
    bytes = (unsigned long long)status->mbmpi_count;
    full = bytes / t->pub.size;
    rem = bytes % t->pub.size;
    n = full * t->nelems;
    /* a partial element: count the whole basic elements it holds */
    for (size_t r = 0; r < t->nruns && rem > 0; r++) {
        unsigned long long run = (unsigned long long)t->runs[r].esize * t->runs[r].n;
        if (rem >= run) {
            n += t->runs[r].n;
            rem -= run;
        } else {
            if (rem % t->runs[r].esize != 0) {
                *count = MPI_UNDEFINED;
                return MPI_SUCCESS;
            }
            n += rem / t->runs[r].esize;
            rem = 0;
        }
    }
    *count = n > (unsigned long long)INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* MPI_Pack / MPI_Unpack (the packed format is the raw bytes in type-map order) */

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
