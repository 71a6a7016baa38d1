/*
 * alltoall_exchange: the blocks of a direct or rotated MPI_Alltoall are
 * exchanges (every rank sends and receives at once). Over mbshm, where
 * exchanges pull (MBMPI_SHM_CMA=exchange), blocks of 64 KiB or more are
 * copied by their receivers (a pulled write or a rendezvous send read
 * whole), never through a ring; with A2A_EXPECT=ring (MBMPI_SHM_CMA=0, no
 * single copies at all) they must go through the rings instead, which
 * shows that the counter counts.
 *
 * For each of the two algorithms (MPIX_Coll_force) and for blocks of
 * 64 KiB, an odd size and 1 MiB + 1, every rank checks each received block
 * against its sender's pattern; "shm_ring_writes" is summed over the ranks.
 * Prints SKIP and exits 0 where no peer is reachable with single copies
 * (ptrace rules) or the transport is not mbshm. Exit status 0 when all
 * holds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_writes.h"

static unsigned char pat(int from, int to, size_t i)
{
    return (unsigned char)(from * 29 + to * 11 + i * 7 + (i >> 12));
}

int main(int argc, char **argv)
{
    static const char *algos[] = {"rotated", "direct"};
    static const size_t sizes[] = {65536, 100003, (1 << 20) + 1};
    const char *expect = getenv("A2A_EXPECT");
    int ring = expect && !strcmp(expect, "ring");
    int rank, size, failed = 0;
    unsigned long long w0 = 0;
    unsigned char *s, *r;
    size_t max = sizes[sizeof sizes / sizeof sizes[0] - 1];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ring_writes_skip("alltoall_exchange", ring)) {
        MPI_Finalize();
        return 0;
    }
    s = malloc(max * (size_t)size);
    r = malloc(max * (size_t)size);
    if (!s || !r) {
        fprintf(stderr, "FAIL alltoall_exchange: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPIX_Stat_get("shm_ring_writes", &w0);
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        if (MPIX_Coll_force("alltoall", algos[a]) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL alltoall_exchange: cannot force %s\n", algos[a]);
            failed = 1;
            continue;
        }
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            for (int to = 0; to < size; to++)
                for (size_t i = 0; i < n; i++)
                    s[(size_t)to * n + i] = pat(rank, to, i);
            memset(r, 0, n * (size_t)size);
            MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD);
            for (int from = 0; from < size; from++) {
                long bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += r[(size_t)from * n + i] != pat(from, rank, i);
                if (bad) {
                    fprintf(stderr,
                            "FAIL alltoall_exchange: %s, %zu B blocks: %ld bytes from %d wrong at %d\n",
                            algos[a], n, bad, from, rank);
                    failed = 1;
                }
            }
        }
    }
    failed = ring_writes_verdict("alltoall_exchange", "Alltoall", w0, ring, failed);
    free(s);
    free(r);
    MPI_Finalize();
    return failed;
}
