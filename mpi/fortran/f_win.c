/*
 * mpi/fortran/f_win.c: Fortran 77 bindings of one-sided communication
 * (MPI 3.1 chapter 11, 17.2): window creation (Win_create, _allocate,
 * _allocate_shared, _create_dynamic, attach and detach), window groups,
 * info and names, window error handlers (handlers written in Fortran
 * too), the RMA calls and their request-based forms, and fence, PSCW, lock
 * and flush synchronization. The window keyvals and attributes are in
 * f_attr.c, next to those of communicators and datatypes.
 *
 * Sizes and target displacements are INTEGER(KIND=MPI_ADDRESS_KIND);
 * MPI_WIN_ALLOCATE, MPI_WIN_ALLOCATE_SHARED and MPI_WIN_SHARED_QUERY
 * return BASEPTR as the address in an INTEGER(KIND=MPI_ADDRESS_KIND), as
 * MPI_ALLOC_MEM does (f_env.c). Windows are INTEGER handles, the same int
 * as in C (MPI_Win_f2c and MPI_Win_c2f are in mpi/win.c).
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

_Static_assert(sizeof(MPI_Win) == sizeof(MPI_Fint), "windows are INTEGERs");

/* ---- windows ---- */

void mpi_win_create_(void *base, MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                     MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    *ierr = MPI_Win_create(mf_buf(base), *size, *disp_unit, *info, *comm, &w);
    *win = w;
}

void mpi_win_allocate_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, MPI_Aint *baseptr,
                       MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    void *p = NULL;
    *ierr = MPI_Win_allocate(*size, *disp_unit, *info, *comm, &p, &w);
    *win = w;
    if (*ierr == MPI_SUCCESS)
        *baseptr = (MPI_Aint)p;
}

void mpi_win_allocate_shared_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                              MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    void *p = NULL;
    *ierr = MPI_Win_allocate_shared(*size, *disp_unit, *info, *comm, &p, &w);
    *win = w;
    if (*ierr == MPI_SUCCESS)
        *baseptr = (MPI_Aint)p;
}

void mpi_win_shared_query_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit,
                           MPI_Aint *baseptr, MPI_Fint *ierr)
{
    MPI_Aint s = 0;
    int du = 0;
    void *p = NULL;
    *ierr = MPI_Win_shared_query(*win, *rank, &s, &du, &p);
    if (*ierr != MPI_SUCCESS)
        return;
    *size = s;
    *disp_unit = du;
    *baseptr = (MPI_Aint)p;
}

void mpi_win_create_dynamic_(MPI_Fint *info, MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = MPI_WIN_NULL;
    *ierr = MPI_Win_create_dynamic(*info, *comm, &w);
    *win = w;
}

void mpi_win_attach_(MPI_Fint *win, void *base, MPI_Aint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Win_attach(*win, mf_buf(base), *size);
}

void mpi_win_detach_(MPI_Fint *win, void *base, MPI_Fint *ierr)
{
    *ierr = MPI_Win_detach(*win, mf_buf(base));
}

void mpi_win_free_(MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win w = *win;
    *ierr = MPI_Win_free(&w);
    *win = w;
}

void mpi_win_get_group_(MPI_Fint *win, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Win_get_group(*win, &g);
    *group = g;
}

void mpi_win_set_info_(MPI_Fint *win, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = MPI_Win_set_info(*win, *info);
}

void mpi_win_get_info_(MPI_Fint *win, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Win_get_info(*win, &i);
    *info_used = i;
}

void mpi_win_set_name_(MPI_Fint *win, const char *win_name, MPI_Fint *ierr, size_t win_name_len)
{
    char *s = mf_cstring(win_name, win_name_len);
    *ierr = s ? MPI_Win_set_name(*win, s) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_win_get_name_(MPI_Fint *win, char *win_name, MPI_Fint *resultlen, MPI_Fint *ierr,
                       size_t win_name_len)
{
    char buf[MPI_MAX_OBJECT_NAME + 1];
    int len = 0;
    *ierr = MPI_Win_get_name(*win, buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_OBJECT_NAME] = '\0';
    *resultlen = mf_fstring(buf, win_name, win_name_len);
}

/* ---- error handlers ---- */

/* A Fortran handler SUBROUTINE H(WIN, ERRCODE) takes both arguments by
 * reference, as MPI_Win_errhandler_function does: the library calls it
 * directly (see mpi_comm_create_errhandler_ in f_env.c). */
void mpi_win_create_errhandler_(MPI_Win_errhandler_function *function, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Win_create_errhandler(function, &e);
    *errhandler = e;
}

void mpi_win_set_errhandler_(MPI_Fint *win, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Win_set_errhandler(*win, *errhandler);
}

void mpi_win_get_errhandler_(MPI_Fint *win, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Win_get_errhandler(*win, &e);
    *errhandler = e;
}

void mpi_win_call_errhandler_(MPI_Fint *win, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Win_call_errhandler(*win, *errorcode);
}

/* ---- communication ---- */

void mpi_put_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
              MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype,
              MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Put(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                    *target_count, *target_datatype, *win);
}

void mpi_get_(void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,
              MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *win,
              MPI_Fint *ierr)
{
    *ierr = MPI_Get(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                    *target_count, *target_datatype, *win);
}

void mpi_accumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                     MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                     MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Accumulate(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                           *target_count, *target_datatype, *op, *win);
}

void mpi_get_accumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                         void *result_addr, MPI_Fint *result_count, MPI_Fint *result_datatype,
                         MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                         MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Get_accumulate(mf_buf(origin_addr), *origin_count, *origin_datatype, mf_buf(result_addr),
                               *result_count, *result_datatype, *target_rank, *target_disp, *target_count,
                               *target_datatype, *op, *win);
}

void mpi_fetch_and_op_(const void *origin_addr, void *result_addr, MPI_Fint *datatype, MPI_Fint *target_rank,
                       MPI_Aint *target_disp, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Fetch_and_op(mf_buf(origin_addr), mf_buf(result_addr), *datatype, *target_rank, *target_disp,
                             *op, *win);
}

void mpi_compare_and_swap_(const void *origin_addr, const void *compare_addr, void *result_addr,
                           MPI_Fint *datatype, MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *win,
                           MPI_Fint *ierr)
{
    *ierr = MPI_Compare_and_swap(mf_buf(origin_addr), mf_buf(compare_addr), mf_buf(result_addr), *datatype,
                                 *target_rank, *target_disp, *win);
}

void mpi_rput_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
               MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
               MPI_Fint *target_datatype, MPI_Fint *win, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Rput(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                     *target_count, *target_datatype, *win, &r);
    *request = r;
}

void mpi_rget_(void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype, MPI_Fint *target_rank,
               MPI_Aint *target_disp, MPI_Fint *target_count, MPI_Fint *target_datatype, MPI_Fint *win,
               MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Rget(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                     *target_count, *target_datatype, *win, &r);
    *request = r;
}

void mpi_raccumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                      MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                      MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *request,
                      MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Raccumulate(mf_buf(origin_addr), *origin_count, *origin_datatype, *target_rank, *target_disp,
                            *target_count, *target_datatype, *op, *win, &r);
    *request = r;
}

void mpi_rget_accumulate_(const void *origin_addr, MPI_Fint *origin_count, MPI_Fint *origin_datatype,
                          void *result_addr, MPI_Fint *result_count, MPI_Fint *result_datatype,
                          MPI_Fint *target_rank, MPI_Aint *target_disp, MPI_Fint *target_count,
                          MPI_Fint *target_datatype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *request,
                          MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    *ierr = MPI_Rget_accumulate(mf_buf(origin_addr), *origin_count, *origin_datatype, mf_buf(result_addr),
                                *result_count, *result_datatype, *target_rank, *target_disp, *target_count,
                                *target_datatype, *op, *win, &r);
    *request = r;
}

/* ---- synchronization ---- */

void mpi_win_fence_(MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_fence(*assert, *win);
}

void mpi_win_post_(MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_post(*group, *assert, *win);
}

void mpi_win_start_(MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_start(*group, *assert, *win);
}

void mpi_win_complete_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_complete(*win);
}

void mpi_win_wait_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_wait(*win);
}

void mpi_win_test_(MPI_Fint *win, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Win_test(*win, &f);
    *flag = mf_logical(f);
}

void mpi_win_lock_(MPI_Fint *lock_type, MPI_Fint *rank, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_lock(*lock_type, *rank, *assert, *win);
}

void mpi_win_unlock_(MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_unlock(*rank, *win);
}

void mpi_win_lock_all_(MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_lock_all(*assert, *win);
}

void mpi_win_unlock_all_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_unlock_all(*win);
}

void mpi_win_flush_(MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_flush(*rank, *win);
}

void mpi_win_flush_all_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_flush_all(*win);
}

void mpi_win_flush_local_(MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_flush_local(*rank, *win);
}

void mpi_win_flush_local_all_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_flush_local_all(*win);
}

void mpi_win_sync_(MPI_Fint *win, MPI_Fint *ierr)
{
    *ierr = MPI_Win_sync(*win);
}
