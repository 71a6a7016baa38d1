/*
 * p2p_ssend: synchronous mode. An Issend may not complete before the
 * matching receive has been posted. The receiver first Probes the message
 * (a probe is not a receive) and reports that; the sender keeps testing its
 * Issend, which must stay incomplete, until it has seen that report, then
 * releases the receiver, which only then posts the receive. None of this
 * depends on timing: the receive is posted strictly after every Test that
 * must return false. Blocking Ssend is checked for delivery (with the
 * receive posted before and after), also with a wildcard receive.
 * Pairs (2k, 2k+1): even sends, odd receives; a rank without a partner
 * does the self-send variant.
 */
#define TEST_NAME "p2p_ssend"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;
static const int sizes[] = {0, 8, 65536, 1 << 20};
#define NSIZES 4
enum { TAG_DATA = 10, TAG_PROBED = 11, TAG_GO = 12, TAG_READY = 13 };

static unsigned char val(int src, int n, int i)
{
    return (unsigned char)(src * 31 + n * 7 + i * 13 + (i >> 9));
}

static void fill(unsigned char *b, int n, int src)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, n, i);
}

static void verify(const unsigned char *b, int n, int src, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, n, i))
            FAIL("%s: %d-byte message, byte %d wrong", what, n, i);
}

static void issend_sender(int peer, unsigned char *buf)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], flag = 0, probed = 0, go = 1, tests = 0;
        MPI_Request sr, pr;
        MPI_Status st;
        fill(buf, n, rank);
        MPI_CHECK(MPI_Irecv(&probed, 1, MPI_INT, peer, TAG_PROBED, MPI_COMM_WORLD, &pr));
        MPI_CHECK(MPI_Issend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &sr));
        int pflag = 0;
        while (!pflag) {
            MPI_CHECK(MPI_Test(&sr, &flag, &st));
            CHECK(!flag, "Issend of %d bytes completed before the receiver posted its receive", n);
            tests++;
            MPI_CHECK(MPI_Test(&pr, &pflag, MPI_STATUS_IGNORE));
        }
        CHECK(probed == n, "receiver probed %d bytes, expected %d", probed, n);
        /* the receiver has seen the message but still has not received it */
        for (int k = 0; k < 20; k++) {
            MPI_CHECK(MPI_Test(&sr, &flag, &st));
            CHECK(!flag, "Issend of %d bytes completed after a Probe, before the receive was posted", n);
        }
        int gflag = 1;
        MPI_CHECK(MPI_Request_get_status(sr, &gflag, &st));
        CHECK(!gflag, "Request_get_status: Issend of %d bytes complete before the receive was posted", n);
        MPI_CHECK(MPI_Send(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Wait(&sr, &st));
        (void)tests;
    }
}

static void issend_receiver(int peer, unsigned char *buf)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], cnt = -1, go = 0;
        MPI_Status st;
        MPI_CHECK(MPI_Probe(peer, TAG_DATA, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n, "Probe of the Issend: count %d, expected %d", cnt, n);
        MPI_CHECK(MPI_Send(&cnt, 1, MPI_INT, peer, TAG_PROBED, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Recv(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        memset(buf, 0, n);
        MPI_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n && st.MPI_SOURCE == peer && st.MPI_TAG == TAG_DATA, "Issend receive status");
        verify(buf, n, peer, "Issend");
    }
}

/* Blocking Ssend: receive posted late (blocking Recv, wildcard for odd
 * sizes), then receive posted first (Irecv, then a "ready" message). */
static void ssend_sender(int peer, unsigned char *buf)
{
    for (int s = 0; s < NSIZES; s++) {
        fill(buf, sizes[s], rank);
        MPI_CHECK(MPI_Ssend(buf, sizes[s], MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD));
    }
    for (int s = 0; s < NSIZES; s++) {
        int ready = 0;
        fill(buf, sizes[s], rank);
        MPI_CHECK(MPI_Recv(&ready, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_CHECK(MPI_Ssend(buf, sizes[s], MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD));
    }
}

static void ssend_receiver(int peer, unsigned char *buf)
{
    MPI_Status st;
    int cnt;
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], wild = s % 2;
        memset(buf, 0, n);
        MPI_CHECK(MPI_Recv(buf, n, MPI_BYTE, wild ? MPI_ANY_SOURCE : peer, wild ? MPI_ANY_TAG : TAG_DATA,
                           MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n && st.MPI_SOURCE == peer && st.MPI_TAG == TAG_DATA, "Ssend receive status");
        verify(buf, n, peer, "Ssend, receive posted late");
    }
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], ready = 1;
        MPI_Request rq;
        memset(buf, 0, n);
        MPI_CHECK(MPI_Irecv(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &rq));
        MPI_CHECK(MPI_Send(&ready, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Wait(&rq, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n, "Ssend (receive posted first) count %d", cnt);
        verify(buf, n, peer, "Ssend, receive posted first");
    }
}

/* Alone: Issend to self stays incomplete until we post the receive. */
static void self_variant(unsigned char *sbuf, unsigned char *rbuf)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], flag = 0, cnt = -1;
        MPI_Request sr, rr;
        MPI_Status st;
        fill(sbuf, n, rank);
        MPI_CHECK(MPI_Issend(sbuf, n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD, &sr));
        for (int k = 0; k < 20; k++) {
            MPI_CHECK(MPI_Test(&sr, &flag, &st));
            CHECK(!flag, "self Issend of %d bytes completed with no receive posted", n);
        }
        MPI_CHECK(MPI_Probe(rank, TAG_DATA, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK(cnt == n, "self Probe count %d, expected %d", cnt, n);
        for (int k = 0; k < 20; k++) {
            MPI_CHECK(MPI_Test(&sr, &flag, &st));
            CHECK(!flag, "self Issend of %d bytes completed after a Probe, with no receive posted", n);
        }
        memset(rbuf, 0, n);
        MPI_CHECK(MPI_Irecv(rbuf, n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD, &rr));
        MPI_Request both[2] = {sr, rr};
        MPI_CHECK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        verify(rbuf, n, rank, "self Issend");
    }
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    unsigned char *buf = malloc(1 << 20), *buf2 = malloc(1 << 20);
    CHECK(buf && buf2, "out of memory");
    int peer = rank ^ 1;
    if (peer >= size) {
        self_variant(buf, buf2);
    } else if (rank % 2 == 0) {
        issend_sender(peer, buf);
        ssend_sender(peer, buf);
    } else {
        issend_receiver(peer, buf);
        ssend_receiver(peer, buf);
    }
    /* a pair job also runs the self variant */
    if (size == 2)
        self_variant(buf, buf2);
    free(buf);
    free(buf2);
    MPI_CHECK(MPI_Finalize());
    return 0;
}
