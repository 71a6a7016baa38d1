/*
 * mpi/attr.c: attribute caching (MPI 3.1 6.7) on communicators and
 * datatypes (for these, MPI_Type_dup / MPI_Type_free must call
 * mpii_attr_type_dup / mpii_attr_type_free): keyvals with copy and delete
 * callbacks, MPI_Comm_{create,free}_keyval, {set,get,delete}_attr, the
 * deprecated MPI-1 names (MPI_Keyval_create, MPI_Attr_put, ...) and the
 * predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 * MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE).
 *
 * Attributes live in one table of (object, keyval, value, set order), not
 * in the objects: MPI_Comm_dup calls the copy callbacks (mpii_attr_comm_dup),
 * MPI_Comm_free and MPI_Finalize (MPI_COMM_SELF first, then MPI_COMM_WORLD,
 * MPI 3.1 8.7.1) the delete callbacks, last set first. An attribute is taken
 * out of the table before its delete callback runs, so the callback may
 * itself set or delete attributes. A freed keyval stays alive until the last
 * attribute using it is deleted.
 *
 * Languages (MPI 3.1 17.2.7): an attribute set from C is address-valued,
 * one set from Fortran integer-valued (INTEGER(KIND=MPI_ADDRESS_KIND), or
 * INTEGER through MPI_ATTR_PUT). Fortran reads any value as an integer (an
 * address converted); C reads an integer-valued attribute as the address of
 * the integer: a cell of its own on the heap, since the table moves. The
 * callbacks of a keyval created in C see the value as C would read it, those
 * of a Fortran keyval (mpi/fortran/f_attr.c) the integer.
 */
#include "mpi/mpi3.h"

#include <stdlib.h>
#include <string.h>

#define KV_FIRST 16          /* user keyvals; 0..6 are the predefined ones */

enum { KV_COMM = 1, KV_TYPE = 2, KV_WIN = 3 };

typedef struct keyval {
    int kind;                /* 0: free slot */
    int freed;               /* MPI_*_free_keyval called; alive while refs > 0 */
    int refs;                /* attributes using it */
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    MPI_Type_copy_attr_function *tcopy;
    MPI_Type_delete_attr_function *tdel;
    MPI_Win_delete_attr_function *wdel; /* (a window is never copied: its copy function is kept nowhere) */
    void *extra;
    int fortran; /* callbacks are Fortran procedures (they take integers) */
} keyval_t;

typedef struct attr {
    int kind; /* KV_COMM / KV_TYPE / KV_WIN */
    int obj;  /* communicator, datatype or window handle */
    int keyval;
    void *val;               /* set from Fortran: the integer */
    int lang;                /* MPII_ATTR_C, _F_AINT, _F_INT: who set it */
    MPI_Aint *cell;          /* set from Fortran: the integer, where C reads it */
    unsigned long order;     /* set order: deletion runs last set first */
} attr_t;

static keyval_t *kvs;
static int nkvs;
static attr_t *attrs;
static int nattrs;
static int cap_attrs;
static unsigned long next_order;

/* ---------------------------------------------- predefined callbacks */

int mbmpi_comm_null_copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int mbmpi_comm_dup_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int mbmpi_comm_null_delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    return MPI_SUCCESS;
}

int mbmpi_win_null_copy_fn(MPI_Win win, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)win, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int mbmpi_win_dup_fn(MPI_Win win, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)win, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int mbmpi_win_null_delete_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win, (void)keyval, (void)val, (void)extra;
    return MPI_SUCCESS;
}

int mbmpi_type_null_copy_fn(MPI_Datatype dt, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)dt, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int mbmpi_type_dup_fn(MPI_Datatype dt, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)dt, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int mbmpi_type_null_delete_fn(MPI_Datatype dt, int keyval, void *val, void *extra)
{
    (void)dt, (void)keyval, (void)val, (void)extra;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ keyvals */

void mpii_keyval_set_fortran(int keyval)
{
    if (keyval >= KV_FIRST && keyval < KV_FIRST + nkvs)
        kvs[keyval - KV_FIRST].fortran = 1;
}

/* The live keyval of `kind`, or NULL (predefined, invalid, freed). */
static keyval_t *kv_get(int keyval, int kind)
{
    keyval_t *k;

    if (keyval < KV_FIRST || keyval >= KV_FIRST + nkvs)
        return NULL;
    k = &kvs[keyval - KV_FIRST];
    return k->kind == kind && !k->freed ? k : NULL;
}

/* The keyval of `kind` while it lives: also one freed (MPI_*_free_keyval)
 * that attributes still use. MPI 3.1 6.7.2: the free "does not transpire
 * until after all references ... have been freed", so those attributes can
 * still be read and deleted through it. */
static keyval_t *kv_get_alive(int keyval, int kind)
{
    if (keyval < KV_FIRST || keyval >= KV_FIRST + nkvs)
        return NULL;
    keyval_t *k = &kvs[keyval - KV_FIRST];
    return k->kind == kind ? k : NULL;
}

static void kv_unref(int keyval)
{
    keyval_t *k = &kvs[keyval - KV_FIRST];

    if (--k->refs == 0 && k->freed)
        k->kind = 0;
}

static int kv_create(const char *fn, int kind, keyval_t *proto, int *keyval)
{
    int i;

    MPII_CHECK_INIT(fn);
    if (!keyval)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
    for (i = 0; i < nkvs && kvs[i].kind; i++)
        ;
    if (i == nkvs) {
        int nn = nkvs ? nkvs * 2 : 16;
        keyval_t *t = realloc(kvs, (size_t)nn * sizeof(*t));
        if (!t)
            return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        memset(t + nkvs, 0, (size_t)(nn - nkvs) * sizeof(*t));
        kvs = t;
        nkvs = nn;
    }
    kvs[i] = *proto;
    kvs[i].kind = kind;
    kvs[i].freed = 0;
    kvs[i].refs = 0;
    *keyval = KV_FIRST + i;
    return MPI_SUCCESS;
}

static int kv_free(const char *fn, int kind, int *keyval)
{
    keyval_t *k;

    MPII_CHECK_INIT(fn);
    if (!keyval)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
    k = kv_get(*keyval, kind);
    if (!k)
        return mpii_err(NULL, MPI_ERR_KEYVAL, fn, "invalid keyval %d", *keyval);
    k->freed = 1;
    if (!k->refs)
        k->kind = 0;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    keyval_t k = {.copy = comm_copy_attr_fn, .del = comm_delete_attr_fn, .extra = extra_state};
    return kv_create("MPI_Comm_create_keyval", KV_COMM, &k, comm_keyval);
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    return kv_free("MPI_Comm_free_keyval", KV_COMM, comm_keyval);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    keyval_t k = {.copy = copy_fn, .del = delete_fn, .extra = extra_state};
    return kv_create("MPI_Keyval_create", KV_COMM, &k, keyval);
}

int MPI_Keyval_free(int *keyval)
{
    return kv_free("MPI_Keyval_free", KV_COMM, keyval);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
    keyval_t k = {.tcopy = type_copy_attr_fn, .tdel = type_delete_attr_fn, .extra = extra_state};
    return kv_create("MPI_Type_create_keyval", KV_TYPE, &k, type_keyval);
}

int MPI_Type_free_keyval(int *type_keyval)
{
    return kv_free("MPI_Type_free_keyval", KV_TYPE, type_keyval);
}

/* --------------------------------------------------------- attributes */

static int attr_find(int kind, int obj, int keyval)
{
    int i;
    for (i = 0; i < nattrs; i++)
        if (attrs[i].kind == kind && attrs[i].obj == obj && attrs[i].keyval == keyval)
            return i;
    return -1;
}

/* Take attribute i out of the table (the caller runs its delete callback). */
static attr_t attr_take(int i)
{
    attr_t a = attrs[i];
    memmove(&attrs[i], &attrs[i + 1], (size_t)(nattrs - i - 1) * sizeof(*attrs));
    nattrs--;
    return a;
}

/* Add (kind, obj, keyval) = val, set from lang. An integer-valued one gets
 * its cell (given: one that was taken out of the table; NULL: a new one). */
static int attr_add(int kind, int obj, int keyval, void *val, int lang, MPI_Aint *cell)
{
    if (lang != MPII_ATTR_C && !cell) {
        cell = malloc(sizeof(*cell));
        if (!cell)
            return MPI_ERR_NO_MEM;
        *cell = (MPI_Aint)val;
        if (lang == MPII_ATTR_F_INT) /* C reads an INTEGER there */
            *(MPI_Fint *)cell = (MPI_Fint)(MPI_Aint)val;
    }
    if (nattrs == cap_attrs) {
        int nn = cap_attrs ? cap_attrs * 2 : 32;
        attr_t *t = realloc(attrs, (size_t)nn * sizeof(*t));
        if (!t) {
            free(cell);
            return MPI_ERR_NO_MEM;
        }
        attrs = t;
        cap_attrs = nn;
    }
    attrs[nattrs].kind = kind;
    attrs[nattrs].obj = obj;
    attrs[nattrs].keyval = keyval;
    attrs[nattrs].val = val;
    attrs[nattrs].lang = lang;
    attrs[nattrs].cell = lang != MPII_ATTR_C ? cell : NULL;
    attrs[nattrs].order = next_order++;
    nattrs++;
    kvs[keyval - KV_FIRST].refs++;
    return MPI_SUCCESS;
}

/* The value as a reader in lang sees it (17.2.7). */
static void *attr_value(const attr_t *a, int lang)
{
    return a->lang != MPII_ATTR_C && lang == MPII_ATTR_C ? (void *)a->cell : a->val;
}

/* The value a callback of keyval k is given. */
static void *attr_cb_value(const attr_t *a, const keyval_t *k)
{
    return attr_value(a, k->fortran ? MPII_ATTR_F_AINT : MPII_ATTR_C);
}

/* Add the output of k's copy callback for attribute a onto newobj. A C
 * callback given an integer's cell that hands the cell back (as
 * MPI_COMM_DUP_FN does) copies the integer; any other address it returns
 * is an address-valued attribute of the copy. */
static int attr_add_copy(int kind, int newobj, const attr_t *a, const keyval_t *k, void *out)
{
    int lang = a->lang;

    if (lang != MPII_ATTR_C && !k->fortran) {
        if (out == (void *)a->cell)
            out = a->val;
        else
            lang = MPII_ATTR_C;
    }
    return attr_add(kind, newobj, a->keyval, out, lang, NULL);
}

/* Run the delete callback of a, which is out of the table; drop its keyval
 * reference. Returns the callback's result. */
static int attr_delete_cb(const attr_t *a)
{
    keyval_t *k = &kvs[a->keyval - KV_FIRST];
    int rc = MPI_SUCCESS;

    if (a->kind == KV_COMM && k->del)
        rc = k->del(a->obj, a->keyval, attr_cb_value(a, k), k->extra);
    else if (a->kind == KV_TYPE && k->tdel)
        rc = k->tdel(a->obj, a->keyval, attr_cb_value(a, k), k->extra);
    else if (a->kind == KV_WIN && k->wdel)
        rc = k->wdel(a->obj, a->keyval, attr_cb_value(a, k), k->extra);
    kv_unref(a->keyval);
    return rc;
}

/* Delete (kind, obj, keyval) if set; put it back when its callback fails. */
static int attr_delete(int kind, int obj, int keyval)
{
    int i = attr_find(kind, obj, keyval), rc;
    attr_t a;

    if (i < 0)
        return MPI_SUCCESS;
    a = attr_take(i);
    kvs[a.keyval - KV_FIRST].refs++; /* keep the keyval alive through the callback */
    rc = attr_delete_cb(&a);
    if (rc != MPI_SUCCESS) {
        /* MPI 3.1 6.7.3: the deletion fails; the attribute stays */
        if (attr_add(kind, obj, keyval, a.val, a.lang, a.cell) == MPI_SUCCESS)
            attrs[nattrs - 1].order = a.order;
    } else {
        free(a.cell);
    }
    kv_unref(a.keyval);
    return rc;
}

/* ------------------------------------------------------------- comm */

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return mpii_comm_set_attr_lang(comm, comm_keyval, attribute_val, MPII_ATTR_C);
}

int mpii_comm_set_attr_lang(MPI_Comm comm, int comm_keyval, void *attribute_val, int lang)
{
    static const char fn[] = "MPI_Comm_set_attr";
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (!kv_get(comm_keyval, KV_COMM))
        return mpii_err(c, MPI_ERR_KEYVAL, fn, "invalid keyval %d%s", comm_keyval,
                        comm_keyval >= 0 && comm_keyval < KV_FIRST ? " (predefined attributes are read-only)" : "");
    /* Setting again first deletes the old value (its callback runs). */
    rc = attr_delete(KV_COMM, comm, comm_keyval);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "the delete callback of the old value failed");
    rc = attr_add(KV_COMM, comm, comm_keyval, attribute_val, lang, NULL);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return mpii_comm_get_attr_lang(comm, comm_keyval, attribute_val, flag, MPII_ATTR_C);
}

int mpii_comm_get_attr_lang(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag, int lang)
{
    static const char fn[] = "MPI_Comm_get_attr";
    static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0;
    static int appnum = 0, universe, lastused;
    mpii_comm_t *c;
    int i;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (!attribute_val || !flag)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !flag ? "flag" : "attribute_val");
    *flag = 1;
    switch (comm_keyval) {
    case MPI_TAG_UB: *(int **)attribute_val = &tag_ub; return MPI_SUCCESS;
    case MPI_HOST: *(int **)attribute_val = &host; return MPI_SUCCESS;
    case MPI_IO: *(int **)attribute_val = &io; return MPI_SUCCESS;
    case MPI_WTIME_IS_GLOBAL: *(int **)attribute_val = &wtime_global; return MPI_SUCCESS;
    case MPI_APPNUM: {
        /* the program's index on bin/mpirun's command line (MPMD: "a : b") */
        const char *e = getenv("MBMPI_APPNUM");
        appnum = e ? atoi(e) : 0;
        *(int **)attribute_val = &appnum;
        return MPI_SUCCESS;
    }
    case MPI_UNIVERSE_SIZE:
        universe = mpii_g.size;
        *(int **)attribute_val = &universe;
        return MPI_SUCCESS;
    case MPI_LASTUSEDCODE:
        lastused = mpii_err_lastused();
        *(int **)attribute_val = &lastused;
        return MPI_SUCCESS;
    default: break;
    }
    *flag = 0;
    if (!kv_get_alive(comm_keyval, KV_COMM))
        return mpii_err(c, MPI_ERR_KEYVAL, fn, "invalid keyval %d", comm_keyval);
    i = attr_find(KV_COMM, comm, comm_keyval);
    if (i >= 0) {
        *(void **)attribute_val = attr_value(&attrs[i], lang);
        *flag = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    static const char fn[] = "MPI_Comm_delete_attr";
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (!kv_get_alive(comm_keyval, KV_COMM))
        return mpii_err(c, MPI_ERR_KEYVAL, fn, "invalid keyval %d", comm_keyval);
    rc = attr_delete(KV_COMM, comm, comm_keyval);
    if (rc != MPI_SUCCESS)
        return mpii_err(c, rc, fn, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return MPI_Comm_delete_attr(comm, keyval);
}

int mpii_attr_comm_dup(MPI_Comm old, MPI_Comm newc)
{
    attr_t *snap;
    int i, n = 0, rc = MPI_SUCCESS;

    for (i = 0; i < nattrs; i++)
        n += attrs[i].kind == KV_COMM && attrs[i].obj == old;
    if (!n)
        return MPI_SUCCESS;
    /* A copy callback may set attributes itself: walk a snapshot. */
    snap = malloc((size_t)n * sizeof(*snap));
    if (!snap)
        return MPI_ERR_NO_MEM;
    for (n = 0, i = 0; i < nattrs; i++)
        if (attrs[i].kind == KV_COMM && attrs[i].obj == old)
            snap[n++] = attrs[i];
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        keyval_t *k = &kvs[snap[i].keyval - KV_FIRST];
        void *out = NULL;
        int flag = 0;

        if (!k->copy)
            continue;
        rc = k->copy(old, snap[i].keyval, k->extra, attr_cb_value(&snap[i], k), &out, &flag);
        if (rc == MPI_SUCCESS && flag)
            rc = attr_add_copy(KV_COMM, newc, &snap[i], k, out);
    }
    free(snap);
    if (rc != MPI_SUCCESS)
        mpii_attr_comm_free(newc); /* the copies made so far are deleted (callbacks run) */
    return rc;
}

/* Delete every attribute of (kind, obj), last set first (callbacks run). */
static int attr_free_all(int kind, int obj)
{
    int i, last, rc;

    for (;;) {
        last = -1;
        for (i = 0; i < nattrs; i++)
            if (attrs[i].kind == kind && attrs[i].obj == obj &&
                (last < 0 || attrs[i].order > attrs[last].order))
                last = i;
        if (last < 0)
            return MPI_SUCCESS;
        rc = attr_delete(kind, obj, attrs[last].keyval);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

int mpii_attr_comm_free(MPI_Comm comm)
{
    return attr_free_all(KV_COMM, comm);
}

void mpii_mpi3_finalize(void)
{
    mpii_attr_comm_free(MPI_COMM_SELF);
    mpii_attr_comm_free(MPI_COMM_WORLD);
    mpii_bsend_flush();
}

/* ------------------------------------------------------------- types */

/* For MPI_Type_dup (mpi/datatype.c): run the copy callbacks of old's
 * attributes onto newt. */
int mpii_attr_type_dup(MPI_Datatype old, MPI_Datatype newt)
{
    int i, rc = MPI_SUCCESS;

    for (i = 0; i < nattrs && rc == MPI_SUCCESS; i++) {
        keyval_t *k;
        void *out = NULL;
        int flag = 0;

        if (attrs[i].kind != KV_TYPE || attrs[i].obj != old)
            continue;
        k = &kvs[attrs[i].keyval - KV_FIRST];
        if (!k->tcopy)
            continue;
        rc = k->tcopy(old, attrs[i].keyval, k->extra, attr_cb_value(&attrs[i], k), &out, &flag);
        if (rc == MPI_SUCCESS && flag) {
            attr_t a = attrs[i]; /* attr_add may move the table */
            rc = attr_add_copy(KV_TYPE, newt, &a, k, out);
        }
    }
    return rc;
}

/* For MPI_Type_free (mpi/datatype.c): delete dt's attributes (callbacks
 * run, last set first), so a reused handle starts without any. */
int mpii_attr_type_free(MPI_Datatype dt)
{
    return attr_free_all(KV_TYPE, dt);
}

static int type_check(const char *fn, MPI_Datatype dt)
{
    MPII_CHECK_INIT(fn);
    if (!mpii_datatype_get(dt))
        return mpii_err(NULL, MPI_ERR_TYPE, fn, "invalid datatype %d", dt);
    return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    return mpii_type_set_attr_lang(datatype, type_keyval, attribute_val, MPII_ATTR_C);
}

int mpii_type_set_attr_lang(MPI_Datatype datatype, int type_keyval, void *attribute_val, int lang)
{
    static const char fn[] = "MPI_Type_set_attr";
    int rc = type_check(fn, datatype);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!kv_get(type_keyval, KV_TYPE))
        return mpii_err(NULL, MPI_ERR_KEYVAL, fn, "invalid keyval %d", type_keyval);
    rc = attr_delete(KV_TYPE, datatype, type_keyval);
    if (rc == MPI_SUCCESS)
        rc = attr_add(KV_TYPE, datatype, type_keyval, attribute_val, lang, NULL);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "could not set the attribute");
    return MPI_SUCCESS;
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    return mpii_type_get_attr_lang(datatype, type_keyval, attribute_val, flag, MPII_ATTR_C);
}

int mpii_type_get_attr_lang(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag, int lang)
{
    static const char fn[] = "MPI_Type_get_attr";
    int rc = type_check(fn, datatype), i;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!attribute_val || !flag)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "NULL argument");
    *flag = 0;
    if (!kv_get_alive(type_keyval, KV_TYPE))
        return mpii_err(NULL, MPI_ERR_KEYVAL, fn, "invalid keyval %d", type_keyval);
    i = attr_find(KV_TYPE, datatype, type_keyval);
    if (i >= 0) {
        *(void **)attribute_val = attr_value(&attrs[i], lang);
        *flag = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char fn[] = "MPI_Type_delete_attr";
    int rc = type_check(fn, datatype);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!kv_get_alive(type_keyval, KV_TYPE))
        return mpii_err(NULL, MPI_ERR_KEYVAL, fn, "invalid keyval %d", type_keyval);
    rc = attr_delete(KV_TYPE, datatype, type_keyval);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}

/* ----------------------------------------------------------- windows */

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    keyval_t k = {.wdel = win_delete_attr_fn, .extra = extra_state};
    (void)win_copy_attr_fn;
    return kv_create("MPI_Win_create_keyval", KV_WIN, &k, win_keyval);
}

int MPI_Win_free_keyval(int *win_keyval)
{
    return kv_free("MPI_Win_free_keyval", KV_WIN, win_keyval);
}

int mpii_attr_win_free(MPI_Win win)
{
    return attr_free_all(KV_WIN, win);
}

static int win_check(const char *fn, MPI_Win win, MPI_Errhandler **eh_p)
{
    MPII_CHECK_INIT(fn);
    *eh_p = mpii_win_errhandler(win);
    if (!*eh_p)
        return mpii_err(NULL, MPI_ERR_WIN, fn, "invalid window %d", win);
    return MPI_SUCCESS;
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    return mpii_win_set_attr_lang(win, win_keyval, attribute_val, MPII_ATTR_C);
}

int mpii_win_set_attr_lang(MPI_Win win, int win_keyval, void *attribute_val, int lang)
{
    static const char fn[] = "MPI_Win_set_attr";
    MPI_Errhandler *eh;
    int rc = win_check(fn, win, &eh);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!kv_get(win_keyval, KV_WIN))
        return mpii_err_win(
            *eh, win, MPI_ERR_KEYVAL, fn, "invalid keyval %d%s", win_keyval,
            win_keyval >= 0 && win_keyval < KV_FIRST ? " (predefined attributes are read-only)" : "");
    rc = attr_delete(KV_WIN, win, win_keyval);
    if (rc == MPI_SUCCESS)
        rc = attr_add(KV_WIN, win, win_keyval, attribute_val, lang, NULL);
    if (rc != MPI_SUCCESS)
        return mpii_err_win(*eh, win, rc, fn, "could not set the attribute");
    return MPI_SUCCESS;
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    return mpii_win_get_attr_lang(win, win_keyval, attribute_val, flag, MPII_ATTR_C);
}

int mpii_win_get_attr_lang(MPI_Win win, int win_keyval, void *attribute_val, int *flag, int lang)
{
    static const char fn[] = "MPI_Win_get_attr";
    MPI_Errhandler *eh;
    int rc = win_check(fn, win, &eh), i;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!attribute_val || !flag)
        return mpii_err_win(*eh, win, MPI_ERR_ARG, fn, "NULL argument");
    *flag = mpii_win_predef_attr(win, win_keyval, (void **)attribute_val);
    if (*flag || (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL))
        return MPI_SUCCESS;
    if (!kv_get_alive(win_keyval, KV_WIN))
        return mpii_err_win(*eh, win, MPI_ERR_KEYVAL, fn, "invalid keyval %d", win_keyval);
    i = attr_find(KV_WIN, win, win_keyval);
    if (i >= 0) {
        *(void **)attribute_val = attr_value(&attrs[i], lang);
        *flag = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char fn[] = "MPI_Win_delete_attr";
    MPI_Errhandler *eh;
    int rc = win_check(fn, win, &eh);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!kv_get_alive(win_keyval, KV_WIN))
        return mpii_err_win(*eh, win, MPI_ERR_KEYVAL, fn, "invalid keyval %d", win_keyval);
    rc = attr_delete(KV_WIN, win, win_keyval);
    if (rc != MPI_SUCCESS)
        return mpii_err_win(*eh, win, rc, fn, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}
