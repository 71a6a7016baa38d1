/*
 * model_work: the CPU-work bound of the collectives' model when the ranks
 * outnumber the CPUs (mpi/coll/model.c, msgw). Over a network provider on
 * one host a message's whole one-way time is CPU work, so an Alltoall of
 * P ranks on C CPUs takes at least P (P - 1) OW(m) / C; over mbshm its
 * o_s + o_r count.
 *
 * usage: model_work [ow_us o_us]
 *   Without arguments: checks that MPIX_Coll_predict answers (the manifest
 *   line). With them (tests/suites/coll.sh, under taskset on one CPU, with
 *   a parameter file whose rows have o_s = o_r = o_us and OW = ow_us and
 *   no wake, turn or late): over mbshm the pairwise Alltoall of 4096 B is
 *   predicted below P (P - 1) ow_us, over any other provider at or above it.
 * Prints "model_work: ok" or the failed check; exit status 0 / 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0, len;
    double t = 0.0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], chosen[64];
    const char *prov;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    if (MPIX_Coll_predict("alltoall", NULL, size < 2 ? 2 : size, 4096, &t, chosen, sizeof(chosen)) !=
            MPI_SUCCESS ||
        !(t > 0.0)) {
        fprintf(stderr, "model_work: rank %d: MPIX_Coll_predict of the automatic Alltoall failed\n", rank);
        bad = 1;
    }
    if (argc == 3 && !bad) {
        double ow = atof(argv[1]), bound = (double)size * (size - 1) * ow;
        int on_mbshm;

        prov = getenv("MBMPI_PROVIDER");
        on_mbshm = prov == NULL || !strcmp(prov, "mbshm") || !strcmp(prov, "auto");
        if (MPIX_Coll_predict("alltoall", "pairwise", size, 4096, &t, NULL, 0) != MPI_SUCCESS) {
            fprintf(stderr, "model_work: rank %d: MPIX_Coll_predict(alltoall, pairwise) failed\n", rank);
            bad = 1;
        } else if (on_mbshm ? t >= bound : t < bound * 0.999) {
            fprintf(stderr,
                    "model_work: rank %d (%s): pairwise Alltoall of 4096 B at P = %d predicted %.2f us, "
                    "expected %s P (P - 1) OW = %.2f\n",
                    rank, prov ? prov : "mbshm", size, t, on_mbshm ? "below" : "at least", bound);
            bad = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("model_work: %s\n", bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad;
}
