/*
 * sendrecv_exchange: MPI_Sendrecv between pairs (rank ^ 1) and around a
 * ring (send right, receive left) for sizes from 1 B to 4 MiB, odd sizes
 * included; every received byte is checked against its sender's pattern.
 * Over mbshm exchanges of 64 KiB or more are read by the receiver itself
 * (MBMPI_SHM_CMA=exchange, or auto where MPI_Init timed that faster than
 * the rings); with EXCHANGE_EXPECT_PULL=1 every rank of a pair must have
 * read at least one piece of a peer's write (MPIX_Stat_get "shm_pulled")
 * or a whole rendezvous send ("rts_reads": a send that went first), i.e.
 * the receiver copied, really ran; with 0 no piece of a write; with auto one exactly when the library says
 * exchanges pull here ("shm_exchange_pulls"), and every rank must report
 * the same choice as rank 0 ("shm_exchange_pulls", "shm_cma_writes": rank
 * 0 decides and tells the others). Exit status 0 when all holds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pat(int rank, size_t i, size_t n)
{
    return (unsigned char)(rank * 31 + i * 7 + n);
}

/* returns the number of wrong bytes */
static long check(const unsigned char *b, int from, size_t n)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += b[i] != pat(from, i, n);
    return bad;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {1, 1000, 65536, 65537, 200003, 1 << 20, 4 << 20};
    int rank, size, failed = 0;
    unsigned char *s, *r;
    unsigned long long pulled0 = 0, reads0 = 0;

    MPI_Init(&argc, &argv);
    /* MPI_Init's own timing of the copies may have pulled pieces: count ours */
    MPIX_Stat_get("shm_pulled", &pulled0);
    MPIX_Stat_get("rts_reads", &reads0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    s = malloc(4 << 20);
    r = malloc(4 << 20);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        int pair = rank ^ 1, right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (size_t i = 0; i < n; i++)
            s[i] = pat(rank, i, n);
        for (int rep = 0; rep < 3; rep++) {
            long bad;
            if (pair < size) {
                memset(r, 0, n);
                MPI_Sendrecv(s, (int)n, MPI_BYTE, pair, 1, r, (int)n, MPI_BYTE, pair, 1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                if ((bad = check(r, pair, n)) != 0) {
                    fprintf(stderr, "FAIL sendrecv_exchange: pair %zu B at rank %d: %ld bytes wrong\n", n,
                            rank, bad);
                    failed = 1;
                }
            }
            memset(r, 0, n);
            MPI_Sendrecv(s, (int)n, MPI_BYTE, right, 2, r, (int)n, MPI_BYTE, left, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            if ((bad = check(r, left, n)) != 0) {
                fprintf(stderr, "FAIL sendrecv_exchange: ring %zu B at rank %d: %ld bytes wrong\n", n, rank,
                        bad);
                failed = 1;
            }
        }
    }
    const char *expect = getenv("EXCHANGE_EXPECT_PULL");
    if (expect && (rank ^ 1) < size) {
        unsigned long long pulled = 0, reads = 0, pulls = (unsigned long long)atoi(expect);
        MPIX_Stat_get("shm_pulled", &pulled);
        MPIX_Stat_get("rts_reads", &reads);
        pulled -= pulled0;
        reads -= reads0;
        if (!strcmp(expect, "auto") && MPIX_Stat_get("shm_exchange_pulls", &pulls) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL sendrecv_exchange: no counter shm_exchange_pulls\n");
            failed = 1;
        }
        if (pulls && pulled + reads == 0) {
            fprintf(stderr, "FAIL sendrecv_exchange: rank %d read no piece of its peers' writes or sends\n",
                    rank);
            failed = 1;
        }
        if (!pulls && pulled != 0) {
            fprintf(stderr, "FAIL sendrecv_exchange: rank %d read %llu pieces, but exchanges do not pull\n",
                    rank, pulled);
            failed = 1;
        }
    }
    if (expect && !strcmp(expect, "auto")) {
        /* the choice timed at MPI_Init (rings or single copies) is rank 0's,
         * the same at every rank */
        unsigned long long v[2] = {0, 0}, lo[2], hi[2];
        if (MPIX_Stat_get("shm_exchange_pulls", &v[0]) != MPI_SUCCESS ||
            MPIX_Stat_get("shm_cma_writes", &v[1]) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL sendrecv_exchange: no counter shm_exchange_pulls or shm_cma_writes\n");
            failed = 1;
        }
        MPI_Allreduce(v, lo, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(v, hi, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (lo[0] != hi[0] || lo[1] != hi[1]) {
            fprintf(stderr,
                    "FAIL sendrecv_exchange: ranks differ on pulled exchanges (%llu..%llu) or single-copy "
                    "writes (%llu..%llu)\n",
                    lo[0], hi[0], lo[1], hi[1]);
            failed = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("sendrecv_exchange: ok\n");
    free(s);
    free(r);
    MPI_Finalize();
    return failed;
}
