/*
 * mpi/fortran/f_env.c: Fortran 77 bindings of the environment calls (Init,
 * Finalize, Abort, Wtime, processor name, versions), error handlers
 * (including handlers written in Fortran), error classes and strings, and
 * the handle conversion functions of C (MPI_Comm_f2c ...); info objects
 * are in f_info.c.
 * Also defines the common blocks that hold mpif.h's sentinels.
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

/* The common blocks /MBMPI_FBOTTOM/ ... of mpif.h (see fortran.h).
 * gfortran aligns common blocks to 16 bytes or more (more with wider
 * vector units) and ld warns when the definition is less aligned than a
 * reference: 64 covers every case. */
_Alignas(64) MPI_Fint mbmpi_fbottom_[1];
_Alignas(64) MPI_Fint mbmpi_finplace_[1];
_Alignas(64) MPI_Fint mbmpi_fstign_[FSTATUS_SIZE];
_Alignas(64) MPI_Fint mbmpi_fstsign_[FSTATUS_SIZE];

char *mf_cstring(const char *f, size_t flen)
{
    while (flen > 0 && f[flen - 1] == ' ')
        flen--;
    char *s = malloc(flen + 1);
    if (!s)
        return NULL;
    memcpy(s, f, flen);
    s[flen] = '\0';
    return s;
}

int mf_fstring(const char *c, char *f, size_t flen)
{
    size_t n = strlen(c);
    if (n > flen)
        n = flen;
    memcpy(f, c, n);
    memset(f + n, ' ', flen - n);
    return (int)n;
}

/* ---- environment ---- */

void mpi_init_(MPI_Fint *ierr)
{
    *ierr = MPI_Init(NULL, NULL);
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0;
    *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
    *provided = p;
}

void mpi_query_thread_(MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0;
    *ierr = MPI_Query_thread(&p);
    *provided = p;
}

void mpi_is_thread_main_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Is_thread_main(&f);
    *flag = mf_logical(f);
}

void mpi_initialized_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Initialized(&f);
    *flag = mf_logical(f);
}

void mpi_finalized_(MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Finalized(&f);
    *flag = mf_logical(f);
}

void mpi_finalize_(MPI_Fint *ierr)
{
    *ierr = MPI_Finalize();
    if (*ierr == MPI_SUCCESS)
        mf_attr_finalize();
}

void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Abort(*comm, *errorcode);
}

double mpi_wtime_(void)
{
    return MPI_Wtime();
}

double mpi_wtick_(void)
{
    return MPI_Wtick();
}

/* MPI_AINT_ADD and MPI_AINT_DIFF are functions of INTEGER(KIND=
 * MPI_ADDRESS_KIND): `use mpi` declares them; with mpif.h the program does
 * (as MPICH's mpif.h, which leaves them out). */
MPI_Aint mpi_aint_add_(const MPI_Aint *base, const MPI_Aint *disp)
{
    return MPI_Aint_add(*base, *disp);
}

MPI_Aint mpi_aint_diff_(const MPI_Aint *addr1, const MPI_Aint *addr2)
{
    return MPI_Aint_diff(*addr1, *addr2);
}

/* The profiling names, which mpif.h declares as MPI 3.1 17.1.5 asks (the
 * other routines have no Fortran PMPI_ entry points). */
double pmpi_wtime_(void)
{
    return PMPI_Wtime();
}

double pmpi_wtick_(void)
{
    return PMPI_Wtick();
}

void mpi_get_processor_name_(char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
    char buf[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    *ierr = MPI_Get_processor_name(buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[len < 0 ? 0 : len > MPI_MAX_PROCESSOR_NAME ? MPI_MAX_PROCESSOR_NAME : len] = '\0';
    *resultlen = mf_fstring(buf, name, name_len);
}

void mpi_get_version_(MPI_Fint *version, MPI_Fint *subversion, MPI_Fint *ierr)
{
    int v = 0, s = 0;
    *ierr = MPI_Get_version(&v, &s);
    *version = v;
    *subversion = s;
}

void mpi_get_library_version_(char *version, MPI_Fint *resultlen, MPI_Fint *ierr, size_t version_len)
{
    char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    *ierr = MPI_Get_library_version(buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
    *resultlen = mf_fstring(buf, version, version_len);
}

/* ---- errors ---- */

void mpi_comm_set_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_set_errhandler(*comm, *errhandler);
}

void mpi_comm_get_errhandler_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Comm_get_errhandler(*comm, &e);
    *errhandler = e;
}

/* MPI-1 names, still used by older Fortran codes */
void mpi_errhandler_set_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    mpi_comm_set_errhandler_(comm, errhandler, ierr);
}

void mpi_errhandler_get_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    mpi_comm_get_errhandler_(comm, errhandler, ierr);
}

void mpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = *errhandler;
    *ierr = MPI_Errhandler_free(&e);
    *errhandler = e;
}

/* A Fortran handler SUBROUTINE H(COMM, ERRCODE) takes both arguments by
 * reference, as MPI_Comm_errhandler_function does: the library calls it
 * directly (with no further arguments). */
void mpi_comm_create_errhandler_(MPI_Comm_errhandler_function *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Comm_create_errhandler(function, &e);
    *errhandler = e;
}

void mpi_errhandler_create_(MPI_Comm_errhandler_function *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    mpi_comm_create_errhandler_(function, errhandler, ierr);
}

void mpi_comm_call_errhandler_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_call_errhandler(*comm, *errorcode);
}

void mpi_add_error_class_(MPI_Fint *errorclass, MPI_Fint *ierr)
{
    int c = 0;
    *ierr = MPI_Add_error_class(&c);
    *errorclass = c;
}

void mpi_add_error_code_(MPI_Fint *errorclass, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    int c = 0;
    *ierr = MPI_Add_error_code(*errorclass, &c);
    *errorcode = c;
}

void mpi_add_error_string_(MPI_Fint *errorcode, const char *string, MPI_Fint *ierr, size_t string_len)
{
    char *s = mf_cstring(string, string_len);
    *ierr = s ? MPI_Add_error_string(*errorcode, s) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_error_string_(MPI_Fint *errorcode, char *string, MPI_Fint *resultlen, MPI_Fint *ierr, size_t string_len)
{
    char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    *ierr = MPI_Error_string(*errorcode, buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_ERROR_STRING] = '\0';
    *resultlen = mf_fstring(buf, string, string_len);
}

void mpi_error_class_(MPI_Fint *errorcode, MPI_Fint *errorclass, MPI_Fint *ierr)
{
    int c = 0;
    *ierr = MPI_Error_class(*errorcode, &c);
    *errorclass = c;
}

/* ---- misc ---- */

/* BASEPTR receives the address as an INTEGER(KIND=MPI_ADDRESS_KIND), for a
 * Cray pointer or C_F_POINTER(TRANSFER(BASEPTR, C_PTR), ...) */
void mpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr, MPI_Fint *ierr)
{
    void *p = NULL;
    *ierr = MPI_Alloc_mem(*size, *info, &p);
    if (*ierr == MPI_SUCCESS)
        *baseptr = (MPI_Aint)p;
}

/* BASE is the memory itself (a choice argument) */
void mpi_free_mem_(void *base, MPI_Fint *ierr)
{
    *ierr = MPI_Free_mem(base);
}

void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr)
{
    *ierr = MPI_Pcontrol(*level);
}

/* ---- handle conversion for C code called from Fortran (MPI 3.1 17.2.4):
 * the handles are the same integers in both languages. ---- */

MPI_Comm MPI_Comm_f2c(MPI_Fint comm) { return comm; }
MPI_Fint MPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype) { return datatype; }
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Op MPI_Op_f2c(MPI_Fint op) { return op; }
MPI_Fint MPI_Op_c2f(MPI_Op op) { return op; }
MPI_Request MPI_Request_f2c(MPI_Fint request) { return request; }
MPI_Fint MPI_Request_c2f(MPI_Request request) { return request; }
MPI_Group MPI_Group_f2c(MPI_Fint group) { return group; }
MPI_Fint MPI_Group_c2f(MPI_Group group) { return group; }
MPI_Info MPI_Info_f2c(MPI_Fint info) { return info; }
MPI_Fint MPI_Info_c2f(MPI_Info info) { return info; }
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler) { return errhandler; }
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }

int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!f_status || !c_status || mf_status_ignored(f_status))
        return MPI_ERR_ARG;
    mf_status_in(f_status, c_status);
    return MPI_SUCCESS;
}

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!f_status || !c_status || mf_status_ignored(f_status))
        return MPI_ERR_ARG;
    memcpy(f_status, c_status, sizeof(*c_status));
    return MPI_SUCCESS;
}

_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status is a Fortran status");

/* The four conversions of MPI 4.0 19.3.5: every kind of status holds the
 * same bytes here, so each is a copy (the sentinels are no status). */
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return MPI_Status_c2f(c_status, (MPI_Fint *)f08_status);
}

int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return MPI_Status_f2c((const MPI_Fint *)f08_status, c_status);
}

int MPI_Status_f2f08(const MPI_Fint f_status[], MPI_F08_status *f08_status)
{
    if (!f_status || !f08_status || mf_status_ignored(f_status) || mf_status_ignored((MPI_Fint *)f08_status))
        return MPI_ERR_ARG;
    memcpy(f08_status, f_status, sizeof(*f08_status));
    return MPI_SUCCESS;
}

int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint f_status[])
{
    return MPI_Status_f2f08((const MPI_Fint *)f08_status, (MPI_F08_status *)f_status);
}

/* ... and from Fortran (mpi_f08: MPI_Status_f2f08 / MPI_Status_f082f) */
void mpi_status_f2f08_(MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierr)
{
    *ierr = MPI_Status_f2f08(f_status, (MPI_F08_status *)f08_status);
}

void mpi_status_f082f_(MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierr)
{
    *ierr = MPI_Status_f082f((MPI_F08_status *)f08_status, f_status);
}

/* ---- sessions (MPI 4.0 11.3) ---- */

void mpi_session_init_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session, MPI_Fint *ierr)
{
    MPI_Session s = MPI_SESSION_NULL;
    *ierr = MPI_Session_init(*info, *errhandler, &s);
    *session = s;
}

void mpi_session_finalize_(MPI_Fint *session, MPI_Fint *ierr)
{
    MPI_Session s = *session;
    *ierr = MPI_Session_finalize(&s);
    *session = s;
}

void mpi_session_get_num_psets_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *npset_names, MPI_Fint *ierr)
{
    *ierr = MPI_Session_get_num_psets(*session, *info, npset_names);
}

/* PSET_LEN 0 asks for the length; else the name goes into PSET_NAME, blank-padded */
void mpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n, MPI_Fint *pset_len,
                               char *pset_name, MPI_Fint *ierr, size_t pset_name_len)
{
    char buf[MPI_MAX_PSET_NAME_LEN];
    int len = *pset_len ? (int)sizeof buf : 0;
    *ierr = MPI_Session_get_nth_pset(*session, *info, *n, &len, len ? buf : NULL);
    if (*ierr != MPI_SUCCESS)
        return;
    if (*pset_len) {
        mf_fstring(buf, pset_name, pset_name_len < (size_t)*pset_len ? pset_name_len : (size_t)*pset_len);
        *pset_len = len - 1; /* (Fortran strings have no terminating null) */
    } else {
        *pset_len = len - 1;
    }
}

void mpi_session_get_pset_info_(MPI_Fint *session, const char *pset_name, MPI_Fint *info, MPI_Fint *ierr,
                                size_t pset_name_len)
{
    char *s = mf_cstring(pset_name, pset_name_len);
    MPI_Info i = MPI_INFO_NULL;
    *ierr = s ? MPI_Session_get_pset_info(*session, s, &i) : MPI_ERR_NO_MEM;
    free(s);
    *info = i;
}

void mpi_session_get_info_(MPI_Fint *session, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Session_get_info(*session, &i);
    *info_used = i;
}

void mpi_group_from_session_pset_(MPI_Fint *session, const char *pset_name, MPI_Fint *newgroup,
                                  MPI_Fint *ierr, size_t pset_name_len)
{
    char *s = mf_cstring(pset_name, pset_name_len);
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = s ? MPI_Group_from_session_pset(*session, s, &g) : MPI_ERR_NO_MEM;
    free(s);
    *newgroup = g;
}

void mpi_comm_create_from_group_(MPI_Fint *group, const char *stringtag, MPI_Fint *info, MPI_Fint *errhandler,
                                 MPI_Fint *newcomm, MPI_Fint *ierr, size_t stringtag_len)
{
    char *s = mf_cstring(stringtag, stringtag_len);
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = s ? MPI_Comm_create_from_group(*group, s, *info, *errhandler, &c) : MPI_ERR_NO_MEM;
    free(s);
    *newcomm = c;
}

void mpi_intercomm_create_from_groups_(MPI_Fint *local_group, MPI_Fint *local_leader, MPI_Fint *remote_group,
                                       MPI_Fint *remote_leader, const char *stringtag, MPI_Fint *info,
                                       MPI_Fint *errhandler, MPI_Fint *newintercomm, MPI_Fint *ierr,
                                       size_t stringtag_len)
{
    char *s = mf_cstring(stringtag, stringtag_len);
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = s ? MPI_Intercomm_create_from_groups(*local_group, *local_leader, *remote_group, *remote_leader,
                                                 s, *info, *errhandler, &c)
              : MPI_ERR_NO_MEM;
    free(s);
    *newintercomm = c;
}

void mpi_session_create_errhandler_(MPI_Session_errhandler_function *session_errhandler_fn,
                                    MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    /* the handler gets the session handle and the code by reference, as Fortran passes them */
    *ierr = MPI_Session_create_errhandler(session_errhandler_fn, &e);
    *errhandler = e;
}

void mpi_session_set_errhandler_(MPI_Fint *session, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Session_set_errhandler(*session, *errhandler);
}

void mpi_session_get_errhandler_(MPI_Fint *session, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Session_get_errhandler(*session, &e);
    *errhandler = e;
}

void mpi_session_call_errhandler_(MPI_Fint *session, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Session_call_errhandler(*session, *errorcode);
}
