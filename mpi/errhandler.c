/*
 * mpi/errhandler.c: error handlers. Every MPI call reports an error through
 * mpii_err(): under MPI_ERRORS_RETURN the error class comes back to the
 * caller; under MPI_ERRORS_ARE_FATAL (the default) the job ends with a
 * message naming the call and the problem.
 */
#include "mpi/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int mpii_err(mpii_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    char msg[512];
    va_list ap;
    int n;

    if (!comm && mpii_is_initialized())
        comm = mpii_comm_get(MPI_COMM_WORLD);
    if (comm)
        eh = comm->errhandler;
    if (eh == MPI_ERRORS_RETURN)
        return errclass;

    n = snprintf(msg, sizeof(msg), "%s: ", fn);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "mbmpi: rank %d: %s (%s); aborting the job (MPI_ERRORS_ARE_FATAL)\n", mpii_g.rank, msg,
            mpii_error_class_string(errclass));
    if (mpii_g.boot)
        boot_abort(mpii_g.boot, errclass ? errclass : 1, msg);
    _exit(errclass ? errclass : 1);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_set_errhandler");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "invalid communicator");
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "invalid error handler %d", errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_get_errhandler");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_errhandler", "invalid communicator");
    if (!errhandler)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "errhandler is NULL");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPII_CHECK_INIT("MPI_Errhandler_free");
    if (!errhandler || (*errhandler != MPI_ERRORS_ARE_FATAL && *errhandler != MPI_ERRORS_RETURN))
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler");
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
