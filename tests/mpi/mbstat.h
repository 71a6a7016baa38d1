/*
 * tests/mpi/mbstat.h: mbstat(name), one of mbmpi's per-rank counters or
 * settings (MPIX_Stat_get); 0 when built against another MPI, whose tests
 * then check the data only.
 */
#ifndef TESTS_MPI_MBSTAT_H
#define TESTS_MPI_MBSTAT_H

#include <mpi.h>

static inline unsigned long long mbstat(const char *name)
{
    unsigned long long v = 0;
#ifdef MBMPI_VERSION_STRING
    MPIX_Stat_get(name, &v);
#else
    (void)name;
#endif
    return v;
}

#endif
