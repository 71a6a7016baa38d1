/*
 * mpi/errhandler.c: error handlers. Every MPI call reports an error through
 * mpii_err(): under MPI_ERRORS_RETURN the error class comes back to the
 * caller; under MPI_ERRORS_ARE_FATAL (the default) the job ends with a
 * message naming the call and the problem; a user handler
 * (MPI_Comm_create_errhandler) is called with the communicator and the
 * error class, and the class comes back to the caller when it returns.
 * MPI_Comm_call_errhandler invokes a communicator's handler for any code.
 */
#include "mpi/mpi3.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* User error handlers: handle MPII_EH_FIRST + i is ehs[i]. They are never
 * reused, so a communicator keeps its handler after MPI_Errhandler_free
 * (MPI 3.1 8.3.4: freeing only drops the user's reference). Each create and
 * each MPI_Comm_get_errhandler gives the user a reference to free. */
#define MPII_EH_FIRST 4
/* What a user handler was made for (MPI_Comm/Win/File/Session_create_
 * errhandler): it is called with that object's handle, so it may be given
 * to objects of that kind only (MPI 4.0 9.3). */
enum { EH_COMM, EH_WIN, EH_FILE, EH_SESSION };
static const char *const eh_kind_name[] = {"communicator", "window", "file", "session"};

typedef struct eh_user {
    MPI_Comm_errhandler_function *fn;
    int refs; /* the user's references */
    int kind; /* EH_COMM ... */
} eh_user_t;

static eh_user_t *ehs;
static int nehs;

static eh_user_t *eh_user_get(MPI_Errhandler h)
{
    if (h < MPII_EH_FIRST || h >= MPII_EH_FIRST + nehs)
        return NULL;
    return &ehs[h - MPII_EH_FIRST];
}

/* An error handler a communicator may be given. */
static int eh_valid(MPI_Errhandler h)
{
    eh_user_t *u = eh_user_get(h);
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT || (u && u->refs > 0);
}

int mpii_errhandler_valid(MPI_Errhandler h)
{
    return eh_valid(h);
}

/* This process's rank in MPI_COMM_WORLD, also before MPI_Init (mpirun's
 * MBMPI_RANK; 0 for a singleton) */
static int err_rank(void)
{
    const char *e = getenv("MBMPI_RANK");

    return mpii_is_initialized() || !e ? mpii_g.rank : atoi(e);
}

/* End the job for an error raised through the predefined handler eh
 * (MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT: both end every process here) */
__attribute__((noreturn)) static void err_fatal(int errcode, MPI_Errhandler eh, const char *msg)
{
    mpii_flush_output();
    fprintf(stderr, "mbmpi: rank %d: %s (%s); aborting the job (%s)\n", err_rank(), msg,
            mpii_error_class_string(errcode),
            eh == MPI_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
    if (mpii_g.boot)
        boot_abort(mpii_g.boot, errcode ? errcode : 1, msg);
    _exit(errcode ? errcode : 1);
}

/* Raise errclass through handler eh of the object `handle` (a communicator
 * or a window: both handles are ints, and so are the first arguments of
 * their handler functions). */
static int err_raise(MPI_Errhandler eh, int handle, int errclass, const char *fn, const char *fmt, va_list ap)
{
    eh_user_t *u;
    char msg[512];
    int n;

    if (eh == MPI_ERRORS_RETURN)
        return errclass;
    u = eh_user_get(eh);
    if (u) {
        int h = handle;
        int code = errclass;
        u->fn(&h, &code);
        return errclass;
    }

    if (mpii_nbc_name())
        fn = mpii_nbc_name(); /* the blocking call run by MPI_Ixxx: name the I-call */
    n = snprintf(msg, sizeof(msg), "%s: ", fn);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    err_fatal(errclass, eh, msg);
}

int mpii_err(mpii_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int rc;

    if (!comm && mpii_is_initialized())
        comm = mpii_comm_get(MPI_COMM_WORLD);
    va_start(ap, fmt);
    rc = err_raise(comm ? comm->errhandler : MPI_ERRORS_ARE_FATAL, comm ? comm->handle : MPI_COMM_NULL,
                   errclass, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int mpii_err_win(MPI_Errhandler eh, int win, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = err_raise(eh, win, errclass, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    mpii_comm_t *c;
    eh_user_t *u;
    char msg[128];

    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    u = eh_user_get(c->errhandler);
    if (u) {
        MPI_Comm h = comm;
        int code = errorcode;
        u->fn(&h, &code);
    } else if (c->errhandler != MPI_ERRORS_RETURN) {
        snprintf(msg, sizeof(msg), "%s: error code %d raised by the program", fn, errorcode);
        err_fatal(errorcode, c->errhandler, msg);
    }
    /* MPI_SUCCESS: the handler was called (MPI 3.1 8.3.6) */
    return MPI_SUCCESS;
}

static int eh_create(const char *fn, int kind, MPI_Comm_errhandler_function *comm_errhandler_fn,
                     MPI_Errhandler *errhandler)
{
    eh_user_t *t;

    MPII_CHECK_INIT(fn);
    if (!comm_errhandler_fn || !errhandler)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", !errhandler ? "errhandler" : "function");
    t = realloc(ehs, (size_t)(nehs + 1) * sizeof(*t));
    if (!t)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    ehs = t;
    ehs[nehs].fn = comm_errhandler_fn;
    ehs[nehs].refs = 1;
    ehs[nehs].kind = kind;
    *errhandler = MPII_EH_FIRST + nehs++;
    return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Comm_create_errhandler", EH_COMM, comm_errhandler_fn, errhandler);
}

int mpii_session_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return eh_create("MPI_Session_create_errhandler", EH_SESSION, fn, errhandler);
}

/* A user handler made for another kind of object than `kind`: its name, else NULL */
static const char *eh_wrong_kind(MPI_Errhandler h, int kind)
{
    eh_user_t *u = eh_user_get(h);
    return u && u->kind != kind ? eh_kind_name[u->kind] : NULL;
}

int MPI_Errhandler_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return MPI_Comm_get_errhandler(comm, errhandler);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    mpii_comm_t *c;

    MPII_CHECK_INIT("MPI_Comm_set_errhandler");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler", "invalid communicator");
    if (!eh_valid(errhandler))
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "invalid error handler %d", errhandler);
    if (eh_wrong_kind(errhandler, EH_COMM))
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "error handler %d was made for a %s",
                        errhandler, eh_wrong_kind(errhandler, EH_COMM));
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
    if (eh_user_get(c->errhandler))
        eh_user_get(c->errhandler)->refs++; /* a new reference (MPI 3.1 8.3.2) */
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPII_CHECK_INIT("MPI_Errhandler_free");
    if (!errhandler || !eh_valid(*errhandler))
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler");
    if (eh_user_get(*errhandler))
        eh_user_get(*errhandler)->refs--;
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ windows */

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    /* one table: the handler is called with a pointer to the window's handle */
    return eh_create("MPI_Win_create_errhandler", EH_WIN, (MPI_Comm_errhandler_function *)win_errhandler_fn,
                     errhandler);
}

/* Windows and files keep their handler in an MPI_Errhandler of their own;
 * `slot` finds it (NULL: invalid handle of class `bad`, named `what`). */
static int obj_set_eh(MPI_Errhandler *eh, int h, int bad, const char *what, int kind,
                      MPI_Errhandler errhandler, const char *fn)
{
    if (!eh)
        return mpii_err(NULL, bad, fn, "invalid %s %d", what, h);
    if (!eh_valid(errhandler))
        return mpii_err_win(*eh, h, MPI_ERR_ARG, fn, "invalid error handler %d", errhandler);
    if (eh_wrong_kind(errhandler, kind))
        return mpii_err_win(*eh, h, MPI_ERR_ARG, fn, "error handler %d was made for a %s", errhandler,
                            eh_wrong_kind(errhandler, kind));
    *eh = errhandler;
    return MPI_SUCCESS;
}

static int obj_get_eh(MPI_Errhandler *eh, int h, int bad, const char *what, MPI_Errhandler *errhandler,
                      const char *fn)
{
    if (!eh)
        return mpii_err(NULL, bad, fn, "invalid %s %d", what, h);
    if (!errhandler)
        return mpii_err_win(*eh, h, MPI_ERR_ARG, fn, "errhandler is NULL");
    *errhandler = *eh;
    if (eh_user_get(*eh))
        eh_user_get(*eh)->refs++;
    return MPI_SUCCESS;
}

static int obj_call_eh(MPI_Errhandler *eh, int h, int bad, const char *what, int errorcode, const char *fn)
{
    eh_user_t *u;
    char msg[128];

    if (!eh)
        return mpii_err(NULL, bad, fn, "invalid %s %d", what, h);
    u = eh_user_get(*eh);
    if (u) {
        int hh = h;
        int code = errorcode;
        u->fn(&hh, &code);
    } else if (*eh != MPI_ERRORS_RETURN) {
        snprintf(msg, sizeof(msg), "%s: error code %d raised by the program", fn, errorcode);
        err_fatal(errorcode, *eh, msg);
    }
    return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    MPII_CHECK_INIT("MPI_Win_set_errhandler");
    return obj_set_eh(mpii_win_errhandler(win), win, MPI_ERR_WIN, "window", EH_WIN, errhandler,
                      "MPI_Win_set_errhandler");
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    MPII_CHECK_INIT("MPI_Win_get_errhandler");
    return obj_get_eh(mpii_win_errhandler(win), win, MPI_ERR_WIN, "window", errhandler,
                      "MPI_Win_get_errhandler");
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    MPII_CHECK_INIT("MPI_Win_call_errhandler");
    return obj_call_eh(mpii_win_errhandler(win), win, MPI_ERR_WIN, "window", errorcode,
                       "MPI_Win_call_errhandler");
}

/* ------------------------------------------------------------ files */

int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    /* one table: the handler is called with a pointer to the file's handle */
    return eh_create("MPI_File_create_errhandler", EH_FILE,
                     (MPI_Comm_errhandler_function *)file_errhandler_fn, errhandler);
}

/* MPI_FILE_NULL's handler may be set and read before MPI_Init (MPI 3.1 13.7) */
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    return obj_set_eh(mpii_file_errhandler(file), file, MPI_ERR_FILE, "file", EH_FILE, errhandler,
                      "MPI_File_set_errhandler");
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    return obj_get_eh(mpii_file_errhandler(file), file, MPI_ERR_FILE, "file", errhandler,
                      "MPI_File_get_errhandler");
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    MPII_CHECK_INIT("MPI_File_call_errhandler");
    return obj_call_eh(mpii_file_errhandler(fh), fh, MPI_ERR_FILE, "file", errorcode,
                       "MPI_File_call_errhandler");
}

/* ----------------------------------------------------------- sessions */

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    MPII_CHECK_INIT("MPI_Session_set_errhandler");
    return obj_set_eh(mpii_session_errhandler(session), session, MPI_ERR_SESSION, "session", EH_SESSION,
                      errhandler, "MPI_Session_set_errhandler");
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    MPII_CHECK_INIT("MPI_Session_get_errhandler");
    return obj_get_eh(mpii_session_errhandler(session), session, MPI_ERR_SESSION, "session", errhandler,
                      "MPI_Session_get_errhandler");
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    MPII_CHECK_INIT("MPI_Session_call_errhandler");
    return obj_call_eh(mpii_session_errhandler(session), session, MPI_ERR_SESSION, "session", errorcode,
                       "MPI_Session_call_errhandler");
}
