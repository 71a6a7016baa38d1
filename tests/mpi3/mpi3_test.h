/*
 * tests/mpi3/mpi3_test.h: the FAIL / CHECK helpers of the tests/mpi3
 * programs (plain MPI: they build against any MPI).
 */
#ifndef MPI3_TEST_H
#define MPI3_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s: ", TEST_NAME);                                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, " (rank %d, line %d)\n", g_rank, __LINE__);                               \
        fflush(stderr);                                                                            \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
        exit(1);                                                                                   \
    } while (0)
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            FAIL(__VA_ARGS__);                                                                     \
    } while (0)
#define MPI_CHECK(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            FAIL("%s returned %d", #call, rc_);                                                    \
    } while (0)
/* The call must fail with error class `cls` (MPI_ERRORS_RETURN set). */
#define EXPECT_CLASS(call, cls)                                                                    \
    do {                                                                                           \
        int rc_ = (call), c_ = -1;                                                                 \
        if (rc_ == MPI_SUCCESS)                                                                    \
            FAIL("%s succeeded, expected %s", #call, #cls);                                        \
        MPI_Error_class(rc_, &c_);                                                                 \
        if (c_ != (cls))                                                                           \
            FAIL("%s gave class %d, expected %s (%d)", #call, c_, #cls, (cls));                    \
    } while (0)

#endif
