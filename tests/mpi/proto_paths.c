/*
 * proto_paths: force each protocol path between ranks 0 and 1 and recognise
 * it by mbmpi's counters (MPIX_Stat_get), checking payload bytes and order:
 *   1. receive first          -> write protocol (REQ used)
 *   2. send first, small      -> eager, unexpected at the receiver
 *   3. send first, large      -> RTS, then CTS + write
 *   4. REQ for a message that went through the FIFO (conflict): the sender
 *      drops the REQ, the receiver kills it, every byte lands once, in order
 *   5. ANY_SOURCE receive     -> no REQ
 *   6. cancel with a REQ out  -> cancelled, the message later lands intact
 *   7. simultaneous exchanges (both sides post and send at once), many times
 * With MBMPI_PROTOCOL=eager no REQ is ever sent and nothing is written.
 * A receive smaller than MBMPI_REQ_MIN (mbmpi's "req_min", auto: 8 KiB on
 * mbshm, the largest ring record over tcp;ofi_rxm's rings, 0 on the other
 * libfabric providers) sends no REQ: its message goes eager. Paths 4-6
 * use messages of at least req_min bytes, so they take the REQ path at any
 * setting.
 * Other MPIs run the same exchanges without the counter checks.
 * Ordering between ranks uses messages only (no sleeps).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "proto_paths"
#define CHECK_RANK rank
#define CHECK_LINE
#include "check.h"

static int rank, size, eager_mode;
static size_t req_min; /* receives smaller than this send no REQ */

static unsigned long long stat(const char *name)
{
    unsigned long long v = 0;
#ifdef MBMPI_VERSION_STRING
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPIX_Stat_get(name, &v) == MPI_SUCCESS, "counter %s", name);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#else
    (void)name;
#endif
    return v;
}

#ifdef MBMPI_VERSION_STRING
#define EXPECT(cond, ...) CHECK(cond, __VA_ARGS__)
#else
#define EXPECT(cond, ...) ((void)0)
#endif

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

static void verify(const unsigned char *b, size_t n, int seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(seed * 31 + i * 7 + (i >> 8)), "%s: byte %zu of %zu wrong", what, i, n);
}

static void status_is(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count, "%s: status src %d tag %d count %d",
          what, st->MPI_SOURCE, st->MPI_TAG, n);
}

/* 1. receive first: the write protocol. */
static void receive_first(size_t n)
{
    unsigned char *buf = malloc(n);
    int go = 1;
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        unsigned long long w0 = stat("write_msgs"), r0 = stat("req_sent");
        MPI_Request rq;
        memset(buf, 0, n);
        MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq);
        /* The REQ went into rank 0's FIFO before this message. */
        MPI_Send(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Wait(&rq, &st);
        status_is(&st, 0, 1, (int)n, "receive-first");
        verify(buf, n, 1, "receive-first");
        if (eager_mode || n < req_min) {
            EXPECT(stat("req_sent") == r0 && stat("write_msgs") == w0, "%s wrote %zu bytes",
                   eager_mode ? "eager mode" : "a receive below req_min", n);
        } else {
            EXPECT(stat("req_sent") > r0, "no REQ was sent for a receive posted first");
            EXPECT(stat("write_msgs") == w0 + 1, "receive-first message did not use the write protocol");
        }
    } else if (rank == 0) {
        unsigned long long u0 = stat("req_dropped");
        fill(buf, n, 1);
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        if (!eager_mode && n >= req_min)
            EXPECT(stat("req_dropped") == u0, "the sender dropped the REQ of a receive posted first");
    }
    free(buf);
}

/* 2./3. send first: eager (small) or RTS (large). */
static void send_first(size_t n, const char *counter)
{
    unsigned char *buf = malloc(n ? n : 1);
    int go = 1;
    MPI_Status st;
    unsigned long long c0, u0 = stat("unexpected_msgs");

    MPI_Barrier(MPI_COMM_WORLD);
    c0 = stat(counter);
    if (rank == 0) {
        MPI_Request rq;
        fill(buf, n, 3);
        MPI_Isend(buf, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &rq);
        MPI_Send(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* the "go" message is eager too */
        EXPECT(stat(counter) == c0 + (strcmp(counter, "eager_msgs") ? 1 : 2),
               "send-first of %zu bytes did not count as %s", n, counter);
    } else if (rank == 1) {
        /* ANY_SOURCE: no REQ; the first message is then unexpected here. */
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st);
        {
            /* FIFO order: the earlier message (or its RTS) is already queued as unexpected. */
            int there = 0;
            MPI_Iprobe(0, 3, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
            EXPECT(there && stat("unexpected_msgs") >= u0 + 1, "the early message was not unexpected");
        }
        memset(buf, 0, n ? n : 1);
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
        status_is(&st, 0, 3, (int)n, "send-first");
        verify(buf, n, 3, "send-first");
    }
    free(buf);
}

/* 4. a REQ whose message goes through the FIFO: tag mismatch. */
static void conflict(size_t n)
{
    unsigned char *a = malloc(n), *b = malloc(n);
    int go = 1;
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        unsigned long long k0 = stat("req_killed");
        MPI_Request ra, rb;
        memset(a, 0, n);
        memset(b, 0, n);
        MPI_Irecv(a, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &ra); /* REQ goes out for tag 5 */
        MPI_Send(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Irecv(b, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &rb);
        MPI_Wait(&rb, &st);
        status_is(&st, 0, 6, (int)n, "conflict (tag 6)");
        verify(b, n, 6, "conflict (tag 6)");
        MPI_Wait(&ra, &st);
        status_is(&st, 0, 5, (int)n, "conflict (tag 5)");
        verify(a, n, 5, "conflict (tag 5)");
        if (!eager_mode)
            EXPECT(stat("req_killed") > k0, "the receiver did not kill the REQ that lost");
    } else if (rank == 0) {
        unsigned long long d0 = stat("req_dropped");
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        /* The armed REQ names tag 5, this message is tag 6: FIFO, drop. */
        fill(b, n, 6);
        MPI_Send(b, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
        fill(a, n, 5);
        MPI_Send(a, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
        if (!eager_mode)
            EXPECT(stat("req_dropped") > d0, "the sender did not drop the mismatched REQ");
    }
    free(a);
    free(b);
}

/* 5. ANY_SOURCE receives never send a REQ. */
static void any_source(void)
{
    unsigned char buf[64];
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        unsigned long long r0 = stat("req_sent");
        MPI_Request rq, rq2;
        MPI_Irecv(buf, 64, MPI_BYTE, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &rq);
        /* Named, but behind a pending wildcard in this communicator: no REQ either. */
        unsigned char b2[64];
        MPI_Irecv(b2, 64, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &rq2);
        EXPECT(stat("req_sent") == r0, "a REQ was sent for ANY_SOURCE or behind it");
        MPI_Send(buf, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
        MPI_Wait(&rq, &st);
        status_is(&st, 0, 8, 64, "any-source first");
        verify(buf, 64, 8, "any-source first");
        MPI_Wait(&rq2, &st);
        verify(b2, 64, 9, "any-source second");
    } else if (rank == 0) {
        MPI_Recv(buf, 0, MPI_BYTE, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
        fill(buf, 64, 8);
        MPI_Send(buf, 64, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
        fill(buf, 64, 9);
        MPI_Send(buf, 64, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
    }
}

/* 6. cancel a receive whose REQ the sender has armed. */
static void cancel_with_req(size_t n)
{
    unsigned char *buf = malloc(n), *late = malloc(n);
    int go = 1, flag;
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Request rq;
        memset(buf, 0xee, n);
        MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &rq);
        MPI_Send(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);                    /* behind the REQ */
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st); /* rank 0 has seen the REQ */
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag, "the receive was not cancelled although nothing was sent yet");
        for (size_t i = 0; i < n; i++)
            CHECK(buf[i] == 0xee, "a cancelled receive buffer was written at byte %zu", i);
        MPI_Send(&go, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
        MPI_Recv(late, (int)n, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &st);
        status_is(&st, 0, 10, (int)n, "after cancel");
        verify(late, n, 10, "after cancel");
    } else if (rank == 0) {
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        MPI_Send(&go, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &st);
        fill(buf, n, 10);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 10, MPI_COMM_WORLD);
    }
    free(buf);
    free(late);
}

/* 7. both sides post and send at once, sizes across the eager limit. */
static void simultaneous(void)
{
    static const size_t sizes[] = {0, 1, 100, 4096, 16384, 16385, 100000, 1 << 20};
    size_t nmax = 1 << 20;
    unsigned char *s = malloc(nmax), *r = malloc(nmax);
    int peer = rank ^ 1;

    MPI_Barrier(MPI_COMM_WORLD);
    if (peer >= size) {
        free(s);
        free(r);
        return;
    }
    for (int it = 0; it < 200; it++) {
        size_t n = sizes[it % 8];
        MPI_Request rq[2];
        MPI_Status st[2];
        fill(s, n, it + rank);
        memset(r, 0, n);
        MPI_Irecv(r, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(s, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
        status_is(&st[0], peer, it, (int)n, "simultaneous");
        verify(r, n, it + peer, "simultaneous");
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    const char *mode = getenv("MBMPI_PROTOCOL");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eager_mode = mode && !strcmp(mode, "eager");
    if (size < 2) {
        MPI_Finalize();
        return 0;
    }
    req_min = (size_t)stat("req_min");
    receive_first(8);
    receive_first(64 * 1024);
    receive_first(3 << 20);
    send_first(0, "eager_msgs");
    send_first(1000, "eager_msgs");
    send_first(1 << 20, "rts_msgs");
    conflict(req_min > 100 ? req_min : 100);
    any_source();
    cancel_with_req(req_min > 256 ? req_min : 256);
    simultaneous();
    MPI_Finalize();
    return 0;
}
