/*
 * p2p_wildcard: MPI_ANY_SOURCE / MPI_ANY_TAG receives and the status they
 * fill in, MPI_Get_count with several datatypes, Probe/Iprobe followed by
 * a receive of exactly the probed message (sized with Get_count), Iprobe
 * returning false when nothing matches, and probes on MPI_PROC_NULL.
 */
#define TEST_NAME "p2p_wildcard"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;

/* value i of the message from src with tag */
static int val(int src, int tag, int i)
{
    return src * 100000 + tag * 100 + i;
}

/* Every rank != 0 sends one message to 0 (tag and length depend on the
 * rank); rank 0 takes them with ANY_SOURCE/ANY_TAG, in whatever order. */
static void any_source_any_tag(void)
{
    enum { MAXN = 64 };
    if (rank == 0) {
        int seen[256] = {0};
        for (int k = 1; k < size; k++) {
            int buf[MAXN], cnt;
            MPI_Status st;
            memset(buf, 0, sizeof buf);
            MPI_CHECK(MPI_Recv(buf, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE;
            CHECK(src >= 1 && src < size, "ANY_SOURCE: status.MPI_SOURCE %d out of range", src);
            CHECK(!seen[src], "ANY_SOURCE: source %d seen twice", src);
            seen[src] = 1;
            CHECK(st.MPI_TAG == 10 + src, "ANY_TAG: status.MPI_TAG %d from %d, expected %d", st.MPI_TAG, src,
                  10 + src);
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == 3 * src + 1, "ANY_SOURCE: Get_count %d from %d, expected %d", cnt, src, 3 * src + 1);
            for (int i = 0; i < cnt; i++)
                CHECK(buf[i] == val(src, 10 + src, i), "ANY_SOURCE: element %d from %d is %d", i, src,
                      buf[i]);
            for (int i = cnt; i < MAXN; i++)
                CHECK(buf[i] == 0, "ANY_SOURCE: element %d past the message was written", i);
        }
    } else {
        int buf[MAXN];
        for (int i = 0; i < 3 * rank + 1; i++)
            buf[i] = val(rank, 10 + rank, i);
        MPI_CHECK(MPI_Send(buf, 3 * rank + 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD));
    }
}

/* Specific source, ANY_TAG, sources taken in reverse order; then ANY_SOURCE
 * with a specific tag picks the one source that used it. */
static void any_tag_specific_source(void)
{
    if (rank == 0) {
        for (int src = size - 1; src >= 1; src--) {
            int v = -1;
            MPI_Status st;
            MPI_CHECK(MPI_Recv(&v, 1, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 200 + src && v == val(src, 200 + src, 0),
                  "ANY_TAG from %d: source %d tag %d value %d", src, st.MPI_SOURCE, st.MPI_TAG, v);
        }
        for (int src = 1; src < size; src++) {
            int v = -1;
            MPI_Status st;
            int tag = 300 + (src * 7) % size;
            MPI_CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == tag && st.MPI_SOURCE >= 1 && v == val(st.MPI_SOURCE, tag, 1),
                  "ANY_SOURCE tag %d: source %d tag %d value %d", tag, st.MPI_SOURCE, st.MPI_TAG, v);
            CHECK(300 + (st.MPI_SOURCE * 7) % size == tag, "ANY_SOURCE tag %d matched source %d", tag,
                  st.MPI_SOURCE);
        }
    } else {
        int v = val(rank, 200 + rank, 0);
        MPI_Request rq[2];
        int tag = 300 + (rank * 7) % size, w = val(rank, tag, 1);
        MPI_CHECK(MPI_Isend(&v, 1, MPI_INT, 0, 200 + rank, MPI_COMM_WORLD, &rq[0]));
        MPI_CHECK(MPI_Isend(&w, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &rq[1]));
        MPI_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    }
}

/* Get_count with several datatypes, each receive using the type it checks. */
static void get_count_types(void)
{
    int partner = (rank ^ 1) < size ? (rank ^ 1) : rank;
    struct {
        MPI_Datatype t;
        int elsize;
        int n;
        const char *name;
    } cases[] = {
        {MPI_CHAR, 1, 13, "MPI_CHAR"},
        {MPI_SHORT, (int)sizeof(short), 9, "MPI_SHORT"},
        {MPI_INT, (int)sizeof(int), 6, "MPI_INT"},
        {MPI_DOUBLE, (int)sizeof(double), 5, "MPI_DOUBLE"},
        {MPI_LONG_LONG, (int)sizeof(long long), 4, "MPI_LONG_LONG"},
        {MPI_BYTE, 1, 0, "MPI_BYTE (0)"},
        {MPI_FLOAT, (int)sizeof(float), 1, "MPI_FLOAT"},
    };
    int nc = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < nc; c++) {
        unsigned char out[256], in[256];
        MPI_Status st;
        int cnt = -1, tag = 400 + c;
        for (int i = 0; i < 256; i++)
            out[i] = (unsigned char)(i * 3 + c + rank);
        memset(in, 0, sizeof in);
        /* receive count larger than sent; wildcards on both fields */
        MPI_CHECK(MPI_Sendrecv(out, cases[c].n, cases[c].t, partner, tag, in, 2 * cases[c].n + 3, cases[c].t,
                               MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_CHECK(MPI_Get_count(&st, cases[c].t, &cnt));
        CHECK(cnt == cases[c].n, "Get_count(%s) %d, expected %d", cases[c].name, cnt, cases[c].n);
        MPI_CHECK(MPI_Get_elements(&st, cases[c].t, &cnt));
        CHECK(cnt == cases[c].n, "Get_elements(%s) %d, expected %d", cases[c].name, cnt, cases[c].n);
        CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == tag, "%s: status source %d tag %d", cases[c].name,
              st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < cases[c].n * cases[c].elsize; i++)
            CHECK(in[i] == (unsigned char)(i * 3 + c + partner), "%s: byte %d wrong", cases[c].name, i);
    }
}

/* Probe (blocking) and Iprobe (polling) with wildcards, then a receive
 * with the probed source/tag and a buffer sized from Get_count. */
static void probe_then_recv(int blocking)
{
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Status st, st2;
            int cnt = -1, flag = 0;
            if (blocking) {
                MPI_CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            } else {
                while (!flag)
                    MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            }
            int src = st.MPI_SOURCE, tag = st.MPI_TAG;
            CHECK(src >= 1 && src < size, "probe: source %d", src);
            CHECK(tag == 500 + src + blocking, "probe: tag %d from %d", tag, src);
            MPI_CHECK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
            int exp = 1000 * src + 17 * blocking;
            CHECK(cnt == exp, "probe: Get_count %d from %d, expected %d", cnt, src, exp);
            /* a second probe on the same source/tag sees the same message */
            MPI_CHECK(MPI_Probe(src, tag, MPI_COMM_WORLD, &st2));
            MPI_CHECK(MPI_Get_count(&st2, MPI_DOUBLE, &cnt));
            CHECK(cnt == exp && st2.MPI_SOURCE == src && st2.MPI_TAG == tag, "re-probe differs");
            double *buf = malloc(sizeof(double) * (size_t)(exp + 1));
            CHECK(buf, "out of memory");
            buf[exp] = -1.0;
            MPI_CHECK(MPI_Recv(buf, exp, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &st2));
            MPI_CHECK(MPI_Get_count(&st2, MPI_DOUBLE, &cnt));
            CHECK(cnt == exp && st2.MPI_SOURCE == src && st2.MPI_TAG == tag,
                  "recv after probe: count %d source %d tag %d", cnt, st2.MPI_SOURCE, st2.MPI_TAG);
            for (int i = 0; i < exp; i++)
                CHECK(buf[i] == (double)val(src, tag, i), "recv after probe: element %d wrong", i);
            CHECK(buf[exp] == -1.0, "recv after probe wrote past the message");
            free(buf);
        }
    } else {
        int n = 1000 * rank + 17 * blocking, tag = 500 + rank + blocking;
        double *buf = malloc(sizeof(double) * (size_t)n);
        CHECK(buf, "out of memory");
        for (int i = 0; i < n; i++)
            buf[i] = (double)val(rank, tag, i);
        MPI_CHECK(MPI_Send(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD));
        free(buf);
    }
}

/* Iprobe must say "no" when nothing matches: on an empty queue, for a tag
 * or source that has no message while another message is waiting, and on
 * another communicator. Probes on MPI_PROC_NULL return at once. */
static void iprobe_false(void)
{
    MPI_Comm dup;
    MPI_Status st;
    int flag = 1;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &flag, &st));
    CHECK(!flag, "Iprobe(ANY_SOURCE, ANY_TAG) true on an idle communicator");
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* all earlier traffic was received */
    flag = 1;
    MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe(ANY_SOURCE, ANY_TAG) true with nothing sent (source %d tag %d)", st.MPI_SOURCE,
          st.MPI_TAG);

    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has checked: sends may start */

    /* a message from the last rank to rank 0 with tag 600 */
    MPI_Request rq = MPI_REQUEST_NULL;
    int v = 4242;
    if (rank == size - 1)
        MPI_CHECK(MPI_Isend(&v, 1, MPI_INT, 0, 600, MPI_COMM_WORLD, &rq));
    if (rank == 0) {
        int w = 0;
        MPI_CHECK(MPI_Probe(size - 1, 600, MPI_COMM_WORLD, &st)); /* it has arrived */
        flag = 1;
        MPI_CHECK(MPI_Iprobe(size - 1, 601, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe for an unused tag true while another tag is waiting");
        if (size > 1) {
            flag = 1;
            MPI_CHECK(MPI_Iprobe(size > 2 ? 1 : 0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "Iprobe for a silent source true");
        }
        flag = 1;
        MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &flag, &st));
        CHECK(!flag, "Iprobe on a duplicate communicator sees a message of the original");
        flag = 0;
        MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag && st.MPI_SOURCE == size - 1 && st.MPI_TAG == 600,
              "Iprobe(ANY, ANY) flag %d src %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
        MPI_CHECK(MPI_Recv(&w, 1, MPI_INT, size - 1, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == 4242, "message after probes: %d", w);
        flag = 1;
        MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe true after the only message was received");
    }
    MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* MPI_PROC_NULL: flag true, source PROC_NULL, tag ANY_TAG, count 0 */
    int cnt = -1;
    flag = 0;
    MPI_CHECK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "Iprobe(MPI_PROC_NULL): flag %d source %d tag %d count %d", flag, st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_CHECK(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "Probe(MPI_PROC_NULL): source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_CHECK(MPI_Comm_free(&dup));
}

/* ANY_SOURCE receives on a communicator must not take messages of another
 * communicator, and status reports ranks of the receiving communicator. */
static void wildcard_on_split(void)
{
    MPI_Comm rev;
    int rrank, rsize;
    /* one color, reversed order: rank r here is size-1-r */
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    MPI_CHECK(MPI_Comm_rank(rev, &rrank));
    MPI_CHECK(MPI_Comm_size(rev, &rsize));
    CHECK(rrank == size - 1 - rank && rsize == size, "split: rank %d size %d", rrank, rsize);
    int out = 7000 + rrank, in = -1;
    MPI_Status st;
    int to = (rrank + 1) % rsize, from = (rrank + rsize - 1) % rsize;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, to, 9, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 9 && in == 7000 + from,
          "wildcard on split comm: source %d (expected %d) tag %d value %d", st.MPI_SOURCE, from, st.MPI_TAG,
          in);
    MPI_CHECK(MPI_Comm_free(&rev));
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    CHECK(size <= 256, "at most 256 ranks");

    /* the barriers keep one phase's wildcard receives away from the next
     * phase's messages */
    any_source_any_tag();
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    any_tag_specific_source();
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    get_count_types();
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    probe_then_recv(1);
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    probe_then_recv(0);
    iprobe_false(); /* starts with a barrier */
    wildcard_on_split();

    MPI_CHECK(MPI_Finalize());
    return 0;
}
