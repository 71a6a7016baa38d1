/*
 * flat_single: over mbshm, the blocks of a flat Scatter, Scatterv, Gather
 * and Gatherv are single copies where one-way writes otherwise keep to the
 * rings: MBMPI_SHM_CMA=flat, which is what MBMPI_SHM_CMA=auto picks with
 * more ranks than CPUs where MPI_Init timed single copies faster. Each
 * block is either written by its sender (process_vm_writev, counted by
 * "shm_single_copies") or, sent before its receive was posted, read by its
 * receiver ("rts_reads"): over all ranks, one of the two per block. A
 * Bcast and a user's send of the same size write through the rings (no
 * single-copy write).
 *
 * Blocks of 64 KiB: over 32 KiB (the single-copy threshold), under 256 KiB
 * (where the target would help copy). FLAT_EXPECT=0 in the environment
 * expects no single copy at all (MBMPI_SHM_CMA=0). Every result is checked.
 * Prints SKIP and exits 0 where no peer is reachable with single copies
 * (ptrace rules, or another provider). Any number of ranks >= 2.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbstat.h"

#define B (64 << 10) /* bytes per block */

static unsigned char pat(int owner, int block, size_t i)
{
    return (unsigned char)(owner * 37 + block * 11 + i * 7 + (i >> 9));
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, any, skip;
    const char *fe = getenv("FLAT_EXPECT");
    int expect = fe == NULL || strcmp(fe, "0") != 0;
    unsigned long long s0;
    unsigned char *all, *one;
    int *counts, *displs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    all = malloc((size_t)size * B);
    one = malloc(B);
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    if (!all || !one || !counts || !displs || size < 2) {
        fprintf(stderr, "flat_single: needs 2 or more ranks and memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < size; i++) {
        counts[i] = B;
        displs[i] = (size - 1 - i) * B; /* blocks in reverse order */
    }
#ifdef MBMPI_VERSION_STRING
    skip = expect && mbstat("shm_cma_peers") == 0;
#else
    skip = 1;
    expect = 0;
#endif
    /* every rank must agree: one may reach its peers and another not */
    MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);

/* single copies: written here, and sends read here */
#define COPIES() (mbstat("shm_single_copies") + mbstat("rts_reads"))
#define DELTA_IS(want, what)                                                                                 \
    do {                                                                                                     \
        unsigned long long d = COPIES() - s0, t;                                                             \
        MPI_Allreduce(&d, &t, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);                           \
        if (!skip && t != (unsigned long long)(expect ? (want) : 0)) {                                       \
            fprintf(stderr, "FAIL flat_single: rank %d: %s made %llu single copies in all, expected %d\n",   \
                    rank, what, t, expect ? (want) : 0);                                                     \
            bad = 1;                                                                                         \
        }                                                                                                    \
    } while (0)

    /* Scatter, root 0: the root writes P - 1 blocks */
    for (int b = 0; b < size; b++)
        for (size_t i = 0; i < B; i++)
            all[(size_t)b * B + i] = pat(rank, b, i);
    memset(one, 0, B);
    s0 = COPIES();
    MPI_Scatter(all, B, MPI_BYTE, one, B, MPI_BYTE, 0, MPI_COMM_WORLD);
    DELTA_IS(size - 1, "Scatter");
    for (size_t i = 0; i < B; i++)
        if (one[i] != pat(0, rank, i)) {
            fprintf(stderr, "FAIL flat_single: rank %d: Scatter byte %zu wrong\n", rank, i);
            bad = 1;
            break;
        }

    /* Gather, root 1: every other rank writes its block */
    for (size_t i = 0; i < B; i++)
        one[i] = pat(rank, 100, i);
    memset(all, 0, (size_t)size * B);
    s0 = COPIES();
    MPI_Gather(one, B, MPI_BYTE, all, B, MPI_BYTE, 1, MPI_COMM_WORLD);
    DELTA_IS(size - 1, "Gather");
    for (int b = 0; rank == 1 && b < size; b++)
        for (size_t i = 0; i < B; i++)
            if (all[(size_t)b * B + i] != pat(b, 100, i)) {
                fprintf(stderr, "FAIL flat_single: Gather block %d byte %zu wrong\n", b, i);
                bad = 1;
                break;
            }

    /* Scatterv and Gatherv, root size - 1, blocks in reverse order */
    for (int b = 0; b < size; b++)
        for (size_t i = 0; i < B; i++)
            all[(size_t)displs[b] + i] = pat(rank, b + 200, i);
    s0 = COPIES();
    MPI_Scatterv(all, counts, displs, MPI_BYTE, one, B, MPI_BYTE, size - 1, MPI_COMM_WORLD);
    DELTA_IS(size - 1, "Scatterv");
    for (size_t i = 0; i < B; i++)
        if (one[i] != pat(size - 1, rank + 200, i)) {
            fprintf(stderr, "FAIL flat_single: rank %d: Scatterv byte %zu wrong\n", rank, i);
            bad = 1;
            break;
        }
    memset(all, 0, (size_t)size * B);
    s0 = COPIES();
    MPI_Gatherv(one, B, MPI_BYTE, all, counts, displs, MPI_BYTE, size - 1, MPI_COMM_WORLD);
    DELTA_IS(size - 1, "Gatherv");
    for (int b = 0; rank == size - 1 && b < size; b++)
        for (size_t i = 0; i < B; i++)
            if (all[(size_t)displs[b] + i] != pat(size - 1, b + 200, i)) {
                fprintf(stderr, "FAIL flat_single: Gatherv block %d byte %zu wrong\n", b, i);
                bad = 1;
                break;
            }

    /* a Bcast and a user's send of a block: no single-copy write */
    for (size_t i = 0; i < B; i++)
        one[i] = rank == 0 ? pat(0, 300, i) : 0;
    s0 = mbstat("shm_single_copies");
    MPI_Bcast(one, B, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Send(one, B, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(all, B, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!skip && mbstat("shm_single_copies") != s0) {
        fprintf(stderr, "FAIL flat_single: rank %d: Bcast and Send made %llu single-copy writes\n", rank,
                mbstat("shm_single_copies") - s0);
        bad = 1;
    }
    for (size_t i = 0; i < B; i++)
        if (one[i] != pat(0, 300, i) || (rank == 1 && all[i] != pat(0, 300, i))) {
            fprintf(stderr, "FAIL flat_single: rank %d: Bcast or Send byte %zu wrong\n", rank, i);
            bad = 1;
            break;
        }

    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", any    ? "FAIL"
                       : skip ? "SKIP flat_single: no single copies here (checked the data only)"
                              : "ok");
    free(all);
    free(one);
    free(counts);
    free(displs);
    MPI_Finalize();
    return any ? 1 : 0;
}
