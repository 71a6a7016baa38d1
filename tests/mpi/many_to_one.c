/*
 * many_to_one: every rank but 0 posts 2000 small (8-byte) Isends to rank 0,
 * then one tag-1 "all posted" message, and waits for all of them. Rank 0
 * posts nothing until it has received the tag-1 message of every sender
 * (so thousands of messages arrive unexpected, or wait at their senders),
 * then takes all the tag-0 messages with ANY_SOURCE receives and checks
 * that each source's messages come in the order they were sent (payload =
 * source, sequence number). A second round does the same with blocking
 * MPI_Send on the senders and receives pre-posted at rank 0.
 */
#define TEST_NAME "many_to_one"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;

#define M 2000

static int rank, size;

static void round_late_receives(void)
{
    if (rank != 0) {
        int(*msg)[2] = malloc(sizeof(int[2]) * M);
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (M + 1));
        CHECK(msg && rq, "out of memory");
        int done = rank;
        for (int i = 0; i < M; i++) {
            msg[i][0] = rank;
            msg[i][1] = i;
            MPI_CHECK(MPI_Isend(msg[i], 2, MPI_INT, 0, 0, MPI_COMM_WORLD, &rq[i]));
        }
        MPI_CHECK(MPI_Isend(&done, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq[M]));
        MPI_CHECK(MPI_Waitall(M + 1, rq, MPI_STATUSES_IGNORE));
        free(msg);
        free(rq);
        return;
    }
    int *next = calloc(size, sizeof(int));
    CHECK(next, "out of memory");
    for (int src = 1; src < size; src++) {
        int d = -1;
        MPI_CHECK(MPI_Recv(&d, 1, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(d == src, "tag-1 message from %d carries %d", src, d);
    }
    for (long k = 0; k < (long)M * (size - 1); k++) {
        int m[2] = {-1, -1}, cnt = -1;
        MPI_Status st;
        MPI_CHECK(MPI_Recv(m, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
        int src = st.MPI_SOURCE;
        CHECK(src >= 1 && src < size && cnt == 2, "message %ld: source %d count %d", k, src, cnt);
        CHECK(m[0] == src, "message %ld: status source %d but payload source %d", k, src, m[0]);
        CHECK(m[1] == next[src], "source %d: got message #%d, expected #%d (overtaking)", src, m[1],
              next[src]);
        next[src]++;
    }
    for (int src = 1; src < size; src++)
        CHECK(next[src] == M, "source %d: %d messages", src, next[src]);
    int flag = 1;
    MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message is left over");
    free(next);
}

/* Receives pre-posted at rank 0 (ANY_SOURCE), senders use blocking Send
 * after a barrier; rank 0 checks per-source order in receive-post order. */
static void round_preposted(void)
{
    enum { P = 500 };
    if (rank == 0) {
        long total = (long)P * (size - 1);
        int(*m)[2] = malloc(sizeof(int[2]) * (total ? total : 1));
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (total ? total : 1));
        MPI_Status *st = malloc(sizeof(MPI_Status) * (total ? total : 1));
        int *next = calloc(size, sizeof(int));
        CHECK(m && rq && st && next, "out of memory");
        for (long k = 0; k < total; k++)
            MPI_CHECK(MPI_Irecv(m[k], 2, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq[k]));
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Waitall((int)total, rq, st));
        for (long k = 0; k < total; k++) {
            int src = st[k].MPI_SOURCE;
            CHECK(src >= 1 && src < size && m[k][0] == src, "pre-posted receive %ld: source %d payload %d", k,
                  src, m[k][0]);
            CHECK(m[k][1] == next[src], "pre-posted: source %d message #%d in slot for #%d", src, m[k][1],
                  next[src]);
            next[src]++;
        }
        free(m);
        free(rq);
        free(st);
        free(next);
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < P; i++) {
            int msg[2] = {rank, i};
            MPI_CHECK(MPI_Send(msg, 2, MPI_INT, 0, 2, MPI_COMM_WORLD));
        }
    }
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    round_late_receives();
    round_preposted();
    MPI_CHECK(MPI_Finalize());
    return 0;
}
