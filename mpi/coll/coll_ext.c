/*
 * mpi/coll/coll_ext.c: the MPIX_Coll_* extensions (contract in mpi.h): list
 * the algorithms of a collective, force one, and ask the pLogP model for a
 * predicted time. bench/coll uses them to sweep every algorithm in one run.
 * Errors are returned (MPI_ERR_ARG), never raised through a handler: these
 * are queries a tool makes, with no communicator to report on.
 */
#include "coll.h"

#include <stdio.h>
#include <string.h>

int MPIX_Coll_algo_count(const char *op, int *count)
{
    int o = mpii_coll_op_by_name(op);

    if (o < 0 || count == NULL)
        return MPI_ERR_ARG;
    *count = mpii_coll_algo_count(o);
    return MPI_SUCCESS;
}

int MPIX_Coll_algo_name(const char *op, int i, char *name, int len)
{
    int o = mpii_coll_op_by_name(op);

    if (o < 0 || name == NULL || len <= 0 || i < 0 || i >= mpii_coll_algo_count(o))
        return MPI_ERR_ARG;
    snprintf(name, (size_t)len, "%s", mpii_coll_algo_name(o, i));
    return MPI_SUCCESS;
}

int MPIX_Coll_force(const char *op, const char *algo)
{
    int o = mpii_coll_op_by_name(op);
    int a = -1;

    if (o < 0)
        return MPI_ERR_ARG;
    if (algo != NULL && strcmp(algo, "auto") != 0) {
        a = mpii_coll_algo_by_name(o, algo);
        if (a < 0)
            return MPI_ERR_ARG;
    }
    mpii_coll_force(o, a);
    return MPI_SUCCESS;
}

int MPIX_Coll_predict(const char *op, const char *algo, int P, MPI_Count m, double *usec, char *chosen,
                      int len)
{
    int o = mpii_coll_op_by_name(op);
    int a = -1, pick = -1;
    double t;

    if (o < 0 || P < 1 || m < 0 || usec == NULL)
        return MPI_ERR_ARG;
    if (!mpii_is_initialized())
        return MPI_ERR_OTHER; /* the parameters are loaded by MPI_Init */
    if (algo != NULL && strcmp(algo, "auto") != 0) {
        a = mpii_coll_algo_by_name(o, algo);
        if (a < 0)
            return MPI_ERR_ARG;
    }
    t = mpii_coll_predict(o, a, P, (double)m, &pick);
    if (t < 0.0)
        return MPI_ERR_ARG;
    *usec = t;
    if (chosen != NULL && len > 0)
        snprintf(chosen, (size_t)len, "%s", mpii_coll_algo_name(o, a >= 0 ? a : pick));
    return MPI_SUCCESS;
}
