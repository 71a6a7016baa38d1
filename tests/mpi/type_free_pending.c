/*
 * type_free_pending: MPI_Type_free on a derived datatype while a receive and
 * a send using it are still pending; both must complete normally (MPI 3.1
 * section 4.1.9), with the data laid out by the freed type.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, peer, i, errs = 0;
    double sbuf[64], rbuf[64];
    MPI_Datatype vec;
    MPI_Request rq[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = size > 1 ? rank ^ 1 : rank;
    if (peer >= size)
        peer = rank;
    for (i = 0; i < 64; i++) {
        sbuf[i] = rank * 1000 + i;
        rbuf[i] = -1;
    }
    MPI_Type_vector(16, 1, 4, MPI_DOUBLE, &vec); /* every 4th double */
    MPI_Type_commit(&vec);
    MPI_Irecv(rbuf, 1, vec, peer, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(sbuf, 1, vec, peer, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Type_free(&vec);
    /* Reuse of the memory the type held must not matter. */
    {
        MPI_Datatype other;
        MPI_Type_contiguous(3, MPI_INT, &other);
        MPI_Type_commit(&other);
        MPI_Type_free(&other);
    }
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (i = 0; i < 64; i++) {
        double want = i % 4 == 0 ? peer * 1000 + i : -1;
        if (rbuf[i] != want) {
            if (errs++ < 5)
                fprintf(stderr, "FAIL type_free_pending: rbuf[%d] = %g, want %g (rank %d)\n", i, rbuf[i], want, rank);
        }
    }
    if (errs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
