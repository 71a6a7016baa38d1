/*
 * mpi/pack_external.c: MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size in the "external32" representation (MPI 3.1 4.3
 * and 13.5.2): every basic value big-endian, IEEE formats, and the
 * sizes of the standard's table (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes,
 * MPI_WCHAR 2, MPI_LONG_DOUBLE 16 in IEEE quadruple precision, a complex
 * two values of its real type, a pair type its two values).
 *
 * The data is packed natively first (mpii_datatype_pack: the values in
 * type-map order, nothing between them), then each value of the type
 * signature (mpii_datatype_signature) is converted in that stream;
 * unpacking runs the other way. Not a fast path: one temporary buffer of
 * the native size per call.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

enum { CV_SWAP = 1, CV_SINT, CV_UINT, CV_LDBL };

/* One value of a basic type: up to two parts (pairs, complexes), each
 * `native` bytes here and `ext` bytes in external32. */
typedef struct conv_part {
    unsigned char kind, native, ext;
} conv_part_t;

typedef struct conv {
    int nparts;
    conv_part_t p[2];
} conv_t;

static conv_part_t part(int kind, size_t native, size_t ext)
{
    conv_part_t q = {(unsigned char)kind, (unsigned char)native, (unsigned char)ext};
    return q;
}

/* 0, or -1 for a type external32 does not describe */
static int conv_of(MPI_Datatype h, conv_t *c)
{
    c->nparts = 1;
    switch (h) {
    case MPI_LONG:
        c->p[0] = part(CV_SINT, sizeof(long), 4);
        return 0;
    case MPI_UNSIGNED_LONG:
        c->p[0] = part(CV_UINT, sizeof(unsigned long), 4);
        return 0;
    case MPI_WCHAR:
        c->p[0] = part(CV_UINT, sizeof(wchar_t), 2);
        return 0;
    case MPI_LONG_DOUBLE:
        c->p[0] = part(CV_LDBL, sizeof(long double), 16);
        return 0;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_2REAL:
        c->nparts = 2;
        c->p[0] = c->p[1] = part(CV_SWAP, 4, 4);
        return 0;
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_2DOUBLE_PRECISION:
        c->nparts = 2;
        c->p[0] = c->p[1] = part(CV_SWAP, 8, 8);
        return 0;
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
        c->nparts = 2;
        c->p[0] = c->p[1] = part(CV_LDBL, sizeof(long double), 16);
        return 0;
    case MPI_FLOAT_INT:
    case MPI_DOUBLE_INT:
    case MPI_LONG_INT:
    case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT: {
        /* the value's part as its own type, then an int */
        MPI_Datatype v = h == MPI_FLOAT_INT    ? MPI_FLOAT
                         : h == MPI_DOUBLE_INT ? MPI_DOUBLE
                         : h == MPI_LONG_INT   ? MPI_LONG
                         : h == MPI_SHORT_INT  ? MPI_SHORT
                                               : MPI_LONG_DOUBLE;
        conv_of(v, c);
        c->nparts = 2;
        c->p[1] = part(CV_SWAP, 4, 4);
        return 0;
    }
    case MPI_2INT:
    case MPI_2INTEGER:
        c->nparts = 2;
        c->p[0] = c->p[1] = part(CV_SWAP, 4, 4);
        return 0;
    default:
        break;
    }
    /* the rest: fixed-size integers, floats, bytes, characters, logicals */
    mpii_datatype_t *t = mpii_datatype_get(h);
    if (!t || !t->predefined || t->size == 0 || t->size > 16 || t->nblocks != 1)
        return -1;
    c->p[0] = part(CV_SWAP, t->size, t->size);
    return 0;
}

/* One part: native bytes at n to external32 bytes at e (to_ext), or back. */
static void conv_part(const conv_part_t *q, unsigned char *n, unsigned char *e, int to_ext)
{
    switch (q->kind) {
    case CV_SWAP:
        for (int i = 0; i < q->ext; i++) {
            if (to_ext)
                e[i] = n[q->native - 1 - i];
            else
                n[q->native - 1 - i] = e[i];
        }
        return;
    case CV_SINT:
    case CV_UINT: {
        /* little-endian host: the low ext bytes, sign or zero extended back */
        if (to_ext) {
            for (int i = 0; i < q->ext; i++)
                e[i] = n[q->ext - 1 - i];
        } else {
            unsigned char fill = q->kind == CV_SINT && (e[0] & 0x80) ? 0xff : 0;
            for (int i = 0; i < q->ext; i++)
                n[q->ext - 1 - i] = e[i];
            memset(n + q->ext, fill, (size_t)(q->native - q->ext));
        }
        return;
    }
    case CV_LDBL: {
        unsigned char b[16];
        long double ld;
#ifdef __SIZEOF_FLOAT128__
        __float128 qd;
        if (to_ext) {
            memcpy(&ld, n, sizeof ld);
            qd = (__float128)ld;
            memcpy(b, &qd, 16);
            for (int i = 0; i < 16; i++)
                e[i] = b[15 - i];
        } else {
            for (int i = 0; i < 16; i++)
                b[15 - i] = e[i];
            memcpy(&qd, b, 16);
            ld = (long double)qd;
            memcpy(n, &ld, sizeof ld);
        }
#else
#error "external32 needs a 128-bit float type for MPI_LONG_DOUBLE"
#endif
        return;
    }
    default:
        return;
    }
}

typedef struct walk {
    unsigned char *nat, *ext;
    size_t ext_bytes; /* counted, or converted so far */
    int convert, to_ext;
} walk_t;

static int walk_fn(void *arg, MPI_Datatype basic, size_t n)
{
    walk_t *w = arg;
    conv_t c;
    size_t esz = 0;

    if (conv_of(basic, &c))
        return -1;
    for (int i = 0; i < c.nparts; i++)
        esz += c.p[i].ext;
    if (w->convert) {
        for (size_t k = 0; k < n; k++)
            for (int i = 0; i < c.nparts; i++) {
                conv_part(&c.p[i], w->nat, w->ext, w->to_ext);
                w->nat += c.p[i].native;
                w->ext += c.p[i].ext;
            }
    }
    w->ext_bytes += esz * n;
    return 0;
}

/* every part of basic keeps its size: 0, or -1 */
static int same_size_fn(void *arg, MPI_Datatype basic, size_t n)
{
    conv_t c;
    (void)arg;
    (void)n;
    if (conv_of(basic, &c))
        return -1;
    for (int i = 0; i < c.nparts; i++)
        if (c.p[i].native != c.p[i].ext)
            return -1;
    return 0;
}

int mpii_ext32_same_size(MPI_Datatype dt)
{
    return mpii_datatype_signature(dt, 1, same_size_fn, NULL) == 0;
}

/* n values of basic converted where they lie (their sizes checked first) */
static int inplace_fn(void *arg, MPI_Datatype basic, size_t n)
{
    walk_t *w = arg;
    unsigned char tmp[16];
    conv_t c;

    if (same_size_fn(NULL, basic, n))
        return -1;
    conv_of(basic, &c);
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < c.nparts; i++) {
            size_t sz = c.p[i].native;
            memcpy(tmp, w->nat, sz);
            if (w->to_ext)
                conv_part(&c.p[i], tmp, w->nat, 1);
            else
                conv_part(&c.p[i], w->nat, tmp, 0);
            w->nat += sz;
        }
    return 0;
}

int mpii_ext32_convert(MPI_Datatype dt, size_t count, void *buf, int to_ext)
{
    walk_t w = {0};
    w.nat = buf;
    w.to_ext = to_ext;
    return mpii_datatype_signature(dt, count, inplace_fn, &w) == 0 ? 0 : -1;
}

static int check_common(const char *fn, const char *datarep, int count, MPI_Datatype dt)
{
    if (!datarep)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
    if (strcmp(datarep, "external32"))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "data representation \"%s\" (only \"external32\" is defined)",
                        datarep);
    if (count < 0)
        return mpii_err(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (mpii_datatype_check(dt) != MPI_SUCCESS)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", (int)dt);
    return MPI_SUCCESS;
}

/* external32 bytes of count elements of dt, or -1 */
static long long ext_size(MPI_Datatype dt, int count)
{
    walk_t w = {0};
    if (mpii_datatype_signature(dt, (size_t)count, walk_fn, &w))
        return -1;
    return (long long)w.ext_bytes;
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    static const char fn[] = "MPI_Pack_external_size";
    long long n;
    int rc;

    MPII_CHECK_INIT(fn);
    rc = check_common(fn, datarep, incount, datatype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!size)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "size is NULL");
    n = ext_size(datatype, incount);
    if (n < 0)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "datatype %d has no external32 form", (int)datatype);
    *size = (MPI_Aint)n;
    return MPI_SUCCESS;
}

/* MPI_Pack_external (to_ext: user elements at `user` into the external
 * buffer `ext` of `extsize` bytes) and MPI_Unpack_external (the external
 * bytes into user elements), from *position on */
static int external_copy(const char *fn, const char *datarep, int to_ext, void *user, int count,
                         MPI_Datatype datatype, unsigned char *ext, MPI_Aint extsize, MPI_Aint *position)
{
    const mpii_datatype_t *t;
    long long need;
    unsigned char *nat;
    walk_t w = {0};
    int rc;

    MPII_CHECK_INIT(fn);
    rc = check_common(fn, datarep, count, datatype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!position)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "position is NULL");
    if (extsize < 0 || *position < 0 || *position > extsize)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid position %ld or buffer size %ld", (long)*position,
                        (long)extsize);
    need = ext_size(datatype, count);
    if (need < 0)
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "datatype %d has no external32 form", (int)datatype);
    if (need > (long long)(extsize - *position))
        return mpii_err(NULL, MPI_ERR_TRUNCATE, fn, "%lld bytes, %ld left in the buffer", need,
                        (long)(extsize - *position));
    if (need == 0)
        return MPI_SUCCESS;
    if (!ext)
        return mpii_err(NULL, MPI_ERR_BUFFER, fn, "%s is NULL", to_ext ? "outbuf" : "inbuf");
    t = mpii_datatype_get(datatype);
    nat = malloc((size_t)count * t->size);
    if (!nat)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    if (to_ext)
        mpii_datatype_pack(user, (size_t)count, t, nat);
    w.nat = nat;
    w.ext = ext + *position;
    w.convert = 1;
    w.to_ext = to_ext;
    mpii_datatype_signature(datatype, (size_t)count, walk_fn, &w);
    if (!to_ext)
        mpii_datatype_unpack(nat, (size_t)count * t->size, user, (size_t)count, t);
    free(nat);
    *position += (MPI_Aint)need;
    return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    return external_copy("MPI_Pack_external", datarep, 1, (void *)(uintptr_t)inbuf, incount, datatype, outbuf,
                         outsize, position);
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                        void *outbuf, int outcount, MPI_Datatype datatype)
{
    return external_copy("MPI_Unpack_external", datarep, 0, outbuf, outcount, datatype,
                         (unsigned char *)(uintptr_t)inbuf, insize, position);
}
