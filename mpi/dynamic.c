/*
 * mpi/dynamic.c: the calls of MPI 4.0 chapter 11 (process creation and
 * management) that make sense for a job whose processes all start together.
 *
 * MPI_Comm_get_parent gives MPI_COMM_NULL: no process was spawned.
 * MPI_Comm_spawn and MPI_Comm_spawn_multiple are collective over comm and
 * fail at every member with MPI_ERR_SPAWN (11.8.1: an implementation may be
 * unable to start processes), each errcode set to it. MPI_Comm_disconnect
 * (11.10.4) waits for the communicator's requests in flight, synchronises
 * its members (intra- or inter-communicator) and frees it.
 */
#include "mpi_impl.h"

int MPI_Comm_get_parent(MPI_Comm *parent)
{
    MPII_CHECK_INIT("MPI_Comm_get_parent");
    if (!parent)
        return mpii_err(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    mpii_comm_t *c;
    int rc;

    MPII_CHECK_INIT(fn);
    if (!comm)
        return mpii_err(NULL, MPI_ERR_ARG, fn, "comm is NULL");
    c = mpii_comm_get(*comm);
    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", *comm);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return mpii_err(c, MPI_ERR_COMM, fn, "cannot disconnect a predefined communicator");
    mpii_comm_drain(c);
    rc = MPI_Barrier(*comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Comm_free(comm);
}

static int spawn_fail(const char *fn, int nprocs, int root, MPI_Comm comm, MPI_Comm *intercomm,
                      int errcodes[])
{
    mpii_comm_t *c = mpii_comm_get(comm);
    int rc;

    if (!c)
        return mpii_err(NULL, MPI_ERR_COMM, fn, "invalid communicator %d", comm);
    if (c->is_inter)
        return mpii_err(c, MPI_ERR_COMM, fn, "comm is an inter-communicator");
    if (root < 0 || root >= c->size)
        return mpii_err(c, MPI_ERR_ROOT, fn, "invalid root %d (communicator has %d ranks)", root, c->size);
    if (!intercomm)
        return mpii_err(c, MPI_ERR_ARG, fn, "intercomm is NULL");
    /* collective: the members return together, as after a real attempt */
    rc = MPI_Barrier(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    *intercomm = MPI_COMM_NULL;
    if (errcodes && c->rank == root) /* nprocs is the root's */
        for (int i = 0; i < nprocs; i++)
            errcodes[i] = MPI_ERR_SPAWN;
    return mpii_err(c, MPI_ERR_SPAWN, fn, "mbmpi cannot start processes after MPI_Init");
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)command;
    (void)argv;
    (void)info;
    MPII_CHECK_INIT("MPI_Comm_spawn");
    return spawn_fail("MPI_Comm_spawn", maxprocs > 0 ? maxprocs : 0, root, comm, intercomm,
                      array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    int n = 0;

    (void)array_of_commands;
    (void)array_of_argv;
    (void)array_of_info;
    MPII_CHECK_INIT("MPI_Comm_spawn_multiple");
    /* the maxprocs are significant at the root only */
    if (array_of_maxprocs && count > 0)
        for (int i = 0; i < count; i++)
            n += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
    return spawn_fail("MPI_Comm_spawn_multiple", n, root, comm, intercomm, array_of_errcodes);
}
