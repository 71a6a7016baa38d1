/*
 * mpi/errstr.c: error strings and classes.
 *
 * Every predefined error code is an error class. MPI_Add_error_class and
 * MPI_Add_error_code (MPI 3.1 8.5) make new ones above MPI_ERR_LASTCODE from
 * one counter, so classes and codes never collide; MPI_Add_error_string
 * names them. MPI_Error_string and MPI_Error_class may be called before
 * MPI_Init and after MPI_Finalize; an invalid code is reported through the
 * error handler when MPI is initialized, and returns MPI_ERR_ARG otherwise.
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */

#include "mpi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_strings[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no errors",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag argument",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid communicator topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument of some other kind",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute keyval",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key (too long or empty)",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value (too long)",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: info key not defined in the info object",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error spawning processes",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name (not published)",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size argument",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement argument",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert argument",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory is not part of the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor for the call",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: error related to the amode passed to MPI_File_open",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file operation could not be completed, the file is in use",
    [MPI_ERR_DUP_DATAREP] =
        "MPI_ERR_DUP_DATAREP: conversion functions already registered for this data representation",
    [MPI_ERR_CONVERSION] =
        "MPI_ERR_CONVERSION: an error occurred in a user-supplied data conversion function",
    [MPI_ERR_IO] = "MPI_ERR_IO: other I/O error",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session handle",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: operation failed because a peer process has aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large to store",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: index invalid or out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: item index out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started "
                                    "or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] =
        "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and "
                                 "written atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category of that name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tool interface",
    [MPI_ERR_LASTCODE] = "MPI_ERR_LASTCODE: last error code",
};

#define NCLASSES ((int)(sizeof class_strings / sizeof class_strings[0]))

/* User error classes and codes: code MPI_ERR_LASTCODE + 1 + i is user[i]. */
typedef struct user_code {
    int errclass; /* itself for a class */
    char *string; /* MPI_Add_error_string, NULL: none yet */
} user_code_t;

static user_code_t *user;
static int nuser;

static user_code_t *user_get(int code);

/* A predefined class's string, or a user class's or code's own
 * (MPI_Add_error_string) */
const char *mpii_error_class_string(int errclass)
{
    if (errclass >= 0 && errclass < NCLASSES && class_strings[errclass])
        return class_strings[errclass];
    user_code_t *u = user_get(errclass);
    if (u)
        return u->string ? u->string : "an error class or code added by the program";
    return "unknown error class";
}

static user_code_t *user_get(int code)
{
    if (code <= MPI_ERR_LASTCODE || code > MPI_ERR_LASTCODE + nuser)
        return NULL;
    return &user[code - MPI_ERR_LASTCODE - 1];
}

int mpii_err_lastused(void)
{
    return MPI_ERR_LASTCODE + nuser;
}

static int valid_code(int code)
{
    return (code >= 0 && code < NCLASSES && class_strings[code]) || user_get(code);
}

static int user_add(int errclass, int *code_p)
{
    user_code_t *t = realloc(user, (size_t)(nuser + 1) * sizeof(*t));
    int code = MPI_ERR_LASTCODE + 1 + nuser;

    if (!t)
        return MPI_ERR_NO_MEM;
    user = t;
    user[nuser].errclass = errclass < 0 ? code : errclass;
    user[nuser].string = NULL;
    nuser++;
    *code_p = code;
    return MPI_SUCCESS;
}

int MPI_Add_error_class(int *errorclass)
{
    static const char fn[] = "MPI_Add_error_class";
    int rc;

    MPII_CHECK_INIT(fn);
    if (!errorclass)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "errorclass is NULL");
    rc = user_add(-1, errorclass);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char fn[] = "MPI_Add_error_code";
    user_code_t *u = user_get(errorclass);
    int rc;

    MPII_CHECK_INIT(fn);
    if (!errorcode)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "errorcode is NULL");
    /* the class must be a predefined class or one of MPI_Add_error_class */
    if (!((errorclass >= 0 && errorclass < NCLASSES && class_strings[errorclass]) ||
          (u && u->errclass == errorclass)))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "%d is not an error class", errorclass);
    rc = user_add(errorclass, errorcode);
    if (rc != MPI_SUCCESS)
        return mpii_err(NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Add_error_string(int errorcode, const char *string)
{
    static const char fn[] = "MPI_Add_error_string";
    user_code_t *u = user_get(errorcode);
    char *copy;

    MPII_CHECK_INIT(fn);
    if (!string)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "string is NULL");
    if (!u)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "%d is not a user-defined error code or class", errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "string is longer than MPI_MAX_ERROR_STRING - 1");
    copy = strdup(string);
    if (!copy)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}

static int bad_code(const char *fn, int code)
{
    if (mpii_is_initialized())
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid error code %d", code);
    return MPI_ERR_ARG;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char fn[] = "MPI_Error_string";
    user_code_t *u = user_get(errorcode);
    int n;
    if (!string || !resultlen) {
        if (mpii_is_initialized())
            return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", !string ? "string" : "resultlen");
        return MPI_ERR_ARG;
    }
    if (u)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->string ? u->string : "");
    else if (valid_code(errorcode))
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_strings[errorcode]);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    if (n < 0) {
        string[0] = '\0';
        n = 0;
    }
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return valid_code(errorcode) ? MPI_SUCCESS : bad_code(fn, errorcode);
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    static const char fn[] = "MPI_Error_class";
    if (!errorclass) {
        if (mpii_is_initialized())
            return mpii_err(NULL, MPI_ERR_ARG, fn, "errorclass is NULL");
        return MPI_ERR_ARG;
    }
    if (!valid_code(errorcode))
        return bad_code(fn, errorcode);
    *errorclass = user_get(errorcode) ? user_get(errorcode)->errclass : errorcode;
    return MPI_SUCCESS;
}
