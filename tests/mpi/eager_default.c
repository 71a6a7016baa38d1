/*
 * eager_default: the eager limit a user gets without MBMPI_EAGER_LIMIT
 * (mpi/init.c). Over mbshm with a CPU per rank it is 8 KiB: from there a
 * rendezvous (its ring transfer pipelined between the two CPUs) is faster
 * than an eager message copied in whole and then out; with more ranks than
 * CPUs, 16 KiB. Rank 0 starts sends of 8 KiB and of 12 KiB before rank 1
 * can have posted their receives (rank 1 posts them after a barrier that
 * rank 0 enters after the sends), so the sender decides alone: a message
 * within the limit goes eager, a larger one as an RTS
 * (MPIX_Stat_get("eager_msgs") / ("rts_msgs") at rank 0). Other
 * providers: 8 KiB goes eager and the data arrives (their limit is 16 KiB,
 * or 64 KiB over tcp;ofi_rxm's rings). Run on mbshm by the manifest with 2
 * ranks, and with 4 (more than the CPUs of a 2-CPU host: 16 KiB then).
 */
#define _GNU_SOURCE
#define TEST_NAME "eager_default"
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1;
#define CHECK_RANK rank
#include "check.h"

static unsigned long long stat_of(const char *name)
{
    unsigned long long v = 0;
    MPI_CHECK(MPIX_Stat_get(name, &v));
    return v;
}

int main(int argc, char **argv)
{
    const char *prov = getenv("MBMPI_PROVIDER");
    int size, cpus, mbshm = !prov || !*prov || !strcmp(prov, "auto") || !strcmp(prov, "mbshm");
    const char *ls = getenv("MBMPI_LOCAL_SIZE");
    static char a[12288], b[12288];
    cpu_set_t set;

    /* the CPUs this process may use as started (MPI_Init then pins it) */
    cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks or more");
    int host_ranks = ls ? atoi(ls) : size;
    int want = mbshm ? (host_ranks <= cpus ? 8192 : 16384) : 0; /* 0: not checked */

    for (int i = 0; i < (int)sizeof(a); i++)
        a[i] = (char)(i * 7 + 1);
    if (rank == 0) {
        MPI_Request r[2];
        unsigned long long e0 = stat_of("eager_msgs"), r0 = stat_of("rts_msgs");
        MPI_CHECK(MPI_Isend(a, 8192, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r[0]));
        MPI_CHECK(MPI_Isend(a, 12288, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &r[1]));
        unsigned long long e1 = stat_of("eager_msgs"), r1 = stat_of("rts_msgs");
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        /* the barrier's own messages come after e1 / r1 */
        if (want) {
            CHECK(e1 - e0 == (want > 12288 ? 2u : 1u) && r1 - r0 == (want > 12288 ? 0u : 1u),
                  "8 and 12 KiB sent with %llu eager and %llu RTS messages; want the limit %d (%d ranks, %d "
                  "CPUs)",
                  e1 - e0, r1 - r0, want, host_ranks, cpus);
        } else {
            CHECK(e1 - e0 >= 1, "8 KiB was not sent eagerly (%llu eager messages)", e1 - e0);
        }
    } else if (rank == 1) {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Recv(b, 8192, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(!memcmp(a, b, 8192), "8 KiB arrived wrong");
        MPI_CHECK(MPI_Recv(b, 12288, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(!memcmp(a, b, 12288), "12 KiB arrived wrong");
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (rank == 0)
        printf("eager_default: %d ranks on %d CPUs, limit %s\n", host_ranks, cpus,
               want ? (want == 8192 ? "8 KiB" : "16 KiB") : "not checked here");
    MPI_Finalize();
    return 0;
}
