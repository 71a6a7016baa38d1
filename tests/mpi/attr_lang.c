/*
 * attr_lang: attributes set in one language and read in the other
 * (MPI 3.1 17.2.7, Examples 17.13 and 17.14). The Fortran side is played
 * by calling the library's Fortran bindings (mpi_comm_set_attr_ ...) from
 * C with Fortran's conventions (everything by reference), as a Fortran
 * program's calls arrive.
 *
 * - set from Fortran as INTEGER(KIND=MPI_ADDRESS_KIND) (MPI_COMM_SET_ATTR,
 *   MPI_TYPE_SET_ATTR, MPI_WIN_SET_ATTR): C reads the address of that
 *   integer, and the integer there is the value set;
 * - set from Fortran as INTEGER (MPI_ATTR_PUT): C reads the address of an
 *   int holding it; Fortran reads it back sign-extended (MPI-2 call) or as
 *   it was (MPI-1 call);
 * - set from C: Fortran reads the address (or the integer cast to a
 *   pointer) as an integer;
 * - a C keyval's callbacks see an integer-valued attribute as C reads it:
 *   MPI_COMM_DUP_FN copies the integer (the copy's integer is read after
 *   the original is gone), a copy callback that returns another address
 *   makes an address-valued attribute, a delete callback gets the address
 *   of the integer;
 * - a Fortran keyval's callbacks get the integer itself.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_NAME "attr_lang"
#define CHECK_LINE
#include "check.h"

/* the library's Fortran bindings, as gfortran calls them */
void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr);
void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr);
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr);
void mpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr);
typedef void(fcopy_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                       MPI_Fint *flag, MPI_Fint *ierr);
typedef void(fdelete_fn)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr);
void mpi_comm_create_keyval_(fcopy_fn *copy, fdelete_fn *del, MPI_Fint *keyval, MPI_Aint *extra,
                             MPI_Fint *ierr);

static MPI_Fint fworld;

/* Fortran: CALL MPI_COMM_SET_ATTR(comm, keyval, v, ierr) */
static void f_set(MPI_Comm comm, int keyval, MPI_Aint v)
{
    MPI_Fint fc = MPI_Comm_c2f(comm), fk = keyval, ierr = -1;
    mpi_comm_set_attr_(&fc, &fk, &v, &ierr);
    CHECK(ierr == MPI_SUCCESS, "MPI_COMM_SET_ATTR: ierr %d", (int)ierr);
}

/* Fortran: CALL MPI_COMM_GET_ATTR(comm, keyval, v, flag, ierr); flag required */
static MPI_Aint f_get(MPI_Comm comm, int keyval)
{
    MPI_Fint fc = MPI_Comm_c2f(comm), fk = keyval, flag = 0, ierr = -1;
    MPI_Aint v = 0;
    mpi_comm_get_attr_(&fc, &fk, &v, &flag, &ierr);
    CHECK(ierr == MPI_SUCCESS && flag, "MPI_COMM_GET_ATTR: ierr %d flag %d", (int)ierr, (int)flag);
    return v;
}

/* C: MPI_Comm_get_attr; flag required */
static void *c_get(MPI_Comm comm, int keyval)
{
    void *p = NULL;
    int flag = 0;
    CHECK(MPI_Comm_get_attr(comm, keyval, &p, &flag) == MPI_SUCCESS && flag, "MPI_Comm_get_attr: flag %d",
          flag);
    return p;
}

/* C callbacks: what they were given */
static int del_calls;
static MPI_Aint del_seen;
static int c_del(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    del_calls++;
    del_seen = *(MPI_Aint *)val; /* the address of the integer */
    return MPI_SUCCESS;
}

static MPI_Aint copy_target = 99;
static int c_copy_other(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    CHECK(*(MPI_Aint *)in == 31, "C copy callback: *in = %ld, want 31", (long)*(MPI_Aint *)in);
    *(void **)out = &copy_target;
    *flag = 1;
    return MPI_SUCCESS;
}

/* A "Fortran" keyval's callbacks: the integer itself, by reference */
static MPI_Aint f_copy_in, f_del_val;
static void f_copy(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                   MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra;
    f_copy_in = *in;
    *out = *in + 2;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
static void f_del(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)obj, (void)keyval, (void)extra;
    f_del_val = *val;
    *ierr = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int key, key1, kdup, kother, kf, flag;
    MPI_Comm dup;
    int set_int = 3;

    MPI_Init(&argc, &argv);
    fworld = MPI_Comm_c2f(MPI_COMM_WORLD);

    /* Fortran MPI-2 set, C read: the address of the integer */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    f_set(MPI_COMM_WORLD, key, 5555);
    {
        MPI_Aint *v = c_get(MPI_COMM_WORLD, key);
        CHECK(v && *v == 5555, "Fortran set 5555, C read %p -> %ld", (void *)v, v ? (long)*v : 0L);
    }
    CHECK(f_get(MPI_COMM_WORLD, key) == 5555, "Fortran set 5555, Fortran read %ld",
          (long)f_get(MPI_COMM_WORLD, key));
    /* set again with a negative value: the new integer */
    f_set(MPI_COMM_WORLD, key, -12345678901LL);
    CHECK(*(MPI_Aint *)c_get(MPI_COMM_WORLD, key) == -12345678901LL, "second Fortran set, C read %ld",
          (long)*(MPI_Aint *)c_get(MPI_COMM_WORLD, key));

    /* C set, Fortran read: the address (or the integer) */
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &set_int);
    CHECK(f_get(MPI_COMM_WORLD, key) == (MPI_Aint)(intptr_t)&set_int, "C set &x, Fortran read %ld",
          (long)f_get(MPI_COMM_WORLD, key));
    CHECK(c_get(MPI_COMM_WORLD, key) == &set_int, "C set &x, C read another address");
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)17);
    CHECK(f_get(MPI_COMM_WORLD, key) == 17, "C set (void *)17, Fortran read %ld",
          (long)f_get(MPI_COMM_WORLD, key));
    MPI_Comm_free_keyval(&key);

    /* Fortran MPI-1 put: C reads the address of an int; both Fortran forms read it back */
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key1, NULL);
    {
        MPI_Fint fk = key1, v = -7, ierr = -1, fflag = 0, back = 0;
        mpi_attr_put_(&fworld, &fk, &v, &ierr);
        CHECK(ierr == MPI_SUCCESS, "MPI_ATTR_PUT: ierr %d", (int)ierr);
        int *ip = c_get(MPI_COMM_WORLD, key1);
        CHECK(ip && *ip == -7, "MPI_ATTR_PUT -7, C read %p -> %d", (void *)ip, ip ? *ip : 0);
        CHECK(f_get(MPI_COMM_WORLD, key1) == -7, "MPI_ATTR_PUT -7, MPI_COMM_GET_ATTR %ld",
              (long)f_get(MPI_COMM_WORLD, key1));
        mpi_attr_get_(&fworld, &fk, &back, &fflag, &ierr);
        CHECK(ierr == MPI_SUCCESS && fflag && back == -7, "MPI_ATTR_GET: ierr %d flag %d value %d", (int)ierr,
              (int)fflag, (int)back);
    }
    MPI_Keyval_free(&key1);

    /* C keyval, MPI_COMM_DUP_FN: the copy has its own integer */
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, c_del, &kdup, NULL);
    f_set(MPI_COMM_WORLD, kdup, 42);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    del_calls = 0;
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup);
    CHECK(del_calls == 1 && del_seen == 42, "C delete callback: %d calls, saw %ld (want 1, 42)", del_calls,
          (long)del_seen);
    {
        MPI_Aint *v = c_get(dup, kdup);
        CHECK(*v == 42, "MPI_COMM_DUP_FN copy of a Fortran 42: C read %ld", (long)*v);
        CHECK(f_get(dup, kdup) == 42, "MPI_COMM_DUP_FN copy of a Fortran 42: Fortran read %ld",
              (long)f_get(dup, kdup));
    }
    del_calls = 0;
    MPI_Comm_free(&dup);
    CHECK(del_calls == 1 && del_seen == 42, "MPI_Comm_free: C delete callback %d calls, saw %ld", del_calls,
          (long)del_seen);
    MPI_Comm_free_keyval(&kdup);

    /* C keyval whose copy callback returns another address */
    MPI_Comm_create_keyval(c_copy_other, MPI_COMM_NULL_DELETE_FN, &kother, NULL);
    f_set(MPI_COMM_WORLD, kother, 31);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(c_get(dup, kother) == &copy_target, "C copy callback's address: C read another");
    CHECK(f_get(dup, kother) == (MPI_Aint)(intptr_t)&copy_target,
          "C copy callback's address: Fortran read %ld", (long)f_get(dup, kother));
    MPI_Comm_free(&dup);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kother);
    MPI_Comm_free_keyval(&kother);

    /* Fortran keyval: its callbacks get the integer */
    {
        MPI_Fint fk = 0, ierr = -1;
        MPI_Aint extra = 0;
        mpi_comm_create_keyval_(f_copy, f_del, &fk, &extra, &ierr);
        CHECK(ierr == MPI_SUCCESS, "MPI_COMM_CREATE_KEYVAL: ierr %d", (int)ierr);
        kf = fk;
    }
    f_set(MPI_COMM_WORLD, kf, 1000);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(f_copy_in == 1000, "Fortran copy callback got %ld, want 1000", (long)f_copy_in);
    CHECK(f_get(dup, kf) == 1002, "Fortran copy callback's 1002: Fortran read %ld", (long)f_get(dup, kf));
    CHECK(*(MPI_Aint *)c_get(dup, kf) == 1002, "Fortran copy callback's 1002: C read %ld",
          (long)*(MPI_Aint *)c_get(dup, kf));
    MPI_Comm_free(&dup);
    CHECK(f_del_val == 1002, "Fortran delete callback got %ld, want 1002", (long)f_del_val);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kf);
    CHECK(f_del_val == 1000, "Fortran delete callback got %ld, want 1000", (long)f_del_val);
    MPI_Comm_free_keyval(&kf);

    /* datatypes and windows: Fortran set, C read */
    {
        MPI_Datatype t;
        MPI_Win win;
        MPI_Fint ft, fw, fk, ierr = -1, fflag = 0;
        MPI_Aint v = 777, back = 0, *p = NULL;
        int tk, wk;

        MPI_Type_contiguous(2, MPI_INT, &t);
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL);
        ft = MPI_Type_c2f(t);
        fk = tk;
        mpi_type_set_attr_(&ft, &fk, &v, &ierr);
        CHECK(ierr == MPI_SUCCESS, "MPI_TYPE_SET_ATTR: ierr %d", (int)ierr);
        CHECK(MPI_Type_get_attr(t, tk, &p, &flag) == MPI_SUCCESS && flag && p && *p == 777,
              "MPI_TYPE_SET_ATTR 777, C read %ld", p ? (long)*p : 0L);
        mpi_type_get_attr_(&ft, &fk, &back, &fflag, &ierr);
        CHECK(ierr == MPI_SUCCESS && fflag && back == 777, "MPI_TYPE_GET_ATTR %ld", (long)back);
        MPI_Type_free(&t);
        MPI_Type_free_keyval(&tk);

        MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL);
        fw = MPI_Win_c2f(win);
        fk = wk;
        v = 888;
        mpi_win_set_attr_(&fw, &fk, &v, &ierr);
        CHECK(ierr == MPI_SUCCESS, "MPI_WIN_SET_ATTR: ierr %d", (int)ierr);
        p = NULL;
        CHECK(MPI_Win_get_attr(win, wk, &p, &flag) == MPI_SUCCESS && flag && p && *p == 888,
              "MPI_WIN_SET_ATTR 888, C read %ld", p ? (long)*p : 0L);
        MPI_Win_free(&win);
        MPI_Win_free_keyval(&wk);
    }

    MPI_Finalize();
    return 0;
}
