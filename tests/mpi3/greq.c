/*
 * greq: generalized requests (MPI 3.1 12.2). A request from
 * MPI_Grequest_start is pending until MPI_Grequest_complete; MPI_Wait /
 * MPI_Test / MPI_Waitall then call query_fn (which fills the status:
 * source, tag, MPI_Status_set_elements, MPI_Status_set_cancelled) and
 * free_fn once; MPI_Request_get_status calls query_fn only; MPI_Cancel
 * calls cancel_fn with whether the request completed; MPI_Request_free on a
 * pending one calls free_fn only once it completes ("whichever happens
 * last" of MPI_Request_free and MPI_Grequest_complete, MPI 3.1 12.2; MPICH
 * 4.0 calls it at once and fails that check); an error of query_fn comes
 * back from the completion call; NULL callbacks are accepted and skipped.
 */
#define TEST_NAME "greq"
#include "mpi3_test.h"

typedef struct state {
    int id;
    int nquery, nfree, ncancel, last_complete;
    int query_rc;
} state_t;

static int query_fn(void *extra, MPI_Status *st)
{
    state_t *s = extra;
    s->nquery++;
    st->MPI_SOURCE = 100 + s->id;
    st->MPI_TAG = 200 + s->id;
    MPI_Status_set_elements(st, MPI_INT, s->id);
    MPI_Status_set_cancelled(st, s->ncancel > 0);
    return s->query_rc;
}

static int free_fn(void *extra)
{
    ((state_t *)extra)->nfree++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    s->ncancel++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    state_t s[4];
    MPI_Request r[4], pr;
    MPI_Status st, sts[2];
    int flag, cnt, i, buf = 0, rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    memset(s, 0, sizeof s);
    for (i = 0; i < 4; i++) {
        s[i].id = i + 1;
        MPI_CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s[i], &r[i]));
    }
    /* pending: Test says no and calls nothing */
    MPI_CHECK(MPI_Test(&r[0], &flag, &st));
    CHECK(!flag && s[0].nquery == 0 && s[0].nfree == 0, "Test of a pending generalized request");
    MPI_CHECK(MPI_Request_get_status(r[0], &flag, &st));
    CHECK(!flag && s[0].nquery == 0, "get_status of a pending one");
    MPI_CHECK(MPI_Grequest_complete(r[0]));
    MPI_CHECK(MPI_Request_get_status(r[0], &flag, &st));
    CHECK(flag && s[0].nquery == 1 && s[0].nfree == 0 && st.MPI_TAG == 201, "get_status after complete");
    MPI_CHECK(MPI_Wait(&r[0], &st));
    CHECK(r[0] == MPI_REQUEST_NULL && s[0].nquery == 2 && s[0].nfree == 1, "Wait: %d queries %d frees",
          s[0].nquery, s[0].nfree);
    MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(st.MPI_SOURCE == 101 && st.MPI_TAG == 201 && cnt == 1, "status from query_fn: %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, cnt);

    /* cancel before completion, then complete: cancelled status */
    MPI_CHECK(MPI_Cancel(&r[1]));
    CHECK(s[1].ncancel == 1 && s[1].last_complete == 0, "cancel_fn(complete=0)");
    MPI_CHECK(MPI_Grequest_complete(r[1]));
    /* a generalized request and a receive from self in one Waitall */
    MPI_CHECK(MPI_Irecv(&buf, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &pr));
    MPI_CHECK(MPI_Send(&rank, 1, MPI_INT, rank, 9, MPI_COMM_WORLD));
    {
        MPI_Request two[2] = {r[1], pr};
        MPI_CHECK(MPI_Waitall(2, two, sts));
        CHECK(two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL, "Waitall handles");
    }
    MPI_CHECK(MPI_Test_cancelled(&sts[0], &flag));
    CHECK(flag && s[1].nfree == 1 && sts[0].MPI_TAG == 202, "cancelled generalized request");
    CHECK(buf == rank && sts[1].MPI_TAG == 9, "receive in the same Waitall");

    /* cancel after completion: complete=1 */
    MPI_CHECK(MPI_Grequest_complete(r[2]));
    MPI_CHECK(MPI_Cancel(&r[2]));
    CHECK(s[2].last_complete == 1, "cancel_fn(complete=1)");
    s[2].query_rc = MPI_ERR_OTHER;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Wait(&r[2], &st), MPI_ERR_OTHER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(s[2].nfree == 1, "free_fn after a failing query_fn");

    /* freed while pending (the operation keeps its own copy of the handle
     * to complete it): free_fn runs once it completes */
    {
        MPI_Request keep = r[3];
        MPI_CHECK(MPI_Request_free(&r[3]));
        CHECK(r[3] == MPI_REQUEST_NULL && s[3].nfree == 0, "Request_free of a pending one");
        MPI_CHECK(MPI_Grequest_complete(keep));
        CHECK(s[3].nfree == 1, "free_fn of a freed request after its completion: %d", s[3].nfree);
    }

    /* NULL callbacks: no call (Open MPI and MPICH accept them, and their
     * tests pass a NULL cancel_fn); the status is an empty one */
    {
        MPI_Request nr;
        MPI_CHECK(MPI_Grequest_start(NULL, NULL, NULL, NULL, &nr));
        MPI_CHECK(MPI_Cancel(&nr));
        MPI_CHECK(MPI_Grequest_complete(nr));
        MPI_CHECK(MPI_Request_get_status(nr, &flag, &st));
        CHECK(flag, "get_status with no query_fn");
        st.MPI_TAG = 12345;
        MPI_CHECK(MPI_Wait(&nr, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(nr == MPI_REQUEST_NULL && cnt == 0 && st.MPI_TAG == MPI_ANY_TAG,
              "Wait with no callbacks: count %d tag %d", cnt, st.MPI_TAG);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
