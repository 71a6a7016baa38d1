/*
 * mpi/large_count_extra.c: the helpers of the large-count calls (mpi/large_count.h)
 * and the ones scripts/gen_large_count.py does not write: MPI_Type_get_envelope_c
 * and MPI_Type_get_contents_c, whose argument lists differ from the int forms
 * (a type's contents hold large counts only where MPI_Type_contiguous_c went
 * beyond int: datatype.c, mpii_datatype_record_large),
 * and the queries whose answer may not fit an int (a type of more than 2 GiB
 * is made of int counts too: a contiguous type of contiguous types): a type's
 * size and extents, and a status's count, from the 64-bit _x calls.
 * MPI_Op_create_c is in mpi/op.c.
 */
#include "mpi/large_count.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

int lc_int(const char *fn, MPI_Comm comm, const char *what, MPI_Count v, int *out)
{
    if (v < INT_MIN || v > INT_MAX)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_COUNT, fn,
                        "%s = %lld: mbmpi's counts are int (up to %d)", what, (long long)v, INT_MAX);
    *out = (int)v;
    return MPI_SUCCESS;
}

/* count elements of dt as one type: (count / 2^30) blocks of 2^30, then the rest */
static int big_type(MPI_Count count, MPI_Datatype dt, MPI_Datatype *out)
{
    const MPI_Count chunk = (MPI_Count)1 << 30;
    MPI_Count q = count / chunk, r = count % chunk;
    MPI_Datatype a = MPI_DATATYPE_NULL, b = MPI_DATATYPE_NULL, c = MPI_DATATYPE_NULL;
    MPI_Aint lb, extent;
    int rc;

    if (q > INT_MAX)
        return MPI_ERR_COUNT;
    rc = MPI_Type_get_extent(dt, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_contiguous((int)chunk, dt, &a);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_contiguous((int)q, a, &b);
    if (rc == MPI_SUCCESS && r == 0) {
        *out = b;
        b = MPI_DATATYPE_NULL;
    } else if (rc == MPI_SUCCESS) {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, (MPI_Aint)(q * chunk) * extent};
        MPI_Datatype types[2] = {b, MPI_DATATYPE_NULL};
        rc = MPI_Type_contiguous((int)r, dt, &c);
        types[1] = c;
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_struct(2, bl, disp, types, out);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    if (a != MPI_DATATYPE_NULL)
        MPI_Type_free(&a);
    if (b != MPI_DATATYPE_NULL)
        MPI_Type_free(&b);
    if (c != MPI_DATATYPE_NULL)
        MPI_Type_free(&c);
    return rc;
}

int lc_count(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, int *n, MPI_Datatype *big)
{
    int rc;

    *big = MPI_DATATYPE_NULL;
    if (count <= INT_MAX) {
        *n = count < INT_MIN ? -1 : (int)count;
        return MPI_SUCCESS;
    }
    rc = big_type(count, datatype, big);
    if (rc != MPI_SUCCESS)
        return mpii_err(mpii_comm_get(comm), rc, fn, "could not describe %lld elements as one type",
                        (long long)count);
    *n = 1;
    return MPI_SUCCESS;
}

void lc_type_free(MPI_Datatype *big)
{
    if (*big != MPI_DATATYPE_NULL)
        MPI_Type_free(big);
}

int lc_any_big(const MPI_Count bl[], MPI_Count count)
{
    if (!bl || count <= 0 || count > INT_MAX)
        return 0; /* (the int call says what is wrong) */
    for (MPI_Count i = 0; i < count; i++)
        if (bl[i] > INT_MAX)
            return 1;
    return 0;
}

int lc_blocks(const char *fn, MPI_Count count, const MPI_Count bl[], const MPI_Count displs[], int in_extents,
              const MPI_Datatype types[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n = (int)count, *bls = calloc((size_t)n, sizeof *bls), rc = MPI_SUCCESS, i;
    MPI_Aint *disps = calloc((size_t)n, sizeof *disps), lb, extent = 1;
    MPI_Datatype *tps = calloc((size_t)n, sizeof *tps), *big = calloc((size_t)n, sizeof *big);

    if (!bls || !disps || !tps || !big || !displs || !newtype)
        rc = !displs || !newtype ? MPI_ERR_ARG : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && in_extents)
        rc = MPI_Type_get_extent(oldtype, &lb, &extent);
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Datatype t = types ? types[i] : oldtype;
        big[i] = MPI_DATATYPE_NULL;
        disps[i] = (MPI_Aint)displs[i] * (in_extents ? extent : 1);
        if (bl[i] > INT_MAX) {
            rc = big_type(bl[i], t, &big[i]);
            bls[i] = 1;
            tps[i] = big[i];
        } else {
            bls[i] = (int)bl[i];
            tps[i] = t;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_struct(n, bls, disps, tps, newtype);
    for (i = 0; big && i < n; i++)
        if (big[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&big[i]);
    free(bls);
    free(disps);
    free(tps);
    free(big);
    return rc == MPI_SUCCESS
               ? rc
               : mpii_err(NULL, rc, fn, "could not build the type of %lld blocks", (long long)count);
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_contiguous_c";
    MPI_Datatype big;
    int n, rc;

    if (count <= INT_MAX)
        return MPI_Type_contiguous(count < INT_MIN ? -1 : (int)count, oldtype, newtype);
    if (!newtype)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    rc = lc_count(fn, MPI_COMM_NULL, count, oldtype, &n, &big);
    if (rc == MPI_SUCCESS)
        rc = mpii_datatype_record_large(big, count, oldtype);
    if (rc != MPI_SUCCESS) {
        lc_type_free(&big);
        return mpii_err(NULL, rc, fn, "out of memory");
    }
    *newtype = big; /* (committed already, as the program may commit it again) */
    return rc;
}

int lc_aint(const char *fn, MPI_Comm comm, const char *what, MPI_Count v, MPI_Aint *out)
{
    (void)fn, (void)comm, (void)what;
    *out = (MPI_Aint)v;
    return MPI_SUCCESS;
}

static int lc_array(const char *fn, MPI_Comm comm, const void *in, MPI_Count n, void **out, int to_int)
{
    *out = NULL;
    if (!in || n <= 0)
        return MPI_SUCCESS;
    if ((size_t)n > SIZE_MAX / sizeof(MPI_Aint))
        return mpii_err(mpii_comm_get(comm), MPI_ERR_COUNT, fn, "%lld array elements", (long long)n);
    *out = malloc((size_t)n * (to_int ? sizeof(int) : sizeof(MPI_Aint)));
    if (!*out)
        return mpii_err(mpii_comm_get(comm), MPI_ERR_NO_MEM, fn, "out of memory");
    for (MPI_Count i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, (const char *)in + i * 8, 8); /* MPI_Count and MPI_Aint are both 64 bits */
        if (!to_int) {
            ((MPI_Aint *)*out)[i] = (MPI_Aint)v;
        } else if (v < INT_MIN || v > INT_MAX) {
            free(*out);
            *out = NULL;
            return mpii_err(mpii_comm_get(comm), MPI_ERR_COUNT, fn,
                            "element %lld = %lld: mbmpi's counts are int (up to %d)", (long long)i,
                            (long long)v, INT_MAX);
        } else {
            ((int *)*out)[i] = (int)v;
        }
    }
    return MPI_SUCCESS;
}

_Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Aint) == 8, "64-bit MPI_Count and MPI_Aint");

int lc_array_int(const char *fn, MPI_Comm comm, const void *in, MPI_Count n, int **out)
{
    void *p;
    int rc = lc_array(fn, comm, in, n, &p, 1);
    *out = p;
    return rc;
}

int lc_array_aint(const char *fn, MPI_Comm comm, const void *in, MPI_Count n, MPI_Aint **out)
{
    void *p;
    int rc = lc_array(fn, comm, in, n, &p, 0);
    *out = p;
    return rc;
}

int lc_nprocs(MPI_Comm comm)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    return !c ? 0 : c->is_inter ? c->peer_size : c->size;
}

int lc_local_size(MPI_Comm comm)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    return c ? c->size : 0;
}

int lc_at_root(MPI_Comm comm, int root)
{
    mpii_comm_t *c = mpii_comm_get(comm);
    return c && (c->is_inter ? root == MPI_ROOT : root == c->rank);
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                            MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    int ni = 0, na = 0, nd = 0;
    const MPI_Count *lc;
    int rc;

    if (!num_large_counts)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Type_get_envelope_c", "num_large_counts is NULL");
    rc = mpii_type_get_envelope(datatype, num_integers ? &ni : NULL, num_addresses ? &na : NULL,
                                num_datatypes ? &nd : NULL, combiner, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    *num_integers = ni;
    *num_addresses = na;
    *num_large_counts = mpii_datatype_large_counts(datatype, &lc);
    *num_datatypes = nd;
    return MPI_SUCCESS;
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[])
{
    static const char fn[] = "MPI_Type_get_contents_c";
    int mi = 0, ma = 0, md = 0, nl;
    const MPI_Count *lc;
    int rc;

    if (max_large_counts < 0)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "max_large_counts %lld is negative",
                        (long long)max_large_counts);
    nl = mpii_datatype_large_counts(datatype, &lc);
    if (nl > 0 && (max_large_counts < nl || !array_of_large_counts))
        return mpii_err(NULL, MPI_ERR_ARG, fn, "array_of_large_counts needs %d entries (%lld given)", nl,
                        (long long)max_large_counts);
    /* (more room than a type has: as much as an int says is plenty) */
    mi = max_integers > INT_MAX ? INT_MAX : (int)max_integers;
    ma = max_addresses > INT_MAX ? INT_MAX : (int)max_addresses;
    md = max_datatypes > INT_MAX ? INT_MAX : (int)max_datatypes;
    rc = mpii_type_get_contents(datatype, mi, ma, md, array_of_integers, array_of_addresses,
                                array_of_datatypes, 1);
    if (rc == MPI_SUCCESS && nl > 0)
        memcpy(array_of_large_counts, lc, (size_t)nl * sizeof *lc);
    return rc;
}

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return MPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return MPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return MPI_Get_elements_x(status, datatype, count);
}

/* MPI_Get_count with the count of a status and the size of a type in 64 bits */
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    static const char fn[] = "MPI_Get_count_c";
    MPI_Count size = 0;
    int rc;

    if (!status || !count)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", !status ? "status" : "count");
    rc = MPI_Type_size_x(datatype, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size == 0)
        *count = 0;
    else if (status->mbmpi_count < 0 || status->mbmpi_count % size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = status->mbmpi_count / size;
    return MPI_SUCCESS;
}

typedef struct lc_kept {
    void *p[4];
} lc_kept_t;

void lc_keep(int rc, MPI_Request *request, void *a, void *b, void *c, void *d)
{
    mpii_request_t *r = rc == MPI_SUCCESS && request ? mpii_request_get(*request) : NULL;
    lc_kept_t *k = r && !r->lc_keep ? malloc(sizeof *k) : NULL;

    if (!k) {
        /* failed call; or no memory: the call has finished with the arrays
         * only if it failed, so keep them rather than free them under it */
        if (rc != MPI_SUCCESS || !r) {
            free(a), free(b), free(c), free(d);
            return;
        }
        return; /* (a leak, never a use after free) */
    }
    k->p[0] = a, k->p[1] = b, k->p[2] = c, k->p[3] = d;
    r->lc_keep = k;
}

void mpii_lc_release(void *keep)
{
    lc_kept_t *k = keep;
    for (int i = 0; i < 4; i++)
        free(k->p[i]);
    free(k);
}

static void degrees(MPI_Comm comm, int *in, int *out)
{
    int kind = MPI_UNDEFINED, w = 0, nd = 0, rank = 0;

    *in = *out = 0;
    if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return;
    if (kind == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(comm, in, out, &w);
    } else if (kind == MPI_GRAPH) {
        MPI_Comm_rank(comm, &rank);
        MPI_Graph_neighbors_count(comm, rank, in);
        *out = *in;
    } else if (kind == MPI_CART) {
        MPI_Cartdim_get(comm, &nd);
        *in = *out = 2 * nd;
    }
}

int lc_indegree(MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    return in;
}

int lc_outdegree(MPI_Comm comm)
{
    int in, out;
    degrees(comm, &in, &out);
    return out;
}
