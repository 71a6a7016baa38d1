/* util/status.h: the one status code returned by every internal function.
 * MPI error classes exist only at the mpi/ boundary; -FI_E* codes become a
 * status in exactly one function (transport/ofi.c: ofi_status()). */
#ifndef UT_STATUS_H
#define UT_STATUS_H

typedef enum ut_status {
    UT_OK = 0,
    UT_INPROGRESS = 1,           /* started, completes later */
    UT_ERR_NO_RESOURCE = -1,     /* retry after progress */
    UT_ERR_NO_MEMORY = -2,
    UT_ERR_INVALID_PARAM = -3,
    UT_ERR_TRUNCATED = -4,
    UT_ERR_UNREACHABLE = -5,
    UT_ERR_IO = -6,
    UT_ERR_CANCELED = -7,
    UT_ERR_PROTO = -8,           /* malformed or unexpected bytes from a peer */
    UT_ERR_UNSUPPORTED = -9,
    UT_ERR_TIMEOUT = -10,
    UT_ERR_PERM = -11,           /* refused: wrong key, secret or bounds */
} ut_status_t;

const char *ut_status_str(ut_status_t s);

#endif
