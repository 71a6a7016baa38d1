/*
 * mpi/topo.c: Cartesian topologies (MPI 3.1 chapter 7).
 *
 * A Cartesian communicator is an ordinary communicator (made by
 * MPI_Comm_split) whose mpii_comm_t carries topo_kind = MPI_CART, ndims and
 * malloc'ed dims/periods (freed by the core with the communicator). Ranks are
 * laid out in row-major order: the last coordinate varies fastest. reorder
 * is ignored (allowed by the standard). ndims == 0 is a legal topology with
 * one process.
 */
/* mpi_impl.h has a slash-star inside a comment (mpi/coll/...), which -Wall -Werror rejects. */

#include "mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* MPI_Dims_create                                                     */

typedef struct dims_search {
    int k;             /* dimensions to choose */
    int ndiv;          /* divisors of the number to split, increasing */
    const int *div;
    int *cur;          /* current choice, non-increasing */
    int *best;
    int have_best;
    int best_spread; /* best[0] - best[k-1] */
} dims_search_t;

static void dims_consider(dims_search_t *s)
{
    int spread = s->cur[0] - s->cur[s->k - 1], better = 0;
    if (s->have_best && spread == s->best_spread) {
        /* a tie: the larger factors at the small end, compared from the smallest up
         * (10 x 6 x 6 before 9 x 8 x 5, 5 x 2 x 2 x 1 before 5 x 4 x 1 x 1), as MPICH
         * chooses (Open MPI's greedy split gives the same in these four) */
        for (int i = s->k - 1; i >= 0; i--)
            if (s->cur[i] != s->best[i]) {
                better = s->cur[i] > s->best[i];
                break;
            }
    }
    if (!s->have_best || spread < s->best_spread || better) {
        memcpy(s->best, s->cur, (size_t)s->k * sizeof *s->best);
        s->best_spread = spread;
        s->have_best = 1;
    }
}

/* Is x^r <= n? (x, n < 2^31) */
static int pow_at_most(long long x, int r, long long n)
{
    long long p = 1;
    for (int i = 0; i < r; i++) {
        p *= x;
        if (p > n)
            return 0;
    }
    return 1;
}

/* Largest x >= 1 with x^r <= n (r >= 1, n >= 1). */
static int iroot(int n, int r)
{
    int lo = 1, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (pow_at_most(mid, r, n))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Smallest x >= 1 with x^r >= n. */
static int iroot_up(int n, int r)
{
    int x = iroot(n, r);
    return pow_at_most(x, r, n - 1) ? x + 1 : x;
}

/* Index of the first divisor >= x (ndiv if none). */
static int div_index(const dims_search_t *s, int x)
{
    int lo = 0, hi = s->ndiv;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->div[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Choose cur[depth..k-1] (depth >= 1), non-increasing, each <= maxd, product m. */
static void dims_rec(dims_search_t *s, int depth, int m, int maxd)
{
    int left = s->k - depth, first = s->cur[0], lo, j;
    if (m == 1) {
        for (int i = depth; i < s->k; i++)
            s->cur[i] = 1;
        dims_consider(s);
        return;
    }
    if (left == 1) {
        if (m <= maxd) {
            s->cur[depth] = m;
            dims_consider(s);
        }
        return;
    }
    /* the next factor d is at least the left-th root of m, and (every factor being
     * at least first - best_spread for an improvement) at least that too */
    lo = iroot_up(m, left);
    if (s->have_best && first - s->best_spread > lo)
        lo = first - s->best_spread;
    /* largest factors first: balanced choices come early */
    for (j = div_index(s, (maxd < m ? maxd : m) + 1) - 1; j >= 0 && s->div[j] >= lo; j--) {
        int d = s->div[j];
        if (m % d != 0)
            continue;
        /* the smallest factor is at most the (left-1)-th root of what remains */
        if (s->have_best && first - iroot(m / d, left - 1) > s->best_spread)
            continue;
        s->cur[depth] = d;
        dims_rec(s, depth + 1, m / d, d);
    }
}

/* Split m into k >= 1 factors as close to each other as possible, non-increasing. */
static int dims_split(int m, int k, int *out)
{
    /* a positive int has at most 1600 divisors (2095133040), at most half up to sqrt(m) */
    int small[1024], div[2048], nsmall = 0, ndiv = 0;
    int *cur = malloc((size_t)k * sizeof *cur);
    dims_search_t s;
    if (!cur)
        return MPI_ERR_NO_MEM;
    for (long long i = 1; i * i <= m; i++) /* divisors up to sqrt(m), increasing */
        if (m % i == 0)
            small[nsmall++] = (int)i;
    /* all divisors, increasing: the small ones, then m/small[j] for j decreasing */
    for (int j = 0; j < nsmall; j++)
        div[ndiv++] = small[j];
    for (int j = nsmall - 1; j >= 0; j--)
        if ((long long)small[j] * small[j] != m)
            div[ndiv++] = m / small[j];
    memset(&s, 0, sizeof s);
    s.k = k;
    s.ndiv = ndiv;
    s.div = div;
    s.cur = cur;
    s.best = out;
    if (k == 1) {
        out[0] = m;
    } else {
        /* the largest factor, from the k-th root of m upwards: the smallest factor is
         * at most the (k-1)-th root of m/d, so the spread is at least d - that, which
         * only grows with d */
        for (int j = div_index(&s, iroot_up(m, k)); j < ndiv; j++) {
            int d = div[j];
            if (s.have_best && d - iroot(m / d, k - 1) > s.best_spread)
                break;
            cur[0] = d;
            dims_rec(&s, 1, m / d, d);
        }
    }
    free(cur);
    return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    long long fixed = 1;
    int nfree = 0, rc;
    int *vals;
    MPII_CHECK_INIT(fn);
    if (ndims < 0)
        return mpii_err(NULL, MPI_ERR_DIMS, fn, "invalid ndims %d", ndims);
    if (nnodes <= 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "invalid nnodes %d", nnodes);
    if (ndims > 0 && !dims)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "dims is NULL");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpii_err(NULL, MPI_ERR_DIMS, fn, "dims[%d] = %d is negative", i, dims[i]);
        if (dims[i] == 0) {
            nfree++;
        } else {
            fixed *= dims[i];
            if (fixed > nnodes || nnodes % fixed != 0)
                return mpii_err(NULL, MPI_ERR_DIMS, fn,
                                "nnodes %d is not a multiple of the fixed dimensions", nnodes);
        }
    }
    if (nfree == 0) {
        if (ndims > 0 && fixed != nnodes)
            return mpii_err(NULL, MPI_ERR_DIMS, fn, "product of dims %lld differs from nnodes %d",
                            fixed, nnodes);
        return MPI_SUCCESS;
    }
    vals = malloc((size_t)nfree * sizeof *vals);
    if (!vals)
        return mpii_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = dims_split((int)(nnodes / fixed), nfree, vals);
    if (rc != MPI_SUCCESS) {
        free(vals);
        return mpii_err(NULL, rc, fn, "out of memory");
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = vals[j++];
    free(vals);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* helpers                                                             */

/* The Cartesian communicator behind `comm`, or NULL after raising the error in *rc. */
static mpii_comm_t *cart_get(const char *fn, MPI_Comm comm, int *rc)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    if (!c) {
        *rc = mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
        return NULL;
    }
    if (c->topo_kind != MPI_CART) {
        *rc = mpii_err(c, MPI_ERR_TOPOLOGY, fn, "communicator has no Cartesian topology");
        return NULL;
    }
    return c;
}

static void rank_to_coords(const mpii_comm_t *c, int rank, int coords[])
{
    for (int i = c->ndims - 1; i >= 0; i--) {
        coords[i] = rank % c->dims[i];
        rank /= c->dims[i];
    }
}

/* Copy n ints (0 or 1 for periods when `as_bool`); NULL when n == 0 or out of memory (*ok = 0). */
static int *int_dup(const int *src, int n, int as_bool, int *ok)
{
    int *d;
    *ok = 1;
    if (n == 0)
        return NULL;
    d = malloc((size_t)n * sizeof *d);
    if (!d) {
        *ok = 0;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        d[i] = as_bool ? src[i] != 0 : src[i];
    return d;
}

/* Split `comm` (by color, key = rank) and attach a Cartesian topology to the result.
 * Takes ownership of dims and periods. */
static int split_with_topo(const char *fn, MPI_Comm comm, int color, int key, int ndims, int *dims,
                           int *periods, MPI_Comm *newcomm)
{
    mpii_comm_t *nc;
    int rc = MPI_Comm_split(comm, color, key, newcomm);
    if (rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        free(dims);
        free(periods);
        return rc;
    }
    nc = mpii_comm_get(*newcomm);
    if (!nc) {
        free(dims);
        free(periods);
        return mpii_err(NULL, MPI_ERR_INTERN, fn, "new communicator %d not found", (int)*newcomm);
    }
    /* a communicator fresh from MPI_Comm_split has no topology (nothing to free) */
    nc->topo_kind = MPI_CART;
    nc->ndims = ndims;
    nc->dims = dims;
    nc->periods = periods;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Cartesian calls                                                     */

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    mpii_comm_t *c;
    long long prod = 1;
    int *d, *p, ok1, ok2, rank;
    (void)reorder;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm_old);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm_old);
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "communicator %d is an inter-communicator", (int)comm_old);
    if (!comm_cart)
        return mpii_err(c, MPI_ERR_ARG, fn, "comm_cart is NULL");
    if (ndims < 0)
        return mpii_err(c, MPI_ERR_DIMS, fn, "invalid ndims %d", ndims);
    if (ndims > 0 && (!dims || !periods))
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !dims ? "dims" : "periods");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpii_err(c, MPI_ERR_DIMS, fn, "invalid dims[%d] = %d", i, dims[i]);
        prod *= dims[i];
        if (prod > c->size)
            break;
    }
    if (prod > c->size)
        return mpii_err(c, MPI_ERR_ARG, fn, "topology needs more than the %d processes of the communicator",
                        c->size);
    d = int_dup(dims, ndims, 0, &ok1);
    p = int_dup(periods, ndims, 1, &ok2);
    if (!ok1 || !ok2) {
        free(d);
        free(p);
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rank = c->rank;
    return split_with_topo(fn, comm_old, rank < prod ? 0 : MPI_UNDEFINED, rank, ndims, d, p, comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    mpii_comm_t *c;
    int rc, *coords, *d, *p, n = 0, color = 0, rank;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (c->ndims > 0 && !remain_dims)
        return mpii_err(c, MPI_ERR_ARG, fn, "remain_dims is NULL");
    if (!newcomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    coords = malloc((size_t)(c->ndims ? c->ndims : 1) * sizeof *coords);
    d = malloc((size_t)(c->ndims ? c->ndims : 1) * sizeof *d);
    p = malloc((size_t)(c->ndims ? c->ndims : 1) * sizeof *p);
    if (!coords || !d || !p) {
        free(coords);
        free(d);
        free(p);
        return mpii_err(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rank_to_coords(c, c->rank, coords);
    for (int i = 0; i < c->ndims; i++) {
        if (remain_dims[i]) {
            d[n] = c->dims[i];
            p[n] = c->periods[i];
            n++;
        } else {
            color = color * c->dims[i] + coords[i]; /* row-major index of the dropped coordinates */
        }
    }
    free(coords);
    if (n == 0) { /* zero-dimensional result */
        free(d);
        free(p);
        d = p = NULL;
    }
    rank = c->rank;
    /* key = old rank keeps the row-major order of the remaining coordinates */
    return split_with_topo(fn, comm, color, rank, n, d, p, newcomm);
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (rank < 0 || rank >= c->size)
        return mpii_err(c, MPI_ERR_RANK, fn, "invalid rank %d", rank);
    if (maxdims < c->ndims)
        return mpii_err(c, MPI_ERR_ARG, fn, "maxdims %d is less than ndims %d", maxdims, c->ndims);
    if (c->ndims > 0 && !coords)
        return mpii_err(c, MPI_ERR_ARG, fn, "coords is NULL");
    rank_to_coords(c, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    mpii_comm_t *c;
    int rc, r = 0;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (!rank)
        return mpii_err(c, MPI_ERR_ARG, fn, "rank is NULL");
    if (c->ndims > 0 && !coords)
        return mpii_err(c, MPI_ERR_ARG, fn, "coords is NULL");
    for (int i = 0; i < c->ndims; i++) {
        int x = coords[i], n = c->dims[i];
        if (c->periods[i]) {
            x %= n;
            if (x < 0)
                x += n;
        } else if (x < 0 || x >= n) {
            return mpii_err(c, MPI_ERR_ARG, fn, "coords[%d] = %d out of range [0,%d)", i, coords[i], n);
        }
        r = r * n + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (direction < 0 || direction >= c->ndims)
        return mpii_err(c, MPI_ERR_ARG, fn, "invalid direction %d for %d dimensions", direction, c->ndims);
    if (!rank_source || !rank_dest)
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !rank_source ? "rank_source" : "rank_dest");
    mpii_cart_shift(c, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

void mpii_cart_shift(const mpii_comm_t *c, int direction, int disp, int *rank_source, int *rank_dest)
{
    int n, x, stride = 1;
    long long src, dst;
    for (int i = c->ndims - 1; i > direction; i--)
        stride *= c->dims[i];
    n = c->dims[direction];
    x = c->rank / stride % n;
    src = (long long)x - disp;
    dst = (long long)x + disp;
    if (c->periods[direction]) {
        src %= n;
        if (src < 0)
            src += n;
        dst %= n;
        if (dst < 0)
            dst += n;
    }
    *rank_source = src < 0 || src >= n ? MPI_PROC_NULL : c->rank + (int)(src - x) * stride;
    *rank_dest = dst < 0 || dst >= n ? MPI_PROC_NULL : c->rank + (int)(dst - x) * stride;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (maxdims < c->ndims)
        return mpii_err(c, MPI_ERR_ARG, fn, "maxdims %d is less than ndims %d", maxdims, c->ndims);
    if (c->ndims > 0 && (!dims || !periods || !coords))
        return mpii_err(c, MPI_ERR_ARG, fn, "%s is NULL", !dims ? "dims" : !periods ? "periods" : "coords");
    for (int i = 0; i < c->ndims; i++) {
        dims[i] = c->dims[i];
        periods[i] = c->periods[i];
    }
    rank_to_coords(c, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char fn[] = "MPI_Cartdim_get";
    mpii_comm_t *c;
    int rc;
    MPII_CHECK_INIT(fn);
    if (!(c = cart_get(fn, comm, &rc)))
        return rc;
    if (!ndims)
        return mpii_err(c, MPI_ERR_ARG, fn, "ndims is NULL");
    *ndims = c->ndims;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char fn[] = "MPI_Topo_test";
    mpii_comm_t *c;
    MPII_CHECK_INIT(fn);
    c = mpii_comm_get(comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", (int)comm);
    if (!status)
        return mpii_err(c, MPI_ERR_ARG, fn, "status is NULL");
    *status = c->topo_kind ? c->topo_kind : MPI_UNDEFINED; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    return MPI_SUCCESS;
}
