/*
 * coll_read: over mbshm, a collective's messages of MBMPI_COLL_READ_MIN (8
 * KiB by default) or more from a Bcast, a flat Scatter or Gather and an
 * Alltoall's exchanges are read by their receivers (one copy, counted by
 * "rts_reads"), even within the eager limit; smaller ones and a user's
 * send of the same size are not.
 *
 * Run with MBMPI_REQ_MIN=1G (no receive offers its buffer by a REQ, so
 * every such message is an RTS): over all ranks, the reads of each call
 * must be exactly its messages of coll_read_min or more (P - 1 for a flat
 * Bcast, Scatter or Gather; P (P - 1) for an Alltoall by pairwise or direct
 * exchange). coll_read_min must be the same at every rank (the model
 * prices collectives by it, and every rank must choose alike) and
 * COLL_READ_MIN_EXPECT bytes, or with COLL_READ_MIN_EXPECT=tuned one of
 * the sizes MPI_Init's timing chooses from (mpi/shm_tune.c: 8-256 KiB, a
 * power of two), or 0 where it chose the rings for everything (then no
 * read happens at all). COLL_READ_EXPECT=0 expects no read at all and a
 * coll_read_min of 0, also where single copies are off (MBMPI_COLL_READ_MIN
 * =off, MBMPI_RTS_READ=0, MBMPI_SHM_CMA=0). Every result is checked, and each root rewrites
 * its buffer as soon as its call returns. Prints SKIP (data checked only)
 * where no peer is reachable with single copies or another provider runs.
 * Any number of ranks >= 2.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbstat.h"

#define MAXB 12345 /* the largest block: odd, between 8 and 16 KiB */

static unsigned char pat(int call, int owner, int block, size_t i)
{
    return (unsigned char)(call * 29 + owner * 37 + block * 11 + i * 7 + (i >> 9));
}

static int rank, size, skip, expect, bad;
static unsigned long long r0, rmin = 8192;

static void reads_begin(void)
{
    r0 = mbstat("rts_reads");
}

/* the reads of all ranks since reads_begin must be `want` */
static void reads_end(const char *what, size_t m, long want)
{
    unsigned long long d = mbstat("rts_reads") - r0, t;

    MPI_Allreduce(&d, &t, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!expect || !rmin || m < rmin)
        want = 0;
    if (!skip && t != (unsigned long long)want) {
        if (rank == 0)
            fprintf(stderr, "FAIL coll_read: %s of %zu B: %llu reads over all ranks, expected %ld\n", what, m,
                    t, want);
        bad = 1;
    }
}

static void check(const unsigned char *b, size_t n, int call, int owner, int block, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(call, owner, block, i)) {
            fprintf(stderr, "FAIL coll_read: rank %d: %s byte %zu of block %d wrong\n", rank, what, i, block);
            bad = 1;
            return;
        }
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {4096, 8192, MAXB};
    static const char *a2a[] = {"pairwise", "direct"};
    const char *e = getenv("COLL_READ_EXPECT"), *me = getenv("COLL_READ_MIN_EXPECT");
    unsigned char *all, *one, *got;
    int any, call = 0;

    expect = e == NULL || strcmp(e, "0") != 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    all = malloc((size_t)size * MAXB);
    got = malloc((size_t)size * MAXB);
    one = malloc(MAXB);
    if (!all || !got || !one || size < 2) {
        fprintf(stderr, "coll_read: needs 2 or more ranks and memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#ifdef MBMPI_VERSION_STRING
    skip = mbstat("shm_cma_peers") == 0;
    rmin = mbstat("coll_read_min");
    if (!skip && expect) {
        unsigned long long lo, hi;
        MPI_Allreduce(&rmin, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&rmin, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (lo != hi) {
            fprintf(stderr, "FAIL coll_read: rank %d: coll_read_min %llu, not the same at every rank\n", rank,
                    rmin);
            bad = 1;
        }
        if (me != NULL && !strcmp(me, "tuned")
                ? rmin != 0 && (rmin < 8192 || rmin > 262144 || (rmin & (rmin - 1)))
                : rmin != (me ? strtoull(me, NULL, 10) : 8192)) {
            fprintf(stderr, "FAIL coll_read: rank %d: coll_read_min %llu, expected %s over mbshm\n", rank,
                    rmin, me ? me : "8192");
            bad = 1;
        }
    }
    if (!expect && mbstat("coll_read_min") != 0) {
        fprintf(stderr, "FAIL coll_read: rank %d: coll_read_min %llu, expected 0 (off)\n", rank,
                mbstat("coll_read_min"));
        bad = 1;
    }
    if (MPIX_Coll_force("bcast", "flat") != MPI_SUCCESS ||
        MPIX_Coll_force("scatter", "flat") != MPI_SUCCESS ||
        MPIX_Coll_force("gather", "flat") != MPI_SUCCESS) {
        fprintf(stderr, "FAIL coll_read: cannot force the flat algorithms\n");
        bad = 1;
    }
#else
    skip = 1;
#endif
    MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t m = sizes[k];
        int root = (int)k % size;

        /* Bcast: the root rewrites its buffer as soon as the call returns */
        call++;
        for (size_t i = 0; i < m; i++)
            one[i] = rank == root ? pat(call, root, 0, i) : 0;
        reads_begin();
        MPI_Bcast(one, (int)m, MPI_BYTE, root, MPI_COMM_WORLD);
        if (rank == root)
            memset(one, 0xee, m);
        else
            check(one, m, call, root, 0, "Bcast");
        reads_end("Bcast", m, size - 1);

        /* Scatter */
        call++;
        for (int b = 0; b < size; b++)
            for (size_t i = 0; i < m; i++)
                all[(size_t)b * m + i] = pat(call, rank, b, i);
        memset(one, 0, m);
        reads_begin();
        MPI_Scatter(all, (int)m, MPI_BYTE, one, (int)m, MPI_BYTE, root, MPI_COMM_WORLD);
        memset(all, 0xee, (size_t)size * m);
        check(one, m, call, root, rank, "Scatter");
        reads_end("Scatter", m, size - 1);

        /* Gather */
        call++;
        for (size_t i = 0; i < m; i++)
            one[i] = pat(call, rank, 0, i);
        memset(got, 0, (size_t)size * m);
        reads_begin();
        MPI_Gather(one, (int)m, MPI_BYTE, got, (int)m, MPI_BYTE, root, MPI_COMM_WORLD);
        memset(one, 0xee, m);
        for (int b = 0; rank == root && b < size; b++)
            check(got + (size_t)b * m, m, call, b, 0, "Gather");
        reads_end("Gather", m, size - 1);

        /* Alltoall by exchanges */
        for (size_t a = 0; a < sizeof a2a / sizeof a2a[0]; a++) {
            char what[64];
#ifdef MBMPI_VERSION_STRING
            if (MPIX_Coll_force("alltoall", a2a[a]) != MPI_SUCCESS) {
                fprintf(stderr, "FAIL coll_read: cannot force alltoall %s\n", a2a[a]);
                bad = 1;
            }
#endif
            snprintf(what, sizeof what, "Alltoall (%s)", a2a[a]);
            call++;
            for (int b = 0; b < size; b++)
                for (size_t i = 0; i < m; i++)
                    all[(size_t)b * m + i] = pat(call, rank, b, i);
            memset(got, 0, (size_t)size * m);
            reads_begin();
            MPI_Alltoall(all, (int)m, MPI_BYTE, got, (int)m, MPI_BYTE, MPI_COMM_WORLD);
            memset(all, 0xee, (size_t)size * m);
            for (int b = 0; b < size; b++)
                check(got + (size_t)b * m, m, call, b, rank, what);
            reads_end(what, m, (long)size * (size - 1));
        }
    }

    /* a user's send of the same size keeps the eager path */
    call++;
    for (size_t i = 0; i < MAXB; i++)
        one[i] = pat(call, 0, 0, i);
    reads_begin();
    if (rank == 0)
        MPI_Send(one, MAXB, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    else if (rank == 1) {
        MPI_Recv(got, MAXB, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(got, MAXB, call, 0, 0, "Send");
    }
    reads_end("a user's Send", MAXB, 0);

    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", any    ? "FAIL"
                       : skip ? "SKIP coll_read: no single copies here (checked the data only)"
                              : "ok");
    free(all);
    free(got);
    free(one);
    MPI_Finalize();
    return any ? 1 : 0;
}
