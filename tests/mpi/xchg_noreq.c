/*
 * xchg_noreq: over mbshm with more ranks than CPUs, the receives of a
 * collective's exchange steps send no REQ (they would offer the buffer to a
 * sender that is sending at that very moment, or that has no CPU to write
 * it): the blocks of a direct, rotated and pairwise Alltoall and the steps
 * of a recursive-doubling Allreduce (P a power of two) come eagerly or as an RTS their
 * receiver reads. A user's receive posted before its send still sends its
 * REQ (the write protocol), which also shows that the counter counts. Each
 * rank pins itself to one CPU before MPI_Init, so any P >= 2 is
 * oversubscribed.
 *
 * Blocks of 16 KiB (at or above the smallest REQ, 8 KiB on mbshm, and
 * eager) and 64 KiB (rendezvous); every received byte is checked;
 * "req_sent" is summed over the ranks. With XCHG_EXPECT=req
 * (MBMPI_RTS_READ=0: an RTS would cost a CTS round trip, so REQs stay)
 * the collectives must send REQs. Prints SKIP and exits 0 where the
 * transport is not mbshm or no peer is reachable with single copies.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_writes.h"

static unsigned long long reqs_sum(void)
{
    unsigned long long n = 0, sum = 0;
    MPIX_Stat_get("req_sent", &n);
    MPI_Allreduce(&n, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

static unsigned char pat(int from, int to, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13 + (i >> 10));
}

int main(int argc, char **argv)
{
    static const char *algos[] = {"direct", "rotated", "pairwise"};
    static const int sizes[] = {16384, 65536};
    const char *expect = getenv("XCHG_EXPECT");
    int want_req = expect && !strcmp(expect, "req");
    int rank, size, failed = 0;
    unsigned long long before, coll_reqs, user_reqs;
    unsigned char *s, *r;
    size_t max = 65536;

    pin_to_one_cpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ring_writes_skip("xchg_noreq", 0)) {
        MPI_Finalize();
        return 0;
    }
    s = malloc(max * (size_t)size);
    r = malloc(max * (size_t)size);
    if (!s || !r) {
        fprintf(stderr, "FAIL xchg_noreq: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    before = reqs_sum();
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        if (MPIX_Coll_force("alltoall", algos[a]) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL xchg_noreq: cannot force %s\n", algos[a]);
            failed = 1;
            continue;
        }
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = (size_t)sizes[k];
            for (int d = 0; d < size; d++)
                for (size_t i = 0; i < n; i++)
                    s[(size_t)d * n + i] = pat(rank, d, i);
            memset(r, 0, n * (size_t)size);
            MPI_Alltoall(s, sizes[k], MPI_BYTE, r, sizes[k], MPI_BYTE, MPI_COMM_WORLD);
            for (int f = 0; f < size && !failed; f++)
                for (size_t i = 0; i < n; i++)
                    if (r[(size_t)f * n + i] != pat(f, rank, i)) {
                        fprintf(stderr, "FAIL xchg_noreq: %s %zu B: byte %zu from %d wrong (rank %d)\n",
                                algos[a], n, i, f, rank);
                        failed = 1;
                        break;
                    }
        }
    }
    MPIX_Coll_force("alltoall", "auto");
    /* (other P fold the extra ranks in and out with one-way messages) */
    if ((size & (size - 1)) == 0 && MPIX_Coll_force("allreduce", "recursive_doubling") == MPI_SUCCESS) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int n = sizes[k] / (int)sizeof(int);
            int *in = (int *)s, *out = (int *)r;
            for (int i = 0; i < n; i++)
                in[i] = rank + i;
            MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n && !failed; i++)
                if (out[i] != size * (size - 1) / 2 + size * i) {
                    fprintf(stderr, "FAIL xchg_noreq: Allreduce of %d B: element %d wrong (rank %d)\n",
                            sizes[k], i, rank);
                    failed = 1;
                }
        }
        MPIX_Coll_force("allreduce", "auto");
    }
    coll_reqs = reqs_sum() - before;

    /* control: rank 1 posts a user receive, then tells rank 0 to send */
    before = reqs_sum();
    if (rank == 1) {
        MPI_Request rq;
        MPI_Irecv(r, 16384, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(s, 16384, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    }
    user_reqs = reqs_sum() - before;

    if (rank == 0) {
        if (!want_req && coll_reqs != 0) {
            fprintf(stderr, "FAIL xchg_noreq: the exchanges sent %llu REQs\n", coll_reqs);
            failed = 1;
        }
        if (want_req && coll_reqs == 0) {
            fprintf(stderr, "FAIL xchg_noreq: no exchange sent a REQ with XCHG_EXPECT=req\n");
            failed = 1;
        }
        if (user_reqs == 0) {
            fprintf(stderr, "FAIL xchg_noreq: a user receive posted first sent no REQ\n");
            failed = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("xchg_noreq: ok (%llu REQs from the exchanges, %llu from the user receive)\n", coll_reqs,
               user_reqs);
    free(s);
    free(r);
    MPI_Finalize();
    return failed;
}
