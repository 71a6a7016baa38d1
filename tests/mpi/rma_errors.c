/*
 * rma_errors: error classes of the one-sided calls under MPI_ERRORS_RETURN
 * (MPI 3.1 8.4, 11.8), and the program going on correctly afterwards.
 *
 * With MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), there
 * being no window: MPI_Win_create with a negative size (MPI_ERR_SIZE) and
 * with disp_unit 0 (MPI_ERR_DISP: disp_unit is a positive integer), and
 * MPI_Win_free of MPI_WIN_NULL (MPI_ERR_WIN).
 * With MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN): MPI_Win_unlock
 * without a lock (MPI_ERR_RMA_SYNC); in a fence epoch MPI_Put to rank
 * `size` (MPI_ERR_RANK), of count -1 (MPI_ERR_COUNT), of MPI_DATATYPE_NULL
 * (MPI_ERR_TYPE), and past the end of the target window; in a lock epoch
 * MPI_Accumulate with a user-defined op (MPI_ERR_OP: only predefined ops
 * are allowed, 11.3.4), whose function must never run. Open MPI 4.1 and
 * MPICH 4.0 return exactly these classes (checked with MPI_Error_class).
 *
 * The access past the end of the window is erroneous (11.3), and MPI 3.1
 * does not require its detection: MPI_ERR_RMA_RANGE may come from the call
 * or only at synchronization. Open MPI 4.1's osc rdma returns it from
 * MPI_Put; its osc pt2pt and MPICH 4.0.2 report nothing (MPICH writes past
 * the window). So an error (any class) at the call or at the closing fence
 * is required only from mbmpi (recognized by MPI_Get_library_version),
 * which detects it, and then nothing outside the window may have been
 * written; with other libraries the test only requires that everything
 * goes on working. The window lies inside a larger buffer, so an
 * undetected access past it stays in the process's own memory.
 *
 * After the errors, a fence epoch with a valid MPI_Put, the lock epoch,
 * and the final fence and MPI_Win_free must work, with exact contents.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NAME "rma_errors"
#define CHECK_LINE
#include "check.h"

/* the window: buf[LO .. LO+WN), its base 64-byte aligned: MPICH 4.0.2 (ch4)
 * misplaces RMA into windows of MPI_Win_create whose base is not 16-byte
 * aligned (MPI 3.1 allows any base) */
enum { LO = 16, WN = 10, TOTAL = 48 };

static int user_op_calls;

static void user_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
    user_op_calls++;
}

static int cls(int rc)
{
    int c = -1;
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    CHECK(MPI_Error_class(rc, &c) == MPI_SUCCESS, "Error_class of %d", rc);
    return c;
}

static int init(int i)
{
    return -1 - i;
}

static void comm_eh(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

static void win_eh(MPI_Win *win, int *code, ...)
{
    (void)win, (void)code;
}

int main(int argc, char **argv)
{
    int rank, size, rc, c;
    static _Alignas(64) int buf[TOTAL];
    MPI_Win win = MPI_WIN_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < TOTAL; i++)
        buf[i] = init(i);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen;
    MPI_Get_library_version(lib, &liblen);
    int strict_range = strncmp(lib, "mbmpi", 5) == 0;

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS, "Comm_set_errhandler");

    /* ---- no window yet: the errors go to MPI_COMM_WORLD ---- */
    c = cls(MPI_Win_create(buf + LO, -1, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(c == MPI_ERR_SIZE, "Win_create size -1: class %d, expected MPI_ERR_SIZE %d", c, MPI_ERR_SIZE);
    c = cls(MPI_Win_create(buf + LO, WN * sizeof(int), 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(c == MPI_ERR_DISP, "Win_create disp_unit 0: class %d, expected MPI_ERR_DISP %d", c, MPI_ERR_DISP);
    win = MPI_WIN_NULL;
    c = cls(MPI_Win_free(&win));
    CHECK(c == MPI_ERR_WIN, "Win_free(MPI_WIN_NULL): class %d, expected MPI_ERR_WIN %d", c, MPI_ERR_WIN);

    CHECK(MPI_Win_create(buf + LO, WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
              MPI_SUCCESS,
          "Win_create");
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS, "Win_set_errhandler");
    {
        /* a handler made for communicators may not go to a window, nor one
         * made for windows to a communicator or a file (MPI 4.0 9.3); a
         * window's error had called the communicator handler with a window */
        MPI_Errhandler ceh, weh;
        CHECK(MPI_Comm_create_errhandler(comm_eh, &ceh) == MPI_SUCCESS, "Comm_create_errhandler");
        CHECK(MPI_Win_create_errhandler(win_eh, &weh) == MPI_SUCCESS, "Win_create_errhandler");
        c = cls(MPI_Win_set_errhandler(win, ceh));
        CHECK(c == MPI_ERR_ARG,
              "Win_set_errhandler of a communicator handler: class %d, expected MPI_ERR_ARG", c);
        c = cls(MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh));
        CHECK(c == MPI_ERR_ARG, "Comm_set_errhandler of a window handler: class %d, expected MPI_ERR_ARG", c);
        c = cls(MPI_File_set_errhandler(MPI_FILE_NULL, weh));
        CHECK(c == MPI_ERR_ARG, "File_set_errhandler of a window handler: class %d, expected MPI_ERR_ARG", c);
        CHECK(MPI_Win_set_errhandler(win, weh) == MPI_SUCCESS, "Win_set_errhandler of a window handler");
        CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS, "Win_set_errhandler");
        MPI_Errhandler_free(&ceh);
        MPI_Errhandler_free(&weh);
    }

    /* ---- synchronization ---- */
    c = cls(MPI_Win_unlock(right, win));
    CHECK(c == MPI_ERR_RMA_SYNC, "Win_unlock without lock: class %d, expected MPI_ERR_RMA_SYNC %d", c,
          MPI_ERR_RMA_SYNC);

    /* ---- arguments, in a fence epoch ---- */
    int v = 1000 + rank, far[4];
    for (int k = 0; k < 4; k++)
        far[k] = 7000 + rank * 10 + k;
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "Win_fence");
    c = cls(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_RANK, "Put to rank %d: class %d, expected MPI_ERR_RANK %d", size, c, MPI_ERR_RANK);
    c = cls(MPI_Put(&v, -1, MPI_INT, right, 0, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_COUNT, "Put count -1: class %d, expected MPI_ERR_COUNT %d", c, MPI_ERR_COUNT);
    c = cls(MPI_Put(&v, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_TYPE, "Put of MPI_DATATYPE_NULL: class %d, expected MPI_ERR_TYPE %d", c, MPI_ERR_TYPE);
    /* ints WN-2 .. WN+1 of the right neighbour's window: the last two are outside */
    int rc_call = MPI_Put(far, 4, MPI_INT, right, WN - 2, 4, MPI_INT, win);
    int rc_fence = MPI_Win_fence(0, win);
    if (strict_range)
        CHECK(rc_call != MPI_SUCCESS || rc_fence != MPI_SUCCESS,
              "Put past the end of the window: no error at the call nor at the fence");
    /* whatever the fence returned, it is the fence of every rank: the next
     * epoch starts here */

    /* ---- a valid epoch after the errors ---- */
    rc = MPI_Put(&v, 1, MPI_INT, right, 3, 1, MPI_INT, win);
    CHECK(rc == MPI_SUCCESS, "valid Put after errors: class %d", cls(rc));
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "Win_fence after errors");
    CHECK(buf[LO + 3] == 1000 + left, "valid Put after errors: %d, expected %d", buf[LO + 3], 1000 + left);

    /* ---- a user op in MPI_Accumulate, in a lock epoch ---- */
    {
        MPI_Op op;
        int a = 5;
        MPI_Op_create(user_op, 1, &op);
        CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS, "Win_fence NOSUCCEED");
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win) == MPI_SUCCESS, "Win_lock");
        c = cls(MPI_Accumulate(&a, 1, MPI_INT, right, 1, 1, MPI_INT, op, win));
        CHECK(c == MPI_ERR_OP, "Accumulate with a user op: class %d, expected MPI_ERR_OP %d", c, MPI_ERR_OP);
        {
            /* MPI 3.1 11.3.4: Compare_and_swap on integer, logical or byte
             * types only (not floating point); Fetch_and_op on a predefined
             * type only. Both were accepted (MPICH: MPI_ERR_TYPE) */
            double d = 1.0, dc = 1.0, dr = 0.0;
            long long l = 1, lr = 0;
            MPI_Datatype ll;
            c = cls(MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, right, 1, win));
            CHECK(c == MPI_ERR_TYPE, "Compare_and_swap of MPI_DOUBLE: class %d, expected MPI_ERR_TYPE", c);
            c = cls(MPI_Compare_and_swap(&d, &dc, &dr, MPI_FLOAT, right, 1, win));
            CHECK(c == MPI_ERR_TYPE, "Compare_and_swap of MPI_FLOAT: class %d, expected MPI_ERR_TYPE", c);
            MPI_Type_contiguous(1, MPI_LONG_LONG, &ll);
            MPI_Type_commit(&ll);
            c = cls(MPI_Fetch_and_op(&l, &lr, ll, right, 1, MPI_SUM, win));
            CHECK(c == MPI_ERR_TYPE, "Fetch_and_op of a derived type: class %d, expected MPI_ERR_TYPE", c);
            MPI_Type_free(&ll);
            /* MPI_PROC_NULL: nothing to flush, as Win_lock / unlock */
            CHECK(MPI_Win_flush(MPI_PROC_NULL, win) == MPI_SUCCESS, "Win_flush(MPI_PROC_NULL)");
            CHECK(MPI_Win_flush_local(MPI_PROC_NULL, win) == MPI_SUCCESS, "Win_flush_local(MPI_PROC_NULL)");
        }
        CHECK(MPI_Win_unlock(right, win) == MPI_SUCCESS, "Win_unlock");
        MPI_Op_free(&op);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(user_op_calls == 0, "the user op ran %d times", user_op_calls);

    /* ---- the contents: only the valid Put changed the window ---- */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < WN; i++) {
        if (i >= WN - 2) /* the in-window part of the erroneous put: undefined */
            continue;
        int want = i == 3 ? 1000 + left : init(LO + i);
        CHECK(buf[LO + i] == want, "window [%d] = %d, expected %d", i, buf[LO + i], want);
    }
    MPI_Win_unlock(rank, win);
    if (strict_range)
        for (int i = 0; i < TOTAL; i++)
            CHECK((i >= LO && i < LO + WN) || buf[i] == init(i), "written outside the window: buf[%d] = %d",
                  i, buf[i]);

    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS,
          "Win_fence before free");
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL, "Win_free");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_errors: ok (%d ranks, range errors %s)\n", size, strict_range ? "required" : "optional");
    MPI_Finalize();
    return 0;
}
