/*
 * large_count: the large-count calls of MPI 4.0 (MPI_X_c, MPI_Count counts
 * and MPI_Aint or MPI_Count displacements). Point to point (Send_c /
 * Recv_c / Get_count_c, Isend_c / Irecv_c, Sendrecv_c, Bsend_c with
 * Buffer_attach_c / Buffer_detach_c), datatypes (Type_contiguous_c,
 * Type_create_hindexed_c and Type_create_struct_c with MPI_Count
 * displacements, Type_size_c, Type_get_extent_c, Type_get_true_extent_c,
 * also of a 16 GiB type, Get_count_c / Get_elements_c of a status of
 * 5 * 10^9 bytes,
 * Type_get_envelope_c / Type_get_contents_c), Pack_c / Unpack_c /
 * Pack_size_c with an MPI_Count position, collectives (Bcast_c,
 * Allreduce_c with an op of MPI_Op_create_c whose length is an MPI_Count,
 * Gatherv_c with the arrays at the root only, Allgatherv_c, Alltoallv_c,
 * Reduce_scatter_c, Reduce_local_c; Ialltoallv_c and Alltoallv_init_c,
 * whose converted arrays must live until the request goes;
 * Neighbor_alltoallv_c on a ring), MPI-IO (File_write_at_all_c,
 * File_read_at_c, File_get_type_extent_c), one-sided (Win_allocate_c, Put_c,
 * Get_c); counts above INT_MAX (a receive of 3 * 10^9 bytes, a send of
 * 3 * 10^9 elements of no bytes, Type_contiguous_c of 2^40 ints, blocks of
 * 3 * 10^9 in Type_create_hindexed_c / struct_c / indexed_c); a stride
 * above INT_MAX and a negative count give MPI_ERR_COUNT.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TEST_NAME "large_count"
static int rank = -1, size;
#define CHECK_RANK rank
#include "check.h"

static MPI_Count big_len_seen; /* the length the _c op got */

static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    big_len_seen = *len;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void p2p(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, a[10], b[10], bsz;
    MPI_Request r[2];
    MPI_Status st;
    MPI_Count n;
    void *buf, *det;

    for (int i = 0; i < 10; i++)
        a[i] = rank * 100 + i;
    MPI_CHECK(MPI_Irecv_c(b, (MPI_Count)10, MPI_INT, prev, 1, MPI_COMM_WORLD, &r[0]));
    MPI_CHECK(MPI_Isend_c(a, (MPI_Count)10, MPI_INT, next, 1, MPI_COMM_WORLD, &r[1]));
    MPI_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(b[9] == prev * 100 + 9, "Isend_c / Irecv_c got %d", b[9]);
    MPI_CHECK(MPI_Sendrecv_c(a, 7, MPI_INT, next, 2, b, 10, MPI_INT, prev, 2, MPI_COMM_WORLD, &st));
    MPI_CHECK(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == 7, "Get_count_c gave %lld", (long long)n);
    MPI_CHECK(MPI_Get_elements_c(&st, MPI_INT, &n));
    CHECK(n == 7, "Get_elements_c gave %lld", (long long)n);
    if (rank == 0) {
        MPI_CHECK(MPI_Send_c(a, 10, MPI_INT, size - 1, 3, MPI_COMM_WORLD));
    }
    if (rank == size - 1) {
        MPI_CHECK(MPI_Recv_c(b, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, &st));
        CHECK(b[3] == 3 && st.MPI_SOURCE == 0, "Send_c / Recv_c got %d from %d", b[3], st.MPI_SOURCE);
    }
    bsz = 10 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    buf = malloc((size_t)bsz);
    MPI_CHECK(MPI_Buffer_attach_c(buf, bsz));
    MPI_CHECK(MPI_Bsend_c(a, 10, MPI_INT, next, 4, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Recv_c(b, 10, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Buffer_detach_c(&det, &n));
    CHECK(det == buf && n == bsz, "Buffer_detach_c gave %p %lld", det, (long long)n);
    free(buf);
}

static void types(void)
{
    MPI_Datatype t, s;
    MPI_Count sz, lb, ext, ni, na, nl, nd, disp[2] = {0, 16}, bl[2] = {1, 2};
    MPI_Datatype types2[2] = {MPI_INT, MPI_DOUBLE};
    int comb, ints[8], in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0}, pos_ok;
    MPI_Aint addrs[8];
    MPI_Datatype dts[8];
    MPI_Status st;
    char packed[64];
    MPI_Count pos = 0;

    /* a type of 16 GiB made with int counts: its size and extent need 64 bits */
    MPI_CHECK(MPI_Type_contiguous(1 << 16, MPI_INT, &s));
    MPI_CHECK(MPI_Type_contiguous(1 << 16, s, &t));
    MPI_CHECK(MPI_Type_size_c(t, &sz));
    CHECK(sz == (MPI_Count)4 << 32, "Type_size_c of 2^32 ints gave %lld", (long long)sz);
    MPI_CHECK(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Count)4 << 32, "Type_get_extent_c gave %lld %lld", (long long)lb,
          (long long)ext);
    MPI_CHECK(MPI_Type_get_true_extent_c(t, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Count)4 << 32, "Type_get_true_extent_c gave %lld %lld", (long long)lb,
          (long long)ext);
    MPI_CHECK(MPI_Type_free(&t));
    MPI_CHECK(MPI_Type_free(&s));
    /* and a status of 5 * 10^9 bytes */
    MPI_CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, 5000000000LL));
    MPI_CHECK(MPI_Get_count_c(&st, MPI_BYTE, &sz));
    CHECK(sz == 5000000000LL, "Get_count_c of 5 * 10^9 bytes gave %lld", (long long)sz);
    MPI_CHECK(MPI_Get_count_c(&st, MPI_INT, &sz));
    CHECK(sz == 1250000000LL, "Get_count_c as ints gave %lld", (long long)sz);
    MPI_CHECK(MPI_Get_elements_c(&st, MPI_BYTE, &sz));
    CHECK(sz == 5000000000LL, "Get_elements_c gave %lld", (long long)sz);

    MPI_CHECK(MPI_Type_contiguous_c(3, MPI_INT, &t));
    MPI_CHECK(MPI_Type_size_c(t, &sz));
    CHECK(sz == 12, "Type_size_c gave %lld", (long long)sz);
    MPI_CHECK(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && na == 0 && nl == 0 && nd == 1,
          "Type_get_envelope_c: combiner %d, %lld %lld %lld %lld", comb, (long long)ni, (long long)na,
          (long long)nl, (long long)nd);
    MPI_CHECK(MPI_Type_get_contents_c(t, 8, 8, 8, 8, ints, addrs, NULL, dts));
    CHECK(ints[0] == 3 && dts[0] == MPI_INT, "Type_get_contents_c gave %d", ints[0]);
    MPI_CHECK(MPI_Type_free(&t));

    MPI_CHECK(MPI_Type_create_hindexed_c(2, bl, disp, MPI_INT, &t));
    MPI_CHECK(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(lb == 0 && ext == 24, "hindexed_c extent %lld %lld", (long long)lb, (long long)ext);
    MPI_CHECK(MPI_Type_get_true_extent_c(t, &lb, &ext));
    CHECK(lb == 0 && ext == 24, "hindexed_c true extent %lld %lld", (long long)lb, (long long)ext);
    MPI_CHECK(MPI_Type_free(&t));

    disp[1] = 8;
    MPI_CHECK(MPI_Type_create_struct_c(2, bl, disp, types2, &s));
    MPI_CHECK(MPI_Type_size_c(s, &sz));
    CHECK(sz == 4 + 16, "struct_c size %lld", (long long)sz);
    MPI_CHECK(MPI_Type_free(&s));

    /* pack 6 ints, then unpack them */
    MPI_CHECK(MPI_Pack_size_c(6, MPI_INT, MPI_COMM_WORLD, &sz));
    CHECK(sz >= 24 && sz <= (MPI_Count)sizeof packed, "Pack_size_c %lld", (long long)sz);
    MPI_CHECK(MPI_Pack_c(in, 6, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    pos_ok = pos == 24;
    CHECK(pos_ok, "Pack_c position %lld", (long long)pos);
    pos = 0;
    MPI_CHECK(MPI_Unpack_c(packed, sizeof packed, &pos, out, 6, MPI_INT, MPI_COMM_WORLD));
    CHECK(pos == 24 && out[5] == 6, "Unpack_c: position %lld, %d", (long long)pos, out[5]);
}

static void collectives(void)
{
    int v = rank, sum = 0, *all, *mine, k;
    MPI_Count *cnt = malloc((size_t)size * sizeof *cnt);
    MPI_Aint *dsp = malloc((size_t)size * sizeof *dsp);
    MPI_Op op;

    all = malloc((size_t)size * (size_t)size * sizeof *all);
    mine = malloc((size_t)size * sizeof *mine);
    k = rank == 0 ? 42 : -1;
    MPI_CHECK(MPI_Bcast_c(&k, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(k == 42, "Bcast_c gave %d", k);
    MPI_CHECK(MPI_Op_create_c(sum_c, 1, &op));
    MPI_CHECK(MPI_Allreduce_c(&v, &sum, 1, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2, "Allreduce_c with an Op_create_c op gave %d", sum);
    big_len_seen = 0;
    MPI_CHECK(MPI_Reduce_local_c(&v, &sum, 1, MPI_INT, op));
    CHECK(big_len_seen == 1, "the _c op saw length %lld", (long long)big_len_seen);
    CHECK(sum == size * (size - 1) / 2 + rank, "Reduce_local_c gave %d", sum);
    MPI_CHECK(MPI_Op_free(&op));

    /* rank i contributes i + 1 ints of value i */
    for (int i = 0; i < size; i++) {
        cnt[i] = i + 1;
        dsp[i] = (MPI_Aint)i * size;
    }
    for (int i = 0; i <= rank; i++)
        mine[i] = rank;
    memset(all, 0xff, (size_t)size * (size_t)size * sizeof *all);
    /* the arrays matter at the root only: the others pass none */
    MPI_CHECK(MPI_Gatherv_c(mine, rank + 1, MPI_INT, all, rank == 0 ? cnt : NULL, rank == 0 ? dsp : NULL,
                            MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int i = 0; i < size; i++)
            CHECK(all[i * size + i] == i && (i + 1 == size || all[i * size + i + 1] == -1),
                  "Gatherv_c block %d", i);
    memset(all, 0xff, (size_t)size * (size_t)size * sizeof *all);
    MPI_CHECK(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(all[i * size] == i && all[i * size + i] == i, "Allgatherv_c block %d", i);

    /* each rank sends one int to each, its rank */
    for (int i = 0; i < size; i++) {
        cnt[i] = 1;
        dsp[i] = i;
        mine[i] = rank;
    }
    MPI_CHECK(MPI_Alltoallv_c(mine, cnt, dsp, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(all[i] == i, "Alltoallv_c got %d from %d", all[i], i);
    /* the nonblocking and persistent forms keep their converted arrays */
    {
        MPI_Request r;
        for (int i = 0; i < size; i++)
            all[i] = -1;
        MPI_CHECK(MPI_Ialltoallv_c(mine, cnt, dsp, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r));
        MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < size; i++)
            CHECK(all[i] == i, "Ialltoallv_c got %d from %d", all[i], i);
        MPI_CHECK(MPI_Alltoallv_init_c(mine, cnt, dsp, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &r));
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < size; i++)
                all[i] = -1;
            MPI_CHECK(MPI_Start(&r));
            MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            for (int i = 0; i < size; i++)
                CHECK(all[i] == i, "Alltoallv_init_c round %d got %d from %d", round, all[i], i);
        }
        MPI_CHECK(MPI_Request_free(&r));
    }
    /* a ring's neighbors: one int from each */
    {
        MPI_Comm ring;
        int dims[1] = {size}, periods[1] = {1}, got[2] = {-1, -1}, two[2] = {rank, rank};
        MPI_Count c2[2] = {1, 1};
        MPI_Aint d2[2] = {0, 1};
        MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
        MPI_CHECK(MPI_Neighbor_alltoallv_c(two, c2, d2, MPI_INT, got, c2, d2, MPI_INT, ring));
        CHECK(got[0] == (rank + size - 1) % size && got[1] == (rank + 1) % size,
              "Neighbor_alltoallv_c got %d %d", got[0], got[1]);
        MPI_CHECK(MPI_Comm_free(&ring));
    }
    /* reduce-scatter: one int each, the sum of the ranks */
    MPI_CHECK(MPI_Reduce_scatter_c(mine, &v, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(v == size * (size - 1) / 2, "Reduce_scatter_c gave %d", v);
    free(cnt);
    free(dsp);
    free(all);
    free(mine);
}

static void io(void)
{
    char path[64];
    int v[4] = {rank, rank + 1, rank + 2, rank + 3}, got[4] = {0};
    MPI_File fh;
    MPI_Status st;
    MPI_Count n;

    snprintf(path, sizeof path, "/tmp/mbmpi-large-count-%d", (int)getpid());
    MPI_CHECK(MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    MPI_CHECK(MPI_File_write_at_all_c(fh, (MPI_Offset)rank * 16, v, 4, MPI_INT, &st));
    MPI_CHECK(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == 4, "File_write_at_all_c wrote %lld", (long long)n);
    MPI_CHECK(MPI_File_read_at_c(fh, (MPI_Offset)rank * 16, got, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(got[3] == rank + 3, "File_read_at_c read %d", got[3]);
    MPI_CHECK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &n));
    CHECK(n == 8, "File_get_type_extent_c gave %lld", (long long)n);
    MPI_CHECK(MPI_File_close(&fh));
}

static void rma(void)
{
    int *base = NULL, v = rank, got = -1;
    MPI_Win win;

    MPI_CHECK(MPI_Win_allocate_c((MPI_Aint)sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &base, &win));
    *base = -1;
    MPI_CHECK(MPI_Win_fence(0, win));
    MPI_CHECK(MPI_Put_c(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Win_fence(0, win));
    CHECK(*base == (rank + size - 1) % size, "Put_c gave %d", *base);
    MPI_CHECK(MPI_Get_c(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    MPI_CHECK(MPI_Win_fence(0, win));
    CHECK(got == rank, "Get_c gave %d", got);
    MPI_CHECK(MPI_Win_free(&win));
}

/* counts above INT_MAX: a receive of 3 * 10^9 bytes that gets 10, a send
 * of 3 * 10^9 elements of a type of no bytes, a type of 2^40 ints; and what
 * stays refused: a stride above INT_MAX, a negative count */
static void big_counts(void)
{
    char out[10] = "0123456789", in[16] = {0}, *huge;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, cls = -1;
    MPI_Datatype empty, t;
    MPI_Request r;
    MPI_Status st;
    MPI_Count n;

    /* (address space for 3 * 10^9 bytes; only the first page is touched) */
    huge =
        mmap(NULL, 3000000000UL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(huge != MAP_FAILED, "mmap of 3 * 10^9 bytes failed");
    MPI_CHECK(MPI_Irecv_c(huge, 3000000000LL, MPI_BYTE, prev, 9, MPI_COMM_WORLD, &r));
    MPI_CHECK(MPI_Send_c(out, 10, MPI_BYTE, next, 9, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Wait(&r, &st));
    MPI_CHECK(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK(n == 10 && !memcmp(huge, out, 10) && huge[10] == 0, "receive of 3 * 10^9 bytes got %lld",
          (long long)n);
    munmap(huge, 3000000000UL);
    MPI_CHECK(MPI_Type_contiguous(0, MPI_INT, &empty));
    MPI_CHECK(MPI_Type_commit(&empty));
    MPI_CHECK(MPI_Irecv_c(in, 3000000000LL, empty, prev, 10, MPI_COMM_WORLD, &r));
    MPI_CHECK(MPI_Send_c(out, 3000000000LL, empty, next, 10, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Wait(&r, &st));
    MPI_CHECK(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK(n == 0, "3 * 10^9 elements of no bytes came as %lld bytes", (long long)n);
    MPI_CHECK(MPI_Type_free(&empty));
    {
        /* blocks above INT_MAX in the block-list constructors */
        MPI_Count bl[3] = {1, 3000000000LL, 2}, disp[3] = {0, 8, 3000000100LL}, lb, ext;
        MPI_Datatype types[3] = {MPI_CHAR, MPI_CHAR, MPI_INT};
        MPI_CHECK(MPI_Type_create_hindexed_c(3, bl, disp, MPI_CHAR, &t));
        MPI_CHECK(MPI_Type_size_c(t, &n));
        CHECK(n == 3000000003LL, "hindexed_c with a block of 3 * 10^9: size %lld", (long long)n);
        MPI_CHECK(MPI_Type_get_true_extent_c(t, &lb, &ext));
        CHECK(lb == 0 && ext == 3000000102LL, "hindexed_c true extent %lld %lld", (long long)lb,
              (long long)ext);
        MPI_CHECK(MPI_Type_free(&t));
        MPI_CHECK(MPI_Type_create_struct_c(3, bl, disp, types, &t));
        MPI_CHECK(MPI_Type_size_c(t, &n));
        CHECK(n == 3000000009LL, "struct_c with a block of 3 * 10^9: size %lld", (long long)n);
        MPI_CHECK(MPI_Type_free(&t));
        disp[1] = 2, disp[2] = 3000000002LL; /* in ints */
        MPI_CHECK(MPI_Type_indexed_c(3, bl, disp, MPI_INT, &t));
        MPI_CHECK(MPI_Type_get_true_extent_c(t, &lb, &ext));
        CHECK(lb == 0 && ext == 4 * 3000000004LL, "indexed_c true extent %lld %lld", (long long)lb,
              (long long)ext);
        MPI_CHECK(MPI_Type_free(&t));
    }
    MPI_CHECK(MPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_INT, &t));
    MPI_CHECK(MPI_Type_size_c(t, &n));
    CHECK(n == (MPI_Count)4 << 40, "Type_contiguous_c of 2^40 ints: size %lld", (long long)n);
    {
        /* its record is the call that made it: CONTIGUOUS with one large
         * count (it was the STRUCT of int-count pieces mbmpi builds) */
        MPI_Count ni, na, nl, nd, lcs[2] = {0, 0};
        int comb = -1, ints[2], cls2 = -1, a, b, c, d;
        MPI_Aint addrs[2];
        MPI_Datatype dts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};

        MPI_CHECK(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
        CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 0 && na == 0 && nl == 1 && nd == 1,
              "Type_get_envelope_c of contiguous_c(2^40): combiner %d, %lld %lld %lld %lld", comb,
              (long long)ni, (long long)na, (long long)nl, (long long)nd);
        MPI_CHECK(MPI_Type_get_contents_c(t, 2, 2, 2, 2, ints, addrs, lcs, dts));
        CHECK(lcs[0] == (MPI_Count)1 << 40 && dts[0] == MPI_INT,
              "Type_get_contents_c of contiguous_c(2^40): count %lld, type %d", (long long)lcs[0],
              (int)dts[0]);
        /* the int form cannot describe it */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Type_get_envelope(t, &a, &b, &c, &d), &cls2);
        CHECK(cls2 == MPI_ERR_VALUE_TOO_LARGE, "Type_get_envelope of contiguous_c(2^40) gave class %d", cls2);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_CHECK(MPI_Type_free(&t));

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Type_vector_c(2, 1, (MPI_Count)1 << 40, MPI_INT, &t), &cls);
    CHECK(cls == MPI_ERR_COUNT, "Type_vector_c with a stride of 2^40 gave class %d", cls);
    MPI_Error_class(MPI_Recv_c(in, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_COUNT, "Recv_c of -1 elements gave class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    p2p();
    types();
    collectives();
    rma();
    io();
    big_counts();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("PASS %s\n", TEST_NAME);
    MPI_Finalize();
    return 0;
}
