/*
 * mpi/mpit.c: the MPI tool information interface (MPI 3.1 section 14.3).
 *
 * Control variables are the MBMPI_* settings of mpii_cfg_table, under their
 * environment names: integers and booleans as MPI_INT, sizes as
 * MPI_UNSIGNED_LONG_LONG, strings as MPI_CHAR (a buffer of CVAR_STRLEN).
 * MPI_Init reads them once, so they are read-only (MPI_T_SCOPE_READONLY;
 * a write is MPI_T_ERR_CVAR_SET_NEVER). Before MPI_Init they read what the
 * environment says (the table is loaded by MPI_T_init_thread).
 *
 * Performance variables are the protocol counters of MPIX_Stat_get, class
 * MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG, continuous and
 * read-only. A handle reads the counter minus its value when the handle was
 * allocated or last reset (MPI 3.1 14.3.7: a counter starts at 0 for its
 * handle); outside MPI_Init .. MPI_Finalize the counters read as their
 * last value (0 before MPI_Init).
 *
 * Categories: "mbmpi_settings" (every cvar) and "mbmpi_protocol" (every
 * pvar). No enumerations, no variables bound to MPI objects.
 *
 * These calls return their error codes and never call an error handler
 * (MPI 3.1 14.3.9). Strings follow 14.3.3: NULL or a zero length returns
 * only the length the string needs (with its terminating NUL); otherwise
 * at most *len - 1 characters and a NUL are written, and *len says how
 * many (with the NUL).
 */
#include "mpi/core.h"
#include "mpi/mpi3.h"
#include "util/config.h"
#include "util/status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CVAR_STRLEN 256

struct mpii_t_cvar_handle {
    int index;
};

struct mpii_t_pvar_handle {
    struct mpii_t_pvar_session *session;
    int index;
    unsigned long long base; /* the counter's value at alloc / reset */
    struct mpii_t_pvar_handle *next;
};

struct mpii_t_pvar_session {
    struct mpii_t_pvar_handle *handles;
};

static int t_refs; /* MPI_T_init_thread calls not yet finalized */

/* the counters (MPIX_Stat_get names) */
static const struct {
    const char *name, *desc;
} pvars[] = {
    {"eager_msgs", "messages sent through the eager FIFO protocol"},
    {"eager_bytes", "bytes sent through the eager FIFO protocol"},
    {"write_msgs", "messages received through the write protocol (the sender wrote into the posted buffer)"},
    {"write_bytes", "bytes received through the write protocol"},
    {"rts_msgs", "messages sent by rendezvous (RTS)"},
    {"rts_bytes", "bytes sent by rendezvous (RTS)"},
    {"self_msgs", "messages this rank sent to itself"},
    {"req_sent", "write-protocol REQs sent (receive posted before its send)"},
    {"req_used", "REQs the sender used to write the payload"},
    {"req_dropped", "REQs dropped by the sender (the message had gone through the FIFO: a conflict)"},
    {"req_killed", "REQs withdrawn by the receiver"},
    {"unexpected_msgs", "messages that arrived before their receive"},
    {"unexpected_bytes", "bytes of messages that arrived before their receive"},
    {"rejected", "malformed messages from the network rejected"},
    {"cancel_sent", "send cancellations sent"},
    {"rts_reads", "rendezvous messages this rank read from their senders"},
    {"shm_pulled", "pieces of peers' writes this rank read itself over mbshm"},
    {"shm_single_copies", "writes this rank made with process_vm_writev"},
    {"shm_recycled", "restarts of this rank's outgoing mbshm rings at their start"},
    {"shm_ring_writes", "writes this rank pushed through an mbshm ring"},
};
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))
static unsigned long long pvar_last[NPVARS]; /* the last value read while MPI ran */

static const struct {
    const char *name, *desc;
} cats[] = {
    {"mbmpi_settings", "the MBMPI_* settings (environment variables read at MPI_Init)"},
    {"mbmpi_protocol", "protocol counters of this rank"},
};
#define NCATS 2

static const ut_cfg_entry_t *cvar_entry(int i)
{
    return &mpii_cfg_table.entries[i];
}

static int ncvars(void)
{
    int n = 0;
    while (mpii_cfg_table.entries[n].name)
        n++;
    return n;
}

/* the string convention of MPI 3.1 14.3.3 */
static void t_string(char *dst, int *len, const char *src)
{
    size_t n = strlen(src);
    if (!len)
        return;
    if (!dst || *len <= 0) {
        *len = (int)n + 1;
        return;
    }
    if (n > (size_t)*len - 1)
        n = (size_t)*len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    *len = (int)n + 1;
}

#define T_CHECK_INIT()                                                                                       \
    do {                                                                                                     \
        if (t_refs <= 0)                                                                                     \
            return MPI_T_ERR_NOT_INITIALIZED;                                                                \
    } while (0)

/* the *_get_num calls */
static int t_num(int *out, int n)
{
    T_CHECK_INIT();
    if (!out)
        return MPI_T_ERR_INVALID;
    *out = n;
    return MPI_SUCCESS;
}

int MPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    /* before MPI_Init, the settings as the environment has them */
    if (t_refs == 0 && !mpii_g.initialized && ut_cfg_load(&mpii_cfg_table) != UT_OK)
        return MPI_T_ERR_CANNOT_INIT;
    t_refs++;
    /* the lock of MPI_THREAD_MULTIPLE covers these calls too */
    *provided = required < MPI_THREAD_SINGLE                      ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_SERIALIZED && !mpii_mt_on ? MPI_THREAD_SERIALIZED
                : required > MPI_THREAD_MULTIPLE                  ? MPI_THREAD_MULTIPLE
                                                                  : required;
    return MPI_SUCCESS;
}

int MPI_T_finalize(void)
{
    T_CHECK_INIT();
    t_refs--;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ enums */

int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype;
    (void)num;
    (void)name;
    (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE; /* there are none */
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    (void)enumtype;
    (void)index;
    (void)value;
    (void)name;
    (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE;
}

/* ------------------------------------------------------------ cvars */

static MPI_Datatype cvar_type(const ut_cfg_entry_t *e, int *count)
{
    *count = 1;
    switch (e->type) {
    case UT_CFG_SIZE:
        return MPI_UNSIGNED_LONG_LONG;
    case UT_CFG_STRING:
        *count = CVAR_STRLEN;
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

int MPI_T_cvar_get_num(int *num_cvar)
{
    return t_num(num_cvar, ncvars());
}

int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                        MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    const ut_cfg_entry_t *e;
    char full[128];
    int count;

    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= ncvars())
        return MPI_T_ERR_INVALID_INDEX;
    e = cvar_entry(cvar_index);
    snprintf(full, sizeof full, "MBMPI_%s", e->name);
    t_string(name, name_len, full);
    t_string(desc, desc_len, e->help);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (datatype)
        *datatype = cvar_type(e, &count);
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = MPI_T_SCOPE_READONLY;
    return MPI_SUCCESS;
}

int MPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int n;

    T_CHECK_INIT();
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    n = ncvars();
    if (!strncmp(name, "MBMPI_", 6))
        for (int i = 0; i < n; i++)
            if (!strcmp(name + 6, cvar_entry(i)->name)) {
                *cvar_index = i;
                return MPI_SUCCESS;
            }
    return MPI_T_ERR_INVALID_NAME;
}

int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    MPI_T_cvar_handle h;

    (void)obj_handle; /* MPI_T_BIND_NO_OBJECT: ignored */
    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= ncvars())
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = cvar_index;
    cvar_type(cvar_entry(cvar_index), count);
    *handle = h;
    return MPI_SUCCESS;
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_CHECK_INIT();
    if (!handle || *handle == MPI_T_CVAR_HANDLE_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    const ut_cfg_entry_t *e;

    T_CHECK_INIT();
    if (handle == MPI_T_CVAR_HANDLE_NULL || handle->index < 0 || handle->index >= ncvars())
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    e = cvar_entry(handle->index);
    switch (e->type) {
    case UT_CFG_SIZE: {
        unsigned long long v = *(const size_t *)e->target;
        memcpy(buf, &v, sizeof v);
        break;
    }
    case UT_CFG_STRING: {
        const char *v = *(const char *const *)e->target;
        int len = CVAR_STRLEN;
        t_string(buf, &len, v ? v : "");
        break;
    }
    default: {
        long l = *(const long *)e->target;
        int v = l > INT_MAX ? INT_MAX : l < INT_MIN ? INT_MIN : (int)l;
        memcpy(buf, &v, sizeof v);
        break;
    }
    }
    return MPI_SUCCESS;
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)buf;
    T_CHECK_INIT();
    if (handle == MPI_T_CVAR_HANDLE_NULL || handle->index < 0 || handle->index >= ncvars())
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_CVAR_SET_NEVER; /* read once, at MPI_Init */
}

/* ------------------------------------------------------------ pvars */

static unsigned long long pvar_value(int i)
{
    unsigned long long v;
    if (mpii_is_initialized() && MPIX_Stat_get(pvars[i].name, &v) == MPI_SUCCESS)
        pvar_last[i] = v;
    return pvar_last[i];
}

int MPI_T_pvar_get_num(int *num_pvar)
{
    return t_num(num_pvar, NPVARS);
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                        int *readonly, int *continuous, int *atomic)
{
    T_CHECK_INIT();
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    t_string(name, name_len, pvars[pvar_index].name);
    t_string(desc, desc_len, pvars[pvar_index].desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = MPI_T_PVAR_CLASS_COUNTER;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = 1;
    if (continuous)
        *continuous = 1;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_CHECK_INIT();
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    if (var_class == MPI_T_PVAR_CLASS_COUNTER)
        for (int i = 0; i < NPVARS; i++)
            if (!strcmp(name, pvars[i].name)) {
                *pvar_index = i;
                return MPI_SUCCESS;
            }
    return MPI_T_ERR_INVALID_NAME;
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    T_CHECK_INIT();
    if (!session)
        return MPI_T_ERR_INVALID;
    *session = calloc(1, sizeof **session);
    if (!*session) {
        *session = MPI_T_PVAR_SESSION_NULL;
        return MPI_T_ERR_MEMORY;
    }
    return MPI_SUCCESS;
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    T_CHECK_INIT();
    if (!session || *session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    while ((*session)->handles) {
        MPI_T_pvar_handle h = (*session)->handles;
        (*session)->handles = h->next;
        free(h);
    }
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count)
{
    MPI_T_pvar_handle h;

    (void)obj_handle;
    T_CHECK_INIT();
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->session = session;
    h->index = pvar_index;
    h->base = pvar_value(pvar_index);
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* a handle of session, or NULL */
static MPI_T_pvar_handle pvar_find(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    for (MPI_T_pvar_handle h = session->handles; h; h = h->next)
        if (h == handle)
            return h;
    return NULL;
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    T_CHECK_INIT();
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (!handle || !pvar_find(session, *handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (MPI_T_pvar_handle *p = &session->handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* start, stop: the counters are continuous. MPI_T_PVAR_ALL_HANDLES acts
 * on every handle of the session that can (none): success. */
static int pvar_startstop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_CHECK_INIT();
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    if (!pvar_find(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_PVAR_NO_STARTSTOP;
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(session, handle);
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(session, handle);
}

static int pvar_rw(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_CHECK_INIT();
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES || !pvar_find(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    unsigned long long v;
    int rc = pvar_rw(session, handle);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    v = pvar_value(handle->index) - handle->base;
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = pvar_rw(session, handle);

    (void)buf;
    return rc != MPI_SUCCESS ? rc : MPI_T_ERR_PVAR_NO_WRITE;
}

/* MPI_T_pvar_reset: the read-only counters start again at 0 for the handle
 * (their value stays); MPI_T_PVAR_ALL_HANDLES resets every handle. */
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_CHECK_INIT();
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (MPI_T_pvar_handle h = session->handles; h; h = h->next)
            h->base = pvar_value(h->index);
        return MPI_SUCCESS;
    }
    if (!pvar_find(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    handle->base = pvar_value(handle->index);
    return MPI_SUCCESS;
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    unsigned long long now, v;
    int rc = pvar_rw(session, handle);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    now = pvar_value(handle->index);
    v = now - handle->base;
    handle->base = now;
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ categories */

int MPI_T_category_get_num(int *num_cat)
{
    return t_num(num_cat, NCATS);
}

int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                            int *num_cvars, int *num_pvars, int *num_categories)
{
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    t_string(name, name_len, cats[cat_index].name);
    t_string(desc, desc_len, cats[cat_index].desc);
    if (num_cvars)
        *num_cvars = cat_index == 0 ? ncvars() : 0;
    if (num_pvars)
        *num_pvars = cat_index == 1 ? NPVARS : 0;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

int MPI_T_category_get_index(const char *name, int *cat_index)
{
    T_CHECK_INIT();
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NCATS; i++)
        if (!strcmp(name, cats[i].name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

static int cat_members(int cat_index, int len, int indices[], int which, int n)
{
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    if (cat_index != which)
        return MPI_SUCCESS;
    for (int i = 0; i < len && i < n; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, len, indices, 0, t_refs > 0 ? ncvars() : 0);
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, len, indices, 1, NPVARS);
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, len, indices, -1, 0);
}

int MPI_T_category_changed(int *stamp)
{
    T_CHECK_INIT();
    if (!stamp)
        return MPI_T_ERR_INVALID;
    *stamp = 0; /* the variables and categories never change */
    return MPI_SUCCESS;
}
