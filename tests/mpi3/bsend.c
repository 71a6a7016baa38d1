/*
 * bsend: buffered mode. The classic exchange that deadlocks with standard
 * sends above the eager limit (every rank Bsends a large message to its
 * neighbour, then receives) must complete; Bsend returns before a matching
 * receive exists; the buffer is sized as the standard says (Pack_size +
 * MPI_BSEND_OVERHEAD per message) and reused as messages complete;
 * MPI_ERR_BUFFER when a message does not fit; Buffer_detach waits for
 * delivery and returns the buffer and its size; Ibsend, Bsend_init/Start,
 * derived datatypes, MPI_PROC_NULL, errors for bad arguments.
 */
#define TEST_NAME "bsend"
#include "mpi3_test.h"

static int rank, size;

static double val(int src, int k, int i)
{
    return src * 1000.0 + k * 7.0 + i * 0.5;
}

/* Every rank Bsends n doubles to rank+1 then receives from rank-1. */
static void ring_exchange(int n, int rounds)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, psize, bsize, i, k;
    double *s = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
    char *buf;
    void *det;
    MPI_Status st;

    CHECK(s && r, "malloc");
    MPI_CHECK(MPI_Pack_size(n, MPI_DOUBLE, MPI_COMM_WORLD, &psize));
    bsize = psize + MPI_BSEND_OVERHEAD;
    buf = malloc((size_t)bsize);
    CHECK(buf, "malloc");
    MPI_CHECK(MPI_Buffer_attach(buf, bsize));
    for (k = 0; k < rounds; k++) {
        for (i = 0; i < n; i++)
            s[i] = val(rank, k, i);
        MPI_CHECK(MPI_Bsend(s, n, MPI_DOUBLE, right, k, MPI_COMM_WORLD));
        /* the data was copied: the user buffer may be reused at once */
        memset(s, 0xff, (size_t)n * sizeof(double));
        MPI_CHECK(MPI_Recv(r, n, MPI_DOUBLE, left, k, MPI_COMM_WORLD, &st));
        for (i = 0; i < n; i++)
            CHECK(r[i] == val(left, k, i), "n=%d round %d: r[%d] = %g, expected %g", n, k, i, r[i],
                  val(left, k, i));
        /* each round needs the whole buffer: the previous message's space
         * must be reclaimed once delivered (the receive above proves the
         * neighbour got ours only after a barrier) */
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_CHECK(MPI_Buffer_detach(&det, &bsize));
    CHECK(det == buf && bsize == psize + MPI_BSEND_OVERHEAD, "detach returned %p/%d, attached %p/%d", det, bsize,
          (void *)buf, psize + MPI_BSEND_OVERHEAD);
    free(buf);
    free(s);
    free(r);
}

/* Rank 0 Bsends several messages of mixed sizes before rank 1 posts any
 * receive; rank 1 receives them in reverse tag order. */
static void many_pending(void)
{
    enum { NMSG = 6 };
    int lens[NMSG] = {1, 100, 5000, 40000, 0, 300000}, total = 0, psz, i, j, bsize;
    char *buf;
    void *det;

    for (i = 0; i < NMSG; i++) {
        MPI_CHECK(MPI_Pack_size(lens[i], MPI_INT, MPI_COMM_WORLD, &psz));
        total += psz + MPI_BSEND_OVERHEAD;
    }
    if (rank == 0) {
        buf = malloc((size_t)total);
        MPI_CHECK(MPI_Buffer_attach(buf, total));
        for (i = 0; i < NMSG; i++) {
            int *m = malloc((size_t)(lens[i] ? lens[i] : 1) * sizeof(int));
            for (j = 0; j < lens[i]; j++)
                m[j] = i * 100000 + j;
            MPI_CHECK(MPI_Bsend(m, lens[i], MPI_INT, 1, 10 + i, MPI_COMM_WORLD));
            free(m);
        }
        /* The small ones may have left already (their space is reclaimed
         * then), but the 300000-int one cannot complete before rank 1
         * receives it, after the barrier: what is left cannot hold more
         * than the five others together. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        {
            int *big = calloc(46000, sizeof(int));
            EXPECT_CLASS(MPI_Bsend(big, 46000, MPI_INT, 1, 99, MPI_COMM_WORLD), MPI_ERR_BUFFER);
            free(big);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CHECK(MPI_Buffer_detach(&det, &bsize));
        CHECK(det == buf && bsize == total, "detach");
        free(buf);
    } else if (rank == 1) {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        for (i = NMSG - 1; i >= 0; i--) {
            int *m = malloc((size_t)(lens[i] ? lens[i] : 1) * sizeof(int)), cnt;
            MPI_Status st;
            MPI_CHECK(MPI_Recv(m, lens[i], MPI_INT, 0, 10 + i, MPI_COMM_WORLD, &st));
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt == lens[i], "message %d: count %d, expected %d", i, cnt, lens[i]);
            for (j = 0; j < lens[i]; j++)
                CHECK(m[j] == i * 100000 + j, "message %d: m[%d] = %d", i, j, m[j]);
            free(m);
        }
    } else {
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Ibsend, Bsend_init + Start, a vector type, MPI_PROC_NULL. */
static void variants(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, psz, bsize, i, k, flag;
    int mat[8][4], got[8];
    MPI_Datatype col;
    MPI_Request req, preq;
    char *buf;
    void *det;

    MPI_CHECK(MPI_Type_vector(8, 1, 4, MPI_INT, &col));
    MPI_CHECK(MPI_Type_commit(&col));
    MPI_CHECK(MPI_Pack_size(1, col, MPI_COMM_WORLD, &psz));
    bsize = 4 * (psz + MPI_BSEND_OVERHEAD) + 2 * (20000 * 4 + MPI_BSEND_OVERHEAD);
    buf = malloc((size_t)bsize);
    MPI_CHECK(MPI_Buffer_attach(buf, bsize));
    for (i = 0; i < 8; i++)
        for (k = 0; k < 4; k++)
            mat[i][k] = rank * 100 + i * 4 + k;
    /* Ibsend: complete at once (the data is in the attached buffer) */
    MPI_CHECK(MPI_Ibsend(&mat[0][1], 1, col, right, 1, MPI_COMM_WORLD, &req));
    MPI_CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && req == MPI_REQUEST_NULL, "Ibsend request not complete at once");
    MPI_CHECK(MPI_Recv(got, 8, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (i = 0; i < 8; i++)
        CHECK(got[i] == left * 100 + i * 4 + 1, "vector column: got[%d] = %d", i, got[i]);
    /* persistent buffered send, started three times */
    MPI_CHECK(MPI_Bsend_init(&mat[0][2], 1, col, right, 2, MPI_COMM_WORLD, &preq));
    for (k = 0; k < 3; k++) {
        for (i = 0; i < 8; i++)
            mat[i][2] = rank * 1000 + k * 10 + i;
        MPI_CHECK(MPI_Start(&preq));
        MPI_CHECK(MPI_Wait(&preq, MPI_STATUS_IGNORE));
        CHECK(preq != MPI_REQUEST_NULL, "persistent request freed by Wait");
        MPI_CHECK(MPI_Recv(got, 8, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (i = 0; i < 8; i++)
            CHECK(got[i] == left * 1000 + k * 10 + i, "Bsend_init start %d: got[%d] = %d", k, i, got[i]);
    }
    MPI_CHECK(MPI_Request_free(&preq));
    /* MPI_PROC_NULL: nothing is sent, no buffer is used */
    MPI_CHECK(MPI_Bsend(mat, 32, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Ibsend(mat, 32, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    MPI_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_CHECK(MPI_Buffer_detach(&det, &bsize));
    CHECK(det == buf, "detach address");
    free(buf);
    MPI_CHECK(MPI_Type_free(&col));
}

static void errors(void)
{
    char b1[256], b2[256];
    void *det;
    int sz;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* no buffer attached: any Bsend fails with MPI_ERR_BUFFER */
    EXPECT_CLASS(MPI_Bsend(b1, 1, MPI_CHAR, (rank + 1) % size, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Buffer_attach(b1, -1), MPI_ERR_ARG);
    MPI_CHECK(MPI_Buffer_attach(b1, sizeof b1));
    EXPECT_CLASS(MPI_Buffer_attach(b2, sizeof b2), MPI_ERR_BUFFER);
    /* does not fit: 200 bytes + overhead > 256 */
    EXPECT_CLASS(MPI_Bsend(b2, 200, MPI_CHAR, (rank + 1) % size, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Bsend(b2, 1, MPI_CHAR, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Bsend(b2, 1, MPI_CHAR, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT_CLASS(MPI_Bsend(b2, -1, MPI_CHAR, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Bsend(b2, 1, MPI_CHAR, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    MPI_CHECK(MPI_Buffer_detach(&det, &sz));
    CHECK(det == b1 && sz == (int)sizeof b1, "detach");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    ring_exchange(10, 3);
    ring_exchange(200000, 3); /* 1.6 MB: far above any eager limit */
    if (size >= 2)
        many_pending();
    variants();
    errors();
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
