/*
 * p2p_order: the non-overtaking rule. Each rank streams K messages with the
 * same (source, tag, communicator) to its right neighbour in a ring
 * (itself when alone), alternating a small (8 B) and a large (256 KiB)
 * payload so that eager-like and rendezvous-like protocols interleave. The
 * receiver checks that message i lands in receive i, with specific and
 * ANY_SOURCE/ANY_TAG receives posted before the sends, after the sends, and
 * half before / half after. Also: two tags interleaved and received one tag
 * at a time, and blocking MPI_Send streams. "Posted before/after" is
 * arranged with neighbour handshakes on a duplicate communicator.
 */
#define TEST_NAME "p2p_order"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#define K 16
#define SMALL 8
#define LARGE (256 * 1024)

static int rank, size, right, left;
static MPI_Comm ctl; /* a duplicate of MPI_COMM_WORLD for handshakes, so
                        they never meet the wildcard receives under test */

/* "my receives are posted": tell my sender (left), wait for my receiver (right) */
static void recvs_posted(void)
{
    int out = 1, in = 0;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, left, 1, &in, 1, MPI_INT, right, 1, ctl, MPI_STATUS_IGNORE));
}

/* "my sends are posted": tell my receiver (right), wait for my sender (left) */
static void sends_posted(void)
{
    int out = 2, in = 0;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 2, &in, 1, MPI_INT, left, 2, ctl, MPI_STATUS_IGNORE));
}
static unsigned char *sbuf[K], *rbuf[K]; /* malloc: 4-byte aligned */

static int msg_size(int i)
{
    return (i % 2 == 0) ? SMALL : LARGE;
}

/* payload word j of message seq from src: cheap to make and check */
static uint32_t word(int src, int seq, int j)
{
    return ((uint32_t)src * 0x01000193u + (uint32_t)seq * 0x9E3779B9u) ^ ((uint32_t)j * 0x85EBCA6Bu);
}

/* message (src, phase, i): word 0 = sequence number, then pattern words */
static void fill_msg(unsigned char *b, int src, int phase, int i)
{
    int n = msg_size(i) / 4, seq = phase * 1000 + i;
    uint32_t *w = (uint32_t *)b;
    w[0] = (uint32_t)seq;
    for (int j = 1; j < n; j++)
        w[j] = word(src, seq, j);
}

static void check_msg(const unsigned char *b, const MPI_Status *st, int src, int tag, int phase, int i,
                      const char *what)
{
    int seq = (int)((const uint32_t *)b)[0], exp = phase * 1000 + i, cnt;
    CHECK(seq == exp, "%s: receive #%d got message #%d (out of order)", what, i, seq - phase * 1000);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "%s: receive #%d status source %d tag %d", what, i,
          st->MPI_SOURCE, st->MPI_TAG);
    MPI_CHECK(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECK(cnt == msg_size(i), "%s: receive #%d count %d, expected %d", what, i, cnt, msg_size(i));
    const uint32_t *w = (const uint32_t *)b;
    for (int j = 1; j < cnt / 4; j++)
        if (w[j] != word(src, seq, j))
            FAIL("%s: receive #%d word %d corrupted", what, i, j);
}

static void prepare(int phase)
{
    for (int i = 0; i < K; i++) {
        fill_msg(sbuf[i], rank, phase, i);
        memset(rbuf[i], 0xEE, LARGE);
    }
}

static void post_recvs(MPI_Request *rq, int from, int to, int wild, int tag)
{
    for (int i = from; i < to; i++)
        MPI_CHECK(MPI_Irecv(rbuf[i], LARGE, MPI_BYTE, wild ? MPI_ANY_SOURCE : left, wild ? MPI_ANY_TAG : tag,
                            MPI_COMM_WORLD, &rq[i]));
}

static void post_sends(MPI_Request *rq, int tag)
{
    for (int i = 0; i < K; i++)
        MPI_CHECK(MPI_Isend(sbuf[i], msg_size(i), MPI_BYTE, right, tag, MPI_COMM_WORLD, &rq[i]));
}

/* mode 0: all receives before the sends; 1: all after; 2: half and half */
static void phase_run(int phase, int mode, int wild)
{
    MPI_Request rr[K], sr[K];
    MPI_Status st[K];
    int tag = 7 + phase;
    char what[80];
    snprintf(what, sizeof what, "phase %d (%s receives %s)", phase, wild ? "ANY_SOURCE/ANY_TAG" : "specific",
             mode == 0   ? "before sends"
             : mode == 1 ? "after sends"
                         : "half before, half after");
    prepare(phase);
    int npre = mode == 0 ? K : mode == 1 ? 0 : K / 2;
    post_recvs(rr, 0, npre, wild, tag);
    if (mode != 1)
        recvs_posted();
    post_sends(sr, tag);
    if (mode != 0)
        sends_posted();
    /* the late receives: blocking, one at a time, alternating specific and wildcard */
    for (int i = npre; i < K; i++) {
        int w = wild || (i % 3 == 0);
        MPI_CHECK(MPI_Recv(rbuf[i], LARGE, MPI_BYTE, w ? MPI_ANY_SOURCE : left, w ? MPI_ANY_TAG : tag,
                           MPI_COMM_WORLD, &st[i]));
    }
    MPI_CHECK(MPI_Waitall(npre, rr, st));
    MPI_CHECK(MPI_Waitall(K, sr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++)
        check_msg(rbuf[i], &st[i], left, tag, phase, i, what);
}

/* Tags A and B interleaved in the send stream; all B received first, then
 * all A, each in order; then the same with receives pre-posted by tag. */
static void two_tags(int phase, int preposted)
{
    MPI_Request rr[K], sr[K];
    MPI_Status st[K];
    const int tagA = 50, tagB = 51;
    prepare(phase);
    /* receive slot order: B messages (odd i) first, then A (even i) */
    int slot[K], n = 0;
    for (int i = 1; i < K; i += 2)
        slot[n++] = i;
    for (int i = 0; i < K; i += 2)
        slot[n++] = i;
    if (preposted)
        for (int k = 0; k < K; k++) {
            int i = slot[k];
            MPI_CHECK(
                MPI_Irecv(rbuf[i], LARGE, MPI_BYTE, left, (i % 2) ? tagB : tagA, MPI_COMM_WORLD, &rr[k]));
        }
    if (preposted)
        recvs_posted();
    for (int i = 0; i < K; i++)
        MPI_CHECK(
            MPI_Isend(sbuf[i], msg_size(i), MPI_BYTE, right, (i % 2) ? tagB : tagA, MPI_COMM_WORLD, &sr[i]));
    if (!preposted)
        sends_posted();
    if (preposted) {
        MPI_CHECK(MPI_Waitall(K, rr, st));
    } else {
        for (int k = 0; k < K; k++) {
            int i = slot[k];
            MPI_CHECK(MPI_Recv(rbuf[i], LARGE, MPI_BYTE, k % 2 ? left : MPI_ANY_SOURCE, (i % 2) ? tagB : tagA,
                               MPI_COMM_WORLD, &st[k]));
        }
    }
    MPI_CHECK(MPI_Waitall(K, sr, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++) {
        int i = slot[k];
        check_msg(rbuf[i], &st[k], left, (i % 2) ? tagB : tagA, phase, i,
                  preposted ? "two tags, preposted" : "two tags, B first then A");
    }
}

/* Blocking MPI_Send stream from even to odd ranks; the receiver takes them
 * in order with alternating specific and wildcard receives. */
static void blocking_stream(int phase)
{
    int tag = 60;
    MPI_Status st;
    prepare(phase);
    if (rank % 2 == 0 && rank + 1 < size) {
        for (int i = 0; i < K; i++)
            MPI_CHECK(MPI_Send(sbuf[i], msg_size(i), MPI_BYTE, rank + 1, tag, MPI_COMM_WORLD));
    } else if (rank % 2 == 1) {
        for (int i = 0; i < K; i++) {
            int w = i % 2;
            MPI_CHECK(MPI_Recv(rbuf[i], LARGE, MPI_BYTE, w ? MPI_ANY_SOURCE : rank - 1, w ? MPI_ANY_TAG : tag,
                               MPI_COMM_WORLD, &st));
            check_msg(rbuf[i], &st, rank - 1, tag, phase, i, "blocking Send stream");
        }
    }
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &ctl));
    for (int i = 0; i < K; i++) {
        sbuf[i] = malloc(LARGE);
        rbuf[i] = malloc(LARGE);
        CHECK(sbuf[i] && rbuf[i], "out of memory");
    }
    int phase = 1;
    for (int wild = 0; wild < 2; wild++)
        for (int mode = 0; mode < 3; mode++)
            phase_run(phase++, mode, wild);
    two_tags(phase++, 0);
    two_tags(phase++, 1);
    blocking_stream(phase++);
    for (int i = 0; i < K; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    MPI_CHECK(MPI_Comm_free(&ctl));
    MPI_CHECK(MPI_Finalize());
    return 0;
}
