/*
 * fifo_size: over the libfabric providers the FIFO is MBMPI_FIFO_BUFS
 * buffers of MBMPI_FIFO_BUF_SIZE bytes (defaults 16 and 1 MiB), which
 * bounds the memory a rank holds for unexpected messages (README, Memory
 * bounds). MPIX_Stat_get("fifo_bytes") gives the FIFO's usable bytes: at
 * most buffers x size and more than half of it (a multi-recv buffer is
 * handed back with up to one eager message of room unused). The count
 * had been raised to at least 16 whatever the setting. Over mbshm the FIFO
 * is the rings: 3/4 of MBMPI_SHM_RING (default 256 KiB) per peer. Over
 * tcp;ofi_rxm (FIFO mode rma, its default) it is the RMA rings, one per
 * peer: the buffers' bytes shared out, a power of 2 from 4 eager messages
 * (rounded up, at least 64 KiB; the eager limit is 64 KiB there unless set)
 * to 1 MiB. Checked
 * under mbmpi's launcher only (MBMPI_RANK set). Exit status 0 when all
 * holds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long size_env(const char *name, unsigned long long dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (!v || !*v)
        return dflt;
    x = strtoull(v, &end, 10);
    if (*end == 'K' || *end == 'k')
        x <<= 10;
    else if (*end == 'M' || *end == 'm')
        x <<= 20;
    return x;
}

int main(int argc, char **argv)
{
    const char *prov = getenv("MBMPI_PROVIDER");
    unsigned long long bufs, size, bytes = 0;
    unsigned long long want_lo, want_hi;
    int rank, size_w, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size_w);
    bufs = size_env("MBMPI_FIFO_BUFS", 16);
    size = size_env("MBMPI_FIFO_BUF_SIZE", 1 << 20);
    if (!prov || !*prov || !strcmp(prov, "mbshm") || !strcmp(prov, "auto")) { /* one host: mbshm */
        want_hi = (unsigned long long)(size_w > 1 ? size_w - 1 : 1) *
                  (size_env("MBMPI_SHM_RING", 256 << 10) / 4 * 3);
        want_lo = want_hi;
    } else if ((!strcmp(prov, "tcp") || !strcmp(prov, "tcp;ofi_rxm")) && size_w > 1 &&
               (!getenv("MBMPI_FIFO_MODE") || !strcmp(getenv("MBMPI_FIFO_MODE"), "auto"))) {
        unsigned long long per = bufs * size / (unsigned long long)(size_w - 1), ring = 1;
        /* the eager limit's default there is 64 KiB */
        unsigned long long lo = 64 << 10, msg = size_env("MBMPI_EAGER_LIMIT", 65536) + 256;

        while (lo < 4 * msg)
            lo *= 2;
        while (ring * 2 <= per && ring < (1ull << 20))
            ring *= 2;
        want_hi = (ring > lo ? ring : lo) * (unsigned long long)(size_w - 1);
        want_lo = want_hi;
    } else {
        want_hi = bufs * size;
        want_lo = want_hi / 2 + 1;
    }
    if (getenv("MBMPI_RANK")) {
        if (MPIX_Stat_get("fifo_bytes", &bytes) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL fifo_size: MPIX_Stat_get(\"fifo_bytes\") failed\n");
            failed = 1;
        } else if (bytes > want_hi || bytes < want_lo) {
            fprintf(stderr, "FAIL fifo_size: rank %d (%s) FIFO of %llu bytes, want %llu to %llu\n", rank,
                    prov ? prov : "auto", bytes, want_lo, want_hi);
            failed = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !failed)
        printf("fifo_size: ok (%llu bytes)\n", bytes);
    MPI_Finalize();
    return failed;
}
