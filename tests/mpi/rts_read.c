/*
 * rts_read: sends larger than the eager limit whose receive is posted only
 * later (rendezvous). Over mbshm with single copies the receiver reads
 * such a send's buffer itself (MPIX_Stat_get "rts_reads"); everywhere else
 * the receiver answers CTS and the sender writes. Either way MPI's
 * semantics hold, and every byte is checked:
 *   - around a ring (each rank sends right, receives left), contiguous and
 *     vector types, sizes from just above the eager limit to 4 MiB;
 *   - a receive shorter than the message: MPI_ERR_TRUNCATE, its buffer
 *     filled to its end and not beyond, the send complete and successful;
 *   - MPI_Issend: complete only once matched;
 *   - a cancelled send nobody received is cancelled and gone;
 *   - a send received with MPI_ANY_SOURCE and MPI_ANY_TAG.
 * The send is posted before an MPI_Barrier and the receive after it, so
 * the sender never sees the receive first (no REQ). READ_EXPECT=1 in the
 * environment: every such message of the sizes the library says it reads
 * (MPIX_Stat_get "rts_read_min" .. "rts_read_max": on mbshm from 32 KiB,
 * below which its rings are faster, to below 256 KiB, or to any size with
 * more ranks than CPUs) must have been read by its receiver, and no other
 * (SKIP where no peer is reachable with process_vm_readv); READ_EXPECT=0:
 * none, and the library must say so; unset: not counted.
 * READ_MIN_EXPECT=N: the library must read from N bytes on
 * (MBMPI_RTS_READ_MIN). Any number of ranks >= 2.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbstat.h"

#define GUARD 64
#define MAXB (4 << 20)

static unsigned char pat(int from, int k, size_t i)
{
    return (unsigned char)(from * 29 + k * 13 + i * 5 + (i >> 11));
}

static int bad;

static void fail(int rank, const char *what, size_t at)
{
    fprintf(stderr, "FAIL rts_read: rank %d: %s (byte %zu)\n", rank, what, at);
    bad = 1;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {16385, 20000, 32 << 10, 65539, (1 << 20) + 1, 4 << 20};
    int rank, size, right, left, nmsg = 0, skip = 0, k;
    const char *re = getenv("READ_EXPECT");
    unsigned long long reads0, rmin, rmax;
    unsigned char *s, *r;
    MPI_Request q;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    s = malloc(MAXB + GUARD);
    r = malloc(MAXB + GUARD);
    if (!s || !r || size < 2) {
        fprintf(stderr, "rts_read: needs 2 or more ranks and memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
#ifdef MBMPI_VERSION_STRING
    skip = re && !strcmp(re, "1") && mbstat("shm_cma_peers") == 0;
#else
    re = NULL;
#endif
    MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    reads0 = mbstat("rts_reads");
    rmin = mbstat("rts_read_min");
    rmax = mbstat("rts_read_max");
#define READ(n) ((n) >= rmin && (n) <= rmax)
    if (getenv("READ_MIN_EXPECT") && !skip && rmin != strtoull(getenv("READ_MIN_EXPECT"), NULL, 0)) {
        fprintf(stderr, "FAIL rts_read: rank %d: the library reads from %llu bytes, READ_MIN_EXPECT=%s\n",
                rank, rmin, getenv("READ_MIN_EXPECT"));
        bad = 1;
    }

    /* 1. the ring, contiguous */
    for (k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        size_t n = sizes[k];
        for (size_t i = 0; i < n; i++)
            s[i] = pat(rank, k, i);
        memset(r, 0, n + GUARD);
        MPI_Isend(s, (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        if (MPI_Recv(r, (int)n, MPI_BYTE, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            fail(rank, "ring send or receive failed", 0);
        for (size_t i = 0; i < n; i++)
            if (r[i] != pat(left, k, i)) {
                fail(rank, "ring payload wrong", i);
                break;
            }
        nmsg += READ(n);
    }

    /* 2. vector types both sides: every other int of 2 x 10000 */
    {
        MPI_Datatype v;
        int *vs = (int *)s, *vr = (int *)r, cnt = 10000;
        MPI_Type_vector(cnt, 1, 2, MPI_INT, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 2 * cnt; i++) {
            vs[i] = rank * 100000 + i;
            vr[i] = -1;
        }
        MPI_Isend(vs, 1, v, right, 50, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(vr, 1, v, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int i = 0; i < 2 * cnt; i++)
            if (vr[i] != (i % 2 ? -1 : left * 100000 + i)) {
                fail(rank, "vector payload wrong", (size_t)i);
                break;
            }
        MPI_Type_free(&v);
        nmsg += READ(40000);
    }

    /* 3. truncation: 40000 bytes into a 30000-byte receive */
    {
        MPI_Status st;
        int rc, cls = 0, got = -1;
        for (size_t i = 0; i < 40000; i++)
            s[i] = pat(rank, 60, i);
        memset(r, 0xab, 40000);
        MPI_Isend(s, 40000, MPI_BYTE, right, 60, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_Recv(r, 30000, MPI_BYTE, left, 60, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_TRUNCATE)
            fail(rank, "a truncated receive did not return MPI_ERR_TRUNCATE", 0);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (st.MPI_SOURCE != left || st.MPI_TAG != 60)
            fail(rank, "a truncated receive's status names the wrong source or tag", 0);
        for (size_t i = 0; i < 30000; i++)
            if (r[i] != pat(left, 60, i)) {
                fail(rank, "truncated payload wrong", i);
                break;
            }
        for (size_t i = 30000; i < 40000; i++)
            if (r[i] != 0xab) {
                fail(rank, "a truncated receive wrote past its buffer", i);
                break;
            }
        if (MPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            fail(rank, "the truncated message's send failed", 0);
        nmsg += READ(40000);
    }

    /* 4. synchronous: not complete before the receive is posted */
    {
        int done = 1;
        for (size_t i = 0; i < 50000; i++)
            s[i] = pat(rank, 70, i);
        MPI_Issend(s, 50000, MPI_BYTE, right, 70, MPI_COMM_WORLD, &q);
        MPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (done)
            fail(rank, "MPI_Issend complete before its receive was posted", 0);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(r, 50000, MPI_BYTE, left, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < 50000; i++)
            if (r[i] != pat(left, 70, i)) {
                fail(rank, "synchronous payload wrong", i);
                break;
            }
        nmsg += READ(50000);
    }

    /* 5. wildcards */
    {
        MPI_Status st;
        for (size_t i = 0; i < 40000; i++)
            s[i] = pat(rank, 80, i);
        MPI_Isend(s, 40000, MPI_BYTE, right, 80, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(r, 40000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (st.MPI_SOURCE != left || st.MPI_TAG != 80)
            fail(rank, "a wildcard receive's status is wrong", 0);
        for (size_t i = 0; i < 40000; i++)
            if (r[i] != pat(left, 80, i)) {
                fail(rank, "wildcard payload wrong", i);
                break;
            }
        nmsg += READ(40000);
    }

    /* 6. a send nobody receives, cancelled: gone at the receiver */
    {
        int cancelled = 0, flag = 1;
        MPI_Status st;
        MPI_Isend(s, 30000, MPI_BYTE, right, 90, MPI_COMM_WORLD, &q);
        MPI_Barrier(MPI_COMM_WORLD); /* it has reached its receiver's queue */
        MPI_Cancel(&q);
        MPI_Wait(&q, &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled)
            fail(rank, "an unreceived send was not cancelled", 0);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Iprobe(left, 90, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            fail(rank, "a cancelled send can still be received", 0);
    }

    if (re && !skip) {
        unsigned long long d = mbstat("rts_reads") - reads0;
        unsigned long long want = strcmp(re, "0") ? (unsigned long long)nmsg : 0;
        if ((rmax != 0) != (strcmp(re, "0") != 0)) {
            fprintf(stderr, "FAIL rts_read: rank %d: the library reads %llu .. %llu bytes, READ_EXPECT=%s\n",
                    rank, rmin, rmax, re);
            bad = 1;
        }
        if (d != want) {
            fprintf(stderr, "FAIL rts_read: rank %d read %llu sends, expected %llu\n", rank, d, want);
            bad = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", bad    ? "FAIL"
                       : skip ? "SKIP rts_read: no peer to read from here (checked the data only)"
                              : "rts_read: ok");
    free(s);
    free(r);
    MPI_Finalize();
    return bad;
}
