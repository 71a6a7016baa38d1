/*
 * mpi/fortran/fortran.h: what the Fortran 77 bindings (the .c files of mpi/fortran/)
 * share: the sentinel common blocks of mpif.h, buffer and status
 * conversion, and CHARACTER argument helpers.
 *
 * Calling convention (gfortran, and every compiler following the f2c/g77
 * ABI without -ff2c): the symbol is the lower-case name plus one trailing
 * underscore (mpi_send_), every argument is passed by reference, handles are
 * INTEGER (MPI_Fint, the same int as the C handles, so they pass through
 * unchanged), IERROR comes last, and every CHARACTER argument adds a hidden
 * length argument (size_t since gfortran 8) after all the others.
 */
#ifndef MBMPI_FORTRAN_H
#define MBMPI_FORTRAN_H

#include "mpi.h"

#include <stddef.h>
#include <string.h>

/* Fortran's view of MPI_Status: MPI_STATUS_SIZE INTEGERs, copied bytewise
 * to and from the C struct (the Fortran array is only 4-byte aligned). */
#define FSTATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "MPI_Status must be a whole number of INTEGERs");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint),
               "mpif.h has MPI_SOURCE = 1, MPI_TAG = 2, MPI_ERROR = 3");

/* The sentinels of mpif.h live in common blocks of their own; gfortran
 * names common block /X/ x_ and the Fortran program passes the address of
 * its variable, which the bindings compare with these (mf_buf, mf_status).
 * Defined in f_env.c, with exactly the sizes mpif.h gives them. */
extern MPI_Fint mbmpi_fbottom_[1];
extern MPI_Fint mbmpi_finplace_[1];
extern MPI_Fint mbmpi_fstign_[FSTATUS_SIZE];
extern MPI_Fint mbmpi_fstsign_[FSTATUS_SIZE];
extern MPI_Fint mbmpi_ferrcodes_[1]; /* f_dynamic.c */
extern char mbmpi_fargvnull_[1];

/* A Fortran choice buffer as the C library wants it: MPI_BOTTOM and
 * MPI_IN_PLACE become the C sentinels. */
static inline void *mf_buf(const void *p)
{
    if (p == (const void *)mbmpi_fbottom_)
        return MPI_BOTTOM;
    if (p == (const void *)mbmpi_finplace_)
        return MPI_IN_PLACE;
    return (void *)(uintptr_t)p;
}

static inline int mf_status_ignored(const MPI_Fint *fst)
{
    return fst == NULL || fst == mbmpi_fstign_ || fst == mbmpi_fstsign_;
}

static inline void mf_status_out(const MPI_Status *c, MPI_Fint *fst)
{
    if (!mf_status_ignored(fst))
        memcpy(fst, c, sizeof(*c));
}

static inline void mf_status_in(const MPI_Fint *fst, MPI_Status *c)
{
    memcpy(c, fst, sizeof(*c));
}

/* The C status argument for Fortran status fst: MPI_STATUS_IGNORE for the
 * sentinels, else c loaded with fst's contents, so that the fields a call
 * leaves alone (MPI_ERROR, MPI 3.1 3.2.5) keep the caller's values instead
 * of stack garbage when copied back by mf_status_out. */
static inline MPI_Status *mf_status_c(const MPI_Fint *fst, MPI_Status *c)
{
    if (mf_status_ignored(fst))
        return MPI_STATUS_IGNORE;
    mf_status_in(fst, c);
    return c;
}

/* C truth value to Fortran LOGICAL (gfortran: .TRUE. is 1, .FALSE. 0). */
static inline MPI_Fint mf_logical(int v)
{
    return v ? 1 : 0;
}

/* A CHARACTER argument as a NUL-terminated C string without its trailing
 * blanks, in malloc'd memory (NULL when out of memory); free() it. */
char *mf_cstring(const char *f, size_t flen);

/* Copy C string c into CHARACTER f of length flen, blank-padded
 * (truncated when too long). Returns the number of characters copied. */
int mf_fstring(const char *c, char *f, size_t flen);

/* Release what the attribute bindings keep for keyvals created from
 * Fortran (f_attr.c); called by MPI_FINALIZE once MPI_Finalize returned. */
void mf_attr_finalize(void);

#endif /* MBMPI_FORTRAN_H */
