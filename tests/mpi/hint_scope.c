/*
 * hint_scope: a transport hint belongs to the send that asked for it.
 * Over mbshm with MBMPI_SHM_CMA=1, the operand a Reduce sends to its root
 * (here 512 KiB) is read by the root itself (process_vm_readv, in pieces
 * of 128 KiB that the root's "shm_pulled" counts), while a user's one-way
 * send of 128 KiB is written by its sender alone (process_vm_writev).
 *
 * Rank 0 starts an Isend of 128 KiB to rank 1, which waits for its CTS,
 * tells rank 1 so, and enters MPI_Reduce (root 1). Rank 1 then posts the
 * matching receive and enters the Reduce too: the CTS reaches rank 0 while
 * it waits for its operand's send, which is where the Isend's payload is
 * written (nothing else runs progress on rank 0 in between). Rank 1 must
 * have pulled exactly as many pieces as in a Reduce alone. When the hints
 * were set for the rank as a whole around a call, the Isend's write took
 * the operand's path: rank 1 pulled its piece, and the operand, which mbshm
 * cannot share while that one is outstanding, was written by rank 0 (1
 * piece pulled against 4), or was pulled after it (5).
 *
 * Needs 2 ranks. Prints SKIP and exits 0 where a Reduce alone pulls
 * nothing (no process_vm_readv here, or another provider).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI (128 << 10) /* bytes of the Isend */
#define NO (512 << 10) /* bytes of the Reduce's operand */

static unsigned long long pulled(void)
{
    unsigned long long v = 0;
#ifdef MBMPI_VERSION_STRING
    MPIX_Stat_get("shm_pulled", &v);
#endif
    return v;
}

int main(int argc, char **argv)
{
    int rank, size, token = 1, bad = 0;
    unsigned long long p0, alone, with_isend;
    float *in, *out;
    unsigned char *buf;
    MPI_Request rq;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "hint_scope: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    in = malloc(NO);
    out = malloc(NO);
    buf = malloc(NI);
    for (int i = 0; i < NO / 4; i++)
        in[i] = (float)(rank + 1) * (float)(i % 1000);

    /* a Reduce alone */
    MPI_Barrier(MPI_COMM_WORLD);
    p0 = pulled();
    MPI_Reduce(in, out, NO / 4, MPI_FLOAT, MPI_SUM, 1, MPI_COMM_WORLD);
    alone = pulled() - p0;

    /* the same Reduce while an Isend's CTS comes in */
    MPI_Barrier(MPI_COMM_WORLD);
    p0 = pulled();
    if (rank == 0) {
        for (int i = 0; i < NI; i++)
            buf[i] = (unsigned char)(i * 7 + 3);
        MPI_Isend(buf, NI, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq);
        MPI_Send(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
    } else {
        memset(buf, 0, NI);
        MPI_Recv(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(buf, NI, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq);
    }
    MPI_Reduce(in, out, NO / 4, MPI_FLOAT, MPI_SUM, 1, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    with_isend = pulled() - p0;

    if (rank == 1) {
        for (int i = 0; i < NI; i++)
            bad += buf[i] != (unsigned char)(i * 7 + 3);
        for (int i = 0; i < NO / 4; i++)
            bad += out[i] != 3.0f * (float)(i % 1000);
        if (bad)
            printf("hint_scope: %d wrong values\n", bad);
        else if (alone == 0)
            printf("hint_scope: SKIP (a Reduce alone pulled nothing here)\n");
        else if (with_isend != alone)
            printf("hint_scope: FAIL: the root pulled %llu pieces with the Isend, %llu in a Reduce alone\n",
                   with_isend, alone);
        else
            printf("hint_scope: ok (%llu pieces both times)\n", alone);
        bad += alone != 0 && with_isend != alone;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(in);
    free(out);
    free(buf);
    MPI_Finalize();
    return bad != 0;
}
