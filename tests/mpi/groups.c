/*
 * groups: process groups and the types added with them. Comm_group of
 * MPI_COMM_WORLD / MPI_COMM_SELF / split communicators; Group_size, _rank
 * (MPI_UNDEFINED outside), _incl, _excl, _range_incl, _range_excl (negative
 * strides, several triplets), _translate_ranks (MPI_PROC_NULL, non-members),
 * _compare (IDENT, SIMILAR, UNEQUAL), _union, _intersection, _difference
 * (orders as the standard gives them, empty results), _free; Comm_create
 * with a reordered group, a subset (others get MPI_COMM_NULL), disjoint
 * groups passed by different processes, MPI_GROUP_EMPTY, and over a split
 * communicator, each new communicator checked with a ring and an Allreduce.
 * Then subarray types (C and Fortran order, 2D and 3D, count 2, partial
 * receives with Get_count / Get_elements) and indexed_block /
 * hindexed_block types sent around a ring, with envelope / contents and
 * type name checks. Some errors are checked under MPI_ERRORS_RETURN.
 */
#define TEST_NAME "groups"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK g_rank
#include "check.h"

static int g_rank = -1;
static int rank, size;

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static int gsize(MPI_Group g)
{
    int n = -1;
    MPI_CHECK(MPI_Group_size(g, &n));
    return n;
}

static int grank(MPI_Group g)
{
    int r = -5;
    MPI_CHECK(MPI_Group_rank(g, &r));
    return r;
}

static int gcompare(MPI_Group a, MPI_Group b)
{
    int res = -1;
    MPI_CHECK(MPI_Group_compare(a, b, &res));
    return res;
}

/* MPI_GROUP_EMPTY may come back from any constructor; free only real ones */
static void gfree(MPI_Group *g)
{
    if (*g != MPI_GROUP_EMPTY) {
        MPI_CHECK(MPI_Group_free(g));
        CHECK(*g == MPI_GROUP_NULL, "Group_free did not set the handle to MPI_GROUP_NULL");
    }
    *g = MPI_GROUP_NULL;
}

/* The members of g as world ranks, via translate_ranks to world's group. */
static void members(MPI_Group g, MPI_Group world, int *out)
{
    int n = gsize(g);
    int *in = malloc(sizeof(int) * (n ? n : 1));
    CHECK(in, "out of memory");
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_CHECK(MPI_Group_translate_ranks(g, n, in, world, out));
    free(in);
}

/* g must hold exactly the world ranks want[0..n-1] in that order, and this
 * process must have the matching rank (MPI_UNDEFINED if absent). */
static void expect_group(MPI_Group g, MPI_Group world, const int *want, int n, const char *what)
{
    int *got = malloc(sizeof(int) * (n ? n : 1)), me = MPI_UNDEFINED;
    CHECK(got, "out of memory");
    CHECK(gsize(g) == n, "%s: size %d, expected %d", what, gsize(g), n);
    members(g, world, got);
    for (int i = 0; i < n; i++) {
        CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i], want[i]);
        if (want[i] == rank)
            me = i;
    }
    CHECK(grank(g) == me, "%s: Group_rank %d, expected %d", what, grank(g), me);
    free(got);
}

/* ring over comm carrying world ranks: the new ranks follow world_of */
static void ring_check(MPI_Comm c, const int *world_of, int n, const char *what)
{
    int r, s, out = rank, in = -1, sum = -1, expect = 0;
    MPI_Status st;
    MPI_CHECK(MPI_Comm_rank(c, &r));
    MPI_CHECK(MPI_Comm_size(c, &s));
    CHECK(s == n, "%s: size %d, expected %d", what, s, n);
    CHECK(world_of[r] == rank, "%s: rank %d, but that is world rank %d", what, r, world_of[r]);
    int right = (r + 1) % s, left = (r + s - 1) % s;
    MPI_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, MPI_ANY_SOURCE, 3, c, &st));
    CHECK(st.MPI_SOURCE == left, "%s: ring message from %d, expected %d", what, st.MPI_SOURCE, left);
    CHECK(in == world_of[left], "%s: left neighbour is world rank %d, expected %d", what, in, world_of[left]);
    for (int i = 0; i < n; i++)
        expect += world_of[i];
    MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == expect, "%s: Allreduce %d, expected %d", what, sum, expect);
    /* the communicator's group is the group it was made from */
    {
        MPI_Group cg, wg;
        int *got = malloc(sizeof(int) * n);
        CHECK(got, "out of memory");
        MPI_CHECK(MPI_Comm_group(c, &cg));
        MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        members(cg, wg, got);
        for (int i = 0; i < n; i++)
            CHECK(got[i] == world_of[i], "%s: Comm_group member %d is %d, expected %d", what, i, got[i],
                  world_of[i]);
        gfree(&cg);
        gfree(&wg);
        free(got);
    }
}

/* ------------------------------------------------------------------ */
/* groups                                                              */

static void group_basics(void)
{
    MPI_Group world, self, w2;
    int *all = malloc(sizeof(int) * size), *tmp = malloc(sizeof(int) * size),
        *out = malloc(sizeof(int) * size);
    CHECK(all && tmp && out, "out of memory");
    for (int i = 0; i < size; i++)
        all[i] = i;

    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK(gsize(world) == size, "world group size %d", gsize(world));
    CHECK(grank(world) == rank, "world group rank %d", grank(world));
    expect_group(world, world, all, size, "Comm_group(world)");
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &w2));
    CHECK(gcompare(world, w2) == MPI_IDENT, "two world groups not IDENT");
    CHECK(gcompare(world, world) == MPI_IDENT, "compare(world, world) not IDENT");
    gfree(&w2);

    MPI_CHECK(MPI_Comm_group(MPI_COMM_SELF, &self));
    expect_group(self, world, &rank, 1, "Comm_group(self)");
    if (size > 1)
        CHECK(gcompare(self, world) == MPI_UNEQUAL, "compare(self, world) not UNEQUAL");

    /* MPI_GROUP_EMPTY */
    CHECK(gsize(MPI_GROUP_EMPTY) == 0, "MPI_GROUP_EMPTY has size %d", gsize(MPI_GROUP_EMPTY));
    CHECK(grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY is %d", grank(MPI_GROUP_EMPTY));
    CHECK(gcompare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY) == MPI_IDENT, "compare(empty, empty) not IDENT");
    CHECK(gcompare(MPI_GROUP_EMPTY, world) == MPI_UNEQUAL, "compare(empty, world) not UNEQUAL");

    /* incl: reversed order */
    MPI_Group rev, rev2, evens, odds, g;
    for (int i = 0; i < size; i++)
        tmp[i] = size - 1 - i;
    MPI_CHECK(MPI_Group_incl(world, size, tmp, &rev));
    expect_group(rev, world, tmp, size, "incl(reversed)");
    CHECK(gcompare(rev, world) == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "compare(reversed, world) is %d",
          gcompare(rev, world));
    /* range_incl with a negative stride gives the same */
    {
        int r1[1][3] = {{size - 1, 0, -1}};
        MPI_CHECK(MPI_Group_range_incl(world, 1, r1, &rev2));
        CHECK(gcompare(rev, rev2) == MPI_IDENT, "range_incl(size-1, 0, -1) differs from incl(reversed)");
        gfree(&rev2);
    }
    /* translate: world -> reversed, with MPI_PROC_NULL mixed in */
    {
        int in[3] = {0, MPI_PROC_NULL, size - 1}, tr[3] = {-7, -7, -7};
        MPI_CHECK(MPI_Group_translate_ranks(world, 3, in, rev, tr));
        CHECK(tr[0] == size - 1 && tr[1] == MPI_PROC_NULL && tr[2] == 0, "translate world->rev: %d %d %d",
              tr[0], tr[1], tr[2]);
    }

    /* excl: the even group ranks out leaves the odd ones, in order */
    int ne = 0, no = 0;
    for (int i = 0; i < size; i++) {
        if (i % 2 == 0)
            tmp[ne++] = i;
    }
    MPI_CHECK(MPI_Group_excl(world, ne, tmp, &odds));
    for (int i = 1; i < size; i += 2)
        out[no++] = i;
    expect_group(odds, world, out, no, "excl(evens)");
    /* range_incl(0, size-1, 2): the evens */
    {
        int r1[1][3] = {{0, size - 1, 2}};
        MPI_CHECK(MPI_Group_range_incl(world, 1, r1, &evens));
        expect_group(evens, world, tmp, ne, "range_incl(0, size-1, 2)");
        /* range_excl of the same triplet: the odds */
        MPI_CHECK(MPI_Group_range_excl(world, 1, r1, &g));
        CHECK(gcompare(g, odds) == MPI_IDENT, "range_excl(evens) differs from excl(evens)");
        gfree(&g);
    }
    if (size > 1)
        CHECK(gcompare(evens, world) == MPI_UNEQUAL, "compare(evens, world) not UNEQUAL");
    /* translate world -> evens: odd ranks are not members */
    {
        MPI_CHECK(MPI_Group_translate_ranks(world, size, all, evens, out));
        for (int i = 0; i < size; i++)
            CHECK(out[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate world->evens: %d -> %d", i, out[i]);
        MPI_CHECK(MPI_Group_translate_ranks(world, 0, all, evens, out));
    }

    /* several triplets: the last rank, then 0, 1 (if they are distinct) */
    if (size >= 3) {
        int r3[2][3] = {{size - 1, size - 1, 1}, {0, 1, 1}};
        int want[3] = {size - 1, 0, 1};
        MPI_CHECK(MPI_Group_range_incl(world, 2, r3, &g));
        expect_group(g, world, want, 3, "range_incl(two triplets)");
        gfree(&g);
        /* exclusion keeps the original order */
        MPI_CHECK(MPI_Group_range_excl(world, 2, r3, &g));
        int n = 0;
        for (int i = 2; i < size - 1; i++)
            out[n++] = i;
        expect_group(g, world, out, n, "range_excl(two triplets)");
        gfree(&g);
    }
    /* stride larger than the range: just the first */
    {
        int r1[1][3] = {{0, size - 1, size + 5}};
        MPI_CHECK(MPI_Group_range_incl(world, 1, r1, &g));
        int zero = 0;
        expect_group(g, world, &zero, 1, "range_incl(0, size-1, size+5)");
        gfree(&g);
    }

    /* set operations */
    MPI_CHECK(MPI_Group_union(evens, odds, &g));
    {
        int n = 0;
        for (int i = 0; i < size; i += 2)
            out[n++] = i;
        for (int i = 1; i < size; i += 2)
            out[n++] = i;
        expect_group(g, world, out, size, "union(evens, odds)");
        CHECK(gcompare(g, world) == (size > 2 ? MPI_SIMILAR : MPI_IDENT), "compare(union, world) %d",
              gcompare(g, world));
        gfree(&g);
    }
    /* union keeps group1's order, then group2's new members in group2's order */
    MPI_CHECK(MPI_Group_union(odds, rev, &g));
    {
        int n = 0;
        for (int i = 1; i < size; i += 2)
            out[n++] = i;
        for (int i = size - 1; i >= 0; i--)
            if (i % 2 == 0)
                out[n++] = i;
        expect_group(g, world, out, size, "union(odds, reversed)");
        gfree(&g);
    }
    MPI_CHECK(MPI_Group_union(world, world, &g));
    CHECK(gcompare(g, world) == MPI_IDENT, "union(world, world) not IDENT");
    gfree(&g);
    MPI_CHECK(MPI_Group_intersection(evens, odds, &g));
    CHECK(gsize(g) == 0 && grank(g) == MPI_UNDEFINED, "intersection(evens, odds) not empty");
    CHECK(gcompare(g, MPI_GROUP_EMPTY) == MPI_IDENT,
          "intersection(evens, odds) not IDENT to MPI_GROUP_EMPTY");
    gfree(&g);
    /* intersection keeps group1's order */
    MPI_CHECK(MPI_Group_intersection(rev, evens, &g));
    {
        int n = 0;
        for (int i = size - 1; i >= 0; i--)
            if (i % 2 == 0)
                out[n++] = i;
        expect_group(g, world, out, n, "intersection(reversed, evens)");
        gfree(&g);
    }
    MPI_CHECK(MPI_Group_difference(world, evens, &g));
    CHECK(gcompare(g, odds) == MPI_IDENT, "difference(world, evens) differs from the odds");
    gfree(&g);
    MPI_CHECK(MPI_Group_difference(rev, odds, &g));
    {
        int n = 0;
        for (int i = size - 1; i >= 0; i--)
            if (i % 2 == 0)
                out[n++] = i;
        expect_group(g, world, out, n, "difference(reversed, odds)");
        gfree(&g);
    }
    MPI_CHECK(MPI_Group_difference(world, world, &g));
    CHECK(gsize(g) == 0, "difference(world, world) has size %d", gsize(g));
    gfree(&g);
    MPI_CHECK(MPI_Group_union(MPI_GROUP_EMPTY, self, &g));
    CHECK(gcompare(g, self) == MPI_IDENT, "union(empty, self) not IDENT to self");
    gfree(&g);

    /* zero-length incl is MPI_GROUP_EMPTY; zero-length excl is the group */
    MPI_CHECK(MPI_Group_incl(world, 0, NULL, &g));
    CHECK(g == MPI_GROUP_EMPTY, "incl of no ranks is not MPI_GROUP_EMPTY");
    gfree(&g);
    MPI_CHECK(MPI_Group_excl(world, 0, NULL, &g));
    CHECK(gcompare(g, world) == MPI_IDENT, "excl of no ranks not IDENT to the group");
    gfree(&g);
    /* subgroups of subgroups: incl on the reversed group */
    if (size >= 2) {
        int pick[2] = {1, 0}, want[2] = {size - 2, size - 1};
        MPI_CHECK(MPI_Group_incl(rev, 2, pick, &g));
        expect_group(g, world, want, 2, "incl({1, 0}) of reversed");
        int tr[2];
        MPI_CHECK(MPI_Group_translate_ranks(g, 2, (int[]){0, 1}, rev, tr));
        CHECK(tr[0] == 1 && tr[1] == 0, "translate back to reversed: %d %d", tr[0], tr[1]);
        gfree(&g);
    }

    /* many groups made and freed */
    for (int i = 0; i < 200; i++) {
        MPI_Group a, b;
        MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &a));
        MPI_CHECK(MPI_Group_incl(a, 1, &all[i % size], &b));
        CHECK(gsize(b) == 1, "incl of one rank has size %d", gsize(b));
        gfree(&a);
        gfree(&b);
    }

    gfree(&rev);
    gfree(&evens);
    gfree(&odds);
    gfree(&self);
    gfree(&world);
    free(all);
    free(tmp);
    free(out);
}

static void group_errors(void)
{
    MPI_Group world, g = MPI_GROUP_NULL;
    int n, cls, rc;
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));

    rc = MPI_Group_size(MPI_GROUP_NULL, &n);
    MPI_CHECK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_GROUP, "Group_size(MPI_GROUP_NULL): class %d, expected MPI_ERR_GROUP", cls);
    {
        int bad[1] = {size};
        int out[1];
        rc = MPI_Group_translate_ranks(world, 1, bad, world, out);
        MPI_CHECK(MPI_Error_class(rc, &cls));
        CHECK(cls == MPI_ERR_RANK, "translate_ranks(rank size): class %d, expected MPI_ERR_RANK", cls);
        rc = MPI_Group_incl(world, 1, bad, &g);
        CHECK(rc != MPI_SUCCESS, "Group_incl with rank %d succeeded", size);
        int r1[1][3] = {{0, 0, 0}};
        rc = MPI_Group_range_incl(world, 1, r1, &g);
        CHECK(rc != MPI_SUCCESS, "Group_range_incl with stride 0 succeeded");
        int r2[1][3] = {{0, size, 1}};
        rc = MPI_Group_range_excl(world, 1, r2, &g);
        CHECK(rc != MPI_SUCCESS, "Group_range_excl past the last rank succeeded");
    }
    CHECK(g == MPI_GROUP_NULL, "a failed group constructor changed its output");
    MPI_CHECK(MPI_Group_free(&world));
    rc = MPI_Group_free(&world);
    CHECK(rc != MPI_SUCCESS, "Group_free(MPI_GROUP_NULL) succeeded");
    rc = MPI_Comm_group(MPI_COMM_NULL, &g);
    MPI_CHECK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_COMM, "Comm_group(MPI_COMM_NULL): class %d, expected MPI_ERR_COMM", cls);
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* ------------------------------------------------------------------ */
/* Comm_create                                                         */

static void comm_create_tests(void)
{
    MPI_Group world, g;
    MPI_Comm c;
    int *w = malloc(sizeof(int) * size);
    CHECK(w, "out of memory");
    MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));

    /* the whole world, reversed: the group's order gives the new ranks */
    for (int i = 0; i < size; i++)
        w[i] = size - 1 - i;
    MPI_CHECK(MPI_Group_incl(world, size, w, &g));
    MPI_CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    CHECK(c != MPI_COMM_NULL, "Comm_create(reversed world) gave MPI_COMM_NULL");
    ring_check(c, w, size, "Comm_create(reversed)");
    {
        int res;
        MPI_CHECK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
        CHECK(res == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare(created reversed, world) is %d", res);
    }
    MPI_CHECK(MPI_Comm_free(&c));
    gfree(&g);

    /* the evens, in world order; the odds get MPI_COMM_NULL */
    {
        int r1[1][3] = {{0, size - 1, 2}}, n = 0;
        MPI_CHECK(MPI_Group_range_incl(world, 1, r1, &g));
        for (int i = 0; i < size; i += 2)
            w[n++] = i;
        MPI_CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
        if (rank % 2) {
            CHECK(c == MPI_COMM_NULL, "an odd rank got a communicator of the evens");
        } else {
            CHECK(c != MPI_COMM_NULL, "an even rank got MPI_COMM_NULL");
            ring_check(c, w, n, "Comm_create(evens)");
            MPI_CHECK(MPI_Comm_free(&c));
        }
        gfree(&g);
    }

    /* disjoint groups passed by different processes (MPI 3.1 section 6.4.2):
     * ranks % 3 == k pass the group of those ranks, in reverse */
    {
        int k = rank % 3, n = 0;
        for (int i = size - 1; i >= 0; i--)
            if (i % 3 == k)
                w[n++] = i;
        MPI_CHECK(MPI_Group_incl(world, n, w, &g));
        MPI_CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
        CHECK(c != MPI_COMM_NULL, "Comm_create(disjoint groups) gave MPI_COMM_NULL");
        ring_check(c, w, n, "Comm_create(disjoint groups)");
        /* messages stay inside each new communicator */
        int v = k == 0 ? 1000 + rank : -1, root_world = w[0];
        MPI_CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, c));
        if (k == 0)
            CHECK(v == 1000 + root_world, "Bcast on a created communicator: %d", v);
        MPI_CHECK(MPI_Comm_free(&c));
        gfree(&g);
    }

    /* MPI_GROUP_EMPTY: nobody gets a communicator */
    MPI_CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "Comm_create(MPI_GROUP_EMPTY) gave a communicator");

    /* over a split communicator: its group without its rank 0 */
    {
        MPI_Comm half, sub;
        MPI_Group hg, g2, wg;
        int hr, hs, zero = 0;
        MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
        MPI_CHECK(MPI_Comm_rank(half, &hr));
        MPI_CHECK(MPI_Comm_size(half, &hs));
        MPI_CHECK(MPI_Comm_group(half, &hg));
        MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        CHECK(gsize(hg) == hs && grank(hg) == hr, "Comm_group(split): size/rank %d/%d, expected %d/%d",
              gsize(hg), grank(hg), hs, hr);
        MPI_CHECK(MPI_Group_excl(hg, 1, &zero, &g2));
        MPI_CHECK(MPI_Comm_create(half, g2, &sub));
        if (hr == 0) {
            CHECK(sub == MPI_COMM_NULL, "rank 0 of the half got a communicator it was excluded from");
        } else {
            int n = 0;
            for (int i = size - 1; i >= 0; i--)
                if (i % 2 == rank % 2)
                    w[n++] = i;
            /* w[0] is the excluded rank 0 of the half */
            ring_check(sub, w + 1, n - 1, "Comm_create(split minus rank 0)");
            MPI_CHECK(MPI_Comm_free(&sub));
        }
        /* a group of world ranks translated into the half's ranks */
        {
            int in = rank, out = -1;
            MPI_CHECK(MPI_Group_translate_ranks(wg, 1, &in, hg, &out));
            CHECK(out == hr, "translate world->half: %d, expected %d", out, hr);
        }
        gfree(&g2);
        gfree(&hg);
        gfree(&wg);
        MPI_CHECK(MPI_Comm_free(&half));
    }
    /* repeated creation: context ids keep the communicators apart */
    for (int i = 0; i < 20; i++) {
        MPI_CHECK(MPI_Comm_create(MPI_COMM_WORLD, world, &c));
        int sum = -1;
        MPI_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == size * (size - 1) / 2, "Allreduce on created communicator %d: %d", i, sum);
        MPI_CHECK(MPI_Comm_free(&c));
    }
    gfree(&world);
    free(w);
}

/* ------------------------------------------------------------------ */
/* subarray and block-indexed types between ranks                      */

#define R 6
#define C 7

static int val(int src, int i, int j)
{
    return src * 10000 + i * 100 + j;
}

static void subarray_tests(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sizes[2] = {R, C}, subs[2] = {3, 4}, starts[2] = {2, 1};
    MPI_Datatype sa, fa;
    MPI_Status st;
    static int a[2][R][C], b[2][R][C];
    int flat[2 * 12 + 4];

    for (int k = 0; k < 2; k++)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++)
                a[k][i][j] = val(rank, i, j) + k * 1000000;
    MPI_CHECK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sa));
    MPI_CHECK(MPI_Type_commit(&sa));
    {
        MPI_Aint lb, ext;
        int sz;
        MPI_CHECK(MPI_Type_get_extent(sa, &lb, &ext));
        MPI_CHECK(MPI_Type_size(sa, &sz));
        CHECK(lb == 0 && ext == (MPI_Aint)sizeof(int) * R * C && sz == 12 * (int)sizeof(int),
              "subarray lb/extent/size %ld/%ld/%d", (long)lb, (long)ext, sz);
        int ni, na, nd, comb, ints[8];
        MPI_Aint aints[1];
        MPI_Datatype dts[1];
        MPI_CHECK(MPI_Type_get_envelope(sa, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nd == 1, "subarray envelope %d %d %d %d",
              ni, na, nd, comb);
        MPI_CHECK(MPI_Type_get_contents(sa, 8, 0, 1, ints, aints, dts));
        CHECK(ints[0] == 2 && ints[1] == R && ints[2] == C && ints[3] == 3 && ints[4] == 4 && ints[5] == 2 &&
                  ints[6] == 1 && ints[7] == MPI_ORDER_C && dts[0] == MPI_INT,
              "subarray contents");
    }

    /* subarray -> contiguous ints */
    memset(flat, 0xff, sizeof flat);
    MPI_CHECK(MPI_Sendrecv(a, 1, sa, right, 10, flat, 12, MPI_INT, left, 10, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECK(flat[i * 4 + j] == val(left, 2 + i, 1 + j), "subarray->ints: [%d][%d] is %d", i, j,
                  flat[i * 4 + j]);

    /* contiguous ints -> subarray: exactly the subarray is written */
    for (int i = 0; i < 12; i++)
        flat[i] = rank * 100 + i;
    memset(b, 0, sizeof b);
    MPI_CHECK(MPI_Sendrecv(flat, 12, MPI_INT, right, 11, b, 1, sa, left, 11, MPI_COMM_WORLD, &st));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            int in = i >= 2 && i < 5 && j >= 1 && j < 5;
            int want = in ? left * 100 + (i - 2) * 4 + (j - 1) : 0;
            CHECK(b[0][i][j] == want, "ints->subarray: b[%d][%d] is %d, expected %d", i, j, b[0][i][j], want);
        }

    /* count 2: two whole arrays apart; Get_count / Get_elements */
    memset(b, 0, sizeof b);
    MPI_CHECK(MPI_Sendrecv(a, 2, sa, right, 12, b, 2, sa, left, 12, MPI_COMM_WORLD, &st));
    {
        int cnt, el;
        MPI_CHECK(MPI_Get_count(&st, sa, &cnt));
        MPI_CHECK(MPI_Get_elements(&st, sa, &el));
        CHECK(cnt == 2 && el == 24, "count 2: Get_count %d, Get_elements %d", cnt, el);
        MPI_Count elx;
        MPI_CHECK(MPI_Get_elements_x(&st, sa, &elx));
        CHECK(elx == 24, "Get_elements_x %lld", (long long)elx);
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                int in = i >= 2 && i < 5 && j >= 1 && j < 5;
                int want = in ? val(left, i, j) + k * 1000000 : 0;
                CHECK(b[k][i][j] == want, "subarray x2: b[%d][%d][%d] is %d, expected %d", k, i, j,
                      b[k][i][j], want);
            }

    /* a partial receive: 1 of 2 elements, then half an element */
    MPI_CHECK(MPI_Sendrecv(a, 1, sa, right, 13, b, 2, sa, left, 13, MPI_COMM_WORLD, &st));
    {
        int cnt, el;
        MPI_CHECK(MPI_Get_count(&st, sa, &cnt));
        MPI_CHECK(MPI_Get_elements(&st, sa, &el));
        CHECK(cnt == 1 && el == 12, "partial: Get_count %d, Get_elements %d", cnt, el);
    }
    MPI_CHECK(MPI_Sendrecv(flat, 6, MPI_INT, right, 14, b, 1, sa, left, 14, MPI_COMM_WORLD, &st));
    {
        int cnt, el;
        MPI_CHECK(MPI_Get_count(&st, sa, &cnt));
        MPI_CHECK(MPI_Get_elements(&st, sa, &el));
        CHECK(cnt == MPI_UNDEFINED && el == 6, "half an element: Get_count %d, Get_elements %d", cnt, el);
    }

    /* C-order subarray -> Fortran-order subarray of another shape: the
     * received sequence fills bf(rows 1..4, cols 2..4), first index fastest */
    {
        int fs[2] = {5, 6}, fsub[2] = {4, 3}, fst[2] = {1, 2};
        static int bf[6][5]; /* bf[col][row], 5 rows, 6 columns */
        MPI_CHECK(MPI_Type_create_subarray(2, fs, fsub, fst, MPI_ORDER_FORTRAN, MPI_INT, &fa));
        MPI_CHECK(MPI_Type_commit(&fa));
        memset(bf, 0, sizeof bf);
        MPI_CHECK(MPI_Sendrecv(a, 1, sa, right, 15, bf, 1, fa, left, 15, MPI_COMM_WORLD, &st));
        for (int col = 0; col < 6; col++)
            for (int row = 0; row < 5; row++) {
                int want = 0;
                if (row >= 1 && row < 5 && col >= 2 && col < 5) {
                    int k = (col - 2) * 4 + (row - 1); /* position in the sequence */
                    want = val(left, 2 + k / 4, 1 + k % 4);
                }
                CHECK(bf[col][row] == want, "C->Fortran subarray: (%d,%d) is %d, expected %d", row, col,
                      bf[col][row], want);
            }
        MPI_CHECK(MPI_Type_free(&fa));
    }

    /* 3D, nonblocking */
    {
        int s3[3] = {4, 3, 5}, sub3[3] = {2, 2, 2}, st3[3] = {1, 0, 3};
        static int c3[4][3][5], d3[4][3][5];
        MPI_Datatype t3;
        MPI_Request rq[2];
        MPI_Status sts[2];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 5; k++)
                    c3[i][j][k] = rank * 1000 + i * 100 + j * 10 + k;
        memset(d3, 0, sizeof d3);
        MPI_CHECK(MPI_Type_create_subarray(3, s3, sub3, st3, MPI_ORDER_C, MPI_INT, &t3));
        MPI_CHECK(MPI_Type_commit(&t3));
        MPI_CHECK(MPI_Irecv(d3, 1, t3, left, 16, MPI_COMM_WORLD, &rq[0]));
        MPI_CHECK(MPI_Isend(c3, 1, t3, right, 16, MPI_COMM_WORLD, &rq[1]));
        MPI_CHECK(MPI_Waitall(2, rq, sts));
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 5; k++) {
                    int in = i >= 1 && i < 3 && j < 2 && k >= 3;
                    int want = in ? left * 1000 + i * 100 + j * 10 + k : 0;
                    CHECK(d3[i][j][k] == want, "3D subarray: [%d][%d][%d] is %d, expected %d", i, j, k,
                          d3[i][j][k], want);
                }
        MPI_CHECK(MPI_Type_free(&t3));
    }
    MPI_CHECK(MPI_Type_free(&sa));
}

static void block_indexed_tests(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[20], dst[20], disp[3] = {12, 0, 6};
    double dsrc[10], ddst[10];
    MPI_Aint hdisp[2] = {5 * sizeof(double), sizeof(double)};
    MPI_Datatype ib, hb;
    MPI_Status st;
    char name[MPI_MAX_OBJECT_NAME];
    int len;

    for (int i = 0; i < 20; i++)
        src[i] = rank * 100 + i;
    MPI_CHECK(MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &ib));
    MPI_CHECK(MPI_Type_commit(&ib));
    MPI_CHECK(MPI_Type_set_name(ib, "blocks of two"));
    MPI_CHECK(MPI_Type_get_name(ib, name, &len));
    CHECK(strcmp(name, "blocks of two") == 0 && len == 13, "Type_get_name: '%s' %d", name, len);
    MPI_CHECK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, "MPI_INT") == 0, "name of MPI_INT is '%s'", name);
    memset(dst, 0, sizeof dst);
    MPI_CHECK(MPI_Sendrecv(src, 1, ib, right, 20, dst, 6, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
    {
        int want[6] = {12, 13, 0, 1, 6, 7};
        for (int i = 0; i < 6; i++)
            CHECK(dst[i] == left * 100 + want[i], "indexed_block: %d is %d", i, dst[i]);
    }
    memset(dst, 0, sizeof dst);
    MPI_CHECK(MPI_Sendrecv(src, 6, MPI_INT, right, 21, dst, 1, ib, left, 21, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 20; i++) {
        int want = 0;
        if (i == 12 || i == 13)
            want = left * 100 + i - 12;
        else if (i == 0 || i == 1)
            want = left * 100 + i + 2;
        else if (i == 6 || i == 7)
            want = left * 100 + i - 2;
        CHECK(dst[i] == want, "into indexed_block: %d is %d, expected %d", i, dst[i], want);
    }
    MPI_CHECK(MPI_Type_free(&ib));

    for (int i = 0; i < 10; i++)
        dsrc[i] = rank + i * 0.25;
    MPI_CHECK(MPI_Type_create_hindexed_block(2, 3, hdisp, MPI_DOUBLE, &hb));
    MPI_CHECK(MPI_Type_commit(&hb));
    memset(ddst, 0, sizeof ddst);
    MPI_CHECK(MPI_Sendrecv(dsrc, 1, hb, right, 22, ddst, 1, hb, left, 22, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 10; i++) {
        double want = (i >= 1 && i < 4) || (i >= 5 && i < 8) ? left + i * 0.25 : 0;
        CHECK(ddst[i] == want, "hindexed_block: %d is %g, expected %g", i, ddst[i], want);
    }
    {
        int ni, na, nd, comb;
        MPI_CHECK(MPI_Type_get_envelope(hb, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_HINDEXED_BLOCK && ni == 2 && na == 2 && nd == 1,
              "hindexed_block envelope %d %d %d %d", ni, na, nd, comb);
    }
    MPI_CHECK(MPI_Type_free(&hb));
}

int main(int argc, char **argv)
{
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;

    group_basics();
    group_errors();
    comm_create_tests();
    subarray_tests();
    block_indexed_tests();

    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Finalize());
    return 0;
}
