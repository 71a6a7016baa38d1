/*
 * mprobe: matched probe and receive. A message found by MPI_Mprobe /
 * MPI_Improbe is out of matching: a wildcard receive posted afterwards must
 * take the next message, not it, and MPI_Mrecv / MPI_Imrecv get it intact,
 * small (eager) or large (rendezvous: its data moves only once Mrecv gives
 * the buffer), from a named source or MPI_ANY_SOURCE, in any order of
 * probes and receives, to self too. MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC; Mrecv truncation gives MPI_ERR_TRUNCATE; invalid
 * arguments give the right error classes.
 */
#define TEST_NAME "mprobe"
#include "mpi3_test.h"

static int rank, size;

static int val(int src, int tag, int i)
{
    return src * 1000003 + tag * 7919 + i;
}

static int *mkmsg(int src, int tag, int n)
{
    int *m = malloc((size_t)(n ? n : 1) * sizeof(int)), i;
    CHECK(m, "malloc");
    for (i = 0; i < n; i++)
        m[i] = val(src, tag, i);
    return m;
}

static void check_msg(const int *m, int n, int src, int tag, const char *what)
{
    int i;
    for (i = 0; i < n; i++)
        CHECK(m[i] == val(src, tag, i), "%s: src %d tag %d: m[%d] = %d, expected %d", what, src, tag, i, m[i],
              val(src, tag, i));
}

/* Rank 0 sends tags 1..4 (sizes alternating small / large) to rank 1.
 * Rank 1 mprobes 2 then 1; a wildcard receive posted then must get 3 (the
 * oldest message not mprobed); an ANY_TAG mprobe then finds 4; the three
 * mprobed messages are received last, out of order, by Mrecv and Imrecv. */
static void pair_reverse(int big)
{
    const int lens[5] = {0, 10, big, 3, big + 17};
    MPI_Message msg[5];
    MPI_Status st;
    int t, cnt, *m;

    if (rank == 0) {
        MPI_Request reqs[4];
        int *bufs[4];
        for (t = 1; t <= 4; t++) {
            bufs[t - 1] = mkmsg(0, t, lens[t]);
            MPI_CHECK(MPI_Isend(bufs[t - 1], lens[t], MPI_INT, 1, t, MPI_COMM_WORLD, &reqs[t - 1]));
        }
        MPI_CHECK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        for (t = 0; t < 4; t++)
            free(bufs[t]);
    } else if (rank == 1) {
        const int order[2] = {2, 1};
        for (int k = 0; k < 2; k++) {
            t = order[k];
            MPI_CHECK(MPI_Mprobe(0, t, MPI_COMM_WORLD, &msg[t], &st));
            CHECK(msg[t] != MPI_MESSAGE_NULL && msg[t] != MPI_MESSAGE_NO_PROC, "Mprobe gave a null message");
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == t, "Mprobe status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == lens[t], "Mprobe count %d, expected %d", cnt, lens[t]);
        }
        m = malloc((size_t)(big + 17) * sizeof(int));
        MPI_CHECK(MPI_Recv(m, big + 17, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == 3, "wildcard receive got tag %d, expected 3 (1 and 2 are mprobed)", st.MPI_TAG);
        MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 3, "count %d", cnt);
        check_msg(m, 3, 0, 3, "wildcard");
        free(m);
        MPI_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg[4], &st));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 4, "ANY_TAG mprobe got %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        for (t = 4; t >= 1; t--) {
            if (t == 3)
                continue;
            m = malloc((size_t)(lens[t] + 1) * sizeof(int));
            if (t == 1) {
                MPI_CHECK(MPI_Mrecv(m, lens[t], MPI_INT, &msg[t], &st));
            } else {
                MPI_Request r;
                MPI_CHECK(MPI_Imrecv(m, lens[t], MPI_INT, &msg[t], &r));
                CHECK(msg[t] == MPI_MESSAGE_NULL, "Imrecv did not reset the message");
                MPI_CHECK(MPI_Wait(&r, &st));
            }
            CHECK(msg[t] == MPI_MESSAGE_NULL, "Mrecv did not reset the message");
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == t, "Mrecv status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == lens[t], "Mrecv count %d", cnt);
            check_msg(m, lens[t], 0, t, "Mrecv");
            free(m);
        }
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Rank 1 has receives posted (with write-protocol REQs out to rank 0)
 * while it mprobes other messages from rank 0 around them. */
static void with_posted(int big)
{
    int *m50, *m53, *m, cnt, t;
    MPI_Request r50, r53;
    MPI_Message m51, m52;
    MPI_Status st;

    if (rank == 0) {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        for (t = 50; t <= 53; t++) {
            m = mkmsg(0, t, t % 2 ? 5 : big);
            MPI_CHECK(MPI_Send(m, t % 2 ? 5 : big, MPI_INT, 1, t, MPI_COMM_WORLD));
            free(m);
        }
    } else if (rank == 1) {
        m50 = malloc((size_t)big * sizeof(int));
        m53 = malloc((size_t)big * sizeof(int));
        MPI_CHECK(MPI_Irecv(m50, big, MPI_INT, 0, 50, MPI_COMM_WORLD, &r50));
        MPI_CHECK(MPI_Irecv(m53, 5, MPI_INT, 0, 53, MPI_COMM_WORLD, &r53));
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Mprobe(0, 52, MPI_COMM_WORLD, &m52, &st));
        MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == big, "count of 52: %d", cnt);
        MPI_CHECK(MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m51, &st));
        CHECK(st.MPI_TAG == 51, "ANY_TAG mprobe got %d, expected 51 (50 and 53 have receives, 52 is taken)",
              st.MPI_TAG);
        /* (53 comes after 52, a blocking send that may need its receive:
         * Mrecv it first) */
        m = malloc((size_t)big * sizeof(int));
        MPI_CHECK(MPI_Mrecv(m, big, MPI_INT, &m52, &st));
        check_msg(m, big, 0, 52, "mprobed 52");
        MPI_CHECK(MPI_Wait(&r53, &st));
        check_msg(m53, 5, 0, 53, "posted 53");
        MPI_CHECK(MPI_Mrecv(m, 5, MPI_INT, &m51, &st));
        check_msg(m, 5, 0, 51, "mprobed 51");
        MPI_CHECK(MPI_Wait(&r50, &st));
        check_msg(m50, big, 0, 50, "posted 50");
        free(m);
        free(m50);
        free(m53);
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Every other rank sends two messages to rank 0 (one small, one large);
 * rank 0 takes them with ANY_SOURCE matched probes, Improbe polling for half
 * of them, and receives each only after probing the next. */
static void any_source(int big)
{
    int n = 2 * (size - 1), i, cnt, got[64] = {0};
    MPI_Message prev = MPI_MESSAGE_NULL, cur;
    MPI_Status st, pst = {0};

    if (rank != 0) {
        int *a = mkmsg(rank, 1, 7), *b = mkmsg(rank, 2, big);
        MPI_CHECK(MPI_Send(a, 7, MPI_INT, 0, 1, MPI_COMM_WORLD));
        MPI_CHECK(MPI_Send(b, big, MPI_INT, 0, 2, MPI_COMM_WORLD));
        free(a);
        free(b);
    } else {
        for (i = 0; i <= n; i++) {
            if (i < n) {
                if (i % 2) {
                    int flag = 0;
                    while (!flag)
                        MPI_CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &cur, &st));
                } else {
                    MPI_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &cur, &st));
                }
                CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size, "source %d", st.MPI_SOURCE);
                /* non-overtaking: a sender's tag 1 comes before its tag 2 */
                CHECK(got[st.MPI_SOURCE] == st.MPI_TAG - 1, "from %d tag %d after %d", st.MPI_SOURCE,
                      st.MPI_TAG, got[st.MPI_SOURCE]);
                got[st.MPI_SOURCE] = st.MPI_TAG;
            }
            if (prev != MPI_MESSAGE_NULL) {
                int len = pst.MPI_TAG == 1 ? 7 : big, *m = malloc((size_t)len * sizeof(int));
                MPI_Status rst;
                MPI_CHECK(MPI_Mrecv(m, len, MPI_INT, &prev, &rst));
                MPI_CHECK(MPI_Get_count(&rst, MPI_INT, &cnt));
                CHECK(rst.MPI_SOURCE == pst.MPI_SOURCE && rst.MPI_TAG == pst.MPI_TAG && cnt == len,
                      "Mrecv status");
                check_msg(m, len, rst.MPI_SOURCE, rst.MPI_TAG, "any_source");
                free(m);
            }
            prev = i < n ? cur : MPI_MESSAGE_NULL;
            pst = st;
        }
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Messages to self, MPI_PROC_NULL, Improbe with nothing there, errors. */
static void self_and_errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4], flag, cnt, *big = mkmsg(rank, 5, 100000), *bb;
    MPI_Message m;
    MPI_Request r, r2;
    MPI_Status st;

    MPI_CHECK(MPI_Isend(a, 4, MPI_INT, rank, 3, MPI_COMM_WORLD, &r));
    MPI_CHECK(MPI_Mprobe(rank, 3, MPI_COMM_WORLD, &m, &st));
    MPI_CHECK(MPI_Mrecv(b, 4, MPI_INT, &m, &st));
    MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(!memcmp(a, b, sizeof a), "self message");
    /* large self message: the send completes only when Mrecv takes it */
    MPI_CHECK(MPI_Issend(big, 100000, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
    MPI_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_SOURCE == rank, "self mprobe source %d", st.MPI_SOURCE);
    bb = malloc(100000 * sizeof(int));
    MPI_CHECK(MPI_Imrecv(bb, 100000, MPI_INT, &m, &r2));
    MPI_CHECK(MPI_Wait(&r2, &st));
    MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_msg(bb, 100000, rank, 5, "self large");
    free(bb);
    free(big);

    MPI_CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "PROC_NULL mprobe");
    MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 0, "PROC_NULL count");
    MPI_CHECK(MPI_Mrecv(b, 4, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv of MPI_MESSAGE_NO_PROC");
    MPI_CHECK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "PROC_NULL improbe");
    MPI_CHECK(MPI_Imrecv(b, 4, MPI_INT, &m, &r));
    MPI_CHECK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv of MPI_MESSAGE_NO_PROC");
    MPI_CHECK(MPI_Improbe(MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(!flag, "Improbe found a message nobody sent");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* truncation */
    MPI_CHECK(MPI_Send(a, 4, MPI_INT, rank, 6, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Mprobe(rank, 6, MPI_COMM_WORLD, &m, &st));
    EXPECT_CLASS(MPI_Mrecv(b, 2, MPI_INT, &m, &st), MPI_ERR_TRUNCATE);
    EXPECT_CLASS(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &m, &st), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Mprobe(0, -7, MPI_COMM_WORLD, &m, &st), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &m, &st), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Improbe(0, 0, MPI_COMM_WORLD, NULL, &m, &st), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int big;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    for (big = 100; big <= 300000; big *= 50) {
        if (size >= 2) {
            pair_reverse(big);
            with_posted(big);
        }
        if (size >= 2 && size <= 64)
            any_source(big);
    }
    self_and_errors();
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
