/*
 * tests/shift/shift_args.c: MPIX_Shift and its helpers validate their
 * arguments and return MPI error classes (without ending the job): null,
 * non-Cartesian and 2-D communicators, depth, count, variant, type, NULL
 * buffers; count 0 with NULL buffers is a no-op; MPIX_Shift_slot's
 * layout rule and MPIX_Shift_source's answers on a small grid; two calls in
 * a row with different variants on the same communicator.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, failures;

#define EXPECT_RC(call, want)                                                                          \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        if (rc_ != (want)) {                                                                           \
            fprintf(stderr, "FAIL shift_args (rank %d, line %d): %s returned %d, want %s (%d)\n", wrank, \
                    __LINE__, #call, rc_, #want, (int)(want));                                         \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

#define EXPECT(cond)                                                                              \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "FAIL shift_args (rank %d, line %d): %s\n", wrank, __LINE__, #cond); \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    int size, dims3[3] = {0, 0, 0}, per3[3] = {1, 1, 1}, dims2[2] = {0, 0}, per2[2] = {1, 1};
    int sbuf[4] = {1, 2, 3, 4}, rbuf[27 * 4], r, tot;
    MPI_Comm cart3, cart2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Dims_create(size, 3, dims3);
    MPI_Dims_create(size, 2, dims2);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, per3, 0, &cart3);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &cart2);
    MPI_Comm_set_errhandler(cart3, MPI_ERRORS_RETURN);

    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, MPIX_SHIFT_SSEND, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, MPIX_SHIFT_SSEND, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, MPIX_SHIFT_SSEND, cart2), MPI_ERR_DIMS);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 0, MPIX_SHIFT_SSEND, cart3), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, -3, MPIX_SHIFT_SEND, cart3), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1 << 20, MPIX_SHIFT_SEND, cart3), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, 3, cart3), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, -1, cart3), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift(sbuf, -1, MPI_INT, rbuf, 1, MPIX_SHIFT_NONBLOCKING, cart3), MPI_ERR_COUNT);
    EXPECT_RC(MPIX_Shift(sbuf, 1 << 28, MPI_INT, rbuf, 1, MPIX_SHIFT_NONBLOCKING, cart3), MPI_ERR_COUNT);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_DATATYPE_NULL, rbuf, 1, MPIX_SHIFT_SSEND, cart3), MPI_ERR_TYPE);
    EXPECT_RC(MPIX_Shift(NULL, 4, MPI_INT, rbuf, 1, MPIX_SHIFT_SSEND, cart3), MPI_ERR_BUFFER);
    EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, NULL, 1, MPIX_SHIFT_SSEND, cart3), MPI_ERR_BUFFER);
    EXPECT_RC(MPIX_Shift(NULL, 0, MPI_INT, NULL, 1, MPIX_SHIFT_SSEND, cart3), MPI_SUCCESS);
    EXPECT_RC(MPIX_Shift(NULL, 0, MPI_INT, NULL, 3, MPIX_SHIFT_NONBLOCKING, cart3), MPI_SUCCESS);

    /* layout rule */
    EXPECT(MPIX_Shift_slot(1, -1, -1, -1) == 0);
    EXPECT(MPIX_Shift_slot(1, 0, 0, 0) == 13);
    EXPECT(MPIX_Shift_slot(1, 1, 1, 1) == 26);
    EXPECT(MPIX_Shift_slot(1, 1, 0, 0) == 14);
    EXPECT(MPIX_Shift_slot(1, 0, 1, 0) == 16);
    EXPECT(MPIX_Shift_slot(1, 0, 0, 1) == 22);
    EXPECT(MPIX_Shift_slot(2, -2, -2, -2) == 0);
    EXPECT(MPIX_Shift_slot(2, 2, 2, 2) == 124);
    EXPECT(MPIX_Shift_slot(2, 3, 0, 0) == -1);
    EXPECT(MPIX_Shift_slot(1, 0, -2, 0) == -1);
    EXPECT(MPIX_Shift_slot(0, 0, 0, 0) == 0);

    /* sources */
    EXPECT_RC(MPIX_Shift_source(cart3, 0, 0, 0, NULL), MPI_ERR_ARG);
    EXPECT_RC(MPIX_Shift_source(MPI_COMM_WORLD, 0, 0, 0, &r), MPI_ERR_TOPOLOGY);
    EXPECT_RC(MPIX_Shift_source(cart3, 0, 0, 0, &r), MPI_SUCCESS);
    {
        int me;
        MPI_Comm_rank(cart3, &me);
        EXPECT(r == me);
        /* a full period along any axis comes back to the caller */
        EXPECT_RC(MPIX_Shift_source(cart3, dims3[0], -dims3[1], 2 * dims3[2], &r), MPI_SUCCESS);
        EXPECT(r == me);
    }
    {
        MPI_Comm open3;
        int per0[3] = {0, 0, 0}, coords[3], me;
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, per0, 0, &open3);
        MPI_Comm_rank(open3, &me);
        MPI_Cart_coords(open3, me, 3, coords);
        EXPECT_RC(MPIX_Shift_source(open3, -coords[0] - 1, 0, 0, &r), MPI_SUCCESS);
        EXPECT(r == MPI_PROC_NULL);
        EXPECT_RC(MPIX_Shift_source(open3, 0, dims3[1] - coords[1], 0, &r), MPI_SUCCESS);
        EXPECT(r == MPI_PROC_NULL);
        EXPECT_RC(MPIX_Shift_source(open3, -coords[0], 0, dims3[2] - 1 - coords[2], &r), MPI_SUCCESS);
        EXPECT(r != MPI_PROC_NULL);
        MPI_Comm_free(&open3);
    }

    /* back-to-back calls of every variant on one communicator, same buffers
     * (the messages of one call must not be taken by the next) */
    for (int rep = 0; rep < 4; rep++)
        for (int v = 0; v < 3; v++) {
            int me;
            MPI_Comm_rank(cart3, &me);
            for (int i = 0; i < 4; i++)
                sbuf[i] = me * 10 + i + 1000 * rep + 100 * v;
            memset(rbuf, 0, sizeof(rbuf));
            EXPECT_RC(MPIX_Shift(sbuf, 4, MPI_INT, rbuf, 1, v, cart3), MPI_SUCCESS);
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int src, s = MPIX_Shift_slot(1, dx, dy, dz);
                        MPIX_Shift_source(cart3, dx, dy, dz, &src);
                        for (int i = 0; i < 4; i++)
                            EXPECT(rbuf[s * 4 + i] == src * 10 + i + 1000 * rep + 100 * v);
                    }
        }

    MPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("shift_args: %s\n", tot ? "FAILED" : "all checks passed");
    MPI_Comm_free(&cart2);
    MPI_Comm_free(&cart3);
    MPI_Finalize();
    return tot ? 1 : 0;
}
