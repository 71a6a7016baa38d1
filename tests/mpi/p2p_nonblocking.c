/*
 * p2p_nonblocking: Isend/Irecv/Issend completed with Wait, Waitall,
 * Waitany, Waitsome, Test, Testall, Testany, Testsome (arrays with
 * MPI_REQUEST_NULL entries; all-null arrays give MPI_UNDEFINED and empty
 * statuses), Request_get_status, Request_free on an active send, and 1000
 * outstanding requests. Ranks work in pairs (2k, 2k+1); the last rank of an
 * odd job is its own partner. "Not complete yet" checks are made only where
 * the matching send cannot have been started, so they never depend on timing.
 */
#define TEST_NAME "p2p_nonblocking"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size, partner;

static int val(int src, int tag, int i)
{
    return src * 1000003 + tag * 1009 + i;
}

static void fill(int *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, tag, i);
}

static void verify(const int *b, int n, int src, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, tag, i))
            FAIL("%s: element %d of %d (src %d tag %d) is %d, expected %d", what, i, n, src, tag, b[i],
                 val(src, tag, i));
}

static void check_empty_status(const MPI_Status *st, const char *what)
{
    int cnt = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
          "%s: empty status expected, got source %d tag %d", what, st->MPI_SOURCE, st->MPI_TAG);
    MPI_CHECK(MPI_Get_count(st, MPI_INT, &cnt));
    CHECK(cnt == 0, "%s: empty status count %d", what, cnt);
    /* MPI 3.1 3.7.3: an empty status also has error = MPI_SUCCESS */
    CHECK(st->MPI_ERROR == MPI_SUCCESS, "%s: empty status has MPI_ERROR %d", what, st->MPI_ERROR);
    MPI_CHECK(MPI_Test_cancelled(st, &cnt));
    CHECK(!cnt, "%s: empty status is cancelled", what);
}

static void check_st(const MPI_Status *st, int src, int tag, int n, const char *what)
{
    int cnt = -1;
    MPI_CHECK(MPI_Get_count(st, MPI_INT, &cnt));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && cnt == n,
          "%s: status source %d tag %d count %d, expected %d/%d/%d", what, st->MPI_SOURCE, st->MPI_TAG, cnt,
          src, tag, n);
}

static void basic_wait(void)
{
    static int out[3][70000], in[3][70000];
    const int n[3] = {1, 1000, 70000};
    MPI_Request rr[3], sr[3];
    MPI_Status st;
    for (int k = 0; k < 3; k++) {
        fill(out[k], n[k], rank, 10 + k);
        MPI_CHECK(MPI_Irecv(in[k], n[k], MPI_INT, partner, 10 + k, MPI_COMM_WORLD, &rr[k]));
    }
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            MPI_CHECK(MPI_Issend(out[k], n[k], MPI_INT, partner, 10 + k, MPI_COMM_WORLD, &sr[k]));
        else
            MPI_CHECK(MPI_Isend(out[k], n[k], MPI_INT, partner, 10 + k, MPI_COMM_WORLD, &sr[k]));
    }
    /* complete receives in reverse order with Wait */
    for (int k = 2; k >= 0; k--) {
        MPI_CHECK(MPI_Wait(&rr[k], &st));
        CHECK(rr[k] == MPI_REQUEST_NULL, "Wait did not set the request to MPI_REQUEST_NULL");
        check_st(&st, partner, 10 + k, n[k], "Wait");
        verify(in[k], n[k], partner, 10 + k, "Wait");
    }
    for (int k = 0; k < 3; k++) {
        MPI_CHECK(MPI_Wait(&sr[k], &st));
        CHECK(sr[k] == MPI_REQUEST_NULL, "Wait(send) did not set the request to MPI_REQUEST_NULL");
    }
    /* Wait / Test on MPI_REQUEST_NULL: return at once with an empty status */
    MPI_Request nul = MPI_REQUEST_NULL;
    int flag = 0;
    st.MPI_ERROR = -1;
    MPI_CHECK(MPI_Wait(&nul, &st));
    check_empty_status(&st, "Wait(MPI_REQUEST_NULL)");
    st.MPI_ERROR = -1;
    MPI_CHECK(MPI_Test(&nul, &flag, &st));
    CHECK(flag, "Test(MPI_REQUEST_NULL) flag false");
    check_empty_status(&st, "Test(MPI_REQUEST_NULL)");
    st.MPI_ERROR = -1;
    flag = 0;
    MPI_CHECK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag, "Request_get_status(MPI_REQUEST_NULL) flag false");
    check_empty_status(&st, "Request_get_status(MPI_REQUEST_NULL)");
}

/* Waitall on arrays containing MPI_REQUEST_NULL entries. */
static void waitall_nulls(void)
{
    enum { N = 7 };
    int out[N][8], in[N][8];
    MPI_Request rq[2 * N];
    MPI_Status st[2 * N];
    for (int k = 0; k < N; k++) {
        fill(out[k], 8, rank, 20 + k);
        memset(in[k], 0, sizeof in[k]);
    }
    for (int k = 0; k < N; k++) {
        if (k % 3 == 1) { /* neither sent nor received */
            rq[k] = rq[N + k] = MPI_REQUEST_NULL;
            continue;
        }
        MPI_CHECK(MPI_Irecv(in[k], 8, MPI_INT, partner, 20 + k, MPI_COMM_WORLD, &rq[k]));
        MPI_CHECK(MPI_Isend(out[k], 8, MPI_INT, partner, 20 + k, MPI_COMM_WORLD, &rq[N + k]));
    }
    MPI_CHECK(MPI_Waitall(2 * N, rq, st));
    for (int k = 0; k < 2 * N; k++)
        CHECK(rq[k] == MPI_REQUEST_NULL, "Waitall left request %d active", k);
    for (int k = 0; k < N; k++) {
        if (k % 3 == 1) {
            check_empty_status(&st[k], "Waitall null entry");
            CHECK(in[k][0] == 0, "Waitall: buffer of a null entry written");
        } else {
            check_st(&st[k], partner, 20 + k, 8, "Waitall");
            verify(in[k], 8, partner, 20 + k, "Waitall");
        }
    }
    /* all null, and count 0 */
    MPI_CHECK(MPI_Waitall(2 * N, rq, st));
    check_empty_status(&st[3], "Waitall all-null");
    MPI_CHECK(MPI_Waitall(0, rq, st));
    MPI_CHECK(MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE));
}

/* The partner sends tags 30..30+N-1 in a scrambled order; Waitany /
 * Waitsome / Testany / Testsome must return each index exactly once, with
 * the right status. which: 0 Waitany, 1 Waitsome, 2 Testany, 3 Testsome. */
static void any_some(int which)
{
    enum { N = 9 };
    static const char *names[] = {"Waitany", "Waitsome", "Testany", "Testsome"};
    const char *what = names[which];
    int out[N][16], in[N][16];
    MPI_Request rr[N + 2], sr[N];
    int done[N + 2] = {0}, ndone = 0;
    int base = 30 + 20 * which;
    /* rr[0] and rr[N+1] stay MPI_REQUEST_NULL: indices shifted by 1 */
    rr[0] = rr[N + 1] = MPI_REQUEST_NULL;
    for (int k = 0; k < N; k++) {
        memset(in[k], 0, sizeof in[k]);
        MPI_CHECK(MPI_Irecv(in[k], 16, MPI_INT, partner, base + k, MPI_COMM_WORLD, &rr[k + 1]));
    }
    for (int j = 0; j < N; j++) {
        int k = (j * 4 + 3) % N; /* scrambled order (4 and 9 coprime) */
        fill(out[k], 1 + k, rank, base + k);
        MPI_CHECK(MPI_Isend(out[k], 1 + k, MPI_INT, partner, base + k, MPI_COMM_WORLD, &sr[j]));
    }
    while (ndone < N) {
        int idx[N + 2], outcount = 0, index = -1, flag = 0;
        MPI_Status sts[N + 2], st;
        switch (which) {
        case 0:
            MPI_CHECK(MPI_Waitany(N + 2, rr, &index, &st));
            CHECK(index != MPI_UNDEFINED, "Waitany returned MPI_UNDEFINED with active requests");
            outcount = 1;
            idx[0] = index;
            sts[0] = st;
            break;
        case 1:
            MPI_CHECK(MPI_Waitsome(N + 2, rr, &outcount, idx, sts));
            CHECK(outcount >= 1 && outcount != MPI_UNDEFINED, "Waitsome outcount %d", outcount);
            break;
        case 2:
            MPI_CHECK(MPI_Testany(N + 2, rr, &index, &flag, &st));
            if (!flag) {
                CHECK(index == MPI_UNDEFINED, "Testany flag false but index %d", index);
                continue;
            }
            CHECK(index != MPI_UNDEFINED, "Testany flag true, index MPI_UNDEFINED with active requests");
            outcount = 1;
            idx[0] = index;
            sts[0] = st;
            break;
        default:
            MPI_CHECK(MPI_Testsome(N + 2, rr, &outcount, idx, sts));
            CHECK(outcount != MPI_UNDEFINED, "Testsome returned MPI_UNDEFINED with active requests");
            break;
        }
        for (int o = 0; o < outcount; o++) {
            int i = idx[o];
            CHECK(i >= 1 && i <= N, "%s: index %d out of range / a null entry", what, i);
            CHECK(!done[i], "%s: index %d returned twice", what, i);
            CHECK(rr[i] == MPI_REQUEST_NULL, "%s: completed request %d not set to null", what, i);
            done[i] = 1;
            ndone++;
            check_st(&sts[o], partner, base + i - 1, i, what);
            verify(in[i - 1], i, partner, base + i - 1, what);
        }
    }
    MPI_CHECK(MPI_Waitall(N, sr, MPI_STATUSES_IGNORE));

    /* all entries null now */
    {
        int index = 0, flag = 0, outcount = 0, idx[N + 2];
        MPI_Status st, sts[N + 2];
        switch (which) {
        case 0:
            MPI_CHECK(MPI_Waitany(N + 2, rr, &index, &st));
            CHECK(index == MPI_UNDEFINED, "Waitany on all-null: index %d, expected MPI_UNDEFINED", index);
            check_empty_status(&st, "Waitany all-null");
            MPI_CHECK(MPI_Waitany(0, rr, &index, &st));
            CHECK(index == MPI_UNDEFINED, "Waitany(count 0): index %d", index);
            break;
        case 1:
            MPI_CHECK(MPI_Waitsome(N + 2, rr, &outcount, idx, sts));
            CHECK(outcount == MPI_UNDEFINED, "Waitsome on all-null: outcount %d", outcount);
            break;
        case 2:
            MPI_CHECK(MPI_Testany(N + 2, rr, &index, &flag, &st));
            CHECK(flag && index == MPI_UNDEFINED, "Testany all-null: flag %d index %d", flag, index);
            check_empty_status(&st, "Testany all-null");
            break;
        default:
            MPI_CHECK(MPI_Testsome(N + 2, rr, &outcount, idx, sts));
            CHECK(outcount == MPI_UNDEFINED, "Testsome on all-null: outcount %d", outcount);
            break;
        }
    }
}

/* Test / Testall / Testany / Testsome must say "not yet" for a receive whose
 * message the partner only sends after hearing "go" from us, which we send
 * after those checks. Then poll until done. Works with partner == self. */
static void test_not_yet(int round)
{
    int tag_go = 90 + 10 * round, tag_x = tag_go + 1, tag_y = tag_go + 2;
    int go_out = 1, go_in = 0, xs[4], xr[4] = {0}, ys = 5, yr = 0;
    MPI_Request go_rr, go_sr, xrr, xsr = MPI_REQUEST_NULL, yrr, ysr;
    MPI_Status st;
    int flag = 1, index = 7, outcount = 7, idx[4];
    MPI_Status sts[4];

    /* a message that does complete quickly: Y, sent right away */
    MPI_CHECK(MPI_Irecv(&yr, 1, MPI_INT, partner, tag_y, MPI_COMM_WORLD, &yrr));
    MPI_CHECK(MPI_Isend(&ys, 1, MPI_INT, partner, tag_y, MPI_COMM_WORLD, &ysr));
    MPI_CHECK(MPI_Irecv(&go_in, 1, MPI_INT, partner, tag_go, MPI_COMM_WORLD, &go_rr));
    MPI_CHECK(MPI_Irecv(xr, 4, MPI_INT, partner, tag_x, MPI_COMM_WORLD, &xrr));
    MPI_CHECK(MPI_Wait(&yrr, MPI_STATUS_IGNORE)); /* Y done: one finished entry for the arrays */
    CHECK(yr == 5, "Y message %d", yr);
    yrr = MPI_REQUEST_NULL;

    MPI_CHECK(MPI_Test(&xrr, &flag, &st));
    CHECK(!flag, "Test true for a receive whose message was not sent");
    MPI_Request arr[3] = {MPI_REQUEST_NULL, xrr, ysr};
    flag = 1;
    MPI_CHECK(MPI_Testall(3, arr, &flag, MPI_STATUSES_IGNORE));
    CHECK(!flag, "Testall true while one receive cannot have matched");
    /* Testall false must leave every request in place, including completed ones */
    CHECK(arr[1] == xrr && arr[2] == ysr, "Testall (false) changed a request");
    MPI_Request arr2[2] = {MPI_REQUEST_NULL, xrr};
    MPI_CHECK(MPI_Testany(2, arr2, &index, &flag, &st));
    CHECK(!flag && index == MPI_UNDEFINED, "Testany on a pending receive: flag %d index %d", flag, index);
    MPI_CHECK(MPI_Testsome(2, arr2, &outcount, idx, sts));
    CHECK(outcount == 0, "Testsome on a pending receive: outcount %d", outcount);
    int gflag = 1;
    MPI_Status gst;
    MPI_CHECK(MPI_Request_get_status(xrr, &gflag, &gst));
    CHECK(!gflag, "Request_get_status true for a receive whose message was not sent");

    /* tell the partner to send X, serve its go, send it our X */
    MPI_CHECK(MPI_Isend(&go_out, 1, MPI_INT, partner, tag_go, MPI_COMM_WORLD, &go_sr));
    MPI_CHECK(MPI_Wait(&go_rr, MPI_STATUS_IGNORE));
    fill(xs, 4, rank, tag_x);
    MPI_CHECK(MPI_Isend(xs, 4, MPI_INT, partner, tag_x, MPI_COMM_WORLD, &xsr));

    switch (round) {
    case 0: /* Test */
        do
            MPI_CHECK(MPI_Test(&xrr, &flag, &st));
        while (!flag);
        CHECK(xrr == MPI_REQUEST_NULL, "Test (true) left the request active");
        check_st(&st, partner, tag_x, 4, "Test loop");
        break;
    case 1: { /* Request_get_status then Wait: the request survives get_status */
        do
            MPI_CHECK(MPI_Request_get_status(xrr, &gflag, &gst));
        while (!gflag);
        check_st(&gst, partner, tag_x, 4, "Request_get_status");
        CHECK(xrr != MPI_REQUEST_NULL, "Request_get_status freed the request");
        MPI_CHECK(MPI_Wait(&xrr, &st));
        check_st(&st, partner, tag_x, 4, "Wait after Request_get_status");
        break;
    }
    case 2: { /* Testall with statuses */
        MPI_Request a[3] = {xrr, MPI_REQUEST_NULL, ysr};
        MPI_Status s3[3];
        do
            MPI_CHECK(MPI_Testall(3, a, &flag, s3));
        while (!flag);
        CHECK(a[0] == MPI_REQUEST_NULL && a[2] == MPI_REQUEST_NULL, "Testall (true) left requests active");
        check_st(&s3[0], partner, tag_x, 4, "Testall loop");
        check_empty_status(&s3[1], "Testall null entry");
        xrr = ysr = MPI_REQUEST_NULL;
        break;
    }
    default: { /* Testany */
        MPI_Request a[2] = {MPI_REQUEST_NULL, xrr};
        do
            MPI_CHECK(MPI_Testany(2, a, &index, &flag, &st));
        while (!flag);
        CHECK(index == 1, "Testany index %d, expected 1", index);
        check_st(&st, partner, tag_x, 4, "Testany loop");
        xrr = MPI_REQUEST_NULL;
        break;
    }
    }
    verify(xr, 4, partner, tag_x, "Test-family receive");
    MPI_CHECK(MPI_Wait(&xrr, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&ysr, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&go_sr, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&xsr, MPI_STATUS_IGNORE));
}

/* Request_free on an active send: the message must still be delivered. The
 * sender learns it was received from the partner's reply, and only then
 * touches the buffer again. */
static void request_free_send(void)
{
    enum { N = 50000 };
    static int out[2][N], in[2][N];
    int ack_out = 1, ack_in = 0;
    MPI_Request rq, rr[2], ar;
    for (int k = 0; k < 2; k++) {
        fill(out[k], k ? N : 3, rank, 150 + k);
        MPI_CHECK(MPI_Irecv(in[k], N, MPI_INT, partner, 150 + k, MPI_COMM_WORLD, &rr[k]));
    }
    MPI_CHECK(MPI_Irecv(&ack_in, 1, MPI_INT, partner, 160, MPI_COMM_WORLD, &ar));
    for (int k = 0; k < 2; k++) {
        MPI_CHECK(MPI_Isend(out[k], k ? N : 3, MPI_INT, partner, 150 + k, MPI_COMM_WORLD, &rq));
        MPI_CHECK(MPI_Request_free(&rq));
        CHECK(rq == MPI_REQUEST_NULL, "Request_free did not set the handle to MPI_REQUEST_NULL");
    }
    MPI_Status st[2];
    MPI_CHECK(MPI_Waitall(2, rr, st));
    for (int k = 0; k < 2; k++) {
        check_st(&st[k], partner, 150 + k, k ? N : 3, "freed send");
        verify(in[k], k ? N : 3, partner, 150 + k, "freed send");
    }
    /* blocking even to self: the matching receive (ar) is already posted */
    MPI_CHECK(MPI_Send(&ack_out, 1, MPI_INT, partner, 160, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
    CHECK(ack_in == 1, "ack %d", ack_in);
}

/* 1000 receives and 1000 sends outstanding at once, distinct tags, the
 * receives posted in reverse tag order, completed by one Waitall. */
static void many_outstanding(void)
{
    enum { N = 1000 };
    static int out[N][2], in[N][2];
    static MPI_Request rq[2 * N];
    static MPI_Status st[2 * N];
    for (int k = 0; k < N; k++) {
        out[k][0] = val(rank, k, 0);
        out[k][1] = val(rank, k, 1);
        in[k][0] = in[k][1] = -1;
    }
    for (int k = 0; k < N; k++) {
        int t = N - 1 - k;
        MPI_CHECK(MPI_Irecv(in[t], 2, MPI_INT, partner, 1000 + t, MPI_COMM_WORLD, &rq[k]));
    }
    for (int k = 0; k < N; k++)
        MPI_CHECK(MPI_Isend(out[k], 2, MPI_INT, partner, 1000 + k, MPI_COMM_WORLD, &rq[N + k]));
    MPI_CHECK(MPI_Waitall(2 * N, rq, st));
    for (int k = 0; k < N; k++) {
        int t = N - 1 - k;
        check_st(&st[k], partner, 1000 + t, 2, "1000 outstanding");
        CHECK(in[t][0] == val(partner, t, 0) && in[t][1] == val(partner, t, 1),
              "1000 outstanding: message with tag %d wrong", 1000 + t);
    }
    /* the same with one tag: order decides */
    for (int k = 0; k < N; k++)
        MPI_CHECK(MPI_Irecv(in[k], 2, MPI_INT, partner, 5, MPI_COMM_WORLD, &rq[k]));
    for (int k = 0; k < N; k++)
        MPI_CHECK(MPI_Isend(out[k], 2, MPI_INT, partner, 5, MPI_COMM_WORLD, &rq[N + k]));
    MPI_CHECK(MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < N; k++)
        CHECK(in[k][0] == val(partner, k, 0) && in[k][1] == val(partner, k, 1),
              "1000 outstanding, one tag: receive %d got message %d", k,
              (in[k][0] - partner * 1000003) / 1009);
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    partner = (rank ^ 1) < size ? (rank ^ 1) : rank;

    basic_wait();
    waitall_nulls();
    for (int w = 0; w < 4; w++)
        any_some(w);
    for (int r = 0; r < 4; r++)
        test_not_yet(r);
    request_free_send();
    many_outstanding();

    MPI_CHECK(MPI_Finalize());
    return 0;
}
