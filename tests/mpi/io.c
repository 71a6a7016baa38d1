/*
 * io: MPI-IO. On a file in /tmp named by rank 0:
 *  - explicit offsets (write_at / read_at of other ranks' blocks), a read
 *    past the end returning fewer elements (MPI_Get_count);
 *  - an interleaved view (each rank's filetype: its B ints of every tile of
 *    size x B), written collectively and checked through the default view;
 *    a memory type that is not contiguous;
 *  - the individual file pointer (write, seek SET / CUR / END,
 *    get_position, get_byte_offset), nonblocking and split collective
 *    calls;
 *  - the shared file pointer: write_shared records each land once,
 *    write_ordered / read_ordered in rank order;
 *  - set_size, preallocate, get_size, get_amode, get_group, get_view,
 *    get_info, atomicity, sync;
 *  - "external32" (13.5.2): records of a padded struct written through a
 *    packed view land big-endian, byte for byte as the standard's table
 *    says, and read back equal, non-contiguous memory and file types, an
 *    MPI_LONG_DOUBLE as IEEE quadruple precision; "internal";
 *  - a view whose filetype holds no data on one rank (set_view succeeds
 *    there, nothing moves through it, the others' data lands);
 *  - error classes under the files' default MPI_ERRORS_RETURN (no such
 *    file, bad amode, EXCL on an existing file, read on a write-only file,
 *    external32 of MPI_LONG (4 bytes there), a registered representation
 *    that converts), MPI_Register_datarep
 *    (a duplicate name, one without conversions usable in a view; its MPI 4.0 _c form too), a user handler
 * set on MPI_FILE_NULL and on a file, and MPI_MODE_DELETE_ON_CLOSE.
 */
#define TEST_NAME "io"
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_RANK rank
#include "check.h"

static int rank = -1, size;

/* io's name for MPI_CHECK (object-like, so that #call shows the call as written) */

#define N 1000 /* ints per rank block */
#define B 7    /* ints per rank per tile of the interleaved view */
#define K 50   /* tiles */

static char path[256];

static int count_of(MPI_Status *st, MPI_Datatype t)
{
    int n = -1;
    MPI_CHECK(MPI_Get_count(st, t, &n));
    return n;
}

static void explicit_offsets(void)
{
    MPI_File fh;
    MPI_Status st;
    int *a = malloc(N * sizeof(int)), peer = (rank + 1) % size;

    for (int i = 0; i < N; i++)
        a[i] = rank * 100000 + i;
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_write_at(fh, (MPI_Offset)rank * N * sizeof(int), a, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N, "write_at count %d", count_of(&st, MPI_INT));
    MPI_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_sync(fh));
    memset(a, 0, N * sizeof(int));
    MPI_CHECK(MPI_File_read_at(fh, (MPI_Offset)peer * N * sizeof(int), a, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N, "read_at count");
    for (int i = 0; i < N; i++)
        CHECK(a[i] == peer * 100000 + i, "read_at of rank %d's block: [%d] = %d", peer, i, a[i]);
    /* past the end: the last rank's block holds N ints, ask for 2N */
    int *b = malloc(2 * N * sizeof(int));
    MPI_CHECK(MPI_File_read_at(fh, (MPI_Offset)(size - 1) * N * sizeof(int) + 8, b, 2 * N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N - 2, "read past the end gave %d ints, expected %d",
          count_of(&st, MPI_INT), N - 2);
    MPI_Offset sz = -1;
    MPI_CHECK(MPI_File_get_size(fh, &sz));
    CHECK(sz == (MPI_Offset)(size * N * sizeof(int)), "size %lld", (long long)sz);
    /* (the resizes are collective, not synchronizing: barriers order them
     * against the other ranks' queries) */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_set_size(fh, 40));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 40, "after set_size(40): %lld", (long long)sz);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_preallocate(fh, 20)); /* never shrinks */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 40, "after preallocate(20): %lld", (long long)sz);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_preallocate(fh, 4096));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4096, "after preallocate(4096): %lld", (long long)sz);
    MPI_CHECK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not null the handle");
    free(a);
    free(b);
}

static void interleaved_view(void)
{
    MPI_File fh;
    MPI_Datatype contig, ftype, mtype, e, t;
    MPI_Status st;
    MPI_Offset disp;
    char rep[MPI_MAX_DATAREP_STRING];
    int *mem = malloc(2 * K * B * sizeof(int)), *all;

    MPI_CHECK(MPI_Type_contiguous(B, MPI_INT, &contig));
    MPI_CHECK(MPI_Type_create_resized(contig, 0, (MPI_Aint)size * B * sizeof(int), &ftype));
    MPI_CHECK(MPI_Type_commit(&ftype));
    /* memory: every other int of mem */
    MPI_CHECK(MPI_Type_vector(K * B, 1, 2, MPI_INT, &mtype));
    MPI_CHECK(MPI_Type_commit(&mtype));
    for (int i = 0; i < 2 * K * B; i++)
        mem[i] = i % 2 ? -1 : rank * 100000 + i / 2;

    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_set_size(fh, 0));
    MPI_CHECK(
        MPI_File_set_view(fh, (MPI_Offset)rank * B * sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL));
    MPI_CHECK(MPI_File_get_view(fh, &disp, &e, &t, rep));
    CHECK(disp == (MPI_Offset)(rank * B * sizeof(int)) && e == MPI_INT && !strcmp(rep, "native"), "get_view");
    {
        int sz;
        MPI_Aint lb, ext;
        MPI_CHECK(MPI_Type_size(t, &sz));
        MPI_CHECK(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(sz == B * (int)sizeof(int) && ext == (MPI_Aint)(size * B * sizeof(int)), "get_view filetype");
        MPI_CHECK(MPI_Type_free(&t)); /* a derived filetype comes back as a new handle */
    }
    MPI_CHECK(MPI_Type_free(&ftype)); /* the view keeps it */
    MPI_CHECK(MPI_File_write_all(fh, mem, 1, mtype, &st));
    CHECK(count_of(&st, MPI_INT) == K * B, "write_all count %d", count_of(&st, MPI_INT));
    MPI_Offset pos = -1, byte = -1;
    MPI_CHECK(MPI_File_get_position(fh, &pos));
    CHECK(pos == K * B, "position %lld after writing %d ints", (long long)pos, K * B);
    MPI_CHECK(MPI_File_get_byte_offset(fh, B + 2, &byte));
    CHECK(byte == (MPI_Offset)(rank * B + size * B + 2) * (MPI_Offset)sizeof(int), "byte offset %lld",
          (long long)byte);
    MPI_Barrier(MPI_COMM_WORLD);

    /* read it back through the view into the strided memory */
    for (int i = 0; i < 2 * K * B; i++)
        mem[i] = -7;
    MPI_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_CHECK(MPI_File_read_all(fh, mem, 1, mtype, &st));
    for (int i = 0; i < 2 * K * B; i++)
        CHECK(mem[i] == (i % 2 ? -7 : rank * 100000 + i / 2), "view read back: mem[%d] = %d", i, mem[i]);
    /* seeks: END is the end of this rank's data in the file */
    MPI_CHECK(MPI_File_seek(fh, -3, MPI_SEEK_END));
    MPI_CHECK(MPI_File_get_position(fh, &pos));
    CHECK(pos == K * B - 3, "SEEK_END - 3 gave %lld", (long long)pos);
    MPI_CHECK(MPI_File_seek(fh, 1, MPI_SEEK_CUR));
    MPI_CHECK(MPI_File_get_position(fh, &pos));
    CHECK(pos == K * B - 2, "SEEK_CUR + 1 gave %lld", (long long)pos);
    ECLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    MPI_CHECK(MPI_File_close(&fh));

    /* the whole file, default view: tiles of size x B ints */
    all = malloc((size_t)size * K * B * sizeof(int));
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_read_at_all(fh, 0, all, size * K * B, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == size * K * B, "whole file count");
    for (int k = 0; k < K; k++)
        for (int r = 0; r < size; r++)
            for (int j = 0; j < B; j++) {
                int v = all[(k * size + r) * B + j];
                CHECK(v == r * 100000 + k * B + j, "tile %d rank %d int %d: %d", k, r, j, v);
            }
    MPI_CHECK(MPI_File_close(&fh));
    free(all);
    free(mem);
    MPI_CHECK(MPI_Type_free(&mtype));
    MPI_CHECK(MPI_Type_free(&contig));
}

static int native_extent(MPI_Datatype t, MPI_Aint *extent, void *extra)
{
    MPI_Aint lb;
    (void)extra;
    return MPI_Type_get_extent(t, &lb, extent);
}

static int conversion(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset pos, void *extra)
{
    (void)userbuf, (void)t, (void)count, (void)filebuf, (void)pos, (void)extra;
    return MPI_SUCCESS;
}

static int conversion_c(void *userbuf, MPI_Datatype t, MPI_Count count, void *filebuf, MPI_Offset pos,
                        void *extra)
{
    (void)userbuf, (void)t, (void)count, (void)filebuf, (void)pos, (void)extra;
    return MPI_SUCCESS;
}

static void pointers(void)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    int rec[2] = {rank, 0}, *recs = malloc((size_t)size * 2 * sizeof(int)), seen = 0, x = -1;
    MPI_Offset pos;

    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_set_size(fh, 0));
    MPI_CHECK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_get_position_shared(fh, &pos));
    /* (the default view's etype is MPI_BYTE) */
    CHECK(pos == (MPI_Offset)(2 * size * sizeof(int)), "shared position %lld after %d records",
          (long long)pos, size);
    /* then in rank order */
    rec[1] = 1;
    MPI_CHECK(MPI_File_write_ordered(fh, rec, 2, MPI_INT, &st));
    MPI_CHECK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)(4 * size * sizeof(int)), "shared position %lld after ordered", (long long)pos);
    ECLASS(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st), MPI_ERR_ACCESS); /* write-only */
    MPI_CHECK(MPI_File_close(&fh));

    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_read_at(fh, 0, recs, 2 * size, MPI_INT, &st));
    for (int r = 0; r < size; r++) {
        CHECK(recs[2 * r + 1] == 0 && recs[2 * r] >= 0 && recs[2 * r] < size, "shared record %d", r);
        seen |= 1 << recs[2 * r];
    }
    CHECK(seen == (1 << size) - 1, "write_shared records: mask %x", seen);
    MPI_CHECK(MPI_File_seek_shared(fh, (MPI_Offset)(2 * size * sizeof(int)), MPI_SEEK_SET));
    rec[0] = rec[1] = -1;
    MPI_CHECK(MPI_File_read_ordered(fh, rec, 2, MPI_INT, &st));
    CHECK(rec[0] == rank && rec[1] == 1, "read_ordered gave %d %d", rec[0], rec[1]);
    /* writing a file opened read-only: MPI_ERR_READ_ONLY, as set_size says
     * (MPICH and Open MPI alike), not MPI_ERR_ACCESS */
    ECLASS(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    ECLASS(MPI_File_write(fh, &x, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    /* nonblocking and split collective reads of the same records */
    MPI_CHECK(MPI_File_iread_at(fh, (MPI_Offset)(2 * size + 2 * rank) * sizeof(int), rec, 2, MPI_INT, &rq));
    MPI_CHECK(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL && count_of(&st, MPI_INT) == 2 && rec[0] == rank, "iread_at");
    rec[0] = -1;
    MPI_CHECK(
        MPI_File_read_at_all_begin(fh, (MPI_Offset)(2 * size + 2 * rank) * sizeof(int), rec, 2, MPI_INT));
    ECLASS(MPI_File_read_all_begin(fh, rec, 2, MPI_INT), MPI_ERR_OTHER); /* one split at a time */
    MPI_CHECK(MPI_File_read_at_all_end(fh, rec, &st));
    CHECK(rec[0] == rank && count_of(&st, MPI_INT) == 2, "split collective read");
    int amode = 0, cmp = -1, flag = -1;
    MPI_Group g, wg;
    MPI_Info info;
    MPI_CHECK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == MPI_MODE_RDONLY, "amode %d", amode);
    MPI_CHECK(MPI_File_get_group(fh, &g));
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_CHECK(MPI_Group_compare(g, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "file group compares %d", cmp);
    MPI_CHECK(MPI_Group_free(&g));
    MPI_CHECK(MPI_Group_free(&wg));
    MPI_CHECK(MPI_File_get_info(fh, &info));
    MPI_CHECK(MPI_Info_free(&info));
    MPI_CHECK(MPI_File_set_atomicity(fh, 1));
    MPI_CHECK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity %d", flag);
    ECLASS(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP);
    /* a registered representation without conversions, native extents */
    MPI_CHECK(MPI_Register_datarep("io-test-rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                   native_extent, NULL));
    ECLASS(MPI_Register_datarep("io-test-rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, native_extent,
                                NULL),
           MPI_ERR_DUP_DATAREP);
    ECLASS(
        MPI_Register_datarep("native", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, native_extent, NULL),
        MPI_ERR_DUP_DATAREP);
    MPI_CHECK(MPI_Register_datarep("io-test-conv", conversion, conversion, native_extent, NULL));
    ECLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io-test-conv", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP);
    /* MPI 4.0's large-count registration: the same table */
    ECLASS(MPI_Register_datarep_c("io-test-rep", MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C,
                                  native_extent, NULL),
           MPI_ERR_DUP_DATAREP);
    ECLASS(
        MPI_Register_datarep_c("io-test-c", MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, NULL, NULL),
        MPI_ERR_ARG);
    MPI_CHECK(MPI_Register_datarep_c("io-test-conv-c", conversion_c, MPI_CONVERSION_FN_NULL_C, native_extent,
                                     NULL));
    ECLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io-test-conv-c", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_CHECK(MPI_Register_datarep_c("io-test-c", MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C,
                                     native_extent, NULL));
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io-test-c", MPI_INFO_NULL));
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io-test-rep", MPI_INFO_NULL));
    {
        MPI_Offset d;
        MPI_Datatype e, t;
        char rep[MPI_MAX_DATAREP_STRING];
        MPI_CHECK(MPI_File_get_view(fh, &d, &e, &t, rep));
        CHECK(!strcmp(rep, "io-test-rep"), "get_view's datarep \"%s\"", rep);
    }
    MPI_CHECK(MPI_File_close(&fh));
    free(recs);
}

/* "external32": big-endian values at the packed (file) layout */
typedef struct rec {
    int i;
    double d;
    short s;
    float f;
    long long ll;
    unsigned char b[3];
} rec_t;
#define REC_FILE 29 /* 4 + 8 + 2 + 4 + 8 + 3 */
#define NREC 5

static void put_be(unsigned char *p, const void *v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = ((const unsigned char *)v)[n - 1 - k]; /* this host is little-endian */
}

static void external32(void)
{
    MPI_File fh;
    MPI_Datatype mem, file;
    MPI_Status st;
    rec_t out[NREC], in[NREC];
    unsigned char raw[NREC * REC_FILE], want[NREC * REC_FILE];
    int bl[6] = {1, 1, 1, 1, 1, 3};
    MPI_Aint md[6] = {offsetof(rec_t, i), offsetof(rec_t, d),  offsetof(rec_t, s),
                      offsetof(rec_t, f), offsetof(rec_t, ll), offsetof(rec_t, b)},
             fd[6] = {0, 4, 12, 14, 18, 26};
    MPI_Datatype ty[6] = {MPI_INT, MPI_DOUBLE, MPI_SHORT, MPI_FLOAT, MPI_LONG_LONG, MPI_UNSIGNED_CHAR};
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype e, t;

    /* memory: the padded struct (40 bytes); file: the same values packed */
    MPI_CHECK(MPI_Type_create_struct(6, bl, md, ty, &mem));
    MPI_CHECK(MPI_Type_commit(&mem));
    MPI_CHECK(MPI_Type_create_struct(6, bl, fd, ty, &e)); /* extent 32: aligned */
    MPI_CHECK(MPI_Type_create_resized(e, 0, REC_FILE, &file));
    MPI_CHECK(MPI_Type_free(&e));
    MPI_CHECK(MPI_Type_commit(&file));
    memset(out, 0xee, sizeof out); /* padding: must not reach the file */
    for (int r = 0; r < NREC; r++) {
        out[r].i = -1000 * rank - r;
        out[r].d = 1.0 / 3 + rank * 100 + r;
        out[r].s = (short)(-300 - r);
        out[r].f = 2.5f * (float)(r + 1);
        out[r].ll = 0x0102030405060708LL * (rank + 1) + r;
        out[r].b[0] = (unsigned char)r;
        out[r].b[1] = (unsigned char)rank;
        out[r].b[2] = 0xab;
        unsigned char *w = want + r * REC_FILE;
        put_be(w, &out[r].i, 4);
        put_be(w + 4, &out[r].d, 8);
        put_be(w + 12, &out[r].s, 2);
        put_be(w + 14, &out[r].f, 4);
        put_be(w + 18, &out[r].ll, 8);
        memcpy(w + 26, out[r].b, 3);
    }
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_set_size(fh, 0));
    MPI_CHECK(MPI_File_set_view(fh, 0, file, file, "external32", MPI_INFO_NULL));
    MPI_CHECK(MPI_File_get_view(fh, &d, &e, &t, rep));
    CHECK(!strcmp(rep, "external32"), "get_view's datarep \"%s\"", rep);
    if (e != file)
        MPI_CHECK(MPI_Type_free(&e));
    if (t != file)
        MPI_CHECK(MPI_Type_free(&t));
    MPI_CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * NREC, out, NREC, mem, &st));
    CHECK(count_of(&st, mem) == NREC, "external32 write count");
    MPI_CHECK(MPI_File_sync(fh));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    /* the bytes, through a native byte view */
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_CHECK(MPI_File_read_at(fh, (MPI_Offset)rank * sizeof raw, raw, sizeof raw, MPI_BYTE, &st));
    for (size_t k = 0; k < sizeof raw; k++)
        CHECK(raw[k] == want[k], "external32 file byte %zu of record %zu is %02x, want %02x", k % REC_FILE,
              k / REC_FILE, raw[k], want[k]);
    /* back through the view, and through "internal" (native here) */
    MPI_CHECK(MPI_File_set_view(fh, 0, file, file, "external32", MPI_INFO_NULL));
    memset(in, 0, sizeof in);
    MPI_CHECK(MPI_File_read_at_all(fh, (MPI_Offset)rank * NREC, in, NREC, mem, &st));
    CHECK(count_of(&st, mem) == NREC, "external32 read count");
    for (int r = 0; r < NREC; r++)
        CHECK(in[r].i == out[r].i && in[r].d == out[r].d && in[r].s == out[r].s && in[r].f == out[r].f &&
                  in[r].ll == out[r].ll && !memcmp(in[r].b, out[r].b, 3),
              "external32 record %d read back differs", r);
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
    {
        int v = 0x11223344, back = 0;
        unsigned char b4[4];
        MPI_CHECK(MPI_File_write_at(fh, 1000 + rank, &v, 1, MPI_INT, &st));
        MPI_CHECK(MPI_File_read_at(fh, 1000 + rank, &back, 1, MPI_INT, &st));
        CHECK(back == v, "\"internal\" read back %x", back);
        MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        MPI_CHECK(MPI_File_read_at(fh, 4 * (1000 + rank), b4, 4, MPI_BYTE, &st));
        CHECK(!memcmp(b4, &v, 4), "\"internal\" is not the native layout here");
    }
    /* a long double is IEEE quadruple precision, big-endian: 1.5 is 3fff 8000 0...0
     * (set_view is collective: every rank sets each view, rank 0 writes) */
    long double ld = 1.5L, ldback = 0;
    unsigned char q[16];
    long l = 7;
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, "external32", MPI_INFO_NULL));
    if (rank == 0) {
        MPI_CHECK(MPI_File_write_at(fh, 500, &ld, 1, MPI_LONG_DOUBLE, &st));
        MPI_CHECK(MPI_File_read_at(fh, 500, &ldback, 1, MPI_LONG_DOUBLE, &st));
        CHECK(ldback == ld, "external32 long double read back %Lg", ldback);
    }
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    if (rank == 0) {
        MPI_CHECK(MPI_File_read_at(fh, 500 * 16, q, 16, MPI_BYTE, &st));
        CHECK(q[0] == 0x3f && q[1] == 0xff && q[2] == 0x80 && q[3] == 0 && q[15] == 0,
              "external32 long double 1.5 is %02x%02x %02x%02x ... %02x", q[0], q[1], q[2], q[3], q[15]);
    }
    /* a memory type with an MPI_LONG (4 bytes in external32) under such a view */
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    ECLASS(MPI_File_write_at(fh, 0, &l, 1, MPI_LONG, &st), MPI_ERR_UNSUPPORTED_DATAREP);
    {
        MPI_Aint x = 0;
        MPI_CHECK(MPI_File_get_type_extent(fh, MPI_LONG, &x));
        CHECK(x == 4, "external32 extent of MPI_LONG %ld, want 4", (long)x);
        MPI_CHECK(MPI_File_get_type_extent(fh, mem, &x));
        CHECK(x == sizeof(rec_t), "external32 extent of the struct %ld", (long)x);
    }
    MPI_CHECK(MPI_File_close(&fh));
    MPI_CHECK(MPI_Type_free(&mem));
    MPI_CHECK(MPI_Type_free(&file));
}

static int handler_calls, handler_file;

static void file_handler(MPI_File *f, int *code, ...)
{
    handler_calls++;
    handler_file = *f;
    (void)code;
}

static void errors(void)
{
    MPI_File fh = 12345, fh2;
    MPI_Errhandler eh, got;
    char missing[300];
    int x = 0;

    snprintf(missing, sizeof missing, "%s.missing", path);
    ECLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "failed open left handle %d", fh);
    ECLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
           MPI_ERR_AMODE);
    ECLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
           MPI_ERR_AMODE);
    ECLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh),
           MPI_ERR_FILE_EXISTS);
    if (rank == 0)
        ECLASS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);

    /* a user handler on MPI_FILE_NULL serves open, and new files get it */
    MPI_CHECK(MPI_File_create_errhandler(file_handler, &eh));
    MPI_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    ECLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(handler_calls == 1 && handler_file == MPI_FILE_NULL, "handler on MPI_FILE_NULL: %d calls",
          handler_calls);
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "a new file's handler is %d, not MPI_FILE_NULL's %d", got, eh);
    MPI_CHECK(MPI_Errhandler_free(&got));
    ECLASS(MPI_File_read(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    CHECK(handler_calls == 2 && handler_file == fh, "handler on the file: %d calls, file %d", handler_calls,
          handler_file);
    MPI_CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    ECLASS(MPI_File_read(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    CHECK(handler_calls == 2, "MPI_ERRORS_RETURN still called the handler");
    MPI_CHECK(MPI_File_call_errhandler(fh, MPI_ERR_IO)); /* returns, handler is ERRORS_RETURN */
    MPI_CHECK(MPI_File_close(&fh));
    MPI_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Errhandler_free(&eh));

    /* DELETE_ON_CLOSE, with an iwrite */
    MPI_Request rq;
    MPI_Status st;
    int v = 42;
    MPI_CHECK(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh2));
    MPI_CHECK(MPI_File_iwrite_at(fh2, rank * sizeof(int), &v, 1, MPI_INT, &rq));
    MPI_CHECK(MPI_Wait(&rq, &st));
    CHECK(count_of(&st, MPI_INT) == 1, "iwrite_at count");
    MPI_CHECK(MPI_File_close(&fh2));
    CHECK(access(path, F_OK) != 0, "%s is still there after MPI_MODE_DELETE_ON_CLOSE", path);
}

/* A rank with nothing to access gives its view a filetype of no data (an
 * hindexed type of empty blocks, as PnetCDF builds it): set_view takes it
 * on every rank, so the collective calls after it stay matched (they hung
 * when that rank's set_view failed alone); through it nothing moves, and
 * the other ranks' data lands where their views say. */
static void empty_view(void)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Datatype ft;
    MPI_Offset pos = -1, end = -1;
    int empty = rank == size - 1, v = 1000 + rank, got = -1;
    int bl[2] = {0, 0};
    MPI_Aint disp[2] = {8, 64};

    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_set_size(fh, 0));
    if (empty) {
        MPI_CHECK(MPI_Type_create_hindexed(2, bl, disp, MPI_BYTE, &ft));
    } else {
        bl[0] = (int)sizeof(int);
        disp[0] = (MPI_Aint)(rank * sizeof(int));
        MPI_CHECK(MPI_Type_create_hindexed(1, bl, disp, MPI_BYTE, &ft));
    }
    MPI_CHECK(MPI_Type_commit(&ft));
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_CHECK(MPI_Type_free(&ft));
    MPI_CHECK(MPI_File_write_at_all(fh, 0, &v, empty ? 0 : 1, MPI_INT, &st));
    if (empty) {
        /* Open MPI's reading of an access through such a view: no bytes */
        MPI_CHECK(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st));
        CHECK(count_of(&st, MPI_BYTE) == 0, "a write through an empty view moved %d bytes",
              count_of(&st, MPI_BYTE));
        MPI_CHECK(MPI_File_get_byte_offset(fh, 5, &pos));
        CHECK(pos == 0, "byte offset %lld in an empty view at displacement 0", (long long)pos);
        MPI_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_END));
        MPI_CHECK(MPI_File_get_position(fh, &end));
        CHECK(end == 0, "the end of an empty view is at %lld", (long long)end);
    }
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_CHECK(MPI_File_sync(fh));
    for (int r = 0; r < size - 1; r++) {
        MPI_CHECK(MPI_File_read_at(fh, (MPI_Offset)(r * sizeof(int)), &got, 1, MPI_INT, &st));
        CHECK(got == 1000 + r, "rank %d's int reads %d", r, got);
    }
    MPI_CHECK(MPI_File_get_size(fh, &end));
    CHECK(end == (MPI_Offset)((size - 1) * sizeof(int)), "file of %lld bytes, %d ints written",
          (long long)end, size - 1);
    MPI_CHECK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        snprintf(path, sizeof path, "/tmp/mbmpi-io-test-%d", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    explicit_offsets();
    interleaved_view();
    pointers();
    MPI_Barrier(MPI_COMM_WORLD);
    external32();
    MPI_Barrier(MPI_COMM_WORLD);
    empty_view();
    errors();

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("%s: ok\n", TEST_NAME);
    return 0;
}
