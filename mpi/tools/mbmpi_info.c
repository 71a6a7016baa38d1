/* bin/mbmpi_info: every MBMPI_* setting with its default and meaning, and
 * the libfabric providers found on this machine (like ucx_info -c, fi_info). */
#include "mpi/core.h"
#include "transport/transport.h"

#include <stdio.h>

int main(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n;

    MPI_Get_library_version(v, &n);
    printf("%s\n\n", v);
    ut_cfg_print(&mpii_cfg_table, stdout);
    printf("MBMPI_%-22s default %-10s %s\n", "LOG", "warn", "log level: error, warn, info, debug");
    printf("\n# set by bin/mpirun (not by users): MBMPI_RANK MBMPI_SIZE MBMPI_STORE MBMPI_SECRET "
           "MBMPI_LOCAL_RANK MBMPI_LOCAL_SIZE MBMPI_HOST MBMPI_ALL_LOCAL; MBMPI_TIMEOUT = mpirun --timeout\n\n");
    tl_ofi_print_providers(stdout);
    return 0;
}
