/* util/config.h: one table of MBMPI_* variables per layer (name, default,
 * help, type, target). Each layer registers its table; unknown MBMPI_* names
 * in the environment warn; bin/mbmpi_info prints every table. */
#ifndef UT_CONFIG_H
#define UT_CONFIG_H

#include <stddef.h>

typedef enum { UT_CFG_INT, UT_CFG_SIZE, UT_CFG_STRING, UT_CFG_BOOL } ut_cfg_type_t;

typedef struct ut_cfg_entry {
    const char *name;      /* without the MBMPI_ prefix */
    const char *deflt;     /* default as a string ("auto" allowed for strings) */
    const char *help;
    ut_cfg_type_t type;
    void *target;          /* long * for INT/BOOL, size_t * for SIZE, const char ** for STRING */
} ut_cfg_entry_t;

typedef struct ut_cfg_table {
    const char *layer;
    ut_cfg_entry_t *entries; /* terminated by an entry with name == NULL */
} ut_cfg_table_t;

/* Parse every entry of the table from the environment (or the default).
 * Returns UT_OK or UT_ERR_INVALID_PARAM (bad value, logged). */
int ut_cfg_load(const ut_cfg_table_t *t);
/* Warn about MBMPI_* variables that no registered table knows. */
void ut_cfg_check_unknown(const ut_cfg_table_t *const *tables, size_t ntables, const char *const *extra);
void ut_cfg_print(const ut_cfg_table_t *t, void *file);
int ut_cfg_parse_size(const char *s, size_t *out);

#endif
