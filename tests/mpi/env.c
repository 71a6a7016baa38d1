/*
 * env: environment management. MPI_Initialized / MPI_Finalized before
 * MPI_Init_thread, after it and after MPI_Finalize; MPI_Init_thread with
 * MPI_THREAD_FUNNELED gives a valid level that MPI_Query_thread repeats;
 * MPI_Is_thread_main; MPI_Wtime monotonic and advancing, MPI_Wtick > 0;
 * MPI_Get_processor_name; MPI_Get_version (3.1 or later, also before
 * MPI_Init and after MPI_Finalize); MPI_Get_library_version.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEST_NAME "env"
#define CHECK_RANK g_rank
#define CHECK_ABORT_IF g_initialized
#include "check.h"

static int g_rank = -1;
static int g_initialized = 0;

static void check_version(const char *when)
{
    int v = -1, sv = -1;
    MPI_CHECK(MPI_Get_version(&v, &sv));
    CHECK(v > 3 || (v == 3 && sv >= 1), "%s: Get_version %d.%d, expected 3.1 or later", when, v, sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "%s: Get_version %d.%d differs from mpi.h (%d.%d)", when,
          v, sv, MPI_VERSION, MPI_SUBVERSION);
}

static void check_library_version(const char *when)
{
    char s[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    memset(s, 0x7f, sizeof s);
    MPI_CHECK(MPI_Get_library_version(s, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "%s: Get_library_version length %d", when, len);
    CHECK(memchr(s, 0, sizeof s) != NULL, "%s: library version not terminated", when);
    CHECK((int)strlen(s) == len, "%s: library version length %d but strlen %zu", when, len, strlen(s));
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, q = -1, rank, size;

    /* before MPI_Init */
    MPI_CHECK(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized true before MPI_Init");
    flag = -1;
    MPI_CHECK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized true before MPI_Init");
    check_version("before MPI_Init");
    check_library_version("before MPI_Init");

    MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    g_initialized = 1;
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    g_rank = rank;
    /* the standard lets provided be below or above the request; any level
     * from SINGLE to MULTIPLE is valid, and Query_thread must agree */
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "Init_thread(FUNNELED): provided %d is not a thread level", provided);
    if (getenv("ENV_TEST_STRICT_THREAD"))
        CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED,
              "Init_thread(FUNNELED): provided %d, expected SINGLE or FUNNELED", provided);
    MPI_CHECK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d differs from provided %d", q, provided);
    flag = 0;
    MPI_CHECK(MPI_Is_thread_main(&flag));
    CHECK(flag, "Is_thread_main false on the thread that called MPI_Init_thread");

    flag = 0;
    MPI_CHECK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized false after MPI_Init_thread");
    flag = -1;
    MPI_CHECK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized true before MPI_Finalize");
    check_version("after MPI_Init");
    check_library_version("after MPI_Init");

    /* Wtime / Wtick */
    double tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick < 1.0, "Wtick %g not in (0, 1)", tick);
    double prev = MPI_Wtime(), start = prev;
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        CHECK(t >= prev, "Wtime went backwards: %.9f after %.9f", t, prev);
        prev = t;
    }
    struct timespec ts = {0, 20 * 1000 * 1000}; /* 20 ms */
    double t0 = MPI_Wtime();
    nanosleep(&ts, NULL);
    double t1 = MPI_Wtime();
    CHECK(t1 - t0 >= 0.019 && t1 - t0 < 10.0, "Wtime across a 20 ms sleep advanced %.6f s", t1 - t0);
    CHECK(t1 >= start, "Wtime went backwards across a sleep");

    /* processor name */
    {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = -1;
        memset(name, 0x7f, sizeof name);
        MPI_CHECK(MPI_Get_processor_name(name, &len));
        CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "Get_processor_name length %d", len);
        CHECK(memchr(name, 0, sizeof name) != NULL && (int)strlen(name) == len,
              "Get_processor_name: length %d does not match the string", len);
    }

    /* MPI_TAG_UB and friends are there from the start */
    {
        int *ub = NULL;
        flag = 0;
        MPI_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
        CHECK(flag && ub && *ub >= 32767, "MPI_TAG_UB attribute missing or below 32767");
    }

    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHECK(MPI_Finalize());
    g_initialized = 0;

    flag = 0;
    MPI_CHECK(MPI_Finalized(&flag));
    CHECK(flag == 1, "Finalized false after MPI_Finalize");
    flag = 0;
    MPI_CHECK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized false after MPI_Finalize (it stays true)");
    check_version("after MPI_Finalize");
    check_library_version("after MPI_Finalize");
    (void)size;
    return 0;
}
