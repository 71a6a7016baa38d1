/*
 * p2p_basic: blocking point-to-point. Send/Recv of every size class
 * (0 B .. 4 MiB) between pairs, a blocking ring, all-pairs blocking exchange
 * (round-robin schedule, lower rank sends first), Sendrecv, Sendrecv_replace
 * and MPI_PROC_NULL. Payload bytes are derived from (source, tag, index) and
 * checked in full; receive buffers are larger than the message and the tail
 * must stay untouched. Works for any number of ranks (1 included: self
 * traffic then goes through Sendrecv / Isend).
 */
#define TEST_NAME "p2p_basic"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static unsigned char pat(int src, int tag, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)src * 0x9E3779B9u ^ (uint32_t)tag * 0x85EBCA6Bu;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (unsigned char)x;
}

static void fill(unsigned char *b, size_t n, int src, int tag)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(src, tag, i);
}

static void verify(const unsigned char *b, size_t n, int src, int tag, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(src, tag, i))
            FAIL("%s: byte %zu of %zu from src %d tag %d is 0x%02x, expected 0x%02x", what, i, n, src, tag,
                 b[i], pat(src, tag, i));
}

#define GUARD 64
#define GUARD_BYTE 0xA5

static void guard_set(unsigned char *b, size_t n)
{
    memset(b + n, GUARD_BYTE, GUARD);
}

static void guard_check(const unsigned char *b, size_t n, const char *what)
{
    for (size_t i = 0; i < GUARD; i++)
        if (b[n + i] != GUARD_BYTE)
            FAIL("%s: byte %zu past the %zu-byte message was overwritten", what, i, n);
}

static void check_status(const MPI_Status *st, int src, int tag, int nbytes, const char *what)
{
    int cnt = -1;
    CHECK(st->MPI_SOURCE == src, "%s: status.MPI_SOURCE %d, expected %d", what, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s: status.MPI_TAG %d, expected %d", what, st->MPI_TAG, tag);
    MPI_CHECK(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECK(cnt == nbytes, "%s: Get_count %d, expected %d", what, cnt, nbytes);
}

static const int sizes[] = {0, 1, 7, 64, 4096, 65536, 1 << 20, 4 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define MAXSZ (4 << 20)

static int rank, size;
static unsigned char *sbuf, *rbuf;

/* Pairs (2k, 2k+1); the last rank of an odd job pairs with itself. */
static void test_sizes(void)
{
    int partner = (rank ^ 1) < size ? (rank ^ 1) : rank;
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 100 + s;
        MPI_Status st;
        char what[64];
        snprintf(what, sizeof what, "Send/Recv %d bytes", n);
        fill(sbuf, n, rank, tag);
        memset(rbuf, 0, n);
        guard_set(rbuf, n);
        if (partner == rank) {
            MPI_Request rq;
            MPI_CHECK(MPI_Isend(sbuf, n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &rq));
            MPI_CHECK(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &st));
            MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (rank < partner) {
            MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD));
            MPI_CHECK(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
        } else {
            MPI_CHECK(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
            MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD));
        }
        check_status(&st, partner, tag, n, what);
        verify(rbuf, n, partner, tag, what);
        guard_check(rbuf, n, what);
    }
    /* Receive with a wildcard tag and a typed count: 1 MiB as 262144 ints. */
    if (partner != rank) {
        int tag = 77, n = 1 << 20;
        MPI_Status st;
        int cnt;
        fill(sbuf, n, rank, tag);
        memset(rbuf, 0, n);
        if (rank < partner) {
            MPI_CHECK(MPI_Send(sbuf, n / 4, MPI_INT, partner, tag, MPI_COMM_WORLD));
        } else {
            MPI_CHECK(MPI_Recv(rbuf, n / 4 + 10, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check_status(&st, partner, tag, n, "1 MiB as MPI_INT");
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == n / 4, "1 MiB as MPI_INT: Get_count(MPI_INT) %d", cnt);
            verify(rbuf, n, partner, tag, "1 MiB as MPI_INT");
        }
    }
}

/* Ring with blocking calls: even ranks send first, odd ranks receive first.
 * The last rank of an odd ring is even and sends to rank 0 (even): rank 0's
 * send to rank 1 completes first, so there is no cycle. */
static void test_ring(int n, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    char what[64];
    snprintf(what, sizeof what, "parity ring %d bytes", n);
    fill(sbuf, n, rank, tag);
    memset(rbuf, 0, n);
    guard_set(rbuf, n);
    if (size == 1) {
        MPI_CHECK(MPI_Sendrecv(sbuf, n, MPI_BYTE, next, tag, rbuf, n + GUARD, MPI_BYTE, prev, tag,
                               MPI_COMM_WORLD, &st));
    } else if (rank % 2 == 0) {
        MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
    } else {
        MPI_CHECK(MPI_Recv(rbuf, n + GUARD, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
    }
    check_status(&st, prev, tag, n, what);
    verify(rbuf, n, prev, tag, what);
    guard_check(rbuf, n, what);
}

/* Token ring: rank 0 starts, every other rank receives then forwards its
 * own payload; rank 0 finally receives from the last rank. */
static void test_token_ring(int n, int tag)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    if (size == 1)
        return;
    fill(sbuf, n, rank, tag);
    memset(rbuf, 0, n);
    if (rank == 0) {
        MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
    } else {
        MPI_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
    }
    check_status(&st, prev, tag, n, "token ring");
    verify(rbuf, n, prev, tag, "token ring");
}

/* Every pair exchanges once with blocking calls. Round-robin (circle)
 * schedule: in round t, rank r meets (2t - r) mod (M-1), rank M-1 meets t,
 * where M is size rounded up to even (partner == size means a bye). Every
 * pair meets for up to 8 ranks; bigger jobs run the first 7 rounds only
 * (each round is a full blocking exchange, slow when oversubscribed). */
static void test_all_pairs(void)
{
    int M = size + (size & 1);
    for (int t = 0; t < M - 1 && t < 7; t++) {
        int p;
        if (rank == M - 1)
            p = t;
        else if (rank == t)
            p = M - 1;
        else
            p = ((2 * t - rank) % (M - 1) + (M - 1)) % (M - 1);
        if (p >= size || p == rank)
            continue;
        int lo = rank < p ? rank : p, hi = rank < p ? p : rank;
        int n = 1000 + 4099 * lo + 13 * hi; /* message size differs per pair */
        int tag = 1000 + t;
        MPI_Status st;
        fill(sbuf, n, rank, tag);
        memset(rbuf, 0, n);
        if (rank < p) {
            MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, p, tag, MPI_COMM_WORLD));
            MPI_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &st));
        } else {
            MPI_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &st));
            MPI_CHECK(MPI_Send(sbuf, n, MPI_BYTE, p, tag, MPI_COMM_WORLD));
        }
        check_status(&st, p, tag, n, "all-pairs exchange");
        verify(rbuf, n, p, tag, "all-pairs exchange");
    }
}

static void test_sendrecv(void)
{
    static const int sr_sizes[] = {0, 100, 256 * 1024};
    for (int d = 0; d < size && d < 4; d++) {
        for (int s = 0; s < 3; s++) {
            int n = sr_sizes[s], dest = (rank + d) % size, src = (rank + size - d) % size;
            int stag = 2000 + 10 * d + s;
            MPI_Status st;
            fill(sbuf, n, rank, stag);
            memset(rbuf, 0, n);
            guard_set(rbuf, n);
            /* the receive count is larger than the message */
            MPI_CHECK(MPI_Sendrecv(sbuf, n, MPI_BYTE, dest, stag, rbuf, n + GUARD, MPI_BYTE, src, MPI_ANY_TAG,
                                   MPI_COMM_WORLD, &st));
            check_status(&st, src, stag, n, "Sendrecv");
            verify(rbuf, n, src, stag, "Sendrecv");
            guard_check(rbuf, n, "Sendrecv");
        }
    }
    /* different send and receive types/counts: ints out, bytes in */
    {
        int dest = (rank + 1) % size, src = (rank + size - 1) % size, tag = 2100;
        int out[10], in[10];
        MPI_Status st;
        for (int i = 0; i < 10; i++)
            out[i] = rank * 1000 + i;
        MPI_CHECK(MPI_Sendrecv(out, 10, MPI_INT, dest, tag, in, 10, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 10; i++)
            CHECK(in[i] == src * 1000 + i, "Sendrecv ints: in[%d]=%d", i, in[i]);
        check_status(&st, src, tag, 40, "Sendrecv ints");
    }
}

static void test_sendrecv_replace(void)
{
    static const int rp_sizes[] = {40, 1 << 20};
    for (int s = 0; s < 2; s++) {
        int n = rp_sizes[s], dest = (rank + 1) % size, src = (rank + size - 1) % size;
        int tag = 3000 + s;
        MPI_Status st;
        fill(rbuf, n, rank, tag);
        guard_set(rbuf, n);
        MPI_CHECK(MPI_Sendrecv_replace(rbuf, n, MPI_BYTE, dest, tag, src, tag, MPI_COMM_WORLD, &st));
        check_status(&st, src, tag, n, "Sendrecv_replace");
        verify(rbuf, n, src, tag, "Sendrecv_replace");
        guard_check(rbuf, n, "Sendrecv_replace");
    }
    /* typed: shift ints two ways (to the left then back to the right) */
    {
        int v[5];
        for (int i = 0; i < 5; i++)
            v[i] = rank * 10 + i;
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_CHECK(MPI_Sendrecv_replace(v, 5, MPI_INT, right, 1, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 5; i++)
            CHECK(v[i] == left * 10 + i, "Sendrecv_replace ints: v[%d]=%d", i, v[i]);
        MPI_CHECK(MPI_Sendrecv_replace(v, 5, MPI_INT, left, 2, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 5; i++)
            CHECK(v[i] == rank * 10 + i, "Sendrecv_replace ints back: v[%d]=%d", i, v[i]);
    }
}

static void check_null_status(const MPI_Status *st, const char *what)
{
    int cnt = -1;
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: status.MPI_SOURCE %d, expected MPI_PROC_NULL", what,
          st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: status.MPI_TAG %d, expected MPI_ANY_TAG", what, st->MPI_TAG);
    MPI_CHECK(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECK(cnt == 0, "%s: Get_count %d, expected 0", what, cnt);
    MPI_CHECK(MPI_Get_count(st, MPI_INT, &cnt));
    CHECK(cnt == 0, "%s: Get_count(MPI_INT) %d, expected 0", what, cnt);
}

static void test_proc_null(void)
{
    MPI_Status st;
    int v[4] = {1, 2, 3, 4};
    MPI_CHECK(MPI_Send(v, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Send(v, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD)); /* never blocks */
    MPI_CHECK(MPI_Ssend(v, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    memset(&st, 0x5c, sizeof st);
    MPI_CHECK(MPI_Recv(v, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv from MPI_PROC_NULL");
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4, "Recv from MPI_PROC_NULL modified the buffer");
    memset(&st, 0x5c, sizeof st);
    MPI_CHECK(MPI_Recv(v, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv(ANY_TAG) from MPI_PROC_NULL");
    memset(&st, 0x5c, sizeof st);
    MPI_CHECK(
        MPI_Sendrecv(v, 4, MPI_INT, MPI_PROC_NULL, 1, v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv with MPI_PROC_NULL");
    CHECK(v[0] == 1 && v[3] == 4, "Sendrecv with MPI_PROC_NULL modified the buffer");
    memset(&st, 0x5c, sizeof st);
    MPI_CHECK(MPI_Sendrecv_replace(v, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_replace with MPI_PROC_NULL");
    CHECK(v[0] == 1 && v[3] == 4, "Sendrecv_replace with MPI_PROC_NULL modified the buffer");
    /* half-open chain: first rank receives from PROC_NULL, last sends to it */
    {
        int dest = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
        int src = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        int out = rank + 500, in = -1;
        MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, dest, 9, &in, 1, MPI_INT, src, 9, MPI_COMM_WORLD, &st));
        if (src == MPI_PROC_NULL) {
            check_null_status(&st, "chain Sendrecv from MPI_PROC_NULL");
            CHECK(in == -1, "chain Sendrecv from MPI_PROC_NULL wrote %d", in);
        } else {
            CHECK(in == src + 500, "chain Sendrecv got %d, expected %d", in, src + 500);
            CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 9, "chain Sendrecv status %d/%d", st.MPI_SOURCE,
                  st.MPI_TAG);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    sbuf = malloc(MAXSZ + GUARD);
    rbuf = malloc(MAXSZ + GUARD);
    CHECK(sbuf && rbuf, "out of memory");

    double t0 = MPI_Wtime();
    test_sizes();
    if (getenv("T") && rank == 0)
        fprintf(stderr, "sizes %.3f\n", MPI_Wtime() - t0);
    test_ring(1, 10);
    test_ring(4096, 11);
    test_ring(1 << 20, 12);
    test_token_ring(65536, 13);
    test_all_pairs();
    test_sendrecv();
    test_sendrecv_replace();
    test_proc_null();

    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    free(sbuf);
    free(rbuf);
    MPI_CHECK(MPI_Finalize());
    return 0;
}
