/*
 * tests/mpi/check.h: the failure macros shared by the MPI test programs.
 *
 * A test defines TEST_NAME (a string literal) and any of the settings
 * below, then includes this header:
 *
 *     #define TEST_NAME "comm"
 *     #define CHECK_RANK g_rank
 *     #include "check.h"
 *
 * FAIL(fmt, ...): prints one line to stderr, "FAIL <TEST_NAME>: <message>"
 * (tests/mpi/run.sh and people grep for "FAIL <name>"), then ends the job:
 * MPI_Abort(MPI_COMM_WORLD, 1), then exit(1).
 * CHECK(cond, fmt, ...): FAIL(fmt, ...) unless cond holds.
 * MPI_CHECK(call): FAIL("<call> returned <rc> (line <L>)") unless call
 * returns MPI_SUCCESS.
 * ECLASS(call, cls): FAIL unless call returns an error of class cls (the
 * test has set MPI_ERRORS_RETURN).
 *
 * Settings (each optional; define them before the #include):
 *   CHECK_RANK expr      an int expression, evaluated when the test fails,
 *                        printed after the message: "FAIL name: msg (rank R)"
 *   CHECK_RANK_FIRST     with CHECK_RANK: the rank goes before the message
 *                        instead, "FAIL name (rank R): msg"
 *   CHECK_LINE           adds the line of the failing FAIL or CHECK:
 *                        "FAIL name: msg (line L)", with CHECK_RANK
 *                        "FAIL name: msg (rank R, line L)"
 *   CHECK_ABORT_IF expr  FAIL calls MPI_Abort only when expr is true (a test
 *                        that may fail before MPI_Init or after
 *                        MPI_Finalize); it exits with status 1 in any case
 */
#ifndef TESTS_MPI_CHECK_H
#define TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef TEST_NAME
#error "define TEST_NAME before including check.h"
#endif

#if defined(CHECK_RANK) && defined(CHECK_RANK_FIRST)
#define CHECK_HEAD_() fprintf(stderr, "FAIL %s (rank %d): ", TEST_NAME, (CHECK_RANK))
#else
#define CHECK_HEAD_() fprintf(stderr, "FAIL %s: ", TEST_NAME)
#endif

#if defined(CHECK_RANK) && !defined(CHECK_RANK_FIRST) && defined(CHECK_LINE)
#define CHECK_TAIL_() fprintf(stderr, " (rank %d, line %d)\n", (CHECK_RANK), __LINE__)
#elif defined(CHECK_RANK) && !defined(CHECK_RANK_FIRST)
#define CHECK_TAIL_() fprintf(stderr, " (rank %d)\n", (CHECK_RANK))
#elif defined(CHECK_LINE)
#define CHECK_TAIL_() fprintf(stderr, " (line %d)\n", __LINE__)
#else
#define CHECK_TAIL_() fprintf(stderr, "\n")
#endif

#ifdef CHECK_ABORT_IF
#define CHECK_ABORT_()                                                                                       \
    do {                                                                                                     \
        if (CHECK_ABORT_IF)                                                                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
    } while (0)
#else
#define CHECK_ABORT_() MPI_Abort(MPI_COMM_WORLD, 1)
#endif

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        CHECK_HEAD_();                                                                                       \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        CHECK_TAIL_();                                                                                       \
        fflush(stderr);                                                                                      \
        CHECK_ABORT_();                                                                                      \
        exit(1);                                                                                             \
    } while (0)
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            FAIL(__VA_ARGS__);                                                                               \
    } while (0)
#define MPI_CHECK(call)                                                                                      \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != MPI_SUCCESS)                                                                              \
            FAIL("%s returned %d (line %d)", #call, rc_, __LINE__);                                          \
    } while (0)

#define ECLASS(call, cls)                                                                                    \
    do {                                                                                                     \
        int rc_ = (call), c_ = -1;                                                                           \
        MPI_Error_class(rc_, &c_);                                                                           \
        if (c_ != (cls))                                                                                     \
            FAIL("%s gave class %d, expected %s (line %d)", #call, c_, #cls, __LINE__);                      \
    } while (0)

#endif /* TESTS_MPI_CHECK_H */
