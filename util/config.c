#include "config.h"

#include "log.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

int ut_cfg_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s)
        return UT_ERR_INVALID_PARAM;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B' || *end == 'i')
        end++;
    if (*end == 'B')
        end++;
    if (*end)
        return UT_ERR_INVALID_PARAM;
    *out = (size_t)v;
    return UT_OK;
}

static int cfg_parse_one(const ut_cfg_entry_t *e, const char *val)
{
    char *end;
    long v;

    switch (e->type) {
    case UT_CFG_INT:
        errno = 0;
        v = strtol(val, &end, 0);
        if (errno || end == val || *end)
            return UT_ERR_INVALID_PARAM;
        *(long *)e->target = v;
        return UT_OK;
    case UT_CFG_BOOL:
        if (!strcmp(val, "1") || !strcasecmp(val, "y") || !strcasecmp(val, "yes") ||
            !strcasecmp(val, "true") || !strcasecmp(val, "on"))
            *(long *)e->target = 1;
        else if (!strcmp(val, "0") || !strcasecmp(val, "n") || !strcasecmp(val, "no") ||
                 !strcasecmp(val, "false") || !strcasecmp(val, "off"))
            *(long *)e->target = 0;
        else
            return UT_ERR_INVALID_PARAM;
        return UT_OK;
    case UT_CFG_SIZE:
        return ut_cfg_parse_size(val, (size_t *)e->target);
    case UT_CFG_STRING:
        *(const char **)e->target = val;
        return UT_OK;
    }
    return UT_ERR_INVALID_PARAM;
}

int ut_cfg_load(const ut_cfg_table_t *t)
{
    char name[128];
    const ut_cfg_entry_t *e;
    const char *val;

    for (e = t->entries; e->name; e++) {
        snprintf(name, sizeof(name), "MBMPI_%s", e->name);
        val = getenv(name);
        if (val && cfg_parse_one(e, val) == UT_OK)
            continue;
        if (val)
            ut_warn("%s=%s is not a valid value; using the default %s", name, val, e->deflt);
        if (cfg_parse_one(e, e->deflt) != UT_OK) {
            ut_error("internal: bad default for %s", name);
            return UT_ERR_INVALID_PARAM;
        }
    }
    return UT_OK;
}

void ut_cfg_check_unknown(const ut_cfg_table_t *const *tables, size_t ntables, const char *const *extra)
{
    char **env;
    size_t i;

    for (env = environ; *env; env++) {
        const char *s = *env;
        const char *eq = strchr(s, '=');
        size_t len;
        int known = 0;

        if (strncmp(s, "MBMPI_", 6) || !eq)
            continue;
        len = (size_t)(eq - s) - 6;
        for (i = 0; i < ntables && !known; i++) {
            const ut_cfg_entry_t *e;
            for (e = tables[i]->entries; e->name; e++)
                if (strlen(e->name) == len && !strncmp(e->name, s + 6, len)) {
                    known = 1;
                    break;
                }
        }
        for (i = 0; extra && extra[i] && !known; i++)
            if (strlen(extra[i]) == len + 6 && !strncmp(extra[i], s, len + 6))
                known = 1;
        if (!known)
            ut_warn("unknown setting %.*s (see bin/mbmpi_info)", (int)(len + 6), s);
    }
}

void ut_cfg_print(const ut_cfg_table_t *t, void *file)
{
    const ut_cfg_entry_t *e;
    FILE *f = file;

    fprintf(f, "# %s\n", t->layer);
    for (e = t->entries; e->name; e++)
        fprintf(f, "MBMPI_%-22s default %-10s %s\n", e->name, e->deflt, e->help);
}
