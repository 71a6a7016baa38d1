/*
 * attr: attribute caching on communicators (MPI 3.1 6.7). Copy callbacks
 * run at MPI_Comm_dup (not at split or create) with the right arguments and
 * decide, through their flag, whether the new communicator gets the
 * attribute; delete callbacks run at MPI_Comm_free, MPI_Comm_delete_attr
 * and when an attribute is set again, once per attribute; a keyval freed
 * while attributes use it keeps working for them; MPI_COMM_NULL_COPY_FN /
 * MPI_COMM_DUP_FN / MPI_COMM_NULL_DELETE_FN and the MPI-1 names; the
 * predefined attributes; error classes; a failing callback fails the call.
 * At MPI_Finalize the attributes of MPI_COMM_SELF are deleted first (MPI
 * 3.1 8.7.1), last set first, while MPI is still fully usable; main checks
 * the record after MPI_Finalize returns.
 */
#define TEST_NAME "attr"
#include "mpi3_test.h"

static int rank, size;

/* what the callbacks saw */
static int ncopy, ndelete;
static MPI_Comm last_comm;
static int last_key;
static void *last_val, *last_extra;
static int copy_result = MPI_SUCCESS, delete_result = MPI_SUCCESS;

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ncopy++;
    last_comm = oldcomm;
    last_key = keyval;
    last_val = in;
    last_extra = extra;
    if (copy_result != MPI_SUCCESS)
        return copy_result;
    /* the copy carries the value + 1 */
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int nocopy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
    ncopy++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    ndelete++;
    last_comm = comm;
    last_key = keyval;
    last_val = val;
    last_extra = extra;
    return delete_result;
}

/* ---- finalize order: attributes on MPI_COMM_SELF and MPI_COMM_WORLD ---- */
#define NFIN 6
static int fin_keys[NFIN], fin_order[2 * NFIN], nfin, fin_bad;

static int fin_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    int flag = 0, fin = 1, sz;
    (void)keyval, (void)extra;
    /* MPI must still be usable: not finalized, communicators work */
    MPI_Finalized(&fin);
    if (fin || MPI_Comm_size(MPI_COMM_WORLD, &sz) != MPI_SUCCESS || sz != size)
        fin_bad = 1;
    MPI_Initialized(&flag);
    if (!flag)
        fin_bad = 1;
    fin_order[nfin++] = (comm == MPI_COMM_SELF ? 100 : 200) + (int)(long)val;
    return MPI_SUCCESS;
}

static void basic(void)
{
    MPI_Comm dup, dup2, split;
    int key, key2, key3, flag, extra = 42;
    void *v;

    MPI_CHECK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra));
    CHECK(key != MPI_KEYVAL_INVALID, "keyval");
    MPI_CHECK(MPI_Comm_create_keyval(nocopy_fn, delete_fn, &key2, NULL));
    MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key3, NULL));
    CHECK(key != key2 && key2 != key3, "keyvals not distinct");

    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(!flag, "attribute present before it was set");
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHECK(MPI_Comm_set_attr(dup, key, (void *)1000));
    MPI_CHECK(MPI_Comm_set_attr(dup, key2, (void *)2000));
    MPI_CHECK(MPI_Comm_set_attr(dup, key3, (void *)3000));
    MPI_CHECK(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK(flag && v == (void *)1000, "get_attr gave %p", v);
    CHECK(ncopy == 0 && ndelete == 0, "callbacks ran at set (%d, %d)", ncopy, ndelete);

    /* setting again deletes the old value first */
    MPI_CHECK(MPI_Comm_set_attr(dup, key, (void *)1001));
    CHECK(ndelete == 1 && last_comm == dup && last_key == key && last_val == (void *)1000 &&
              last_extra == &extra,
          "delete at re-set: %d calls, key %d val %p", ndelete, last_key, last_val);

    /* dup: copy_fn (flag 1) and nocopy_fn (flag 0) run once each; the null
     * copy function drops key3 */
    MPI_CHECK(MPI_Comm_dup(dup, &dup2));
    CHECK(ncopy == 2, "%d copy callbacks at dup, expected 2", ncopy);
    MPI_CHECK(MPI_Comm_get_attr(dup2, key, &v, &flag));
    CHECK(flag && v == (void *)1002, "copied attribute %p (flag %d), expected 1002", v, flag);
    MPI_CHECK(MPI_Comm_get_attr(dup2, key2, &v, &flag));
    CHECK(!flag, "attribute with flag-0 copy was copied");
    MPI_CHECK(MPI_Comm_get_attr(dup2, key3, &v, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    /* the original is untouched */
    MPI_CHECK(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK(flag && v == (void *)1001, "original changed");

    /* split does not copy */
    MPI_CHECK(MPI_Comm_split(dup, 0, rank, &split));
    CHECK(ncopy == 2, "split ran copy callbacks");
    MPI_CHECK(MPI_Comm_get_attr(split, key, &v, &flag));
    CHECK(!flag, "split communicator has the attribute");
    MPI_CHECK(MPI_Comm_free(&split));
    CHECK(ndelete == 1, "free of a communicator without attributes ran callbacks");

    /* delete_attr: callback once; then gone; deleting again is fine */
    MPI_CHECK(MPI_Comm_delete_attr(dup, key2));
    CHECK(ndelete == 2 && last_val == (void *)2000 && last_key == key2 && last_extra == NULL, "delete_attr");
    MPI_CHECK(MPI_Comm_get_attr(dup, key2, &v, &flag));
    CHECK(!flag, "attribute still there after delete_attr");

    /* free the keyval while dup and dup2 still hold attributes of it: they
     * can still be read and deleted through a copy of the handle (MPI 3.1
     * 6.7.2: the free happens when the last of them goes) */
    int saved = key;
    MPI_CHECK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the keyval");
    MPI_CHECK(MPI_Comm_get_attr(dup2, saved, &v, &flag));
    CHECK(flag && v == (void *)1002, "attribute of a freed keyval unreadable");
    MPI_CHECK(MPI_Comm_delete_attr(dup2, saved));
    CHECK(ndelete == 3 && last_val == (void *)1002, "delete_attr through a freed keyval");
    /* free: one delete per attribute left (dup: key, key3 null-delete;
     * dup2: none now) */
    MPI_CHECK(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL, "Comm_free did not reset the handle");
    CHECK(ndelete == 3, "free of dup2 ran a delete callback again");
    MPI_CHECK(MPI_Comm_free(&dup));
    CHECK(ndelete == 4 && last_val == (void *)1001, "delete at free of dup (%d)", ndelete);
    MPI_CHECK(MPI_Comm_free_keyval(&key2));
    MPI_CHECK(MPI_Comm_free_keyval(&key3));
}

static void dup_fn_and_old_api(void)
{
    MPI_Comm dup;
    int key, flag, *p, val = 7;
    void *v;

    /* MPI_COMM_DUP_FN shares the value */
    MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val));
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHECK(MPI_Comm_get_attr(dup, key, &p, &flag));
    CHECK(flag && p == &val, "MPI_COMM_DUP_FN");
    MPI_CHECK(MPI_Comm_free(&dup));
    MPI_CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    MPI_CHECK(MPI_Comm_free_keyval(&key));

    /* MPI-1 names */
    MPI_CHECK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &key, NULL));
    MPI_CHECK(MPI_Attr_put(MPI_COMM_WORLD, key, (void *)77));
    MPI_CHECK(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
    CHECK(flag && v == (void *)77, "Attr_get");
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_CHECK(MPI_Attr_get(dup, key, &v, &flag));
    CHECK(flag && v == (void *)77, "MPI_DUP_FN through Comm_dup");
    MPI_CHECK(MPI_Attr_delete(dup, key));
    MPI_CHECK(MPI_Attr_get(dup, key, &v, &flag));
    CHECK(!flag, "Attr_delete");
    MPI_CHECK(MPI_Comm_free(&dup));
    MPI_CHECK(MPI_Attr_delete(MPI_COMM_WORLD, key));
    MPI_CHECK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Keyval_free");
    MPI_CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, NULL));
    MPI_CHECK(MPI_Keyval_free(&key));
}

static void predefined(void)
{
    int *p, flag;

    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "MPI_TAG_UB %d", flag ? *p : -1);
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag));
    CHECK(flag && (*p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_HOST");
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag));
    CHECK(flag && (*p == MPI_ANY_SOURCE || *p == MPI_PROC_NULL || (*p >= 0 && *p < size)), "MPI_IO");
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
    CHECK(!flag || *p == 0 || *p == 1, "MPI_WTIME_IS_GLOBAL");
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag));
    CHECK(!flag || *p >= 0, "MPI_APPNUM");
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag));
    CHECK(!flag || *p >= 1, "MPI_UNIVERSE_SIZE %d", *p);
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
}

static void errors(void)
{
    int key, bad = 123456, flag;
    void *v;
    MPI_Comm dup;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, bad, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, bad, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, NULL), MPI_ERR_ARG);
    bad = MPI_KEYVAL_INVALID;
    EXPECT_CLASS(MPI_Comm_free_keyval(&bad), MPI_ERR_KEYVAL);

    /* a type keyval is not a communicator keyval */
    MPI_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &key, NULL));
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL), MPI_ERR_KEYVAL);
    MPI_CHECK(MPI_Type_set_attr(MPI_INT, key, (void *)5));
    MPI_CHECK(MPI_Type_get_attr(MPI_INT, key, &v, &flag));
    CHECK(flag && v == (void *)5, "type attribute");
    MPI_CHECK(MPI_Type_delete_attr(MPI_INT, key));
    MPI_CHECK(MPI_Type_free_keyval(&key));

    /* a failing copy callback fails the dup with its code */
    MPI_CHECK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)9));
    copy_result = MPI_ERR_OTHER;
    dup = MPI_COMM_WORLD;
    EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_SELF, &dup), MPI_ERR_OTHER);
    CHECK(dup == MPI_COMM_NULL, "a failed dup left newcomm %d, not MPI_COMM_NULL", (int)dup);
    copy_result = MPI_SUCCESS;
    /* a failing delete callback fails the delete; the attribute stays */
    delete_result = MPI_ERR_ARG;
    EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_SELF, key), MPI_ERR_ARG);
    delete_result = MPI_SUCCESS;
    MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_SELF, key, &v, &flag));
    CHECK(flag && v == (void *)9, "attribute gone after a failed delete");
    MPI_CHECK(MPI_Comm_delete_attr(MPI_COMM_SELF, key));
    MPI_CHECK(MPI_Comm_free_keyval(&key));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* ---- datatype attributes: copied at MPI_Type_dup, deleted at MPI_Type_free ---- */
static int tcopies, tdeletes;
static MPI_Datatype tlast;

static int tcopy_fn(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval, (void)extra;
    tcopies++;
    tlast = old;
    *(void **)out = (char *)in + 10;
    *flag = 1;
    return MPI_SUCCESS;
}

static int tdelete_fn(MPI_Datatype dt, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    tdeletes++;
    tlast = dt;
    return MPI_SUCCESS;
}

static void type_attrs(void)
{
    MPI_Datatype t, d;
    int key, flag = 0;
    void *v = NULL;

    MPI_CHECK(MPI_Type_create_keyval(tcopy_fn, tdelete_fn, &key, NULL));
    MPI_CHECK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_CHECK(MPI_Type_set_attr(t, key, (void *)7));
    MPI_CHECK(MPI_Type_dup(t, &d));
    CHECK(tcopies == 1 && tlast == t, "Type_dup ran the copy callback %d times", tcopies);
    MPI_CHECK(MPI_Type_get_attr(d, key, &v, &flag));
    CHECK(flag && v == (void *)17, "the duplicate's attribute is %p (flag %d), expected 17", v, flag);
    MPI_CHECK(MPI_Type_free(&d));
    CHECK(tdeletes == 1, "Type_free of the duplicate ran the delete callback %d times", tdeletes);
    MPI_CHECK(MPI_Type_free(&t));
    CHECK(tdeletes == 2, "Type_free ran the delete callback %d times in all, expected 2", tdeletes);
    /* a new type (which may reuse a freed handle) starts without attributes */
    MPI_CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_CHECK(MPI_Type_get_attr(t, key, &v, &flag));
    CHECK(!flag, "a new type has the attribute of a freed one");
    MPI_CHECK(MPI_Type_free(&t));
    CHECK(tdeletes == 2, "a type without the attribute ran its delete callback");
    MPI_CHECK(MPI_Type_free_keyval(&key));
}

int main(int argc, char **argv)
{
    int i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    basic();
    dup_fn_and_old_api();
    predefined();
    errors();
    type_attrs();
    /* interleave sets on SELF and WORLD; SELF's go first at Finalize */
    for (i = 0; i < NFIN; i++) {
        MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fin_delete, &fin_keys[i], NULL));
        MPI_CHECK(MPI_Comm_set_attr(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, fin_keys[i], (void *)(long)i));
    }
    /* freeing the keyvals now must not lose the attributes */
    for (i = 0; i < NFIN; i += 2)
        MPI_CHECK(MPI_Comm_free_keyval(&fin_keys[i]));
    MPI_Finalize();
    {
        /* expected: SELF attributes 4, 2, 0 (last set first), then WORLD's */
        static const int want[NFIN] = {104, 102, 100, 205, 203, 201};
        if (fin_bad || nfin != NFIN) {
            fprintf(stderr, "FAIL attr: %d delete callbacks at MPI_Finalize (expected %d)%s\n", nfin, NFIN,
                    fin_bad ? ", MPI not usable in one" : "");
            return 1;
        }
        for (i = 0; i < NFIN; i++)
            if (fin_order[i] != want[i]) {
                fprintf(stderr, "FAIL attr: delete callback %d at MPI_Finalize was %d, expected %d\n", i,
                        fin_order[i], want[i]);
                return 1;
            }
    }
    if (rank == 0)
        printf("No Errors\n");
    return 0;
}
