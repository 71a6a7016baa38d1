/*
 * bcast_fanout: over mbshm with more ranks than CPUs, a Bcast's messages of
 * 256 KiB or more are copied by their receivers (process_vm_readv), not
 * pushed through the rings by their senders. Each rank pins itself to one
 * CPU before MPI_Init, so any P >= 2 is oversubscribed.
 *
 * For each Bcast algorithm (flat, binomial, bintree, chain) and for 1 MiB
 * and an odd size over 256 KiB, the receivers post their MPI_Ibcast first
 * and tell the root so (a message of their own); the root then starts its
 * MPI_Ibcast, so every message finds its receive posted (the write
 * protocol, where the transport chooses how to copy). Over all ranks no
 * write of those Bcasts may go through a ring ("shm_ring_writes"), and
 * every received byte is checked. With FANOUT_EXPECT=ring (MBMPI_SHM_CMA=0,
 * no single copies at all) the writes must go through the rings instead,
 * which shows that the counter counts. Prints SKIP and exits 0 where no
 * peer is reachable with single copies (ptrace rules) or the transport is
 * not mbshm. Exit status 0 when all holds.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_writes.h"

static unsigned char pat(int round, size_t i)
{
    return (unsigned char)(round * 13 + i * 7 + (i >> 11));
}

int main(int argc, char **argv)
{
    static const char *algos[] = {"flat", "binomial", "bintree", "chain"};
    static const size_t sizes[] = {300001, 1 << 20};
    const char *expect = getenv("FANOUT_EXPECT");
    int ring = expect && !strcmp(expect, "ring");
    int rank, size, failed = 0, round = 0;
    unsigned long long w0 = 0;
    unsigned char *buf;

    pin_to_one_cpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ring_writes_skip("bcast_fanout", ring)) {
        MPI_Finalize();
        return 0;
    }
    buf = malloc(1 << 20);
    MPIX_Stat_get("shm_ring_writes", &w0);
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        if (MPIX_Coll_force("bcast", algos[a]) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL bcast_fanout: cannot force %s\n", algos[a]);
            failed = 1;
            continue;
        }
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            int root = round % size;
            MPI_Request req;

            round++;
            if (rank == root) {
                for (size_t i = 0; i < n; i++)
                    buf[i] = pat(round, i);
                for (int i = 0; i < size - 1; i++)
                    MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                memset(buf, 0, n);
                MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
                MPI_Send(NULL, 0, MPI_BYTE, root, 7, MPI_COMM_WORLD);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                long bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += buf[i] != pat(round, i);
                if (bad) {
                    fprintf(stderr, "FAIL bcast_fanout: %s, %zu B from %d: %ld bytes wrong at rank %d\n",
                            algos[a], n, root, bad, rank);
                    failed = 1;
                }
            }
        }
    }
    failed = ring_writes_verdict("bcast_fanout", "Bcast", w0, ring, failed);
    free(buf);
    MPI_Finalize();
    return failed;
}
