/*
 * comm: communicator management. Comm_dup (messages on the duplicate never
 * match receives on the original, in either direction), Comm_split (colors,
 * keys that reverse the order, MPI_UNDEFINED giving MPI_COMM_NULL, equal
 * keys ordered by old rank), nested splits, Comm_compare (IDENT, CONGRUENT,
 * SIMILAR, UNEQUAL), Comm_free, MPI_COMM_SELF (send to self), rank/size,
 * Comm_test_inter, names, MPI_TAG_UB (and a message using that tag), and
 * many dup/free cycles. Collectives on the new communicators check their
 * membership.
 */
#define TEST_NAME "comm"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;

static void check_rank_size(MPI_Comm c, int erank, int esize, const char *what)
{
    int r = -1, s = -1;
    MPI_CHECK(MPI_Comm_rank(c, &r));
    MPI_CHECK(MPI_Comm_size(c, &s));
    CHECK(r == erank && s == esize, "%s: rank/size %d/%d, expected %d/%d", what, r, s, erank, esize);
}

static int compare(MPI_Comm a, MPI_Comm b)
{
    int res = -1;
    MPI_CHECK(MPI_Comm_compare(a, b, &res));
    return res;
}

/* ring over comm carrying world ranks: checks the rank mapping */
static void ring_check(MPI_Comm c, const int *world_of, const char *what)
{
    int r, s, out = rank, in = -1;
    MPI_Status st;
    MPI_CHECK(MPI_Comm_rank(c, &r));
    MPI_CHECK(MPI_Comm_size(c, &s));
    int right = (r + 1) % s, left = (r + s - 1) % s;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, MPI_ANY_SOURCE, 3, c, &st));
    CHECK(st.MPI_SOURCE == left, "%s: ring message from %d, expected %d", what, st.MPI_SOURCE, left);
    CHECK(in == world_of[left], "%s: left neighbour (rank %d here) is world rank %d, expected %d", what, left,
          in, world_of[left]);
}

static void dup_isolation(void)
{
    MPI_Comm dup, dup2;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    check_rank_size(dup, rank, size, "Comm_dup");
    CHECK(compare(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "compare(world, world) not IDENT");
    CHECK(compare(dup, dup) == MPI_IDENT, "compare(dup, dup) not IDENT");
    CHECK(compare(MPI_COMM_WORLD, dup) == MPI_CONGRUENT, "compare(world, dup) is %d, not CONGRUENT",
          compare(MPI_COMM_WORLD, dup));
    MPI_CHECK(MPI_Comm_dup(dup, &dup2));
    CHECK(compare(dup, dup2) == MPI_CONGRUENT, "compare(dup, dup of dup) not CONGRUENT");

    /* same (source, tag) on three communicators, sent dup2, dup, world;
     * received world, dup, dup2 with wildcards: each gets its own */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[3] = {1000 + rank, 2000 + rank, 3000 + rank}, in[3] = {-1, -1, -1};
    MPI_Request rq[3];
    MPI_Status st;
    MPI_CHECK(MPI_Isend(&out[2], 1, MPI_INT, right, 7, dup2, &rq[2]));
    MPI_CHECK(MPI_Isend(&out[1], 1, MPI_INT, right, 7, dup, &rq[1]));
    MPI_CHECK(MPI_Isend(&out[0], 1, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[0]));
    MPI_CHECK(MPI_Recv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(in[0] == 1000 + left && st.MPI_SOURCE == left,
          "world receive got %d (a message of another communicator?)", in[0]);
    MPI_CHECK(MPI_Recv(&in[1], 1, MPI_INT, left, 7, dup, &st));
    CHECK(in[1] == 2000 + left, "dup receive got %d", in[1]);
    MPI_CHECK(MPI_Recv(&in[2], 1, MPI_INT, MPI_ANY_SOURCE, 7, dup2, &st));
    CHECK(in[2] == 3000 + left, "dup2 receive got %d", in[2]);
    MPI_CHECK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));

    /* receives pre-posted on the duplicate, message sent on world first */
    int a = -1, b = -1, oa = 10 + rank, ob = 20 + rank;
    MPI_Request r2[4];
    MPI_CHECK(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &r2[0]));
    MPI_CHECK(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r2[1]));
    MPI_CHECK(MPI_Isend(&ob, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &r2[2]));
    MPI_CHECK(MPI_Isend(&oa, 1, MPI_INT, right, 1, dup, &r2[3]));
    MPI_CHECK(MPI_Waitall(4, r2, MPI_STATUSES_IGNORE));
    CHECK(a == 10 + left && b == 20 + left, "pre-posted on dup/world got %d/%d", a, b);

    /* collectives on the duplicate */
    int sum = -1;
    MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup2));
    CHECK(sum == size * (size - 1) / 2, "Allreduce on a dup: %d", sum);

    MPI_CHECK(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL, "Comm_free did not set the handle to MPI_COMM_NULL");
    MPI_CHECK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not set the handle to MPI_COMM_NULL");
}

static void split_tests(void)
{
    int *world_of = malloc(sizeof(int) * size);
    CHECK(world_of, "out of memory");

    /* colors rank % 3, key -rank: reversed order inside each color */
    MPI_Comm c3;
    int color = rank % 3;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &c3));
    int members = 0, above = 0;
    for (int r = 0; r < size; r++)
        if (r % 3 == color) {
            members++;
            if (r > rank)
                above++;
        }
    check_rank_size(c3, above, members, "split(rank%3, -rank)");
    for (int r = size - 1, k = 0; r >= 0; r--)
        if (r % 3 == color)
            world_of[k++] = r;
    ring_check(c3, world_of, "split(rank%3, -rank)");
    int sum = -1, expect = 0;
    for (int r = color; r < size; r += 3)
        expect += r;
    MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c3));
    CHECK(sum == expect, "Allreduce on split: %d, expected %d", sum, expect);
    if (size > 3)
        CHECK(compare(c3, MPI_COMM_WORLD) == MPI_UNEQUAL, "compare(split by 3, world) not UNEQUAL");

    /* one color, the same key everywhere: old order, congruent to world */
    MPI_Comm same;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &same));
    check_rank_size(same, rank, size, "split(5, 0)");
    CHECK(compare(same, MPI_COMM_WORLD) == MPI_CONGRUENT,
          "compare(split(one color), world) is %d, not CONGRUENT", compare(same, MPI_COMM_WORLD));

    /* one color, reversed keys: same group, other order -> SIMILAR */
    MPI_Comm rev;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    check_rank_size(rev, size - 1 - rank, size, "split(0, size-rank)");
    for (int k = 0; k < size; k++)
        world_of[k] = size - 1 - k;
    ring_check(rev, world_of, "reversed split");
    CHECK(compare(rev, MPI_COMM_WORLD) == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT),
          "compare(reversed, world) is %d", compare(rev, MPI_COMM_WORLD));

    /* MPI_UNDEFINED: every rank % 4 == 3 gets MPI_COMM_NULL */
    MPI_Comm part;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 4 == 3 ? MPI_UNDEFINED : 1, rank, &part));
    if (rank % 4 == 3) {
        CHECK(part == MPI_COMM_NULL, "split with MPI_UNDEFINED did not give MPI_COMM_NULL");
    } else {
        int n = 0, me = 0;
        for (int r = 0; r < size; r++)
            if (r % 4 != 3) {
                if (r < rank)
                    me++;
                world_of[n++] = r;
            }
        check_rank_size(part, me, n, "split with some MPI_UNDEFINED");
        ring_check(part, world_of, "split with some MPI_UNDEFINED");
        MPI_CHECK(MPI_Comm_free(&part));
    }

    /* nested: halves by parity, then each half split by (rank/2) % 2 */
    MPI_Comm half, quarter;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    int hr, hs;
    MPI_CHECK(MPI_Comm_rank(half, &hr));
    MPI_CHECK(MPI_Comm_size(half, &hs));
    CHECK(hr == rank / 2 && hs == (size - rank % 2 + 1) / 2, "parity split rank/size %d/%d", hr, hs);
    MPI_CHECK(MPI_Comm_split(half, hr % 2, -hr, &quarter));
    {
        int n = 0;
        for (int r = size - 1; r >= 0; r--)
            if (r % 2 == rank % 2 && (r / 2) % 2 == hr % 2)
                world_of[n++] = r;
        int me = 0;
        while (world_of[me] != rank)
            me++;
        check_rank_size(quarter, me, n, "nested split");
        ring_check(quarter, world_of, "nested split");
        int s = -1, e = 0;
        for (int k = 0; k < n; k++)
            e += world_of[k];
        MPI_CHECK(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, quarter));
        CHECK(s == e, "Allreduce on nested split: %d, expected %d", s, e);
    }
    if (size > 1)
        CHECK(compare(half, MPI_COMM_WORLD) == MPI_UNEQUAL, "compare(half, world) not UNEQUAL");
    MPI_Comm half_dup;
    MPI_CHECK(MPI_Comm_dup(half, &half_dup));
    CHECK(compare(half, half_dup) == MPI_CONGRUENT, "compare(half, dup of half) not CONGRUENT");
    MPI_CHECK(MPI_Comm_free(&half_dup));
    MPI_CHECK(MPI_Comm_free(&quarter));
    MPI_CHECK(MPI_Comm_free(&half));
    MPI_CHECK(MPI_Comm_free(&rev));
    MPI_CHECK(MPI_Comm_free(&same));
    MPI_CHECK(MPI_Comm_free(&c3));
    free(world_of);
}

static void self_tests(void)
{
    check_rank_size(MPI_COMM_SELF, 0, 1, "MPI_COMM_SELF");
    int out[3] = {rank, 2, 3}, in[3] = {0};
    MPI_Request rq;
    MPI_Status st;
    MPI_CHECK(MPI_Isend(out, 3, MPI_INT, 0, 4, MPI_COMM_SELF, &rq));
    MPI_CHECK(MPI_Recv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
    MPI_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(in[0] == rank && in[2] == 3 && st.MPI_SOURCE == 0 && st.MPI_TAG == 4,
          "send to self on MPI_COMM_SELF");
    memset(in, 0, sizeof in);
    MPI_CHECK(MPI_Sendrecv(out, 3, MPI_INT, 0, 5, in, 3, MPI_INT, 0, 5, MPI_COMM_SELF, &st));
    CHECK(in[0] == rank && in[1] == 2, "Sendrecv on MPI_COMM_SELF");
    CHECK(compare(MPI_COMM_SELF, MPI_COMM_SELF) == MPI_IDENT, "compare(self, self) not IDENT");
    CHECK(compare(MPI_COMM_SELF, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
          "compare(self, world) is %d", compare(MPI_COMM_SELF, MPI_COMM_WORLD));
    MPI_Comm sd;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &sd));
    CHECK(compare(sd, MPI_COMM_SELF) == MPI_CONGRUENT, "compare(dup of self, self) not CONGRUENT");
    int v = rank, r = -1;
    MPI_CHECK(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, sd));
    CHECK(r == rank, "Allreduce on a dup of MPI_COMM_SELF: %d", r);
    MPI_CHECK(MPI_Comm_free(&sd));
    /* split of SELF */
    MPI_CHECK(MPI_Comm_split(MPI_COMM_SELF, 0, 0, &sd));
    check_rank_size(sd, 0, 1, "split of MPI_COMM_SELF");
    MPI_CHECK(MPI_Comm_free(&sd));
}

static void attrs_names(void)
{
    int *ub = NULL, flag = 0, inter = 1;
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && ub != NULL, "MPI_TAG_UB attribute not set");
    CHECK(*ub >= 32767, "MPI_TAG_UB %d < 32767", *ub);
    /* a message with tag MPI_TAG_UB */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out = rank, in = -1;
    MPI_Status st;
    MPI_CHECK(
        MPI_Sendrecv(&out, 1, MPI_INT, right, *ub, &in, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(in == left && st.MPI_TAG == *ub, "message with tag MPI_TAG_UB: %d tag %d", in, st.MPI_TAG);
    MPI_CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
    CHECK(!inter, "MPI_COMM_WORLD is an intercommunicator?");

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "name of MPI_COMM_WORLD is \"%s\" (%d)", name,
          len);
    MPI_CHECK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "name of MPI_COMM_SELF is \"%s\"", name);
    MPI_Comm d;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_CHECK(MPI_Comm_set_name(d, "mbmpi test comm"));
    MPI_CHECK(MPI_Comm_get_name(d, name, &len));
    CHECK(strcmp(name, "mbmpi test comm") == 0 && len == 15, "set/get name gave \"%s\" (%d)", name, len);
    MPI_CHECK(MPI_Comm_free(&d));
}

/* create and free many communicators (most of them duplicates of
 * MPI_COMM_SELF, which need no messages); each must work */
static void many_dups(void)
{
    enum { NKEEP = 4 };
    MPI_Comm keep[NKEEP];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 80; i++) {
        MPI_Comm d;
        int out = i * 100 + rank, in = -1;
        int world = i % 10 == 1;
        MPI_CHECK(MPI_Comm_dup(world ? MPI_COMM_WORLD : MPI_COMM_SELF, &d));
        if (world) {
            MPI_CHECK(
                MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, d, MPI_STATUS_IGNORE));
            CHECK(in == i * 100 + left, "dup #%d: got %d", i, in);
        } else {
            MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, d, MPI_STATUS_IGNORE));
            CHECK(in == out, "self dup #%d: got %d", i, in);
        }
        if (i % 20 == 1)
            keep[i / 20] = d;
        else
            MPI_CHECK(MPI_Comm_free(&d));
    }
    /* the kept ones still work, and do not see each other's messages */
    MPI_Request rq[NKEEP];
    int outs[NKEEP], ins[NKEEP];
    for (int k = 0; k < NKEEP; k++) {
        outs[k] = k * 7 + rank;
        MPI_CHECK(MPI_Isend(&outs[k], 1, MPI_INT, right, 0, keep[k], &rq[k]));
    }
    for (int k = NKEEP - 1; k >= 0; k--) {
        MPI_CHECK(MPI_Recv(&ins[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, keep[k], MPI_STATUS_IGNORE));
        CHECK(ins[k] == k * 7 + left, "kept dup %d got %d", k, ins[k]);
    }
    MPI_CHECK(MPI_Waitall(NKEEP, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NKEEP; k++)
        MPI_CHECK(MPI_Comm_free(&keep[k]));
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;

    dup_isolation();
    split_tests();
    self_tests();
    attrs_names();
    many_dups();

    MPI_CHECK(MPI_Finalize());
    return 0;
}
