/*
 * rma_attr: window attributes and the other window handle calls
 * (MPI 3.1 11.2.5-11.2.7, 6.7.3, 6.8), on a window of each flavor.
 *
 * - MPI_Win_get_attr of MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
 *   MPI_WIN_CREATE_FLAVOR (MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC,
 *   _SHARED) and MPI_WIN_MODEL (MPI_WIN_UNIFIED or MPI_WIN_SEPARATE, either
 *   accepted); a dynamic window has base MPI_BOTTOM and size 0 (11.2.6);
 * - MPI_Win_get_group is MPI_IDENT to the group of the communicator;
 * - MPI_Win_set_name / MPI_Win_get_name (only names set here are checked);
 * - user keyvals: MPI_Win_create_keyval, set / get / delete_attr,
 *   free_keyval; the delete callback runs with the old value when an
 *   attribute is replaced, at MPI_Win_delete_attr, and at MPI_Win_free for
 *   an attribute still set (also after its keyval was freed), with the
 *   window and the extra_state given; an unset keyval gives flag 0;
 * - MPI_Win_get_info / MPI_Win_set_info succeed and the info returned can
 *   be freed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "rma_attr"
#define CHECK_LINE
#include "check.h"

static int rank;

/* the delete callback's log */
static int del_calls;
static MPI_Win del_win;
static int del_key;
static void *del_val;
static int extra_tag;

static int del_fn(MPI_Win win, int keyval, void *attribute_val, void *extra_state)
{
    CHECK(extra_state == &extra_tag, "delete callback: extra_state %p", extra_state);
    del_calls++;
    del_win = win;
    del_key = keyval;
    del_val = attribute_val;
    return MPI_SUCCESS;
}

static void check_predefined(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor,
                             const char *what)
{
    void *b = (void *)&b;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag) == MPI_SUCCESS && flag, "%s: no MPI_WIN_BASE", what);
    CHECK(b == base, "%s: MPI_WIN_BASE %p, expected %p", what, b, base);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag) == MPI_SUCCESS && flag && sz, "%s: no MPI_WIN_SIZE",
          what);
    CHECK(*sz == size, "%s: MPI_WIN_SIZE %ld, expected %ld", what, (long)*sz, (long)size);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag && du,
          "%s: no MPI_WIN_DISP_UNIT", what);
    CHECK(*du == disp_unit, "%s: MPI_WIN_DISP_UNIT %d, expected %d", what, *du, disp_unit);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag && fl,
          "%s: no MPI_WIN_CREATE_FLAVOR", what);
    CHECK(*fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d", what, *fl, flavor);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag && model,
          "%s: no MPI_WIN_MODEL", what);
    CHECK(*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE, "%s: MPI_WIN_MODEL %d", what, *model);
}

static void check_group(MPI_Win win, MPI_Comm comm, const char *what)
{
    MPI_Group wg = MPI_GROUP_NULL, cg;
    int res = -1;
    CHECK(MPI_Win_get_group(win, &wg) == MPI_SUCCESS && wg != MPI_GROUP_NULL, "%s: Win_get_group", what);
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(wg, cg, &res);
    CHECK(res == MPI_IDENT, "%s: window group compares %d, not MPI_IDENT", what, res);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
}

static void check_info(MPI_Win win, const char *what)
{
    MPI_Info info = MPI_INFO_NULL, set;
    CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS && info != MPI_INFO_NULL, "%s: Win_get_info", what);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL, "%s: Info_free", what);
    MPI_Info_create(&set);
    MPI_Info_set(set, "mbmpi_rma_attr_test_key", "1"); /* unknown to every MPI: ignored */
    CHECK(MPI_Win_set_info(win, set) == MPI_SUCCESS, "%s: Win_set_info", what);
    MPI_Info_free(&set);
    info = MPI_INFO_NULL;
    CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS && info != MPI_INFO_NULL, "%s: Win_get_info", what);
    MPI_Info_free(&info);
}

static void check_name(MPI_Win win, const char *name)
{
    char got[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK(MPI_Win_set_name(win, name) == MPI_SUCCESS, "Win_set_name");
    CHECK(MPI_Win_get_name(win, got, &len) == MPI_SUCCESS, "Win_get_name");
    CHECK(len == (int)strlen(name) && strcmp(got, name) == 0, "name '%s' (%d), expected '%s'", got, len,
          name);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ---- MPI_Win_create ---- */
    int buf[10];
    CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS,
          "Win_create");
    check_predefined(win, buf, sizeof buf, sizeof(int), MPI_WIN_FLAVOR_CREATE, "create");
    check_group(win, MPI_COMM_WORLD, "create");
    check_info(win, "create");
    check_name(win, "rma_attr window");
    check_name(win, "renamed");

    /* user keyvals */
    int k1 = MPI_KEYVAL_INVALID, k2 = MPI_KEYVAL_INVALID, flag = -1;
    int v1 = 1, v2 = 2, v3 = 3, v4 = 4;
    void *got = NULL;
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &k1, &extra_tag) == MPI_SUCCESS &&
              k1 != MPI_KEYVAL_INVALID,
          "Win_create_keyval");
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL) == MPI_SUCCESS &&
              k2 != MPI_KEYVAL_INVALID && k2 != k1,
          "Win_create_keyval 2");
    CHECK(MPI_Win_get_attr(win, k1, &got, &flag) == MPI_SUCCESS && flag == 0, "unset keyval: flag %d", flag);
    CHECK(MPI_Win_set_attr(win, k1, &v1) == MPI_SUCCESS, "Win_set_attr");
    CHECK(del_calls == 0, "delete callback on the first set");
    CHECK(MPI_Win_get_attr(win, k1, &got, &flag) == MPI_SUCCESS && flag && got == &v1, "Win_get_attr v1");
    CHECK(MPI_Win_set_attr(win, k1, &v2) == MPI_SUCCESS, "Win_set_attr again");
    CHECK(del_calls == 1 && del_val == &v1 && del_key == k1 && del_win == win,
          "replacing: %d delete calls, value %p (v1 %p)", del_calls, del_val, (void *)&v1);
    CHECK(MPI_Win_get_attr(win, k1, &got, &flag) == MPI_SUCCESS && flag && got == &v2, "Win_get_attr v2");
    CHECK(MPI_Win_delete_attr(win, k1) == MPI_SUCCESS, "Win_delete_attr");
    CHECK(del_calls == 2 && del_val == &v2, "Win_delete_attr: %d delete calls", del_calls);
    flag = -1;
    CHECK(MPI_Win_get_attr(win, k1, &got, &flag) == MPI_SUCCESS && flag == 0, "deleted attribute: flag %d",
          flag);
    CHECK(MPI_Win_set_attr(win, k1, &v3) == MPI_SUCCESS, "Win_set_attr v3");
    CHECK(MPI_Win_set_attr(win, k2, &v4) == MPI_SUCCESS, "Win_set_attr v4");
    CHECK(MPI_Win_get_attr(win, k2, &got, &flag) == MPI_SUCCESS && flag && got == &v4, "Win_get_attr v4");
    CHECK(MPI_Win_free_keyval(&k1) == MPI_SUCCESS && k1 == MPI_KEYVAL_INVALID, "Win_free_keyval");
    CHECK(del_calls == 2, "delete callback at Win_free_keyval");
    /* the predefined attributes are still there next to the user ones */
    check_predefined(win, buf, sizeof buf, sizeof(int), MPI_WIN_FLAVOR_CREATE, "create+keyvals");
    MPI_Win old = win;
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    CHECK(del_calls == 3 && del_val == &v3 && del_win == old, "Win_free: %d delete calls, value %p",
          del_calls, del_val);
    CHECK(MPI_Win_free_keyval(&k2) == MPI_SUCCESS && k2 == MPI_KEYVAL_INVALID, "Win_free_keyval 2");

    /* ---- MPI_Win_allocate ---- */
    double *base = NULL;
    CHECK(MPI_Win_allocate(6 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
              MPI_SUCCESS,
          "Win_allocate");
    check_predefined(win, base, 6 * sizeof(double), sizeof(double), MPI_WIN_FLAVOR_ALLOCATE, "allocate");
    check_group(win, MPI_COMM_WORLD, "allocate");
    check_info(win, "allocate");
    check_name(win, "allocated");
    /* a keyval set on this window only, deleted at MPI_Win_free */
    int k3;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &k3, &extra_tag);
    MPI_Win_set_attr(win, k3, &v1);
    old = win;
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
    CHECK(del_calls == 4 && del_val == &v1 && del_key == k3 && del_win == old, "Win_free allocate: %d calls",
          del_calls);
    MPI_Win_free_keyval(&k3);

    /* ---- MPI_Win_create_dynamic: base MPI_BOTTOM, size 0, disp_unit 1 ---- */
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS, "Win_create_dynamic");
    check_predefined(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, "dynamic");
    check_group(win, MPI_COMM_WORLD, "dynamic");
    check_info(win, "dynamic");
    check_name(win, "dynamic");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");

    /* ---- MPI_Win_allocate_shared, on the even and the odd ranks apart ---- */
    {
        MPI_Comm shm, sub;
        int srank;
        int *sbase = NULL;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
        MPI_Comm_split(shm, rank % 2, rank, &sub);
        MPI_Comm_rank(sub, &srank);
        MPI_Aint bytes = (srank + 1) * 16 * sizeof(int);
        CHECK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, sub, &sbase, &win) == MPI_SUCCESS,
              "Win_allocate_shared");
        check_predefined(win, sbase, bytes, sizeof(int), MPI_WIN_FLAVOR_SHARED, "shared");
        check_group(win, sub, "shared");
        check_info(win, "shared");
        check_name(win, "shared");
        CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "Win_free");
        MPI_Comm_free(&sub);
        MPI_Comm_free(&shm);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_attr: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
