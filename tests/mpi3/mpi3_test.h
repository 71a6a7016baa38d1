/*
 * tests/mpi3/mpi3_test.h: the FAIL / CHECK helpers of the tests/mpi3
 * programs (plain MPI: they build against any MPI), from tests/mpi/check.h,
 * and EXPECT_CLASS.
 */
#ifndef MPI3_TEST_H
#define MPI3_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;

/* FAIL, CHECK, MPI_CHECK: tests/mpi/check.h's, each failure with rank and line */
#define CHECK_RANK g_rank
#define CHECK_LINE
#include "../mpi/check.h"

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
