/*
 * mpi/fortran/f_type.c: Fortran 77 bindings of the datatype calls and of
 * Pack/Unpack. Address-sized arguments are INTEGER(KIND=MPI_ADDRESS_KIND)
 * (8 bytes, MPI_Aint); the MPI-1 forms (MPI_TYPE_HVECTOR, MPI_TYPE_STRUCT,
 * MPI_ADDRESS, MPI_TYPE_EXTENT ...) take default INTEGERs and are converted.
 */
#include "mpi/fortran/fortran.h"

#include <limits.h>
#include <stdlib.h>

_Static_assert(sizeof(MPI_Aint) == 8, "mpif.h has MPI_ADDRESS_KIND = 8");
_Static_assert(sizeof(MPI_Count) == 8, "mpif.h has MPI_COUNT_KIND = 8");

/* INTEGER array -> MPI_Aint array, malloc'd (NULL: out of memory). */
static MPI_Aint *aints_in(const MPI_Fint *a, int n)
{
    MPI_Aint *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Aint));
    if (c)
        for (int i = 0; i < n; i++)
            c[i] = a[i];
    return c;
}

/* An MPI_Aint result into a default INTEGER: MPI_ERR_ARG when it does not fit. */
static int aint_out(MPI_Aint v, MPI_Fint *f)
{
    if (v > INT_MAX || v < INT_MIN)
        return MPI_ERR_ARG;
    *f = (MPI_Fint)v;
    return MPI_SUCCESS;
}

/* ---- constructors ---- */

void mpi_type_contiguous_(MPI_Fint *count, MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_contiguous(*count, *oldtype, &t);
    *newtype = t;
}

void mpi_type_vector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                      MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_vector(*count, *blocklength, *stride, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Aint *stride, MPI_Fint *oldtype,
                              MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_hvector(*count, *blocklength, *stride, *oldtype, &t);
    *newtype = t;
}

void mpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                       MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint s = *stride;
    mpi_type_create_hvector_(count, blocklength, &s, oldtype, newtype, ierr);
}

void mpi_type_indexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements, MPI_Fint *oldtype,
                       MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_indexed(*count, blocklengths, displacements, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Aint *displacements,
                               MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_hindexed(*count, blocklengths, displacements, *oldtype, &t);
    *newtype = t;
}

void mpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements, MPI_Fint *oldtype,
                        MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = aints_in(displacements, *count);
    if (!d) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    mpi_type_create_hindexed_(count, blocklengths, d, oldtype, newtype, ierr);
    free(d);
}

void mpi_type_create_indexed_block_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *displacements,
                                    MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_indexed_block(*count, *blocklength, displacements, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_hindexed_block_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Aint *displacements,
                                     MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_hindexed_block(*count, *blocklength, displacements, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Aint *displacements,
                             MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_struct(*count, blocklengths, displacements, types, &t);
    *newtype = t;
}

void mpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements, MPI_Fint *types,
                      MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = aints_in(displacements, *count);
    if (!d) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    mpi_type_create_struct_(count, blocklengths, d, types, newtype, ierr);
    free(d);
}

void mpi_type_create_subarray_(MPI_Fint *ndims, MPI_Fint *sizes, MPI_Fint *subsizes, MPI_Fint *starts,
                               MPI_Fint *order, MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_subarray(*ndims, sizes, subsizes, starts, *order, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_darray_(MPI_Fint *size, MPI_Fint *rank, MPI_Fint *ndims, MPI_Fint *gsizes,
                             MPI_Fint *distribs, MPI_Fint *dargs, MPI_Fint *psizes, MPI_Fint *order,
                             MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr =
        MPI_Type_create_darray(*size, *rank, *ndims, gsizes, distribs, dargs, psizes, *order, *oldtype, &t);
    *newtype = t;
}

void mpi_type_create_resized_(MPI_Fint *oldtype, MPI_Aint *lb, MPI_Aint *extent, MPI_Fint *newtype,
                              MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_resized(*oldtype, *lb, *extent, &t);
    *newtype = t;
}

void mpi_type_dup_(MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_dup(*oldtype, &t);
    *newtype = t;
}

void mpi_type_commit_(MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = *datatype;
    *ierr = MPI_Type_commit(&t);
    *datatype = t;
}

void mpi_type_free_(MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = *datatype;
    *ierr = MPI_Type_free(&t);
    *datatype = t;
}

/* ---- queries ---- */

void mpi_type_size_(MPI_Fint *datatype, MPI_Fint *size, MPI_Fint *ierr)
{
    int s = 0;
    *ierr = MPI_Type_size(*datatype, &s);
    *size = s;
}

void mpi_type_size_x_(MPI_Fint *datatype, MPI_Count *size, MPI_Fint *ierr)
{
    *ierr = MPI_Type_size_x(*datatype, size);
}

void mpi_type_get_extent_(MPI_Fint *datatype, MPI_Aint *lb, MPI_Aint *extent, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_extent(*datatype, lb, extent);
}

void mpi_type_get_true_extent_(MPI_Fint *datatype, MPI_Aint *true_lb, MPI_Aint *true_extent, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_true_extent(*datatype, true_lb, true_extent);
}

void mpi_type_get_extent_x_(MPI_Fint *datatype, MPI_Count *lb, MPI_Count *extent, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_extent_x(*datatype, lb, extent);
}

void mpi_type_get_true_extent_x_(MPI_Fint *datatype, MPI_Count *true_lb, MPI_Count *true_extent,
                                 MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_true_extent_x(*datatype, true_lb, true_extent);
}

void mpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierr)
{
    MPI_Aint lb = 0, ext = 0;
    *ierr = MPI_Type_get_extent(*datatype, &lb, &ext);
    if (*ierr == MPI_SUCCESS)
        *ierr = aint_out(ext, extent);
}

void mpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr)
{
    MPI_Aint lb = 0, ext = 0;
    *ierr = MPI_Type_get_extent(*datatype, &lb, &ext);
    if (*ierr == MPI_SUCCESS)
        *ierr = aint_out(lb, displacement);
}

void mpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierr)
{
    MPI_Aint lb = 0, ext = 0;
    *ierr = MPI_Type_get_extent(*datatype, &lb, &ext);
    if (*ierr == MPI_SUCCESS)
        *ierr = aint_out(lb + ext, displacement);
}

void mpi_get_address_(const void *location, MPI_Aint *address, MPI_Fint *ierr)
{
    *ierr = MPI_Get_address(mf_buf(location), address);
}

/* MPI-1 MPI_ADDRESS: only meaningful when the address fits in an INTEGER. */
void mpi_address_(const void *location, MPI_Fint *address, MPI_Fint *ierr)
{
    MPI_Aint a = 0;
    *ierr = MPI_Get_address(mf_buf(location), &a);
    if (*ierr == MPI_SUCCESS)
        *ierr = aint_out(a, address);
}

void mpi_type_get_envelope_(MPI_Fint *datatype, MPI_Fint *num_integers, MPI_Fint *num_addresses,
                            MPI_Fint *num_datatypes, MPI_Fint *combiner, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_envelope(*datatype, num_integers, num_addresses, num_datatypes, combiner);
}

/* MPI_Datatype is MPI_Fint: the datatype array passes as it is */
void mpi_type_get_contents_(MPI_Fint *datatype, MPI_Fint *max_integers, MPI_Fint *max_addresses,
                            MPI_Fint *max_datatypes, MPI_Fint *array_of_integers,
                            MPI_Aint *array_of_addresses, MPI_Fint *array_of_datatypes, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_contents(*datatype, *max_integers, *max_addresses, *max_datatypes, array_of_integers,
                                  array_of_addresses, array_of_datatypes);
}

void mpi_type_match_size_(MPI_Fint *typeclass, MPI_Fint *size, MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_match_size(*typeclass, *size, &t);
    *datatype = t;
}

void mpi_type_create_f90_integer_(MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_f90_integer(*r, &t);
    *newtype = t;
}

void mpi_type_create_f90_real_(MPI_Fint *p, MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_f90_real(*p, *r, &t);
    *newtype = t;
}

void mpi_type_create_f90_complex_(MPI_Fint *p, MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_create_f90_complex(*p, *r, &t);
    *newtype = t;
}

void mpi_type_set_name_(MPI_Fint *datatype, const char *name, MPI_Fint *ierr, size_t name_len)
{
    char *s = mf_cstring(name, name_len);
    *ierr = s ? MPI_Type_set_name(*datatype, s) : MPI_ERR_NO_MEM;
    free(s);
}

void mpi_type_get_name_(MPI_Fint *datatype, char *name, MPI_Fint *resultlen, MPI_Fint *ierr, size_t name_len)
{
    char buf[MPI_MAX_OBJECT_NAME + 1];
    int len = 0;
    *ierr = MPI_Type_get_name(*datatype, buf, &len);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_OBJECT_NAME] = '\0';
    *resultlen = mf_fstring(buf, name, name_len);
}

/* ---- pack / unpack ---- */

void mpi_pack_(const void *inbuf, MPI_Fint *incount, MPI_Fint *datatype, void *outbuf, MPI_Fint *outsize,
               MPI_Fint *position, MPI_Fint *comm, MPI_Fint *ierr)
{
    int pos = *position;
    *ierr = MPI_Pack(mf_buf(inbuf), *incount, *datatype, outbuf, *outsize, &pos, *comm);
    *position = pos;
}

void mpi_unpack_(const void *inbuf, MPI_Fint *insize, MPI_Fint *position, void *outbuf, MPI_Fint *outcount,
                 MPI_Fint *datatype, MPI_Fint *comm, MPI_Fint *ierr)
{
    int pos = *position;
    *ierr = MPI_Unpack(inbuf, *insize, &pos, mf_buf(outbuf), *outcount, *datatype, *comm);
    *position = pos;
}

void mpi_pack_size_(MPI_Fint *incount, MPI_Fint *datatype, MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr)
{
    int s = 0;
    *ierr = MPI_Pack_size(*incount, *datatype, *comm, &s);
    *size = s;
}

/* ---- MPI_SIZEOF (the generic of mpi_mod.f90: one specific procedure per
 * intrinsic type and kind; X, an assumed-rank array descriptor, is not
 * looked at) ---- */

void mpi_sizeof_integer1_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 1;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_integer2_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 2;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_integer4_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 4;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_integer8_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 8;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_integer16_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 16;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_real4_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 4;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_real8_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 8;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_real16_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 16;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_complex4_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 8;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_complex8_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 16;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_complex16_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 32;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_logical1_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 1;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_logical2_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 2;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_logical4_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 4;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

void mpi_sizeof_logical8_(const void *x, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)x;
    *size = 8;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

/* a CHARACTER's size is its length (its hidden length argument) */
void mpi_sizeof_character_(const void *x, MPI_Fint *size, MPI_Fint *ierr, size_t x_len)
{
    (void)x;
    *size = (MPI_Fint)x_len;
    if (ierr) /* (OPTIONAL in the mpi and mpi_f08 modules) */
        *ierr = MPI_SUCCESS;
}

/* ---- external32 pack / unpack: DATAREP is a CHARACTER, sizes and
 * positions INTEGER(KIND=MPI_ADDRESS_KIND) ---- */

void mpi_pack_external_(const char *datarep, const void *inbuf, MPI_Fint *incount, MPI_Fint *datatype,
                        void *outbuf, MPI_Aint *outsize, MPI_Aint *position, MPI_Fint *ierr,
                        size_t datarep_len)
{
    char *d = mf_cstring(datarep, datarep_len);
    *ierr = d ? MPI_Pack_external(d, mf_buf(inbuf), *incount, *datatype, outbuf, *outsize, position)
              : MPI_ERR_NO_MEM;
    free(d);
}

void mpi_unpack_external_(const char *datarep, const void *inbuf, MPI_Aint *insize, MPI_Aint *position,
                          void *outbuf, MPI_Fint *outcount, MPI_Fint *datatype, MPI_Fint *ierr,
                          size_t datarep_len)
{
    char *d = mf_cstring(datarep, datarep_len);
    *ierr = d ? MPI_Unpack_external(d, inbuf, *insize, position, mf_buf(outbuf), *outcount, *datatype)
              : MPI_ERR_NO_MEM;
    free(d);
}

void mpi_pack_external_size_(const char *datarep, MPI_Fint *incount, MPI_Fint *datatype, MPI_Aint *size,
                             MPI_Fint *ierr, size_t datarep_len)
{
    char *d = mf_cstring(datarep, datarep_len);
    *ierr = d ? MPI_Pack_external_size(d, *incount, *datatype, size) : MPI_ERR_NO_MEM;
    free(d);
}
