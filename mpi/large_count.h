/*
 * mpi/large_count.h: what the large-count calls (mpi/large_count.c, generated,
 * and mpi/large_count_extra.c) share: converting MPI_Count / MPI_Aint
 * arguments to the int counts mbmpi uses inside.
 */
#ifndef MBMPI_LARGE_COUNT_H
#define MBMPI_LARGE_COUNT_H

#include "mpi/mpi3.h"

#include <stdlib.h>

/* *out = v when it fits an int, else MPI_ERR_COUNT raised on comm (the
 * argument named `what`) */
int lc_int(const char *fn, MPI_Comm comm, const char *what, MPI_Count v, int *out);
/* *out = v (an MPI_Aint holds every MPI_Count here) */
int lc_aint(const char *fn, MPI_Comm comm, const char *what, MPI_Count v, MPI_Aint *out);
/* a malloc'ed copy of the n 64-bit values at `in` (MPI_Count or MPI_Aint)
 * as int / MPI_Aint; *out NULL when in is NULL or n <= 0 */
int lc_array_int(const char *fn, MPI_Comm comm, const void *in, MPI_Count n, int **out);
int lc_array_aint(const char *fn, MPI_Comm comm, const void *in, MPI_Count n, MPI_Aint **out);
/* A count of `datatype` elements for an int-count call: *n = count when it
 * fits an int; above INT_MAX, *n = 1 and *big = a committed type of count
 * elements of datatype (contiguous types nested, so every count inside is
 * an int), for lc_type_free to release after the call; a negative count is
 * passed on for the call to refuse. */
int lc_count(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, int *n,
             MPI_Datatype *big);
void lc_type_free(MPI_Datatype *big);
/* Type_indexed_c, Type_create_hindexed_c, Type_create_struct_c with a block
 * length above INT_MAX (lc_any_big): a struct type whose big blocks are one
 * element of a nested contiguous type each. unit: the bytes of one
 * displacement (1, or the extent of oldtype for Type_indexed_c); types: one
 * per block, or NULL for oldtype. */
int lc_any_big(const MPI_Count bl[], MPI_Count count);
int lc_blocks(const char *fn, MPI_Count count, const MPI_Count bl[], const MPI_Count displs[], int in_extents,
              const MPI_Datatype types[], MPI_Datatype oldtype, MPI_Datatype *newtype);
/* The converted arrays of a nonblocking or persistent call (up to 4, NULL
 * ones skipped) go with its request, freed when the request is (they must
 * live until then); freed at once when the call failed. */
void lc_keep(int rc, MPI_Request *request, void *a, void *b, void *c, void *d);
/* a neighborhood collective's arrays: in- and out-degree of comm's topology */
int lc_indegree(MPI_Comm comm);
int lc_outdegree(MPI_Comm comm);
/* the length of a v-collective's arrays: the remote group's size for an
 * inter-communicator, else the communicator's (0 for an invalid one) */
int lc_nprocs(MPI_Comm comm);
int lc_local_size(MPI_Comm comm);
/* the root's arrays are significant here */
int lc_at_root(MPI_Comm comm, int root);

#endif /* MBMPI_LARGE_COUNT_H */
