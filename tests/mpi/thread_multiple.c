/*
 * thread_multiple: MPI_THREAD_MULTIPLE. Each rank runs NT threads that call
 * MPI at the same time:
 *  - point-to-point with the same thread of the other ranks (tag = thread),
 *    blocking and nonblocking, 0 B to 1 MiB, contents checked;
 *  - a blocking MPI_Recv from its own process whose matching MPI_Send is
 *    made by another thread, which must get into the library while the
 *    receiver waits in it (the two would deadlock under one unreleased
 *    lock);
 *  - a thread that polls MPI_Iprobe and MPI_Test until another thread of its
 *    process sends to it (a poller that starved the sender would hang);
 *  - collectives on a communicator of its own (dup'ed beforehand);
 *  - MPI_Fetch_and_op on one counter of rank 0 from every thread of every
 *    rank in a passive epoch; the final count must be exact;
 *  - many requests created and completed at once (the request table grows
 *    while other threads hold requests).
 * Also: provided is MPI_THREAD_MULTIPLE, MPI_Query_thread says so, and
 * MPI_Is_thread_main is true only in the thread that called Init_thread.
 */
#define TEST_NAME "thread_multiple"
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK rank
#include "check.h"

#define NT 4
#define NFOP 200
#define NREQ 64
enum { TAG_SELF = 100, TAG_POLL = 200, TAG_MANY = 300 };

static int rank, size;
static MPI_Comm tcomm[NT];
static MPI_Win win;
static const int sizes[] = {0, 8, 4096, 65536, 1 << 20};
#define NSIZES 5

static unsigned char val(int src, int t, int n, int i)
{
    return (unsigned char)(src * 31 + t * 17 + n * 7 + i * 13 + (i >> 9));
}

static void fill(unsigned char *b, int src, int t, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, t, n, i);
}

static void verify(const unsigned char *b, int src, int t, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, t, n, i))
            FAIL("thread %d, %s: %d-byte message from %d, byte %d wrong", t, what, n, src, i);
}

/* exchanges with thread t of every other rank, in a ring */
static void p2p(int t, unsigned char *sb, unsigned char *rb)
{
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size;
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], cnt;
            MPI_Status st;
            MPI_Request rq[2];
            fill(sb, rank, t, n);
            memset(rb, 0xee, (size_t)n);
            MPI_CHECK(MPI_Sendrecv(sb, n, MPI_BYTE, to, t, rb, n, MPI_BYTE, from, t, MPI_COMM_WORLD, &st));
            MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            CHECK(st.MPI_SOURCE == from && st.MPI_TAG == t && cnt == n, "sendrecv status %d/%d/%d",
                  st.MPI_SOURCE, st.MPI_TAG, cnt);
            verify(rb, from, t, n, "sendrecv");
            memset(rb, 0xee, (size_t)n);
            MPI_CHECK(MPI_Irecv(rb, n, MPI_BYTE, from, t, MPI_COMM_WORLD, &rq[0]));
            MPI_CHECK(MPI_Isend(sb, n, MPI_BYTE, to, t, MPI_COMM_WORLD, &rq[1]));
            MPI_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            verify(rb, from, t, n, "isend/irecv");
        }
    }
}

/* thread t receives (blocking) from its own process what thread t+1 sends */
static void self_cross(int t, unsigned char *sb, unsigned char *rb)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], from_t = (t + 1) % NT, to_t = (t + NT - 1) % NT;
        MPI_Request sr;
        fill(sb, rank, to_t, n);
        MPI_CHECK(MPI_Isend(sb, n, MPI_BYTE, rank, TAG_SELF + to_t, MPI_COMM_WORLD, &sr));
        memset(rb, 0xee, (size_t)n);
        MPI_CHECK(MPI_Recv(rb, n, MPI_BYTE, rank, TAG_SELF + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        verify(rb, rank, t, n, "self from another thread");
        MPI_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        (void)from_t;
    }
}

/* thread 0 polls for a message that thread NT-1 sends only after its own
 * blocking exchange with thread 0 has completed */
static void poll_pair(int t)
{
    int flag = 0, v = -1, token = 0;
    MPI_Request r;

    if (t == 0) {
        MPI_CHECK(MPI_Send(&token, 1, MPI_INT, rank, TAG_POLL + 1, MPI_COMM_WORLD));
        while (!flag)
            MPI_CHECK(MPI_Iprobe(rank, TAG_POLL, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        MPI_CHECK(MPI_Irecv(&v, 1, MPI_INT, rank, TAG_POLL, MPI_COMM_WORLD, &r));
        flag = 0;
        while (!flag)
            MPI_CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(v == 4242, "polled message holds %d", v);
    } else if (t == NT - 1) {
        MPI_CHECK(MPI_Recv(&token, 1, MPI_INT, rank, TAG_POLL + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v = 4242;
        MPI_CHECK(MPI_Send(&v, 1, MPI_INT, rank, TAG_POLL, MPI_COMM_WORLD));
    }
}

static void colls(int t)
{
    MPI_Comm c = tcomm[t];
    for (int it = 0; it < 20; it++) {
        long in[3] = {rank + t, it, 1}, out[3];
        int b = rank == it % size ? 1000 * t + it : -1;
        MPI_CHECK(MPI_Allreduce(in, out, 3, MPI_LONG, MPI_SUM, c));
        CHECK(out[0] == (long)size * (size - 1) / 2 + (long)size * t && out[1] == (long)size * it &&
                  out[2] == size,
              "thread %d allreduce %ld %ld %ld", t, out[0], out[1], out[2]);
        MPI_CHECK(MPI_Bcast(&b, 1, MPI_INT, it % size, c));
        CHECK(b == 1000 * t + it, "thread %d bcast got %d", t, b);
        MPI_CHECK(MPI_Barrier(c));
    }
}

static void fops(void)
{
    long one = 1, old;
    for (int i = 0; i < NFOP; i++) {
        MPI_CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
        MPI_CHECK(MPI_Win_flush(0, win));
        CHECK(old >= 0 && old < (long)NFOP * NT * size, "fetch_and_op read %ld", old);
    }
}

/* NREQ receives and sends at once with thread t of the next/previous rank */
static void many(int t)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int sv[NREQ], rv[NREQ];
    MPI_Request rq[2 * NREQ];
    for (int i = 0; i < NREQ; i++) {
        rv[i] = -1;
        sv[i] = rank * 100000 + t * 1000 + i;
        MPI_CHECK(MPI_Irecv(&rv[i], 1, MPI_INT, from, TAG_MANY + t, MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < NREQ; i++)
        MPI_CHECK(MPI_Isend(&sv[i], 1, MPI_INT, to, TAG_MANY + t, MPI_COMM_WORLD, &rq[NREQ + i]));
    MPI_CHECK(MPI_Waitall(2 * NREQ, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NREQ; i++)
        CHECK(rv[i] == from * 100000 + t * 1000 + i, "thread %d: request %d got %d (order)", t, i, rv[i]);
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg, flag = 1;
    unsigned char *sb = malloc(1 << 20), *rb = malloc(1 << 20);

    CHECK(sb && rb, "out of memory");
    MPI_CHECK(MPI_Is_thread_main(&flag));
    CHECK(!flag, "MPI_Is_thread_main is true in thread %d", t);
    p2p(t, sb, rb);
    self_cross(t, sb, rb);
    poll_pair(t);
    colls(t);
    fops();
    many(t);
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1, flag = 0;
    long *counter;
    pthread_t th[NT];

    MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d, not MPI_THREAD_MULTIPLE", provided);
    MPI_CHECK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", q);
    MPI_CHECK(MPI_Is_thread_main(&flag));
    CHECK(flag, "MPI_Is_thread_main is false in the main thread");

    for (int t = 0; t < NT; t++)
        MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    MPI_CHECK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win));
    *counter = 0;
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Win_lock_all(0, win));

    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);

    MPI_CHECK(MPI_Win_unlock_all(win));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        long want = (long)NFOP * NT * size;
        MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(*counter == want, "counter %ld after fetch_and_op, expected %ld", *counter, want);
        MPI_CHECK(MPI_Win_unlock(0, win));
    }
    MPI_CHECK(MPI_Win_free(&win));
    for (int t = 0; t < NT; t++)
        MPI_CHECK(MPI_Comm_free(&tcomm[t]));
    MPI_Finalize();
    if (rank == 0)
        printf("%s: ok (%d ranks x %d threads)\n", TEST_NAME, size, NT);
    return 0;
}
