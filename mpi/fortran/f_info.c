/*
 * mpi/fortran/f_info.c: Fortran 77 bindings of info objects (MPI 4.0 10).
 * Keys and values are CHARACTER arguments: leading and trailing blanks are
 * stripped on input (as the standard asks of Fortran), and outputs are
 * blank-padded to the CHARACTER's length. Lengths (VALUELEN, BUFLEN) count
 * characters without the C terminating NUL.
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

/* A key or value as a C string without leading or trailing blanks,
 * malloc'd (NULL: out of memory). */
static char *info_cstring(const char *f, size_t flen)
{
    while (flen > 0 && *f == ' ') {
        f++;
        flen--;
    }
    return mf_cstring(f, flen);
}

/* The value of key (a C string) in info, at most maxlen characters, as a
 * malloc'd C string in *value_p; *flag_p is 0 (and *value_p NULL) when key
 * is not set, *len_p the value's full length. */
static int info_value(MPI_Info info, const char *key, int maxlen, char **value_p, int *len_p, int *flag_p)
{
    int len = 0, f = 0, rc;
    char *v;

    *value_p = NULL;
    *flag_p = 0;
    rc = MPI_Info_get_valuelen(info, key, &len, &f);
    if (rc != MPI_SUCCESS || !f)
        return rc;
    if (maxlen > len)
        maxlen = len;
    if (maxlen < 0)
        maxlen = 0;
    v = malloc((size_t)maxlen + 1);
    if (!v)
        return MPI_ERR_NO_MEM;
    rc = MPI_Info_get(info, key, maxlen, v, &f);
    if (rc != MPI_SUCCESS || !f) {
        free(v);
        return rc;
    }
    *value_p = v;
    *len_p = len;
    *flag_p = 1;
    return MPI_SUCCESS;
}

void mpi_info_create_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Info_create(&i);
    *info = i;
}

/* Fortran has no argc / argv to pass (MPI 4.0 11.4) */
void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Info_create_env(0, NULL, &i);
    *info = i;
}

void mpi_info_set_(MPI_Fint *info, const char *key, const char *value, MPI_Fint *ierr, size_t key_len,
                   size_t value_len)
{
    char *k = info_cstring(key, key_len), *v = info_cstring(value, value_len);
    if (!k || !v)
        *ierr = MPI_ERR_NO_MEM;
    else
        *ierr = MPI_Info_set(*info, k, v);
    free(k);
    free(v);
}

void mpi_info_delete_(MPI_Fint *info, const char *key, MPI_Fint *ierr, size_t key_len)
{
    char *k = info_cstring(key, key_len);
    *ierr = k ? MPI_Info_delete(*info, k) : MPI_ERR_NO_MEM;
    free(k);
}

/* VALUE gets at most VALUELEN characters, blank-padded. */
void mpi_info_get_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value, MPI_Fint *flag,
                   MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char *k = info_cstring(key, key_len), *v = NULL;
    int len = 0, f = 0;
    *ierr = k ? info_value(*info, k, *valuelen, &v, &len, &f) : MPI_ERR_NO_MEM;
    free(k);
    if (*ierr != MPI_SUCCESS)
        return;
    *flag = mf_logical(f);
    if (f)
        mf_fstring(v, value, value_len);
    free(v);
}

void mpi_info_get_valuelen_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, MPI_Fint *flag,
                            MPI_Fint *ierr, size_t key_len)
{
    char *k = info_cstring(key, key_len);
    int len = 0, f = 0;
    *ierr = k ? MPI_Info_get_valuelen(*info, k, &len, &f) : MPI_ERR_NO_MEM;
    free(k);
    if (*ierr != MPI_SUCCESS)
        return;
    *flag = mf_logical(f);
    if (f)
        *valuelen = len;
}

/* MPI 4.0: BUFLEN in, the number of characters VALUE may receive (0: VALUE
 * is left alone); out, the value's length. */
void mpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                          MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char *k = info_cstring(key, key_len), *v = NULL;
    int len = 0, f = 0;
    *ierr = k ? info_value(*info, k, *buflen, &v, &len, &f) : MPI_ERR_NO_MEM;
    free(k);
    if (*ierr != MPI_SUCCESS)
        return;
    *flag = mf_logical(f);
    if (f && *buflen > 0)
        mf_fstring(v, value, value_len);
    if (f)
        *buflen = len;
    free(v);
}

void mpi_info_get_nkeys_(MPI_Fint *info, MPI_Fint *nkeys, MPI_Fint *ierr)
{
    *ierr = MPI_Info_get_nkeys(*info, nkeys);
}

/* N counts from 0, as in C */
void mpi_info_get_nthkey_(MPI_Fint *info, MPI_Fint *n, char *key, MPI_Fint *ierr, size_t key_len)
{
    char buf[MPI_MAX_INFO_KEY + 1];
    *ierr = MPI_Info_get_nthkey(*info, *n, buf);
    if (*ierr != MPI_SUCCESS)
        return;
    buf[MPI_MAX_INFO_KEY] = '\0';
    mf_fstring(buf, key, key_len);
}

void mpi_info_dup_(MPI_Fint *info, MPI_Fint *newinfo, MPI_Fint *ierr)
{
    *ierr = MPI_Info_dup(*info, newinfo);
}

void mpi_info_free_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = *info;
    *ierr = MPI_Info_free(&i);
    *info = i;
}
