/*
 * rxm_buffer: over tcp;ofi_rxm an eager message of the full eager limit
 * (16384 B payload plus mbmpi's headers) must fit ofi_rxm's buffers, or
 * rxm sends it through its own rendezvous (46 us one way against 13 us).
 * mbmpi raises FI_OFI_RXM_BUFFER_SIZE to its largest FIFO message unless
 * the user set it: after MPI_Init the variable must be at least the eager
 * limit plus 64 header bytes when MBMPI_PROVIDER is tcp or names ofi_rxm
 * and the FIFO is rxm's (MBMPI_FIFO_MODE multi or single). With the RMA
 * rings (the default there) rxm carries no FIFO message but the start-up
 * hellos, so mbmpi lowers the variable to 2048 (rxm's default pools of
 * 16 KiB buffers were 4 x 17 MB per rank, allocated and touched at
 * MPI_Init), and the eager limit's default is 64 KiB. A value the user
 * set (RXM_BUFFER_USER names it here) is kept in both cases. Also sends
 * one message of exactly the eager limit and checks it. Exit status 0
 * when all holds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *prov, *buf, *lim, *mode, *user;
    long limit, need;
    int rank, size, failed = 0, rings, rxm;
    char *m;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    prov = getenv("MBMPI_PROVIDER");
    mode = getenv("MBMPI_FIFO_MODE");
    rings = !mode || !strcmp(mode, "auto") || !strcmp(mode, "rma");
    rxm = prov && (!strcmp(prov, "tcp") || strstr(prov, "ofi_rxm"));
    lim = getenv("MBMPI_EAGER_LIMIT");
    limit = lim ? atol(lim) : rxm && rings && size > 1 ? 65536 : 16384;
    need = limit + 64;
    buf = getenv("FI_OFI_RXM_BUFFER_SIZE");
    user = getenv("RXM_BUFFER_USER");
    if (user && (!buf || strcmp(buf, user))) {
        fprintf(stderr, "FAIL rxm_buffer: FI_OFI_RXM_BUFFER_SIZE is %s, the user set %s\n",
                buf ? buf : "unset", user);
        failed = 1;
    }
    if (rxm && rings && size > 1 && !user && (!buf || strcmp(buf, "2048"))) {
        fprintf(stderr, "FAIL rxm_buffer: FI_OFI_RXM_BUFFER_SIZE is %s with the RMA rings, want 2048\n",
                buf ? buf : "unset");
        failed = 1;
    }
    if (rxm && !rings && !user && (!buf || atol(buf) < need)) {
        fprintf(stderr, "FAIL rxm_buffer: FI_OFI_RXM_BUFFER_SIZE is %s, want at least %ld\n",
                buf ? buf : "unset", need);
        failed = 1;
    }
    m = malloc((size_t)limit);
    if (size >= 2 && rank < 2) {
        if (rank == 0) {
            for (long i = 0; i < limit; i++)
                m[i] = (char)(i * 13 + 5);
            MPI_Send(m, (int)limit, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(m, (int)limit, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long i = 0; i < limit; i++)
                if (m[i] != (char)(i * 13 + 5)) {
                    fprintf(stderr, "FAIL rxm_buffer: byte %ld wrong\n", i);
                    failed = 1;
                    break;
                }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("rxm_buffer: ok\n");
    free(m);
    MPI_Finalize();
    return failed;
}
