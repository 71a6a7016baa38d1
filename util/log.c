#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ut_log_level = UT_LOG_WARN;
int ut_log_rank = -1;

void ut_log_init(void)
{
    const char *s = getenv("MBMPI_LOG");
    if (!s)
        return;
    if (!strcmp(s, "error"))
        ut_log_level = UT_LOG_ERROR;
    else if (!strcmp(s, "warn"))
        ut_log_level = UT_LOG_WARN;
    else if (!strcmp(s, "info"))
        ut_log_level = UT_LOG_INFO;
    else if (!strcmp(s, "debug"))
        ut_log_level = UT_LOG_DEBUG;
    else
        ut_log_level = atoi(s);
}

void ut_log(int level, const char *fmt, ...)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    char buf[1024];
    int n;
    va_list ap;

    if (level > ut_log_level)
        return;
    if (ut_log_rank >= 0)
        n = snprintf(buf, sizeof(buf), "mbmpi[%d] %s: ", ut_log_rank, names[level & 3]);
    else
        n = snprintf(buf, sizeof(buf), "mbmpi %s: ", names[level & 3]);
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    n = (int)strlen(buf);
    buf[n] = '\n';
    fwrite(buf, 1, (size_t)n + 1, stderr);
}
