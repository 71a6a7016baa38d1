/*
 * persistent: MPI_Send_init / MPI_Recv_init / MPI_Ssend_init, MPI_Start /
 * MPI_Startall, completion leaves them inactive (Wait/Test on an inactive
 * request return at once with an empty status), MPI_Request_free. A ring
 * exchange repeated 200 times with new data each time, sizes across the
 * eager limit; requests with derived types freed before the first start;
 * and a PROC_NULL pair at the ends of an open chain.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "persistent"
#define CHECK_RANK rank
#define CHECK_LINE
#include "check.h"

static int rank;

int main(int argc, char **argv)
{
    static const int counts[] = {1, 1000, 100000};
    int size, right, left, flag;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        int *sb = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)n);
        MPI_Request rq[2];
        CHECK(sb && rb, "out of memory");
        MPI_Recv_init(rb, n, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]);
        if (c == 2)
            MPI_Ssend_init(sb, n, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]);
        else
            MPI_Send_init(sb, n, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]);
        /* inactive: completion calls return at once */
        MPI_Test(&rq[0], &flag, &st);
        CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive Test");
        CHECK(rq[0] != MPI_REQUEST_NULL, "an inactive persistent request must keep its handle");
        for (int it = 0; it < (c == 2 ? 20 : 200); it++) {
            for (int i = 0; i < n; i++)
                sb[i] = rank * 1000003 + it * 31 + i;
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL, "handles lost after Waitall");
            for (int i = 0; i < n; i++)
                CHECK(rb[i] == left * 1000003 + it * 31 + i, "count %d iteration %d element %d", n, it, i);
        }
        /* one more round through Start and Wait */
        MPI_Start(&rq[0]);
        MPI_Start(&rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[0], &st);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5, "status after Start/Wait");
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Request_free did not reset");
        free(sb);
        free(rb);
    }
    /* derived types freed right after the init (MPI 3.1 4.1.9: the requests
     * are not affected): every other int of 2n, started three times */
    {
        enum { N = 3000 };
        int *sb = malloc(sizeof(int) * 2 * N), *rb = malloc(sizeof(int) * 2 * N);
        MPI_Datatype vs, vr;
        MPI_Request rq[2];
        CHECK(sb && rb, "out of memory");
        MPI_Type_vector(N, 1, 2, MPI_INT, &vs);
        MPI_Type_commit(&vs);
        MPI_Type_dup(vs, &vr);
        MPI_Recv_init(rb, 1, vr, left, 6, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init(sb, 1, vs, right, 6, MPI_COMM_WORLD, &rq[1]);
        MPI_Type_free(&vs);
        MPI_Type_free(&vr);
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < 2 * N; i++) {
                sb[i] = rank * 7919 + it * 101 + i;
                rb[i] = -1;
            }
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            for (int i = 0; i < 2 * N; i++)
                CHECK(rb[i] == (i % 2 ? -1 : left * 7919 + it * 101 + i),
                      "freed vector type: iteration %d int %d is %d", it, i, rb[i]);
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        free(sb);
        free(rb);
    }
    /* open chain: the ends talk to MPI_PROC_NULL */
    {
        int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        int s = rank, r = -1;
        MPI_Request rq[2];
        MPI_Status sts[2];
        MPI_Recv_init(&r, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init(&s, 1, MPI_INT, to, 9, MPI_COMM_WORLD, &rq[1]);
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, sts);
        if (from == MPI_PROC_NULL) {
            CHECK(r == -1, "a receive from PROC_NULL wrote data");
#ifdef MBMPI_VERSION_STRING /* MPICH 4.0.2 leaves another source here */
            CHECK(sts[0].MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL receive status source %d",
                  sts[0].MPI_SOURCE);
#endif
        } else
            CHECK(r == from, "chain value %d", r);
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
    }
    MPI_Finalize();
    return 0;
}
