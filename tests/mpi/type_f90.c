/*
 * type_f90: MPI_Type_create_f90_integer / _real / _complex (MPI 3.1
 * 17.1.9): the type of the Fortran kind SELECTED_INT_KIND(r) /
 * SELECTED_REAL_KIND(p, r) (gfortran's sizes), with the combiner
 * MPI_COMBINER_F90_* and the arguments as contents; the same arguments give
 * the same handle, different ones distinct handles; the types are
 * predefined (MPI_Type_free refuses them); impossible arguments give
 * MPI_ERR_ARG; the types carry data in messages and reductions.
 */
#include <mpi.h>
#include <stdio.h>

#define TEST_NAME "type_f90"
#define CHECK_LINE
#include "check.h"

static void check_type(MPI_Datatype t, int combiner, int ni, const int *want, int size)
{
    int nint, nadd, ndt, comb, ints[2] = {-7, -7}, sz;
    MPI_Aint adummy[1];
    MPI_Datatype ddummy[1];

    CHECK(MPI_Type_get_envelope(t, &nint, &nadd, &ndt, &comb) == MPI_SUCCESS, "MPI_Type_get_envelope failed");
    CHECK(comb == combiner && nint == ni && nadd == 0 && ndt == 0,
          "envelope %d %d %d combiner %d, want %d %d 0 0", nint, nadd, ndt, comb, ni, combiner);
    CHECK(MPI_Type_get_contents(t, 2, 0, 0, ints, adummy, ddummy) == MPI_SUCCESS,
          "MPI_Type_get_contents failed");
    for (int i = 0; i < ni; i++)
        CHECK(ints[i] == want[i], "contents[%d] = %d, want %d", i, ints[i], want[i]);
    MPI_Type_size(t, &sz);
    CHECK(sz == size, "size %d, want %d", sz, size);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype i9, i8, i9b, i2, i18, r6, r15, c15, tmp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK(MPI_Type_create_f90_integer(9, &i9) == MPI_SUCCESS, "f90_integer(9) failed");
    check_type(i9, MPI_COMBINER_F90_INTEGER, 1, (int[]){9}, 4);
    MPI_Type_create_f90_integer(8, &i8);
    check_type(i8, MPI_COMBINER_F90_INTEGER, 1, (int[]){8}, 4);
    CHECK(i8 != i9, "r = 8 and r = 9 give the same handle");
    for (int k = 0; k < 1000; k++) {
        MPI_Type_create_f90_integer(9, &i9b);
        CHECK(i9b == i9, "a second f90_integer(9) gives another handle");
    }
    MPI_Type_create_f90_integer(2, &i2);
    check_type(i2, MPI_COMBINER_F90_INTEGER, 1, (int[]){2}, 1);
    MPI_Type_create_f90_integer(18, &i18);
    check_type(i18, MPI_COMBINER_F90_INTEGER, 1, (int[]){18}, 8);
    CHECK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r6) == MPI_SUCCESS, "f90_real(6, undefined) failed");
    check_type(r6, MPI_COMBINER_F90_REAL, 2, (int[]){6, MPI_UNDEFINED}, 4);
    MPI_Type_create_f90_real(15, 300, &r15);
    check_type(r15, MPI_COMBINER_F90_REAL, 2, (int[]){15, 300}, 8);
    MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c15);
    check_type(c15, MPI_COMBINER_F90_COMPLEX, 2, (int[]){15, MPI_UNDEFINED}, 16);

    /* predefined: not freed; impossible kinds: MPI_ERR_ARG */
    tmp = i9;
    CHECK(MPI_Type_free(&tmp) != MPI_SUCCESS && tmp == i9, "MPI_Type_free freed an f90 type");
    {
        int cls, rc = MPI_Type_create_f90_integer(100, &tmp);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "f90_integer(100): class %d, want MPI_ERR_ARG", cls);
        rc = MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &tmp);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "f90_real(undefined, undefined): class %d, want MPI_ERR_ARG", cls);
        rc = MPI_Type_create_f90_real(40, 10, &tmp);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "f90_real(40, 10): class %d, want MPI_ERR_ARG", cls);
    }

    /* data: a message of 3 INTEGER(4) and a sum of REAL(8) */
    if (size >= 2) {
        int v[3] = {rank + 1, rank + 2, rank + 3};
        if (rank == 0)
            MPI_Send(v, 3, i9, 1, 5, MPI_COMM_WORLD);
        else if (rank == 1) {
            MPI_Status st;
            int n;
            MPI_Recv(v, 3, i9, 0, 5, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, i9, &n);
            CHECK(n == 3 && v[0] == 1 && v[1] == 2 && v[2] == 3, "received %d: %d %d %d", n, v[0], v[1],
                  v[2]);
        }
    }
    {
        double x = rank + 0.5, sum = 0;
        CHECK(MPI_Allreduce(&x, &sum, 1, r15, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "Allreduce on REAL(8)");
        CHECK(sum == size * (size - 1) / 2.0 + 0.5 * size, "sum %g", sum);
    }

    MPI_Finalize();
    return 0;
}
