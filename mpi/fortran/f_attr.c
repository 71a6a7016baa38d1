/*
 * mpi/fortran/f_attr.c: Fortran 77 bindings of attribute caching on
 * communicators, datatypes and windows (MPI 3.1 6.7, 11.2.6, 17.2.7):
 * keyvals whose copy and delete callbacks are Fortran procedures, the
 * MPI-2 calls with INTEGER(KIND=MPI_ADDRESS_KIND) values, the MPI-1 ones
 * (MPI_KEYVAL_CREATE, MPI_ATTR_PUT ...) with default INTEGER values, and
 * the predefined callbacks MPI_COMM_DUP_FN, MPI_NULL_COPY_FN,
 * MPI_WIN_DUP_FN ... as Fortran procedures.
 *
 * Values: the C library stores a void *; a Fortran value is stored as that
 * pointer's integer value (an MPI-1 INTEGER sign-extended, read back as
 * its low part, as 17.2.7 asks), marked as set from Fortran: C reads it as
 * the address of the integer (mpi/attr.c). The predefined attributes (MPI_TAG_UB ...)
 * are pointers to int in C and read through that pointer; so are the
 * window attributes (MPI_WIN_SIZE: a pointer to an MPI_Aint), except
 * MPI_WIN_BASE, which is the base address itself.
 *
 * Callbacks: a keyval created from Fortran is a C keyval whose extra_state
 * is an fkeyval_t holding the Fortran procedures, the flavour (MPI-1 or
 * MPI-2 argument kinds) and the program's EXTRA_STATE; one pair of C
 * trampolines calls them with Fortran conventions (everything by
 * reference, LOGICAL flag, IERROR last). MPI_Comm, MPI_Datatype and
 * MPI_Win are all int, so the same trampolines serve every kind (a window
 * is never copied: only the delete callback of a window keyval is ever
 * called). A freed keyval may still be used by attributes (6.7.2), so the
 * fkeyval_t records live until MPI_FINALIZE (mf_attr_finalize).
 */
#include "mpi/fortran/fortran.h"
#include "mpi/mpi3.h"

#include <stdlib.h>

/* The Fortran callbacks, MPI-2 (address-sized values) and MPI-1 (INTEGER). */
typedef void(fcopy_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                       MPI_Fint *flag, MPI_Fint *ierr);
typedef void(fdelete_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr);
typedef void(fcopy1_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                        MPI_Fint *flag, MPI_Fint *ierr);
typedef void(fdelete1_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra, MPI_Fint *ierr);

typedef struct fkeyval {
    struct fkeyval *next; /* all of them, freed by mf_attr_finalize */
    int mpi1;             /* MPI_KEYVAL_CREATE: INTEGER values and extra state */
    void (*copy)(void);   /* fcopy_fn or fcopy1_fn */
    void (*del)(void);    /* fdelete_fn or fdelete1_fn */
    MPI_Aint extra;       /* EXTRA_STATE (an MPI-1 INTEGER sign-extended) */
} fkeyval_t;

static fkeyval_t *fkeyvals;

_Static_assert(sizeof(MPI_Comm) == sizeof(MPI_Fint) && sizeof(MPI_Datatype) == sizeof(MPI_Fint) &&
                   sizeof(MPI_Win) == sizeof(MPI_Fint),
               "communicators, datatypes and windows are INTEGERs");

static int fkeyval_copy(MPI_Comm obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    fkeyval_t *k = extra;
    MPI_Fint fobj = obj, fkey = keyval, fflag = 0, ierr = MPI_SUCCESS;

    if (k->mpi1) {
        MPI_Fint fextra = (MPI_Fint)k->extra, fin = (MPI_Fint)(MPI_Aint)in, fout = 0;
        ((fcopy1_fn *)k->copy)(&fobj, &fkey, &fextra, &fin, &fout, &fflag, &ierr);
        *(void **)out = (void *)(MPI_Aint)fout;
    } else {
        MPI_Aint ain = (MPI_Aint)in, aout = 0;
        ((fcopy_fn *)k->copy)(&fobj, &fkey, &k->extra, &ain, &aout, &fflag, &ierr);
        *(void **)out = (void *)aout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int fkeyval_delete(MPI_Comm obj, int keyval, void *val, void *extra)
{
    fkeyval_t *k = extra;
    MPI_Fint fobj = obj, fkey = keyval, ierr = MPI_SUCCESS;

    if (k->mpi1) {
        MPI_Fint fextra = (MPI_Fint)k->extra, fval = (MPI_Fint)(MPI_Aint)val;
        ((fdelete1_fn *)k->del)(&fobj, &fkey, &fval, &fextra, &ierr);
    } else {
        MPI_Aint aval = (MPI_Aint)val;
        ((fdelete_fn *)k->del)(&fobj, &fkey, &aval, &k->extra, &ierr);
    }
    return ierr;
}

/* A new fkeyval_t on the list (NULL: out of memory). */
static fkeyval_t *fkeyval_new(int mpi1, void (*copy)(void), void (*del)(void), MPI_Aint extra)
{
    fkeyval_t *k = malloc(sizeof(*k));
    if (!k)
        return NULL;
    k->mpi1 = mpi1;
    k->copy = copy;
    k->del = del;
    k->extra = extra;
    k->next = fkeyvals;
    fkeyvals = k;
    return k;
}

void mf_attr_finalize(void)
{
    while (fkeyvals) {
        fkeyval_t *k = fkeyvals;
        fkeyvals = k->next;
        free(k);
    }
}

/* ---- the predefined callbacks, as Fortran procedures ---- */

void mpi_comm_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                            MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = mf_logical(0);
    *ierr = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                      MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = mf_logical(1);
    *ierr = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)val, (void)extra;
    *ierr = MPI_SUCCESS;
}

void mpi_type_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                            MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_null_copy_fn_(obj, keyval, extra, in, out, flag, ierr);
}

void mpi_type_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                      MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_dup_fn_(obj, keyval, extra, in, out, flag, ierr);
}

void mpi_type_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
    mpi_comm_null_delete_fn_(obj, keyval, val, extra, ierr);
}

void mpi_win_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                           MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_null_copy_fn_(obj, keyval, extra, in, out, flag, ierr);
}

void mpi_win_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                     MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_dup_fn_(obj, keyval, extra, in, out, flag, ierr);
}

void mpi_win_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
    mpi_comm_null_delete_fn_(obj, keyval, val, extra, ierr);
}

/* MPI-1 (MPI_KEYVAL_CREATE): INTEGER values */
void mpi_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                       MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = mf_logical(0);
    *ierr = MPI_SUCCESS;
}

void mpi_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                 MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = mf_logical(1);
    *ierr = MPI_SUCCESS;
}

void mpi_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)val, (void)extra;
    *ierr = MPI_SUCCESS;
}

/* ---- keyvals ---- */

void mpi_comm_create_keyval_(fcopy_fn *copy, fdelete_fn *del, MPI_Fint *keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr)
{
    fkeyval_t *k = fkeyval_new(0, (void (*)(void))copy, (void (*)(void))del, *extra_state);
    int kv = MPI_KEYVAL_INVALID;
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Comm_create_keyval(fkeyval_copy, fkeyval_delete, &kv, k);
    if (*ierr == MPI_SUCCESS)
        MPII_MT_LOCKED(mpii_keyval_set_fortran(kv));
    *keyval = kv;
}

void mpi_keyval_create_(fcopy1_fn *copy, fdelete1_fn *del, MPI_Fint *keyval, MPI_Fint *extra_state,
                        MPI_Fint *ierr)
{
    fkeyval_t *k = fkeyval_new(1, (void (*)(void))copy, (void (*)(void))del, *extra_state);
    int kv = MPI_KEYVAL_INVALID;
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Comm_create_keyval(fkeyval_copy, fkeyval_delete, &kv, k);
    if (*ierr == MPI_SUCCESS)
        MPII_MT_LOCKED(mpii_keyval_set_fortran(kv));
    *keyval = kv;
}

void mpi_type_create_keyval_(fcopy_fn *copy, fdelete_fn *del, MPI_Fint *keyval, MPI_Aint *extra_state,
                             MPI_Fint *ierr)
{
    fkeyval_t *k = fkeyval_new(0, (void (*)(void))copy, (void (*)(void))del, *extra_state);
    int kv = MPI_KEYVAL_INVALID;
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Type_create_keyval(fkeyval_copy, fkeyval_delete, &kv, k);
    if (*ierr == MPI_SUCCESS)
        MPII_MT_LOCKED(mpii_keyval_set_fortran(kv));
    *keyval = kv;
}

void mpi_win_create_keyval_(fcopy_fn *copy, fdelete_fn *del, MPI_Fint *keyval, MPI_Aint *extra_state,
                            MPI_Fint *ierr)
{
    fkeyval_t *k = fkeyval_new(0, (void (*)(void))copy, (void (*)(void))del, *extra_state);
    int kv = MPI_KEYVAL_INVALID;
    if (!k) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr = MPI_Win_create_keyval(fkeyval_copy, fkeyval_delete, &kv, k);
    if (*ierr == MPI_SUCCESS)
        MPII_MT_LOCKED(mpii_keyval_set_fortran(kv));
    *keyval = kv;
}

void mpi_comm_free_keyval_(MPI_Fint *keyval, MPI_Fint *ierr)
{
    int kv = *keyval;
    *ierr = MPI_Comm_free_keyval(&kv);
    *keyval = kv;
}

void mpi_keyval_free_(MPI_Fint *keyval, MPI_Fint *ierr)
{
    mpi_comm_free_keyval_(keyval, ierr);
}

void mpi_type_free_keyval_(MPI_Fint *keyval, MPI_Fint *ierr)
{
    int kv = *keyval;
    *ierr = MPI_Type_free_keyval(&kv);
    *keyval = kv;
}

/* ---- communicator attributes ---- */

/* The predefined attributes: in C a pointer to an int (see the head). */
static int predefined_keyval(int k)
{
    switch (k) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
        return 1;
    default:
        return 0;
    }
}

void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *ierr)
{
    MPII_MT_LOCKED(*ierr = mpii_comm_set_attr_lang(*comm, *keyval, (void *)*attribute_val, MPII_ATTR_F_AINT));
}

void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                        MPI_Fint *ierr)
{
    void *p = NULL;
    int f = 0;
    MPII_MT_LOCKED(*ierr = mpii_comm_get_attr_lang(*comm, *keyval, &p, &f, MPII_ATTR_F_AINT));
    *flag = mf_logical(f);
    if (*ierr != MPI_SUCCESS || !f)
        return;
    if (predefined_keyval(*keyval))
        *attribute_val = p ? *(int *)p : 0;
    else
        *attribute_val = (MPI_Aint)p;
}

void mpi_comm_delete_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_delete_attr(*comm, *keyval);
}

/* MPI-1: the value in a default INTEGER */
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *ierr)
{
    MPI_Aint v = *attribute_val;
    MPII_MT_LOCKED(*ierr = mpii_comm_set_attr_lang(*comm, *keyval, (void *)v, MPII_ATTR_F_INT));
}

void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val, MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Aint v = 0;
    mpi_comm_get_attr_(comm, keyval, &v, flag, ierr);
    if (*ierr == MPI_SUCCESS && *flag)
        *attribute_val = (MPI_Fint)v;
}

void mpi_attr_delete_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *ierr)
{
    mpi_comm_delete_attr_(comm, keyval, ierr);
}

/* ---- datatype attributes ---- */

void mpi_type_set_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *ierr)
{
    MPII_MT_LOCKED(*ierr =
                       mpii_type_set_attr_lang(*datatype, *keyval, (void *)*attribute_val, MPII_ATTR_F_AINT));
}

void mpi_type_get_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                        MPI_Fint *ierr)
{
    void *p = NULL;
    int f = 0;
    MPII_MT_LOCKED(*ierr = mpii_type_get_attr_lang(*datatype, *keyval, &p, &f, MPII_ATTR_F_AINT));
    *flag = mf_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        *attribute_val = (MPI_Aint)p;
}

void mpi_type_delete_attr_(MPI_Fint *datatype, MPI_Fint *keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Type_delete_attr(*datatype, *keyval);
}

/* ---- window attributes ---- */

void mpi_win_free_keyval_(MPI_Fint *keyval, MPI_Fint *ierr)
{
    int kv = *keyval;
    *ierr = MPI_Win_free_keyval(&kv);
    *keyval = kv;
}

void mpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *ierr)
{
    MPII_MT_LOCKED(*ierr = mpii_win_set_attr_lang(*win, *keyval, (void *)*attribute_val, MPII_ATTR_F_AINT));
}

void mpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *attribute_val, MPI_Fint *flag,
                       MPI_Fint *ierr)
{
    void *p = NULL;
    int f = 0;
    MPII_MT_LOCKED(*ierr = mpii_win_get_attr_lang(*win, *keyval, &p, &f, MPII_ATTR_F_AINT));
    *flag = mf_logical(f);
    if (*ierr != MPI_SUCCESS || !f)
        return;
    switch (*keyval) {
    case MPI_WIN_SIZE:
        *attribute_val = p ? *(MPI_Aint *)p : 0;
        break;
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
        *attribute_val = p ? *(int *)p : 0;
        break;
    default: /* MPI_WIN_BASE and the user's: the value itself */
        *attribute_val = (MPI_Aint)p;
    }
}

void mpi_win_delete_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Fint *ierr)
{
    *ierr = MPI_Win_delete_attr(*win, *keyval);
}
