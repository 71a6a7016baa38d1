/*
 * mpit: the MPI tool information interface (MPI 3.1 14.3).
 *  - MPI_T_init_thread works before MPI_Init, and a control variable then
 *    reads what the environment says (the manifest sets
 *    MBMPI_EAGER_LIMIT=12345 and MBMPI_BCAST_ALGO=binomial);
 *  - calls outside init/finalize pairs return MPI_T_ERR_NOT_INITIALIZED,
 *    and init/finalize nest;
 *  - every cvar and pvar has a name whose index lookup finds it again;
 *    the categories list them all;
 *  - the string convention (length query, truncation with a NUL);
 *  - a pvar handle counts from 0: messages a rank sends itself show up in
 *    "self_msgs" exactly, readreset starts again at 0;
 *  - the error codes of writes, starts, bad indices, handles and sessions;
 *  - MPI_Error_class and MPI_Error_string know the MPI_T_ERR_ classes.
 */
#define TEST_NAME "mpit"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_RANK rank
#define CHECK_ABORT_IF 0 /* exit(1) alone: some checks run before MPI_Init */
#include "check.h"

static int rank = -1;

#define EXPECT(call, code)                                                                                   \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != (code))                                                                                   \
            FAIL("%s returned %d, expected %d (line %d)", #call, rc_, (int)(code), __LINE__);                \
    } while (0)

static int cvar_index(const char *name)
{
    int i = -1;
    EXPECT(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

static void check_cvars_env(void)
{
    int i, count = 0, n;
    MPI_T_cvar_handle h;
    MPI_Datatype dt;
    int v = 0;
    char s[256];

    i = cvar_index("MBMPI_EAGER_LIMIT");
    EXPECT(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == 1, "count %d for a size", count);
    CHECK(dt == MPI_UNSIGNED_LONG_LONG, "MBMPI_EAGER_LIMIT is not MPI_UNSIGNED_LONG_LONG");
    unsigned long long u = 0;
    EXPECT(MPI_T_cvar_read(h, &u), MPI_SUCCESS);
    CHECK(u == 12345, "MBMPI_EAGER_LIMIT reads %llu, the environment says 12345", u);
    EXPECT(MPI_T_cvar_write(h, &u), MPI_T_ERR_CVAR_SET_NEVER);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "freed cvar handle not nulled");

    i = cvar_index("MBMPI_BCAST_ALGO");
    EXPECT(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(dt == MPI_CHAR, "a string setting is not MPI_CHAR");
    EXPECT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count >= 9 && count <= (int)sizeof s, "count %d for a string", count);
    EXPECT(MPI_T_cvar_read(h, s), MPI_SUCCESS);
    CHECK(!strcmp(s, "binomial"), "MBMPI_BCAST_ALGO reads \"%s\"", s);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    i = cvar_index("MBMPI_STATS");
    EXPECT(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(dt == MPI_INT, "a boolean setting is not MPI_INT");
    EXPECT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 0, "MBMPI_STATS reads %d", v);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    EXPECT(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_index("MBMPI_NO_SUCH_SETTING", &i), MPI_T_ERR_INVALID_NAME);
}

/* every variable's name leads back to its index; strings as 14.3.3 says */
static void check_names(void)
{
    int n, np, nc, len, i, j, verb, bind, scope, cls, ro, cont, at;
    char name[128], small[4];
    MPI_Datatype dt;
    MPI_T_enum en;

    EXPECT(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n > 10, "only %d cvars", n);
    for (i = 0; i < n; i++) {
        len = 0;
        EXPECT(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
        CHECK(len > 1 && len <= (int)sizeof name, "cvar %d name length %d", i, len);
        int want = len;
        len = sizeof name;
        EXPECT(MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &en, NULL, NULL, &bind, &scope), MPI_SUCCESS);
        CHECK(len == want && (int)strlen(name) + 1 == len, "cvar %d: length %d for \"%s\"", i, len, name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT && en == MPI_T_ENUM_NULL, "cvar %s bind/enum", name);
        CHECK(scope == MPI_T_SCOPE_READONLY, "cvar %s scope %d", name, scope);
        EXPECT(MPI_T_cvar_get_index(name, &j), MPI_SUCCESS);
        CHECK(i == j, "cvar %s has index %d, lookup gives %d", name, i, j);
        len = sizeof small;
        EXPECT(MPI_T_cvar_get_info(i, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
        CHECK(len == 4 && small[3] == '\0' && !strncmp(small, name, 3), "truncated name \"%s\" (%d)", small,
              len);
    }
    EXPECT(MPI_T_pvar_get_num(&np), MPI_SUCCESS);
    CHECK(np > 0, "no pvars");
    for (i = 0; i < np; i++) {
        len = sizeof name;
        EXPECT(MPI_T_pvar_get_info(i, name, &len, &verb, &cls, &dt, &en, NULL, NULL, &bind, &ro, &cont, &at),
               MPI_SUCCESS);
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER && dt == MPI_UNSIGNED_LONG_LONG && ro && cont,
              "pvar %s: class %d", name, cls);
        EXPECT(MPI_T_pvar_get_index(name, cls, &j), MPI_SUCCESS);
        CHECK(i == j, "pvar %s has index %d, lookup gives %d", name, i, j);
        EXPECT(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_TIMER, &j), MPI_T_ERR_INVALID_NAME);
    }
    EXPECT(MPI_T_pvar_get_info(np, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);

    /* the categories list every variable once */
    int seen_c = 0, seen_p = 0, stamp = -1;
    EXPECT(MPI_T_category_get_num(&nc), MPI_SUCCESS);
    for (i = 0; i < nc; i++) {
        int ncv, npv, ncat, *idx;
        len = sizeof name;
        EXPECT(MPI_T_category_get_info(i, name, &len, NULL, NULL, &ncv, &npv, &ncat), MPI_SUCCESS);
        EXPECT(MPI_T_category_get_index(name, &j), MPI_SUCCESS);
        CHECK(i == j, "category %s index", name);
        idx = malloc(sizeof(int) * (size_t)(ncv + npv + 1));
        EXPECT(MPI_T_category_get_cvars(i, ncv, idx), MPI_SUCCESS);
        for (j = 0; j < ncv; j++)
            CHECK(idx[j] >= 0 && idx[j] < n, "category %s: cvar index %d", name, idx[j]);
        EXPECT(MPI_T_category_get_pvars(i, npv, idx), MPI_SUCCESS);
        for (j = 0; j < npv; j++)
            CHECK(idx[j] >= 0 && idx[j] < np, "category %s: pvar index %d", name, idx[j]);
        EXPECT(MPI_T_category_get_categories(i, 0, idx), MPI_SUCCESS);
        free(idx);
        seen_c += ncv;
        seen_p += npv;
    }
    CHECK(seen_c == n && seen_p == np, "categories hold %d cvars and %d pvars of %d and %d", seen_c, seen_p,
          n, np);
    EXPECT(MPI_T_category_get_info(nc, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_category_changed(&stamp), MPI_SUCCESS);
}

static void check_pvars(void)
{
    MPI_T_pvar_session s, s2;
    MPI_T_pvar_handle h, h2;
    int i, count = 0, v[8];
    unsigned long long x = 99;
    const int n = 5;

    EXPECT(MPI_T_pvar_get_index("self_msgs", MPI_T_PVAR_CLASS_COUNTER, &i), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == 1, "pvar count %d", count);
    EXPECT(MPI_T_pvar_read(s, h, &x), MPI_SUCCESS);
    CHECK(x == 0, "a new handle reads %llu", x);

    for (int k = 0; k < n; k++) {
        MPI_Request r;
        int out = k, in = -1;
        EXPECT(MPI_Isend(&out, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        EXPECT(MPI_Recv(&in, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
        v[k] = in;
    }
    CHECK(v[n - 1] == n - 1, "self message");
    EXPECT(MPI_T_pvar_read(s, h, &x), MPI_SUCCESS);
    CHECK(x == (unsigned long long)n, "self_msgs counts %llu after %d messages to self", x, n);
    EXPECT(MPI_T_pvar_readreset(s, h, &x), MPI_SUCCESS);
    CHECK(x == (unsigned long long)n, "readreset gave %llu", x);
    EXPECT(MPI_T_pvar_read(s, h, &x), MPI_SUCCESS);
    CHECK(x == 0, "after readreset the handle reads %llu", x);

    /* the continuous, read-only counters */
    EXPECT(MPI_T_pvar_write(s, h, &x), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_start(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_stop(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);

    /* a handle belongs to its session */
    EXPECT(MPI_T_pvar_read(s2, h, &x), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h, &x), MPI_T_ERR_INVALID_SESSION);
    EXPECT(MPI_T_pvar_handle_alloc(s2, i, NULL, &h2, &count), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_handle_free(s, &h2), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_handle_free(s2, &h2), MPI_SUCCESS);
    CHECK(h2 == MPI_T_PVAR_HANDLE_NULL, "freed pvar handle not nulled");
    EXPECT(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "freed session not nulled");
    EXPECT(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
    EXPECT(MPI_T_pvar_session_free(&s2), MPI_T_ERR_INVALID_SESSION);
}

int main(int argc, char **argv)
{
    int provided = -1, n, cls = -1, len;
    char str[MPI_MAX_ERROR_STRING];

    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_SINGLE, "MPI_T provided %d", provided);
    check_cvars_env(); /* before MPI_Init */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS); /* nested */
    check_cvars_env();
    check_names();
    check_pvars();
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one init left */
    EXPECT(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);

    EXPECT(MPI_Error_class(MPI_T_ERR_INVALID_INDEX, &cls), MPI_SUCCESS);
    CHECK(cls == MPI_T_ERR_INVALID_INDEX, "class of MPI_T_ERR_INVALID_INDEX is %d", cls);
    EXPECT(MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER, str, &len), MPI_SUCCESS);
    CHECK(strstr(str, "MPI_T_ERR_CVAR_SET_NEVER"), "error string \"%s\"", str);
    CHECK(MPI_T_ERR_INVALID < MPI_ERR_LASTCODE, "MPI_T_ERR_ classes above MPI_ERR_LASTCODE");

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("%s: ok\n", TEST_NAME);
    return 0;
}
