/*
 * mpi/io.c: MPI-IO (MPI 3.1 chapter 13) over POSIX files.
 *
 * Every rank opens the file itself (pread / pwrite at explicit offsets, so
 * the ranks share no file position in the kernel). A view (displacement,
 * etype, filetype) maps the data of an access to file bytes through the
 * filetype's flattened type map, tiled every extent from the displacement;
 * runs that touch in the file become one system call. The memory side is
 * packed into (or unpacked from) a contiguous buffer when the memory type
 * is not contiguous. Data representations: "native", "internal" (the same
 * here: one kind of host), "external32" (13.5.2: every value big-endian,
 * IEEE; the data is packed and converted on its way, for views whose basic
 * types keep their size in external32, so the file layout is the native
 * one: all but MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR and MPI_LONG_INT,
 * which are 4, 4, 2 and 8 bytes there) and registered ones that convert
 * nothing.
 *
 * Collective calls (_all, _ordered, split begin/end) do each rank's part
 * independently: on one POSIX file system that is already what the
 * consistency rules (13.6) ask. Nonblocking calls do the I/O at once and
 * return a completed generalized request carrying the byte count.
 *
 * The shared file pointer lives in a window of one MPI_Offset at rank 0 of
 * the file's communicator (a dup): MPI_Fetch_and_op(MPI_SUM) under a shared
 * lock moves it atomically; ordered accesses take their offsets from an
 * MPI_Exscan and rank 0 moves the pointer once for all.
 *
 * Errors go to the file's error handler; MPI_FILE_NULL's (initially
 * MPI_ERRORS_RETURN, as 13.7 says) serves MPI_File_open, MPI_File_delete
 * and is what a new file starts with.
 */
#include "mpi/core.h"
#include "mpi/mpi3.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct file {
    int fd;
    MPI_Comm comm; /* a dup of the one given to MPI_File_open */
    int amode;
    char *name;
    MPI_Errhandler eh;
    int atomic;
    /* the view */
    MPI_Offset disp;
    MPI_Datatype etype, ftype;
    size_t esize;
    char rep[MPI_MAX_DATAREP_STRING]; /* its data representation */
    int ext32;                        /* it is "external32" */
    MPI_Offset fp; /* individual file pointer, in etypes */
    /* shared file pointer: one MPI_Offset at rank 0 */
    MPI_Win shwin;
    MPI_Offset *shptr;
    /* split collective in progress: its status */
    int split;
    MPI_Offset split_bytes;
    int split_rc;
} file_t;

static file_t **files; /* handle h is files[h - 1] */
static int nfiles;
static MPI_Errhandler null_eh = MPI_ERRORS_RETURN; /* MPI_FILE_NULL's */

static file_t *file_get(MPI_File h)
{
    return h >= 1 && h <= nfiles ? files[h - 1] : NULL;
}

MPI_Errhandler *mpii_file_errhandler(MPI_File h)
{
    file_t *f;
    if (h == MPI_FILE_NULL)
        return &null_eh;
    f = file_get(h);
    return f ? &f->eh : NULL;
}

#define FERR(fh, f, cls, fn, ...) mpii_err_win((f) ? (f)->eh : null_eh, (fh), (cls), (fn), __VA_ARGS__)

static int errno_class(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case ENOSPC:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case EISDIR:
        return MPI_ERR_BAD_FILE;
    default:
        return MPI_ERR_IO;
    }
}

/* ROMIO's file-system prefixes ("ufs:/tmp/x") name the same POSIX file */
static const char *strip_prefix(const char *name)
{
    static const char *const pfx[] = {"ufs:", "nfs:", "file:", "lustre:", "gpfs:", "pvfs2:"};
    for (size_t i = 0; i < sizeof pfx / sizeof pfx[0]; i++)
        if (!strncmp(name, pfx[i], strlen(pfx[i])))
            return name + strlen(pfx[i]);
    return name;
}

/* ------------------------------------------------------------ open, close */

static int amode_ok(int amode)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (rw != 1)
        return 0;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return 0;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return 0;
    return !(amode & ~(MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                       MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |
                       MPI_MODE_SEQUENTIAL));
}

static int posix_flags(int amode)
{
    int fl = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    return fl | O_CLOEXEC;
}

static void file_destroy(file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->shwin != MPI_WIN_NULL)
        MPI_Win_free(&f->shwin);
    if (f->comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->comm);
    if (f->etype != MPI_DATATYPE_NULL)
        mpii_datatype_unhold(f->etype);
    if (f->ftype != MPI_DATATYPE_NULL)
        mpii_datatype_unhold(f->ftype);
    free(f->name);
    free(f);
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char fn[] = "MPI_File_open";
    mpii_comm_t *c;
    file_t *f;
    const char *path;
    int rc, err = 0, anyerr = 0, rank, slot;

    (void)info; /* hints are accepted and ignored */
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c || c->is_inter)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d (an intra-communicator is needed)",
                        comm);
    if (!fh || !filename)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_ARG, fn, "%s is NULL", fh ? "filename" : "fh");
    *fh = MPI_FILE_NULL;
    if (!amode_ok(amode))
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_AMODE, fn,
                    "invalid amode %d (one of RDONLY, WRONLY, RDWR; RDONLY without CREATE or EXCL; no "
                    "SEQUENTIAL with RDWR)",
                    amode);
    path = strip_prefix(filename);
    f = calloc(1, sizeof *f);
    if (!f)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    f->fd = -1;
    f->comm = MPI_COMM_NULL;
    f->shwin = MPI_WIN_NULL;
    f->etype = f->ftype = MPI_DATATYPE_NULL;
    f->amode = amode;
    f->eh = null_eh;
    f->name = strdup(path);
    rc = MPI_Comm_dup(comm, &f->comm);
    if (rc != MPI_SUCCESS || !f->name) {
        file_destroy(f);
        return FERR(MPI_FILE_NULL, (file_t *)NULL, rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM, fn,
                    "cannot set up the file's communicator");
    }
    MPI_Comm_rank(f->comm, &rank);
    /* rank 0 creates (EXCL is decided there), then everyone opens */
    if (rank == 0 && (amode & MPI_MODE_CREATE)) {
        int fd = open(path, posix_flags(amode) | O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0), 0666);
        if (fd < 0)
            err = errno;
        else
            f->fd = fd;
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    if (!err && f->fd < 0) {
        f->fd = open(path, posix_flags(amode));
        if (f->fd < 0)
            err = errno;
    }
    MPI_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, f->comm);
    if (!anyerr) {
        /* the shared file pointer */
        rc = MPI_Win_allocate(rank == 0 ? sizeof(MPI_Offset) : 0, sizeof(MPI_Offset), MPI_INFO_NULL, f->comm,
                              &f->shptr, &f->shwin);
        if (rc != MPI_SUCCESS)
            anyerr = -1;
        else if (rank == 0)
            *f->shptr = 0;
        if (rc == MPI_SUCCESS)
            MPI_Barrier(f->comm);
    }
    if (anyerr) {
        int e = err ? err : anyerr > 0 ? anyerr : 0;
        file_destroy(f);
        return FERR(MPI_FILE_NULL, (file_t *)NULL, e ? errno_class(e) : MPI_ERR_OTHER, fn,
                    "cannot open %s: %s", path, e ? strerror(e) : "another rank could not");
    }
    f->etype = f->ftype = MPI_BYTE;
    f->esize = 1;
    strcpy(f->rep, "native");
    for (slot = 0; slot < nfiles && files[slot]; slot++)
        ;
    if (slot == nfiles) {
        file_t **t = realloc(files, (size_t)(nfiles + 1) * sizeof *t);
        if (!t) {
            file_destroy(f);
            return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        files = t;
        files[nfiles++] = NULL;
    }
    files[slot] = f;
    *fh = slot + 1;
    if (amode & MPI_MODE_APPEND) {
        struct stat st;
        if (fstat(f->fd, &st) == 0) {
            f->fp = st.st_size;
            if (rank == 0)
                *f->shptr = st.st_size;
        }
        MPI_Barrier(f->comm);
    }
    return MPI_SUCCESS;
}

int MPI_File_close(MPI_File *fh)
{
    static const char fn[] = "MPI_File_close";
    file_t *f;
    int rank, del;

    MPII_CHECK_INIT(fn);
    if (!fh)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_ARG, fn, "fh is NULL");
    f = file_get(*fh);
    if (!f)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_FILE, fn, "invalid file %d", *fh);
    MPI_Comm_rank(f->comm, &rank);
    del = f->amode & MPI_MODE_DELETE_ON_CLOSE;
    close(f->fd);
    f->fd = -1;
    MPI_Barrier(f->comm); /* everyone has closed before the file goes */
    if (del && rank == 0)
        unlink(f->name);
    files[*fh - 1] = NULL;
    file_destroy(f);
    *fh = MPI_FILE_NULL;
    return MPI_SUCCESS;
}

int MPI_File_delete(const char *filename, MPI_Info info)
{
    static const char fn[] = "MPI_File_delete";
    const char *path;

    (void)info;
    if (!filename)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_ARG, fn, "filename is NULL");
    path = strip_prefix(filename);
    if (unlink(path) != 0)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, errno_class(errno), fn, "cannot delete %s: %s", path,
                    strerror(errno));
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ file queries */

#define GET_FILE(fh, f, fn)                                                                                  \
    do {                                                                                                     \
        MPII_CHECK_INIT(fn);                                                                                 \
        f = file_get(fh);                                                                                    \
        if (!f)                                                                                              \
            return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_FILE, fn, "invalid file %d", fh);             \
    } while (0)

/* rank 0 changes the size (grow only when `grow`), everyone learns the outcome */
static int resize(MPI_File fh, file_t *f, MPI_Offset size, int grow, const char *fn)
{
    int rank, err = 0;

    if (size < 0)
        return FERR(fh, f, MPI_ERR_ARG, fn, "negative size %lld", (long long)size);
    if (f->amode & MPI_MODE_RDONLY)
        return FERR(fh, f, MPI_ERR_READ_ONLY, fn, "the file is open read-only");
    MPI_Comm_rank(f->comm, &rank);
    if (rank == 0) {
        struct stat st;
        if (fstat(f->fd, &st) != 0)
            err = errno;
        else if ((!grow || st.st_size < size) && ftruncate(f->fd, size) != 0)
            err = errno;
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    if (err)
        return FERR(fh, f, errno_class(err), fn, "cannot resize %s: %s", f->name, strerror(err));
    return MPI_SUCCESS;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_set_size");
    return resize(fh, f, size, 0, "MPI_File_set_size");
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_preallocate");
    return resize(fh, f, size, 1, "MPI_File_preallocate");
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    file_t *f;
    struct stat st;

    GET_FILE(fh, f, "MPI_File_get_size");
    if (!size)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_size", "size is NULL");
    if (fstat(f->fd, &st) != 0)
        return FERR(fh, f, MPI_ERR_IO, "MPI_File_get_size", "fstat: %s", strerror(errno));
    *size = st.st_size;
    return MPI_SUCCESS;
}

int MPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_group");
    if (!group)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_group", "group is NULL");
    return MPI_Comm_group(f->comm, group);
}

int MPI_File_get_amode(MPI_File fh, int *amode)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_amode");
    if (!amode)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_amode", "amode is NULL");
    *amode = f->amode;
    return MPI_SUCCESS;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    file_t *f;
    (void)info;
    GET_FILE(fh, f, "MPI_File_set_info");
    return MPI_SUCCESS;
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_info");
    if (!info_used)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_info", "info_used is NULL");
    return MPI_Info_create(info_used); /* no hint is in use */
}

int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    file_t *f;
    MPI_Aint lb;
    GET_FILE(fh, f, "MPI_File_get_type_extent");
    if (!extent)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_type_extent", "extent is NULL");
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return FERR(fh, f, MPI_ERR_TYPE, "MPI_File_get_type_extent", "invalid datatype %d", datatype);
    if (f->ext32 && !mpii_ext32_same_size(datatype)) {
        /* a basic type that changes size there: its external32 size; a
         * derived type holding one has no layout here (set_view refuses it) */
        MPI_Aint n;
        if (!mpii_datatype_get(datatype)->predefined ||
            MPI_Pack_external_size("external32", 1, datatype, &n) != MPI_SUCCESS)
            return FERR(fh, f, MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_get_type_extent",
                        "datatype %d changes size in \"external32\"", datatype);
        *extent = n;
        return MPI_SUCCESS;
    }
    return MPI_Type_get_extent(datatype, &lb, extent); /* as in memory */
}

/* collective; the mode takes effect for accesses after every rank set it */
int MPI_File_set_atomicity(MPI_File fh, int flag)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_set_atomicity");
    f->atomic = !!flag;
    MPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int *flag)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_atomicity");
    if (!flag)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_atomicity", "flag is NULL");
    *flag = f->atomic;
    return MPI_SUCCESS;
}

int MPI_File_sync(MPI_File fh)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_sync");
    if (!(f->amode & MPI_MODE_RDONLY) && fsync(f->fd) != 0 && errno != EINVAL)
        return FERR(fh, f, MPI_ERR_IO, "MPI_File_sync", "fsync: %s", strerror(errno));
    return MPI_SUCCESS;
}

MPI_Fint MPI_File_c2f(MPI_File file)
{
    return (MPI_Fint)file;
}

MPI_File MPI_File_f2c(MPI_Fint file)
{
    return (MPI_File)file;
}

/* ------------------------------------------------------------ views */

/* the representations MPI_Register_datarep(_c) named */
typedef struct datarep {
    char name[MPI_MAX_DATAREP_STRING];
    int converts; /* a read or write conversion was given (never called: see datarep_usable) */
    MPI_Datarep_extent_function *extent;
    void *extra;
} datarep_t;
static datarep_t *reps;
static int nreps;

static int register_datarep(const char *fn, const char *datarep, int converts,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    datarep_t *t;

    MPII_CHECK_INIT(fn);
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING || !dtype_file_extent_fn)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_ARG, fn, "invalid name or NULL extent function");
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32"))
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_DUP_DATAREP, fn, "\"%s\" is predefined", datarep);
    for (int i = 0; i < nreps; i++)
        if (!strcmp(reps[i].name, datarep))
            return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_DUP_DATAREP, fn,
                        "\"%s\" is already registered", datarep);
    t = realloc(reps, (size_t)(nreps + 1) * sizeof *t);
    if (!t)
        return FERR(MPI_FILE_NULL, (file_t *)NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    reps = t;
    strcpy(reps[nreps].name, datarep);
    reps[nreps].converts = converts;
    reps[nreps].extent = dtype_file_extent_fn;
    reps[nreps].extra = extra_state;
    nreps++;
    return MPI_SUCCESS;
}

int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep("MPI_Register_datarep", datarep, read_conversion_fn || write_conversion_fn,
                            dtype_file_extent_fn, extra_state);
}

int MPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep("MPI_Register_datarep_c", datarep, read_conversion_fn || write_conversion_fn,
                            dtype_file_extent_fn, extra_state);
}

/* A representation the view can use: "native", "internal", "external32"
 * with types whose values keep their size there, or a registered one that
 * converts nothing and gives the two types their native extents. */
static int datarep_usable(const char *datarep, MPI_Datatype etype, MPI_Datatype filetype)
{
    if (!strcmp(datarep, "native") || !strcmp(datarep, "NATIVE") || !strcmp(datarep, "internal"))
        return 1;
    if (!strcmp(datarep, "external32"))
        return mpii_ext32_same_size(etype) && mpii_ext32_same_size(filetype);
    for (int i = 0; i < nreps; i++)
        if (!strcmp(reps[i].name, datarep)) {
            MPI_Aint e1 = -1, e2 = -1, lb, n1, n2;
            if (reps[i].converts)
                return 0;
            MPI_Type_get_extent(etype, &lb, &n1);
            MPI_Type_get_extent(filetype, &lb, &n2);
            return reps[i].extent(etype, &e1, reps[i].extra) == MPI_SUCCESS && e1 == n1 &&
                   reps[i].extent(filetype, &e2, reps[i].extra) == MPI_SUCCESS && e2 == n2;
        }
    return 0;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    static const char fn[] = "MPI_File_set_view";
    file_t *f;
    mpii_datatype_t *e, *t;

    (void)info;
    GET_FILE(fh, f, fn);
    if (!datarep)
        return FERR(fh, f, MPI_ERR_ARG, fn, "datarep is NULL");
    if (mpii_datatype_check(etype) != MPI_SUCCESS || mpii_datatype_check(filetype) != MPI_SUCCESS)
        return FERR(fh, f, MPI_ERR_TYPE, fn, "invalid or uncommitted etype %d or filetype %d", etype,
                    filetype);
    if (!datarep_usable(datarep, etype, filetype))
        return FERR(fh, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                    "data representation \"%s\" (\"native\", \"internal\", \"external32\" of types "
                    "without MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR, MPI_LONG_INT, or a registered one "
                    "without conversions)",
                    datarep);
    e = mpii_datatype_get(etype);
    t = mpii_datatype_get(filetype);
    /* a filetype of no data (all blocks empty, as a rank with nothing to
     * access builds it) is a view of no bytes: Open MPI and MPICH take it */
    if (e->size == 0 || t->size % e->size != 0 || (t->size > 0 && t->extent <= 0))
        return FERR(fh, f, MPI_ERR_TYPE, fn,
                    "the filetype must hold whole etypes and the etype data (etype %zu bytes, filetype %zu "
                    "bytes, extent %lld)",
                    e->size, t->size, (long long)t->extent);
    /* 13.3: the type maps' displacements are non-negative and
     * nondecreasing, and without overlaps when the file is open for writing
     * (MPI_ERR_IO, as ROMIO reports it) */
    for (int w = 0; w < 2; w++) {
        const mpii_datatype_t *x = w ? t : e;
        for (size_t b = 0; b < x->nblocks; b++) {
            MPI_Aint d = x->blocks[b].disp, prev = b ? x->blocks[b - 1].disp : 0;
            if (d < 0 || d < prev ||
                (b > 0 && !(f->amode & MPI_MODE_RDONLY) && d < prev + (MPI_Aint)x->blocks[b - 1].len))
                return FERR(
                    fh, f, MPI_ERR_IO, fn,
                    "the %s has a negative, decreasing or (writing) overlapping displacement (MPI 3.1 "
                    "13.3)",
                    w ? "filetype" : "etype");
        }
    }
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return FERR(fh, f, MPI_ERR_ARG, fn, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        MPI_File_get_position_shared(fh, &disp);
        disp = f->disp + disp * (MPI_Offset)f->esize;
    } else if (disp < 0) {
        return FERR(fh, f, MPI_ERR_ARG, fn, "negative displacement %lld", (long long)disp);
    }
    mpii_datatype_hold(etype);
    mpii_datatype_hold(filetype);
    mpii_datatype_unhold(f->etype);
    mpii_datatype_unhold(f->ftype);
    f->disp = disp;
    f->etype = etype;
    f->ftype = filetype;
    f->esize = e->size;
    snprintf(f->rep, sizeof f->rep, "%s", datarep);
    f->ext32 = !strcmp(datarep, "external32");
    f->fp = 0;
    /* collective: the shared pointer goes back to 0 once everyone is here */
    MPI_Barrier(f->comm);
    {
        int rank;
        MPI_Comm_rank(f->comm, &rank);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shwin);
            *f->shptr = 0;
            MPI_Win_unlock(0, f->shwin);
        }
    }
    MPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

/* a handle the user may free: derived types are duplicated (13.3) */
static MPI_Datatype view_type(MPI_Datatype t)
{
    MPI_Datatype d;
    if (mpii_datatype_get(t)->predefined)
        return t;
    if (MPI_Type_dup(t, &d) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    return d;
}

int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_view");
    if (!disp || !etype || !filetype || !datarep)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_view", "NULL argument");
    *disp = f->disp;
    *etype = view_type(f->etype);
    *filetype = view_type(f->ftype);
    strcpy(datarep, f->rep);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ the data path */

/* pread/pwrite of len bytes at pos, whole unless the file ends (reads) */
static int rw_all(int fd, int wr, char *buf, size_t len, MPI_Offset pos, size_t *done)
{
    *done = 0;
    while (*done < len) {
        ssize_t n = wr ? pwrite(fd, buf + *done, len - *done, pos + (MPI_Offset)*done)
                       : pread(fd, buf + *done, len - *done, pos + (MPI_Offset)*done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            break; /* end of file */
        *done += (size_t)n;
    }
    return 0;
}

/* The file position of data byte `off` of the view: where it starts, and
 * how many data bytes follow contiguously there. */
static MPI_Offset view_pos(const file_t *f, MPI_Offset off, size_t *run)
{
    const mpii_datatype_t *t = mpii_datatype_get(f->ftype);
    MPI_Offset k, r, base;

    if (t->size == 0) {
        *run = 0;
        return f->disp;
    }
    k = off / (MPI_Offset)t->size;
    r = off % (MPI_Offset)t->size;
    base = f->disp + k * t->extent;
    if (t->contig) {
        *run = SIZE_MAX;
        return f->disp + t->true_lb + off;
    }
    for (size_t b = 0; b < t->nblocks; b++) {
        if (r < (MPI_Offset)t->blocks[b].len) {
            *run = t->blocks[b].len - (size_t)r;
            return base + t->blocks[b].disp + r;
        }
        r -= (MPI_Offset)t->blocks[b].len;
    }
    *run = 0; /* not reached: r < size */
    return base;
}

/* Move len bytes between buf and the view's data bytes from `off` on,
 * walking the filetype's blocks once; runs that touch in the file are one
 * pread / pwrite. *done: the bytes moved (a read stops at the end of the
 * file). */
static int view_io(file_t *f, int wr, char *buf, size_t len, MPI_Offset off, size_t *done)
{
    const mpii_datatype_t *t = mpii_datatype_get(f->ftype);
    MPI_Offset k, r, run_pos = 0;
    size_t b = 0, moved = 0, run_len = 0, run_at = 0, got;
    int e;

    *done = 0;
    if (t->size == 0)
        return 0; /* a view of no data: nothing moves (as in Open MPI) */
    if (t->contig)
        return rw_all(f->fd, wr, buf, len, f->disp + t->true_lb + off, done);
    k = off / (MPI_Offset)t->size;
    r = off % (MPI_Offset)t->size;
    while (r >= (MPI_Offset)t->blocks[b].len)
        r -= (MPI_Offset)t->blocks[b++].len;
    while (moved < len) {
        MPI_Offset pos = f->disp + k * t->extent + t->blocks[b].disp + r;
        size_t n = t->blocks[b].len - (size_t)r;
        if (n > len - moved)
            n = len - moved;
        if (run_len && run_pos + (MPI_Offset)run_len == pos) {
            run_len += n;
        } else {
            if (run_len) {
                e = rw_all(f->fd, wr, buf + run_at, run_len, run_pos, &got);
                *done += got;
                if (e || got < run_len)
                    return e;
            }
            run_pos = pos;
            run_len = n;
            run_at = moved;
        }
        moved += n;
        r = 0;
        if (++b == t->nblocks) {
            b = 0;
            k++;
        }
    }
    e = rw_all(f->fd, wr, buf + run_at, run_len, run_pos, &got);
    *done += got;
    return e;
}

/* The I/O of one call: count x datatype at buf, at view offset `offset`
 * (etypes). *bytes: the data bytes moved. */
static int do_io(MPI_File fh, file_t *f, int wr, const void *buf, int count, MPI_Datatype datatype,
                 MPI_Offset offset, MPI_Offset *bytes, const char *fn)
{
    mpii_datatype_t *dt;
    size_t len, done = 0;
    char *tmp = NULL, *p;
    int e;

    *bytes = 0;
    if (count < 0)
        return FERR(fh, f, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return FERR(fh, f, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", datatype);
    if (offset < 0)
        return FERR(fh, f, MPI_ERR_ARG, fn, "negative offset %lld", (long long)offset);
    if (wr && (f->amode & MPI_MODE_RDONLY))
        return FERR(fh, f, MPI_ERR_READ_ONLY, fn, "the file is open read-only");
    if (!wr && (f->amode & MPI_MODE_WRONLY))
        return FERR(fh, f, MPI_ERR_ACCESS, fn, "the file is open write-only");
    dt = mpii_datatype_get(datatype);
    len = (size_t)count * dt->size;
    if (len % f->esize)
        return FERR(fh, f, MPI_ERR_TYPE, fn, "%zu bytes are not whole etypes of %zu bytes", len, f->esize);
    if (len == 0)
        return MPI_SUCCESS;
    if (!buf && dt->true_lb == 0)
        return FERR(fh, f, MPI_ERR_BUFFER, fn, "buf is NULL");
    if (f->ext32 && !mpii_ext32_same_size(datatype))
        return FERR(fh, f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                    "datatype %d has values that change size in \"external32\"", datatype);
    if (dt->contig && !f->ext32) {
        p = (char *)buf + dt->true_lb;
    } else {
        tmp = malloc(len);
        if (!tmp)
            return FERR(fh, f, MPI_ERR_NO_MEM, fn, "out of memory (%zu bytes)", len);
        if (wr)
            mpii_datatype_pack(buf, (size_t)count, dt, tmp);
        if (wr && f->ext32)
            mpii_ext32_convert(datatype, (size_t)count, tmp, 1);
        p = tmp;
    }
    if (f->atomic) {
        /* atomic mode (13.6.1): the access is one unit against every other
         * rank's, under a POSIX record lock from its first byte on */
        size_t run;
        struct flock lk = {.l_type = wr ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_len = 0};
        lk.l_start = view_pos(f, offset * (MPI_Offset)f->esize, &run);
        while (fcntl(f->fd, F_SETLKW, &lk) != 0 && errno == EINTR)
            ;
        e = view_io(f, wr, p, len, offset * (MPI_Offset)f->esize, &done);
        lk.l_type = F_UNLCK;
        fcntl(f->fd, F_SETLK, &lk);
    } else {
        e = view_io(f, wr, p, len, offset * (MPI_Offset)f->esize, &done);
    }
    if (tmp && !wr && f->ext32) {
        memset(tmp + done, 0, len - done); /* past the end of the file */
        mpii_ext32_convert(datatype, (size_t)count, tmp, 0);
    }
    if (tmp && !wr)
        mpii_datatype_unpack(tmp, done, (void *)buf, (size_t)count, dt);
    free(tmp);
    *bytes = (MPI_Offset)done;
    if (e)
        return FERR(fh, f, errno_class(e), fn, "%s %s: %s", wr ? "writing" : "reading", f->name, strerror(e));
    return MPI_SUCCESS;
}

static void set_status(MPI_Status *st, MPI_Offset bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_cancelled(st, 0);
    MPI_Status_set_elements_x(st, MPI_BYTE, bytes);
}

/* explicit offsets */
static int io_at(MPI_File fh, int wr, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                 MPI_Status *status, const char *fn)
{
    file_t *f;
    MPI_Offset bytes;
    int rc;

    GET_FILE(fh, f, fn);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FERR(fh, f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                    "explicit offsets on a MPI_MODE_SEQUENTIAL file");
    rc = do_io(fh, f, wr, buf, count, datatype, offset, &bytes, fn);
    if (rc == MPI_SUCCESS)
        set_status(status, bytes);
    return rc;
}

/* the individual file pointer */
static int io_fp(MPI_File fh, int wr, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status,
                 const char *fn)
{
    file_t *f;
    MPI_Offset bytes;
    int rc;

    GET_FILE(fh, f, fn);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FERR(fh, f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                    "individual file pointers on a MPI_MODE_SEQUENTIAL file");
    rc = do_io(fh, f, wr, buf, count, datatype, f->fp, &bytes, fn);
    f->fp += bytes / (MPI_Offset)f->esize;
    if (rc == MPI_SUCCESS)
        set_status(status, bytes);
    return rc;
}

/* the shared file pointer: add n etypes, get the old value */
static MPI_Offset shared_fetch_add(file_t *f, MPI_Offset n)
{
    MPI_Offset old = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f->shwin);
    MPI_Fetch_and_op(&n, &old, MPI_OFFSET, 0, 0, n ? MPI_SUM : MPI_NO_OP, f->shwin);
    MPI_Win_unlock(0, f->shwin);
    return old;
}

static int io_shared(MPI_File fh, int wr, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status, const char *fn)
{
    file_t *f;
    MPI_Offset bytes, at;
    mpii_datatype_t *dt;
    int rc;

    GET_FILE(fh, f, fn);
    if (mpii_datatype_check(datatype) != MPI_SUCCESS)
        return FERR(fh, f, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype %d", datatype);
    if (count < 0)
        return FERR(fh, f, MPI_ERR_COUNT, fn, "negative count %d", count);
    dt = mpii_datatype_get(datatype);
    at = shared_fetch_add(f, (MPI_Offset)((size_t)count * dt->size / f->esize));
    rc = do_io(fh, f, wr, buf, count, datatype, at, &bytes, fn);
    if (rc == MPI_SUCCESS)
        set_status(status, bytes);
    return rc;
}

/* collective, in rank order: offsets from an exclusive scan; rank 0 moves
 * the shared pointer past everyone's data */
static int io_ordered(MPI_File fh, int wr, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status, const char *fn)
{
    file_t *f;
    MPI_Offset mine = 0, before = 0, total = 0, base = 0, bytes;
    int rank, rc;

    GET_FILE(fh, f, fn);
    if (mpii_datatype_check(datatype) == MPI_SUCCESS && count > 0)
        mine = (MPI_Offset)((size_t)count * mpii_datatype_get(datatype)->size / f->esize);
    MPI_Comm_rank(f->comm, &rank);
    MPI_Exscan(&mine, &before, 1, MPI_OFFSET, MPI_SUM, f->comm);
    if (rank == 0)
        before = 0;
    MPI_Reduce(&mine, &total, 1, MPI_OFFSET, MPI_SUM, 0, f->comm);
    if (rank == 0)
        base = shared_fetch_add(f, total);
    MPI_Bcast(&base, 1, MPI_OFFSET, 0, f->comm);
    rc = do_io(fh, f, wr, buf, count, datatype, base + before, &bytes, fn);
    if (rc == MPI_SUCCESS)
        set_status(status, bytes);
    return rc;
}

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return io_at(fh, 0, offset, buf, count, datatype, status, "MPI_File_read_at");
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return io_at(fh, 0, offset, buf, count, datatype, status, "MPI_File_read_at_all");
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return io_at(fh, 1, offset, buf, count, datatype, status, "MPI_File_write_at");
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return io_at(fh, 1, offset, buf, count, datatype, status, "MPI_File_write_at_all");
}

int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_fp(fh, 0, buf, count, datatype, status, "MPI_File_read");
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_fp(fh, 0, buf, count, datatype, status, "MPI_File_read_all");
}

int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_fp(fh, 1, buf, count, datatype, status, "MPI_File_write");
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_fp(fh, 1, buf, count, datatype, status, "MPI_File_write_all");
}

int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_shared(fh, 0, buf, count, datatype, status, "MPI_File_read_shared");
}

int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_shared(fh, 1, buf, count, datatype, status, "MPI_File_write_shared");
}

int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_ordered(fh, 0, buf, count, datatype, status, "MPI_File_read_ordered");
}

int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return io_ordered(fh, 1, buf, count, datatype, status, "MPI_File_write_ordered");
}

/* ------------------------------------------------------------ nonblocking */

/* a generalized request, complete from the start, holding the status */
static int greq_query(void *extra, MPI_Status *st)
{
    set_status(st, *(MPI_Offset *)extra);
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int done_request(MPI_Offset bytes, MPI_Request *request)
{
    MPI_Offset *x = malloc(sizeof *x);
    int rc;
    if (!x)
        return MPI_ERR_NO_MEM;
    *x = bytes;
    rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, x, request);
    if (rc != MPI_SUCCESS) {
        free(x);
        return rc;
    }
    return MPI_Grequest_complete(*request);
}

enum { AT, FP, SHARED };

static int inb(MPI_File fh, int how, int wr, MPI_Offset offset, const void *buf, int count,
               MPI_Datatype datatype, MPI_Request *request, const char *fn)
{
    MPI_Status st;
    MPI_Count n = 0;
    int rc;

    if (!request) {
        file_t *f = file_get(fh);
        return FERR(fh, f, MPI_ERR_REQUEST, fn, "request is NULL");
    }
    rc = how == AT   ? io_at(fh, wr, offset, buf, count, datatype, &st, fn)
         : how == FP ? io_fp(fh, wr, buf, count, datatype, &st, fn)
                     : io_shared(fh, wr, buf, count, datatype, &st, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Get_elements_x(&st, MPI_BYTE, &n);
    return done_request((MPI_Offset)n, request);
}

int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return inb(fh, AT, 0, offset, buf, count, datatype, request, "MPI_File_iread_at");
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return inb(fh, AT, 1, offset, buf, count, datatype, request, "MPI_File_iwrite_at");
}

int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return inb(fh, AT, 0, offset, buf, count, datatype, request, "MPI_File_iread_at_all");
}

int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return inb(fh, AT, 1, offset, buf, count, datatype, request, "MPI_File_iwrite_at_all");
}

int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return inb(fh, FP, 0, 0, buf, count, datatype, request, "MPI_File_iread");
}

int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return inb(fh, FP, 1, 0, buf, count, datatype, request, "MPI_File_iwrite");
}

int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return inb(fh, FP, 0, 0, buf, count, datatype, request, "MPI_File_iread_all");
}

int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return inb(fh, FP, 1, 0, buf, count, datatype, request, "MPI_File_iwrite_all");
}

int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return inb(fh, SHARED, 0, 0, buf, count, datatype, request, "MPI_File_iread_shared");
}

int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return inb(fh, SHARED, 1, 0, buf, count, datatype, request, "MPI_File_iwrite_shared");
}

/* ------------------------------------------------------------ split collectives */

enum { SPLIT_AT = 1, SPLIT_FP, SPLIT_ORDERED };

static int split_begin(MPI_File fh, int how, int wr, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, const char *fn)
{
    file_t *f;
    MPI_Status st;
    MPI_Count n = 0;

    GET_FILE(fh, f, fn);
    if (f->split)
        return FERR(fh, f, MPI_ERR_OTHER, fn, "a split collective is already active on this file");
    f->split_rc = how == SPLIT_AT   ? io_at(fh, wr, offset, buf, count, datatype, &st, fn)
                  : how == SPLIT_FP ? io_fp(fh, wr, buf, count, datatype, &st, fn)
                                    : io_ordered(fh, wr, buf, count, datatype, &st, fn);
    if (f->split_rc == MPI_SUCCESS)
        MPI_Get_elements_x(&st, MPI_BYTE, &n);
    f->split_bytes = (MPI_Offset)n;
    f->split = how;
    return MPI_SUCCESS;
}

static int split_end(MPI_File fh, int how, MPI_Status *status, const char *fn)
{
    file_t *f;

    GET_FILE(fh, f, fn);
    if (f->split != how)
        return FERR(fh, f, MPI_ERR_OTHER, fn, "no matching split collective was begun on this file");
    f->split = 0;
    if (f->split_rc == MPI_SUCCESS)
        set_status(status, f->split_bytes);
    return f->split_rc;
}

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_AT, 0, offset, buf, count, datatype, "MPI_File_read_at_all_begin");
}

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_AT, status, "MPI_File_read_at_all_end");
}

int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_AT, 1, offset, buf, count, datatype, "MPI_File_write_at_all_begin");
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_AT, status, "MPI_File_write_at_all_end");
}

int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_FP, 0, 0, buf, count, datatype, "MPI_File_read_all_begin");
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_FP, status, "MPI_File_read_all_end");
}

int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_FP, 1, 0, buf, count, datatype, "MPI_File_write_all_begin");
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_FP, status, "MPI_File_write_all_end");
}

int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_ORDERED, 0, 0, buf, count, datatype, "MPI_File_read_ordered_begin");
}

int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_ORDERED, status, "MPI_File_read_ordered_end");
}

int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_ORDERED, 1, 0, buf, count, datatype, "MPI_File_write_ordered_begin");
}

int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return split_end(fh, SPLIT_ORDERED, status, "MPI_File_write_ordered_end");
}

/* ------------------------------------------------------------ positions */

/* the view offset (etypes) of the end of the file: the data bytes of the
 * view that lie before it */
static MPI_Offset view_end(file_t *f)
{
    const mpii_datatype_t *t = mpii_datatype_get(f->ftype);
    struct stat st;
    MPI_Offset size, k, data;

    if (t->size == 0 || fstat(f->fd, &st) != 0 || st.st_size <= f->disp)
        return 0;
    size = st.st_size;
    if (t->contig)
        return (size - f->disp - t->true_lb) / (MPI_Offset)f->esize;
    k = (size - f->disp) / t->extent;
    data = k * (MPI_Offset)t->size;
    for (size_t b = 0; b < t->nblocks; b++) {
        MPI_Offset s = f->disp + k * t->extent + t->blocks[b].disp;
        if (s >= size)
            continue;
        data += size - s < (MPI_Offset)t->blocks[b].len ? size - s : (MPI_Offset)t->blocks[b].len;
    }
    return data / (MPI_Offset)f->esize;
}

static int new_position(MPI_File fh, file_t *f, MPI_Offset cur, MPI_Offset offset, int whence,
                        MPI_Offset *out, const char *fn)
{
    switch (whence) {
    case MPI_SEEK_SET:
        *out = offset;
        break;
    case MPI_SEEK_CUR:
        *out = cur + offset;
        break;
    case MPI_SEEK_END:
        *out = view_end(f) + offset;
        break;
    default:
        return FERR(fh, f, MPI_ERR_ARG, fn, "invalid whence %d", whence);
    }
    if (*out < 0)
        return FERR(fh, f, MPI_ERR_ARG, fn, "the position would be negative (%lld)", (long long)*out);
    return MPI_SUCCESS;
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    file_t *f;
    MPI_Offset at;
    int rc;

    GET_FILE(fh, f, "MPI_File_seek");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FERR(fh, f, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek", "MPI_MODE_SEQUENTIAL file");
    rc = new_position(fh, f, f->fp, offset, whence, &at, "MPI_File_seek");
    if (rc == MPI_SUCCESS)
        f->fp = at;
    return rc;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_position");
    if (!offset)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_position", "offset is NULL");
    *offset = f->fp;
    return MPI_SUCCESS;
}

int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    file_t *f;
    MPI_Offset at = 0;
    int rank, rc = MPI_SUCCESS;

    GET_FILE(fh, f, "MPI_File_seek_shared");
    MPI_Comm_rank(f->comm, &rank);
    MPI_Barrier(f->comm); /* every earlier shared access is done */
    if (rank == 0) {
        rc = new_position(fh, f, shared_fetch_add(f, 0), offset, whence, &at, "MPI_File_seek_shared");
        if (rc == MPI_SUCCESS) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shwin);
            *f->shptr = at;
            MPI_Win_unlock(0, f->shwin);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    return rc;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    file_t *f;
    GET_FILE(fh, f, "MPI_File_get_position_shared");
    if (!offset)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_position_shared", "offset is NULL");
    *offset = shared_fetch_add(f, 0);
    return MPI_SUCCESS;
}

int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    file_t *f;
    size_t run;
    GET_FILE(fh, f, "MPI_File_get_byte_offset");
    if (!disp)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_byte_offset", "disp is NULL");
    if (offset < 0)
        return FERR(fh, f, MPI_ERR_ARG, "MPI_File_get_byte_offset", "negative offset %lld",
                    (long long)offset);
    *disp = view_pos(f, offset * (MPI_Offset)f->esize, &run);
    return MPI_SUCCESS;
}
