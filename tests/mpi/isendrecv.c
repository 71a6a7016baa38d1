/*
 * isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0 3.10).
 *   1. a ring both ways at once (two pending MPI_Isendrecv, completed by one
 *      MPI_Waitall), sizes across the eager limit: data, and each status's
 *      source, tag and count;
 *   2. MPI_Isendrecv_replace around the ring, checked after MPI_Test loops;
 *   3. an open chain: the ends send to / receive from MPI_PROC_NULL.
 * Prints "isendrecv: ok"; a failed check aborts the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "isendrecv"
#define CHECK_RANK rank
#define CHECK_RANK_FIRST
#include "check.h"

static int rank, size;

static int val(int from, int i, int salt)
{
    return from * 100003 + i * 7 + salt;
}

int main(int argc, char **argv)
{
    static const int counts[] = {0, 1, 1000, 70000};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int k = 0; k < 4; k++) {
        int n = counts[k], cnt;
        int *s = malloc(sizeof(int) * (size_t)(n + 1)), *fromleft = malloc(sizeof(int) * (size_t)(n + 1)),
            *fromright = malloc(sizeof(int) * (size_t)(n + 1));
        MPI_Request rq[2];
        MPI_Status st[2];
        CHECK(s && fromleft && fromright, "out of memory");
        for (int i = 0; i < n; i++)
            s[i] = val(rank, i, k);
        /* 1. to the right (tag 1) and to the left (tag 2) at once */
        MPI_Isendrecv(s, n, MPI_INT, right, 1, fromleft, n, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isendrecv(s, n, MPI_INT, left, 2, fromright, n, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD,
                      &rq[1]);
        MPI_Waitall(2, rq, st);
        CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Waitall left a request");
        for (int i = 0; i < n; i++)
            CHECK(fromleft[i] == val(left, i, k) && fromright[i] == val(right, i, k), "count %d element %d",
                  n, i);
        MPI_Get_count(&st[0], MPI_INT, &cnt);
        CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1 && cnt == n,
              "status 0: source %d tag %d count %d", st[0].MPI_SOURCE, st[0].MPI_TAG, cnt);
        MPI_Get_count(&st[1], MPI_INT, &cnt);
        CHECK(st[1].MPI_SOURCE == right && st[1].MPI_TAG == 2 && cnt == n,
              "status 1: source %d tag %d count %d", st[1].MPI_SOURCE, st[1].MPI_TAG, cnt);

        /* 2. replace, to the right, completed by MPI_Test */
        int flag = 0;
        MPI_Isendrecv_replace(s, n, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, &rq[0]);
        while (!flag)
            MPI_Test(&rq[0], &flag, &st[0]);
        for (int i = 0; i < n; i++)
            CHECK(s[i] == val(left, i, k), "replace: count %d element %d is %d", n, i, s[i]);
        MPI_Get_count(&st[0], MPI_INT, &cnt);
        CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 3 && cnt == n, "replace status");
        free(s);
        free(fromleft);
        free(fromright);
    }

    /* 3. open chain */
    {
        int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        int x = rank, y = -1;
        MPI_Request rq;
        MPI_Status st;
        MPI_Isendrecv(&x, 1, MPI_INT, to, 4, &y, 1, MPI_INT, from, 4, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, &st);
        if (from == MPI_PROC_NULL)
            CHECK(y == -1 && st.MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL: %d, source %d", y,
                  st.MPI_SOURCE);
        else
            CHECK(y == from && st.MPI_SOURCE == from, "chain: got %d", y);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("isendrecv: ok\n");
    return 0;
}
