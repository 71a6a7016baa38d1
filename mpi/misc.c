/*
 * mpi/misc.c: MPI_Alloc_mem / MPI_Free_mem, MPI_Pcontrol, info objects (a
 * small key-value list; no key changes mbmpi's behaviour) and
 * MPI_Comm_split_type (MPI_COMM_TYPE_SHARED: the ranks on this host),
 * MPI_Status_set_cancelled, MPI_Aint_add / MPI_Aint_diff.
 */
#include "mpi/mpi3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    void *p;

    (void)info;
    MPII_CHECK_INIT("MPI_Alloc_mem");
    if (size < 0 || !baseptr)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "invalid size %ld or NULL baseptr", (long)size);
    if (posix_memalign(&p, 64, size ? (size_t)size : 1))
        return mpii_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    MPII_CHECK_INIT("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}

int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ info */

typedef struct info_kv {
    struct info_kv *next;
    char key[MPI_MAX_INFO_KEY + 1];
    char *val;
} info_kv_t;

static info_kv_t **infos;   /* handle -> list head holder; [0] = MPI_INFO_NULL */
static char *info_used;
static int ninfos;

static int info_get(MPI_Info h)
{
    return h > 0 && h < ninfos && info_used[h];
}

int mpii_info_valid(MPI_Info h)
{
    return info_get(h);
}

/* A free handle >= first (the table grows as needed). Handle 1 is
 * MPI_INFO_ENV's, so MPI_Info_create starts at 2: info objects may be made
 * before MPI_Init (MPI 4.0 11.4.1), and MPI_Init still gets handle 1. */
static int info_alloc(int first, MPI_Info *info)
{
    int h;

    for (h = first; h < ninfos && info_used[h]; h++)
        ;
    if (h >= ninfos) {
        int nn = ninfos ? ninfos * 2 : 16;
        info_kv_t **t = realloc(infos, (size_t)nn * sizeof(*t));
        char *u;
        if (!t)
            return MPI_ERR_NO_MEM;
        infos = t;
        u = realloc(info_used, (size_t)nn);
        if (!u)
            return MPI_ERR_NO_MEM;
        info_used = u;
        memset(infos + ninfos, 0, (size_t)(nn - ninfos) * sizeof(*t));
        memset(info_used + ninfos, 0, (size_t)(nn - ninfos));
        if (h < first)
            h = first;
        ninfos = nn;
    }
    info_used[h] = 1;
    infos[h] = NULL;
    *info = h;
    return MPI_SUCCESS;
}

/* (the info calls need no MPI_Init: MPI 4.0 11.4.1) */
int MPI_Info_create(MPI_Info *info)
{
    if (!info)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_create", "info is NULL");
    if (info_alloc(2, info) != MPI_SUCCESS)
        return mpii_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_create", "out of memory");
    return MPI_SUCCESS;
}

static int info_check(const char *fn, MPI_Info info, const char *key)
{
    if (!info_get(info))
        return mpii_err(NULL, MPI_ERR_INFO, fn, "invalid info object %d", info);
    if (key && (!*key || strlen(key) > MPI_MAX_INFO_KEY))
        return mpii_err(NULL, MPI_ERR_INFO_KEY, fn, "info key is empty or longer than MPI_MAX_INFO_KEY");
    return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    info_kv_t *kv;
    char *v;
    int rc = info_check("MPI_Info_set", info, key ? key : "");

    if (rc != MPI_SUCCESS)
        return rc;
    if (!value || strlen(value) > MPI_MAX_INFO_VAL)
        return mpii_err(NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                        "info value is NULL or longer than MPI_MAX_INFO_VAL");
    v = strdup(value);
    if (!v)
        return mpii_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_set", "out of memory");
    for (kv = infos[info]; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) {
            free(kv->val);
            kv->val = v;
            return MPI_SUCCESS;
        }
    kv = calloc(1, sizeof(*kv));
    if (!kv) {
        free(v);
        return mpii_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_set", "out of memory");
    }
    strcpy(kv->key, key);
    kv->val = v;
    /* keys keep the order they were first set in (MPI_Info_get_nthkey) */
    info_kv_t **pp = &infos[info];
    while (*pp)
        pp = &(*pp)->next;
    *pp = kv;
    return MPI_SUCCESS;
}

/* Copy s into buf, at most n characters, then a NUL (buf holds n + 1):
 * MPI's valuelen / keylen convention. Writes no more than the string
 * needs, so a caller that passes its buffer's size is safe for shorter
 * values (MPI 3.1 9: "valuelen should be one less than the amount of
 * allocated space"; many programs pass the whole size). */
static void info_copy(char *buf, const char *s, size_t n)
{
    size_t k = strlen(s);
    if (k > n)
        k = n;
    memcpy(buf, s, k);
    buf[k] = 0;
}

static info_kv_t *info_find(MPI_Info info, const char *key)
{
    for (info_kv_t *kv = infos[info]; kv; kv = kv->next)
        if (!strcmp(kv->key, key))
            return kv;
    return NULL;
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    info_kv_t *kv;
    int rc = info_check("MPI_Info_get", info, key ? key : "");

    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag || valuelen < 0 || (valuelen > 0 && !value))
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get", "invalid arguments");
    *flag = 0;
    kv = info_find(info, key);
    if (kv) {
        /* valuelen excludes the terminating NUL (MPI 3.1 9) */
        if (value)
            info_copy(value, kv->val, (size_t)valuelen);
        *flag = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    info_kv_t *kv;
    int rc = info_check("MPI_Info_get_valuelen", info, key ? key : "");

    if (rc != MPI_SUCCESS)
        return rc;
    if (!valuelen || !flag)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get_valuelen", "%s is NULL", !flag ? "flag" : "valuelen");
    kv = info_find(info, key);
    *flag = kv != NULL;
    if (kv)
        *valuelen = (int)strlen(kv->val);
    return MPI_SUCCESS;
}

/* MPI 4.0 9.2: buflen in: the buffer's size; out: the value's length + 1
 * (so a short buffer tells the size it needs); the value is truncated to
 * fit, NUL-terminated. */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    info_kv_t *kv;
    int rc = info_check("MPI_Info_get_string", info, key ? key : "");

    if (rc != MPI_SUCCESS)
        return rc;
    if (!buflen || !flag || *buflen < 0 || (*buflen > 0 && !value))
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get_string", "invalid arguments");
    kv = info_find(info, key);
    *flag = kv != NULL;
    if (!kv)
        return MPI_SUCCESS;
    if (*buflen > 0)
        info_copy(value, kv->val, (size_t)*buflen - 1);
    *buflen = (int)strlen(kv->val) + 1;
    return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    info_kv_t *kv;
    int rc = info_check("MPI_Info_get_nthkey", info, NULL), i = 0;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!key)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey", "key is NULL");
    for (kv = infos[info]; kv && i < n; kv = kv->next)
        i++;
    if (n < 0 || !kv)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey", "n = %d is not in [0, number of keys)", n);
    info_copy(key, kv->key, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    int rc = info_check("MPI_Info_dup", info, NULL);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!newinfo)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_dup", "newinfo is NULL");
    rc = MPI_Info_create(newinfo);
    if (rc != MPI_SUCCESS)
        return rc;
    for (info_kv_t *kv = infos[info]; kv; kv = kv->next) {
        rc = MPI_Info_set(*newinfo, kv->key, kv->val);
        if (rc != MPI_SUCCESS) {
            MPI_Info_free(newinfo);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
    info_kv_t **pp;
    int rc = info_check("MPI_Info_delete", info, key ? key : "");

    if (rc != MPI_SUCCESS)
        return rc;
    for (pp = &infos[info]; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->key, key)) {
            info_kv_t *kv = *pp;
            *pp = kv->next;
            free(kv->val);
            free(kv);
            return MPI_SUCCESS;
        }
    return mpii_err(NULL, MPI_ERR_INFO_NOKEY, "MPI_Info_delete", "key \"%s\" not set", key);
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    info_kv_t *kv;
    int rc = info_check("MPI_Info_get_nkeys", info, NULL), n = 0;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!nkeys)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys is NULL");
    for (kv = infos[info]; kv; kv = kv->next)
        n++;
    *nkeys = n;
    return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info)
{
    info_kv_t *kv, *next;
    int rc;

    if (!info)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_free", "info is NULL");
    rc = info_check("MPI_Info_free", *info, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*info == MPI_INFO_ENV)
        return mpii_err(NULL, MPI_ERR_INFO, "MPI_Info_free", "MPI_INFO_ENV is predefined: it cannot be freed");
    for (kv = infos[*info]; kv; kv = next) {
        next = kv->next;
        free(kv->val);
        free(kv);
    }
    infos[*info] = NULL;
    info_used[*info] = 0;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* MPI 3.1 9 (MPI_INFO_ENV): command, argv (the rest of the command line,
 * space-separated), maxprocs (the job's size, also before MPI_Init), wdir (no
 * thread_level: mpirun takes no request for it) into info h */
static void env_fill(MPI_Info h)
{
    char line[4096] = "", argv_s[MPI_MAX_INFO_VAL + 1] = "", buf[64];
    size_t n = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");

    if (f) {
        n = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        line[n] = 0;
    }
    if (n > 0) {
        MPI_Info_set(h, "command", line);
        for (size_t i = strlen(line) + 1; i < n; i += strlen(line + i) + 1) {
            size_t used = strlen(argv_s), k = strlen(line + i);
            if (used + k + 2 > sizeof argv_s)
                break;
            if (used)
                strcat(argv_s, " ");
            strcat(argv_s, line + i);
        }
        if (argv_s[0])
            MPI_Info_set(h, "argv", argv_s);
    }
    if (mpii_g.size > 0) {
        snprintf(buf, sizeof buf, "%d", mpii_g.size);
    } else { /* before MPI_Init: what mpirun said, or a singleton */
        const char *sz = getenv("MBMPI_SIZE");
        snprintf(buf, sizeof buf, "%d", sz && atoi(sz) > 0 ? atoi(sz) : 1);
    }
    MPI_Info_set(h, "maxprocs", buf);
    if (getcwd(line, sizeof line))
        MPI_Info_set(h, "wdir", line);
}

/* MPI_Init: MPI_INFO_ENV, handle 1 (kept free by MPI_Info_create) */
int mpii_info_env_init(void)
{
    MPI_Info h;

    if (info_alloc(1, &h) != MPI_SUCCESS || h != MPI_INFO_ENV)
        return MPI_ERR_INTERN;
    env_fill(h);
    return MPI_SUCCESS;
}

/* MPI 4.0 11.4.3: an info object like MPI_INFO_ENV, before or after
 * MPI_Init (argc, argv: the program's; /proc/self/cmdline says the same) */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    (void)argc;
    (void)argv;
    if (!info)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Info_create_env", "info is NULL");
    if (info_alloc(2, info) != MPI_SUCCESS)
        return mpii_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_create_env", "out of memory");
    env_fill(*info);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ split_type */

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    unsigned h = 5381;
    mpii_comm_t *c;
    int len, color, *colors, i, rc, shared;

    MPII_CHECK_INIT("MPI_Comm_split_type");
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, "MPI_Comm_split_type", "invalid communicator");
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, "MPI_Comm_split_type", "an inter-communicator (MPI 4.0 7.4.2)");
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_split_type", "newcomm is NULL");
    /* Each rank may give its own split_type (MPI_UNDEFINED on some only,
     * as with MPI_Comm_split's colour): every rank takes part in the same
     * exchange below, and only the colour differs. */
    if (split_type == MPI_UNDEFINED || split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        /* HW_UNGUIDED: a strict subset by hardware; mbmpi knows no level
         * below the host (every rank of a host shares its memory), so none:
         * MPI_COMM_NULL, as MPI 4.0 allows */
        shared = 0;
    } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
        /* MPI 4.0 7.4.2: the resource named by the info key
         * mpi_hw_resource_type; the one mbmpi knows is the shared memory
         * domain (this host). Without the key, or another resource:
         * MPI_COMM_NULL. */
        char val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (info != MPI_INFO_NULL && info_get(info))
            MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, val, &flag);
        shared = flag && !strcmp(val, "mpi_shared_memory");
    } else if (split_type == MPI_COMM_TYPE_SHARED) {
        shared = 1;
    } else {
        return mpii_err(c, MPI_ERR_ARG, "MPI_Comm_split_type", "unknown split type %d", split_type);
    }
    /* Ranks on one host share memory. Colour: the lowest rank whose host
     * name hashes like ours (an allgather of 31-bit name hashes; two hosts
     * whose names collide would be merged). */
    MPI_Get_processor_name(host, &len);
    for (i = 0; i < len; i++)
        h = h * 33u + (unsigned char)host[i];
    colors = calloc((size_t)c->size, sizeof(int));
    if (!colors)
        return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Comm_split_type", "out of memory");
    {
        int *in = calloc((size_t)c->size, sizeof(int));
        if (!in) {
            free(colors);
            return mpii_err(c, MPI_ERR_NO_MEM, "MPI_Comm_split_type", "out of memory");
        }
        in[c->rank] = (int)(h & 0x7fffffff);
        rc = MPI_Allreduce(in, colors, c->size, MPI_INT, MPI_SUM, comm);
        free(in);
    }
    if (rc != MPI_SUCCESS) {
        free(colors);
        return rc;
    }
    for (color = 0; color < c->size && colors[color] != (int)(h & 0x7fffffff); color++)
        ;
    free(colors);
    return MPI_Comm_split(comm, shared ? color : MPI_UNDEFINED, key, newcomm);
}

/* ---------------------------------------- status and address arithmetic */

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    MPII_CHECK_INIT("MPI_Status_set_cancelled");
    if (!status)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    status->mbmpi_cancelled = flag ? 1 : 0;
    return MPI_SUCCESS;
}

/* MPI 3.1 4.1.5: addresses as MPI_Aint, computed without the caller doing
 * pointer arithmetic across objects. */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
