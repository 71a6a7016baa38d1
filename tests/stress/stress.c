/*
 * tests/stress/stress.c: random point-to-point traffic with a checksum on
 * every payload and a global count at the end (issue 4).
 *
 *   stress [-s SEED] [-t SECONDS] [-r ROUNDS] [-m MAXSIZE]
 *
 * Every rank derives the same plan for each round from the seed: a list of
 * messages (source, destination, communicator, tag, size, send mode, receive
 * kind: named or ANY_SOURCE / ANY_TAG, posted early or late, by Recv, Irecv
 * or Probe + Recv). Each payload carries (round, message id, size) and a
 * checksum; receivers verify them, and each message must arrive exactly once.
 * Between rounds: a cancelled receive, Barrier / Bcast / Allreduce, and a
 * global count of messages sent and received. Prints
 * "stress: R rounds, N messages, B bytes, E errors" on rank 0; exit 1 on any
 * error. Plain MPI: runs with any MPI.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg {
    int src, dst, comm, tag, size, smode, rkind, late;
} msg_t;

static int rank, size;
static long errors;

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void error(const char *what, int round, int id)
{
    fprintf(stderr, "stress: rank %d round %d msg %d: %s\n", rank, round, id, what);
    errors++;
}

static uint32_t checksum(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Payload: [round][id][size][sum] then bytes; small messages carry what fits. */
static void fill(unsigned char *b, int n, int round, int id)
{
    for (int i = 16; i < n; i++)
        b[i] = (unsigned char)(round * 131 + id * 7 + i);
    int hdr[4] = {round, id, n, 0};
    if (n >= 16) {
        hdr[3] = (int)checksum(b + 16, (size_t)n - 16);
        memcpy(b, hdr, 16);
    } else {
        for (int i = 0; i < n; i++)
            b[i] = (unsigned char)(round + id + i);
    }
}

/* Identify and check a received payload; returns the message id or -1. */
static int check(const unsigned char *b, int n, int round, int expect_id)
{
    if (n >= 16) {
        int hdr[4];
        memcpy(hdr, b, 16);
        if (hdr[0] != round || hdr[2] != n || hdr[3] != (int)checksum(b + 16, (size_t)n - 16))
            return -1;
        if (expect_id >= 0 && hdr[1] != expect_id)
            return -1;
        return hdr[1];
    }
    if (expect_id < 0)
        return -2; /* small wildcard payloads cannot be identified: caller counts */
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(round + expect_id + i))
            return -1;
    return expect_id;
}

int main(int argc, char **argv)
{
    long seed = 1, rounds = 1000000, secs = 10, maxsize = 1 << 22;
    long nmsgs = 0, nbytes = 0, sent = 0, received = 0;
    MPI_Comm comms[3];
    double t0;
    int r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-s"))
            seed = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-t"))
            secs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            rounds = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-m"))
            maxsize = atol(argv[i + 1]);
    }
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[2]); /* reversed order */
    t0 = MPI_Wtime();

    for (r = 0; r < rounds; r++) {
        int stop = 0, n;
        if (rank == 0)
            stop = MPI_Wtime() - t0 > (double)secs;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop)
            break;
        rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ull + (uint64_t)r + 1;
        n = 1 + (int)(rng() % (uint64_t)(4 * size));
        msg_t *m = calloc((size_t)n, sizeof(*m));
        unsigned char **sb = calloc((size_t)n, sizeof(*sb)), **rb = calloc((size_t)n, sizeof(*rb));
        MPI_Request *sq = calloc((size_t)n, sizeof(*sq)), *rq = calloc((size_t)n, sizeof(*rq));
        int *seen = calloc((size_t)n, sizeof(int));
        int wild_tag = 1000 + r % 1000;
        for (int i = 0; i < n; i++) {
            int lg = (int)(rng() % 23);
            m[i].src = (int)(rng() % (uint64_t)size);
            m[i].dst = (int)(rng() % (uint64_t)size);
            m[i].comm = (int)(rng() % 3);
            m[i].size = lg == 0 ? 0 : (int)(rng() % (uint64_t)(1L << lg));
            if (m[i].size > maxsize)
                m[i].size = (int)maxsize;
            m[i].smode = (int)(rng() % 4);   /* Send, Isend, Issend, Ssend */
            m[i].rkind = (int)(rng() % 4);   /* named, ANY_SOURCE (wild tag), Probe+Recv, ANY_TAG named */
            m[i].late = (int)(rng() % 2);
            m[i].tag = m[i].rkind == 1 ? wild_tag : i;
            sq[i] = rq[i] = MPI_REQUEST_NULL;
        }
        /* ANY_TAG (named source) only for a message alone on its (src, dst,
         * comm) in the round: otherwise it could take another's message. */
        for (int i = 0; i < n; i++) {
            if (m[i].rkind != 3)
                continue;
            for (int j = 0; j < n; j++)
                if (j != i && m[j].src == m[i].src && m[j].dst == m[i].dst && m[j].comm == m[i].comm)
                    m[i].rkind = 0;
        }
        /* ANY_SOURCE receives of one round share a tag; for them to stay
         * unambiguous per size they all use the largest size of the group. */
        int wild_max = 0;
        for (int i = 0; i < n; i++)
            if (m[i].rkind == 1 && m[i].size > wild_max)
                wild_max = m[i].size;
        int wild_min = wild_max;
        for (int i = 0; i < n; i++)
            if (m[i].rkind == 1)
                m[i].size = wild_max;
        (void)wild_min;
        /* Comm ranks: comm 2 has reversed ranks. */
#define CRANK(c, w) ((c) == 2 ? size - 1 - (w) : (w))
        /* 1. early receives (not Probe kinds) */
        for (int i = 0; i < n; i++) {
            if (m[i].dst != rank || m[i].late || m[i].rkind == 2)
                continue;
            rb[i] = malloc((size_t)m[i].size + 1);
            int src = m[i].rkind == 1 ? MPI_ANY_SOURCE : CRANK(m[i].comm, m[i].src);
            int tag = m[i].rkind == 3 ? MPI_ANY_TAG : m[i].tag;
            if (m[i].rkind == 3)
                src = CRANK(m[i].comm, m[i].src);
            MPI_Irecv(rb[i], m[i].size, MPI_BYTE, src, tag, comms[m[i].comm], &rq[i]);
        }
        /* 2. sends */
        for (int i = 0; i < n; i++) {
            if (m[i].src != rank)
                continue;
            sb[i] = malloc((size_t)m[i].size + 1);
            fill(sb[i], m[i].size, r, i);
            int dst = CRANK(m[i].comm, m[i].dst);
            switch (m[i].smode) {
            case 1: MPI_Isend(sb[i], m[i].size, MPI_BYTE, dst, m[i].tag, comms[m[i].comm], &sq[i]); break;
            case 2: MPI_Issend(sb[i], m[i].size, MPI_BYTE, dst, m[i].tag, comms[m[i].comm], &sq[i]); break;
            default: /* blocking sends would deadlock against unposted receives: make them non-blocking too */
                MPI_Isend(sb[i], m[i].size, MPI_BYTE, dst, m[i].tag, comms[m[i].comm], &sq[i]);
                break;
            }
            sent++;
            nbytes += m[i].size;
        }
        /* 3. late receives and probes */
        for (int i = 0; i < n; i++) {
            if (m[i].dst != rank || rq[i] != MPI_REQUEST_NULL)
                continue;
            if (!rb[i])
                rb[i] = malloc((size_t)m[i].size + 1);
            int src = m[i].rkind == 1 ? MPI_ANY_SOURCE : CRANK(m[i].comm, m[i].src);
            int tag = m[i].rkind == 3 ? MPI_ANY_TAG : m[i].tag;
            if (m[i].rkind == 2) {
                MPI_Status st;
                int cnt;
                MPI_Probe(src, tag, comms[m[i].comm], &st);
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (cnt != m[i].size)
                    error("probe count", r, i);
                MPI_Recv(rb[i], m[i].size, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comms[m[i].comm], MPI_STATUS_IGNORE);
                int id = check(rb[i], m[i].size, r, i);
                if (id != i)
                    error("probed payload", r, i);
                seen[i]++;
                received++;
            } else {
                MPI_Irecv(rb[i], m[i].size, MPI_BYTE, src, tag, comms[m[i].comm], &rq[i]);
            }
        }
        /* 4. complete and check */
        for (int i = 0; i < n; i++) {
            if (rq[i] == MPI_REQUEST_NULL)
                continue;
            MPI_Status st;
            MPI_Wait(&rq[i], &st);
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if (cnt != m[i].size) {
                error("count", r, i);
                continue;
            }
            if (m[i].rkind == 1) {
                int id = check(rb[i], cnt, r, -1);
                if (id == -1 || (id >= 0 && (id >= n || m[id].dst != rank || m[id].rkind != 1)))
                    error("wildcard payload", r, i);
                else if (id >= 0)
                    seen[id]++;
                else
                    seen[i]++; /* small: counted by number */
            } else {
                if (check(rb[i], cnt, r, i) != i || st.MPI_TAG != m[i].tag)
                    error("payload", r, i);
                seen[i]++;
            }
            received++;
        }
        for (int i = 0; i < n; i++) {
            if (m[i].dst == rank && seen[i] != 1 && !(m[i].rkind == 1 && m[i].size < 16))
                error(seen[i] ? "delivered twice" : "lost", r, i);
        }
        MPI_Waitall(n, sq, MPI_STATUSES_IGNORE);
        /* a receive that never matches, cancelled */
        {
            MPI_Request cr;
            MPI_Status st;
            int flag, dummy;
            MPI_Irecv(&dummy, 1, MPI_INT, (rank + 1) % size, 999999, MPI_COMM_WORLD, &cr);
            MPI_Cancel(&cr);
            MPI_Wait(&cr, &st);
            MPI_Test_cancelled(&st, &flag);
            if (!flag)
                error("cancel", r, -1);
        }
        for (int i = 0; i < n; i++) {
            free(sb[i]);
            free(rb[i]);
        }
        nmsgs += n;
        free(m);
        free(sb);
        free(rb);
        free(sq);
        free(rq);
        free(seen);
        if (r % 16 == 15) {
            long c[2] = {sent, received}, g[2];
            MPI_Allreduce(c, g, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (g[0] != g[1] && rank == 0)
                error("global count mismatch", r, -1);
        }
    }
    {
        long c[3] = {sent, received, errors}, g[3], b = 0;
        MPI_Allreduce(c, g, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(&nbytes, &b, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("stress: %d rounds, %ld messages sent, %ld received, %ld bytes, %ld errors\n", r, g[0], g[1], b,
                   g[2] + (g[0] != g[1]));
        errors = g[2] + (g[0] != g[1]);
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    MPI_Finalize();
    (void)nmsgs;
    return errors ? 1 : 0;
}
