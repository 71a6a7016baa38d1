/*
 * mpi/fortran/f_dynamic.c: Fortran bindings of the process-model calls of
 * mpi/dynamic.c (ports, names, MPI_Comm_join, MPI_Comm_spawn) and of
 * MPI_Register_datarep (mpi/io.c).
 *
 * Port and service names are CHARACTER (hidden lengths last); a port name
 * written back is blank-padded. MPI_Comm_spawn's ARGV is a CHARACTER array
 * ended by a blank element (MPI 3.1 10.3.2). A data representation's extent
 * function is a Fortran subroutine (DATATYPE, EXTENT, EXTRA_STATE, IERROR):
 * the C library calls a trampoline with the subroutine and its INTEGER
 * (KIND=MPI_ADDRESS_KIND) extra state as its extra_state; conversion
 * functions other than MPI_CONVERSION_FN_NULL make the representation one
 * no view can use, as in C (mbmpi converts nothing).
 */
#include "mpi/fortran/fortran.h"

#include <stdlib.h>

/* the sentinels MPI_ERRCODES_IGNORE and MPI_ARGV_NULL of mpif.h (fortran.h) */
_Alignas(64) MPI_Fint mbmpi_ferrcodes_[1];
_Alignas(64) char mbmpi_fargvnull_[1];

/* ---- ports and names ---- */

void mpi_open_port_(MPI_Fint *info, char *port_name, MPI_Fint *ierr, size_t port_name_len)
{
    char port[MPI_MAX_PORT_NAME];
    *ierr = MPI_Open_port(*info, port);
    if (*ierr == MPI_SUCCESS)
        mf_fstring(port, port_name, port_name_len);
}

void mpi_close_port_(const char *port_name, MPI_Fint *ierr, size_t port_name_len)
{
    char *s = mf_cstring(port_name, port_name_len);
    *ierr = s ? MPI_Close_port(s) : MPI_ERR_NO_MEM;
    free(s);
}

/* The port name matters at the root only; elsewhere a blank one is passed on. */
static void accept_connect(int connect, const char *port_name, MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                           MPI_Fint *newcomm, MPI_Fint *ierr, size_t port_name_len)
{
    char *s = mf_cstring(port_name, port_name_len);
    MPI_Comm c = MPI_COMM_NULL;
    if (!s) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    *ierr =
        connect ? MPI_Comm_connect(s, *info, *root, *comm, &c) : MPI_Comm_accept(s, *info, *root, *comm, &c);
    free(s);
    if (*ierr == MPI_SUCCESS)
        *newcomm = c;
}

void mpi_comm_accept_(const char *port_name, MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                      MPI_Fint *newcomm, MPI_Fint *ierr, size_t port_name_len)
{
    accept_connect(0, port_name, info, root, comm, newcomm, ierr, port_name_len);
}

void mpi_comm_connect_(const char *port_name, MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                       MPI_Fint *newcomm, MPI_Fint *ierr, size_t port_name_len)
{
    accept_connect(1, port_name, info, root, comm, newcomm, ierr, port_name_len);
}

void mpi_comm_join_(MPI_Fint *fd, MPI_Fint *intercomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Comm_join(*fd, &c);
    if (*ierr == MPI_SUCCESS)
        *intercomm = c;
}

/* which: 0 publish, 1 unpublish */
static void name_call(int which, const char *service_name, MPI_Fint *info, const char *port_name,
                      MPI_Fint *ierr, size_t service_name_len, size_t port_name_len)
{
    char *sv = mf_cstring(service_name, service_name_len), *pt = mf_cstring(port_name, port_name_len);
    if (sv && pt)
        *ierr = which ? MPI_Unpublish_name(sv, *info, pt) : MPI_Publish_name(sv, *info, pt);
    else
        *ierr = MPI_ERR_NO_MEM;
    free(sv);
    free(pt);
}

void mpi_publish_name_(const char *service_name, MPI_Fint *info, const char *port_name, MPI_Fint *ierr,
                       size_t service_name_len, size_t port_name_len)
{
    name_call(0, service_name, info, port_name, ierr, service_name_len, port_name_len);
}

void mpi_unpublish_name_(const char *service_name, MPI_Fint *info, const char *port_name, MPI_Fint *ierr,
                         size_t service_name_len, size_t port_name_len)
{
    name_call(1, service_name, info, port_name, ierr, service_name_len, port_name_len);
}

void mpi_lookup_name_(const char *service_name, MPI_Fint *info, char *port_name, MPI_Fint *ierr,
                      size_t service_name_len, size_t port_name_len)
{
    char *sv = mf_cstring(service_name, service_name_len), port[MPI_MAX_PORT_NAME];
    *ierr = sv ? MPI_Lookup_name(sv, *info, port) : MPI_ERR_NO_MEM;
    free(sv);
    if (*ierr == MPI_SUCCESS)
        mf_fstring(port, port_name, port_name_len);
}

/* ---- MPI_Comm_spawn ---- */

void mpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                     MPI_Fint *ierr, size_t command_len, size_t argv_len)
{
    char *cmd = mf_cstring(command, command_len), **av = NULL;
    size_t n = 0, i;
    MPI_Comm c = MPI_COMM_NULL;

    /* ARGV: elements of argv_len characters up to the first blank one */
    while (argv != mbmpi_fargvnull_ && argv_len > 0) {
        char *e = mf_cstring(argv + n * argv_len, argv_len);
        int blank = e && !*e;
        free(e);
        if (!e || blank)
            break;
        n++;
    }
    av = calloc(n + 1, sizeof *av);
    for (i = 0; av && i < n; i++)
        if (!(av[i] = mf_cstring(argv + i * argv_len, argv_len)))
            break;
    if (cmd && av && i == n)
        *ierr =
            MPI_Comm_spawn(cmd, n ? av : MPI_ARGV_NULL, *maxprocs, *info, *root, *comm, &c,
                           array_of_errcodes == mbmpi_ferrcodes_ ? MPI_ERRCODES_IGNORE : array_of_errcodes);
    else
        *ierr = MPI_ERR_NO_MEM;
    for (i = 0; av && i < n; i++)
        free(av[i]);
    free(av);
    free(cmd);
    *intercomm = c;
}

/* ---- MPI_Register_datarep ---- */

typedef void(fextent_fn)(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra_state, MPI_Fint *ierr);

/* A registration lasts until MPI_Finalize, as the representation does. */
typedef struct {
    fextent_fn *fn;
    MPI_Aint extra;
} fextent_t;

static int extent_tramp(MPI_Datatype dt, MPI_Aint *extent, void *extra_state)
{
    fextent_t *x = extra_state;
    MPI_Fint d = dt, ierr = MPI_SUCCESS;
    x->fn(&d, extent, &x->extra, &ierr);
    return ierr;
}

typedef void(fconv_fn)(void); /* a Fortran conversion subroutine, never called */

/* MPI_CONVERSION_FN_NULL of mpif.h: an EXTERNAL never called, recognised by address. */
void mpi_conversion_fn_null_(void) {}

/* What a Fortran conversion function is registered as: mbmpi converts
 * nothing, so a view with such a representation is refused (mpi/io.c) and
 * this is never called. */
static int conversion_refused(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                              MPI_Offset position, void *extra_state)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
    return MPI_ERR_CONVERSION;
}

void mpi_register_datarep_(const char *datarep, fconv_fn *read_conversion_fn, fconv_fn *write_conversion_fn,
                           fextent_fn *dtype_file_extent_fn, MPI_Aint *extra_state, MPI_Fint *ierr,
                           size_t datarep_len)
{
    char *s = mf_cstring(datarep, datarep_len);
    fextent_t *x = malloc(sizeof *x);
    if (!s || !x) {
        *ierr = MPI_ERR_NO_MEM;
    } else {
        x->fn = dtype_file_extent_fn;
        x->extra = *extra_state;
        *ierr = MPI_Register_datarep(
            s, read_conversion_fn == mpi_conversion_fn_null_ ? NULL : conversion_refused,
            write_conversion_fn == mpi_conversion_fn_null_ ? NULL : conversion_refused, extent_tramp, x);
        if (*ierr == MPI_SUCCESS)
            x = NULL; /* kept by the representation */
    }
    free(x);
    free(s);
}
