/*
 * barrier_sync: no rank leaves MPI_Barrier (or completes MPI_Ibarrier)
 * before every rank of the communicator has entered it, for every barrier
 * algorithm forced in turn and the automatic choice.
 *
 * The ranks share a counter per communicator in a file that rank 0 creates
 * and every rank maps (all ranks of a test run on one host). Before each
 * barrier a rank adds 1 to its communicator's counter; after it, the
 * counter must be at least the number of barriers so far times the size:
 * a rank let out early would find a late rank's increment missing. Runs on
 * MPI_COMM_WORLD and on a split communicator (odd and even ranks, reversed
 * order, so its rank 0 is not world's), 200 rounds each, and through
 * MPI_Ibarrier + MPI_Wait.
 */
#include <mpi.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUNDS 200

static int wrank;

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        fprintf(stderr, "FAIL barrier_sync: ");                                                              \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fprintf(stderr, " (rank %d)\n", wrank);                                                              \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    } while (0)

/* ROUNDS barriers on comm, each checked against the communicator's counter */
static void rounds(MPI_Comm comm, _Atomic long *counter, const char *what, int nonblocking)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (long k = 1; k <= ROUNDS; k++) {
        atomic_fetch_add(counter, 1);
        if (nonblocking) {
            MPI_Request req;
            if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS || MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                FAIL("%s: MPI_Ibarrier failed", what);
        } else if (MPI_Barrier(comm) != MPI_SUCCESS) {
            FAIL("%s: MPI_Barrier failed", what);
        }
        long seen = atomic_load(counter);
        if (seen < k * size)
            FAIL("%s: left barrier %ld having seen %ld entries of %ld", what, k, seen, k * size);
    }
    /* nobody adds to the counter of the next algorithm's rounds before
     * everyone has checked this one's */
    MPI_Barrier(comm);
}

int main(int argc, char **argv)
{
    char path[64] = "/tmp/mbmpi_barrier_sync.XXXXXX";
    int size, nalgo, fd = -1;
    MPI_Comm half;
    _Atomic long *counters; /* [0]: world, [1], [2]: the two halves of the split */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (wrank == 0) {
        fd = mkstemp(path);
        if (fd < 0 || ftruncate(fd, 4096) != 0)
            FAIL("cannot create %s", path);
    }
    MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (wrank != 0 && (fd = open(path, O_RDWR)) < 0)
        FAIL("cannot open %s", path);
    counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (counters == MAP_FAILED)
        FAIL("cannot map %s", path);
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        unlink(path);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);

    if (MPIX_Coll_algo_count("barrier", &nalgo) != MPI_SUCCESS || nalgo < 1)
        FAIL("no barrier algorithms");
    for (int a = 0; a <= nalgo; a++) {
        char name[64] = "auto", what[160];
        if (a < nalgo)
            MPIX_Coll_algo_name("barrier", a, name, sizeof(name));
        if (MPIX_Coll_force("barrier", name) != MPI_SUCCESS)
            FAIL("cannot force barrier algorithm %s", name);
        for (int nb = 0; nb < 2; nb++) {
            snprintf(what, sizeof(what), "%s%s on MPI_COMM_WORLD P=%d", nb ? "Ibarrier " : "", name, size);
            rounds(MPI_COMM_WORLD, &counters[0], what, nb);
            snprintf(what, sizeof(what), "%s%s on the split communicator", nb ? "Ibarrier " : "", name);
            rounds(half, &counters[1 + wrank % 2], what, nb);
        }
        /* every rank has checked every counter: start the next at 0 */
        MPI_Barrier(MPI_COMM_WORLD);
        if (wrank == 0)
            for (int i = 0; i < 3; i++)
                atomic_store(&counters[i], 0);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPIX_Coll_force("barrier", "auto");
    MPI_Comm_free(&half);
    munmap((void *)counters, 4096);
    if (wrank == 0)
        printf("barrier_sync P=%d: ok (%d algorithms + auto)\n", size, nalgo);
    MPI_Finalize();
    return 0;
}
