/*
 * intercomm: inter-communicators (MPI 4.0 7.6).
 *   1. MPI_Intercomm_create between the lower and the upper half of
 *      MPI_COMM_WORLD (leaders 0 and size / 2 through MPI_COMM_WORLD):
 *      MPI_Comm_test_inter, sizes, MPI_Comm_remote_group.
 *   2. Point-to-point names the remote group: every rank sends its world
 *      rank to each remote rank, receives with MPI_ANY_SOURCE, and the
 *      status gives the sender's rank in the remote group.
 *   3. Every collective on it against a local reference: Barrier, Bcast and
 *      Reduce with MPI_ROOT / MPI_PROC_NULL, Allreduce, Gather(v),
 *      Scatter(v), Allgather(v), Alltoall(v, w), Reduce_scatter(_block),
 *      and Ibcast / Iallreduce pending together with an MPI_Comm_idup.
 *   4. MPI_Comm_dup, MPI_Comm_split (by parity) and MPI_Comm_create
 *      (without local rank 0) of it work as inter-communicators;
 *      MPI_Intercomm_merge orders the groups by `high`.
 *   5. Errors: MPI_Cart_create, MPI_Comm_split_type and MPI_Scan on it
 *      (MPI_ERR_COMM), a root outside the remote group (MPI_ERR_ROOT), a
 *      remote leader out of range (MPI_ERR_RANK at every member).
 * Needs 2 ranks or more. Prints "intercomm: ok"; a failed check aborts.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "intercomm"
#define CHECK_RANK wrank
#define CHECK_RANK_FIRST
#include "check.h"

static int wrank, wsize;

/* world rank of rank r of the lower (left) or upper group */
static int world_of(int left, int r)
{
    return left ? r : wsize / 2 + r;
}

/* communication over ic, whose local group is `left` or not; ln and rn
 * its sizes, lw / rw map its ranks to world ranks */
static void exercise(MPI_Comm ic, const int *lw, const int *rw, const char *what)
{
    int flag, ln, rn, me, i;
    MPI_Comm_test_inter(ic, &flag);
    CHECK(flag, "%s: not an inter-communicator", what);
    MPI_Comm_size(ic, &ln);
    MPI_Comm_remote_size(ic, &rn);
    MPI_Comm_rank(ic, &me);
    CHECK(lw[me] == wrank, "%s: rank %d in a group of %d", what, me, ln);

    /* 2. point to point */
    int *got = malloc(sizeof(int) * (size_t)rn), seen = 0;
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)rn);
    for (i = 0; i < rn; i++)
        MPI_Isend(&wrank, 1, MPI_INT, i, 7, ic, &rq[i]);
    for (i = 0; i < rn; i++) {
        MPI_Status st;
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st);
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rn && rw[st.MPI_SOURCE] == v && st.MPI_TAG == 7,
              "%s: got %d from source %d", what, v, st.MPI_SOURCE);
        seen |= 1 << st.MPI_SOURCE;
    }
    MPI_Waitall(rn, rq, MPI_STATUSES_IGNORE);
    CHECK(rn >= 31 || seen == (1 << rn) - 1, "%s: sources seen %x", what, seen);

    /* 3. collectives; the remote group's values are known from rw */
    int rsum = 0, lsum = 0, x, y;
    for (i = 0; i < rn; i++)
        rsum += rw[i] + 1;
    for (i = 0; i < ln; i++)
        lsum += lw[i] + 1;
    MPI_Barrier(ic);
    /* Bcast / Reduce rooted at remote-or-local rank 0 of the lower group */
    int lower = lw[0] < rw[0];
    x = lower && me == 0 ? 4242 : -1;
    MPI_Bcast(&x, 1, MPI_INT, lower ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
    CHECK(lower || x == 4242, "%s: Bcast gave %d", what, x);
    x = wrank + 1;
    y = -1;
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, lower ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
    CHECK(!(lower && me == 0) || y == rsum, "%s: Reduce gave %d, not %d", what, y, rsum);
    y = -1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic);
    CHECK(y == rsum, "%s: Allreduce gave %d, not %d", what, y, rsum);

    int *rbuf = malloc(sizeof(int) * (size_t)(rn + ln) * 2),
        *sbuf = malloc(sizeof(int) * (size_t)(rn + ln) * 2);
    int *cnt = malloc(sizeof(int) * (size_t)(rn + ln)), *dsp = malloc(sizeof(int) * (size_t)(rn + ln));
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)rn);
    for (i = 0; i < rn + ln; i++)
        cnt[i] = 1, dsp[i] = 2 * i;
    /* Gather, Gatherv to the lower group's rank 0 */
    for (i = 0; i < 2 * rn; i++)
        rbuf[i] = -1;
    int root = lower ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Gather(&wrank, 1, MPI_INT, rbuf, 1, MPI_INT, root, ic);
    for (i = 0; lower && me == 0 && i < rn; i++)
        CHECK(rbuf[i] == rw[i], "%s: Gather block %d is %d", what, i, rbuf[i]);
    MPI_Gatherv(&wrank, 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, root, ic);
    for (i = 0; lower && me == 0 && i < rn; i++)
        CHECK(rbuf[2 * i] == rw[i], "%s: Gatherv block %d is %d", what, i, rbuf[2 * i]);
    /* Scatter, Scatterv from it */
    for (i = 0; i < 2 * rn; i++)
        sbuf[i] = 1000 + i;
    y = -1;
    MPI_Scatter(sbuf, 1, MPI_INT, &y, 1, MPI_INT, root, ic);
    CHECK(lower || y == 1000 + me, "%s: Scatter gave %d", what, y);
    MPI_Scatterv(sbuf, cnt, dsp, MPI_INT, &y, 1, MPI_INT, root, ic);
    CHECK(lower || y == 1000 + 2 * me, "%s: Scatterv gave %d", what, y);
    /* Allgather(v) */
    MPI_Allgather(&wrank, 1, MPI_INT, rbuf, 1, MPI_INT, ic);
    for (i = 0; i < rn; i++)
        CHECK(rbuf[i] == rw[i], "%s: Allgather block %d is %d", what, i, rbuf[i]);
    MPI_Allgatherv(&wrank, 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, ic);
    for (i = 0; i < rn; i++)
        CHECK(rbuf[2 * i] == rw[i], "%s: Allgatherv block %d is %d", what, i, rbuf[2 * i]);
    /* Alltoall(v, w): block i is 100 * wrank + i */
    for (i = 0; i < 2 * rn; i++)
        sbuf[i] = 100 * wrank + i;
    MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, ic);
    for (i = 0; i < rn; i++)
        CHECK(rbuf[i] == 100 * rw[i] + me, "%s: Alltoall block %d is %d", what, i, rbuf[i]);
    int *sd = malloc(sizeof(int) * (size_t)rn), *bd = malloc(sizeof(int) * (size_t)rn);
    for (i = 0; i < rn; i++)
        sd[i] = i, bd[i] = 2 * i * (int)sizeof(int), ty[i] = MPI_INT;
    MPI_Alltoallv(sbuf, cnt, sd, MPI_INT, rbuf, cnt, dsp, MPI_INT, ic);
    for (i = 0; i < rn; i++)
        CHECK(rbuf[2 * i] == 100 * rw[i] + me, "%s: Alltoallv block %d is %d", what, i, rbuf[2 * i]);
    for (i = 0; i < rn; i++)
        sd[i] = i * (int)sizeof(int);
    MPI_Alltoallw(sbuf, cnt, sd, ty, rbuf, cnt, bd, ty, ic);
    for (i = 0; i < rn; i++)
        CHECK(rbuf[2 * i] == 100 * rw[i] + me, "%s: Alltoallw block %d is %d", what, i, rbuf[2 * i]);
    /* Reduce_scatter_block / Reduce_scatter: the groups' vectors have
     * ln * rn elements; element k of a process is wrank * 1000 + k */
    int total = ln * rn, *vec = malloc(sizeof(int) * (size_t)total), *res = malloc(sizeof(int) * (size_t)rn);
    for (i = 0; i < total; i++)
        vec[i] = wrank * 1000 + i;
    MPI_Reduce_scatter_block(vec, res, rn, MPI_INT, MPI_SUM, ic);
    int rws = 0;
    for (i = 0; i < rn; i++)
        rws += rw[i];
    for (i = 0; i < rn; i++)
        CHECK(res[i] == rws * 1000 + rn * (me * rn + i), "%s: Reduce_scatter_block element %d is %d", what, i,
              res[i]);
    for (i = 0; i < ln; i++)
        cnt[i] = rn;
    MPI_Reduce_scatter(vec, res, cnt, MPI_INT, MPI_SUM, ic);
    for (i = 0; i < rn; i++)
        CHECK(res[i] == rws * 1000 + rn * (me * rn + i), "%s: Reduce_scatter element %d is %d", what, i,
              res[i]);

    /* nonblocking, pending with idups (MPICH's comm_idup_nb) */
    enum { K = 4 };
    MPI_Request q[2 * K + 1];
    MPI_Comm dups[K];
    int xs[K], one = wrank + 1, all = -1;
    for (i = 0; i < K; i++) {
        xs[i] = lower && me == 0 ? 77 + i : -1;
        MPI_Ibcast(&xs[i], 1, MPI_INT, lower ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &q[2 * i]);
        MPI_Comm_idup(ic, &dups[i], &q[2 * i + 1]);
    }
    MPI_Iallreduce(&one, &all, 1, MPI_INT, MPI_SUM, ic, &q[2 * K]);
    MPI_Waitall(2 * K + 1, q, MPI_STATUSES_IGNORE);
    CHECK(all == rsum, "%s: Iallreduce gave %d, not %d", what, all, rsum);
    for (i = 0; i < K; i++) {
        CHECK(lower || xs[i] == 77 + i, "%s: Ibcast %d gave %d", what, i, xs[i]);
        MPI_Comm_test_inter(dups[i], &flag);
        CHECK(flag, "%s: the idup is not an inter-communicator", what);
        all = -1;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, dups[i]);
        CHECK(all == rsum, "%s: Allreduce on idup %d gave %d", what, i, all);
        MPI_Comm_free(&dups[i]);
    }
    (void)lsum;
    free(got), free(rq), free(rbuf), free(sbuf), free(cnt), free(dsp), free(ty), free(sd), free(bd),
        free(vec), free(res);
}

int main(int argc, char **argv)
{
    MPI_Comm half, ic, dup, sp, cr, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2, "needs 2 ranks or more");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int left = wrank < wsize / 2, ln = left ? wsize / 2 : wsize - wsize / 2, rn = wsize - ln;
    int *lw = malloc(sizeof(int) * (size_t)wsize), *rw = malloc(sizeof(int) * (size_t)wsize);
    for (int i = 0; i < ln; i++)
        lw[i] = world_of(left, i);
    for (int i = 0; i < rn; i++)
        rw[i] = world_of(!left, i);

    /* 1. */
    MPI_Comm_split(MPI_COMM_WORLD, left, wrank, &half);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? wsize / 2 : 0, 99, &ic) == MPI_SUCCESS,
          "MPI_Intercomm_create failed");
    int flag, n;
    MPI_Comm_test_inter(half, &flag);
    CHECK(!flag, "an intra-communicator tests as inter");
    MPI_Comm_remote_size(ic, &n);
    CHECK(n == rn, "remote size %d, not %d", n, rn);
    MPI_Group rg, wg;
    int r0 = 0, w0 = -1;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(rg, 1, &r0, wg, &w0);
    CHECK(w0 == rw[0], "remote group's rank 0 is world rank %d", w0);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    CHECK(MPI_Comm_remote_size(half, &n) == MPI_ERR_COMM, "MPI_Comm_remote_size of an intra-communicator");
    {
        int d = ln, per = 0, v = 0;
        MPI_Comm bad = MPI_COMM_NULL;
        CHECK(MPI_Cart_create(ic, 1, &d, &per, 0, &bad) == MPI_ERR_COMM && bad == MPI_COMM_NULL,
              "MPI_Cart_create of an inter-communicator");
        CHECK(MPI_Scan(&v, &n, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "MPI_Scan on an inter-communicator");
        CHECK(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad) == MPI_ERR_COMM,
              "MPI_Comm_split_type of an inter-communicator");
        CHECK(MPI_Bcast(&v, 1, MPI_INT, rn, ic) == MPI_ERR_ROOT, "MPI_Bcast to root %d of %d", rn, rn);
        /* a remote leader out of range, significant at the leaders only:
         * every member fails with the leader's class, none waits */
        CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wsize, 98, &bad) == MPI_ERR_RANK &&
                  bad == MPI_COMM_NULL,
              "MPI_Intercomm_create with remote leader %d", wsize);
    }
    exercise(ic, lw, rw, "Intercomm_create");

    /* 4. dup, split, create, merge */
    MPI_Comm_dup(ic, &dup);
    exercise(dup, lw, rw, "dup");
    {
        /* MPI_Comm_compare: a dup is congruent, the same groups in reverse
         * order (split with one color, keys reversed) similar */
        MPI_Comm rev;
        int res = -1;
        MPI_Comm_compare(ic, ic, &res);
        CHECK(res == MPI_IDENT, "compare(ic, ic) = %d", res);
        MPI_Comm_compare(ic, dup, &res);
        CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
        MPI_Comm_compare(ic, half, &res);
        CHECK(res == MPI_UNEQUAL, "compare(ic, local group's intra-communicator) = %d", res);
        MPI_Comm_split(ic, 0, wsize - wrank, &rev);
        MPI_Comm_compare(ic, rev, &res);
        CHECK(res == (ln > 1 || rn > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare(ic, reversed) = %d", res);
        MPI_Comm_free(&rev);
    }
    MPI_Comm_free(&dup);

    int sl[64], sr[64], nl = 0, nr = 0, par = wrank % 2;
    for (int i = 0; i < ln; i++)
        if (lw[i] % 2 == par)
            sl[nl++] = lw[i];
    for (int i = 0; i < rn; i++)
        if (rw[i] % 2 == par)
            sr[nr++] = rw[i];
    MPI_Comm_split(ic, par, wrank, &sp);
    CHECK((sp == MPI_COMM_NULL) == (nr == 0), "split by parity: %s",
          sp == MPI_COMM_NULL ? "null" : "not null");
    if (sp != MPI_COMM_NULL) {
        exercise(sp, sl, sr, "split");
        MPI_Comm_free(&sp);
    }

    if (ln > 1 && rn > 1) {
        MPI_Group g, g1;
        int zero = 0;
        MPI_Comm_group(ic, &g);
        MPI_Group_excl(g, 1, &zero, &g1);
        MPI_Comm_create(ic, g1, &cr);
        CHECK((cr == MPI_COMM_NULL) == (lw[0] == wrank), "MPI_Comm_create: null at the wrong ranks");
        if (cr != MPI_COMM_NULL) {
            exercise(cr, lw + 1, rw + 1, "create");
            MPI_Comm_free(&cr);
        }
        MPI_Group_free(&g);
        MPI_Group_free(&g1);
    }

    for (int high = 0; high < 2; high++) {
        int mr, ms, sum = -1;
        MPI_Intercomm_merge(ic, left ? high : !high, &merged);
        MPI_Comm_rank(merged, &mr);
        MPI_Comm_size(merged, &ms);
        CHECK(ms == wsize, "merged size %d", ms);
        /* high = 0 on the lower half first: world order; else upper first */
        int want = high == 0 ? wrank : (left ? rn + wrank : wrank - wsize / 2);
        CHECK(mr == want, "merge (lower half high=%d): rank %d, not %d", high, mr, want);
        MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, merged);
        CHECK(sum == wsize * (wsize - 1) / 2, "merged Allreduce gave %d", sum);
        MPI_Comm_free(&merged);
    }

    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    free(lw), free(rw);
    MPI_Finalize();
    if (wrank == 0)
        printf("intercomm: ok\n");
    return 0;
}
