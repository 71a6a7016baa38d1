/*
 * mpi/fortran/f_io.c: Fortran bindings of MPI-IO (mpi/io.c). Offsets and
 * displacements are INTEGER(KIND=MPI_OFFSET_KIND) (MPI_Offset), extents
 * INTEGER(KIND=MPI_ADDRESS_KIND); file names and data representations are
 * CHARACTER, with their hidden lengths last.
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

void mpi_file_open_(MPI_Fint *comm, const char *filename, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
                    MPI_Fint *ierr, size_t filename_len)
{
    char *s = mf_cstring(filename, filename_len);
    *ierr = s ? MPI_File_open(*comm, s, *amode, *info, fh) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_file_close_(MPI_Fint *fh, MPI_Fint *ierr)
{
    *ierr = MPI_File_close(fh);
}

void mpi_file_delete_(const char *filename, MPI_Fint *info, MPI_Fint *ierr, size_t filename_len)
{
    char *s = mf_cstring(filename, filename_len);
    *ierr = s ? MPI_File_delete(s, *info) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_file_set_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                        const char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t datarep_len)
{
    char *s = mf_cstring(datarep, datarep_len);
    *ierr = s ? MPI_File_set_view(*fh, *disp, *etype, *filetype, s, *info) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_file_get_view_(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype, char *datarep,
                        MPI_Fint *ierr, size_t datarep_len)
{
    char rep[MPI_MAX_DATAREP_STRING];
    *ierr = MPI_File_get_view(*fh, disp, etype, filetype, rep);
    if (*ierr == MPI_SUCCESS)
        mf_fstring(rep, datarep, datarep_len);
}

/* one MPI_Offset argument */
#define F_OFFSET(fname, cname)                                                                               \
    void fname(MPI_Fint *fh, MPI_Offset *v, MPI_Fint *ierr)                                                  \
    {                                                                                                        \
        *ierr = cname(*fh, *v);                                                                              \
    }
F_OFFSET(mpi_file_set_size_, MPI_File_set_size)
F_OFFSET(mpi_file_preallocate_, MPI_File_preallocate)

#define F_OUT(fname, cname, T)                                                                               \
    void fname(MPI_Fint *fh, T *v, MPI_Fint *ierr)                                                           \
    {                                                                                                        \
        *ierr = cname(*fh, v);                                                                               \
    }
F_OUT(mpi_file_get_size_, MPI_File_get_size, MPI_Offset)
F_OUT(mpi_file_get_position_, MPI_File_get_position, MPI_Offset)
F_OUT(mpi_file_get_position_shared_, MPI_File_get_position_shared, MPI_Offset)
F_OUT(mpi_file_get_group_, MPI_File_get_group, MPI_Fint)
F_OUT(mpi_file_get_amode_, MPI_File_get_amode, MPI_Fint)
F_OUT(mpi_file_get_info_, MPI_File_get_info, MPI_Fint)
F_OUT(mpi_file_get_errhandler_, MPI_File_get_errhandler, MPI_Fint)

void mpi_file_set_info_(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_info(*fh, *info);
}

void mpi_file_set_errhandler_(MPI_Fint *fh, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_errhandler(*fh, *errhandler);
}

void mpi_file_call_errhandler_(MPI_Fint *fh, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_File_call_errhandler(*fh, *errorcode);
}

void mpi_file_create_errhandler_(MPI_File_errhandler_function *fn, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_File_create_errhandler(fn, errhandler);
}

void mpi_file_get_byte_offset_(MPI_Fint *fh, MPI_Offset *offset, MPI_Offset *disp, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_byte_offset(*fh, *offset, disp);
}

void mpi_file_seek_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr)
{
    *ierr = MPI_File_seek(*fh, *offset, *whence);
}

void mpi_file_seek_shared_(MPI_Fint *fh, MPI_Offset *offset, MPI_Fint *whence, MPI_Fint *ierr)
{
    *ierr = MPI_File_seek_shared(*fh, *offset, *whence);
}

void mpi_file_get_type_extent_(MPI_Fint *fh, MPI_Fint *datatype, MPI_Aint *extent, MPI_Fint *ierr)
{
    *ierr = MPI_File_get_type_extent(*fh, *datatype, extent);
}

void mpi_file_set_atomicity_(MPI_Fint *fh, MPI_Fint *flag, MPI_Fint *ierr)
{
    *ierr = MPI_File_set_atomicity(*fh, *flag != 0);
}

void mpi_file_get_atomicity_(MPI_Fint *fh, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_File_get_atomicity(*fh, &f);
    *flag = mf_logical(f);
}

void mpi_file_sync_(MPI_Fint *fh, MPI_Fint *ierr)
{
    *ierr = MPI_File_sync(*fh);
}

/* data access: explicit offset, or a file pointer; with a status or a request */
#define F_AT(fname, cname)                                                                                   \
    void fname(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count, MPI_Fint *datatype,             \
               MPI_Fint *status, MPI_Fint *ierr)                                                             \
    {                                                                                                        \
        MPI_Status st;                                                                                       \
        *ierr = cname(*fh, *offset, mf_buf(buf), *count, *datatype, mf_status_c(status, &st));               \
        if (*ierr == MPI_SUCCESS)                                                                            \
            mf_status_out(&st, status);                                                                      \
    }
#define F_PTR(fname, cname)                                                                                  \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *status,               \
               MPI_Fint *ierr)                                                                               \
    {                                                                                                        \
        MPI_Status st;                                                                                       \
        *ierr = cname(*fh, mf_buf(buf), *count, *datatype, mf_status_c(status, &st));                        \
        if (*ierr == MPI_SUCCESS)                                                                            \
            mf_status_out(&st, status);                                                                      \
    }
#define F_IAT(fname, cname)                                                                                  \
    void fname(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count, MPI_Fint *datatype,             \
               MPI_Fint *request, MPI_Fint *ierr)                                                            \
    {                                                                                                        \
        *ierr = cname(*fh, *offset, mf_buf(buf), *count, *datatype, request);                                \
    }
#define F_IPTR(fname, cname)                                                                                 \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *request,              \
               MPI_Fint *ierr)                                                                               \
    {                                                                                                        \
        *ierr = cname(*fh, mf_buf(buf), *count, *datatype, request);                                         \
    }
F_AT(mpi_file_read_at_, MPI_File_read_at)
F_AT(mpi_file_read_at_all_, MPI_File_read_at_all)
F_AT(mpi_file_write_at_, MPI_File_write_at)
F_AT(mpi_file_write_at_all_, MPI_File_write_at_all)
F_PTR(mpi_file_read_, MPI_File_read)
F_PTR(mpi_file_read_all_, MPI_File_read_all)
F_PTR(mpi_file_write_, MPI_File_write)
F_PTR(mpi_file_write_all_, MPI_File_write_all)
F_PTR(mpi_file_read_shared_, MPI_File_read_shared)
F_PTR(mpi_file_write_shared_, MPI_File_write_shared)
F_PTR(mpi_file_read_ordered_, MPI_File_read_ordered)
F_PTR(mpi_file_write_ordered_, MPI_File_write_ordered)
F_IAT(mpi_file_iread_at_, MPI_File_iread_at)
F_IAT(mpi_file_iwrite_at_, MPI_File_iwrite_at)
F_IAT(mpi_file_iread_at_all_, MPI_File_iread_at_all)
F_IAT(mpi_file_iwrite_at_all_, MPI_File_iwrite_at_all)
F_IPTR(mpi_file_iread_, MPI_File_iread)
F_IPTR(mpi_file_iwrite_, MPI_File_iwrite)
F_IPTR(mpi_file_iread_all_, MPI_File_iread_all)
F_IPTR(mpi_file_iwrite_all_, MPI_File_iwrite_all)
F_IPTR(mpi_file_iread_shared_, MPI_File_iread_shared)
F_IPTR(mpi_file_iwrite_shared_, MPI_File_iwrite_shared)

/* split collectives */
#define F_BEGIN_AT(fname, cname)                                                                             \
    void fname(MPI_Fint *fh, MPI_Offset *offset, void *buf, MPI_Fint *count, MPI_Fint *datatype,             \
               MPI_Fint *ierr)                                                                               \
    {                                                                                                        \
        *ierr = cname(*fh, *offset, mf_buf(buf), *count, *datatype);                                         \
    }
#define F_BEGIN(fname, cname)                                                                                \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *ierr)                 \
    {                                                                                                        \
        *ierr = cname(*fh, mf_buf(buf), *count, *datatype);                                                  \
    }
#define F_END(fname, cname)                                                                                  \
    void fname(MPI_Fint *fh, void *buf, MPI_Fint *status, MPI_Fint *ierr)                                    \
    {                                                                                                        \
        MPI_Status st;                                                                                       \
        *ierr = cname(*fh, mf_buf(buf), mf_status_c(status, &st));                                           \
        if (*ierr == MPI_SUCCESS)                                                                            \
            mf_status_out(&st, status);                                                                      \
    }
F_BEGIN_AT(mpi_file_read_at_all_begin_, MPI_File_read_at_all_begin)
F_BEGIN_AT(mpi_file_write_at_all_begin_, MPI_File_write_at_all_begin)
F_BEGIN(mpi_file_read_all_begin_, MPI_File_read_all_begin)
F_BEGIN(mpi_file_write_all_begin_, MPI_File_write_all_begin)
F_BEGIN(mpi_file_read_ordered_begin_, MPI_File_read_ordered_begin)
F_BEGIN(mpi_file_write_ordered_begin_, MPI_File_write_ordered_begin)
F_END(mpi_file_read_at_all_end_, MPI_File_read_at_all_end)
F_END(mpi_file_write_at_all_end_, MPI_File_write_at_all_end)
F_END(mpi_file_read_all_end_, MPI_File_read_all_end)
F_END(mpi_file_write_all_end_, MPI_File_write_all_end)
F_END(mpi_file_read_ordered_end_, MPI_File_read_ordered_end)
F_END(mpi_file_write_ordered_end_, MPI_File_write_ordered_end)
