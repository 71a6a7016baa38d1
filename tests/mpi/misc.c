/*
 * misc: MPI_Alloc_mem / Free_mem, MPI_Pcontrol, info objects,
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (all ranks of a one-host job land
 * in one communicator, ordered by key), and a status through the Fortran and
 * mpi_f08 forms (MPI_Status_c2f / f2c, c2f08 / f082c, f2f08 / f082f).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define TEST_NAME "misc"
#define CHECK_LINE
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, nrank, nsize, flag, n;
    char *mem, val[16];
    MPI_Info info;
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(MPI_Alloc_mem(4096, MPI_INFO_NULL, &mem) == MPI_SUCCESS, "Alloc_mem");
    memset(mem, 7, 4096);
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS, "Free_mem");
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS, "Pcontrol");

    {
        MPI_Status c = {0}, back;
        MPI_F08_status f08, f08b;
        MPI_Fint f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
        int count = -1;
        c.MPI_SOURCE = 3, c.MPI_TAG = 77, c.MPI_ERROR = MPI_ERR_TRUNCATE;
        MPI_Status_set_elements(&c, MPI_INT, 5);
        MPI_CHECK(MPI_Status_c2f08(&c, &f08));
        CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 77 && f08.MPI_ERROR == MPI_ERR_TRUNCATE, "c2f08 %d %d %d",
              f08.MPI_SOURCE, f08.MPI_TAG, f08.MPI_ERROR);
        MPI_CHECK(MPI_Status_f082f(&f08, f));
        MPI_CHECK(MPI_Status_f2f08(f, &f08b));
        MPI_CHECK(MPI_Status_f082c(&f08b, &back));
        MPI_CHECK(MPI_Get_count(&back, MPI_INT, &count));
        CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 77 && count == 5, "status round trip: %d %d count %d",
              back.MPI_SOURCE, back.MPI_TAG, count);
        CHECK(MPI_Status_c2f08(&c, MPI_F08_STATUS_IGNORE) == MPI_ERR_ARG, "c2f08 into MPI_F08_STATUS_IGNORE");
    }

    MPI_Info_create(&info);
    MPI_Info_set(info, "alpha", "one");
    MPI_Info_set(info, "beta", "two");
    MPI_Info_set(info, "alpha", "uno");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "nkeys %d", n);
    MPI_Info_get(info, "alpha", (int)sizeof(val) - 1, val, &flag);
    CHECK(flag && !strcmp(val, "uno"), "get alpha");
    MPI_Info_get(info, "gamma", (int)sizeof(val) - 1, val, &flag);
    CHECK(!flag, "gamma should be absent");
    MPI_Info_get(info, "beta", (int)sizeof(val) - 1, val, &flag);
    CHECK(flag && !strcmp(val, "two"), "get beta '%s'", val);
    /* keys in the order first set; valuelen; get_string's lengths */
    {
        char key[MPI_MAX_INFO_KEY + 1], small[3];
        int len = -1, buflen;
        MPI_Info dup;
        MPI_Info_get_nthkey(info, 0, key);
        CHECK(!strcmp(key, "alpha"), "nthkey 0 is '%s'", key);
        MPI_Info_get_nthkey(info, 1, key);
        CHECK(!strcmp(key, "beta"), "nthkey 1 is '%s'", key);
        MPI_Info_get_valuelen(info, "alpha", &len, &flag);
        CHECK(flag && len == 3, "valuelen of alpha %d", len);
        MPI_Info_get_valuelen(info, "gamma", &len, &flag);
        CHECK(!flag, "valuelen of an absent key");
        buflen = (int)sizeof small;
        MPI_Info_get_string(info, "alpha", &buflen, small, &flag);
        CHECK(flag && buflen == 4 && !strcmp(small, "un"), "get_string into 3 bytes: %d '%s'", buflen, small);
        /* a value shorter than valuelen writes no more than itself and its NUL */
        memset(val, 'x', sizeof val);
        MPI_Info_get(info, "alpha", (int)sizeof(val), val, &flag);
        CHECK(flag && !strcmp(val, "uno") && val[4] == 'x',
              "get with valuelen = buffer size wrote past the value");
        MPI_Info_dup(info, &dup);
        MPI_Info_delete(info, "alpha");
        MPI_Info_get(dup, "alpha", (int)sizeof(val) - 1, val, &flag);
        CHECK(flag && !strcmp(val, "uno"), "dup lost alpha");
        MPI_Info_get_nkeys(dup, &n);
        CHECK(n == 2, "dup nkeys %d", n);
        MPI_Info_free(&dup);
        MPI_Info_set(info, "alpha", "uno");
    }
    MPI_Info_delete(info, "beta");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 1, "nkeys after delete %d", n);
    MPI_Info_free(&info);
    CHECK(info == MPI_INFO_NULL, "Info_free did not reset the handle");

    /* MPI_INFO_ENV: the command and the number of processes */
    {
        char v[MPI_MAX_INFO_VAL + 1], want[16];
        MPI_Info env = MPI_INFO_ENV;
        MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, v, &flag);
        CHECK(flag && strstr(v, "misc") != NULL, "MPI_INFO_ENV command '%s'", flag ? v : "(none)");
        MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, v, &flag);
        snprintf(want, sizeof want, "%d", size);
        CHECK(flag && !strcmp(v, want), "MPI_INFO_ENV maxprocs '%s'", flag ? v : "(none)");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK(MPI_Info_free(&env) != MPI_SUCCESS, "MPI_Info_free(MPI_INFO_ENV) succeeded");
        /* the info classes of MPI 4.0 10.1: a key or value too long, a
         * missing key to delete */
        {
            static char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
            char msg[MPI_MAX_ERROR_STRING];
            int cls, len;
            MPI_Info inf;
            memset(longkey, 'k', sizeof longkey - 1);
            memset(longval, 'v', sizeof longval - 1);
            MPI_Info_create(&inf);
            MPI_Error_class(MPI_Info_set(inf, longkey, "v"), &cls);
            CHECK(cls == MPI_ERR_INFO_KEY, "Info_set with a long key: class %d", cls);
            MPI_Error_class(MPI_Info_set(inf, "k", longval), &cls);
            CHECK(cls == MPI_ERR_INFO_VALUE, "Info_set with a long value: class %d", cls);
            MPI_Error_class(MPI_Info_delete(inf, "absent"), &cls);
            CHECK(cls == MPI_ERR_INFO_NOKEY, "Info_delete of a missing key: class %d", cls);
            MPI_Error_string(MPI_ERR_INFO_NOKEY, msg, &len);
            CHECK(strstr(msg, "MPI_ERR_INFO_NOKEY") != NULL, "string of MPI_ERR_INFO_NOKEY: '%s'", msg);
            MPI_Error_class(MPI_ERR_RMA_SYNC, &cls);
            CHECK(cls == MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC is not a class: %d", cls);
            CHECK(MPI_ERR_VALUE_TOO_LARGE <= MPI_ERR_LASTCODE, "classes above MPI_ERR_LASTCODE");
            MPI_Info_free(&inf);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    /* one host: everyone in one node communicator, ordered by key */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    CHECK(nsize == size && nrank == size - 1 - rank, "node comm: rank %d of %d", nrank, nsize);
    {
        int x = nrank, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, node);
        CHECK(sum == size * (size - 1) / 2, "node allreduce %d", sum);
    }
    MPI_Comm_free(&node);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node);
    CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED split type gives MPI_COMM_NULL");
    /* MPI 4.0: HW_GUIDED by mpi_hw_resource_type (mpi_shared_memory is the
     * host here; no key or an unknown resource: MPI_COMM_NULL), HW_UNGUIDED
     * has no strict subset below the host */
    {
        MPI_Info hint;
        MPI_Info_create(&hint);
        MPI_Info_set(hint, "mpi_hw_resource_type", "mpi_shared_memory");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, hint, &node);
        CHECK(node != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
        MPI_Comm_size(node, &nsize);
        CHECK(nsize == size, "HW_GUIDED mpi_shared_memory: size %d", nsize);
        MPI_Comm_free(&node);
        MPI_Info_set(hint, "mpi_hw_resource_type", "no-such-resource");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, hint, &node);
        CHECK(node == MPI_COMM_NULL, "HW_GUIDED with an unknown resource gave a communicator");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, MPI_INFO_NULL, &node);
        CHECK(node == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, hint, &node);
        CHECK(node == MPI_COMM_NULL, "HW_UNGUIDED gave a communicator");
        MPI_Info_free(&hint);
    }
    /* split types may differ by rank when some give MPI_UNDEFINED (the
     * colour of MPI_Comm_split): the others still get their node */
    MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                        &node);
    if (rank % 2) {
        CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED beside MPI_COMM_TYPE_SHARED gave a communicator");
    } else {
        CHECK(node != MPI_COMM_NULL, "MPI_COMM_TYPE_SHARED beside MPI_UNDEFINED gave MPI_COMM_NULL");
        MPI_Comm_size(node, &nsize);
        CHECK(nsize == (size + 1) / 2, "MPI_COMM_TYPE_SHARED beside MPI_UNDEFINED: size %d", nsize);
        MPI_Comm_free(&node);
    }
    MPI_Finalize();
    return 0;
}
