/*
 * mprobe_stress: random interleavings of receives and matched probes. Rank
 * 2k sends NMSG messages (random tags from a small set, random sizes from 0
 * to well above the eager limit, standard and synchronous nonblocking
 * sends) to rank 2k+1, which takes them one step at a time with a random
 * choice of Recv (tag or ANY_TAG), Mprobe / Improbe (tag or ANY_TAG) with
 * Mrecv or Imrecv at once, or Mprobe now and Mrecv several steps later
 * (up to HOLD messages held out of matching at once). Every take must be
 * the oldest message not yet taken that it can match (MPI's non-overtaking
 * order, mprobed messages no longer matchable), and every payload intact.
 * The seed is argv[1], else the environment's MPROBE_SEED, else 1.
 */
#define TEST_NAME "mprobe_stress"
#include "mpi3_test.h"

#define NMSG 200
#define NTAG 3
#define HOLD 3

static int rank, size;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* message i: tag and length, the same on both sides from the seed */
static void plan(unsigned seed, int *tags, int *lens)
{
    unsigned s = seed;
    int i;
    for (i = 0; i < NMSG; i++) {
        int r = (int)rnd(&s) % 10;
        tags[i] = (int)rnd(&s) % NTAG;
        lens[i] = r < 6 ? (int)rnd(&s) % 64 : r < 9 ? (int)rnd(&s) % 4096 : 4096 + (int)rnd(&s) * 2;
    }
}

static int word(int i, int k)
{
    return i * 65537 + k * 3 + 1;
}

static void check_payload(const int *b, int n, int i)
{
    int k;
    CHECK(n >= 1 && b[0] == i, "message %d carries index %d", i, n ? b[0] : -1);
    for (k = 1; k < n; k++)
        CHECK(b[k] == word(i, k), "message %d word %d = %d", i, k, b[k]);
}

int main(int argc, char **argv)
{
    const char *env = getenv("MPROBE_SEED");
    unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : env ? (unsigned)atoi(env) : 1, s;
    int tags[NMSG], lens[NMSG], taken[NMSG] = {0}, i, k;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    plan(seed, tags, lens);
    s = seed * 7919u + (unsigned)rank;
    if (rank % 2 == 0 && rank + 1 < size) {
        MPI_Request *reqs = malloc(NMSG * sizeof(MPI_Request));
        CHECK(reqs, "malloc");
        int **bufs = malloc(NMSG * sizeof(int *));
        for (i = 0; i < NMSG; i++) {
            int n = lens[i] + 1; /* word 0: the message index */
            bufs[i] = malloc((size_t)n * sizeof(int));
            bufs[i][0] = i;
            for (k = 1; k < n; k++)
                bufs[i][k] = word(i, k);
            if (rnd(&s) % 8 == 0)
                MPI_CHECK(MPI_Issend(bufs[i], n, MPI_INT, rank + 1, tags[i], MPI_COMM_WORLD, &reqs[i]));
            else
                MPI_CHECK(MPI_Isend(bufs[i], n, MPI_INT, rank + 1, tags[i], MPI_COMM_WORLD, &reqs[i]));
        }
        MPI_CHECK(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
        for (i = 0; i < NMSG; i++)
            free(bufs[i]);
        free(bufs);
        free(reqs);
    } else if (rank % 2 == 1) {
        MPI_Message held[HOLD];
        int nheld = 0, ntaken = 0, src = rank - 1, maxn = 4096 + 2 * 0x8000 + 1;
        int *b = malloc((size_t)maxn * sizeof(int));
        MPI_Status st;

        while (ntaken < NMSG || nheld) {
            int op = (int)rnd(&s) % 7, tag = rnd(&s) % 2 ? MPI_ANY_TAG : (int)rnd(&s) % NTAG, oldest, cnt;
            MPI_Message m;

            /* the oldest untaken message that `tag` can match; none: wildcard */
            for (oldest = 0; oldest < NMSG && (taken[oldest] || (tag != MPI_ANY_TAG && tags[oldest] != tag));
                 oldest++)
                ;
            if (oldest == NMSG)
                tag = MPI_ANY_TAG;
            for (oldest = 0; oldest < NMSG && (taken[oldest] || (tag != MPI_ANY_TAG && tags[oldest] != tag));
                 oldest++)
                ;
            if (nheld && (oldest == NMSG || op == 6 || nheld == HOLD)) {
                /* receive a held message (a random one of them) */
                int h = (int)rnd(&s) % nheld;
                MPI_CHECK(MPI_Mrecv(b, maxn, MPI_INT, &held[h], &st));
                MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
                check_payload(b, cnt, b[0]);
                CHECK(cnt == lens[b[0]] + 1 && st.MPI_TAG == tags[b[0]], "held message %d", b[0]);
                held[h] = held[--nheld];
                continue;
            }
            if (oldest == NMSG)
                break;
            switch (op) {
            case 0:
            case 1:
                MPI_CHECK(MPI_Recv(b, maxn, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
                break;
            case 2:
            case 3: {
                int flag = 0;
                if (op == 2)
                    MPI_CHECK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &m, &st));
                else
                    while (!flag)
                        MPI_CHECK(MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &m, &st));
                MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
                CHECK(cnt == lens[oldest] + 1 && st.MPI_TAG == tags[oldest],
                      "probe of tag %d found count %d tag %d, expected message %d (count %d tag %d)", tag, cnt,
                      st.MPI_TAG, oldest, lens[oldest] + 1, tags[oldest]);
                if (op == 2) {
                    MPI_CHECK(MPI_Mrecv(b, maxn, MPI_INT, &m, &st));
                } else {
                    MPI_Request r;
                    MPI_CHECK(MPI_Imrecv(b, maxn, MPI_INT, &m, &r));
                    MPI_CHECK(MPI_Wait(&r, &st));
                }
                break;
            }
            default:
                /* mprobe now, receive later */
                MPI_CHECK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &held[nheld], &st));
                MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
                CHECK(cnt == lens[oldest] + 1 && st.MPI_TAG == tags[oldest], "held probe: expected message %d",
                      oldest);
                nheld++;
                taken[oldest] = 1;
                ntaken++;
                continue;
            }
            MPI_CHECK(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK(cnt >= 1 && b[0] == oldest, "took message %d with tag %d, expected %d", cnt ? b[0] : -1, tag,
                  oldest);
            check_payload(b, cnt, oldest);
            CHECK(cnt == lens[oldest] + 1 && st.MPI_SOURCE == src, "message %d status", oldest);
            taken[oldest] = 1;
            ntaken++;
        }
        CHECK(ntaken == NMSG && nheld == 0, "took %d of %d messages", ntaken, NMSG);
        free(b);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
