#include "status.h"

const char *ut_status_str(ut_status_t s)
{
    switch (s) {
    case UT_OK: return "success";
    case UT_INPROGRESS: return "in progress";
    case UT_ERR_NO_RESOURCE: return "no resource (retry)";
    case UT_ERR_NO_MEMORY: return "out of memory";
    case UT_ERR_INVALID_PARAM: return "invalid parameter";
    case UT_ERR_TRUNCATED: return "message truncated";
    case UT_ERR_UNREACHABLE: return "peer unreachable";
    case UT_ERR_IO: return "I/O error";
    case UT_ERR_CANCELED: return "canceled";
    case UT_ERR_PROTO: return "protocol error (malformed message)";
    case UT_ERR_UNSUPPORTED: return "unsupported";
    case UT_ERR_TIMEOUT: return "timed out";
    case UT_ERR_PERM: return "permission denied";
    }
    return "unknown status";
}
