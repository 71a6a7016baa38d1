/*
 * partitioned: MPI 4.0 partitioned communication. Each rank sends to the
 * next and receives from the previous with MPI_Psend_init / MPI_Precv_init
 * (8 partitions of 5 ints), three rounds of MPI_Start / MPI_Wait on the same
 * requests, partitions marked by MPI_Pready (last first), MPI_Pready_range
 * and MPI_Pready_list, MPI_Parrived polled until the data is there; a
 * derived datatype (every other int); a wildcard MPI_Irecv posted on the
 * same communicator before and after never takes a partitioned message
 * (their own context), and gets the ordinary one sent last; matching in
 * the order of initialization (MPI 4.0 4.2.2): three pairs of one peer and
 * tag, the sends started and marked in another order than the receives,
 * and pairs of other tags initialized in between; MPI_PROC_NULL
 * partners; errors under MPI_ERRORS_RETURN: a partition marked twice or out
 * of range (MPI_ERR_ARG), MPI_Pready on a receive (MPI_ERR_REQUEST), a
 * wildcard source (MPI_ERR_RANK), no partitions (MPI_ERR_ARG).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "partitioned"
#define CHECK_RANK rank
#include "check.h"

#define PARTS 8
#define PCOUNT 5
#define N (PARTS * PCOUNT)

static int rank = -1, size;

static void rounds(MPI_Comm comm)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int sbuf[N], rbuf[N], wild = -1, flag, list[PARTS / 2];
    MPI_Request sreq, rreq, wreq;
    MPI_Status st;

    /* an ordinary wildcard receive, pending through all the rounds */
    MPI_CHECK(MPI_Irecv(&wild, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &wreq));
    MPI_CHECK(MPI_Psend_init(sbuf, PARTS, PCOUNT, MPI_INT, next, 7, comm, MPI_INFO_NULL, &sreq));
    MPI_CHECK(MPI_Precv_init(rbuf, PARTS, PCOUNT, MPI_INT, prev, 7, comm, MPI_INFO_NULL, &rreq));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            sbuf[i] = rank * 100000 + round * 1000 + i;
            rbuf[i] = -1;
        }
        MPI_CHECK(MPI_Start(&rreq));
        MPI_CHECK(MPI_Start(&sreq));
        if (round == 0) {
            for (int p = PARTS - 1; p >= 0; p--)
                MPI_CHECK(MPI_Pready(p, sreq));
        } else if (round == 1) {
            MPI_CHECK(MPI_Pready_range(PARTS / 2, PARTS - 1, sreq));
            MPI_CHECK(MPI_Pready_range(0, PARTS / 2 - 1, sreq));
        } else {
            for (int k = 0; k < PARTS / 2; k++)
                list[k] = 2 * k + 1;
            MPI_CHECK(MPI_Pready_list(PARTS / 2, list, sreq));
            for (int k = 0; k < PARTS / 2; k++)
                list[k] = 2 * k;
            MPI_CHECK(MPI_Pready_list(PARTS / 2, list, sreq));
        }
        /* every partition arrives, then the receive completes */
        for (int p = 0; p < PARTS; p++) {
            flag = 0;
            while (!flag)
                MPI_CHECK(MPI_Parrived(rreq, p, &flag));
            for (int i = p * PCOUNT; i < (p + 1) * PCOUNT; i++)
                CHECK(rbuf[i] == prev * 100000 + round * 1000 + i, "round %d: rbuf[%d] = %d", round, i,
                      rbuf[i]);
        }
        MPI_CHECK(MPI_Wait(&rreq, &st));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK(rreq != MPI_REQUEST_NULL && sreq != MPI_REQUEST_NULL, "persistent requests were freed");
        MPI_CHECK(MPI_Test(&wreq, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "round %d: the wildcard MPI_Irecv took a partitioned message", round);
    }
    MPI_CHECK(MPI_Request_free(&sreq));
    MPI_CHECK(MPI_Request_free(&rreq));
    /* the wildcard receive gets the ordinary message (sent once every rank
     * has checked it pending) */
    MPI_CHECK(MPI_Barrier(comm));
    MPI_CHECK(MPI_Send(&rank, 1, MPI_INT, next, 9, comm));
    MPI_CHECK(MPI_Wait(&wreq, &st));
    CHECK(wild == prev && st.MPI_TAG == 9, "wildcard receive got %d tag %d", wild, st.MPI_TAG);
}

/* Sends initialized A, B, C (and X of another tag between them), started
 * C, X, A, B; receives initialized A', X', B', C', started in that order:
 * A' gets A's data, and so on. */
static void init_order(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int s[4][PCOUNT], r[4][PCOUNT];
    MPI_Request sreq[4], rreq[4];
    const int start_order[4] = {2, 3, 0, 1}; /* C, X, A, B (X is index 3) */

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < PCOUNT; j++) {
            s[i][j] = rank * 1000 + i * 10 + j;
            r[i][j] = -1;
        }
    MPI_CHECK(MPI_Psend_init(s[0], 1, PCOUNT, MPI_INT, next, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[0]));
    MPI_CHECK(MPI_Psend_init(s[3], 1, PCOUNT, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[3]));
    MPI_CHECK(MPI_Psend_init(s[1], 1, PCOUNT, MPI_INT, next, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[1]));
    MPI_CHECK(MPI_Psend_init(s[2], 1, PCOUNT, MPI_INT, next, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[2]));
    MPI_CHECK(MPI_Precv_init(r[0], 1, PCOUNT, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq[0]));
    MPI_CHECK(MPI_Precv_init(r[1], 1, PCOUNT, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq[1]));
    MPI_CHECK(MPI_Precv_init(r[3], 1, PCOUNT, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq[3]));
    MPI_CHECK(MPI_Precv_init(r[2], 1, PCOUNT, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq[2]));
    for (int k = 0; k < 4; k++) {
        MPI_CHECK(MPI_Start(&sreq[start_order[k]]));
        MPI_CHECK(MPI_Pready(0, sreq[start_order[k]]));
    }
    MPI_CHECK(MPI_Startall(4, rreq));
    MPI_CHECK(MPI_Waitall(4, rreq, MPI_STATUSES_IGNORE));
    MPI_CHECK(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < PCOUNT; j++)
            CHECK(r[i][j] == prev * 1000 + i * 10 + j, "init order: receive %d got %d at %d", i, r[i][j], j);
        MPI_CHECK(MPI_Request_free(&sreq[i]));
        MPI_CHECK(MPI_Request_free(&rreq[i]));
    }
}

static void derived(MPI_Comm comm)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int sbuf[2 * N], rbuf[2 * N];
    MPI_Datatype every_other;
    MPI_Request sreq, rreq;

    /* 2 partitions of PCOUNT * 4 elements "every other int" (a resized vector of 1) */
    MPI_CHECK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other));
    MPI_CHECK(MPI_Type_commit(&every_other));
    for (int i = 0; i < 2 * N; i++) {
        sbuf[i] = i % 2 ? -7 : rank * 1000 + i;
        rbuf[i] = -3;
    }
    MPI_CHECK(MPI_Precv_init(rbuf, 2, N / 2, every_other, prev, 3, comm, MPI_INFO_NULL, &rreq));
    MPI_CHECK(MPI_Psend_init(sbuf, 2, N / 2, every_other, next, 3, comm, MPI_INFO_NULL, &sreq));
    MPI_CHECK(MPI_Type_free(&every_other)); /* the requests keep the type */
    MPI_CHECK(MPI_Start(&sreq));
    MPI_CHECK(MPI_Start(&rreq));
    MPI_CHECK(MPI_Pready(1, sreq));
    MPI_CHECK(MPI_Pready(0, sreq));
    MPI_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2 * N; i++)
        CHECK(rbuf[i] == (i % 2 ? -3 : prev * 1000 + i), "derived: rbuf[%d] = %d", i, rbuf[i]);
    MPI_CHECK(MPI_Request_free(&sreq));
    MPI_CHECK(MPI_Request_free(&rreq));
}

static void proc_null(void)
{
    int buf[PCOUNT] = {0}, flag = 0;
    MPI_Request s, r;
    MPI_Status st;

    MPI_CHECK(MPI_Psend_init(buf, 1, PCOUNT, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_CHECK(MPI_Precv_init(buf, 1, PCOUNT, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_CHECK(MPI_Start(&s));
    MPI_CHECK(MPI_Start(&r));
    MPI_CHECK(MPI_Pready(0, s));
    MPI_CHECK(MPI_Parrived(r, 0, &flag));
    CHECK(flag, "MPI_PROC_NULL: nothing to wait for");
    MPI_CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL status source %d", st.MPI_SOURCE);
    MPI_CHECK(MPI_Request_free(&s));
    MPI_CHECK(MPI_Request_free(&r));
}

static void errors(void)
{
    int buf[4] = {0};
    MPI_Request s, r;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_CHECK(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    ECLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* not started */
    MPI_CHECK(MPI_Start(&s));
    ECLASS(MPI_Pready(2, s), MPI_ERR_ARG);
    ECLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
    ECLASS(MPI_Pready_range(1, 0, s), MPI_ERR_ARG);
    MPI_CHECK(MPI_Pready(0, s));
    ECLASS(MPI_Pready(0, s), MPI_ERR_ARG);
    ECLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
    MPI_CHECK(MPI_Pready(1, s));
    MPI_CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Request_free(&s));
    MPI_CHECK(MPI_Request_free(&r));
    ECLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_RANK);
    ECLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_TAG);
    ECLASS(MPI_Psend_init(buf, 0, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_ARG);
    ECLASS(MPI_Psend_init(buf, 2, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s), MPI_ERR_COUNT);
    ECLASS(MPI_Parrived(MPI_REQUEST_NULL, 0, &(int){0}), MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rounds(MPI_COMM_WORLD);
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    rounds(dup);
    derived(dup);
    MPI_CHECK(MPI_Comm_free(&dup));
    init_order();
    proc_null();
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("PASS %s\n", TEST_NAME);
    MPI_Finalize();
    return 0;
}
