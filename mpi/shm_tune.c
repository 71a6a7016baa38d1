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
 * TUNE_REPS rounds of a ping-pong and TUNE_XCHG exchanges (MPI_Sendrecv) of
 * TUNE_BYTES with the rings and with single copies, alternating, and take
 * each one's best (exchanges pull unless the rings win clearly,
 * TUNE_PULL_SLACK); rank 0 broadcasts the choice, separately for one-way
 * writes and for exchanges, and every rank applies it
 * (tl_shmem_set_cma); with more ranks than CPUs on the host, one-way writes
 * stay on the rings (see tune_pair). About 2-5 ms at MPI_Init (20 at 8
 * ranks on 2 CPUs); MBMPI_LOG=debug prints the times. MBMPI_SHM_CMA=0 / 1 /
 * exchange fix the choice instead.
 *
 * Where receivers read (either choice above on), the same pair then times
 * one-way messages of 8-128 KiB read by the receiver against the rings
 * (tune_reads): a read is one system call, and what that costs differs
 * more between hosts than a copy does. On the AMD EPYC VM of 2026-12-07 a
 * read of 32 KiB cost about 5 us more than the rings and a CTS (bench/rtt
 * half round trip 32 / 64 / 128 KiB: 8.9 / 12.9 / 21.0 us read, 3.2 / 4.6
 * / 8.1 without; a Bcast of 8 KiB at P = 2 3.8 us read, 0.96 through the
 * rings), while on the Xeon host of 2026-12-06 reads won from 8 KiB on
 * (Bcast of 16 KiB 1.40 against 2.81 us). Reads then start at the smallest
 * size from which they won at every size timed, never below the defaults
 * (MBMPI_COLL_READ_MIN's 8 KiB, MBMPI_RTS_READ_MIN's 32 KiB, and one-way
 * single-copy writes' 32 KiB), each only where left at auto; and only with
 * no more ranks than CPUs (there a CTS waits for the sender's next turn on
 * a CPU, which a read does not).
 */
#include "mpi/core.h"
#include "mpi/coll/coll_more.h"
#include "transport/transport.h"
#include "util/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TUNE_BYTES (256 << 10)
#define TUNE_REPS 5
/* exchanges per round, back to back as in a collective (a lone one mostly
 * times how far apart the two ranks start it) */
#define TUNE_XCHG 4
/* Exchanges are pulled unless the rings were this much faster. An
 * exchange's pull is the receiver reading the whole message (one copy per
 * byte, the rings make two), and streams of them gained more than the pair's
 * timing showed: on the AMD EPYC host of 2026-12-04, the tune timed 256 KiB
 * exchanges pulled at 23-35 us against 20-25 through the rings, while
 * MPI_Alltoall at P = 2 (bench/coll --osu --sync window, 2 runs each) took
 * 19.7 / 39.9 / 79.5 us at 256 KiB / 512 KiB / 1 MiB pulled against
 * 33.5 / 67.6 / 111.6 through the rings (Open MPI: 19.4 / 38.8 / 71.0), and
 * MPI_Allreduce at P = 8 1 MiB 1237-1477 against 1712-1723. Where the rings
 * won (session 6: MPI_Allreduce of 256 KiB at P = 2, 87 against 231 us),
 * they won by far more. */
#define TUNE_PULL_SLACK 1.25

/* One round between ranks 0 and 1: a ping-pong (*pp: its round trip) and
 * an exchange (*xc), seconds. */
static int tune_round(mpii_comm_t *w, char *a, char *b, double *pp, double *xc)
{
    int peer = 1 - w->rank, rc;
    double t0 = MPI_Wtime(), t1;

    if (w->rank == 0) {
        rc = mpii_send_ctx(a, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1);
        if (rc == MPI_SUCCESS)
            rc =
                mpii_recv_ctx(b, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
    } else {
        rc = mpii_recv_ctx(b, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = mpii_send_ctx(a, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1);
    }
    t1 = MPI_Wtime();
    for (int i = 0; i < TUNE_XCHG && rc == MPI_SUCCESS; i++)
        rc = mpii_sendrecv_ctx(a, TUNE_BYTES, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, b, TUNE_BYTES, MPI_BYTE,
                               peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
    *pp = t1 - t0;
    *xc = (MPI_Wtime() - t1) / TUNE_XCHG;
    return rc;
}

/* Ranks 0 and 1: *both is 1 when ok holds at both (a failed malloc on one
 * side must not leave the other waiting) */
static int pair_ok(mpii_comm_t *w, int ok, int *both)
{
    int peer_ok = 0;
    int rc = mpii_sendrecv_ctx(&ok, 1, MPI_INT, 1 - w->rank, MPII_COLL_TAG_SHM_TUNE, &peer_ok, 1, MPI_INT,
                               1 - w->rank, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);

    *both = rc == MPI_SUCCESS && ok && peer_ok;
    return rc;
}

/* Ranks 0 and 1: time both ways; at rank 0 the choice in dec. */
static int tune_pair(mpii_comm_t *w, int dec[2])
{
    char *a = malloc(2 * (size_t)TUNE_BYTES);
    int both, rc;
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}}; /* [single copy][ping-pong, exchange] */

    /* nothing to time where single copies are refused (ptrace rules) */
    rc = pair_ok(w, a != NULL && tl_shmem_cma_peers(mpii_g.tl) > 0, &both);
    if (!both) {
        free(a);
        return rc;
    }
    for (size_t i = 0; i < 2 * (size_t)TUNE_BYTES; i++)
        a[i] = (char)i;
    /* round 0 warms up (first touch, registrations) and is not counted */
    for (int r = 0; r <= TUNE_REPS && rc == MPI_SUCCESS; r++) {
        for (int cma = 0; cma <= 1 && rc == MPI_SUCCESS; cma++) {
            double pp, xc;
            tl_shmem_set_cma(mpii_g.tl, cma, cma);
            rc = tune_round(w, a, a + TUNE_BYTES, &pp, &xc);
            if (r > 0 && pp < best[cma][0])
                best[cma][0] = pp;
            if (r > 0 && xc < best[cma][1])
                best[cma][1] = xc;
        }
    }
    tl_shmem_set_cma(mpii_g.tl, 0, 0);
    free(a);
    if (rc == MPI_SUCCESS && w->rank == 0) {
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
        dec[0] = best[1][0] < best[0][0] ? (mpii_host_ranks() <= mpii_host_cpus() ? 1 : 2) : 0;
        dec[1] = best[1][1] < TUNE_PULL_SLACK * best[0][1];
        ut_debug("mbshm: %d KiB ping-pong rings %.1f us, single copy %.1f us; exchange rings %.1f us, pulled "
                 "%.1f us: %s writes, exchanges %s",
                 TUNE_BYTES >> 10, 1e6 * best[0][0], 1e6 * best[1][0], 1e6 * best[0][1], 1e6 * best[1][1],
                 dec[0] == 1 ? "single-copy"
                 : dec[0]    ? "flat Scatter / Gather single-copy, other ring"
                             : "ring",
                 dec[1] ? "pulled" : "through the rings");
    }
    return rc;
}

/* tune_reads: message sizes, rounds and messages per round */
static const size_t read_sizes[] = {8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10};
#define READ_NSIZES (sizeof(read_sizes) / sizeof(read_sizes[0]))
#define READ_REPS 5
#define READ_MSGS 4

/* Every message of the timing read by its receiver (on), or none and no
 * single-copy write either: all through the rings */
static void read_mode(int on)
{
    mpii_g.coll_read_min = on ? 1 : 0;
    proto_set_read_min(mpii_g.p, on ? 1 : SIZE_MAX);
    tl_shmem_set_cma_min(mpii_g.tl, on ? 0 : SIZE_MAX);
}

/* READ_MSGS messages of len bytes from rank 0 to rank 1 as a Bcast sends
 * them (the root's buffer left as it is), each answered by an empty one;
 * *t: seconds per message and answer */
static int read_round(mpii_comm_t *w, char *a, char *b, size_t len, double *t)
{
    int peer = 1 - w->rank, rc = MPI_SUCCESS;
    double t0 = MPI_Wtime();

    for (int i = 0; i < READ_MSGS && rc == MPI_SUCCESS; i++) {
        if (w->rank == 0) {
            MPI_Request req;
            rc = mpii_isend_coll_fanout(a, (int)len, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, &req);
            if (rc == MPI_SUCCESS)
                rc = mpii_waitall(1, &req);
            if (rc == MPI_SUCCESS)
                rc = mpii_recv_ctx(b, 0, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
        } else {
            rc = mpii_recv_ctx(b, (int)len, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = mpii_send_ctx(a, 0, MPI_BYTE, peer, MPII_COLL_TAG_SHM_TUNE, w, 1);
        }
    }
    *t = (MPI_Wtime() - t0) / READ_MSGS;
    return rc;
}

/* Ranks 0 and 1: reads against the rings (see the top); at rank 0 *from:
 * the smallest size from which reads won at every size timed (twice the
 * largest if they lost there: the pair's 256 KiB timing chose reads). */
static int tune_reads(mpii_comm_t *w, long long *from)
{
    char *a = malloc(2 * read_sizes[READ_NSIZES - 1]);
    size_t coll_min = mpii_g.coll_read_min, rts_min = proto_read_min(mpii_g.p);
    double best[READ_NSIZES][2];
    int both, rc = pair_ok(w, a != NULL, &both);

    if (!both) {
        free(a);
        return rc;
    }
    memset(a, 1, 2 * read_sizes[READ_NSIZES - 1]);
    for (size_t k = 0; k < READ_NSIZES; k++)
        best[k][0] = best[k][1] = 1e9;
    /* round 0 warms up and is not counted */
    for (int r = 0; r <= READ_REPS && rc == MPI_SUCCESS; r++)
        for (size_t k = 0; k < READ_NSIZES && rc == MPI_SUCCESS; k++)
            for (int on = 0; on <= 1 && rc == MPI_SUCCESS; on++) {
                double t;
                read_mode(on);
                rc = read_round(w, a, a + read_sizes[READ_NSIZES - 1], read_sizes[k], &t);
                if (r > 0 && t < best[k][on])
                    best[k][on] = t;
            }
    mpii_g.coll_read_min = coll_min;
    proto_set_read_min(mpii_g.p, rts_min);
    tl_shmem_set_cma_min(mpii_g.tl, 0);
    free(a);
    if (rc == MPI_SUCCESS && w->rank == 0) {
        size_t k = READ_NSIZES;
        while (k > 0 && best[k - 1][1] <= best[k - 1][0])
            k--;
        *from = k < READ_NSIZES ? (long long)read_sizes[k] : 2 * (long long)read_sizes[READ_NSIZES - 1];
        for (k = 0; k < READ_NSIZES; k++)
            ut_debug("mbshm: %zu KiB one way and back: rings %.2f us, read %.2f us", read_sizes[k] >> 10,
                     1e6 * best[k][0], 1e6 * best[k][1]);
    }
    return rc;
}

/* Reads from `from` bytes on, where the settings are auto (see the top) */
static void apply_reads(long long from)
{
    size_t f = (size_t)from;

    if (!strcmp(mpii_g.coll_read_min_str, "auto") && mpii_g.coll_read_min && mpii_g.coll_read_min < f)
        mpii_g.coll_read_min = f;
    if (!strcmp(mpii_g.rts_read_min_str, "auto") && proto_read_min(mpii_g.p) < f)
        proto_set_read_min(mpii_g.p, f);
    tl_shmem_set_cma_min(mpii_g.tl, f);
    ut_debug("mbshm: collective messages read from %zu B (0: none), rendezvous sends from %zu B, "
             "single-copy writes from %zu B",
             mpii_g.coll_read_min, proto_read_min(mpii_g.p), f);
}

int mpii_shm_tune(void)
{
    mpii_comm_t *w = mpii_comm_get(MPI_COMM_WORLD);
    /* single-copy writes, pulled exchanges (-1: no choice made), and
     * whether reads are timed next: rank 0's word for every rank */
    int dec[3] = {-1, -1, 0};
    int rc = MPI_SUCCESS;

    if (w == NULL || w->size < 2 || !tl_shmem_cma_tunable(mpii_g.tl))
        return MPI_SUCCESS;
    if (w->rank <= 1)
        rc = tune_pair(w, dec);
    /* where receivers then read, from which size (every rank the same: the
     * model prices collectives by it). Not with more ranks than CPUs: a
     * read there spares waiting for the sender's next turn on a CPU. */
    if (w->rank == 0)
        dec[2] = dec[0] >= 0 && (dec[0] || dec[1]) && mpii_g.rts_read && tl_can_read(mpii_g.tl) &&
                 mpii_host_ranks() <= mpii_host_cpus();
    /* every rank waits for the choice, whatever happened at ranks 0 and 1 */
    int brc = mpii_bcast_binomial(dec, 3, MPI_INT, 0, w);
    if (brc == MPI_SUCCESS && dec[0] >= 0)
        tl_shmem_set_cma(mpii_g.tl, dec[0], dec[1]);
    if (brc == MPI_SUCCESS && dec[2]) {
        long long from = -1;
        /* both of ranks 0 and 1 or neither (tune_reads starts with an
         * exchange), whatever tune_pair returned at either */
        if (w->rank <= 1) {
            int rrc = tune_reads(w, &from);
            if (rc == MPI_SUCCESS)
                rc = rrc;
        }
        brc = mpii_bcast_binomial(&from, 1, MPI_LONG_LONG, 0, w);
        if (brc == MPI_SUCCESS && from > 0)
            apply_reads(from);
    }
    /* the rounds' REQs crossed messages: start the program with a clean slate */
    proto_reset_req_adapt(mpii_g.p);
    return rc != MPI_SUCCESS ? rc : brc;
}
