/*
 * p2p_cancel_send: cancelling sends (MPI 3.1 3.8.4: either the cancel
 * succeeds or the communication does, never both; MPI_Wait of a send marked
 * for cancellation returns whatever the receiver does).
 *   - a rendezvous send (too big to be eager), a synchronous send and an
 *     eager one (complete at the sender already) that no receive matches:
 *     MPI_Wait returns, the status says cancelled, the receiver never sees
 *     them (a later message with the same envelope is the one it gets);
 *   - a small standard send: cancelled or not, and the receiver gets it
 *     exactly when it was not;
 *   - a send whose receive has completed: not cancelled;
 *   - a persistent send: cancelled, then started again and received;
 *   - buffered sends (MPI_Ibsend, small and big, and a started
 *     MPI_Bsend_init), whose requests are complete at once: the send from
 *     the attached buffer is cancelled, and the buffer detaches at once.
 * Pairs (2k sends, 2k+1 receives); the last rank of an odd job sends to
 * itself. Nothing depends on timing: every check follows a handshake.
 */
#define TEST_NAME "p2p_cancel_send"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#define BIG 300000 /* above every eager limit */
#define TAG_SYNC 99

static int rank, size, sender, receiver, self;
static unsigned char *sbuf, *rbuf;

static void fill(unsigned char *b, int n, int salt)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + salt);
}

static void verify(const unsigned char *b, int n, int salt, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + salt))
            FAIL("%s: byte %d is %d, expected %d", what, i, b[i], (unsigned char)(i * 7 + salt));
}

/* sender and receiver meet (a no-op when they are one rank) */
static void handshake(void)
{
    if (self)
        return;
    int other = rank == sender ? receiver : sender;
    MPI_CHECK(MPI_Sendrecv(NULL, 0, MPI_BYTE, other, TAG_SYNC, NULL, 0, MPI_BYTE, other, TAG_SYNC,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static int cancelled(const MPI_Status *st)
{
    int f = -1;
    MPI_CHECK(MPI_Test_cancelled(st, &f));
    return f;
}

enum { STANDARD, SYNC, BUFFERED, BUFFERED_PERSISTENT };

/* A send nothing matches, cancelled: it must be gone (a buffered one from
 * the attached buffer too, though its request was complete at once). */
static void unmatched(int n, int mode, int tag, const char *what)
{
    MPI_Request rq;
    MPI_Status st;
    int flag = 1, bsize = n + MPI_BSEND_OVERHEAD;
    void *battach = NULL, *bdetach;

    if (rank == sender) {
        fill(sbuf, n, tag);
        if (mode == BUFFERED || mode == BUFFERED_PERSISTENT) {
            battach = malloc((size_t)bsize);
            MPI_CHECK(MPI_Buffer_attach(battach, bsize));
        }
        if (mode == SYNC)
            MPI_CHECK(MPI_Issend(sbuf, n, MPI_BYTE, receiver, tag, MPI_COMM_WORLD, &rq));
        else if (mode == BUFFERED)
            MPI_CHECK(MPI_Ibsend(sbuf, n, MPI_BYTE, receiver, tag, MPI_COMM_WORLD, &rq));
        else if (mode == BUFFERED_PERSISTENT)
            MPI_CHECK(MPI_Bsend_init(sbuf, n, MPI_BYTE, receiver, tag, MPI_COMM_WORLD, &rq));
        else
            MPI_CHECK(MPI_Isend(sbuf, n, MPI_BYTE, receiver, tag, MPI_COMM_WORLD, &rq));
        if (mode == BUFFERED_PERSISTENT)
            MPI_CHECK(MPI_Start(&rq));
        MPI_CHECK(MPI_Cancel(&rq));
        MPI_CHECK(MPI_Wait(&rq, &st));
        CHECK((rq == MPI_REQUEST_NULL) == (mode != BUFFERED_PERSISTENT), "%s: Wait left the request %s", what,
              rq == MPI_REQUEST_NULL ? "freed" : "active");
        CHECK(cancelled(&st), "%s: an unmatched send was not cancelled", what);
        if (mode == BUFFERED_PERSISTENT)
            MPI_CHECK(MPI_Request_free(&rq));
        if (battach) { /* (returns at once: nothing is left to deliver) */
            MPI_CHECK(MPI_Buffer_detach(&bdetach, &bsize));
            free(battach);
        }
    }
    handshake();
    if (rank == receiver) {
        MPI_CHECK(MPI_Iprobe(sender, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%s: the cancelled send can still be probed", what);
        /* the next message with this envelope is the one received */
        MPI_CHECK(MPI_Irecv(rbuf, BIG, MPI_BYTE, sender, tag, MPI_COMM_WORLD, &rq));
    }
    handshake();
    if (rank == sender) {
        fill(sbuf, 100, tag + 1);
        MPI_CHECK(MPI_Send(sbuf, 100, MPI_BYTE, receiver, tag, MPI_COMM_WORLD));
    }
    if (rank == receiver) {
        int count = -1;
        MPI_CHECK(MPI_Wait(&rq, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 100, "%s: received %d bytes after the cancel, expected the later 100", what, count);
        verify(rbuf, 100, tag + 1, what);
    }
}

/* A small standard send, cancelled at once: cancelled, or received. */
static void either(void)
{
    MPI_Request rq;
    MPI_Status st;
    int was = -1, flag = 1;

    if (rank == sender) {
        fill(sbuf, 8, 5);
        MPI_CHECK(MPI_Isend(sbuf, 8, MPI_BYTE, receiver, 12, MPI_COMM_WORLD, &rq));
        MPI_CHECK(MPI_Cancel(&rq));
        MPI_CHECK(MPI_Wait(&rq, &st));
        was = cancelled(&st);
        MPI_CHECK(MPI_Send(&was, 1, MPI_INT, receiver, TAG_SYNC + 1, MPI_COMM_WORLD));
    }
    if (rank == receiver) {
        MPI_CHECK(MPI_Recv(&was, 1, MPI_INT, sender, TAG_SYNC + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (was) {
            MPI_CHECK(MPI_Iprobe(sender, 12, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "small send: cancelled, yet it can be probed");
        } else {
            memset(rbuf, 0, 8);
            MPI_CHECK(MPI_Recv(rbuf, 8, MPI_BYTE, sender, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            verify(rbuf, 8, 5, "small send, not cancelled");
        }
    }
}

/* Cancel after the receive completed: the send is not cancelled. */
static void matched(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;

    if (rank == sender) {
        fill(sbuf, BIG, 13);
        MPI_CHECK(MPI_Isend(sbuf, BIG, MPI_BYTE, receiver, 13, MPI_COMM_WORLD, &rq));
    }
    if (rank == receiver) {
        memset(rbuf, 0, BIG);
        MPI_CHECK(MPI_Recv(rbuf, BIG, MPI_BYTE, sender, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        verify(rbuf, BIG, 13, "matched send");
    }
    handshake();
    if (rank == sender) {
        MPI_CHECK(MPI_Cancel(&rq));
        MPI_CHECK(MPI_Wait(&rq, &st));
        CHECK(!cancelled(&st), "a send whose receive completed was cancelled");
    }
}

/* A persistent send: cancelled, then started again and received. */
static void persistent(void)
{
    MPI_Request rq;
    MPI_Status st;

    if (rank == sender) {
        fill(sbuf, BIG, 14);
        MPI_CHECK(MPI_Send_init(sbuf, BIG, MPI_BYTE, receiver, 14, MPI_COMM_WORLD, &rq));
        MPI_CHECK(MPI_Start(&rq));
        MPI_CHECK(MPI_Cancel(&rq));
        MPI_CHECK(MPI_Wait(&rq, &st));
        CHECK(rq != MPI_REQUEST_NULL, "Wait freed a persistent request");
        CHECK(cancelled(&st), "persistent send: not cancelled");
    }
    handshake(); /* the receive is posted only now: nothing could match before */
    if (rank == sender)
        MPI_CHECK(MPI_Start(&rq));
    if (rank == receiver) {
        memset(rbuf, 0, BIG);
        MPI_CHECK(MPI_Recv(rbuf, BIG, MPI_BYTE, sender, 14, MPI_COMM_WORLD, &st));
        verify(rbuf, BIG, 14, "persistent send, started again");
    }
    if (rank == sender) {
        MPI_CHECK(MPI_Wait(&rq, &st));
        CHECK(!cancelled(&st), "persistent send, started again: cancelled");
        MPI_CHECK(MPI_Request_free(&rq));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    sender = rank & ~1;
    receiver = sender + 1 < size ? sender + 1 : sender;
    self = sender == receiver;
    sbuf = malloc(BIG);
    rbuf = malloc(BIG);
    CHECK(sbuf && rbuf, "out of memory");

    unmatched(BIG, STANDARD, 10, "rendezvous send");
    unmatched(8, SYNC, 11, "synchronous send");
    unmatched(BIG, SYNC, 15, "big synchronous send");
    unmatched(8, STANDARD, 16, "eager send"); /* complete here already: the receiver drops it */
    unmatched(8, BUFFERED, 17, "buffered send");
    unmatched(BIG, BUFFERED, 18, "big buffered send");
    unmatched(8, BUFFERED_PERSISTENT, 19, "persistent buffered send");
    either();
    matched();
    persistent();
    /* the job is still sound: a collective over everyone */
    int one = 1, sum = 0;
    MPI_CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size, "Allreduce after the cancels gave %d", sum);
    free(sbuf);
    free(rbuf);
    MPI_CHECK(MPI_Finalize());
    if (rank == 0)
        printf("%s: ok\n", TEST_NAME);
    return 0;
}
