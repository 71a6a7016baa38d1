/* util/log.h: logging. Messages carry the rank once known. */
#ifndef UT_LOG_H
#define UT_LOG_H

#include <stdarg.h>

enum ut_log_level { UT_LOG_ERROR = 0, UT_LOG_WARN = 1, UT_LOG_INFO = 2, UT_LOG_DEBUG = 3 };

extern int ut_log_level;
extern int ut_log_rank; /* -1 until known */

void ut_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ut_log_init(void);

#define ut_error(...) ut_log(UT_LOG_ERROR, __VA_ARGS__)
#define ut_warn(...) ut_log(UT_LOG_WARN, __VA_ARGS__)
#define ut_info(...)                      \
    do {                                  \
        if (ut_log_level >= UT_LOG_INFO)  \
            ut_log(UT_LOG_INFO, __VA_ARGS__); \
    } while (0)
#define ut_debug(...)                      \
    do {                                   \
        if (ut_log_level >= UT_LOG_DEBUG)  \
            ut_log(UT_LOG_DEBUG, __VA_ARGS__); \
    } while (0)

#endif
