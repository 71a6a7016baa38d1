/*
 * mpi/shm_tune.c: on mbshm with MBMPI_SHM_CMA=auto (the default), choose at
 * MPI_Init between the rings and single copies for large transfers, by
 * timing both between ranks 0 and 1.
 *
 * A large message crosses mbshm either through the receiver's ring (the
 * sender copies in, the receiver copies out, pipelined) or as one copy by a
 * system call (process_vm_writev by the sender, or process_vm_readv by the
 * receiver of an exchange). Which is faster depends on the host, and on the
 * same kind of VM it flipped from one day to the next:
 *   - session 6 (Firecracker VM, 2 vCPUs): rings 2-3x faster for exchanges
 *     (MPI_Allreduce of 256 KiB at P = 2: 87 against 231 us with pulls);
 *   - session 7 (the same VM kind, another host): single copies 3-5x faster
 *     (MPI_Sendrecv of 256 KiB at P = 2: 31-35 against 51-183 us; 1 MiB
 *     ping-pong 127-135 against 302-413 us round trip).
 * A copy timed inside one process could not tell the two apart (readv 4x
 * slower than memcpy on both hosts): what differs is what crossing cores
 * costs the rings. So both are timed for real: ranks 0 and 1 do
 * TUNE_REPS rounds of a ping-pong and an exchange (MPI_Sendrecv) of
 * TUNE_BYTES (and ping-pongs of 32-128 KiB) with the rings and with single
 * copies, alternating, and take each one's best; rank 0 broadcasts the choice, separately for one-way
 * writes and for exchanges, and every rank applies it
 * (tl_shmem_set_cma); with more ranks than CPUs on the host, one-way writes
 * stay on the rings (see tune_pair). About 2-5 ms at MPI_Init (20 at 8
 * ranks on 2 CPUs); MBMPI_LOG=debug prints the times. MBMPI_SHM_CMA=0 / 1 /
 * exchange fix the choice instead.
 */
#include "mpi/core.h"
#include "mpi/coll/coll_more.h"
#include "transport/transport.h"
#include "util/log.h"

#include <stdlib.h>

#define TUNE_BYTES (256 << 10) /* the largest size timed, and the exchange's */
#define TUNE_REPS 5
/* one-way writes from 32 KiB may be single copies: the sizes timed */
#define TUNE_NSIZES 4
static const int tune_sizes[TUNE_NSIZES] = {32 << 10, 64 << 10, 128 << 10, TUNE_BYTES};

/* One ping-pong of n bytes between ranks 0 and 1 (*t: its round trip, s). */
static int tune_pingpong(mpii_comm_t *w, char *a, char *b, int n, double *t)
{
    int peer = 1 - w->rank, rc;
    double t0 = MPI_Wtime();

    if (w->rank == 0) {
        rc = mpii_send_ctx(a, n, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1);
        if (rc == MPI_SUCCESS)
            rc = mpii_recv_ctx(b, n, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
    } else {
        rc = mpii_recv_ctx(b, n, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = mpii_send_ctx(a, n, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1);
    }
    *t = MPI_Wtime() - t0;
    return rc;
}

/* One exchange (MPI_Sendrecv) of TUNE_BYTES between ranks 0 and 1. */
static int tune_exchange(mpii_comm_t *w, char *a, char *b, double *t)
{
    int peer = 1 - w->rank, rc;
    double t0 = MPI_Wtime();

    rc = mpii_sendrecv_ctx(a, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, b, TUNE_BYTES, MPI_BYTE,
                           peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
    *t = MPI_Wtime() - t0;
    return rc;
}

/* Ranks 0 and 1: time both ways; at rank 0 the choice in dec (see
 * mpii_shm_tune). */
static int tune_pair(mpii_comm_t *w, int dec[3])
{
    char *a = malloc(2 * (size_t)TUNE_BYTES);
    int ok = a != NULL && tl_shmem_cma_peers(mpii_g.tl) > 0, peer_ok = 0, rc;
    /* [single copy][ping-pong of each size, then the exchange] */
    double best[2][TUNE_NSIZES + 1];

    for (int c = 0; c < 2; c++)
        for (int k = 0; k <= TUNE_NSIZES; k++)
            best[c][k] = 1e9;
    /* both or neither: a failed malloc on one side must not leave the other
     * waiting; nothing to time where single copies are refused (ptrace rules) */
    rc = mpii_sendrecv_ctx(&ok, 1, MPI_INT, 1 - w->rank, MPII_COLL_TAG_SHM_TUNE, &peer_ok, 1, MPI_INT,
                           1 - w->rank, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || !ok || !peer_ok) {
        free(a);
        return rc;
    }
    for (size_t i = 0; i < 2 * (size_t)TUNE_BYTES; i++)
        a[i] = (char)i;
    /* round 0 warms up (first touch, registrations) and is not counted */
    for (int r = 0; r <= TUNE_REPS && rc == MPI_SUCCESS; r++) {
        for (int cma = 0; cma <= 1 && rc == MPI_SUCCESS; cma++) {
            double t;
            tl_shmem_set_cma(mpii_g.tl, cma, tune_sizes[0], cma);
            for (int k = 0; k <= TUNE_NSIZES && rc == MPI_SUCCESS; k++) {
                rc = k < TUNE_NSIZES ? tune_pingpong(w, a, a + TUNE_BYTES, tune_sizes[k], &t)
                                     : tune_exchange(w, a, a + TUNE_BYTES, &t);
                if (r > 0 && t < best[cma][k])
                    best[cma][k] = t;
            }
        }
    }
    tl_shmem_set_cma(mpii_g.tl, 0, tune_sizes[0], 0);
    free(a);
    if (rc == MPI_SUCCESS && w->rank == 0) {
        /* One-way writes are single copies from the smallest size from
         * which they won every ping-pong timed: the system call's cost
         * falls with the size less than a copy's. On the 2-vCPU VMs of
         * 2026-12-03 the rings took 7, 10 and 18 us for 32, 64 and
         * 128 KiB, single copies 14, 20-24 and 32; from 256 KiB single
         * copies won (32-34 against 37-38 us, 1 MiB 87-102 against
         * 119-126; bench/rtt, half round trips). */
        int from = TUNE_NSIZES;
        while (from > 0 && best[1][from - 1] < best[0][from - 1])
            from--;
        /* More ranks than CPUs: a root's single copies to its children all
         * run on its CPU, while through the rings each receiver copies its
         * own (Bcast of 64 KiB-1 MiB at P = 8 on 2 CPUs: 114-1222 us with
         * single copies, 82-1010 through the rings); the pair's ping-pong
         * cannot show that, so one-way writes keep to the rings there,
         * except a flat Scatter's or Gather's blocks (2, TL_SHM_FLAT): the
         * root copies each block either way, the rings add the receivers'
         * copies (bench/coll, window mode, medians of 5 alternated runs,
         * blocks of 64 KiB, 256 KiB, 1 MiB at P = 8 on 2 CPUs: Scatter
         * 175, 472, 2146 -> 103, 364, 1910 us; Gather 150, 455, 2300 ->
         * 99, 425, 1734; at P = 4 within the noise). */
        dec[0] = from < TUNE_NSIZES ? (mpii_host_ranks() <= mpii_host_cpus() ? 1 : 2) : 0;
        dec[1] = best[1][TUNE_NSIZES] < best[0][TUNE_NSIZES];
        dec[2] = tune_sizes[from < TUNE_NSIZES ? from : TUNE_NSIZES - 1];
        for (int k = 0; k < TUNE_NSIZES; k++)
            ut_debug("mbshm: %d KiB ping-pong rings %.1f us, single copy %.1f us", tune_sizes[k] >> 10,
                     1e6 * best[0][k], 1e6 * best[1][k]);
        ut_debug("mbshm: %d KiB exchange rings %.1f us, pulled %.1f us: %s writes from %d KiB, exchanges %s",
                 TUNE_BYTES >> 10, 1e6 * best[0][TUNE_NSIZES], 1e6 * best[1][TUNE_NSIZES],
                 dec[0] == 1 ? "single-copy"
                 : dec[0]    ? "flat Scatter / Gather single-copy, other ring"
                             : "ring",
                 dec[2] >> 10, dec[1] ? "pulled" : "through the rings");
    }
    return rc;
}

int mpii_shm_tune(void)
{
    mpii_comm_t *w = mpii_comm_get(MPI_COMM_WORLD);
    /* single-copy writes (0, 1, 2: see tl_shmem_set_cma), pulled exchanges,
     * the smallest single-copy write; -1: no choice made */
    int dec[3] = {-1, -1, -1};
    int rc = MPI_SUCCESS;

    if (w == NULL || w->size < 2 || !tl_shmem_cma_tunable(mpii_g.tl))
        return MPI_SUCCESS;
    if (w->rank <= 1)
        rc = tune_pair(w, dec);
    /* every rank waits for the choice, whatever happened at ranks 0 and 1 */
    int brc = mpii_bcast_binomial(dec, 3, MPI_INT, 0, w);
    if (brc == MPI_SUCCESS && dec[0] >= 0)
        tl_shmem_set_cma(mpii_g.tl, dec[0], (size_t)dec[2], dec[1]);
    /* the rounds' REQs crossed messages: start the program with a clean slate */
    proto_reset_req_adapt(mpii_g.p);
    return rc != MPI_SUCCESS ? rc : brc;
}
