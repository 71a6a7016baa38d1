/*
 * fifo_faults: eager messages land in the receiver's FIFO without page
 * faults. Each rank sends 3000 messages of 8 KiB to its right neighbour
 * and receives as many from its left (MPI_Sendrecv; run with
 * MBMPI_PROTOCOL=eager so every message goes through the FIFO), which
 * laps a 16 MiB FIFO more than once. Over libfabric the FIFO buffers were
 * first touched by the provider's copies, two faults per message for the
 * first lap (33 us one way instead of 12 over tcp;ofi_rxm); they are now
 * populated at MPI_Init. Checked under mbmpi's launcher only (MBMPI_RANK
 * set): fewer minor faults in the timed loop than one per 8 messages.
 * Also checks every message's contents. Exit status 0 when all holds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MSG 8192
#define WARM 64
#define COUNT 3000

static long minor_faults(void)
{
    struct rusage u;

    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

int main(int argc, char **argv)
{
    int rank, size, right, left, failed = 0;
    long before = 0, faults;
    unsigned char *s, *r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    s = malloc(MSG);
    r = malloc(MSG);
    memset(s, 0, MSG);
    memset(r, 0, MSG);
    for (int i = 0; i < WARM + COUNT; i++) {
        if (i == WARM)
            before = minor_faults();
        s[0] = (unsigned char)i;
        s[MSG - 1] = (unsigned char)(i * 7 + rank);
        MPI_Sendrecv(s, MSG, MPI_BYTE, right, 0, r, MSG, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (r[0] != (unsigned char)i || r[MSG - 1] != (unsigned char)(i * 7 + left)) {
            fprintf(stderr, "FAIL fifo_faults: rank %d message %d from %d has wrong contents\n", rank, i,
                    left);
            failed = 1;
            break;
        }
    }
    faults = minor_faults() - before;
    if (getenv("MBMPI_RANK") && faults >= COUNT / 8) {
        fprintf(stderr, "FAIL fifo_faults: rank %d took %ld minor page faults in %d messages of %d B\n", rank,
                faults, COUNT, MSG);
        failed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("fifo_faults: ok (rank 0: %ld faults in %d messages)\n", faults, COUNT);
    free(s);
    free(r);
    MPI_Finalize();
    return failed;
}
