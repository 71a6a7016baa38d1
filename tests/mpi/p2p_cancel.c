/*
 * p2p_cancel: cancelling receives. A receive that nothing can match must be
 * cancelled (MPI_Wait returns, MPI_Test_cancelled says true, the buffer is
 * untouched). A receive from a named source that was posted for a while
 * (time for a runtime to tell the sender about it) and then cancelled must
 * not swallow the message the sender sends afterwards: a later receive gets
 * it intact. Cancelling a receive that already completed does nothing.
 * Pairs (2k, 2k+1); the last rank of an odd job is its own partner.
 * Messages that could match a cancelled receive are only sent after a
 * handshake that follows the cancellation, so nothing depends on timing.
 */
#define TEST_NAME "p2p_cancel"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size, partner;

static unsigned char val(int src, int tag, int i)
{
    return (unsigned char)(src * 29 + tag * 5 + i * 11 + (i >> 10));
}

static void fill(unsigned char *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, tag, i);
}

static void verify(const unsigned char *b, int n, int src, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, tag, i))
            FAIL("%s: byte %d of %d wrong", what, i, n);
}

static void check_untouched(const unsigned char *b, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != 0x3C)
            FAIL("%s: cancelled receive wrote byte %d of its buffer", what, i);
}

static void handshake(int tag)
{
    int out = tag, in = -1;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, partner, tag, &in, 1, MPI_INT, partner, tag, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(in == tag, "handshake %d got %d", tag, in);
}

static void cancel_and_check(MPI_Request *rq, int use_test, const char *what)
{
    MPI_Status st;
    int flag = 0;
    MPI_CHECK(MPI_Cancel(rq));
    CHECK(*rq != MPI_REQUEST_NULL, "%s: MPI_Cancel freed the request", what);
    if (use_test) {
        do
            MPI_CHECK(MPI_Test(rq, &flag, &st));
        while (!flag);
    } else {
        MPI_CHECK(MPI_Wait(rq, &st));
    }
    CHECK(*rq == MPI_REQUEST_NULL, "%s: completion of a cancelled request did not free it", what);
    flag = 0;
    MPI_CHECK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "%s: Test_cancelled false for a receive nothing could match", what);
}

/* 1: nothing will ever match */
static void cancel_unmatched(unsigned char *buf)
{
    MPI_Request rq;
    MPI_Comm dup;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    memset(buf, 0x3C, 64);
    MPI_CHECK(MPI_Irecv(buf, 64, MPI_BYTE, partner, 999, MPI_COMM_WORLD, &rq));
    cancel_and_check(&rq, 0, "Irecv(partner, unused tag) + Wait");
    MPI_CHECK(MPI_Irecv(buf, 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &rq));
    cancel_and_check(&rq, 1, "Irecv(ANY_SOURCE, ANY_TAG) on an idle communicator + Test loop");
    check_untouched(buf, 64, "unmatched");
    /* cancelled plus ordinary requests in one Waitall */
    {
        MPI_Request r[3];
        MPI_Status st[3];
        int a = 5, b = -1, flag = 0;
        MPI_CHECK(MPI_Irecv(buf, 64, MPI_BYTE, partner, 998, MPI_COMM_WORLD, &r[0]));
        MPI_CHECK(MPI_Irecv(&b, 1, MPI_INT, partner, 997, MPI_COMM_WORLD, &r[1]));
        MPI_CHECK(MPI_Isend(&a, 1, MPI_INT, partner, 997, MPI_COMM_WORLD, &r[2]));
        MPI_CHECK(MPI_Cancel(&r[0]));
        MPI_CHECK(MPI_Waitall(3, r, st));
        MPI_CHECK(MPI_Test_cancelled(&st[0], &flag));
        CHECK(flag, "Waitall: cancelled receive not reported cancelled");
        MPI_CHECK(MPI_Test_cancelled(&st[1], &flag));
        CHECK(!flag && b == 5, "Waitall: ordinary receive reported cancelled or wrong (%d)", b);
        check_untouched(buf, 64, "cancel in Waitall");
    }
    MPI_CHECK(MPI_Comm_free(&dup));
}

/* 2: named-source receive posted for a while, cancelled, then the sender
 * sends: a later receive must get the message intact. */
static void cancel_then_send(unsigned char *cbuf, unsigned char *rbuf, unsigned char *sbuf, int n, int tag)
{
    MPI_Request rq, sr;
    MPI_Status st;
    int cnt = -1;
    memset(cbuf, 0x3C, n);
    MPI_CHECK(MPI_Irecv(cbuf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
    /* let it sit: traffic with the partner and a barrier */
    handshake(tag + 1);
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    handshake(tag + 2);
    cancel_and_check(&rq, 0, n > 1000 ? "posted large receive" : "posted small receive");
    handshake(tag + 3); /* both sides' cancels are done */
    fill(sbuf, n, rank, tag);
    memset(rbuf, 0, n);
    MPI_CHECK(MPI_Isend(sbuf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &sr));
    MPI_CHECK(MPI_Recv(rbuf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
    MPI_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == n && st.MPI_SOURCE == partner && st.MPI_TAG == tag,
          "message after a cancelled receive: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
    verify(rbuf, n, partner, tag, "message after a cancelled receive");
    check_untouched(cbuf, n, "cancelled named-source receive");
}

/* 3: cancel of a receive that has already completed fails quietly */
static void cancel_completed(void)
{
    int out[4] = {1, 2, 3, 4}, in[4] = {0}, flag = 0;
    MPI_Request rq, sr;
    MPI_Status st;
    MPI_CHECK(MPI_Irecv(in, 4, MPI_INT, partner, 800, MPI_COMM_WORLD, &rq));
    MPI_CHECK(MPI_Isend(out, 4, MPI_INT, partner, 800, MPI_COMM_WORLD, &sr));
    do
        MPI_CHECK(MPI_Request_get_status(rq, &flag, &st));
    while (!flag);
    MPI_CHECK(MPI_Cancel(&rq));
    MPI_CHECK(MPI_Wait(&rq, &st));
    flag = 1;
    MPI_CHECK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "Test_cancelled true for a receive that had completed");
    CHECK(in[0] == 1 && in[3] == 4, "completed-then-cancelled receive lost its data");
    CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == 800, "completed-then-cancelled status");
    MPI_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
}

/* 4: three receives on one (source, tag); the middle one is cancelled;
 * the two messages sent afterwards go to the first and the third. */
static void cancel_middle(void)
{
    int a = -1, b = -1, c = -1, m[2] = {111, 222}, flag = 0;
    MPI_Request r[3], s[2];
    MPI_Status st;
    MPI_CHECK(MPI_Irecv(&a, 1, MPI_INT, partner, 700, MPI_COMM_WORLD, &r[0]));
    MPI_CHECK(MPI_Irecv(&b, 1, MPI_INT, partner, 700, MPI_COMM_WORLD, &r[1]));
    MPI_CHECK(MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 700, MPI_COMM_WORLD, &r[2]));
    handshake(701);
    MPI_CHECK(MPI_Cancel(&r[1]));
    MPI_CHECK(MPI_Wait(&r[1], &st));
    MPI_CHECK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "middle receive not cancelled");
    handshake(702);
    MPI_CHECK(MPI_Isend(&m[0], 1, MPI_INT, partner, 700, MPI_COMM_WORLD, &s[0]));
    MPI_CHECK(MPI_Isend(&m[1], 1, MPI_INT, partner, 700, MPI_COMM_WORLD, &s[1]));
    MPI_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
    CHECK(a == 111 && c == 222 && b == -1, "after cancelling the middle receive: a=%d b=%d c=%d", a, b, c);
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    partner = (rank ^ 1) < size ? (rank ^ 1) : rank;
    const int big = 1 << 20;
    unsigned char *cbuf = malloc(big), *rbuf = malloc(big), *sbuf = malloc(big);
    CHECK(cbuf && rbuf && sbuf, "out of memory");

    cancel_unmatched(cbuf);
    cancel_then_send(cbuf, rbuf, sbuf, 16, 100);
    cancel_then_send(cbuf, rbuf, sbuf, big, 200);
    cancel_completed();
    cancel_middle();

    free(cbuf);
    free(rbuf);
    free(sbuf);
    MPI_CHECK(MPI_Finalize());
    return 0;
}
